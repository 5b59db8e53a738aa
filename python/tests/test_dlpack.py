"""DLPack in Python: zero-copy both ways with numpy, the capsule protocol (names, versions,
flags, consumption), and lifetimes: the owner released first, then the view, on both sides;
a producer's deleter called exactly once, observed through a producer written here."""
import ctypes
import gc
import weakref

import pytest

np = pytest.importorskip("numpy")
import tinytensor as tt  # noqa: E402
from tinytensor._dlpack import make_capsule  # noqa: E402
from tinytensor._ffi import ffi, lib  # noqa: E402

NUMPY_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def collect():
    for _ in range(3):
        gc.collect()


def capsule_name(capsule):
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    return get_name(capsule).decode()


def capsule_struct(capsule, ctype):
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return ffi.cast(ctype, get_pointer(capsule, capsule_name(capsule).encode()))


class Producer:
    """A DLPack producer written in Python: float64 memory owned here, exported as a capsule
    whose deleter counts its calls. versioned=False behaves as a producer older than DLPack 1.0
    (no max_version keyword, a legacy DLManagedTensor)."""

    def __init__(self, values, versioned=True, flags=0, dtype=(lib.kDLFloat, 64), strides=None, major=1):
        self.values = list(values)
        self.versioned = versioned
        self.flags, self.dtype, self.major = flags, dtype, major
        self.deleted = 0
        self.exported = 0
        self.buffer = ffi.new("double[]", self.values)
        self.shape = ffi.new("int64_t[]", [len(self.values)])
        self.strides = ffi.new("int64_t[]", strides) if strides else ffi.NULL
        self.structs = []  # keeps every struct's memory alive, as a real producer's manager_ctx
        ctype = "DLManagedTensorVersioned *" if versioned else "DLManagedTensor *"
        self._deleter = ffi.callback("void(%s)" % ctype, self._on_delete)

    def _on_delete(self, managed):
        self.deleted += 1

    def _fill(self, dl):
        dl.data = self.buffer
        dl.device.device_type = lib.kDLCPU
        dl.device.device_id = 0
        dl.ndim = 1
        dl.dtype.code, dl.dtype.bits = self.dtype
        dl.dtype.lanes = 1
        dl.shape = self.shape
        dl.strides = self.strides
        dl.byte_offset = 0

    def __dlpack_device__(self):
        return (lib.kDLCPU, 0)

    def __dlpack__(self, stream=None, **kwargs):
        if not self.versioned:
            if kwargs:
                raise TypeError("__dlpack__() got an unexpected keyword argument")
            m = ffi.new("DLManagedTensor *")
        else:
            m = ffi.new("DLManagedTensorVersioned *")
            m.version.major, m.version.minor = self.major, 1
            m.flags = self.flags
        m.deleter = self._deleter
        self._fill(m.dl_tensor)
        self.structs.append(m)
        self.exported += 1
        return make_capsule(m, self.versioned)


# ---- zero-copy -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_numpy_round_trip_every_dtype_without_copy(dtype):
    a = (np.arange(24) % 7 - 3).astype(dtype).reshape(2, 3, 4)
    t = tt.from_dlpack(a)
    assert t.dtype.name == dtype and t.shape == (2, 3, 4) and t.device == "cpu"
    assert t.data_ptr() == a.ctypes.data
    b = np.from_dlpack(t)
    assert b.dtype == a.dtype and np.shares_memory(a, b)
    np.testing.assert_array_equal(b, a)
    c = t.numpy()
    assert np.shares_memory(a, c)


def test_writes_are_seen_on_both_sides():
    a = np.zeros(4, dtype="float32")
    t = tt.from_dlpack(a)
    t.fill_(2.5)
    assert a.tolist() == [2.5] * 4
    a[1] = -1
    assert t.tolist() == [2.5, -1.0, 2.5, 2.5]
    b = np.from_dlpack(tt.ones(3))
    b[0] = 7
    assert b.flags.writeable


@pytest.mark.parametrize("make", [
    lambda a: a.T, lambda a: a[1:, ::2], lambda a: a[:, 1], lambda a: a[None, :, None], lambda a: a[1, 2, ...],
    lambda a: a[:0], lambda a: np.broadcast_to(a[:1], (5, 6)),
], ids=["transpose", "slice", "select", "unsqueeze", "0-d", "empty", "expanded"])
def test_strided_views_from_numpy(make):
    base = np.arange(30, dtype="float64").reshape(5, 6)
    view = make(base)
    t = tt.from_dlpack(view)
    assert t.shape == view.shape
    assert t.stride() == tuple(s // 8 for s in view.strides) or view.size <= 1
    np.testing.assert_array_equal(t.numpy(), view)
    assert t.sum().item() == pytest.approx(float(view.sum()))


def test_views_of_ours_go_to_numpy_with_their_strides():
    t = tt.arange(24, dtype=tt.float32).reshape(2, 3, 4)
    base = np.from_dlpack(t)
    for view, expected in ((t.transpose(0, 2), base.transpose(2, 1, 0)), (t[:, 1:, ::2], base[:, 1:, ::2]),
                           (t[1], base[1]), (t[0, 0, 0], base[0, 0, 0]), (t[:, :0], base[:, :0]),
                           (t[:, :1].expand(2, 5, 4), np.broadcast_to(base[:, :1], (2, 5, 4)))):
        a = np.from_dlpack(view)
        assert a.shape == expected.shape
        np.testing.assert_array_equal(a, expected)
        if a.size > 1:
            assert a.strides == expected.strides
            assert np.shares_memory(a, base)


# ---- lifetimes --------------------------------------------------------------------------------
def test_numpy_owner_released_first():
    a = np.arange(1000, dtype="float64")
    alive = weakref.ref(a)
    t = tt.from_dlpack(a)
    view = t[500:]
    del a
    collect()
    assert alive() is not None  # held by the DLPack struct until our storage goes
    del t
    collect()
    assert view.sum().item() == sum(range(500, 1000))
    assert alive() is not None
    del view
    collect()
    assert alive() is None  # numpy's deleter ran when our last view went


def test_tinytensor_owner_released_first():
    t = tt.arange(1000, dtype=tt.int64)
    a = np.from_dlpack(t)
    v = np.from_dlpack(t[10:20])
    del t
    collect()
    # Fresh allocations of the same size would reuse freed memory: the arrays must not see them.
    junk = [tt.full((1000,), -1, dtype=tt.int64) for _ in range(8)]
    assert a.sum() == sum(range(1000))
    assert v.tolist() == list(range(10, 20))
    del junk


def test_producer_deleter_runs_once_after_the_last_view():
    p = Producer([1.0, 2.0, 3.0, 4.0])
    t = tt.from_dlpack(p)
    assert p.exported == 1 and p.deleted == 0
    assert t.data_ptr() == int(ffi.cast("uintptr_t", p.buffer))
    v = t[1:]
    w = t.reshape(2, 2).T
    del t
    collect()
    assert p.deleted == 0
    assert v.tolist() == [2.0, 3.0, 4.0]
    del v
    collect()
    assert p.deleted == 0 and w.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    del w
    collect()
    assert p.deleted == 1


def test_unconsumed_capsule_calls_the_deleter_once():
    p = Producer([1.0])
    cap = p.__dlpack__(max_version=(1, 1))
    assert capsule_name(cap) == "dltensor_versioned"
    del cap
    collect()
    assert p.deleted == 1


def test_consumed_capsule_leaves_the_deleter_to_the_consumer():
    p = Producer([1.0, 2.0])
    cap = p.__dlpack__(max_version=(1, 1))
    t = tt.from_dlpack(cap)
    assert capsule_name(cap) == "used_dltensor_versioned"
    with pytest.raises(ValueError, match="already been consumed"):
        tt.from_dlpack(cap)
    del cap
    collect()
    assert p.deleted == 0 and t.tolist() == [1.0, 2.0]
    del t
    collect()
    assert p.deleted == 1


def test_legacy_producer_without_max_version():
    p = Producer([5.0, 6.0], versioned=False)
    t = tt.from_dlpack(p)  # asked with max_version, refused with TypeError, asked again without
    assert t.tolist() == [5.0, 6.0] and p.exported == 1
    del t
    collect()
    assert p.deleted == 1


def test_through_tinytensor_to_numpy_and_back_the_deleter_runs_once():
    p = Producer([1.0, 2.0, 3.0])
    t = tt.from_dlpack(p)
    a = np.from_dlpack(t)  # our export holds the storage: the producer's memory must stay
    back = tt.from_dlpack(a)  # our own export coming back (through numpy)
    del t
    collect()
    assert p.deleted == 0
    assert a.tolist() == [1.0, 2.0, 3.0] and back.tolist() == [1.0, 2.0, 3.0]
    assert np.shares_memory(a, np.from_dlpack(back))
    del a
    collect()
    assert p.deleted == 0
    del back
    collect()
    assert p.deleted == 1


@pytest.mark.parametrize("max_version", [None, (1, 0), (1, 1)])
def test_our_unconsumed_export_releases_the_storage(max_version):
    p = Producer([1.0, 2.0])
    t = tt.from_dlpack(p)
    cap = t.__dlpack__(max_version=max_version)
    assert capsule_name(cap) == ("dltensor" if max_version is None else "dltensor_versioned")
    del t
    collect()
    assert p.deleted == 0
    del cap
    collect()
    assert p.deleted == 1


@pytest.mark.parametrize("kwargs,error", [
    (dict(dtype=(lib.kDLUInt, 16)), TypeError),
    (dict(strides=[-1]), ValueError),
    (dict(major=2), NotImplementedError),
], ids=["dtype", "negative-stride", "major-version"])
def test_refused_imports_still_run_the_deleter(kwargs, error):
    p = Producer([1.0, 2.0], **kwargs)
    with pytest.raises(error) as info:
        tt.from_dlpack(p)
    assert isinstance(info.value, tt.TensorError) and "tensor_from_dlpack" in str(info.value)
    assert p.deleted == 1


@pytest.mark.parametrize("make,error", [(lambda: np.arange(4, dtype="uint16"), TypeError),
                                        (lambda: np.arange(4.0)[::-1], ValueError)], ids=["uint16", "reversed"])
def test_refused_numpy_arrays_are_released(make, error):
    a = make()
    alive = weakref.ref(a)
    with pytest.raises(error):
        tt.from_dlpack(a)
    del a
    collect()
    assert alive() is None  # numpy's deleter ran although the import failed


def test_tensor_copies_what_from_dlpack_cannot_view():
    assert tt.tensor(np.arange(4.0)[::-1]).tolist() == [3.0, 2.0, 1.0, 0.0]


# ---- the protocol -------------------------------------------------------------------------------
def test_dlpack_device_and_versions():
    t = tt.arange(4, dtype=tt.float32)
    assert t.__dlpack_device__() == (1, 0)
    cap = t.__dlpack__(max_version=(1, 0))
    m = capsule_struct(cap, "DLManagedTensorVersioned *")
    assert (m.version.major, m.version.minor) == (1, 0)
    assert m.flags == 0 and m.dl_tensor.ndim == 1 and m.dl_tensor.shape[0] == 4
    cap = t.__dlpack__(max_version=(1, 5))
    m = capsule_struct(cap, "DLManagedTensorVersioned *")
    assert (m.version.major, m.version.minor) == (1, 1)
    assert capsule_name(t.__dlpack__(max_version=(0, 8))) == "dltensor"
    f8 = tt.zeros(2, dtype=tt.float8_e4m3fn)
    assert capsule_name(f8.__dlpack__(max_version=(1, 1))) == "dltensor_versioned"
    with pytest.raises(BufferError):
        f8.__dlpack__(max_version=(1, 0))  # float8 codes are new in DLPack 1.1


def test_dlpack_copy_and_device_arguments():
    t = tt.arange(4, dtype=tt.float32)
    m = capsule_struct(t.__dlpack__(max_version=(1, 1), copy=True), "DLManagedTensorVersioned *")
    assert m.flags & lib.DLPACK_FLAG_BITMASK_IS_COPIED
    assert int(ffi.cast("uintptr_t", m.dl_tensor.data)) != t.data_ptr()
    m = capsule_struct(t.__dlpack__(max_version=(1, 1), dl_device=(1, 0), copy=False),
                       "DLManagedTensorVersioned *")
    assert int(ffi.cast("uintptr_t", m.dl_tensor.data)) == t.data_ptr()
    with pytest.raises(BufferError):
        t.__dlpack__(max_version=(1, 1), dl_device=(2, 0), copy=False)
    with pytest.raises(BufferError):
        t.__dlpack__(max_version=(1, 1), dl_device=(14, 0))
    with pytest.raises(BufferError):
        t.__dlpack__(stream=1)  # a CPU tensor takes no stream


def test_numpy_copy_keyword():
    t = tt.arange(3, dtype=tt.float64)
    try:
        a = np.from_dlpack(t, copy=True)
    except TypeError:
        pytest.skip("numpy %s has no copy= in from_dlpack" % np.__version__)
    assert not np.shares_memory(a, np.from_dlpack(t))
    assert a.tolist() == [0.0, 1.0, 2.0]


def test_read_only_memory_stays_read_only():
    a = np.arange(4.0)
    a.flags.writeable = False
    t = tt.from_dlpack(a)
    assert t.is_readonly
    with pytest.raises(ValueError, match="read-only"):
        t.add_(1)
    with pytest.raises(ValueError, match="read-only"):
        t[0] = 5
    assert t[1:].is_readonly  # views inherit it
    assert not (t + 1).is_readonly  # results are new memory
    assert not t.numpy().flags.writeable  # exported with the read-only flag
    with pytest.raises(BufferError):
        t.__dlpack__()  # a legacy capsule cannot carry the flag
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]
    p = Producer([1.0], flags=lib.DLPACK_FLAG_BITMASK_READ_ONLY)
    assert tt.from_dlpack(p).is_readonly


def test_numpy_of_dtypes_numpy_lacks():
    with pytest.raises(TypeError, match="bfloat16"):
        tt.zeros(2, dtype=tt.bfloat16).numpy()
    assert tt.zeros(2, dtype=tt.bfloat16).float().numpy().dtype == np.float32


def test_from_dlpack_refuses_other_objects():
    with pytest.raises(TypeError):
        tt.from_dlpack([1, 2, 3])
    t = tt.ones(2)
    assert tt.from_dlpack(t) is t
