/* Internal: the process-wide CUDA caching allocator, one runtime/block_cache.h cache over
 * cudaMalloc/cudaFree for all devices. tensor_cuda_alloc/tensor_cuda_free (cuda_backend.h) are
 * its entry points for storages; this header is for other cuda/ code (scratch buffers of
 * kernels, for example) that wants the same cache. CUDA builds only. */
#ifndef TENSOR_CUDA_CACHING_ALLOCATOR_H
#define TENSOR_CUDA_CACHING_ALLOCATOR_H

#include "runtime/block_cache.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The cache, created at the first call for every device tensor_cuda_device_count() reports;
 * NULL with the error recorded (naming func) when host memory for it ran out. It lives until
 * the process ends and is never torn down, so a storage released during exit only does
 * bookkeeping and never calls into a CUDA runtime that may already be gone. */
tensor_block_cache *tensor_cuda_block_cache(const char *func);

#ifdef __cplusplus
}
#endif
#endif
