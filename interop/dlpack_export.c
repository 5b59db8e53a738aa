/* DLPack export: a managed struct that points into a tensor's storage and holds a reference
 * to it until the consumer calls the deleter. */
#include <stdlib.h>

#include "cuda/cuda_backend.h"
#include "interop/dlpack_internal.h"
#include "runtime/alloc.h"
#include "runtime/error.h"
#include "runtime/tensor_impl.h"

static void export_free(tt_dlpack_export *ctx) {
    atomic_fetch_sub_explicit(&ctx->storage->exports, 1, memory_order_acq_rel);
    tensor_storage_release(ctx->storage);
    free(ctx);
}

void tt_dlpack_delete_versioned(DLManagedTensorVersioned *self) {
    if (self != NULL) export_free(self->manager_ctx);
}

void tt_dlpack_delete_legacy(DLManagedTensor *self) {
    if (self != NULL) export_free(self->manager_ctx);
}

/* The consumer's stream against the tensor's device; for CUDA the handoff itself. Runs last,
 * after every host allocation, so that a failed call has queued nothing. */
static tensor_status check_stream(const tensor_t *t, intptr_t stream, const char *func) {
    tensor_device dev = t->storage->device;
    if (dev.type == TENSOR_DEVICE_CPU) {
        if (stream != 0 && stream != TENSOR_DLPACK_STREAM_NONE)
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                "%s: consumer_stream %lld given for a CPU tensor (only 0 or -1: CPU memory has no "
                                "stream)", func, (long long)stream);
        return TENSOR_OK;
    }
    if (stream < TENSOR_DLPACK_STREAM_NONE)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                            "%s: consumer_stream %lld is not a stream (-1 none, 0 or 1 legacy default, 2 per-thread "
                            "default, else a cudaStream_t)", func, (long long)stream);
    if (stream == TENSOR_DLPACK_STREAM_NONE) return TENSOR_OK;
    return tt_cuda_stream_handoff(dev.index, stream, func);
}

/* The export context for t, its DLTensor filled; the storage reference is taken. */
static tt_dlpack_export *export_new(const tensor_t *t, const char *func) {
    DLDataType dt = {0, 0, 0};
    if (tensor_dtype_to_dlpack(t->dtype, &dt) != TENSOR_OK)
        return tensor_error_null(TENSOR_ERR_DTYPE, "%s: tensor of unknown dtype %d", func, (int)t->dtype);
    tt_dlpack_export *ctx = tt_malloc(sizeof *ctx);
    if (ctx == NULL) return tensor_error_null(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory for the export", func);
    for (int i = 0; i < TENSOR_MAX_DIMS; i++) {
        ctx->shape[i] = i < t->ndim ? t->sizes[i] : 0;
        ctx->strides[i] = i < t->ndim ? t->strides[i] : 0;
    }
    ctx->storage = t->storage;
    ctx->offset = t->offset;
    ctx->dtype = t->dtype;
    DLTensor *dl = &ctx->m.versioned.dl_tensor; /* overwritten below for the legacy struct */
    /* Element [0, ...] itself with byte_offset 0, as PyTorch and numpy export: some consumers
     * ignore byte_offset. The specification asks for NULL when there is nothing to point at. */
    dl->data = tensor_numel(t) > 0 ? tensor_data(t) : NULL;
    dl->device.device_type = t->storage->device.type == TENSOR_DEVICE_CUDA ? kDLCUDA : kDLCPU;
    dl->device.device_id = t->storage->device.type == TENSOR_DEVICE_CUDA ? t->storage->device.index : 0;
    dl->ndim = t->ndim;
    dl->dtype = dt;
    dl->shape = ctx->shape;
    dl->strides = ctx->strides;
    dl->byte_offset = 0;
    return ctx;
}

static void export_publish(tt_dlpack_export *ctx) {
    tensor_storage_retain(ctx->storage);
    atomic_fetch_add_explicit(&ctx->storage->exports, 1, memory_order_acq_rel);
}

tensor_status tensor_to_dlpack_versioned(const tensor_t *t, uint64_t flags, intptr_t consumer_stream,
                                         DLManagedTensorVersioned **out) {
    const char *func = "tensor_to_dlpack_versioned";
    TENSOR_CHECK_NOT_NULL(out, func, "out");
    *out = NULL;
    TENSOR_CHECK_NOT_NULL(t, func, "t");
    if (flags & ~(uint64_t)DLPACK_FLAG_BITMASK_READ_ONLY)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                            "%s: flags 0x%llx: only DLPACK_FLAG_BITMASK_READ_ONLY (0x1) may be set by the caller", func,
                            (unsigned long long)flags);
    tt_dlpack_export *ctx = export_new(t, func);
    if (ctx == NULL) return tensor_last_status();
    if (check_stream(t, consumer_stream, func) != TENSOR_OK) {
        free(ctx);
        return tensor_last_status();
    }
    DLManagedTensorVersioned *m = &ctx->m.versioned;
    m->version.major = TENSOR_DLPACK_MAJOR;
    m->version.minor = TENSOR_DLPACK_MINOR;
    m->manager_ctx = ctx;
    m->deleter = tt_dlpack_delete_versioned;
    m->flags = flags;
    export_publish(ctx);
    *out = m;
    return TENSOR_OK;
}

tensor_status tensor_to_dlpack(const tensor_t *t, intptr_t consumer_stream, DLManagedTensor **out) {
    const char *func = "tensor_to_dlpack";
    TENSOR_CHECK_NOT_NULL(out, func, "out");
    *out = NULL;
    TENSOR_CHECK_NOT_NULL(t, func, "t");
    tt_dlpack_export *ctx = export_new(t, func);
    if (ctx == NULL) return tensor_last_status();
    if (check_stream(t, consumer_stream, func) != TENSOR_OK) {
        free(ctx);
        return tensor_last_status();
    }
    /* The DLTensor moves to the legacy struct's place (the first member there). */
    DLTensor dl = ctx->m.versioned.dl_tensor;
    DLManagedTensor *m = &ctx->m.legacy;
    m->dl_tensor = dl;
    m->manager_ctx = ctx;
    m->deleter = tt_dlpack_delete_legacy;
    export_publish(ctx);
    *out = m;
    return TENSOR_OK;
}
