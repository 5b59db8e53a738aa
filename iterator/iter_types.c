/* Build stage 2: the common device, the common dtype and the output dtypes, and the
 * memory-overlap checks between outputs and inputs. */
#include <stdlib.h>
#include <string.h>

#include "iterator/iter_build_impl.h"
#include "runtime/error.h"

tensor_status iter_compute_device(iter_build *b) {
    /* PyTorch: the common device is the first non-CPU device among the defined operands. */
    bool found = false;
    b->device = tensor_cpu();
    for (int i = 0; i < b->nops && !found; i++) {
        if (b->ops[i].t == NULL) continue;
        if (b->ops[i].device.type != TENSOR_DEVICE_CPU) {
            b->device = b->ops[i].device;
            found = true;
        }
    }
    if (b->flags & TENSOR_ITER_SAME_DEVICE) {
        for (int i = 0; i < b->nops; i++) {
            if (b->ops[i].t == NULL || tensor_device_equal(b->ops[i].device, b->device)) continue;
            if ((b->flags & TENSOR_ITER_ALLOW_CPU_SCALARS) && !b->ops[i].is_output &&
                b->ops[i].device.type == TENSOR_DEVICE_CPU && b->ops[i].t->ndim == 0)
                continue;
            char d1[32], d2[32];
            return tensor_error(TENSOR_ERR_DEVICE,
                                "%s: Expected all tensors to be on the same device, but found at least two devices, "
                                "%s and %s! (%s %d)",
                                b->name, tensor_device_format(b->device, d1, sizeof d1),
                                tensor_device_format(b->ops[i].device, d2, sizeof d2),
                                b->ops[i].is_output ? "output" : "input", b->ops[i].is_output ? i : i - b->nout);
        }
    }
    for (int i = 0; i < b->nout; i++)
        if (b->ops[i].t == NULL) b->ops[i].device = b->device;
    return TENSOR_OK;
}

/* PyTorch's canCast without complex: no floating -> integral, no non-bool -> bool. */
static bool can_cast(tensor_dtype from, tensor_dtype to) {
    if (tensor_dtype_is_floating(from) && !tensor_dtype_is_floating(to)) return false;
    if (from != TENSOR_BOOL && to == TENSOR_BOOL) return false;
    return true;
}

static tensor_status compute_common_dtype(iter_build *b) {
    int nin = b->nops - b->nout;
    const iter_build_op *in = b->ops + b->nout;
    b->common_dtype = TENSOR_NUM_DTYPES;
    if (nin == 0) {
        /* Nothing to promote: a nullary iterator computes in its first output's dtype. */
        if (b->nout > 0 && (b->ops[0].t != NULL || b->ops[0].declared_dtype)) b->common_dtype = b->ops[0].dtype;
        return TENSOR_OK;
    }
    bool differ = false;
    for (int i = 1; i < nin; i++) differ |= in[i].dtype != in[0].dtype;
    bool promote = (b->flags & TENSOR_ITER_PROMOTE_INPUTS) != 0;
    bool same = (b->flags & TENSOR_ITER_SAME_DTYPE) && !(b->flags & (TENSOR_ITER_PROMOTE_INPUTS | TENSOR_ITER_CAST_TO_OUTPUTS));
    if (!differ) {
        b->common_dtype = in[0].dtype;
    } else if (promote) {
        tensor_result_type_operand rt[TENSOR_ITER_MAX_OPERANDS];
        for (int i = 0; i < nin; i++) {
            rt[i].dtype = in[i].dtype;
            rt[i].kind = in[i].t->ndim == 0 ? TENSOR_OPERAND_ZERO_DIM : TENSOR_OPERAND_DIMENSIONED;
        }
        if (tensor_result_type(rt, nin, &b->common_dtype) != TENSOR_OK) {
            /* Re-prefix the runtime's message with the op's name. */
            char msg[TENSOR_ITER_ERROR_MAX];
            strncpy(msg, tensor_last_error(), sizeof msg - 1);
            msg[sizeof msg - 1] = '\0';
            return tensor_error(tensor_last_status(), "%s: %s", b->name, msg);
        }
    } else if (same) {
        for (int i = 1; i < nin; i++)
            if (in[i].dtype != in[0].dtype)
                return tensor_error(TENSOR_ERR_DTYPE, "%s: Found dtype %s but expected %s (input %d)", b->name,
                                    tensor_dtype_name(in[i].dtype), tensor_dtype_name(in[0].dtype), i);
    }
    if (promote && (b->flags & TENSOR_ITER_PROMOTE_INT_TO_FLOAT) && b->common_dtype != TENSOR_NUM_DTYPES &&
        !tensor_dtype_is_floating(b->common_dtype))
        b->common_dtype = TENSOR_FLOAT32;
    return TENSOR_OK;
}

tensor_status iter_compute_types(iter_build *b) {
    if (compute_common_dtype(b) != TENSOR_OK) return tensor_last_status();
    bool same = (b->flags & TENSOR_ITER_SAME_DTYPE) && !(b->flags & (TENSOR_ITER_PROMOTE_INPUTS | TENSOR_ITER_CAST_TO_OUTPUTS));
    for (int i = 0; i < b->nout; i++) {
        iter_build_op *op = &b->ops[i];
        if (op->declared_dtype) {
            tensor_dtype want = b->cfg->out_dtypes[i];
            if (op->t != NULL && op->dtype != want)
                return tensor_error(TENSOR_ERR_DTYPE, "%s: expected output %d to have dtype %s but got %s", b->name, i,
                                    tensor_dtype_name(want), tensor_dtype_name(op->dtype));
            op->dtype = want;
            continue;
        }
        if (op->t == NULL) {
            if (b->common_dtype == TENSOR_NUM_DTYPES)
                return tensor_error(TENSOR_ERR_DTYPE,
                                    "%s: cannot infer the dtype of output %d: the inputs have different dtypes and "
                                    "TENSOR_ITER_PROMOTE_INPUTS is off",
                                    b->name, i);
            op->dtype = b->common_dtype;
            continue;
        }
        if (b->common_dtype == TENSOR_NUM_DTYPES || op->dtype == b->common_dtype) continue;
        if (b->flags & TENSOR_ITER_CAST_TO_OUTPUTS) {
            if (!can_cast(b->common_dtype, op->dtype))
                return tensor_error(TENSOR_ERR_DTYPE, "%s: result type %s can't be cast to the desired output type %s "
                                    "(output %d)",
                                    b->name, tensor_dtype_name(b->common_dtype), tensor_dtype_name(op->dtype), i);
            continue;
        }
        if (same || (b->flags & TENSOR_ITER_PROMOTE_INPUTS))
            return tensor_error(TENSOR_ERR_DTYPE, "%s: Found dtype %s but expected %s (output %d)", b->name,
                                tensor_dtype_name(op->dtype), tensor_dtype_name(b->common_dtype), i);
    }
    return TENSOR_OK;
}

/* ---- overlap ---- */

static int64_t numel_of(const tensor_t *t) {
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++) n *= t->sizes[d];
    return n;
}

/* Dense without holes or repeats in some dim order (PyTorch's non_overlapping_and_dense). */
static bool non_overlapping_and_dense(const tensor_t *t) {
    int dims[TENSOR_MAX_DIMS], n = 0;
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] != 1) dims[n++] = d;
    /* Insertion sort by stride (ties by size), then check strides are running products. */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            int a = dims[j - 1], c = dims[j];
            if (t->strides[a] < t->strides[c] || (t->strides[a] == t->strides[c] && t->sizes[a] <= t->sizes[c])) break;
            dims[j - 1] = c;
            dims[j] = a;
        }
    int64_t expected = 1;
    for (int i = 0; i < n; i++) {
        if (t->strides[dims[i]] != expected) return false;
        expected *= t->sizes[dims[i]];
    }
    return true;
}

/* [begin, end) in bytes from the storage's start. */
static void byte_range(const tensor_t *t, int64_t *begin, int64_t *end) {
    int64_t es = (int64_t)tensor_dtype_size(t->dtype), last = 0;
    for (int d = 0; d < t->ndim; d++) last += (t->sizes[d] - 1) * t->strides[d];
    *begin = t->offset * es;
    *end = (t->offset + last) * es + es;
}

bool iter_same_elements(const tensor_t *a, const tensor_t *b) {
    if (a == b) return true;
    if (a->storage != b->storage || a->offset != b->offset || a->ndim != b->ndim ||
        tensor_dtype_size(a->dtype) != tensor_dtype_size(b->dtype))
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->sizes[d] != b->sizes[d] || (a->sizes[d] != 1 && a->strides[d] != b->strides[d])) return false;
    return true;
}

typedef enum { OVERLAP_NO, OVERLAP_FULL, OVERLAP_PARTIAL, OVERLAP_TOO_HARD } overlap_status;

static overlap_status overlap(const tensor_t *a, const tensor_t *b) {
    if (a->storage != b->storage || numel_of(a) == 0 || numel_of(b) == 0) return OVERLAP_NO;
    if (iter_same_elements(a, b)) return OVERLAP_FULL;
    int64_t ab, ae, bb, be;
    byte_range(a, &ab, &ae);
    byte_range(b, &bb, &be);
    if (ae <= bb || be <= ab) return OVERLAP_NO;
    /* Interleaved views (x[0::2] vs x[1::2]) share a range without sharing elements; only
     * dense tensors let the ranges decide, as in PyTorch. */
    if (!non_overlapping_and_dense(a) || !non_overlapping_and_dense(b)) return OVERLAP_TOO_HARD;
    return OVERLAP_PARTIAL;
}

tensor_status iter_check_overlap(iter_build *b) {
    for (int i = 0; i < b->nout; i++) {
        const tensor_t *out = b->ops[i].t;
        if (out == NULL) continue;
        for (int d = 0; d < out->ndim; d++)
            if (out->sizes[d] > 1 && out->strides[d] == 0)
                return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                    "%s: unsupported operation: more than one element of the written-to tensor refers "
                                    "to a single memory location. Please clone() the tensor before performing the "
                                    "operation. (output %d)",
                                    b->name, i);
        for (int j = b->nout; j < b->nops; j++) {
            if (overlap(out, b->ops[j].t) != OVERLAP_PARTIAL) continue;
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                "%s: unsupported operation: some elements of the input tensor and the written-to "
                                "tensor refer to a single memory location. Please clone() the tensor before performing "
                                "the operation. (output %d, input %d)",
                                b->name, i, j - b->nout);
        }
    }
    return TENSOR_OK;
}
