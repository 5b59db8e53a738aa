"""CUDA helpers: whether the library was built with CUDA and sees a GPU, and the device-wide
operations of the C API."""
from ._lib import check, ffi, lib


def is_built() -> bool:
    """True when the library was compiled with the CUDA backend (GPU or not)."""
    return bool(lib.tensor_cuda_is_built())


def device_count() -> int:
    """Usable CUDA devices: 0 without CUDA support, a driver or a GPU."""
    return int(lib.tensor_cuda_device_count())


def is_available() -> bool:
    return device_count() > 0


def synchronize() -> None:
    """Waits for the work queued on the current device."""
    check(lib.tensor_cuda_synchronize())


def empty_cache() -> None:
    """Returns the caching allocator's unused blocks to the driver."""
    check(lib.tensor_cuda_empty_cache())


def current_stream(device: int = 0) -> int:
    """The calling thread's current stream of `device` as an int (0: the legacy default
    stream), the value the library queues its work on."""
    return int(ffi.cast("intptr_t", lib.tensor_cuda_get_stream(device)))


def set_stream(stream: int, device: int = 0) -> None:
    """Makes the cudaStream_t `stream` (an int, such as torch.cuda.current_stream().cuda_stream;
    0 for the legacy default stream) the calling thread's current stream of `device`. The
    library borrows it: keep it alive while tinytensor work may run on it."""
    check(lib.tensor_cuda_set_stream(device, ffi.cast("void *", stream)))
