"""Against PyTorch itself, where it is installed: zero-copy exchange both ways, repr and
reductions compared with torch's own on the CPU, and on CUDA (a GPU, and a library built with
CUDA) the exchange with torch and CuPy, streams included."""
import gc

import pytest

import tinytensor as tt

torch = pytest.importorskip("torch")

needs_cuda = pytest.mark.skipif(not (torch.cuda.is_available() and tt.cuda.is_available()),
                                reason="needs a GPU and a tinytensor built with CUDA")

TORCH_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def sample(shape, name, device="cpu", seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g) * 3
    if name == "bool":
        x = x > 0
    elif name in ("uint8",):
        x = x.abs()
    return x.to(getattr(torch, name)).to(device)


@pytest.mark.parametrize("name", TORCH_DTYPES)
def test_cpu_round_trip_without_copy(name):
    x = sample((3, 4), name)
    t = tt.from_dlpack(x)
    assert t.dtype.name == name and t.data_ptr() == x.data_ptr()
    y = torch.from_dlpack(t)
    assert y.dtype == x.dtype and y.data_ptr() == x.data_ptr()
    assert torch.equal(y, x)
    assert repr(t) == repr(x)


@pytest.mark.parametrize("make", [
    lambda: torch.tensor([[1.0, 2.0], [3.0, 4.0]]), lambda: torch.arange(1001), lambda: torch.tensor(3.5),
    lambda: torch.tensor([1e10, 1.0]), lambda: torch.tensor([True, False]), lambda: torch.zeros(2, 0),
    lambda: torch.randn(4, 5, dtype=torch.float64), lambda: torch.randn(30, 30).T[::2],
    lambda: torch.tensor([float("nan"), -float("inf"), 0.5], dtype=torch.float16),
])
def test_repr_matches_torch(make):
    x = make()
    assert repr(tt.from_dlpack(x)) == repr(x)


@pytest.mark.parametrize("name", ["int32", "int64", "float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("dim", [None, 0, (0, 2), -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reductions_match_torch_on_the_cpu(name, dim, keepdim):
    x = sample((5, 6, 7), name)
    t = tt.from_dlpack(x)
    tol = dict(rtol=2e-2, atol=2e-2) if name in ("float16", "bfloat16") else dict(rtol=1e-5, atol=1e-5)

    def same(ours, theirs):
        theirs_t = torch.from_dlpack(ours)
        assert theirs_t.dtype == theirs.dtype and theirs_t.shape == theirs.shape
        torch.testing.assert_close(theirs_t, theirs, **tol, equal_nan=True)

    kw = {} if dim is None else {"dim": dim}
    # dim=None reduces every dim; keepdim keeps each as size 1 (torch.sum(x, dim=None, keepdim=True))
    full = x.sum().reshape([1] * x.dim()) if keepdim else x.sum()
    same(t.sum(keepdim=keepdim, **kw), x.sum(keepdim=keepdim, **kw) if dim is not None else full)
    same(tt.amax(t, dim=() if dim is None else dim, keepdim=keepdim),
         torch.amax(x, dim=() if dim is None else dim, keepdim=keepdim))
    same(tt.count_nonzero(t, dim), torch.count_nonzero(x, dim))
    if name.startswith("float") or name == "bfloat16":
        full_mean = x.mean().reshape([1] * x.dim()) if keepdim else x.mean()
        same(t.mean(keepdim=keepdim, **kw), x.mean(keepdim=keepdim, **kw) if dim is not None else full_mean)
        for correction in (0, 1):
            same(tt.var(t, dim, correction=correction, keepdim=keepdim),
                 torch.var(x, dim, correction=correction, keepdim=keepdim))
        same(tt.logsumexp(t, dim if dim is not None else (0, 1, 2), keepdim),
             torch.logsumexp(x, dim if dim is not None else (0, 1, 2), keepdim))
        same(tt.linalg.vector_norm(t, 3, dim, keepdim), torch.linalg.vector_norm(x, 3, dim, keepdim))
    if not isinstance(dim, tuple):
        same(tt.argmax(t, dim, keepdim), torch.argmax(x, dim, keepdim))
        if dim is not None:
            values, indices = t.max(dim, keepdim)
            expected = x.max(dim, keepdim)
            same(values, expected.values)
            same(indices, expected.indices)
            same(tt.cumsum(t, dim), torch.cumsum(x, dim))


def test_torch_owner_released_first():
    x = torch.arange(100, dtype=torch.float64)
    t = tt.from_dlpack(x)[50:]
    del x
    gc.collect()
    assert t.sum().item() == sum(range(50, 100))


@needs_cuda
def test_sum_a_torch_cuda_tensor_without_a_copy():
    x = torch.randn(1000, 1000, device="cuda")
    t = tt.from_dlpack(x)
    assert t.device == tt.device("cuda", x.device.index or 0) and t.data_ptr() == x.data_ptr()
    s = t.sum(dim=1)
    y = torch.from_dlpack(s)
    assert y.device == x.device and y.data_ptr() == s.data_ptr()
    torch.testing.assert_close(y, x.sum(dim=1), rtol=1e-4, atol=1e-3)
    torch.testing.assert_close(torch.from_dlpack(tt.var(t, 0, correction=0)), x.var(0, correction=0),
                               rtol=1e-4, atol=1e-5)
    assert repr(tt.from_dlpack(x[:2, :3])) == repr(x[:2, :3])


@needs_cuda
def test_cuda_streams_are_honoured():
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        x = torch.full((1 << 22,), 2.0, device="cuda")
        x.mul_(3)  # queued on the side stream; the export must make ours wait for it
        t = tt.from_dlpack(x)
        total = t.sum().item()
    assert total == 6.0 * (1 << 22)
    # Our result read on torch's side stream: the export makes that stream wait for our work.
    s = t * 2
    with torch.cuda.stream(side):
        y = torch.from_dlpack(s)
        assert y[0].item() == 12.0
    side.synchronize()


@needs_cuda
def test_cuda_lifetimes():
    x = torch.arange(1 << 20, device="cuda", dtype=torch.float32)
    t = tt.from_dlpack(x)
    del x
    gc.collect()
    torch.cuda.empty_cache()
    assert t[-1].item() == float((1 << 20) - 1)
    u = tt.arange(1 << 20, dtype=tt.float32, device="cuda")
    y = torch.from_dlpack(u)
    del u
    gc.collect()
    tt.cuda.empty_cache()
    assert y[-1].item() == float((1 << 20) - 1)


@needs_cuda
def test_cupy_round_trip():
    cupy = pytest.importorskip("cupy")
    a = cupy.arange(24, dtype=cupy.float32).reshape(4, 6)
    t = tt.from_dlpack(a)
    assert t.data_ptr() == a.data.ptr
    b = cupy.from_dlpack(t.sum(0))
    cupy.testing.assert_allclose(b, a.sum(0))
