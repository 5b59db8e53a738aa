"""Creation, properties, views and indexing, conversions and .npy files."""
import math
import pickle

import pytest

import tinytensor as tt


def test_properties():
    t = tt.zeros(2, 3, 4, dtype=tt.float64)
    assert t.shape == (2, 3, 4) and t.size() == (2, 3, 4) and t.size(-1) == 4
    assert isinstance(t.shape, tt.Size) and isinstance(t.shape, tuple)
    assert t.ndim == 3 and t.dim() == 3
    assert t.dtype == tt.float64 and t.dtype is tt.double
    assert t.device == tt.device("cpu") and t.device == "cpu" and not t.is_cuda
    assert t.numel() == 24 and t.element_size() == 8 and t.nbytes == 192
    assert t.stride() == (12, 4, 1) and t.stride(0) == 12
    assert t.is_contiguous() and not t.transpose(0, 2).is_contiguous()
    assert t.is_floating_point() and not tt.zeros(1, dtype=tt.int8).is_floating_point()
    assert t.storage_offset() == 0 and t[1].storage_offset() == 12
    assert len(t) == 2


def test_dtypes_are_the_libraries():
    names = [d.name for d in tt._DTYPES]
    assert names == ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
                     "float64", "float8_e4m3fn", "float8_e5m2"]
    assert tt.float32.itemsize == 4 and tt.bfloat16.is_floating_point and not tt.uint8.is_signed
    assert (tt.half, tt.float, tt.double, tt.short, tt.int, tt.long) == (
        tt.float16, tt.float32, tt.float64, tt.int16, tt.int32, tt.int64)
    assert pickle.loads(pickle.dumps(tt.bfloat16)) is tt.bfloat16
    assert tt.zeros(1, dtype="float16").dtype is tt.float16


def test_creation():
    assert tt.zeros(2, 3).tolist() == [[0.0] * 3] * 2
    assert tt.ones((2,), dtype=tt.int32).tolist() == [1, 1]
    assert tt.full((2, 2), 7).dtype == tt.int64
    assert tt.full((2,), 2 ** 62 + 1).tolist() == [2 ** 62 + 1] * 2  # exact beyond 2**53
    assert tt.full((1,), True).dtype == tt.bool
    assert tt.full((1,), 0.5).dtype == tt.float32
    assert tt.arange(5).tolist() == [0, 1, 2, 3, 4] and tt.arange(5).dtype == tt.int64
    assert tt.arange(1, 2, 0.25).tolist() == [1.0, 1.25, 1.5, 1.75] and tt.arange(0.0, 1).dtype == tt.float32
    assert tt.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    r = tt.rand(100, seed=3)
    assert r.dtype == tt.float32 and 0 <= tt.amin(r).item() and tt.amax(r).item() < 1
    assert tt.rand(100, seed=3).tolist() == r.tolist()
    assert abs(tt.randn(10000, seed=1).mean().item()) < 0.05
    assert tt.empty(3).shape == (3,)
    x = tt.arange(6).reshape(2, 3)
    assert tt.zeros_like(x).dtype == tt.int64 and tt.ones_like(x, dtype=tt.float32).sum().item() == 6
    assert tt.full_like(x, 3).tolist() == [[3, 3, 3], [3, 3, 3]]


def test_tensor_from_python_data_infers_pytorchs_dtypes():
    assert tt.tensor([1, 2]).dtype == tt.int64
    assert tt.tensor([1, 2.0]).dtype == tt.float32
    assert tt.tensor([True, False]).dtype == tt.bool
    assert tt.tensor([True, 2]).dtype == tt.int64
    assert tt.tensor([]).dtype == tt.float32 and tt.tensor([]).shape == (0,)
    assert tt.tensor(1.5).shape == () and tt.tensor(1.5).item() == 1.5
    assert tt.tensor([[1, 2], [3, 4]], dtype=tt.float64).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    # dtype= builds in that dtype directly: no detour through float32.
    assert tt.tensor([0.1], dtype=tt.float64).item() == 0.1
    assert tt.tensor([2 ** 62 + 1]).item() == 2 ** 62 + 1
    assert tt.tensor([tt.tensor(2), 3]).tolist() == [2, 3]
    t = tt.arange(3)
    c = tt.tensor(t)
    assert c.data_ptr() != t.data_ptr() and c.tolist() == [0, 1, 2]


def test_item_and_python_numbers():
    assert tt.tensor(2.5).item() == 2.5 and isinstance(tt.tensor(2.5).item(), float)
    assert tt.tensor(3).item() == 3 and isinstance(tt.tensor(3).item(), int)
    assert tt.tensor(True).item() is True
    assert tt.tensor([1.5], dtype=tt.bfloat16).item() == 1.5
    assert float(tt.tensor([2.0])) == 2.0 and int(tt.tensor(7)) == 7
    assert [10, 20, 30][tt.tensor(1)] == 20
    assert bool(tt.tensor([1])) and not bool(tt.tensor(0.0))
    assert math.isnan(tt.tensor(math.nan).item())


def test_tolist_without_numpy():
    assert tt.arange(6).reshape(2, 3).tolist() == [[0, 1, 2], [3, 4, 5]]
    assert tt.zeros(2, 0).tolist() == [[], []]
    assert tt.tensor([True, False]).tolist() == [True, False]
    assert tt.tensor(1.0, dtype=tt.float16).tolist() == 1.0
    assert tt.arange(4.0).reshape(2, 2).T.tolist() == [[0.0, 2.0], [1.0, 3.0]]


def test_views_share_memory():
    t = tt.arange(24.0).reshape(2, 3, 4)
    for v in (t.transpose(0, 2), t.permute(2, 0, 1), t.T, t.view(6, 4), t.reshape(4, 6), t.flatten(1),
              t[:, None].squeeze(1), t.unsqueeze(0), t[:1].expand(5, 3, 4), t.narrow(1, 1, 2), t.select(2, 0),
              t[1, :, ::2], t[..., 1], t[-1, -2:]):
        assert v.numel() == 0 or v.storage_offset() >= 0
        v2 = v.contiguous()
        assert v2.tolist() == v.tolist()
    t[0, 0, 0] = 100.0
    assert t.view(24)[0].item() == 100.0
    t[1] = 0
    assert t[1].sum().item() == 0.0
    assert t.T.shape == (4, 3, 2)
    assert t[..., None].shape == (2, 3, 4, 1)


def test_indexing_like_python_and_pytorch():
    t = tt.arange(10)
    assert t[2:8:3].tolist() == [2, 5]
    assert t[-3:].tolist() == [7, 8, 9]
    assert t[:100].tolist() == list(range(10))
    assert t[5:2].tolist() == []
    assert t[-1].item() == 9
    with pytest.raises(ValueError, match="step"):
        t[::-1]
    with pytest.raises(IndexError):
        t[10]
    with pytest.raises(IndexError):
        t[..., ...]
    with pytest.raises(TypeError):
        t[1.5]
    assert [x.item() for x in tt.arange(3)] == [0, 1, 2]


def test_conversions():
    t = tt.tensor([1.7, -2.2])
    assert t.to(tt.int32).tolist() == [1, -2]
    assert t.int().dtype == tt.int32 and t.long().dtype == tt.int64 and t.double().dtype == tt.float64
    assert t.half().dtype == tt.float16 and t.bfloat16().dtype == tt.bfloat16 and t.bool().tolist() == [True, True]
    assert t.to("cpu") is t and t.to(tt.float32) is t
    assert t.to(tt.float32, copy=True) is not t
    assert t.to(tt.zeros(1, dtype=tt.float64)).dtype == tt.float64
    assert t.cpu() is t
    assert t.type() == "tinytensor.float32" and t.type(tt.float64).dtype == tt.float64
    assert t.clone().data_ptr() != t.data_ptr()


def test_npy_round_trip(tmp_path):
    np = pytest.importorskip("numpy")
    path = tmp_path / "x.npy"
    t = tt.arange(12, dtype=tt.int16).reshape(3, 4).T
    tt.save_npy(t, path)
    a = np.load(path)
    assert a.dtype == np.int16 and a.tolist() == t.tolist()
    np.save(tmp_path / "y.npy", np.arange(6.0).reshape(2, 3))
    u = tt.load_npy(str(tmp_path / "y.npy"))
    assert u.dtype == tt.float64 and u.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    with pytest.raises(TypeError):
        tt.save_npy(tt.zeros(1, dtype=tt.bfloat16), path)


def test_threads_do_not_change_results():
    x = tt.rand(300000, seed=7)
    n = tt.get_num_threads()
    many = x.sum().item()
    tt.set_num_threads(1)
    try:
        assert tt.get_num_threads() == 1
        assert x.sum().item() == many  # bitwise, whatever the thread count
    finally:
        tt.set_num_threads(n)


def test_cuda_queries():
    assert isinstance(tt.cuda.is_built(), bool)
    assert tt.cuda.device_count() >= 0
    assert tt.cuda.is_available() == (tt.cuda.device_count() > 0)
    assert tt.__version__.count(".") == 2
