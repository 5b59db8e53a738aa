/* The CUDA caching allocator: runtime/block_cache.c's bookkeeping over cudaMalloc/cudaFree,
 * plus the public statistics and empty_cache of runtime/device.h. A user's device allocator
 * (tensor_set_device_allocator) replaces cudaMalloc and the cache for new memory; its blocks
 * are kept in the same books. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>

#include <cuda_runtime_api.h>

#include "cuda/caching_allocator.h"
#include "cuda/cuda_backend.h"
#include "cuda/device_internal.h"
#include "cuda/reduce_host.h"
#include "runtime/alloc.h"
#include "runtime/allocator.h"
#include "runtime/error.h"

static tensor_status raw_alloc(void *ctx, int device, size_t nbytes, void **ptr, const char *func) {
    (void)ctx;
    int saved = -1;
    if (tensor_cuda_device_enter(device, &saved, func) != TENSOR_OK) return tensor_last_status();
    cudaError_t err = tensor_cuda_malloc_uncaptured(ptr, nbytes);
    tensor_status st = TENSOR_OK;
    if (err == cudaErrorMemoryAllocation) {
        /* Not sticky; clear it so that the next launch check does not report it. The block
         * cache writes the message, with the size asked for. */
        (void)cudaGetLastError();
        st = TENSOR_ERR_OUT_OF_MEMORY;
    } else {
        st = tensor_cuda_error(err, func);
    }
    tensor_cuda_device_restore(saved);
    return st;
}

static tensor_status raw_free(void *ctx, int device, void *ptr, size_t nbytes) {
    (void)ctx;
    (void)nbytes;
    const char *func = "tensor_cuda_empty_cache: cudaFree";
    int saved = -1;
    if (tensor_cuda_device_enter(device, &saved, func) != TENSOR_OK) return tensor_last_status();
    tensor_status st = tensor_cuda_error(cudaFree(ptr), func);
    tensor_cuda_device_restore(saved);
    return st;
}

static tensor_status synchronize(void *ctx, int device) {
    (void)ctx;
    const char *func = "tensor_cuda_empty_cache: cudaDeviceSynchronize";
    int saved = -1;
    if (tensor_cuda_device_enter(device, &saved, func) != TENSOR_OK) return tensor_last_status();
    tensor_status st = tensor_cuda_error(cudaDeviceSynchronize(), func);
    tensor_cuda_device_restore(saved);
    return st;
}

static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static tensor_block_cache *cache;

static void cache_init(void) {
    tensor_block_cache_ops ops = {raw_alloc, raw_free, synchronize, NULL};
    cache = tensor_block_cache_new(tensor_cuda_device_count(), &ops, "tensor_cuda_alloc");
}

tensor_block_cache *tensor_cuda_block_cache(const char *func) {
    pthread_once(&cache_once, cache_init);
    if (cache == NULL)
        return tensor_error_null(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory for the CUDA caching allocator",
                                 func);
    return cache;
}

tensor_status tensor_cuda_alloc(int index, size_t nbytes, void **ptr, void **handle, const char *func) {
    if (ptr) *ptr = NULL;
    if (handle) *handle = NULL;
    TENSOR_CHECK_NOT_NULL(ptr, func, "ptr");
    TENSOR_CHECK_NOT_NULL(handle, func, "handle");
    if (nbytes == 0) return TENSOR_OK;
    if (tt_fault_device_alloc_injected())
        return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: CUDA out of memory allocating %zu bytes (injected failure)",
                            func, nbytes);
    tensor_block_cache *c = tensor_cuda_block_cache(func);
    if (c == NULL) return tensor_last_status();
    tensor_block *block = NULL;
    tensor_status st;
    const tensor_device_allocator user = tensor_get_device_allocator();
    if (user.alloc != NULL) {
        /* A user allocator's blocks live in the cache's books too, so that the statistics
         * cover them and each is freed by the allocator that made it. */
        int saved = -1;
        st = tensor_cuda_device_enter(index, &saved, func);
        if (st == TENSOR_OK)
            st = tensor_block_cache_alloc_external(c, index, tensor_cuda_get_stream(index), nbytes, &user, ptr, &block,
                                                   func);
        tensor_cuda_device_restore(saved);
    } else {
        st = tensor_block_cache_alloc(c, index, tensor_cuda_get_stream(index), nbytes, ptr, &block, func);
    }
    *handle = block;
    return st;
}

void tensor_cuda_free(void *handle) {
    if (handle == NULL) return;
    /* A handle exists only if the cache does, so this cannot fail. */
    tensor_block_cache *c = tensor_cuda_block_cache("tensor_cuda_free");
    tensor_block *block = (tensor_block *)handle;
    if (!tensor_block_is_external(block)) {
        tensor_block_cache_free(c, block);
        return;
    }
    /* The user's free runs on its block's device, as its alloc did. Nobody can hear of a
     * failure to switch here (a release path): the free is called regardless. */
    int saved = -1;
    (void)tensor_cuda_device_enter(tensor_block_device(block), &saved, "tensor_cuda_free");
    tensor_block_cache_free(c, block);
    tensor_cuda_device_restore(saved);
}

tensor_status tensor_cuda_memory_get_stats(int index, tensor_cuda_memory_stats *stats) {
    const char *func = "tensor_cuda_memory_get_stats";
    TENSOR_CHECK_NOT_NULL(stats, func, "stats");
    tensor_block_cache *c = tensor_cuda_block_cache(func);
    if (c == NULL) return tensor_last_status();
    return tensor_block_cache_get_stats(c, index, stats, func);
}

tensor_status tensor_cuda_memory_reset_peak(int index) {
    const char *func = "tensor_cuda_memory_reset_peak";
    tensor_block_cache *c = tensor_cuda_block_cache(func);
    if (c == NULL) return tensor_last_status();
    return tensor_block_cache_reset_peak(c, index, func);
}

tensor_status tensor_cuda_empty_cache(void) {
    if (tensor_cuda_device_count() == 0) return TENSOR_OK;
    tensor_block_cache *c = tensor_cuda_block_cache("tensor_cuda_empty_cache");
    if (c == NULL) return tensor_last_status();
    /* the reduction engine's per-stream counters go back too: a program that made and dropped
     * many streams gets their memory back here */
    tensor_cuda_reduce_release_scratch();
    return tensor_block_cache_empty(c);
}
