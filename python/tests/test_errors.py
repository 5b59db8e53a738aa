"""C errors become Python exceptions: the class from the status code, the C library's message
unchanged, the status on the exception; nothing leaks or crashes on the way."""
import pytest

import tinytensor as tt


def raised(fn):
    with pytest.raises(tt.TensorError) as info:
        fn()
    return info.value


def test_index_errors():
    t = tt.zeros(2, 3)
    e = raised(lambda: t.sum(dim=5))
    assert isinstance(e, IndexError) and isinstance(e, tt.TensorIndexError)
    assert str(e) == "tensor_sum: Dimension out of range (expected to be in range of [-2, 1], but got 5)"
    assert e.status == "TENSOR_ERR_INDEX" and e.code == 2
    assert isinstance(raised(lambda: t.select(0, 7)), IndexError)
    assert isinstance(raised(lambda: tt.amax(tt.zeros(0, 3), 0)), IndexError)
    with pytest.raises(IndexError, match="too many indices"):
        t[0, 0, 0]


def test_dtype_errors_are_type_errors():
    e = raised(lambda: tt.arange(4).mean())
    assert isinstance(e, TypeError) and e.status == "TENSOR_ERR_DTYPE"
    assert str(e).startswith("tensor_mean: mean(): could not infer output dtype.")
    assert isinstance(raised(lambda: tt.arange(4).var()), TypeError)
    assert isinstance(raised(lambda: tt.ones(2, dtype=tt.float8_e5m2) + 1), TypeError)


def test_other_errors_are_value_errors():
    e = raised(lambda: tt.ones(2, 3) + tt.ones(4))
    assert isinstance(e, ValueError) and e.status == "TENSOR_ERR_SHAPE"
    e = raised(lambda: t_view_impossible())
    assert isinstance(e, ValueError)
    e = raised(lambda: tt.zeros(2, 2).sum(dim=(0, 0)))
    assert isinstance(e, ValueError) and "multiple times" in str(e)
    e = raised(lambda: tt.zeros(-1))
    assert isinstance(e, ValueError) and e.status == "TENSOR_ERR_INVALID_ARGUMENT"


def t_view_impossible():
    return tt.zeros(2, 3).T.view(6)


def test_out_of_memory_is_memory_error():
    # 2**60 float32 elements: 4 EiB, more than any address space, so the allocation fails
    # whatever the system's overcommit policy.
    e = raised(lambda: tt.empty(2 ** 60))
    assert isinstance(e, MemoryError) and e.status == "TENSOR_ERR_OUT_OF_MEMORY"


def test_io_errors_are_os_errors(tmp_path):
    e = raised(lambda: tt.load_npy(tmp_path / "missing.npy"))
    assert isinstance(e, OSError) and e.status == "TENSOR_ERR_IO"
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"not a numpy file at all")
    e = raised(lambda: tt.load_npy(bad))
    assert isinstance(e, ValueError) and e.status == "TENSOR_ERR_FORMAT"


def test_devices_this_build_lacks():
    if tt.cuda.is_available():
        pytest.skip("this machine has a GPU")
    e = raised(lambda: tt.zeros(2, device="cuda"))
    assert isinstance(e, ValueError) and e.status == "TENSOR_ERR_DEVICE"
    with pytest.raises(ValueError):
        tt.device("tpu")


def test_the_error_slot_is_cleared_after_raising():
    with pytest.raises(IndexError):
        tt.zeros(2).sum(3)
    assert tt._lib.tensor_last_status() == tt._lib.TENSOR_OK


def test_python_side_argument_errors():
    with pytest.raises(TypeError):
        tt.sum([1, 2, 3])
    with pytest.raises(TypeError):
        tt.zeros(2).sum(dim="x")
    with pytest.raises(TypeError):
        tt.float32.__class__(0, "x") + 1
    with pytest.raises(ValueError, match="more than one value"):
        bool(tt.zeros(2))
    with pytest.raises(ValueError, match="2 elements"):
        tt.zeros(2).item()
    with pytest.raises(TypeError):
        tt.Tensor()
    with pytest.raises(TypeError):
        tt.tensor(["a"])
    with pytest.raises(ValueError):
        tt.tensor([[1, 2], [3]])
    with pytest.raises(OverflowError):
        tt.zeros(2, dtype=tt.int64) + 2 ** 70
