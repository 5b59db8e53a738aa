"""The compiled cffi module and the checks that turn C failures into Python exceptions."""
try:
    from ._ffi import ffi, lib
except ImportError as e:  # pragma: no cover - depends on how the package was (not) installed
    raise ImportError(
        "tinytensor's compiled module is missing (%s). Install the package with `pip install ./python` "
        "from the repository's root; running Python from inside python/ imports the source folder "
        "instead of the installed package." % e) from e

from ._errors import error_class


def raise_last_error():
    """Raises the exception of this thread's last C error (and clears it)."""
    code = lib.tensor_last_status()
    status = ffi.string(lib.tensor_status_name(code)).decode()
    message = ffi.string(lib.tensor_last_error()).decode("utf-8", "replace")
    lib.tensor_clear_error()
    if code == lib.TENSOR_OK:
        # A NULL or -1 without a recorded error would be a library bug; say so rather than guess.
        status, message = "TENSOR_ERR_INTERNAL", message or "the C call failed without recording an error"
    raise error_class(status)(message, status, int(code))


def check(status):
    """For functions that return a tensor_status."""
    if status != lib.TENSOR_OK:
        raise_last_error()


def check_ptr(ptr):
    """For functions that return a pointer (NULL on error); returns ptr."""
    if ptr == ffi.NULL:
        raise_last_error()
    return ptr


def check_len(n):
    """For the snprintf-style functions (-1 on error); returns n."""
    if n < 0:
        raise_last_error()
    return n


def snprintf_string(fn, *args):
    """Calls an snprintf-contract function fn(*args, buf, size) twice: once for the length,
    once to fill a buffer of that length."""
    n = check_len(fn(*args, ffi.NULL, 0))
    buf = ffi.new("char[]", n + 1)
    check_len(fn(*args, buf, n + 1))
    return ffi.string(buf, n).decode("utf-8", "replace")
