"""Python exceptions for the C library's status codes.

Every failing C call records a code and a message naming the function and the argument; the
binding raises the exception class of that code with the message unchanged. Each class
derives from TensorError (so `except tinytensor.TensorError` catches them all) and from the
built-in exception a Python caller expects for that kind of mistake (IndexError for a dim out
of range, TypeError for a dtype the op does not take, ...)."""


class TensorError(Exception):
    """An error reported by the tinytensor C library.

    `status` is the code's name ("TENSOR_ERR_INDEX"), `code` its value; str(e) is the C
    library's message."""

    def __init__(self, message, status="TENSOR_ERR_UNKNOWN", code=-1):
        super().__init__(message)
        self.status = status
        self.code = code


class TensorIndexError(TensorError, IndexError):
    """A dim or index out of range (TENSOR_ERR_INDEX), as PyTorch's IndexError."""


class TensorTypeError(TensorError, TypeError):
    """A dtype the op does not accept, or a promotion that is not allowed (TENSOR_ERR_DTYPE)."""


class TensorValueError(TensorError, ValueError):
    """A bad argument, shapes that do not match, a device mismatch, an overflowing size or
    malformed data (TENSOR_ERR_INVALID_ARGUMENT, _SHAPE, _DEVICE, _OVERFLOW, _FORMAT)."""


class TensorMemoryError(TensorError, MemoryError):
    """Host or device memory ran out (TENSOR_ERR_OUT_OF_MEMORY)."""


class TensorNotImplementedError(TensorError, NotImplementedError):
    """A valid request this build cannot do (TENSOR_ERR_NOT_IMPLEMENTED)."""


class TensorIOError(TensorError, OSError):
    """A file could not be opened, read or written (TENSOR_ERR_IO)."""


class TensorRuntimeError(TensorError, RuntimeError):
    """The CUDA runtime failed (TENSOR_ERR_CUDA), or a library bug (TENSOR_ERR_INTERNAL)."""


# By status name, so that the table does not depend on the enum's values.
_BY_STATUS = {
    "TENSOR_ERR_INDEX": TensorIndexError,
    "TENSOR_ERR_DTYPE": TensorTypeError,
    "TENSOR_ERR_OUT_OF_MEMORY": TensorMemoryError,
    "TENSOR_ERR_NOT_IMPLEMENTED": TensorNotImplementedError,
    "TENSOR_ERR_IO": TensorIOError,
    "TENSOR_ERR_CUDA": TensorRuntimeError,
    "TENSOR_ERR_INTERNAL": TensorRuntimeError,
}


def error_class(status_name):
    """The exception class for a status name; TensorValueError for the others."""
    return _BY_STATUS.get(status_name, TensorValueError)
