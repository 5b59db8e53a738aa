/* Internal: what runtime/ asks of the CUDA side (memory and copies). Implemented by cuda/ C files
 * when the library is built with CUDA, and by runtime/no_cuda.c (errors, count 0) otherwise.
 * Plain C: the CUDA runtime API is a C API, so no C++ is needed here. */
#ifndef TENSOR_CUDA_BACKEND_H
#define TENSOR_CUDA_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/device.h"
#include "runtime/status.h"
#include "runtime/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Allocates nbytes on CUDA device `index` through the caching allocator (current stream of
 * that device). *ptr gets the device address, *handle the block to give back. nbytes 0 gives a
 * NULL ptr and a NULL handle. Errors name func. */
tensor_status tensor_cuda_alloc(int index, size_t nbytes, void **ptr, void **handle, const char *func);
/* Returns a block to the cache (never cudaFree on this path). NULL is a no-op. */
void tensor_cuda_free(void *handle);
/* cudaMemcpy in any direction; kinds inferred from the devices. Errors name func. */
tensor_status tensor_cuda_memcpy(void *dst, tensor_device dst_device, const void *src, tensor_device src_device,
                                 size_t nbytes, const char *func);
/* dst[...] = src[...] converted to dst's dtype (runtime/copy.c's rules), for two tensors of the
 * same shape on the same CUDA device, any strides (src may be expanded), on the device's current
 * stream (asynchronous). Both borrowed. The elementwise engine does it (cuda/copy.cu). */
tensor_status tensor_cuda_copy(tensor_t *dst, const tensor_t *src, const char *func);

/* Orders `consumer` (a stream value of interop/dlpack.h: 0 or 1 legacy default, 2 per-thread
 * default, else a cudaStream_t; -1 is the caller's "do nothing" and never reaches here) after
 * the work queued so far on our current stream of CUDA device `device`: an event recorded on
 * ours, waited for on theirs; nothing when the two are the same stream. The host does not
 * block. Errors (TENSOR_ERR_CUDA, TENSOR_ERR_DEVICE) name func. */
tensor_status tt_cuda_stream_handoff(int device, intptr_t consumer, const char *func);
/* Waits for every stream of CUDA device `device` (release paths: errors are swallowed, there
 * is no caller to tell). A no-op without CUDA. */
void tt_cuda_device_sync_quiet(int device);

#ifdef __cplusplus
}
#endif
#endif
