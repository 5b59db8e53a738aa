"""Python operators and elementwise functions: values against numpy, result dtypes by PyTorch's
promotion rules (written out: numpy's differ, e.g. int32 tensor + 5.0 is float64 there and
float32 here), broadcasting, reflected and in-place forms."""
import operator

import pytest

np = pytest.importorskip("numpy")
import tinytensor as tt  # noqa: E402


def nd(t):
    return t.numpy()


A = np.array([[1.5, -2.0, 3.25], [0.5, 4.0, -1.0]], dtype="float32")
B = np.array([2.0, -0.5, 1.0], dtype="float32")


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow])
def test_arithmetic_broadcasts_like_numpy(op):
    a, b = tt.from_dlpack(A), tt.from_dlpack(B)
    r = op(a, b)
    assert r.dtype == tt.float32 and r.shape == (2, 3)
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(nd(r), op(A, B), rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("op", [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
                                operator.mod, operator.pow])
@pytest.mark.parametrize("scalar", [3, 2.5, -2])
def test_scalars_on_either_side(op, scalar):
    a = tt.from_dlpack(A)
    with np.errstate(invalid="ignore", divide="ignore"):
        np.testing.assert_allclose(nd(op(a, scalar)), op(A, np.float32(scalar)), rtol=1e-5, equal_nan=True)
        np.testing.assert_allclose(nd(op(scalar, a)), op(np.float32(scalar), A), rtol=1e-5, equal_nan=True)


@pytest.mark.parametrize("op,name", [(operator.eq, "eq"), (operator.ne, "ne"), (operator.lt, "lt"),
                                     (operator.le, "le"), (operator.gt, "gt"), (operator.ge, "ge")])
def test_comparisons(op, name):
    a, b = tt.from_dlpack(A), tt.from_dlpack(B)
    r = op(a, b)
    assert r.dtype == tt.bool
    np.testing.assert_array_equal(nd(r), op(A, B))
    np.testing.assert_array_equal(nd(op(a, 1.5)), op(A, 1.5))
    np.testing.assert_array_equal(nd(op(1.5, a)), op(1.5, A))
    np.testing.assert_array_equal(nd(getattr(tt, name)(a, b)), op(A, B))


def test_unary_operators():
    a = tt.from_dlpack(A)
    np.testing.assert_array_equal(nd(-a), -A)
    np.testing.assert_array_equal(nd(abs(a)), np.abs(A))
    assert +a is a
    i = tt.tensor([0, 5, -3], dtype=tt.int32)
    np.testing.assert_array_equal(nd(~i), ~np.array([0, 5, -3], dtype="int32"))
    assert (~tt.tensor([True, False])).tolist() == [False, True]
    with pytest.raises(TypeError, match="bool"):
        -tt.tensor([True])


def test_promotion_follows_pytorch():
    i32 = tt.tensor([1, 2, 3], dtype=tt.int32)
    assert (i32 + 5).dtype == tt.int32          # an int scalar is weaker than the tensor
    assert (i32 + 5.0).dtype == tt.float32      # a float scalar lifts ints to the default float
    assert (i32 / i32).dtype == tt.float32      # true division of ints
    assert (i32 // 2).dtype == tt.int32
    assert (tt.tensor([True, False]) + 1).dtype == tt.int64
    assert (i32 + tt.tensor([1, 2, 3])).dtype == tt.int64
    assert (tt.ones(3, dtype=tt.float16) + tt.ones(3)).dtype == tt.float32
    # A 0-d tensor is weak within its category: float16 wins over a 0-d float64.
    assert (tt.ones(3, dtype=tt.float16) + tt.tensor(1.0, dtype=tt.float64)).dtype == tt.float16
    assert (tt.tensor([1, 2]) + tt.tensor(0.5, dtype=tt.float64)).dtype == tt.float64
    # Integers wrap in the result dtype.
    assert (tt.tensor([1], dtype=tt.uint8) + 300).tolist() == [45]
    assert (tt.tensor([100], dtype=tt.int8) * 3).tolist() == [44]


def test_integer_division_and_remainder_follow_python():
    a = np.array([7, -7, 7, -7], dtype="int64")
    b = np.array([2, 2, -2, -2], dtype="int64")
    ta, tb = tt.from_dlpack(a), tt.from_dlpack(b)
    np.testing.assert_array_equal(nd(ta // tb), a // b)
    np.testing.assert_array_equal(nd(ta % tb), a % b)
    np.testing.assert_array_equal(nd(tt.div(ta, tb, rounding_mode="trunc")), np.trunc(a / b).astype("int64"))
    np.testing.assert_array_equal(nd(tt.div(ta, tb, rounding_mode="floor")), a // b)
    np.testing.assert_allclose(nd(tt.div(ta, tb)), (a / b).astype("float32"))
    with pytest.raises(ValueError):
        tt.div(ta, tb, rounding_mode="round")


def test_broadcast_errors_are_value_errors():
    with pytest.raises(ValueError, match="size|shape|broadcast"):
        tt.ones(2, 3) + tt.ones(4)


def test_unsupported_operands_fall_back_to_python():
    t = tt.ones(2)
    assert (t == "text") is False
    assert (t != None) is True  # noqa: E711
    with pytest.raises(TypeError):
        t + "text"
    with pytest.raises(TypeError):
        [1, 2] - t


def test_in_place_operators_keep_the_object_and_dtype():
    a = np.arange(6, dtype="float32")
    t = tt.from_dlpack(a)
    same = t
    t += 1
    t *= 2
    t -= tt.ones(6)
    t /= 2
    assert t is same
    np.testing.assert_allclose(a, ((np.arange(6) + 1) * 2 - 1) / 2)  # written through to numpy's memory
    i = tt.tensor([1, 2], dtype=tt.int32)
    with pytest.raises(TypeError, match="cast"):
        i += 1.5
    assert i.add_(3).tolist() == [4, 5]
    assert i.sub_(tt.tensor([1, 1], dtype=tt.int32), alpha=2).tolist() == [2, 3]


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "cos", "tanh", "floor", "ceil", "trunc", "abs",
                                  "expm1", "log1p", "exp2", "log2"])
def test_named_unary_ops(name):
    x = np.array([0.25, 1.5, 3.0, 10.0], dtype="float64")
    r = getattr(tt, name)(tt.from_dlpack(x))
    np.testing.assert_allclose(nd(r), getattr(np, name)(x), rtol=1e-12)
    np.testing.assert_allclose(nd(getattr(tt.from_dlpack(x), name)()), getattr(np, name)(x), rtol=1e-12)


def test_named_ops_with_arguments():
    x = tt.tensor([-1.0, 0.5, 2.0])
    assert tt.add(x, 1, alpha=2).tolist() == [1.0, 2.5, 4.0]
    assert tt.sub(x, x, alpha=3).tolist() == [2.0, -1.0, -4.0]
    assert tt.clamp(x, min=0.0).tolist() == [0.0, 0.5, 2.0]
    assert x.clamp(max=1).tolist() == [-1.0, 0.5, 1.0]
    assert tt.clamp(x, tt.tensor(0.0), 1.0).tolist() == [0.0, 0.5, 1.0]
    assert tt.relu(x).tolist() == [0.0, 0.5, 2.0]
    assert tt.maximum(x, tt.zeros(3)).tolist() == [0.0, 0.5, 2.0]
    assert tt.isnan(tt.tensor([1.0, float("nan")])).tolist() == [False, True]
    assert tt.logical_and(tt.tensor([True, False]), tt.tensor([True, True])).tolist() == [True, False]
    g = tt.gelu(tt.tensor([1.0]), approximate="tanh").item()
    assert g == pytest.approx(0.8411920, rel=1e-6)
    assert tt.gelu(tt.tensor([1.0])).item() == pytest.approx(0.8413447, rel=1e-6)


def test_where_with_numbers_keeps_them_weak():
    cond = tt.tensor([True, False, True])
    x = tt.tensor([1, 2, 3], dtype=tt.int32)
    r = tt.where(cond, x, 0)
    assert r.dtype == tt.int32 and r.tolist() == [1, 0, 3]
    r = tt.where(cond, x, 0.5)
    assert r.dtype == tt.float32 and r.tolist() == [1.0, 0.5, 3.0]
    r = tt.where(cond, tt.ones(3, dtype=tt.float16), 2.0)
    assert r.dtype == tt.float16
    r = tt.where(cond, 1.0, 0.0)
    assert r.dtype == tt.float32 and r.tolist() == [1.0, 0.0, 1.0]
