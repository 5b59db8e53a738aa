"""dtype, device and Size: the small value types of the binding."""
import builtins
import numbers

from ._lib import ffi, lib


class dtype:
    """An element type. The instances are the module's attributes (tinytensor.float32, ...);
    their names are the C library's (tensor_dtype_name), which are PyTorch's."""

    __slots__ = ("_code", "_name")

    def __init__(self, code, name):
        self._code = code
        self._name = name

    @property
    def code(self):
        """The C enum value (tensor_dtype)."""
        return self._code

    @property
    def name(self):
        return self._name

    @property
    def itemsize(self):
        return int(lib.tensor_dtype_size(self._code))

    @property
    def is_floating_point(self):
        return builtins.bool(lib.tensor_dtype_is_floating(self._code))

    @property
    def is_signed(self):
        return builtins.bool(lib.tensor_dtype_is_signed(self._code))

    def __repr__(self):
        return "tinytensor." + self._name

    def __reduce__(self):
        return (_dtype_by_name, (self._name,))


# One instance per C dtype, from the library's own table.
DTYPES = tuple(dtype(code, ffi.string(lib.tensor_dtype_name(code)).decode()) for code in range(lib.TENSOR_NUM_DTYPES))
_BY_CODE = {d.code: d for d in DTYPES}
_BY_NAME = {d.name: d for d in DTYPES}
# PyTorch's other spellings.
_ALIASES = {"half": "float16", "float": "float32", "double": "float64", "short": "int16", "int": "int32",
            "long": "int64"}


def _dtype_by_name(name):
    return _BY_NAME[name]


def from_code(code):
    return _BY_CODE[code]


def as_dtype(value):
    """A dtype from a dtype, its name ("float32", "half"), or a numpy dtype or scalar type."""
    if isinstance(value, dtype):
        return value
    if isinstance(value, str):
        name = _ALIASES.get(value, value)
    else:
        # numpy dtypes and scalar types (np.float32, np.dtype("int64")) carry their name.
        name = getattr(value, "name", None) or getattr(value, "__name__", None)
        if name == "bool_":
            name = "bool"
    if name in _BY_NAME:
        return _BY_NAME[name]
    raise TypeError("not a tinytensor dtype: %r" % (value,))


def dtype_code(value):
    """The C code of a dtype argument; TENSOR_DTYPE_DEFAULT for None."""
    return lib.TENSOR_DTYPE_DEFAULT if value is None else as_dtype(value).code


class device:
    """A device: device("cpu"), device("cuda"), device("cuda:1"), device("cuda", 1)."""

    __slots__ = ("_type", "_index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): index given twice")
            self._type, self._index = type._type, type._index
            return
        if isinstance(type, numbers.Integral) and not isinstance(type, builtins.bool):
            type, index = "cuda", builtins.int(type)
        if not isinstance(type, str):
            raise TypeError("device(): expected a string, an int or a device, got %r" % (type,))
        kind, _, idx = type.partition(":")
        if idx:
            if index is not None:
                raise ValueError("device(): index given twice in %r" % type)
            if not idx.isdigit():
                raise ValueError("device(): invalid device string %r" % type)
            index = builtins.int(idx)
        if kind not in ("cpu", "cuda"):
            raise ValueError("device(): expected 'cpu' or 'cuda', got %r" % type)
        if kind == "cpu" and index not in (None, 0):
            raise ValueError("device(): the CPU has only index 0")
        self._type = kind
        self._index = index if kind == "cuda" else None

    @property
    def type(self):
        return self._type

    @property
    def index(self):
        return self._index

    def _c(self):
        """The C tensor_device; a CUDA device without an index is the first one."""
        if self._type == "cpu":
            return lib.tensor_cpu()
        return lib.tensor_cuda(self._index or 0)

    @staticmethod
    def _from_c(d):
        if d.type == lib.TENSOR_DEVICE_CPU:
            return device("cpu")
        return device("cuda", builtins.int(d.index))

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = device(other)
            except (TypeError, ValueError):
                return False
        if not isinstance(other, device):
            return NotImplemented
        return self._type == other._type and self._index == other._index

    def __hash__(self):
        return hash((self._type, self._index))

    def __str__(self):
        return self._type if self._index is None else "%s:%d" % (self._type, self._index)

    def __repr__(self):
        if self._index is None:
            return "device(type=%r)" % self._type
        return "device(type=%r, index=%d)" % (self._type, self._index)


def as_device(value):
    """A device from None (the CPU), a device, a string or a CUDA index."""
    if value is None:
        return device("cpu")
    return value if isinstance(value, device) else device(value)


class Size(tuple):
    """A tensor's shape: a tuple of ints."""

    __slots__ = ()

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __repr__(self):
        return "tinytensor.Size([%s])" % ", ".join(str(s) for s in self)
