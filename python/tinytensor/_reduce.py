"""Reductions and scans with PyTorch's signatures and keyword names (torch.sum(input, dim=None,
keepdim=False, *, dtype=None), ...). Each function is also a Tensor method (t.sum(...)).

dim: None for every dim, an int, or a sequence of ints (negative dims wrap). As in PyTorch,
dim=[] also reduces every dim for sum, mean and the other dims-list reductions. Argument
checks, dtypes and semantics are the C library's; errors carry its messages."""
import builtins
import collections
import numbers
import operator

from ._lib import check, ffi, lib, snprintf_string
from ._tensor import Tensor, _as_tensor_arg, _wrap
from ._types import as_dtype, dtype_code

# Results of the two-output ops, as torch.return_types.
return_types = type("return_types", (), {
    "max": collections.namedtuple("max", ["values", "indices"]),
    "min": collections.namedtuple("min", ["values", "indices"]),
    "aminmax": collections.namedtuple("aminmax", ["min", "max"]),
    "cummax": collections.namedtuple("cummax", ["values", "indices"]),
    "cummin": collections.namedtuple("cummin", ["values", "indices"]),
})


def _dims(dim):
    """(int *, count) for a dims-list argument; (NULL, 0) reduces every dim."""
    if dim is None:
        return ffi.NULL, 0
    if isinstance(dim, (tuple, list)):
        ds = [operator.index(d) for d in dim]
    else:
        ds = [operator.index(dim)]
    return (ffi.new("int[]", ds) if ds else ffi.NULL), len(ds)


def _one_dim(dim):
    """int * for an optional single dim (NULL: every dim)."""
    if dim is None:
        return ffi.NULL
    if isinstance(dim, (tuple, list)):
        raise TypeError("this reduction takes one dim (an int) or None, not %r" % (dim,))
    return ffi.new("int *", operator.index(dim))


def _kd(keepdim):
    return builtins.bool(keepdim)


def _pair(fn, *args):
    a = ffi.new("tensor_t **")
    b = ffi.new("tensor_t **")
    check(fn(*args, a, b))
    return _wrap(a[0]), _wrap(b[0])


# ---- sum family ---------------------------------------------------------------------------------
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Integers and bool give int64, floats keep their dtype (dtype= casts first)."""
    d, n = _dims(dim)
    return _wrap(lib.tensor_sum_dims(_as_tensor_arg(input, "sum"), d, n, _kd(keepdim), dtype_code(dtype)))


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    d, n = _dims(dim)
    return _wrap(lib.tensor_nansum(_as_tensor_arg(input, "nansum"), d, n, _kd(keepdim), dtype_code(dtype)))


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Floating inputs (or a floating dtype=) only, as PyTorch."""
    d, n = _dims(dim)
    return _wrap(lib.tensor_mean(_as_tensor_arg(input, "mean"), d, n, _kd(keepdim), dtype_code(dtype)))


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    d, n = _dims(dim)
    return _wrap(lib.tensor_nanmean(_as_tensor_arg(input, "nanmean"), d, n, _kd(keepdim), dtype_code(dtype)))


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """One dim or None (every dim), as torch.prod."""
    return _wrap(lib.tensor_prod(_as_tensor_arg(input, "prod"), _one_dim(dim), _kd(keepdim), dtype_code(dtype)))


# ---- extremes ----------------------------------------------------------------------------------
def amax(input, dim=(), keepdim=False):
    d, n = _dims(dim)
    return _wrap(lib.tensor_amax(_as_tensor_arg(input, "amax"), d, n, _kd(keepdim)))


def amin(input, dim=(), keepdim=False):
    d, n = _dims(dim)
    return _wrap(lib.tensor_amin(_as_tensor_arg(input, "amin"), d, n, _kd(keepdim)))


def aminmax(input, *, dim=None, keepdim=False):
    """(min, max) in one pass, both in the input's dtype."""
    d, n = _dims(dim)
    mn, mx = _pair(lib.tensor_aminmax, _as_tensor_arg(input, "aminmax"), d, n, _kd(keepdim))
    return return_types.aminmax(mn, mx)


def argmax(input, dim=None, keepdim=False):
    return _wrap(lib.tensor_argmax(_as_tensor_arg(input, "argmax"), _one_dim(dim), _kd(keepdim)))


def argmin(input, dim=None, keepdim=False):
    return _wrap(lib.tensor_argmin(_as_tensor_arg(input, "argmin"), _one_dim(dim), _kd(keepdim)))


def _max_min(name, input, dim, keepdim, all_fn, dim_fn, binary_op, result):
    p = _as_tensor_arg(input, name)
    if isinstance(dim, Tensor):
        # torch.max(input, other): the elementwise maximum.
        return _wrap(lib.tensor_binary(binary_op, p, dim._ptr))
    if dim is None:
        return _wrap(all_fn(p, ffi.NULL, 0, False))
    values, indices = _pair(dim_fn, p, operator.index(dim), _kd(keepdim))
    return result(values, indices)


def max(input, dim=None, keepdim=False):
    """max(input): the largest value (0-d); max(input, dim, keepdim=False): (values, indices),
    the first index on ties; max(input, other): the elementwise maximum."""
    return _max_min("max", input, dim, keepdim, lib.tensor_amax, lib.tensor_max_dim, lib.TENSOR_EW_MAXIMUM,
                    return_types.max)


def min(input, dim=None, keepdim=False):
    """As max()."""
    return _max_min("min", input, dim, keepdim, lib.tensor_amin, lib.tensor_min_dim, lib.TENSOR_EW_MINIMUM,
                    return_types.min)


# ---- moments -----------------------------------------------------------------------------------
def _correction(name, dim, unbiased, correction):
    """PyTorch's two spellings: correction= (a number, default 1) or the older unbiased=
    (True: 1, False: 0), which may also come as the second positional argument."""
    if isinstance(dim, builtins.bool):
        if unbiased is not None:
            raise TypeError("%s(): unbiased given twice" % name)
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError("%s(): give correction or unbiased, not both" % name)
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    if not isinstance(correction, numbers.Real):
        raise TypeError("%s(): correction must be a number, not %r" % (name, correction))
    return dim, builtins.float(correction)


# The var/std family's C calls, in one place: the argument order of tensor_var, tensor_std,
# tensor_var_mean and tensor_std_mean is written here only.
def _moment(fn, t, dim, correction, keepdim, *outputs):
    d, n = _dims(dim)
    return fn(t, correction, d, n, keepdim, *outputs)


def _moment1(name, fn, input, dim, unbiased, keepdim, correction):
    dim, corr = _correction(name, dim, unbiased, correction)
    return _wrap(_moment(fn, _as_tensor_arg(input, name), dim, corr, _kd(keepdim)))


def _moment2(name, fn, input, dim, unbiased, keepdim, correction):
    dim, corr = _correction(name, dim, unbiased, correction)
    a = ffi.new("tensor_t **")
    b = ffi.new("tensor_t **")
    check(_moment(fn, _as_tensor_arg(input, name), dim, corr, _kd(keepdim), a, b))
    return _wrap(a[0]), _wrap(b[0])


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """sum((x - mean)^2) / max(0, N - correction); correction defaults to 1 (Bessel's),
    unlike numpy's ddof=0."""
    return _moment1("var", lib.tensor_var, input, dim, unbiased, keepdim, correction)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _moment1("std", lib.tensor_std, input, dim, unbiased, keepdim, correction)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(var, mean)."""
    return _moment2("var_mean", lib.tensor_var_mean, input, dim, unbiased, keepdim, correction)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """(std, mean)."""
    return _moment2("std_mean", lib.tensor_std_mean, input, dim, unbiased, keepdim, correction)


# ---- norms and friends -------------------------------------------------------------------------
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """torch.linalg.vector_norm: ord 0 (count of non-zeros), 1, 2, inf, -inf or any real."""
    p = _as_tensor_arg(x, "vector_norm", "x")
    if dtype is not None:
        x = x.to(as_dtype(dtype))
        p = x._ptr
    if isinstance(ord, builtins.bool) or not isinstance(ord, numbers.Real):
        raise TypeError("vector_norm(): ord must be a number, not %r" % (ord,))
    d, n = _dims(dim)
    return _wrap(lib.tensor_norm(p, builtins.float(ord), d, n, _kd(keepdim)))


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """torch.norm over vectors: p a number, inf, -inf or "fro" (the 2-norm of the elements,
    whatever dims are reduced); "nuc" (a matrix norm) is not implemented."""
    if isinstance(p, str):
        if p != "fro":
            raise NotImplementedError("norm(): p=%r is not implemented (only vector norms and 'fro')" % p)
        p = 2
    return vector_norm(input, p, dim, keepdim, dtype=dtype)


def logsumexp(input, dim=None, keepdim=False):
    """log(sum(exp(x))) computed stably; ints and bool give float32."""
    d, n = _dims(dim)
    return _wrap(lib.tensor_logsumexp(_as_tensor_arg(input, "logsumexp"), d, n, _kd(keepdim)))


def count_nonzero(input, dim=None):
    d, n = _dims(dim)
    return _wrap(lib.tensor_count_nonzero(_as_tensor_arg(input, "count_nonzero"), d, n))


def all(input, dim=None, keepdim=False):
    """bool result (uint8 input gives uint8, as PyTorch)."""
    d, n = _dims(dim)
    return _wrap(lib.tensor_all(_as_tensor_arg(input, "all"), d, n, _kd(keepdim)))


def any(input, dim=None, keepdim=False):
    d, n = _dims(dim)
    return _wrap(lib.tensor_any(_as_tensor_arg(input, "any"), d, n, _kd(keepdim)))


def vecdot(x, y, *, dim=-1):
    """torch.linalg.vecdot for real dtypes: sum(x * y) over dim, broadcast, fused."""
    return _wrap(lib.tensor_vecdot(_as_tensor_arg(x, "vecdot", "x"), _as_tensor_arg(y, "vecdot", "y"),
                                   operator.index(dim)))


# ---- scans -------------------------------------------------------------------------------------
def cumsum(input, dim, *, dtype=None):
    return _wrap(lib.tensor_cumsum(_as_tensor_arg(input, "cumsum"), operator.index(dim), dtype_code(dtype)))


def cumprod(input, dim, *, dtype=None):
    return _wrap(lib.tensor_cumprod(_as_tensor_arg(input, "cumprod"), operator.index(dim), dtype_code(dtype)))


def logcumsumexp(input, dim):
    return _wrap(lib.tensor_logcumsumexp(_as_tensor_arg(input, "logcumsumexp"), operator.index(dim)))


def cummax(input, dim):
    """(values, indices): the running max and where it was found (the later index on ties)."""
    values, indices = _pair(lib.tensor_cummax, _as_tensor_arg(input, "cummax"), operator.index(dim))
    return return_types.cummax(values, indices)


def cummin(input, dim):
    values, indices = _pair(lib.tensor_cummin, _as_tensor_arg(input, "cummin"), operator.index(dim))
    return return_types.cummin(values, indices)


# ---- explain -----------------------------------------------------------------------------------
def explain(op, input, dim=None, keepdim=False, *, dtype=None):
    """How the reduction `op` ("sum", "mean", "amax", "var", "norm", ...) of input over dim
    would run, as text; nothing runs. The iterator's plan, and for a CUDA tensor the kernel and
    its launch configuration."""
    if not isinstance(op, str):
        raise TypeError("explain(): op must be a reduction's name, not %r" % (op,))
    d, n = _dims(dim)
    return snprintf_string(lib.tensor_reduce_explain, op.encode(), _as_tensor_arg(input, "explain"), d, n,
                           _kd(keepdim), dtype_code(dtype))


METHODS = (sum, nansum, mean, nanmean, prod, amax, amin, aminmax, argmax, argmin, max, min, var, std,
           var_mean, std_mean, norm, logsumexp, count_nonzero, all, any, cumsum, cumprod, logcumsumexp,
           cummax, cummin)
