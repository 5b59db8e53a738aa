"""DLPack in Python: Tensor.__dlpack__ (export) and from_dlpack (import), on top of the C
library's tensor_to_dlpack[_versioned] and tensor_from_dlpack[_versioned].

The Python rules (the DLPack and array API specifications):
  * A capsule named "dltensor_versioned" holds a DLManagedTensorVersioned, one named
    "dltensor" a legacy DLManagedTensor.
  * The consumer renames the capsule to "used_dltensor_versioned" / "used_dltensor" when it
    takes ownership; from then on the consumer calls the deleter. A capsule that dies under its
    original name was never consumed, and its destructor calls the deleter (ours does so in C,
    tinytensor_build/ffi.py).
  * The consumer asks for the versioned struct with max_version=(1, x); an older producer
    rejects the keyword with a TypeError, and the consumer asks again without it.

Capsules are made and opened through the CPython API (ctypes.pythonapi); the capsule's
destructor and names are C objects of the compiled module, so they outlive every capsule."""
import ctypes
import operator

from . import _types
from ._lib import check, ffi, lib
from ._tensor import Tensor, _wrap

_api = ctypes.pythonapi
_capsule_new = _api.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
_capsule_is_valid = _api.PyCapsule_IsValid
_capsule_is_valid.restype = ctypes.c_int
_capsule_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_get_pointer = _api.PyCapsule_GetPointer
_capsule_get_pointer.restype = ctypes.c_void_p
_capsule_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_set_name = _api.PyCapsule_SetName
_capsule_set_name.restype = ctypes.c_int
_capsule_set_name.argtypes = [ctypes.py_object, ctypes.c_void_p]
_capsule_get_name = _api.PyCapsule_GetName
_capsule_get_name.restype = ctypes.c_char_p
_capsule_get_name.argtypes = [ctypes.py_object]

_LEGACY, _LEGACY_USED, _VERSIONED, _VERSIONED_USED = (
    int(ffi.cast("uintptr_t", lib.tt_py_capsule_name(i))) for i in range(4))
_DESTRUCTOR = int(lib.tt_py_capsule_destructor_address())

kDLCPU = int(lib.kDLCPU)
kDLCUDA = int(lib.kDLCUDA)
# The highest version we produce and read.
VERSION = (int(lib.TENSOR_DLPACK_MAJOR), int(lib.TENSOR_DLPACK_MINOR))
# Dtypes DLPack names only from version 1.1 on: a consumer that reads at most 1.0 cannot take them.
_SINCE_1_1 = {"float8_e4m3fn", "float8_e5m2"}


def _is_capsule(obj):
    return type(obj).__name__ == "PyCapsule"


def make_capsule(managed, versioned):
    """A capsule owning `managed` (a DLManagedTensorVersioned * or DLManagedTensor * cdata):
    its deleter runs when the capsule dies unconsumed. On failure the deleter runs here."""
    address = int(ffi.cast("uintptr_t", managed))
    try:
        return _capsule_new(address, _VERSIONED if versioned else _LEGACY, _DESTRUCTOR)
    except BaseException:
        if managed.deleter != ffi.NULL:
            managed.deleter(managed)
        raise


def _device_of(dl_device):
    try:
        kind, index = (operator.index(v) for v in dl_device)
    except (TypeError, ValueError):
        raise BufferError("dl_device must be a (device_type, device_id) pair, got %r" % (dl_device,)) from None
    if kind == lib.kDLCPU:
        return _types.device("cpu")
    if kind == lib.kDLCUDA:
        return _types.device("cuda", index)
    raise BufferError("tinytensor cannot export to DLPack device type %d (only kDLCPU and kDLCUDA)" % kind)


def _consumer_stream(t, stream):
    """The C library's consumer_stream for Python's __dlpack__(stream=...)."""
    if not t.is_cuda:
        # The specification asks CPU consumers for None; -1 ("do not synchronise") is harmless.
        if stream is None or stream == -1:
            return lib.TENSOR_DLPACK_STREAM_NONE
        raise BufferError("stream must be None for a CPU tensor, got %r" % (stream,))
    if stream is None:
        return 0  # the legacy default stream, as the specification reads None for CUDA
    stream = operator.index(stream)
    if stream == 0:
        raise ValueError("stream=0 is ambiguous and not allowed for CUDA by the DLPack specification; "
                         "pass 1 for the legacy default stream or 2 for the per-thread one")
    return stream


def export(t, stream=None, max_version=None, dl_device=None, copy=None):
    """Tensor.__dlpack__: a capsule over t's memory (zero-copy unless a copy is asked for or
    another device is)."""
    src, copied = t, False
    if dl_device is not None:
        target = _device_of(dl_device)
        if target != t.device:
            if copy is False:
                raise BufferError("exporting a %s tensor to %s needs a copy, and copy=False was given" % (t.device, target))
            src, copied = t.to(target), True
    if copy and not copied:
        src, copied = t.clone(), True
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    cstream = _consumer_stream(src, stream)
    if versioned:
        major, minor = tuple(max_version)[:2]
        if major == 1 and minor < 1 and src.dtype.name in _SINCE_1_1:
            raise BufferError("%s needs DLPack 1.1; the consumer reads at most %d.%d" % (src.dtype.name, major, minor))
        flags = lib.DLPACK_FLAG_BITMASK_READ_ONLY if t.is_readonly and not copied else 0
        out = ffi.new("DLManagedTensorVersioned **")
        check(lib.tensor_to_dlpack_versioned(src._ptr, flags, cstream, out))
        managed = out[0]
        if copied:
            # The C export takes only the read-only flag; that the memory is a fresh copy the
            # consumer owns alone is this function's knowledge.
            managed.flags |= lib.DLPACK_FLAG_BITMASK_IS_COPIED
        if major == 1 and minor < VERSION[1]:
            # Same layout; the struct says the version the consumer can read.
            managed.version.minor = minor
        return make_capsule(managed, True)
    if t.is_readonly and not copied:
        raise BufferError("this tensor is read-only, and a legacy (pre-1.0) DLPack capsule cannot say so; "
                          "ask for max_version=(1, 0) or copy=True")
    out = ffi.new("DLManagedTensor **")
    check(lib.tensor_to_dlpack(src._ptr, cstream, out))
    return make_capsule(out[0], False)


def _our_stream(device_id):
    """The stream a CUDA producer should make its data ready on: the calling thread's current
    stream of that device in tinytensor (1 stands for the legacy default stream, NULL here)."""
    s = lib.tensor_cuda_get_stream(device_id)
    return int(ffi.cast("intptr_t", s)) if s != ffi.NULL else 1


def import_capsule(capsule):
    """A Tensor owning the DLPack struct of an unconsumed capsule; marks the capsule used."""
    name = _capsule_get_name(capsule)
    if name == b"dltensor_versioned":
        managed = ffi.cast("DLManagedTensorVersioned *", _capsule_get_pointer(capsule, name))
        # Renamed first: from here on the C import owns the struct (it calls the deleter
        # itself if it refuses the tensor), and the capsule's destructor must not.
        if _capsule_set_name(capsule, _VERSIONED_USED) != 0:
            raise RuntimeError("PyCapsule_SetName failed")
        readonly = managed.version.major == 1 and bool(managed.flags & lib.DLPACK_FLAG_BITMASK_READ_ONLY)
        return _wrap(lib.tensor_from_dlpack_versioned(managed), readonly)
    if name == b"dltensor":
        managed = ffi.cast("DLManagedTensor *", _capsule_get_pointer(capsule, name))
        if _capsule_set_name(capsule, _LEGACY_USED) != 0:
            raise RuntimeError("PyCapsule_SetName failed")
        return _wrap(lib.tensor_from_dlpack(managed))
    if name in (b"used_dltensor", b"used_dltensor_versioned"):
        raise ValueError("this DLPack capsule has already been consumed")
    raise ValueError("not a DLPack capsule (its name is %r)" % name)


def from_dlpack(ext_tensor):
    """A Tensor sharing the memory of `ext_tensor`: any object with __dlpack__ and
    __dlpack_device__ (numpy arrays, torch and CuPy tensors, ...) or a DLPack capsule.
    Zero-copy; the producer's memory stays alive until this tensor and all its views are gone."""
    if isinstance(ext_tensor, Tensor):
        return ext_tensor
    if _is_capsule(ext_tensor):
        return import_capsule(ext_tensor)
    if not hasattr(ext_tensor, "__dlpack__"):
        raise TypeError("from_dlpack(): expected an object with __dlpack__ or a DLPack capsule, got %s"
                        % type(ext_tensor).__name__)
    kind, index = (kDLCPU, 0) if not hasattr(ext_tensor, "__dlpack_device__") else ext_tensor.__dlpack_device__()
    kwargs = {}
    if int(kind) == lib.kDLCUDA:
        kwargs["stream"] = _our_stream(int(index))
    try:
        capsule = ext_tensor.__dlpack__(max_version=VERSION, **kwargs)
    except TypeError:
        # A producer older than DLPack 1.0 takes no max_version.
        capsule = ext_tensor.__dlpack__(**kwargs)
    return import_capsule(capsule)

