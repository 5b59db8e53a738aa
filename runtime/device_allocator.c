/* The device allocator hook (runtime/allocator.h): which allocator new CUDA storages come from.
 * The CUDA backend asks tensor_get_device_allocator() at each allocation
 * (cuda/caching_allocator.c); the bookkeeping of a user allocator's blocks is in
 * runtime/block_cache.c. */
#include <pthread.h>
#include <stdbool.h>

#include "runtime/allocator.h"
#include "runtime/error.h"

/* All NULL: the caching allocator. */
static tensor_device_allocator device_allocator;
static pthread_mutex_t device_allocator_lock = PTHREAD_MUTEX_INITIALIZER;

tensor_status tensor_set_device_allocator(const tensor_device_allocator *a) {
    const char *func = "tensor_set_device_allocator";
    if (a != NULL && (a->alloc == NULL) != (a->free == NULL))
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                            "%s: argument 'a' has a NULL %s (both NULL restores the caching allocator)", func,
                            a->alloc == NULL ? "alloc" : "free");
    const bool user = a != NULL && a->alloc != NULL;
#if !TENSOR_HAVE_CUDA
    /* Accepting it would let a program believe its device memory is accounted for. */
    if (user)
        return tensor_error(TENSOR_ERR_DEVICE, "%s: tinytensor was built without CUDA: there is no device memory to "
                            "allocate", func);
#endif
    const tensor_device_allocator def = {NULL, NULL, NULL};
    pthread_mutex_lock(&device_allocator_lock);
    device_allocator = user ? *a : def;
    pthread_mutex_unlock(&device_allocator_lock);
    return TENSOR_OK;
}

tensor_device_allocator tensor_get_device_allocator(void) {
    pthread_mutex_lock(&device_allocator_lock);
    tensor_device_allocator a = device_allocator;
    pthread_mutex_unlock(&device_allocator_lock);
    return a;
}
