/* Internal: refcounted storage that owns (or borrows) one allocation. Not installed. */
#ifndef TENSOR_STORAGE_H
#define TENSOR_STORAGE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/allocator.h"
#include "runtime/device.h"
#include "runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tensor_storage_kind {
    TENSOR_STORAGE_CPU = 0,     /* 64-byte aligned host memory we allocated */
    TENSOR_STORAGE_CUDA = 1,    /* a block of the CUDA caching allocator */
    TENSOR_STORAGE_EXTERNAL = 2 /* caller memory; `deleter` (may be NULL) runs at the end */
} tensor_storage_kind;

typedef struct tensor_storage {
    atomic_long refcount;
    void *data;
    size_t nbytes;
    tensor_device device;
    tensor_storage_kind kind;
    void (*deleter)(void *data, void *ctx);
    void *deleter_ctx;
    void *alloc_handle; /* allocator-private (the CUDA block), NULL otherwise */
    tensor_allocator host_allocator; /* TENSOR_STORAGE_CPU: the allocator that made data */
    size_t host_bytes;               /* TENSOR_STORAGE_CPU: the size data was allocated with */
    /* Exports (DLPack) that gave `data` to another library: that library keeps the raw
     * address, so the block must not move (tensor_storage_grow refuses) while any is alive. */
    atomic_long exports;
} tensor_storage;

/* New storage of nbytes on device (refcount 1), or NULL with the last error set, naming func. */
tensor_storage *tensor_storage_new(size_t nbytes, tensor_device device, const char *func);
/* Wraps caller memory; refcount 1. Never fails except on host OOM (NULL). */
tensor_storage *tensor_storage_wrap(void *data, size_t nbytes, tensor_device device,
                                    void (*deleter)(void *, void *), void *ctx, const char *func);
/* Grows s (in place: every tensor sharing s sees the change) to at least nbytes: a new block on
 * s's device receives the old bytes, the old block is freed, and s->data / nbytes / alloc_handle
 * point at the new one. Storage we allocated only (TENSOR_STORAGE_EXTERNAL is
 * TENSOR_ERR_INVALID_ARGUMENT: caller memory cannot be reallocated), and none with live exports
 * (TENSOR_ERR_INVALID_ARGUMENT as well: the other library holds the old address). nbytes <=
 * s->nbytes is a no-op. On failure (TENSOR_ERR_OUT_OF_MEMORY, ...) s is unchanged. Pointers into
 * the old block (tensor_data of any view) are invalid afterwards, as after PyTorch's storage
 * resize. */
tensor_status tensor_storage_grow(tensor_storage *s, size_t nbytes, const char *func);
void tensor_storage_retain(tensor_storage *s);
void tensor_storage_release(tensor_storage *s);

/* Host allocation, 64-byte aligned (NULL on failure, nbytes 0 gives a valid unique pointer). */
void *tensor_host_alloc(size_t nbytes);
void tensor_host_free(void *p);

/* Byte copies between any two devices (host<->device, device<->device, host<->host).
 * Synchronous with respect to the host for copies that touch host memory. */
tensor_status tensor_memcpy(void *dst, tensor_device dst_device, const void *src, tensor_device src_device,
                            size_t nbytes, const char *func);

#ifdef __cplusplus
}
#endif
#endif
