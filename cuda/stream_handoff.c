/* Handing memory to another library's CUDA stream (the DLPack stream protocol), and the wait
 * before foreign memory goes back to its owner. Plain C over the CUDA runtime API. */
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cuda/cuda_backend.h"
#include "cuda/device_internal.h"
#include "runtime/device.h"
#include "runtime/error.h"

/* The consumer's value as a stream handle. 0 and 1 both mean the legacy default stream: ours
 * is NULL for it, theirs may say cudaStreamLegacy; comparing the explicit handle keeps the
 * "same stream" test exact even when a unit is compiled with per-thread default streams. */
static cudaStream_t consumer_handle(intptr_t v) {
    if (v == 0 || v == 1) return cudaStreamLegacy;
    if (v == 2) return cudaStreamPerThread;
    return (cudaStream_t)v;
}

tensor_status tt_cuda_stream_handoff(int device, intptr_t consumer, const char *func) {
    if (tensor_device_check(tensor_cuda(device), func) != TENSOR_OK) return TENSOR_ERR_DEVICE;
    cudaStream_t ours = tensor_cuda_stream_of(device);
    if (ours == NULL) ours = cudaStreamLegacy;
    cudaStream_t theirs = consumer_handle(consumer);
    if (ours == theirs) return TENSOR_OK;
    int saved = -1;
    if (tensor_cuda_device_enter(device, &saved, func) != TENSOR_OK) return tensor_last_status();
    /* An event rather than a synchronize: the consumer's stream waits on the device and the
     * host goes on. Destroying it right after the wait is allowed: the wait keeps what it needs. */
    cudaEvent_t ev = NULL;
    cudaError_t err = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (err == cudaSuccess) err = cudaEventRecord(ev, ours);
    if (err == cudaSuccess) err = cudaStreamWaitEvent(theirs, ev, 0);
    if (ev != NULL) {
        cudaError_t derr = cudaEventDestroy(ev);
        if (err == cudaSuccess) err = derr;
    }
    tensor_status st = tensor_cuda_error(err, func);
    tensor_cuda_device_restore(saved);
    return st;
}

void tt_cuda_device_sync_quiet(int device) {
    if (device < 0 || device >= tensor_cuda_device_count()) return;
    /* By hand rather than tensor_cuda_device_enter: a release must not overwrite the caller's
     * last error. */
    int cur = -1;
    if (cudaGetDevice(&cur) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    if (cur != device && cudaSetDevice(device) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    if (cudaDeviceSynchronize() != cudaSuccess) (void)cudaGetLastError();
    if (cur != device) (void)cudaSetDevice(cur);
}
