#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/alloc.h"
#include "cuda/cuda_backend.h"
#include "runtime/error.h"
#include "runtime/storage.h"

/* 64 bytes: a cache line and the widest AVX-512 load, so kernels may assume it. */
#define TENSOR_HOST_ALIGNMENT 64

void *tensor_host_alloc(size_t nbytes) {
    /* No object may exceed PTRDIFF_MAX (pointer differences inside it would overflow; glibc
     * refuses such requests too): fail here rather than hand the allocator a "negative" size. */
    if (nbytes > (size_t)PTRDIFF_MAX - TENSOR_HOST_ALIGNMENT) return NULL;
    size_t rounded = (nbytes + TENSOR_HOST_ALIGNMENT - 1) / TENSOR_HOST_ALIGNMENT * TENSOR_HOST_ALIGNMENT;
    if (rounded < nbytes) return NULL; /* wrapped around */
    if (rounded == 0) rounded = TENSOR_HOST_ALIGNMENT;
    return tt_aligned_alloc(TENSOR_HOST_ALIGNMENT, rounded);
}

void tensor_host_free(void *p) { free(p); }

/* ---- the allocator of CPU storages (runtime/allocator.h) ---- */
static void *default_alloc(void *ctx, size_t nbytes, size_t alignment) {
    (void)ctx;
    return tt_aligned_alloc(alignment, nbytes);
}
static void default_free(void *ctx, void *ptr, size_t nbytes) {
    (void)ctx;
    (void)nbytes;
    free(ptr);
}
static tensor_allocator host_allocator = {default_alloc, default_free, NULL};
static pthread_mutex_t host_allocator_lock = PTHREAD_MUTEX_INITIALIZER;

tensor_status tensor_set_host_allocator(const tensor_allocator *a) {
    if (a != NULL && (a->alloc == NULL || a->free == NULL))
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_set_host_allocator: argument 'a' has a NULL %s",
                            a->alloc == NULL ? "alloc" : "free");
    const tensor_allocator def = {default_alloc, default_free, NULL};
    pthread_mutex_lock(&host_allocator_lock);
    host_allocator = a != NULL ? *a : def;
    pthread_mutex_unlock(&host_allocator_lock);
    return TENSOR_OK;
}

tensor_allocator tensor_get_host_allocator(void) {
    pthread_mutex_lock(&host_allocator_lock);
    tensor_allocator a = host_allocator;
    pthread_mutex_unlock(&host_allocator_lock);
    return a;
}

/* nbytes of storage data from the current allocator, which *used records (with the size asked
 * of it) for the free. NULL when the size cannot be represented or the allocator fails. */
static void *storage_data_alloc(size_t nbytes, tensor_allocator *used, size_t *bytes) {
    if (nbytes > (size_t)PTRDIFF_MAX - TENSOR_HOST_ALIGNMENT) return NULL;
    size_t rounded = (nbytes + TENSOR_HOST_ALIGNMENT - 1) / TENSOR_HOST_ALIGNMENT * TENSOR_HOST_ALIGNMENT;
    if (rounded == 0) rounded = TENSOR_HOST_ALIGNMENT;
    *used = tensor_get_host_allocator();
    *bytes = rounded;
    void *p = used->alloc(used->ctx, rounded, TENSOR_HOST_ALIGNMENT);
    /* a user allocator that ignores the alignment would break the kernels' aligned loads */
    if (p != NULL && ((uintptr_t)p & (TENSOR_HOST_ALIGNMENT - 1)) != 0) {
        used->free(used->ctx, p, rounded);
        return NULL;
    }
    return p;
}

static void storage_data_free(const tensor_allocator *used, void *p, size_t bytes) {
    if (p != NULL) used->free(used->ctx, p, bytes);
}

/* A storage struct with every field set (refcount 1, no data yet). malloc, not calloc:
 * tensor_make (runtime/tensor.c) says why. */
static tensor_storage *storage_struct(size_t nbytes, tensor_device device, tensor_storage_kind kind,
                                      const char *func) {
    tensor_storage *s = tt_malloc(sizeof *s);
    if (s == NULL) return tensor_error_null(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory for a storage", func);
    atomic_init(&s->refcount, 1);
    s->data = NULL;
    s->nbytes = nbytes;
    s->device = device;
    s->kind = kind;
    s->deleter = NULL;
    s->deleter_ctx = NULL;
    s->alloc_handle = NULL;
    s->host_allocator = (tensor_allocator){NULL, NULL, NULL};
    s->host_bytes = 0;
    atomic_init(&s->exports, 0);
    return s;
}

tensor_storage *tensor_storage_new(size_t nbytes, tensor_device device, const char *func) {
    if (tensor_device_check(device, func) != TENSOR_OK) return NULL;
    const bool cpu = device.type == TENSOR_DEVICE_CPU;
    tensor_storage *s = storage_struct(nbytes, device, cpu ? TENSOR_STORAGE_CPU : TENSOR_STORAGE_CUDA, func);
    if (s == NULL) return NULL;
    if (cpu) {
        s->data = storage_data_alloc(nbytes, &s->host_allocator, &s->host_bytes);
        if (s->data == NULL) {
            free(s);
            return tensor_error_null(TENSOR_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of host memory", func,
                                     nbytes);
        }
    } else if (tensor_cuda_alloc(device.index, nbytes, &s->data, &s->alloc_handle, func) != TENSOR_OK) {
        free(s);
        return NULL;
    }
    return s;
}

tensor_storage *tensor_storage_wrap(void *data, size_t nbytes, tensor_device device, void (*deleter)(void *, void *),
                                    void *ctx, const char *func) {
    tensor_storage *s = storage_struct(nbytes, device, TENSOR_STORAGE_EXTERNAL, func);
    if (s == NULL) return NULL;
    s->data = data;
    s->deleter = deleter;
    s->deleter_ctx = ctx;
    return s;
}

tensor_status tensor_storage_grow(tensor_storage *s, size_t nbytes, const char *func) {
    if (nbytes <= s->nbytes) return TENSOR_OK;
    if (s->kind == TENSOR_STORAGE_EXTERNAL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                            "%s: Trying to resize storage that is not resizable (caller memory of %zu bytes, %zu "
                            "needed)", func, s->nbytes, nbytes);
    long exports = atomic_load_explicit(&s->exports, memory_order_acquire);
    if (exports > 0)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                            "%s: Trying to resize storage that is not resizable (its memory is exported through DLPack "
                            "%ld time%s and must not move)", func, exports, exports == 1 ? "" : "s");
    void *data = NULL, *handle = NULL;
    tensor_allocator used = {NULL, NULL, NULL};
    size_t used_bytes = 0;
    if (s->kind == TENSOR_STORAGE_CPU) {
        data = storage_data_alloc(nbytes, &used, &used_bytes);
        if (data == NULL)
            return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of host memory", func, nbytes);
    } else if (tensor_cuda_alloc(s->device.index, nbytes, &data, &handle, func) != TENSOR_OK) {
        return tensor_last_status();
    }
    /* the old bytes move along (PyTorch's resize_bytes keeps them); on the device this copy is
     * queued on the current stream, after the kernels that wrote them, and the old block goes
     * back to the caching allocator, which reuses it only after that stream's queued work */
    if (tensor_memcpy(data, s->device, s->data, s->device, s->nbytes, func) != TENSOR_OK) {
        if (s->kind == TENSOR_STORAGE_CPU) storage_data_free(&used, data, used_bytes);
        else tensor_cuda_free(handle);
        return tensor_last_status();
    }
    if (s->kind == TENSOR_STORAGE_CPU) {
        storage_data_free(&s->host_allocator, s->data, s->host_bytes);
        s->host_allocator = used;
        s->host_bytes = used_bytes;
    } else {
        tensor_cuda_free(s->alloc_handle);
    }
    s->data = data;
    s->alloc_handle = handle;
    s->nbytes = nbytes;
    return TENSOR_OK;
}

void tensor_storage_retain(tensor_storage *s) {
    if (s) atomic_fetch_add_explicit(&s->refcount, 1, memory_order_relaxed);
}

void tensor_storage_release(tensor_storage *s) {
    if (s == NULL) return;
    /* acq_rel: the thread that frees must see every other thread's writes to the data. */
    if (atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel) != 1) return;
    switch (s->kind) {
    case TENSOR_STORAGE_CPU: storage_data_free(&s->host_allocator, s->data, s->host_bytes); break;
    case TENSOR_STORAGE_CUDA: tensor_cuda_free(s->alloc_handle); break;
    case TENSOR_STORAGE_EXTERNAL:
        if (s->deleter) s->deleter(s->data, s->deleter_ctx);
        break;
    }
    free(s);
}

tensor_status tensor_memcpy(void *dst, tensor_device dst_device, const void *src, tensor_device src_device,
                            size_t nbytes, const char *func) {
    if (nbytes == 0) return TENSOR_OK;
    if (dst_device.type == TENSOR_DEVICE_CPU && src_device.type == TENSOR_DEVICE_CPU) {
        memmove(dst, src, nbytes);
        return TENSOR_OK;
    }
    return tensor_cuda_memcpy(dst, dst_device, src, src_device, nbytes, func);
}
