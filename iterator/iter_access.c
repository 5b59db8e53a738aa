/* Iterator lifetime (free, copy) and read accessors. */
#include <stdlib.h>
#include <string.h>

#include "runtime/alloc.h"
#include "iterator/iter_impl.h"
#include "iterator/iter_local.h"
#include "runtime/error.h"
#include "iterator/iter_internal.h"

void tt_iter_clear(tensor_iter_t *it) {
    for (int a = 0; a < it->num_operands; a++) tensor_release(it->operands[a].tensor);
    it->num_operands = 0;
}

void tensor_iter_free(tensor_iter_t *iter) {
    if (iter == NULL) return;
    tt_iter_clear(iter);
    free(iter);
}

tensor_iter_t *tensor_iter_copy(const tensor_iter_t *iter) {
    TENSOR_CHECK_NOT_NULL_P(iter, "tensor_iter_copy", "iter");
    tensor_iter_t *c = tt_malloc(sizeof *c);
    if (c == NULL) return tensor_error_null(TENSOR_ERR_OUT_OF_MEMORY, "tensor_iter_copy: out of host memory");
    memcpy(c, iter, sizeof *c);
    for (int a = 0; a < c->num_operands; a++) tensor_retain(c->operands[a].tensor);
    return c;
}

int tensor_iter_ndim(const tensor_iter_t *iter) { return iter ? iter->ndim : 0; }
const int64_t *tensor_iter_shape(const tensor_iter_t *iter) { return iter ? iter->shape : NULL; }

int64_t tensor_iter_numel(const tensor_iter_t *iter) {
    if (iter == NULL) return 0;
    int64_t n = 1;
    for (int d = 0; d < iter->ndim; d++) n *= iter->shape[d];
    return n;
}

int tensor_iter_ntensors(const tensor_iter_t *iter) { return iter ? iter->num_operands : 0; }
int tensor_iter_noutputs(const tensor_iter_t *iter) { return iter ? iter->num_outputs : 0; }
int tensor_iter_ninputs(const tensor_iter_t *iter) { return iter ? iter->num_operands - iter->num_outputs : 0; }

static const tensor_iter_operand *operand(const tensor_iter_t *iter, int arg) {
    if (iter == NULL || arg < 0 || arg >= iter->num_operands) return NULL;
    return &iter->operands[arg];
}

void *tensor_iter_data(const tensor_iter_t *iter, int arg) {
    const tensor_iter_operand *o = operand(iter, arg);
    return o ? o->data : NULL;
}

const int64_t *tensor_iter_strides(const tensor_iter_t *iter, int arg) {
    const tensor_iter_operand *o = operand(iter, arg);
    return o ? o->strides : NULL;
}

tensor_dtype tensor_iter_dtype(const tensor_iter_t *iter, int arg) {
    const tensor_iter_operand *o = operand(iter, arg);
    return o ? o->dtype : TENSOR_NUM_DTYPES;
}

tensor_dtype tensor_iter_common_dtype(const tensor_iter_t *iter) { return iter ? iter->common_dtype : TENSOR_NUM_DTYPES; }
tensor_device tensor_iter_device(const tensor_iter_t *iter) { return iter ? iter->device : tensor_cpu(); }

tensor_t *tensor_iter_output(const tensor_iter_t *iter, int i) {
    if (iter == NULL || i < 0 || i >= iter->num_outputs)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "tensor_iter_output: no output %d", i);
    return tensor_retain(iter->operands[i].tensor);
}

tensor_t *tensor_iter_input(const tensor_iter_t *iter, int i) {
    if (iter == NULL || i < 0 || i >= iter->num_operands - iter->num_outputs)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "tensor_iter_input: no input %d", i);
    return tensor_retain(iter->operands[iter->num_outputs + i].tensor);
}

const int *tensor_iter_perm(const tensor_iter_t *iter, int *n) {
    if (n) *n = iter ? iter->logical_ndim : 0;
    return iter ? iter->perm : NULL;
}

bool tensor_iter_is_contiguous(const tensor_iter_t *iter) {
    if (iter == NULL) return false;
    if (tensor_iter_numel(iter) == 1) return true;
    if (iter->ndim != 1) return false;
    for (int a = 0; a < iter->num_operands; a++)
        if (iter->operands[a].strides[0] != (int64_t)tensor_dtype_size(iter->operands[a].dtype)) return false;
    return true;
}
