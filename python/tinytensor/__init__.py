"""tinytensor: Python binding of the tinytensor C library (reductions, elementwise ops, views,
DLPack and .npy interop) with PyTorch's names and semantics.

    import numpy as np, tinytensor as tt
    t = tt.from_dlpack(np.arange(6.0).reshape(2, 3))   # zero-copy
    t.sum(dim=1)                                       # tensor([ 3., 12.], dtype=torch.float64)
    np.from_dlpack(t.mean(0))                          # zero-copy back

See docs/python.md."""
from . import _ops, _reduce, cuda
from ._dlpack import from_dlpack
from ._errors import (TensorError, TensorIndexError, TensorIOError, TensorMemoryError, TensorNotImplementedError,
                      TensorRuntimeError, TensorTypeError, TensorValueError)
from ._lib import ffi as _ffi
from ._lib import lib as _lib
from ._ops import (add, clamp, clip, div, divide, gelu, multiply, sub, subtract, true_divide, where)
from ._reduce import (all, amax, amin, aminmax, any, argmax, argmin, count_nonzero, cummax, cummin, cumprod, cumsum,
                      explain, logcumsumexp, logsumexp, max, mean, min, nanmean, nansum, norm, prod, return_types,
                      std, std_mean, sum, var, var_mean, vecdot, vector_norm)
from ._tensor import (Tensor, arange, as_tensor, empty, from_numpy, full, full_like, get_num_threads, is_tensor,
                      linspace, load_npy, ones, ones_like, rand, randn, save_npy, set_num_threads, tensor, zeros,
                      zeros_like)
from ._types import DTYPES as _DTYPES
from ._types import Size, device, dtype

__version__ = _ffi.string(_lib.tensor_version_string()).decode()

# The public classes under the package's name (tracebacks say tinytensor.TensorIndexError).
for _cls in (Tensor, Size, device, dtype, TensorError, TensorIndexError, TensorIOError, TensorMemoryError,
             TensorNotImplementedError, TensorRuntimeError, TensorTypeError, TensorValueError):
    _cls.__module__ = __name__

# Methods: each reduction takes the tensor first, so the function itself is the method.
for _fn in _reduce.METHODS:
    setattr(Tensor, _fn.__name__, _fn)
_ops.attach(Tensor)
globals().update(_ops.UNARY)
globals().update(_ops.BINARY)


class linalg:
    """torch.linalg's vector functions."""
    vector_norm = staticmethod(vector_norm)
    vecdot = staticmethod(vecdot)


# The dtypes, under their names and PyTorch's aliases. Last: from here on `bool`, `int` and
# `float` in this module are dtypes, not the builtins.
for _d in _DTYPES:
    globals()[_d.name] = _d
half, float, double = float16, float32, float64  # noqa: F821 (set just above)
short, int, long = int16, int32, int64  # noqa: F821

__all__ = sorted(name for name in globals() if not name.startswith("_"))
del _fn, _d, _cls
