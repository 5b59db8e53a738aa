/* The CUDA entry points of a build without CUDA: no devices, and a clear error for anything
 * that needs one. A CUDA build gets these from cuda/device.c and cuda/caching_allocator.c. */
#include "runtime/device.h"

#if !TENSOR_HAVE_CUDA

#include "cuda/cuda_backend.h"
#include "runtime/error.h"

int tensor_cuda_device_count(void) { return 0; }

bool tensor_cuda_is_built(void) { return false; }

tensor_status tensor_cuda_memory_get_stats(int index, tensor_cuda_memory_stats *stats) {
    (void)stats;
    return tensor_error(TENSOR_ERR_DEVICE, "tensor_cuda_memory_get_stats: device cuda:%d: tinytensor was built without CUDA",
                        index);
}

tensor_status tensor_cuda_memory_reset_peak(int index) {
    return tensor_error(TENSOR_ERR_DEVICE, "tensor_cuda_memory_reset_peak: device cuda:%d: tinytensor was built without CUDA",
                        index);
}

/* Nothing is cached and nothing runs, so there is nothing to free or wait for: succeeding
 * lets portable programs call these unconditionally. */
tensor_status tensor_cuda_empty_cache(void) { return TENSOR_OK; }

tensor_status tensor_cuda_synchronize(void) { return TENSOR_OK; }

tensor_status tensor_cuda_set_stream(int device, void *stream) {
    (void)stream;
    return tensor_error(TENSOR_ERR_DEVICE, "tensor_cuda_set_stream: device cuda:%d: tinytensor was built without CUDA",
                        device);
}

tensor_status tensor_cuda_exchange_stream(int device, void *stream, void **previous) {
    (void)stream;
    if (previous == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_cuda_exchange_stream: argument 'previous' is NULL");
    *previous = NULL;
    return tensor_error(TENSOR_ERR_DEVICE,
                        "tensor_cuda_exchange_stream: device cuda:%d: tinytensor was built without CUDA", device);
}

tensor_status tensor_cuda_wait_stream(int device, void *stream) {
    (void)stream;
    return tensor_error(TENSOR_ERR_DEVICE, "tensor_cuda_wait_stream: device cuda:%d: tinytensor was built without CUDA",
                        device);
}

tensor_status tensor_cuda_stream_wait_ours(int device, void *stream) {
    (void)stream;
    return tensor_error(TENSOR_ERR_DEVICE,
                        "tensor_cuda_stream_wait_ours: device cuda:%d: tinytensor was built without CUDA", device);
}

void *tensor_cuda_get_stream(int device) {
    (void)device;
    return NULL;
}

tensor_status tensor_cuda_alloc(int index, size_t nbytes, void **ptr, void **handle, const char *func) {
    (void)nbytes;
    if (ptr) *ptr = NULL;
    if (handle) *handle = NULL;
    return tensor_error(TENSOR_ERR_DEVICE, "%s: device cuda:%d: tinytensor was built without CUDA", func, index);
}

void tensor_cuda_free(void *handle) { (void)handle; }

tensor_status tensor_cuda_memcpy(void *dst, tensor_device dst_device, const void *src, tensor_device src_device,
                                 size_t nbytes, const char *func) {
    (void)dst;
    (void)dst_device;
    (void)src;
    (void)src_device;
    (void)nbytes;
    return tensor_error(TENSOR_ERR_DEVICE, "%s: copy involving a CUDA device: tinytensor was built without CUDA", func);
}

tensor_status tensor_cuda_copy(tensor_t *dst, const tensor_t *src, const char *func) {
    (void)dst;
    (void)src;
    return tensor_error(TENSOR_ERR_DEVICE, "%s: copy on a CUDA device: tinytensor was built without CUDA", func);
}

tensor_status tt_cuda_stream_handoff(int device, intptr_t consumer, const char *func) {
    (void)consumer;
    return tensor_error(TENSOR_ERR_DEVICE, "%s: device cuda:%d: tinytensor was built without CUDA", func, device);
}

void tt_cuda_device_sync_quiet(int device) { (void)device; }

#else
/* ISO C forbids an empty translation unit. */
typedef int tensor_no_cuda_unused;
#endif
