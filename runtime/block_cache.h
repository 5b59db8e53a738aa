/* Internal: the bookkeeping of the CUDA caching allocator, with no CUDA in it. Not installed.
 *
 * The device memory itself comes from a table of callbacks (tensor_block_cache_ops): the CUDA
 * backend (cuda/caching_allocator.c) plugs in cudaMalloc/cudaFree, the tests plug in fakes, so
 * every rule below runs in the CPU-only and sanitizer builds too.
 *
 * The rules (PyTorch's CUDACachingAllocator, simplified):
 *  - Sizes are rounded up to a multiple of 512 bytes (TENSOR_BLOCK_MIN_SIZE). That keeps every
 *    block 512-byte aligned inside its segment, wide enough for any vector load.
 *  - A segment is one device allocation. Requests of at most 1 MiB come from the small pool,
 *    whose segments are 2 MiB; larger requests come from the large pool, whose segments are
 *    20 MiB for requests under 10 MiB (so a run of mid-sized tensors shares one segment) and the
 *    request rounded up to 2 MiB above that.
 *  - A segment belongs to one (device, stream) and is cut into blocks. Free blocks sit in a
 *    free list per (device, stream, pool) sorted by size; a request takes the smallest free
 *    block that fits (best fit) and splits off the rest when the rest is worth keeping (at
 *    least 512 bytes in the small pool, more than 1 MiB in the large one). A freed block merges
 *    with free neighbours of its segment, so fragmentation does not accumulate.
 *  - Reuse never crosses streams: work on one stream runs in order, so a block freed on stream
 *    s may be handed to the next request on s while kernels that used it are still queued;
 *    on another stream that would be a race.
 *  - No device allocation or free happens while a cached block fits. Segments go back to the
 *    device only in tensor_block_cache_empty and when a device allocation fails: then every
 *    whole free segment of that device is released and the allocation is tried once more.
 *
 * Thread-safe: one mutex per cache guards everything, the device callbacks included. */
#ifndef TENSOR_BLOCK_CACHE_H
#define TENSOR_BLOCK_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/allocator.h"
#include "runtime/device.h"
#include "runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TENSOR_BLOCK_MIN_SIZE ((size_t)512)
#define TENSOR_BLOCK_SMALL_SIZE ((size_t)1 << 20)     /* largest request of the small pool */
#define TENSOR_BLOCK_SMALL_SEGMENT ((size_t)2 << 20)  /* segment size of the small pool */
#define TENSOR_BLOCK_MIN_LARGE_ALLOC ((size_t)10 << 20) /* below this, large requests share... */
#define TENSOR_BLOCK_LARGE_SEGMENT ((size_t)20 << 20) /* ...a segment of this size */
#define TENSOR_BLOCK_ROUND_LARGE ((size_t)2 << 20)    /* larger segments are multiples of this */

/* Where device memory comes from. Called with the cache's mutex held. */
typedef struct tensor_block_cache_ops {
    /* Obtains nbytes of device memory on `device` into *ptr. Returns TENSOR_OK, or
     * TENSOR_ERR_OUT_OF_MEMORY when the device is full (no message needed: the cache writes
     * one), or any other status after recording its own error message, naming func (the
     * public function that asked for the memory). */
    tensor_status (*raw_alloc)(void *ctx, int device, size_t nbytes, void **ptr, const char *func);
    /* Gives back memory that raw_alloc returned. An error is recorded and reported by
     * tensor_block_cache_empty; the memory is forgotten either way. */
    tensor_status (*raw_free)(void *ctx, int device, void *ptr, size_t nbytes);
    /* Waits until the device has finished all queued work; called before segments go back,
     * since a freed block may still be in use by a queued kernel. May be NULL. */
    tensor_status (*synchronize)(void *ctx, int device);
    void *ctx;
} tensor_block_cache_ops;

typedef struct tensor_block_cache tensor_block_cache;
typedef struct tensor_block tensor_block;

/* Size a request of nbytes occupies in the cache (512-byte multiple, at least 512). Returns 0
 * when the rounding would overflow size_t. */
size_t tensor_block_round_size(size_t nbytes);
/* Size of the segment the cache obtains for a request of rounded size `rounded`; 0 on overflow. */
size_t tensor_block_segment_size(size_t rounded);

/* A cache for devices 0..num_devices-1 (num_devices >= 0), or NULL with the error recorded.
 * ops is copied. */
tensor_block_cache *tensor_block_cache_new(int num_devices, const tensor_block_cache_ops *ops, const char *func);
/* Gives every segment back through raw_free, and every block of a user allocator still
 * allocated back to its allocator, and frees the cache. Blocks still allocated are forgotten
 * (their segments go back too), so call it only when nothing uses the memory. NULL is a no-op. */
void tensor_block_cache_destroy(tensor_block_cache *cache);

/* Allocates nbytes (> 0) on `device` for use on `stream` (an opaque stream handle; NULL is a
 * stream like any other). On success *block is the handle to free and *ptr its address. On
 * failure both are NULL and the error, naming func, is recorded: TENSOR_ERR_DEVICE for a bad
 * device, TENSOR_ERR_OUT_OF_MEMORY with the requested size when the device is full even after
 * the cache gave its free segments back, or raw_alloc's own status. */
tensor_status tensor_block_cache_alloc(tensor_block_cache *cache, int device, void *stream, size_t nbytes, void **ptr,
                                       tensor_block **block, const char *func);
/* Alignment asked of a user's device allocator (runtime/allocator.h). */
#define TENSOR_BLOCK_EXTERNAL_ALIGNMENT ((size_t)256)

/* Allocates nbytes (> 0, rounded up as tensor_block_round_size) on `device` for `stream` from
 * the user allocator *a (alloc not NULL) instead of from the cache: a block of its own, never
 * cached, that tensor_block_cache_free gives back to *a (copied into the block), so it
 * outlives any change of allocator. The statistics count it: allocated and reserved grow by
 * its size, num_device_mallocs by one (num_device_frees at the free). a->alloc runs without
 * the cache's mutex, so it may take as long as it likes and other threads' allocations go on.
 * Errors as tensor_block_cache_alloc: TENSOR_ERR_OUT_OF_MEMORY, naming func, the device and the
 * size, when a->alloc returns NULL or memory not aligned to TENSOR_BLOCK_EXTERNAL_ALIGNMENT
 * (given back through a->free), or when host memory for the block's record runs out (then
 * a->alloc is not called). */
tensor_status tensor_block_cache_alloc_external(tensor_block_cache *cache, int device, void *stream, size_t nbytes,
                                                const tensor_device_allocator *a, void **ptr, tensor_block **block,
                                                const char *func);
/* Returns a block to its (device, stream) free list, or a block of a user allocator to that
 * allocator (its free runs without the cache's mutex). Never calls raw_free. NULL is a no-op. */
void tensor_block_cache_free(tensor_block_cache *cache, tensor_block *block);

/* Gives every whole free segment of every device back (raw_free). Blocks in use, and free
 * blocks in a segment that still has a block in use, stay. Returns the first error of
 * synchronize or raw_free (the segment is forgotten either way), else TENSOR_OK. */
tensor_status tensor_block_cache_empty(tensor_block_cache *cache);

/* Statistics of one device (TENSOR_ERR_DEVICE for a bad index; errors name func). */
tensor_status tensor_block_cache_get_stats(tensor_block_cache *cache, int device, tensor_cuda_memory_stats *stats,
                                           const char *func);
tensor_status tensor_block_cache_reset_peak(tensor_block_cache *cache, int device, const char *func);

/* Number of devices the cache was made for. */
int tensor_block_cache_num_devices(const tensor_block_cache *cache);

/* Introspection, mainly for tests. */
void *tensor_block_ptr(const tensor_block *block);
size_t tensor_block_size(const tensor_block *block);     /* rounded size the block occupies */
void *tensor_block_stream(const tensor_block *block);
int tensor_block_device(const tensor_block *block);
bool tensor_block_is_external(const tensor_block *block); /* from a user allocator */
/* Free blocks (cached, not in use) of a device across its streams and pools; -1 for a bad index. */
int64_t tensor_block_cache_num_free_blocks(tensor_block_cache *cache, int device);

#ifdef __cplusplus
}
#endif
#endif
