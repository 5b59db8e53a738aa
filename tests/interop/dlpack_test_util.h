/* A stand-in for another library in the DLPack tests: it hands out managed structs (versioned
 * or legacy) over memory it owns, counts its deleter calls, and can wrap one of our exports so
 * that the import sees a foreign struct (the general path, not the own-export shortcut). */
#ifndef TENSOR_TEST_DLPACK_TEST_UTIL_H
#define TENSOR_TEST_DLPACK_TEST_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "interop_test_util.h"

typedef struct foreign {
    DLManagedTensorVersioned v; /* first: the struct handed out */
    DLManagedTensor legacy;
    int64_t shape[TENSOR_MAX_DIMS + 8], strides[TENSOR_MAX_DIMS + 8];
    void *owned;                      /* freed by the deleter */
    DLManagedTensorVersioned *inner;  /* one of our exports, deleted with this one */
    DLManagedTensor *inner_legacy;
    int *deletes;                     /* incremented by the deleter */
} foreign;

static inline void foreign_free(foreign *f) {
    (*f->deletes)++;
    if (f->inner) f->inner->deleter(f->inner);
    if (f->inner_legacy) f->inner_legacy->deleter(f->inner_legacy);
    free(f->owned);
    free(f);
}
static inline void foreign_delete_v(DLManagedTensorVersioned *self) { foreign_free(self->manager_ctx); }
static inline void foreign_delete_legacy(DLManagedTensor *self) { foreign_free(self->manager_ctx); }

/* A foreign struct over `data` (borrowed unless `owned`); shape and strides copied (strides
 * NULL stays NULL). Both the versioned and the legacy struct are filled. */
static inline foreign *foreign_new(void *data, int ndim, const int64_t *shape, const int64_t *strides, DLDataType dt,
                                   DLDevice dev, int *deletes) {
    foreign *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->deletes = deletes;
    for (int i = 0; i < ndim && i < TENSOR_MAX_DIMS + 8; i++) {
        f->shape[i] = shape ? shape[i] : 0;
        f->strides[i] = strides ? strides[i] : 0;
    }
    DLTensor dl = {data, dev, ndim, dt, shape ? f->shape : NULL, strides ? f->strides : NULL, 0};
    f->v.version.major = 1;
    f->v.version.minor = 1;
    f->v.manager_ctx = f;
    f->v.deleter = foreign_delete_v;
    f->v.dl_tensor = dl;
    f->legacy.dl_tensor = dl;
    f->legacy.manager_ctx = f;
    f->legacy.deleter = foreign_delete_legacy;
    return f;
}

static inline DLDataType dl_dtype(uint8_t code, uint8_t bits, uint16_t lanes) {
    DLDataType d = {code, bits, lanes};
    return d;
}
static inline DLDevice dl_cpu(void) {
    DLDevice d = {kDLCPU, 0};
    return d;
}

/* Our export of t, re-wrapped as a foreign versioned struct (shape and strides copied). */
static inline foreign *foreign_wrap_export(const tensor_t *t, int *deletes) {
    DLManagedTensorVersioned *m = NULL;
    if (tensor_to_dlpack_versioned(t, 0, -1, &m) != TENSOR_OK) fail_msg("export: %s", tensor_last_error());
    DLTensor *dl = &m->dl_tensor;
    foreign *f = foreign_new(dl->data, dl->ndim, dl->shape, dl->strides, dl->dtype, dl->device, deletes);
    f->v.dl_tensor.byte_offset = dl->byte_offset;
    f->inner = m;
    return f;
}

#endif
