/* libFuzzer target: DLPack import (interop/dlpack_import.c) of a managed struct whose every field
 * comes from the input: version, device, ndim, dtype, shape, strides (or none), data pointer and
 * byte offset. Import never dereferences the data, so any address is safe to pass. Checked: the
 * deleter runs exactly once, at the failure or at the last release; an accepted struct gives a
 * tensor with its shape and dtype, on its address, whose strides are its own (or row-major
 * where they mean nothing); and the tensor exported and imported again is the same view. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tinytensor.h"

typedef struct {
    const uint8_t *p;
    size_t n;
} rd;

static uint64_t take(rd *r, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) {
        uint8_t b = 0;
        if (r->n > 0) {
            b = *r->p++;
            r->n--;
        }
        v |= (uint64_t)b << (8 * i);
    }
    return v;
}

static int deletes;
static void delete_versioned(DLManagedTensorVersioned *self) { (void)self, deletes++; }
static void delete_legacy(DLManagedTensor *self) { (void)self, deletes++; }

/* Sizes and strides: small values mostly (so that tensors get accepted), any int64 sometimes. */
static int64_t dim_value(rd *r) {
    uint8_t sel = (uint8_t)take(r, 1);
    if (sel < 200) return (int64_t)(sel % 9) - (sel >= 190 ? 9 : 0);
    return (int64_t)take(r, 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    rd r = {data, size};
    const uint8_t mode = (uint8_t)take(&r, 1);
    const bool legacy = mode & 1, null_strides = mode & 2, null_shape = (mode & 0x1c) == 0x1c;
    DLManagedTensorVersioned v;
    memset(&v, 0, sizeof v);
    v.version.major = (mode & 0x60) == 0x60 ? (uint32_t)take(&r, 1) : 1;
    v.version.minor = (uint32_t)take(&r, 1);
    v.deleter = delete_versioned;
    DLTensor *dl = &v.dl_tensor;
    const uint8_t dev = (uint8_t)take(&r, 1);
    dl->device.device_type = (DLDeviceType)(dev < 240 ? 1 : dev - 238);
    dl->device.device_id = (int32_t)(int8_t)take(&r, 1) % 3;
    dl->ndim = (int32_t)(int8_t)take(&r, 1) % 20;
    const uint8_t dt = (uint8_t)take(&r, 1);
    static const DLDataType common[] = {{kDLFloat, 32, 1}, {kDLInt, 64, 1}, {kDLBool, 8, 1}, {kDLFloat, 16, 1},
                                        {kDLBfloat, 16, 1}, {kDLUInt, 8, 1}, {kDLFloat8_e5m2, 8, 1}};
    if (dt < 224) {
        dl->dtype = common[dt % (sizeof common / sizeof common[0])];
    } else {
        dl->dtype.code = (uint8_t)take(&r, 1);
        dl->dtype.bits = (uint8_t)take(&r, 1);
        dl->dtype.lanes = (uint16_t)take(&r, 2);
    }
    int64_t shape[24] = {0}, strides[24] = {0};
    for (int i = 0; i < 24; i++) {
        shape[i] = dim_value(&r);
        strides[i] = dim_value(&r);
    }
    dl->shape = null_shape ? NULL : shape;
    dl->strides = null_strides ? NULL : strides;
    const uint8_t where = (uint8_t)take(&r, 1);
    dl->data = where == 0 ? NULL : (void *)(uintptr_t)(where < 128 ? 0x100000 + where : take(&r, 8));
    dl->byte_offset = where & 1 ? take(&r, 8) : take(&r, 1);

    DLManagedTensor l;
    l.dl_tensor = *dl;
    l.manager_ctx = NULL;
    l.deleter = delete_legacy;

    deletes = 0;
    tensor_clear_error();
    tensor_t *t = legacy ? tensor_from_dlpack(&l) : tensor_from_dlpack_versioned(&v);
    if (t == NULL) {
        if (deletes != 1 || tensor_last_status() == TENSOR_OK || tensor_last_error()[0] == '\0') abort();
        return 0;
    }
    if (deletes != 0) abort();
    tensor_dtype want;
    if (tensor_dtype_from_dlpack(dl->dtype, &want) != TENSOR_OK || tensor_get_dtype(t) != want) abort();
    if (tensor_ndim(t) != dl->ndim) abort();
    bool empty = false;
    for (int i = 0; i < dl->ndim; i++) empty |= shape[i] == 0;
    for (int i = 0; i < dl->ndim; i++) {
        if (tensor_size(t, i) != shape[i] || tensor_stride(t, i) < 0) abort();
        if (!null_strides && !empty && shape[i] > 1 && tensor_stride(t, i) != strides[i]) abort();
    }
    if (!empty && (uintptr_t)tensor_data(t) != (uintptr_t)dl->data + dl->byte_offset) abort();

    DLManagedTensorVersioned *again = NULL;
    if (tensor_to_dlpack_versioned(t, 0, -1, &again) != TENSOR_OK) abort();
    tensor_t *u = tensor_from_dlpack_versioned(again);
    if (u == NULL || !tensor_shares_storage(u, t) || tensor_data(u) != tensor_data(t)) abort();
    for (int i = 0; i < dl->ndim; i++)
        if (tensor_size(u, i) != tensor_size(t, i) || tensor_stride(u, i) != tensor_stride(t, i)) abort();
    tensor_release(u);
    if (deletes != 0) abort();
    tensor_release(t);
    if (deletes != 1) abort();
    return 0;
}
