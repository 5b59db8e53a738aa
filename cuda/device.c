/* CUDA devices, streams and copies through the CUDA runtime's C API (plain C, linked to cudart). */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/cuda_backend.h"
#include "cuda/device_internal.h"
#include "runtime/device.h"
#include "runtime/error.h"

tensor_status tensor_cuda_error(cudaError_t err, const char *func) {
    if (err == cudaSuccess) return TENSOR_OK;
    (void)cudaGetLastError();
    tensor_status st = err == cudaErrorMemoryAllocation ? TENSOR_ERR_OUT_OF_MEMORY : TENSOR_ERR_CUDA;
    return tensor_error(st, "%s: CUDA error %s: %s", func, cudaGetErrorName(err), cudaGetErrorString(err));
}

/* ---- device count and per-device state, fixed at the first call ----
 * The set of visible devices cannot change while a process runs (CUDA_VISIBLE_DEVICES is read
 * once), so the count is asked once: tensor_device_check calls it for every allocation. */
static pthread_once_t devices_once = PTHREAD_ONCE_INIT;
static int device_count;

/* The current stream of each device, per thread (as PyTorch's is): a thread that never set one
 * uses the legacy default stream. Devices beyond the table cannot have one set. */
#define STREAM_MAX_DEVICES 64
static _Thread_local cudaStream_t thread_streams[STREAM_MAX_DEVICES];

static void devices_init(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        /* No driver, no GPU, or a driver older than the runtime: all mean "no CUDA device". */
        (void)cudaGetLastError();
        n = 0;
    }
    device_count = n;
}

int tensor_cuda_device_count(void) {
    pthread_once(&devices_once, devices_init);
    return device_count;
}

bool tensor_cuda_is_built(void) { return true; }

static tensor_status check_index(int device, const char *func) {
    int n = tensor_cuda_device_count();
    if (device < 0 || device >= n)
        return tensor_error(TENSOR_ERR_DEVICE, "%s: device cuda:%d is not available (%d CUDA device%s)", func, device,
                            n, n == 1 ? "" : "s");
    return TENSOR_OK;
}

tensor_status tensor_cuda_device_enter(int device, int *saved, const char *func) {
    *saved = -1; /* "nothing to restore" on every failure path */
    int cur = -1;
    cudaError_t err = cudaGetDevice(&cur);
    if (err != cudaSuccess) return tensor_cuda_error(err, func);
    *saved = cur;
    if (cur != device) {
        err = cudaSetDevice(device);
        if (err != cudaSuccess) return tensor_cuda_error(err, func);
    }
    return TENSOR_OK;
}

void tensor_cuda_device_restore(int saved) {
    int cur = -1;
    if (saved >= 0 && cudaGetDevice(&cur) == cudaSuccess && cur != saved) (void)cudaSetDevice(saved);
}

/* ---- streams ---- */

static tensor_status check_stream_index(int device, const char *func) {
    if (check_index(device, func) != TENSOR_OK) return TENSOR_ERR_DEVICE;
    if (device >= STREAM_MAX_DEVICES)
        return tensor_error(TENSOR_ERR_DEVICE, "%s: device cuda:%d is beyond the %d devices that can have a current "
                            "stream", func, device, STREAM_MAX_DEVICES);
    return TENSOR_OK;
}

tensor_status tensor_cuda_set_stream(int device, void *stream) {
    const char *func = "tensor_cuda_set_stream";
    if (check_stream_index(device, func) != TENSOR_OK) return TENSOR_ERR_DEVICE;
    thread_streams[device] = (cudaStream_t)stream;
    return TENSOR_OK;
}

tensor_status tensor_cuda_exchange_stream(int device, void *stream, void **previous) {
    const char *func = "tensor_cuda_exchange_stream";
    TENSOR_CHECK_NOT_NULL(previous, func, "previous");
    *previous = NULL;
    if (check_stream_index(device, func) != TENSOR_OK) return TENSOR_ERR_DEVICE;
    *previous = (void *)thread_streams[device];
    thread_streams[device] = (cudaStream_t)stream;
    return TENSOR_OK;
}

void *tensor_cuda_get_stream(int device) {
    int n = tensor_cuda_device_count();
    if (device < 0 || device >= n || device >= STREAM_MAX_DEVICES) return NULL;
    return (void *)thread_streams[device];
}

cudaStream_t tensor_cuda_stream_of(int device) { return (cudaStream_t)tensor_cuda_get_stream(device); }

/* One edge between two streams of a device: `waiter` waits for the work queued on `waited` so
 * far. An event per call (destroying it after the wait is queued is allowed: the wait keeps
 * what it needs), created without timing, which is the cheap kind and the one a capture
 * accepts. */
static tensor_status stream_edge(int device, cudaStream_t waiter, cudaStream_t waited, const char *func) {
    if (check_stream_index(device, func) != TENSOR_OK) return TENSOR_ERR_DEVICE;
    if (waiter == waited) return TENSOR_OK;
    int saved = -1;
    tensor_status st = tensor_cuda_device_enter(device, &saved, func);
    cudaEvent_t ev = NULL;
    if (st == TENSOR_OK) st = tensor_cuda_error(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), func);
    if (st == TENSOR_OK) st = tensor_cuda_error(cudaEventRecord(ev, waited), func);
    if (st == TENSOR_OK) st = tensor_cuda_error(cudaStreamWaitEvent(waiter, ev, 0), func);
    if (ev != NULL) (void)cudaEventDestroy(ev);
    tensor_cuda_device_restore(saved);
    return st;
}

tensor_status tensor_cuda_wait_stream(int device, void *stream) {
    return stream_edge(device, tensor_cuda_stream_of(device), (cudaStream_t)stream, "tensor_cuda_wait_stream");
}

tensor_status tensor_cuda_stream_wait_ours(int device, void *stream) {
    return stream_edge(device, (cudaStream_t)stream, tensor_cuda_stream_of(device), "tensor_cuda_stream_wait_ours");
}

enum cudaStreamCaptureMode tensor_cuda_capture_relax(void) {
    enum cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    if (cudaThreadExchangeStreamCaptureMode(&mode) != cudaSuccess) {
        (void)cudaGetLastError();
        return cudaStreamCaptureModeRelaxed; /* nothing changed: nothing to restore */
    }
    return mode;
}

void tensor_cuda_capture_restore(enum cudaStreamCaptureMode mode) {
    (void)cudaThreadExchangeStreamCaptureMode(&mode);
}

cudaError_t tensor_cuda_malloc_uncaptured(void **ptr, size_t nbytes) {
    const enum cudaStreamCaptureMode mode = tensor_cuda_capture_relax();
    const cudaError_t err = cudaMalloc(ptr, nbytes);
    tensor_cuda_capture_restore(mode);
    return err;
}

cudaError_t tensor_cuda_free_uncaptured(void *ptr) {
    const enum cudaStreamCaptureMode mode = tensor_cuda_capture_relax();
    const cudaError_t err = cudaFree(ptr);
    tensor_cuda_capture_restore(mode);
    return err;
}

tensor_status tensor_cuda_synchronize(void) {
    if (tensor_cuda_device_count() == 0) return TENSOR_OK;
    return tensor_cuda_error(cudaDeviceSynchronize(), "tensor_cuda_synchronize");
}

/* ---- copies ---- */

tensor_status tensor_cuda_memcpy(void *dst, tensor_device dst_device, const void *src, tensor_device src_device,
                                 size_t nbytes, const char *func) {
    if (nbytes == 0) return TENSOR_OK;
    bool dst_cuda = dst_device.type == TENSOR_DEVICE_CUDA, src_cuda = src_device.type == TENSOR_DEVICE_CUDA;
    if (!dst_cuda && !src_cuda) {
        memmove(dst, src, nbytes);
        return TENSOR_OK;
    }
    if (dst == NULL || src == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: NULL address in a copy of %zu bytes", func, nbytes);
    if (dst_cuda && check_index(dst_device.index, func) != TENSOR_OK) return TENSOR_ERR_DEVICE;
    if (src_cuda && check_index(src_device.index, func) != TENSOR_OK) return TENSOR_ERR_DEVICE;

    if (dst_cuda && src_cuda && dst_device.index != src_device.index) {
        /* Ordered after all work queued on both devices (legacy-stream semantics); goes
         * through the host when the devices cannot reach each other. */
        return tensor_cuda_error(cudaMemcpyPeer(dst, dst_device.index, src, src_device.index, nbytes), func);
    }

    int device = dst_cuda ? dst_device.index : src_device.index;
    enum cudaMemcpyKind kind = dst_cuda && src_cuda ? cudaMemcpyDeviceToDevice
                               : dst_cuda           ? cudaMemcpyHostToDevice
                                                    : cudaMemcpyDeviceToHost;
    int saved = -1;
    if (tensor_cuda_device_enter(device, &saved, func) != TENSOR_OK) return tensor_last_status();
    /* On the device's current stream, so the copy is ordered after the kernels that wrote the
     * source. A copy that touches host memory waits: the caller may read or free its buffer
     * as soon as we return, and the host memory is pageable. */
    cudaStream_t stream = tensor_cuda_stream_of(device);
    cudaError_t err = cudaMemcpyAsync(dst, src, nbytes, kind, stream);
    if (err == cudaSuccess && kind != cudaMemcpyDeviceToDevice) err = cudaStreamSynchronize(stream);
    tensor_status st = tensor_cuda_error(err, func);
    tensor_cuda_device_restore(saved);
    return st;
}
