/* Memory hooks: where the data of CPU tensors comes from. */
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

#ifdef __cplusplus
}
#endif
#endif
