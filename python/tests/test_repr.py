"""repr(t) is PyTorch's print(t): each expected string below is what PyTorch 2.x prints for the
same tensor (the PyTorch expression is in the comment)."""
import math

import pytest

import tinytensor as tt

CASES = [
    # torch.tensor([[1., 2.], [3., 4.]])
    (lambda: tt.tensor([[1.0, 2.0], [3.0, 4.0]]), "tensor([[1., 2.],\n        [3., 4.]])"),
    # torch.tensor([1, 2, 3])
    (lambda: tt.tensor([1, 2, 3]), "tensor([1, 2, 3])"),
    # torch.tensor([1, 2, 3], dtype=torch.int32)
    (lambda: tt.tensor([1, 2, 3], dtype=tt.int32), "tensor([1, 2, 3], dtype=torch.int32)"),
    # torch.tensor([1, 2], dtype=torch.uint8)
    (lambda: tt.tensor([1, 2], dtype=tt.uint8), "tensor([1, 2], dtype=torch.uint8)"),
    # torch.tensor(3.5)
    (lambda: tt.tensor(3.5), "tensor(3.5000)"),
    # torch.tensor(5)
    (lambda: tt.tensor(5), "tensor(5)"),
    # torch.tensor(True)
    (lambda: tt.tensor(True), "tensor(True)"),
    # torch.tensor([True, False])
    (lambda: tt.tensor([True, False]), "tensor([ True, False])"),
    # torch.tensor([0.1, 2.0])
    (lambda: tt.tensor([0.1, 2.0]), "tensor([0.1000, 2.0000])"),
    # torch.tensor([-1.])
    (lambda: tt.tensor([-1.0]), "tensor([-1.])"),
    # torch.zeros(0)
    (lambda: tt.zeros(0), "tensor([])"),
    # torch.zeros(0, dtype=torch.int32)
    (lambda: tt.zeros(0, dtype=tt.int32), "tensor([], dtype=torch.int32)"),
    # torch.zeros(2, 0)
    (lambda: tt.zeros(2, 0), "tensor([], size=(2, 0))"),
    # torch.tensor([1e10, 1.])
    (lambda: tt.tensor([1e10, 1.0]), "tensor([1.0000e+10, 1.0000e+00])"),
    # torch.tensor([100., 0.001])
    (lambda: tt.tensor([100.0, 0.001]), "tensor([1.0000e+02, 1.0000e-03])"),
    # torch.tensor([1., 2.], dtype=torch.float64)
    (lambda: tt.tensor([1.0, 2.0], dtype=tt.float64), "tensor([1., 2.], dtype=torch.float64)"),
    # torch.tensor([1.5, -2.25], dtype=torch.float16)
    (lambda: tt.tensor([1.5, -2.25], dtype=tt.float16), "tensor([ 1.5000, -2.2500], dtype=torch.float16)"),
    # torch.tensor([1.5], dtype=torch.bfloat16)
    (lambda: tt.tensor([1.5], dtype=tt.bfloat16), "tensor([1.5000], dtype=torch.bfloat16)"),
    # torch.tensor([float('nan'), float('inf'), 1.])
    (lambda: tt.tensor([math.nan, math.inf, 1.0]), "tensor([nan, inf, 1.])"),
    # torch.arange(8).reshape(2, 2, 2)
    (lambda: tt.arange(8).reshape(2, 2, 2), "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])"),
    # torch.arange(1001)
    (lambda: tt.arange(1001), "tensor([   0,    1,    2,  ...,  998,  999, 1000])"),
    # torch.arange(6.).reshape(2, 3).T
    (lambda: tt.arange(6.0).reshape(2, 3).T, "tensor([[0., 3.],\n        [1., 4.],\n        [2., 5.]])"),
]


@pytest.mark.parametrize("make,expected", CASES)
def test_repr_is_pytorchs(make, expected):
    t = make()
    assert repr(t) == expected
    assert str(t) == expected


def test_repr_of_a_view_of_imported_memory():
    np = pytest.importorskip("numpy")
    a = np.arange(12, dtype="float32").reshape(3, 4)
    # torch.from_numpy(a)[:, 1::2]
    assert repr(tt.from_dlpack(a)[:, 1::2]) == "tensor([[ 1.,  3.],\n        [ 5.,  7.],\n        [ 9., 11.]])"


def test_reprs_of_the_value_types():
    assert repr(tt.float32) == "tinytensor.float32"
    assert repr(tt.device("cuda:1")) == "device(type='cuda', index=1)"
    assert repr(tt.device("cpu")) == "device(type='cpu')"
    assert str(tt.device("cuda", 0)) == "cuda:0"
    assert repr(tt.zeros(2, 3).shape) == "tinytensor.Size([2, 3])"
