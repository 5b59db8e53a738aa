"""Elementwise ops and the Python operators, with PyTorch's broadcasting and type promotion
(the C library's): a Python number is the weakest operand (int32 tensor + 5 is int32,
int32 tensor + 5.0 is float32), 0-d tensors are weak within their category.

The plain unary and binary ops are made from the C library's op table (tensor_ew_op_name gives
PyTorch's name of each code); the ones with extra arguments (add/sub with alpha, div with a
rounding mode, gelu's approximation, where, clamp) are written out."""
import builtins

from ._lib import check, ffi, lib
from ._tensor import Tensor, _as_tensor_arg, _wrap, scalar


def _scalar_or_raise(value, fn):
    s = scalar(value)
    if s is None:
        raise TypeError("%s(): expected a tinytensor.Tensor or a number, got %s" % (fn, type(value).__name__))
    return s


def _binary(op, a, b, fn):
    """op(a, b) where one side may be a Python number."""
    if isinstance(a, Tensor):
        if isinstance(b, Tensor):
            return _wrap(lib.tensor_binary(op, a._ptr, b._ptr))
        return _wrap(lib.tensor_binary_scalar(op, a._ptr, _scalar_or_raise(b, fn)))
    if isinstance(b, Tensor):
        return _wrap(lib.tensor_binary_scalar_lhs(op, _scalar_or_raise(a, fn), b._ptr))
    raise TypeError("%s(): at least one argument must be a tinytensor.Tensor" % fn)


def _op_name(op):
    return ffi.string(lib.tensor_ew_op_name(op)).decode()


def _make_unary(op, name):
    def fn(input):
        return _wrap(lib.tensor_unary(op, _as_tensor_arg(input, name)))

    def fn_(input):
        input._check_writable()
        check(lib.tensor_unary_(op, _as_tensor_arg(input, name + "_")))
        return input

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "torch.%s, elementwise." % name
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn_.__doc__ = "In-place %s (the result must be castable to the tensor's dtype)." % name
    return fn, fn_


def _make_binary(op, name):
    def fn(input, other):
        return _binary(op, input, other, name)

    def fn_(input, other):
        return _inplace(op, input, other)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "torch.%s, elementwise, broadcast, either side a tensor or a number." % name
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn_.__doc__ = "In-place %s (the result must be castable to the tensor's dtype)." % name
    return fn, fn_


def _inplace(op, self, other):
    if not isinstance(self, Tensor):
        raise TypeError("in-place ops need a tinytensor.Tensor")
    self._check_writable()
    if isinstance(other, Tensor):
        check(lib.tensor_binary_(op, self._ptr, other._ptr))
    else:
        check(lib.tensor_binary_scalar_(op, self._ptr, _scalar_or_raise(other, _op_name(op) + "_")))
    return self


# The ops below have their own signatures (alpha, rounding_mode, approximate).
_SPECIAL = {"gelu", "add", "sub", "div", "div_trunc"}
UNARY = {}
BINARY = {}
_INPLACE = {}
for _op in range(lib.TENSOR_EW_NUM_OPS):
    _name = _op_name(_op)
    if _name in _SPECIAL:
        continue
    if _op < lib.TENSOR_EW_ADD:
        UNARY[_name], _INPLACE[_name + "_"] = _make_unary(_op, _name)
    elif _op < lib.TENSOR_EW_WHERE:
        BINARY[_name], _INPLACE[_name + "_"] = _make_binary(_op, _name)
globals().update(UNARY)
globals().update(BINARY)
del _op, _name


def _alpha_op(op, name, input, other, alpha):
    if isinstance(alpha, builtins.bool) or alpha != 1:
        a = _scalar_or_raise(alpha, name)
        p = _as_tensor_arg(input, name)
        fn_t, fn_s = (lib.tensor_add, lib.tensor_add_scalar) if op == lib.TENSOR_EW_ADD else (lib.tensor_sub,
                                                                                              lib.tensor_sub_scalar)
        if isinstance(other, Tensor):
            return _wrap(fn_t(p, other._ptr, a))
        return _wrap(fn_s(p, _scalar_or_raise(other, name), a))
    return _binary(op, input, other, name)


def add(input, other, *, alpha=1):
    """input + alpha * other."""
    return _alpha_op(lib.TENSOR_EW_ADD, "add", input, other, alpha)


def sub(input, other, *, alpha=1):
    """input - alpha * other."""
    return _alpha_op(lib.TENSOR_EW_SUB, "sub", input, other, alpha)


subtract = sub

_ROUNDING = {None: lib.TENSOR_EW_DIV, "floor": lib.TENSOR_EW_DIV_FLOOR, "trunc": lib.TENSOR_EW_DIV_TRUNC}


def div(input, other, *, rounding_mode=None):
    """True division (integers give float32), or rounded: rounding_mode "floor" or "trunc"."""
    if rounding_mode not in _ROUNDING:
        raise ValueError("div(): rounding_mode must be None, 'floor' or 'trunc', not %r" % (rounding_mode,))
    return _binary(_ROUNDING[rounding_mode], input, other, "div")


def true_divide(input, other):
    return div(input, other)


divide = div
multiply = BINARY["mul"]


def gelu(input, approximate="none"):
    """The exact (erf) form, or approximate='tanh'."""
    ops = {"none": lib.TENSOR_EW_GELU, "tanh": lib.TENSOR_EW_GELU_TANH}
    if approximate not in ops:
        raise ValueError("gelu(): approximate must be 'none' or 'tanh', not %r" % (approximate,))
    return _wrap(lib.tensor_unary(ops[approximate], _as_tensor_arg(input, "gelu")))


def _result_dtype(values):
    """torch.result_type over tensors and Python numbers (tensor_result_type)."""
    ops = ffi.new("tensor_result_type_operand[]", len(values))
    for i, v in enumerate(values):
        if isinstance(v, Tensor):
            ops[i].dtype = lib.tensor_get_dtype(v._ptr)
            ops[i].kind = lib.TENSOR_OPERAND_DIMENSIONED if v.ndim > 0 else lib.TENSOR_OPERAND_ZERO_DIM
        else:
            s = scalar(v)
            if s is None:
                raise TypeError("expected a tinytensor.Tensor or a number, got %s" % type(v).__name__)
            ops[i].dtype = {lib.TENSOR_SCALAR_BOOL: lib.TENSOR_BOOL, lib.TENSOR_SCALAR_INT: lib.TENSOR_INT64,
                            lib.TENSOR_SCALAR_FLOAT: lib.TENSOR_FLOAT64}[s.type]
            ops[i].kind = lib.TENSOR_OPERAND_SCALAR
    out = ffi.new("tensor_dtype *")
    check(lib.tensor_result_type(ops, len(values), out))
    return out[0]


def _as_operands(values, near):
    """Tensors for ops whose C form takes tensors only: each Python number becomes a 0-d
    tensor of the dtype PyTorch's promotion gives all the operands together (so the number
    stays the weakest operand), on the device of `near`."""
    if builtins.all(isinstance(v, Tensor) for v in values):
        return values
    code = _result_dtype(values)
    out = []
    for v in values:
        if isinstance(v, Tensor):
            out.append(v)
        else:
            t = _wrap(lib.tensor_empty(0, ffi.NULL, code, lib.tensor_get_device(near._ptr)))
            check(lib.tensor_fill_(t._ptr, scalar(v)))
            out.append(t)
    return out


def where(condition, input, other):
    """condition ? input : other; input and other may be numbers."""
    cond = _as_tensor_arg(condition, "where", "condition")
    a, b = _as_operands([input, other], condition)
    return _wrap(lib.tensor_where(cond, a._ptr, b._ptr))


def clamp(input, min=None, max=None):
    """min(max(input, min), max); either bound may be None (not both), a number or a tensor."""
    p = _as_tensor_arg(input, "clamp")
    bounds = [b for b in (min, max) if b is not None]
    if builtins.all(not isinstance(b, Tensor) for b in bounds):
        lo = ffi.new("tensor_scalar *", _scalar_or_raise(min, "clamp")) if min is not None else ffi.NULL
        hi = ffi.new("tensor_scalar *", _scalar_or_raise(max, "clamp")) if max is not None else ffi.NULL
        return _wrap(lib.tensor_clamp_scalar(p, lo, hi))
    values = _as_operands([input] + bounds, input)[1:]
    lo = values.pop(0)._ptr if min is not None else ffi.NULL
    hi = values.pop(0)._ptr if max is not None else ffi.NULL
    return _wrap(lib.tensor_clamp(p, lo, hi))


clip = clamp


# ---- Python operators ------------------------------------------------------------------------
def _operator(op):
    def forward(self, other):
        if isinstance(other, Tensor):
            return _wrap(lib.tensor_binary(op, self._ptr, other._ptr))
        s = scalar(other)
        if s is None:
            return NotImplemented
        return _wrap(lib.tensor_binary_scalar(op, self._ptr, s))

    def reflected(self, other):
        s = scalar(other)
        if s is None:
            return NotImplemented
        return _wrap(lib.tensor_binary_scalar_lhs(op, s, self._ptr))

    def inplace(self, other):
        if not isinstance(other, Tensor) and scalar(other) is None:
            return NotImplemented
        return _inplace(op, self, other)

    return forward, reflected, inplace


_OPERATORS = {
    "add": lib.TENSOR_EW_ADD, "sub": lib.TENSOR_EW_SUB, "mul": lib.TENSOR_EW_MUL, "truediv": lib.TENSOR_EW_DIV,
    "floordiv": lib.TENSOR_EW_DIV_FLOOR, "mod": lib.TENSOR_EW_REMAINDER, "pow": lib.TENSOR_EW_POW,
    "and": lib.TENSOR_EW_BITWISE_AND, "or": lib.TENSOR_EW_BITWISE_OR, "xor": lib.TENSOR_EW_BITWISE_XOR,
}
_COMPARISONS = {"eq": lib.TENSOR_EW_EQ, "ne": lib.TENSOR_EW_NE, "lt": lib.TENSOR_EW_LT, "le": lib.TENSOR_EW_LE,
                "gt": lib.TENSOR_EW_GT, "ge": lib.TENSOR_EW_GE}


def attach(cls):
    """Puts the operators and the ops as methods on Tensor (t + 1, t.exp(), t.add_(1))."""
    for name, op in _OPERATORS.items():
        forward, reflected, inplace = _operator(op)
        setattr(cls, "__%s__" % name, forward)
        setattr(cls, "__r%s__" % name, reflected)
        setattr(cls, "__i%s__" % name, inplace)
    for name, op in _COMPARISONS.items():
        # Python reflects comparisons itself (2 < t calls t.__gt__(2)).
        setattr(cls, "__%s__" % name, _operator(op)[0])
    cls.__neg__ = lambda self: _wrap(lib.tensor_unary(lib.TENSOR_EW_NEG, self._ptr))
    cls.__abs__ = lambda self: _wrap(lib.tensor_unary(lib.TENSOR_EW_ABS, self._ptr))
    cls.__invert__ = lambda self: _wrap(lib.tensor_unary(lib.TENSOR_EW_BITWISE_NOT, self._ptr))
    cls.__pos__ = lambda self: self
    for table in (UNARY, BINARY, _INPLACE):
        for name, fn in table.items():
            setattr(cls, name, fn)
    for fn in (add, sub, div, true_divide, gelu, clamp):
        setattr(cls, fn.__name__, fn)
    cls.subtract, cls.divide, cls.multiply, cls.clip = sub, div, BINARY["mul"], clamp
    cls.add_ = lambda self, other, *, alpha=1: _inplace_alpha(lib.TENSOR_EW_ADD, self, other, alpha)
    cls.sub_ = lambda self, other, *, alpha=1: _inplace_alpha(lib.TENSOR_EW_SUB, self, other, alpha)
    cls.div_ = lambda self, other: _inplace(lib.TENSOR_EW_DIV, self, other)


def _inplace_alpha(op, self, other, alpha):
    if not isinstance(alpha, builtins.bool) and alpha == 1:
        return _inplace(op, self, other)
    self._check_writable()
    a = _scalar_or_raise(alpha, "add_")
    if op == lib.TENSOR_EW_ADD:
        fn_t, fn_s = lib.tensor_add_, lib.tensor_add_scalar_
    else:
        fn_t, fn_s = lib.tensor_sub_, lib.tensor_sub_scalar_
    if isinstance(other, Tensor):
        check(fn_t(self._ptr, other._ptr, a))
    else:
        check(fn_s(self._ptr, _scalar_or_raise(other, "add_"), a))
    return self
