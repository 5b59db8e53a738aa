/* Memory hooks: where the data of CPU tensors (tensor_allocator) and of CUDA tensors
 * (tensor_device_allocator) comes from. */
#ifndef TENSOR_ALLOCATOR_H
#define TENSOR_ALLOCATOR_H

#include <stddef.h>

#include "tinytensor/runtime/export.h"
#include "tinytensor/runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A user allocator. alloc gets nbytes > 0 and a power-of-two alignment and returns memory
 * aligned to it, or NULL (the call that needed it then fails with TENSOR_ERR_OUT_OF_MEMORY).
 * free gets a pointer alloc returned, with the same nbytes. ctx is passed to both as is. Both
 * may be called from any thread that uses the library (several at once when several threads
 * allocate): they must be thread-safe. */
typedef struct tensor_allocator {
    void *(*alloc)(void *ctx, size_t nbytes, size_t alignment);
    void (*free)(void *ctx, void *ptr, size_t nbytes);
    void *ctx;
} tensor_allocator;

/* From now on the data of every new CPU storage (tensor_empty, results of ops, copies to the CPU,
 * a storage growing in tensor_resize_) comes from *a (copied; the caller keeps ctx alive while
 * any storage from it lives). NULL restores the library's own (aligned_alloc / free). Each
 * storage remembers the allocator that made it and is freed by that one, so storages made
 * before the call stay valid. Alignment asked: 64 bytes; sizes are rounded up to a multiple of
 * 64. The library's own small allocations (iterators, plans, messages) do not use it.
 * Call it while no other thread is creating tensors. TENSOR_ERR_INVALID_ARGUMENT when a is
 * not NULL and one of its functions is NULL. */
TENSOR_API tensor_status tensor_set_host_allocator(const tensor_allocator *a);

/* The allocator new CPU storages come from now (the library's own when none was set). */
TENSOR_API tensor_allocator tensor_get_host_allocator(void);

/* A user allocator of CUDA device memory, in place of the library's caching allocator.
 *
 * alloc(ctx, device, nbytes, alignment, stream) returns nbytes of memory on CUDA device `device`
 * that kernels on that device may read and write, aligned to `alignment`, or NULL (the call that
 * needed it then fails with TENSOR_ERR_OUT_OF_MEMORY, with a message naming that call, the
 * device and the size). nbytes > 0 is a multiple of 512; alignment is 256 (what cudaMalloc and
 * cudaMallocAsync give). `stream` (a cudaStream_t; NULL is the legacy default stream) is the
 * device's current stream (tensor_cuda_set_stream), the stream whose work will use the memory.
 * Memory that is not aligned is given straight back through free and the call fails as if
 * alloc had returned NULL.
 *
 * free(ctx, device, ptr, nbytes, stream) gets back a pointer alloc returned, with the same
 * device, nbytes and stream. It comes when the last tensor using the memory is released, which
 * may be before the work queued on `stream` that reads or writes it has run: memory freed on a
 * stream may be reused at once by later work on that stream (stream order), but not by other
 * streams or the host until that work is done. cudaFree (which waits for the device) and
 * cudaFreeAsync(ptr, stream) both do this.
 *
 * Both are called with `device` the calling thread's current CUDA device, with no lock of the
 * library held, from any thread that creates or releases CUDA tensors (several at once when
 * several threads do): they must be thread-safe, and must not call into tinytensor. ctx is
 * passed to both as is. */
typedef struct tensor_device_allocator {
    void *(*alloc)(void *ctx, int device, size_t nbytes, size_t alignment, void *stream);
    void (*free)(void *ctx, int device, void *ptr, size_t nbytes, void *stream);
    void *ctx;
} tensor_device_allocator;

/* From now on the memory of every new CUDA storage (tensor_empty and the other creators, results
 * of ops, copies to a GPU, a storage growing in tensor_resize_) and the scratch buffers of single
 * calls (a reduction's partial results) come from *a (copied; the caller keeps ctx alive while
 * any memory from it lives). The library's one other use of device memory, a buffer of
 * reduction counters per device (about 1 MiB on an H100, made by cudaMalloc at the first
 * reduction that needs it and kept until the process exits), and the memory the CUDA runtime
 * and driver take for themselves (modules, NVRTC) do not go through it.
 *
 * NULL, or an allocator whose alloc and free are both NULL, restores the default: the caching
 * allocator. Each allocation is freed by the allocator that made it, so storages made before
 * the call stay valid: blocks of the caching allocator go back to its cache (and stay cached
 * until tensor_cuda_empty_cache), memory of a previous user allocator goes back to that one.
 * The memory statistics (tensor_cuda_memory_get_stats) count a user allocator's memory too.
 *
 * Call it while no other thread is creating CUDA tensors. Errors: TENSOR_ERR_INVALID_ARGUMENT
 * when exactly one of alloc and free is NULL; TENSOR_ERR_DEVICE for a user allocator in a
 * build without CUDA (there is no device memory to allocate; NULL is accepted). On an error
 * the allocator in use does not change. */
TENSOR_API tensor_status tensor_set_device_allocator(const tensor_device_allocator *a);

/* The allocator new CUDA storages come from now: all fields NULL while the caching allocator
 * (the default) is in use. Passing the result back to tensor_set_device_allocator restores it. */
TENSOR_API tensor_device_allocator tensor_get_device_allocator(void);

#ifdef __cplusplus
}
#endif
#endif
