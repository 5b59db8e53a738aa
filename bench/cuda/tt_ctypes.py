"""tinytensor's shared library from Python through ctypes, for benchmarks that time our
tensor_sum and torch.sum in one process on the same memory (bench/cuda/run.py).

Our tensor is a view of the torch tensor's memory (tensor_from_blob, no copy), so both
libraries read the same bytes; the call is the C API a program calls, only reached through
ctypes (its host cost is on the host side, before the launch, and the timing method keeps it
out of the GPU's timeline: see run.py)."""
import ctypes
import os

import torch

DTYPES = {torch.bool: 0, torch.uint8: 1, torch.int8: 2, torch.int16: 3, torch.int32: 4, torch.int64: 5,
          torch.float16: 6, torch.bfloat16: 7, torch.float32: 8, torch.float64: 9}
TORCH_OF = {v: k for k, v in DTYPES.items()}


class Device(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("index", ctypes.c_int)]


def load(build_dir):
    for name in ("libtinytensor.so", "libtinytensor.dylib"):
        path = os.path.join(build_dir, name)
        if os.path.exists(path):
            break
    lib = ctypes.CDLL(path)
    p, i64p = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int64)
    lib.tensor_from_blob.restype = p
    lib.tensor_from_blob.argtypes = [p, ctypes.c_int, i64p, i64p, ctypes.c_int, Device, p, p]
    lib.tensor_sum_dims.restype = p
    lib.tensor_sum_dims.argtypes = [p, ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_bool, ctypes.c_int]
    lib.tensor_vecdot.restype = p
    lib.tensor_vecdot.argtypes = [p, p, ctypes.c_int]
    lib.tensor_release.restype = None
    lib.tensor_release.argtypes = [p]
    lib.tensor_last_error.restype = ctypes.c_char_p
    lib.tensor_to_buffer.restype = ctypes.c_int
    lib.tensor_to_buffer.argtypes = [p, p, ctypes.c_size_t]
    lib.tensor_numel.restype = ctypes.c_int64
    lib.tensor_numel.argtypes = [p]
    lib.tensor_get_dtype.restype = ctypes.c_int
    lib.tensor_get_dtype.argtypes = [p]
    return lib


def view_of(lib, x):
    """Our tensor over torch tensor x's memory (same sizes and strides, no copy); release it."""
    n = x.dim()
    sizes = (ctypes.c_int64 * max(n, 1))(*x.shape)
    strides = (ctypes.c_int64 * max(n, 1))(*x.stride())
    v = lib.tensor_from_blob(x.data_ptr(), n, sizes, strides, DTYPES[x.dtype], Device(1, x.device.index or 0), None, None)
    if not v:
        raise RuntimeError("tensor_from_blob: " + lib.tensor_last_error().decode())
    return v


def to_torch(lib, r, shape):
    """Our output's values as a CPU torch tensor of `shape` (synchronises)."""
    dt = TORCH_OF[lib.tensor_get_dtype(r)]
    host = torch.empty(tuple(shape), dtype=dt)
    if lib.tensor_to_buffer(r, host.data_ptr(), host.numel() * host.element_size()) != 0:
        raise RuntimeError("tensor_to_buffer: " + lib.tensor_last_error().decode())
    return host


class Summer:
    """One case's call, with its arguments built once: sum() is the timed part."""

    def __init__(self, lib, x, dims, keepdim, dtype=-1):
        self.lib = lib
        self.dtype = dtype  # the output dtype (tensor_dtype value), -1: the default
        n = x.dim()
        sizes = (ctypes.c_int64 * max(n, 1))(*x.shape)
        strides = (ctypes.c_int64 * max(n, 1))(*x.stride())
        self.view = lib.tensor_from_blob(x.data_ptr(), n, sizes, strides, DTYPES[x.dtype],
                                         Device(1, x.device.index or 0), None, None)
        if not self.view:
            raise RuntimeError("tensor_from_blob: " + lib.tensor_last_error().decode())
        dims = list(dims or [])
        self.ndims = len(dims)
        self.dims = (ctypes.c_int * max(self.ndims, 1))(*dims)
        self.keepdim = bool(keepdim)

    def sum(self):
        """tensor_sum_dims; returns our output handle (release it with release())."""
        r = self.lib.tensor_sum_dims(self.view, self.dims if self.ndims else None, self.ndims, self.keepdim, self.dtype)
        if not r:
            raise RuntimeError("tensor_sum_dims: " + self.lib.tensor_last_error().decode())
        return r

    def release(self, r):
        self.lib.tensor_release(r)

    def to_torch(self, r, shape):
        """Our output's values as a CPU torch tensor of `shape` (synchronises)."""
        dt = TORCH_OF[self.lib.tensor_get_dtype(r)]
        host = torch.empty(tuple(shape), dtype=dt)
        st = self.lib.tensor_to_buffer(r, host.data_ptr(), host.numel() * host.element_size())
        if st != 0:
            raise RuntimeError("tensor_to_buffer: " + self.lib.tensor_last_error().decode())
        return host

    def close(self):
        if self.view:
            self.lib.tensor_release(self.view)
            self.view = None
