/* Internal helpers shared by the cuda/ sources: CUDA errors as tinytensor errors, and a scoped
 * switch of the current device. Needs the CUDA runtime headers (CUDA builds only). */
#ifndef TENSOR_CUDA_DEVICE_INTERNAL_H
#define TENSOR_CUDA_DEVICE_INTERNAL_H

#include <cuda_runtime_api.h>

#include "runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* TENSOR_OK for cudaSuccess. Otherwise records "func: CUDA error <name>: <string>" and returns
 * TENSOR_ERR_OUT_OF_MEMORY for cudaErrorMemoryAllocation, TENSOR_ERR_CUDA for the rest. It also
 * clears the runtime's last error, so a later launch check does not see this one again (sticky
 * errors stay: the context is unusable after them). */
tensor_status tensor_cuda_error(cudaError_t err, const char *func);

/* Makes `device` current and remembers the previous one in *saved; undo with
 * tensor_cuda_device_restore. The library switches devices only around its own calls so the
 * caller's current device is left as it was. */
tensor_status tensor_cuda_device_enter(int device, int *saved, const char *func);
void tensor_cuda_device_restore(int saved);

/* The calling thread's current stream of `device` as a cudaStream_t (NULL: the legacy default
 * stream). */
cudaStream_t tensor_cuda_stream_of(int device);

/* cudaMalloc / cudaFree with the calling thread's stream-capture mode relaxed for the call, so
 * that library scratch (a semaphore buffer, a cache segment) can be made while the caller
 * captures a stream into a graph, without ending the capture; nothing is recorded. */
cudaError_t tensor_cuda_malloc_uncaptured(void **ptr, size_t nbytes);
/* The same for any stretch of calls that touch no user stream: relax returns the thread's mode
 * to hand back to restore. */
enum cudaStreamCaptureMode tensor_cuda_capture_relax(void);
void tensor_cuda_capture_restore(enum cudaStreamCaptureMode mode);
cudaError_t tensor_cuda_free_uncaptured(void *ptr);

#ifdef __cplusplus
}
#endif
#endif
