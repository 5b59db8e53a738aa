"""The Tensor class: a handle on a C tensor_t, its properties, views, copies, conversions and
Python operators, and the functions that create tensors.

Ownership: a Tensor holds one reference of its tensor_t, dropped (tensor_release) when the
Python object is collected. Views share the C storage, which lives as long as any view, any
DLPack export of it, or (for imported memory) until the producer's deleter has run."""
import array
import builtins
import numbers
import operator

from . import _types
from ._lib import check, check_ptr, ffi, lib, snprintf_string
from ._types import Size, as_device, as_dtype, device

INT64_MAX = (1 << 63) - 1
INT64_MIN = -(1 << 63)


def _wrap(ptr, readonly=False):
    """A Tensor owning the new reference `ptr` (checked: NULL raises the C error)."""
    check_ptr(ptr)
    t = Tensor.__new__(Tensor)
    t._ptr = ffi.gc(ptr, lib.tensor_release)
    t._readonly = readonly
    return t


def _numpy_module():
    try:
        import numpy
    except ImportError as e:
        raise ImportError("this needs numpy (pip install numpy)") from e
    return numpy


def _is_numpy_bool(value):
    cls = type(value)
    return cls.__module__ == "numpy" and cls.__name__ in ("bool_", "bool")


def scalar(value):
    """The C tensor_scalar of a Python number (bool, int, float, numpy scalars), or None for
    anything else. The scalar's Python type decides its promotion category, as in PyTorch."""
    if isinstance(value, builtins.bool) or _is_numpy_bool(value):
        return lib.tensor_scalar_bool(builtins.bool(value))
    if isinstance(value, numbers.Integral):
        return lib.tensor_scalar_int(builtins.int(value))
    if isinstance(value, numbers.Real):
        return lib.tensor_scalar_float(builtins.float(value))
    return None


def _size_args(size, fn):
    """zeros(2, 3) and zeros((2, 3)) alike: a list of ints."""
    if len(size) == 1 and not isinstance(size[0], numbers.Integral):
        size = size[0]
    try:
        return [operator.index(s) for s in size]
    except TypeError:
        raise TypeError("%s(): size must be ints or a sequence of ints, got %r" % (fn, size)) from None


def _int64_array(values):
    return ffi.new("int64_t[]", values) if values else ffi.NULL


def _as_tensor_arg(value, fn, name="input"):
    if not isinstance(value, Tensor):
        raise TypeError("%s(): argument '%s' must be a tinytensor.Tensor, not %s" % (fn, name, type(value).__name__))
    return value._ptr


def _clamp_int64(v):
    return min(max(v, INT64_MIN), INT64_MAX)


class Tensor:
    """A tensor of the tinytensor C library. Create one with tinytensor.tensor(),
    tinytensor.from_dlpack(), zeros(), arange(), ...; PyTorch's names and semantics throughout."""

    __slots__ = ("_ptr", "_readonly", "__weakref__")
    # Makes numpy defer to our reflected operators (np_array + t gives a Tensor, not an array).
    __array_priority__ = 1000

    def __init__(self, *args, **kwargs):
        raise TypeError("create tensors with tinytensor.tensor(), tinytensor.from_dlpack(), zeros(), ...")

    # ---- properties -------------------------------------------------------------------------
    @property
    def shape(self):
        return Size(ffi.unpack(lib.tensor_sizes(self._ptr), lib.tensor_ndim(self._ptr)))

    def size(self, dim=None):
        if dim is None:
            return self.shape
        n = lib.tensor_size(self._ptr, operator.index(dim))
        if n < 0:
            check(lib.tensor_last_status())
        return int(n)

    def stride(self, dim=None):
        strides = ffi.unpack(lib.tensor_strides(self._ptr), lib.tensor_ndim(self._ptr))
        if dim is None:
            return tuple(strides)
        n = lib.tensor_stride(self._ptr, operator.index(dim))
        if n < 0:
            check(lib.tensor_last_status())
        return int(n)

    @property
    def ndim(self):
        return int(lib.tensor_ndim(self._ptr))

    def dim(self):
        return self.ndim

    @property
    def dtype(self):
        return _types.from_code(lib.tensor_get_dtype(self._ptr))

    @property
    def device(self):
        return device._from_c(lib.tensor_get_device(self._ptr))

    @property
    def is_cuda(self):
        return lib.tensor_get_device(self._ptr).type == lib.TENSOR_DEVICE_CUDA

    def numel(self):
        return int(lib.tensor_numel(self._ptr))

    nelement = numel

    def element_size(self):
        return self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self.dtype.itemsize

    def is_contiguous(self):
        return builtins.bool(lib.tensor_is_contiguous(self._ptr))

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def data_ptr(self):
        """Address of the first element (host or device memory)."""
        return int(ffi.cast("uintptr_t", lib.tensor_data(self._ptr)))

    def storage_offset(self):
        return int(lib.tensor_storage_offset(self._ptr))

    @property
    def is_readonly(self):
        """True for a tensor imported with DLPack's read-only flag (a read-only numpy array,
        for instance): the binding refuses to write it, and exports it read-only."""
        return self._readonly

    def _check_writable(self):
        if self._readonly:
            raise ValueError("this tensor views read-only memory (imported with DLPack's read-only flag)")

    # ---- printing ---------------------------------------------------------------------------
    def __repr__(self):
        return snprintf_string(lib.tensor_format, self._ptr)

    __str__ = __repr__

    # ---- conversions ------------------------------------------------------------------------
    def item(self):
        """The value of a one-element tensor as a Python bool, int or float."""
        n = self.numel()
        if n != 1:
            raise ValueError("a Tensor with %d elements cannot be converted to Scalar" % n)
        dt = self.dtype
        buf = ffi.new("char[]", max(dt.itemsize, 1))
        check(lib.tensor_to_buffer(self._ptr, buf, dt.itemsize))
        if dt.code == lib.TENSOR_BOOL:
            return builtins.bool(lib.tensor_dtype_load_int64(dt.code, buf))
        if dt.is_floating_point:
            return builtins.float(lib.tensor_dtype_load_double(dt.code, buf))
        return builtins.int(lib.tensor_dtype_load_int64(dt.code, buf))

    def tolist(self):
        """Nested lists of Python numbers (no numpy needed)."""
        # Read as bool bytes, float64 or int64: each holds every value of its kind exactly.
        dt = self.dtype
        if dt.code == lib.TENSOR_BOOL:
            code, kind = lib.TENSOR_BOOL, "B"
        elif dt.is_floating_point:
            code, kind = lib.TENSOR_FLOAT64, "d"
        else:
            code, kind = lib.TENSOR_INT64, "q"
        host = _wrap(lib.tensor_to_dtype(self._ptr, code))
        values = array.array(kind, bytes(host.numel() * array.array(kind).itemsize))
        if values:
            check(lib.tensor_to_buffer(host._ptr, ffi.from_buffer(values), len(values) * values.itemsize))
        flat = [builtins.bool(v) for v in values] if kind == "B" else values.tolist()
        shape = self.shape
        if not shape:
            return flat[0]

        def nest(offset, d):
            if d == len(shape) - 1:
                return flat[offset:offset + shape[d]]
            step = 1
            for s in shape[d + 1:]:
                step *= s
            return [nest(offset + i * step, d + 1) for i in range(shape[d])]

        return nest(0, 0)

    def numpy(self, *, force=False):
        """A numpy array sharing this tensor's memory (CPU tensors; zero-copy through DLPack).
        force=True copies a CUDA tensor to the host first."""
        np = _numpy_module()
        t = self
        if t.is_cuda:
            if not force:
                raise TypeError("can't convert %s device type tensor to numpy. Use Tensor.cpu() to copy the "
                                "tensor to host memory first." % t.device)
            t = t.cpu()
        if t.dtype.name not in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"):
            raise TypeError("numpy has no %s dtype; convert first (for example t.float().numpy())" % t.dtype.name)
        return np.from_dlpack(t)

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        if dtype is not None and a.dtype != dtype:
            if copy is False:
                raise ValueError("converting to %s needs a copy, and copy=False was given" % (dtype,))
            return a.astype(dtype)
        return a.copy() if copy else a

    def __dlpack__(self, stream=None, *, max_version=None, dl_device=None, copy=None):
        from ._dlpack import export

        return export(self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        d = lib.tensor_get_device(self._ptr)
        if d.type == lib.TENSOR_DEVICE_CUDA:
            return (int(lib.kDLCUDA), int(d.index))
        return (int(lib.kDLCPU), 0)

    def __bool__(self):
        if self.numel() != 1:
            raise ValueError("Boolean value of Tensor with more than one value is ambiguous")
        return builtins.bool(self.item())

    def __float__(self):
        return builtins.float(self.item())

    def __int__(self):
        return builtins.int(self.item())

    def __index__(self):
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return builtins.int(self.item())

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    __hash__ = object.__hash__

    # ---- copies and conversions ---------------------------------------------------------------
    def contiguous(self):
        return _wrap(lib.tensor_contiguous(self._ptr), self._readonly)

    def clone(self):
        return _wrap(lib.tensor_clone(self._ptr))

    def to(self, *args, dtype=None, device=None, copy=False):
        """t.to(dtype), t.to(device), t.to(device, dtype), t.to(other) (other's dtype and
        device), as PyTorch; a tensor already so is returned as is unless copy=True."""
        for a in args:
            if isinstance(a, Tensor):
                dtype, device = a.dtype, a.device
            elif isinstance(a, _types.dtype):
                dtype = a
            else:
                device = a
        t = self
        if device is not None and as_device(device) != t.device:
            t = _wrap(lib.tensor_to_device(t._ptr, as_device(device)._c()))
        if dtype is not None and as_dtype(dtype) != t.dtype:
            t = _wrap(lib.tensor_to_dtype(t._ptr, as_dtype(dtype).code))
        if copy and t is self:
            t = self.clone()
        return t

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to(_types.device("cuda", device if device is not None else 0))

    def type(self, dtype=None):
        if dtype is None:
            return "tinytensor." + self.dtype.name
        return self.to(dtype)

    def float(self):
        return self.to(_types.as_dtype("float32"))

    def double(self):
        return self.to(_types.as_dtype("float64"))

    def half(self):
        return self.to(_types.as_dtype("float16"))

    def bfloat16(self):
        return self.to(_types.as_dtype("bfloat16"))

    def int(self):
        return self.to(_types.as_dtype("int32"))

    def long(self):
        return self.to(_types.as_dtype("int64"))

    def short(self):
        return self.to(_types.as_dtype("int16"))

    def byte(self):
        return self.to(_types.as_dtype("uint8"))

    def bool(self):
        return self.to(_types.as_dtype("bool"))

    def copy_(self, src):
        """Copies src (broadcast, converted to this dtype) into this tensor."""
        self._check_writable()
        if not isinstance(src, Tensor):
            s = scalar(src)
            if s is None:
                raise TypeError("copy_(): src must be a Tensor or a number")
            check(lib.tensor_fill_(self._ptr, s))
        else:
            check(lib.tensor_copy_(self._ptr, src._ptr))
        return self

    def fill_(self, value):
        self._check_writable()
        s = scalar(value)
        if s is None:
            raise TypeError("fill_(): value must be a number")
        check(lib.tensor_fill_(self._ptr, s))
        return self

    def zero_(self):
        return self.fill_(0)

    # ---- views ------------------------------------------------------------------------------
    def _view(self, ptr):
        return _wrap(ptr, self._readonly)

    def transpose(self, dim0, dim1):
        return self._view(lib.tensor_transpose(self._ptr, operator.index(dim0), operator.index(dim1)))

    def permute(self, *dims):
        dims = _size_args(dims, "permute")
        if len(dims) != self.ndim:
            raise ValueError("permute(): the number of dims (%d) does not match the tensor's (%d)"
                             % (len(dims), self.ndim))
        return self._view(lib.tensor_permute(self._ptr, ffi.new("int[]", dims) if dims else ffi.NULL))

    @property
    def T(self):
        """The dims reversed."""
        return self.permute(*range(self.ndim - 1, -1, -1))

    def reshape(self, *shape):
        shape = _size_args(shape, "reshape")
        return self._view(lib.tensor_reshape(self._ptr, len(shape), _int64_array(shape)))

    def view(self, *shape):
        shape = _size_args(shape, "view")
        return self._view(lib.tensor_view(self._ptr, len(shape), _int64_array(shape)))

    def flatten(self, start_dim=0, end_dim=-1):
        return self._view(lib.tensor_flatten(self._ptr, operator.index(start_dim), operator.index(end_dim)))

    def squeeze(self, dim=None):
        if dim is None:
            return self._view(lib.tensor_squeeze(self._ptr))
        return self._view(lib.tensor_squeeze_dim(self._ptr, operator.index(dim)))

    def unsqueeze(self, dim):
        return self._view(lib.tensor_unsqueeze(self._ptr, operator.index(dim)))

    def expand(self, *sizes):
        sizes = _size_args(sizes, "expand")
        return self._view(lib.tensor_expand(self._ptr, len(sizes), _int64_array(sizes)))

    def narrow(self, dim, start, length):
        return self._view(lib.tensor_narrow(self._ptr, operator.index(dim), operator.index(start),
                                            operator.index(length)))

    def select(self, dim, index):
        return self._view(lib.tensor_select(self._ptr, operator.index(dim), operator.index(index)))

    def __getitem__(self, index):
        """Basic indexing: ints, slices with a positive step, None and Ellipsis (views)."""
        items = index if isinstance(index, tuple) else (index,)
        consumed = builtins.sum(1 for i in items if i is not None and i is not Ellipsis)
        if consumed > self.ndim:
            raise IndexError("too many indices for tensor of dimension %d" % self.ndim)
        if builtins.sum(1 for i in items if i is Ellipsis) > 1:
            raise IndexError("an index can only have a single ellipsis ('...')")
        t, d = self, 0
        for item in items:
            if item is None:
                t = t.unsqueeze(d)
                d += 1
            elif item is Ellipsis:
                d += self.ndim - consumed
            elif isinstance(item, slice):
                step = 1 if item.step is None else operator.index(item.step)
                if step <= 0:
                    raise ValueError("step must be greater than zero")
                start = 0 if item.start is None else _clamp_int64(operator.index(item.start))
                stop = INT64_MAX if item.stop is None else _clamp_int64(operator.index(item.stop))
                t = t._view(lib.tensor_slice(t._ptr, d, start, stop, step))
                d += 1
            elif isinstance(item, builtins.bool) or not hasattr(item, "__index__"):
                raise TypeError("only integers, slices, None and ... are valid indices, not %s"
                                % type(item).__name__)
            else:
                t = t._view(lib.tensor_select(t._ptr, d, operator.index(item)))
        return t if t is not self else self._view(lib.tensor_retain(self._ptr))

    def __setitem__(self, index, value):
        self[index].copy_(value)


def tensor(data, *, dtype=None, device=None):
    """A new tensor holding a copy of `data`: nested sequences of numbers (PyTorch's dtype
    inference: bool, int64, or float32 when any element is a float), a tinytensor.Tensor, or
    anything with __dlpack__ (numpy arrays, torch tensors; their dtype is kept)."""
    if isinstance(data, Tensor):
        t = data.clone()
    elif hasattr(data, "__dlpack__") and not isinstance(data, (list, tuple)):
        from ._dlpack import from_dlpack

        try:
            src = from_dlpack(data)
        except ValueError:
            # Negative or unaligned strides (a reversed numpy view): copy through numpy.
            src = from_dlpack(_numpy_module().ascontiguousarray(data))
        t = src.clone()
    else:
        t = _from_python(data, dtype)
    return t.to(dtype=dtype, device=device)


def _from_python(data, dtype):
    shape = []
    probe = data
    while isinstance(probe, (list, tuple)):
        shape.append(len(probe))
        if len(probe) == 0:
            break
        probe = probe[0]
    flat = []

    def walk(x, d):
        if d == len(shape):
            if isinstance(x, (list, tuple)):
                raise ValueError("tensor(): the nested sequences are not rectangular")
            if isinstance(x, Tensor):
                x = x.item()
            flat.append(x)
            return
        if not isinstance(x, (list, tuple)) or len(x) != shape[d]:
            raise ValueError("tensor(): expected a sequence of length %d at dim %d, got %r" % (shape[d], d, x))
        for v in x:
            walk(v, d + 1)

    walk(data, 0)
    kinds = set()
    for v in flat:
        if isinstance(v, builtins.bool) or _is_numpy_bool(v):
            kinds.add("bool")
        elif isinstance(v, numbers.Integral):
            kinds.add("int")
        elif isinstance(v, numbers.Real):
            kinds.add("float")
        else:
            raise TypeError("tensor(): could not convert %r (%s) to a number" % (v, type(v).__name__))
    # Built on the host in the widest type of its kind, then converted with the library's cast.
    if "float" in kinds or not flat:
        buf, code, final = array.array("d", [builtins.float(v) for v in flat]), lib.TENSOR_FLOAT64, lib.TENSOR_FLOAT32
    elif "int" in kinds:
        buf, code, final = array.array("q", [builtins.int(v) for v in flat]), lib.TENSOR_INT64, lib.TENSOR_INT64
    else:
        buf, code, final = array.array("B", [builtins.int(v) for v in flat]), lib.TENSOR_BOOL, lib.TENSOR_BOOL
    if dtype is not None:
        final = as_dtype(dtype).code
    src = ffi.from_buffer(buf) if flat else ffi.NULL
    t = _wrap(lib.tensor_from_buffer(src, len(shape), _int64_array(shape), code, lib.tensor_cpu()))
    return _wrap(lib.tensor_to_dtype(t._ptr, final)) if final != code else t


def _default_dtype(dtype_arg, fallback="float32"):
    return as_dtype(dtype_arg if dtype_arg is not None else fallback)


def zeros(*size, dtype=None, device=None):
    s = _size_args(size, "zeros")
    return _wrap(lib.tensor_zeros(len(s), _int64_array(s), _default_dtype(dtype).code, as_device(device)._c()))


def ones(*size, dtype=None, device=None):
    s = _size_args(size, "ones")
    return _wrap(lib.tensor_ones(len(s), _int64_array(s), _default_dtype(dtype).code, as_device(device)._c()))


def empty(*size, dtype=None, device=None):
    s = _size_args(size, "empty")
    return _wrap(lib.tensor_empty(len(s), _int64_array(s), _default_dtype(dtype).code, as_device(device)._c()))


def full(size, fill_value, *, dtype=None, device=None):
    """Every element fill_value; the dtype follows the value (bool, int64, float32) unless given."""
    s = _size_args((size,), "full")
    if dtype is None:
        if isinstance(fill_value, builtins.bool) or _is_numpy_bool(fill_value):
            dtype = "bool"
        elif isinstance(fill_value, numbers.Integral):
            dtype = "int64"
        else:
            dtype = "float32"
    d = as_dtype(dtype)
    if d.is_floating_point or d.code == lib.TENSOR_BOOL:
        return _wrap(lib.tensor_full(len(s), _int64_array(s), builtins.float(fill_value), d.code,
                                     as_device(device)._c()))
    # Integers exactly, beyond 2**53 too.
    t = empty(*s, dtype=d, device=device)
    return t.fill_(fill_value)


def zeros_like(t, *, dtype=None, device=None):
    return zeros(*t.shape, dtype=dtype or t.dtype, device=device or t.device)


def ones_like(t, *, dtype=None, device=None):
    return ones(*t.shape, dtype=dtype or t.dtype, device=device or t.device)


def full_like(t, fill_value, *, dtype=None, device=None):
    return full(t.shape, fill_value, dtype=dtype or t.dtype, device=device or t.device)


def arange(start, end=None, step=1, *, dtype=None, device=None):
    """[start, end) by step; int64 when every argument is an int, else float32 (PyTorch)."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        ints = all(isinstance(v, numbers.Integral) for v in (start, end, step))
        dtype = "int64" if ints else "float32"
    return _wrap(lib.tensor_arange(builtins.float(start), builtins.float(end), builtins.float(step),
                                   as_dtype(dtype).code, as_device(device)._c()))


def linspace(start, end, steps, *, dtype=None, device=None):
    return _wrap(lib.tensor_linspace(builtins.float(start), builtins.float(end), operator.index(steps),
                                     _default_dtype(dtype).code, as_device(device)._c()))


def rand(*size, seed=0, dtype=None, device=None):
    """Uniform [0, 1) values from the library's counter-based generator: element i depends on
    (seed, i) only, so a seed gives the same values on every device."""
    s = _size_args(size, "rand")
    return _wrap(lib.tensor_rand(len(s), _int64_array(s), seed, _default_dtype(dtype).code, as_device(device)._c()))


def randn(*size, seed=0, dtype=None, device=None):
    """Standard normal values; seeds as rand()."""
    s = _size_args(size, "randn")
    return _wrap(lib.tensor_randn(len(s), _int64_array(s), seed, _default_dtype(dtype).code, as_device(device)._c()))


def from_numpy(array_):
    """A tensor sharing the memory of a numpy array (zero-copy, through DLPack)."""
    np = _numpy_module()
    if not isinstance(array_, np.ndarray):
        raise TypeError("from_numpy(): expected a numpy.ndarray, got %s" % type(array_).__name__)
    from ._dlpack import from_dlpack

    return from_dlpack(array_)


def as_tensor(data, *, dtype=None, device=None):
    """Shares memory with `data` when it has __dlpack__ and no conversion is asked for;
    otherwise a copy (tensor())."""
    if isinstance(data, Tensor):
        return data.to(dtype=dtype, device=device)
    if hasattr(data, "__dlpack__"):
        from ._dlpack import from_dlpack

        try:
            return from_dlpack(data).to(dtype=dtype, device=device)
        except ValueError:
            pass
    return tensor(data, dtype=dtype, device=device)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def load_npy(path, *, device=None):
    """Reads a .npy file (numpy's format, versions 1.0 to 3.0) into a new tensor."""
    return _wrap(lib.tensor_load_npy(_fspath(path), as_device(device)._c()))


def save_npy(t, path):
    """Writes t to a .npy file (format 1.0). bfloat16 and float8 have no numpy dtype: convert
    them to float32 first (exact)."""
    check(lib.tensor_save_npy(_as_tensor_arg(t, "save_npy", "t"), _fspath(path)))


def _fspath(path):
    import os

    p = os.fspath(path)
    return p.encode() if isinstance(p, str) else p


def set_num_threads(n):
    """Caps the CPU threads of the library's kernels."""
    check(lib.tensor_set_num_threads(operator.index(n)))


def get_num_threads():
    return int(lib.tensor_get_num_threads())
