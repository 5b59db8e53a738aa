"""Reductions and scans against numpy: values, shapes and PyTorch's result dtypes, on
contiguous and strided inputs, through PyTorch's keyword names. Where numpy's semantics differ
from PyTorch's (var's default correction, all/any on uint8, cummax's ties), the expected values
are written out."""
import math
import warnings

import pytest

np = pytest.importorskip("numpy")
import tinytensor as tt  # noqa: E402

INTS = ["uint8", "int8", "int16", "int32", "int64"]
FLOATS = ["float16", "float32", "float64"]
DTYPES = ["bool"] + INTS + FLOATS
# (shape, dim): every dim, one dim, a negative dim, two dims, an empty dim, 0-d, 1-d.
CASES = [((3, 4, 5), None), ((3, 4, 5), 0), ((3, 4, 5), -1), ((3, 4, 5), (0, 2)), ((2, 0, 3), 1), ((), None),
         ((7,), 0)]
RTOL = {"float16": 2e-3, "float32": 1e-5, "float64": 1e-12}


def sample(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype in INTS:
        low = 0 if dtype == "uint8" else -5
        return np.asarray(rng.integers(low, 6, size=shape)).astype(dtype)
    return np.asarray(rng.standard_normal(shape) * 3).astype(dtype)


def axis(dim):
    return tuple(dim) if isinstance(dim, (tuple, list)) else dim


def sum_dtype(dtype):
    return "int64" if dtype == "bool" or dtype in INTS else dtype


def assert_matches(result, expected, dtype_name, rtol=None):
    """result (a Tensor) has the dtype, the shape and the values of expected (numpy)."""
    assert isinstance(result, tt.Tensor)
    assert result.dtype.name == dtype_name
    assert tuple(result.shape) == np.shape(expected)
    got = result.numpy()
    expected = np.asarray(expected)
    if dtype_name in FLOATS:
        # Rounded to the result's dtype first, so that an overflow to inf is expected too.
        with np.errstate(over="ignore"):
            expected = expected.astype(dtype_name)
        np.testing.assert_allclose(got.astype("float64"), expected.astype("float64"),
                                   rtol=rtol or RTOL[dtype_name], atol=rtol or RTOL[dtype_name], equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected.astype(dtype_name))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", CASES)
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum(dtype, shape, dim, keepdim):
    a = sample(shape, dtype)
    t = tt.from_dlpack(a)
    acc = "int64" if sum_dtype(dtype) == "int64" else "float64"
    expected = np.sum(a.astype(acc), axis=axis(dim), keepdims=keepdim)
    assert_matches(t.sum(dim=dim, keepdim=keepdim), expected, sum_dtype(dtype))
    assert_matches(tt.sum(t, dim, keepdim), expected, sum_dtype(dtype))


def test_sum_dtype_argument_casts_first():
    a = np.ones((100, 100), dtype="int8")
    t = tt.from_dlpack(a)
    # Reduced in int8, wrapping: 10000 mod 256.
    assert_matches(t.sum(dtype=tt.int8), np.sum(a, dtype="int8"), "int8")
    assert t.sum(dtype=tt.int8).item() == 16
    assert_matches(t.sum(dim=0, dtype="float64"), np.full(100, 100.0), "float64")


def test_sum_empty_dims_list_reduces_everything():
    a = sample((3, 4), "float32")
    assert_matches(tt.sum(tt.from_dlpack(a), dim=[]), np.sum(a.astype("float64")), "float32")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,dim", CASES)
@pytest.mark.parametrize("keepdim", [False, True])
def test_mean(dtype, shape, dim, keepdim):
    a = sample(shape, dtype)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's "mean of empty slice": NaN, as ours
        expected = np.mean(a.astype("float64"), axis=axis(dim), keepdims=keepdim)
    assert_matches(tt.mean(tt.from_dlpack(a), dim=dim, keepdim=keepdim), expected, dtype)


def test_mean_of_integers_needs_a_floating_dtype():
    t = tt.arange(6)
    with pytest.raises(TypeError, match="mean"):
        t.mean()
    assert t.mean(dtype=tt.float64).item() == 2.5


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", [((3, 4, 5), None), ((3, 4, 5), 1), ((3, 4, 5), -1), ((0, 2), 0), ((), None)])
def test_prod(dtype, shape, dim):
    a = sample(shape, dtype)
    acc = "int64" if sum_dtype(dtype) == "int64" else "float64"
    expected = np.prod(a.astype(acc), axis=dim)
    assert_matches(tt.prod(tt.from_dlpack(a), dim), expected, sum_dtype(dtype), rtol=1e-2 if dtype == "float16" else None)


def test_prod_takes_one_dim():
    with pytest.raises(TypeError):
        tt.prod(tt.ones(2, 3), dim=(0, 1))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", [c for c in CASES if 0 not in c[0]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_amax_amin_aminmax(dtype, shape, dim, keepdim):
    a = sample(shape, dtype)
    t = tt.from_dlpack(a)
    mx = np.amax(a, axis=axis(dim), keepdims=keepdim)
    mn = np.amin(a, axis=axis(dim), keepdims=keepdim)
    assert_matches(tt.amax(t, dim=() if dim is None else dim, keepdim=keepdim), mx, dtype)
    assert_matches(t.amin(dim=() if dim is None else dim, keepdim=keepdim), mn, dtype)
    if not isinstance(dim, tuple):
        r = tt.aminmax(t, dim=dim, keepdim=keepdim)
        assert_matches(r.min, mn, dtype)
        assert_matches(r.max, mx, dtype)


def test_amax_propagates_nan():
    a = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], dtype="float32")
    assert_matches(tt.amax(tt.from_dlpack(a), 1), np.array([np.nan, 6.0], dtype="float32"), "float32")


@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_argmax_argmin(dtype, dim, keepdim):
    # Few distinct values, so that ties are common: both libraries give the first index.
    a = np.asarray(np.random.default_rng(1).integers(0, 3, size=(4, 6))).astype(dtype)
    t = tt.from_dlpack(a)
    assert_matches(tt.argmax(t, dim=dim, keepdim=keepdim), np.argmax(a, axis=dim, keepdims=keepdim), "int64")
    assert_matches(t.argmin(dim, keepdim), np.argmin(a, axis=dim, keepdims=keepdim), "int64")


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_with_dim(dim, keepdim):
    a = np.asarray(np.random.default_rng(2).integers(0, 4, size=(5, 6))).astype("float32")
    t = tt.from_dlpack(a)
    r = tt.max(t, dim, keepdim=keepdim)
    values, indices = r
    assert r.values is values and r.indices is indices
    assert_matches(values, np.max(a, axis=dim, keepdims=keepdim), "float32")
    assert_matches(indices, np.argmax(a, axis=dim, keepdims=keepdim), "int64")
    values, indices = t.min(dim=dim, keepdim=keepdim)
    assert_matches(values, np.min(a, axis=dim, keepdims=keepdim), "float32")
    assert_matches(indices, np.argmin(a, axis=dim, keepdims=keepdim), "int64")


def test_max_forms():
    a = sample((3, 4), "float32")
    b = sample((3, 4), "float32", seed=5)
    t, u = tt.from_dlpack(a), tt.from_dlpack(b)
    assert_matches(tt.max(t), np.max(a), "float32")
    assert_matches(t.min(), np.min(a), "float32")
    assert_matches(tt.max(t, u), np.maximum(a, b), "float32")
    assert_matches(tt.min(t, u), np.minimum(a, b), "float32")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,dim", [((3, 4, 5), None), ((3, 4, 5), 1), ((3, 4, 5), (0, 2)), ((6,), 0)])
@pytest.mark.parametrize("correction", [0, 1, 2])
@pytest.mark.parametrize("keepdim", [False, True])
def test_var_std(dtype, shape, dim, correction, keepdim):
    a = sample(shape, dtype)
    t = tt.from_dlpack(a)
    expected = np.var(a.astype("float64"), axis=axis(dim), ddof=correction, keepdims=keepdim)
    rtol = 5e-3 if dtype == "float16" else None
    assert_matches(tt.var(t, dim, correction=correction, keepdim=keepdim), expected, dtype, rtol)
    assert_matches(t.std(dim=dim, correction=correction, keepdim=keepdim), np.sqrt(expected), dtype, rtol)
    v, m = tt.var_mean(t, dim, correction=correction, keepdim=keepdim)
    assert_matches(v, expected, dtype, rtol)
    assert_matches(m, np.mean(a.astype("float64"), axis=axis(dim), keepdims=keepdim), dtype, rtol)
    s, m = t.std_mean(dim, correction=correction, keepdim=keepdim)
    assert_matches(s, np.sqrt(expected), dtype, rtol)


def test_var_correction_defaults_to_bessel_unlike_numpy():
    t = tt.tensor([1.0, 2.0, 3.0, 4.0])
    # sum of squared deviations 5: / (4 - 1) by default, / 4 with correction 0.
    assert t.var().item() == pytest.approx(5 / 3)
    assert t.var(correction=0).item() == pytest.approx(1.25)
    assert t.var(unbiased=False).item() == pytest.approx(1.25)
    assert t.var(False).item() == pytest.approx(1.25)
    assert t.var(0, True).item() == pytest.approx(5 / 3)
    assert tt.std(t).item() == pytest.approx(math.sqrt(5 / 3))
    assert t.var(correction=0.5).item() == pytest.approx(5 / 3.5)
    # One element: 0 / max(0, 1 - 1) is NaN, as in PyTorch.
    assert math.isnan(tt.tensor([3.0]).var().item())
    assert tt.tensor([3.0]).var(correction=0).item() == 0.0
    with pytest.raises(TypeError):
        t.var(unbiased=True, correction=1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,dim", [((3, 4, 5), None), ((3, 4, 5), 1), ((3, 4, 5), (0, 2)), ((0, 3), 0)])
def test_logsumexp(dtype, shape, dim):
    a = sample(shape, dtype)
    with np.errstate(divide="ignore"):
        expected = np.log(np.sum(np.exp(a.astype("float64")), axis=axis(dim)))
    assert_matches(tt.logsumexp(tt.from_dlpack(a), dim), expected, dtype)


def test_logsumexp_of_integers_is_float32():
    assert_matches(tt.logsumexp(tt.tensor([0, 0]), 0), np.log(2.0), "float32")


@pytest.mark.parametrize("p", [0, 1, 2, 3, 0.5, math.inf, -math.inf])
@pytest.mark.parametrize("dim", [None, 1, (0, 1)])
def test_norm(p, dim):
    a = sample((3, 4, 2), "float64")
    x = np.abs(a)
    if p == 0:
        expected = np.count_nonzero(x, axis=axis(dim)).astype("float64")
    elif p == math.inf:
        expected = np.max(x, axis=axis(dim))
    elif p == -math.inf:
        expected = np.min(x, axis=axis(dim))
    else:
        expected = np.sum(x ** p, axis=axis(dim)) ** (1.0 / p)
    t = tt.from_dlpack(a)
    assert_matches(tt.norm(t, p, dim), expected, "float64")
    assert_matches(tt.linalg.vector_norm(t, ord=p, dim=dim), expected, "float64")
    assert_matches(tt.vector_norm(t, p, dim, keepdim=True), np.expand_dims(expected, axis(dim) or (0, 1, 2)),
                   "float64")


def test_norm_fro_is_the_two_norm():
    a = sample((3, 4), "float32")
    assert_matches(tt.from_dlpack(a).norm(), np.sqrt(np.sum(a.astype("float64") ** 2)), "float32")
    with pytest.raises(NotImplementedError):
        tt.norm(tt.from_dlpack(a), "nuc")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", CASES)
def test_count_nonzero(dtype, shape, dim):
    a = sample(shape, dtype)
    expected = np.count_nonzero(a, axis=axis(dim))
    assert_matches(tt.count_nonzero(tt.from_dlpack(a), dim), np.asarray(expected), "int64")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", CASES)
@pytest.mark.parametrize("keepdim", [False, True])
def test_all_any(dtype, shape, dim, keepdim):
    a = sample(shape, dtype)
    t = tt.from_dlpack(a)
    # PyTorch keeps uint8 for uint8 inputs; every other dtype gives bool.
    out = "uint8" if dtype == "uint8" else "bool"
    assert_matches(tt.all(t, dim, keepdim), np.all(a, axis=axis(dim), keepdims=keepdim), out)
    assert_matches(t.any(dim=dim, keepdim=keepdim), np.any(a, axis=axis(dim), keepdims=keepdim), out)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nansum_nanmean(dtype):
    a = sample((4, 5), dtype)
    a[1, 2] = np.nan
    a[3, 0] = np.nan
    t = tt.from_dlpack(a)
    assert_matches(tt.nansum(t, 1), np.nansum(a.astype("float64"), axis=1), dtype)
    assert_matches(t.nanmean(dim=0, keepdim=True), np.nanmean(a.astype("float64"), axis=0, keepdims=True), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_cumprod(dtype, dim):
    a = sample((3, 4), dtype)
    t = tt.from_dlpack(a)
    acc = "int64" if sum_dtype(dtype) == "int64" else "float64"
    assert_matches(tt.cumsum(t, dim), np.cumsum(a.astype(acc), axis=dim), sum_dtype(dtype))
    assert_matches(t.cumprod(dim), np.cumprod(a.astype(acc), axis=dim), sum_dtype(dtype),
                   rtol=1e-2 if dtype == "float16" else None)
    assert_matches(t.cumsum(dim, dtype=tt.float64), np.cumsum(a.astype("float64"), axis=dim), "float64")


def test_logcumsumexp():
    a = sample((3, 4), "float64")
    expected = np.log(np.cumsum(np.exp(a), axis=1))
    assert_matches(tt.logcumsumexp(tt.from_dlpack(a), 1), expected, "float64")


def test_cummax_cummin_take_the_later_index_on_ties():
    t = tt.tensor([1, 3, 2, 3, 0])
    values, indices = tt.cummax(t, 0)
    assert values.tolist() == [1, 3, 3, 3, 3]
    assert indices.tolist() == [0, 1, 1, 3, 3]
    r = t.cummin(0)
    assert r.values.tolist() == [1, 1, 1, 1, 0]
    assert r.indices.tolist() == [0, 0, 0, 0, 4]


def test_strided_inputs_through_dlpack():
    base = sample((6, 8, 4), "float32")
    for view in (base.transpose(2, 0, 1), base[1:5, ::2, 1:], base[:, 3, :], base[None, 2]):
        t = tt.from_dlpack(view)
        assert t.data_ptr() == view.__array_interface__["data"][0]
        for dim in (None, 0, -1):
            assert_matches(t.sum(dim), np.sum(view.astype("float64"), axis=dim), "float32")
            assert_matches(t.amax(() if dim is None else dim), np.amax(view, axis=dim), "float32")


def test_vecdot():
    a = sample((3, 5), "float64")
    b = sample((5,), "float64", seed=3)
    assert_matches(tt.vecdot(tt.from_dlpack(a), tt.from_dlpack(b)), np.sum(a * b, axis=-1), "float64")
    assert_matches(tt.linalg.vecdot(tt.from_dlpack(a), tt.from_dlpack(a), dim=0), np.sum(a * a, axis=0), "float64")


def test_explain_describes_the_plan_without_running():
    t = tt.zeros(16, 128, 64)
    text = tt.explain("sum", t, 1)
    assert "reduction iterator" in text
    assert "logical shape [16, 128, 64]" in text
    assert t.sum(1).shape == (16, 64)
    assert "float64" in tt.explain("mean", t, (0, 2), keepdim=True, dtype=tt.float64)
    with pytest.raises(ValueError, match="unknown|op"):
        tt.explain("no_such_reduction", t)
