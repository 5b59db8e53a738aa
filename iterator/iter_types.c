/* Build stage 2: the common device, the common dtype and the output dtypes (the overlap
 * checks that follow them: iter_overlap.c). */
#include <stdlib.h>
#include <string.h>

#include "iterator/iter_build_impl.h"
#include "runtime/error.h"

tensor_status tt_iter_compute_device(iter_build *b) {
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

tensor_status tt_iter_compute_types(iter_build *b) {
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
