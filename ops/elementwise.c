/* The runner behind every public elementwise function: argument checks, dtypes
 * (ops/elementwise_types.c), the iterator, and the backend kernel from the dispatch table.
 * docs/elementwise.md describes the pipeline and the backend contract. */
#include <string.h>

#include "iterator/iter_local.h"
#include "ops/elementwise_internal.h"
#include "ops/functors/ew_common.h"
#include "runtime/error.h"
#include "runtime/tensor_impl.h"
#include "iterator/iter_internal.h"

/* A 0-d CPU tensor of dtype holding the host scalar s. The value is cast to dtype with the
 * store rules (an INT scalar wraps into a narrower integer dtype: uint8 300 -> 44). It stays on
 * the CPU whatever the op's device: a CUDA kernel takes 0-d CPU inputs by value
 * (TENSOR_ITER_ALLOW_CPU_SCALARS), so a tensor-scalar op on CUDA makes no device allocation
 * and no blocking host-to-device copy of the scalar. */
static tensor_t *scalar_tensor(const tensor_scalar *s, tensor_dtype dtype, const char *func) {
    _Alignas(8) unsigned char buf[8] = {0};
    if (s->type == TENSOR_SCALAR_FLOAT)
        tensor_ew_store_f64(dtype, buf, s->f);
    else
        tensor_ew_store_i64(dtype, buf, s->i);
    tensor_t *t = tensor_from_buffer(buf, 0, NULL, dtype, tensor_cpu());
    if (t == NULL) {
        char msg[256];
        strncpy(msg, tensor_last_error(), sizeof msg - 1);
        msg[sizeof msg - 1] = '\0';
        tensor_error(tensor_last_status(), "%s: %s", func, msg);
    }
    return t;
}

/* PyTorch's opmath for a host scalar (BinaryOpsKernel.cpp and the CUDA
 * opmath_symmetric_gpu_kernel_with_scalars take iter.original_scalar_value<opmath_t>): when
 * the common dtype is float16 or bfloat16, add, sub and mul (scalar on either side) and the
 * three divisions (scalar divisor only) compute in float32 with the scalar's original value,
 * (float)double or (float)int64, and round once when storing: float16 [1] + 0.1 is
 * fp16(1.0f + 0.1f), not fp16(1 + fp16(0.1)). Every other op (comparisons, maximum, pow,
 * where, clamp, ...) rounds the scalar to the common dtype first, as PyTorch does. Returns the
 * bit mask of such inputs (tensor_kernel_params.ew_opmath_inputs). */
static unsigned opmath_scalar_inputs(const ew_call *c, tensor_ew_op op, tensor_dtype common) {
    if (common != TENSOR_FLOAT16 && common != TENSOR_BFLOAT16) return 0;
    unsigned mask = 0;
    for (int k = 0; k < c->nin; k++) {
        if (c->scalar[k] == NULL) continue;
        switch (op) {
        case TENSOR_EW_ADD:
        case TENSOR_EW_SUB:
        case TENSOR_EW_MUL: mask |= 1u << k; break;
        case TENSOR_EW_DIV:
        case TENSOR_EW_DIV_FLOOR:
        case TENSOR_EW_DIV_TRUNC:
            if (k == 1) mask |= 1u << k;
            break;
        default: break;
        }
    }
    return mask;
}

static tensor_result_type_operand kind_of_tensor(const tensor_t *t) {
    tensor_result_type_operand k;
    k.dtype = t->dtype;
    k.kind = t->ndim == 0 ? TENSOR_OPERAND_ZERO_DIM : TENSOR_OPERAND_DIMENSIONED;
    return k;
}

static tensor_result_type_operand kind_of_scalar(const tensor_scalar *s) {
    tensor_result_type_operand k;
    k.dtype = s->type == TENSOR_SCALAR_FLOAT ? TENSOR_FLOAT64 : s->type == TENSOR_SCALAR_INT ? TENSOR_INT64 : TENSOR_BOOL;
    k.kind = TENSOR_OPERAND_SCALAR;
    return k;
}

/* add/sub's alpha against the result dtype (PyTorch's alpha_check). */
static tensor_status check_alpha(const char *func, const tensor_scalar *alpha, tensor_dtype result) {
    if (alpha->type == TENSOR_SCALAR_BOOL && result != TENSOR_BOOL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'alpha': Boolean alpha only supported for "
                            "Boolean results.", func);
    if (alpha->type == TENSOR_SCALAR_FLOAT && !tensor_dtype_is_floating(result))
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'alpha': For integral input tensors, argument "
                            "alpha must not be a floating point number.", func);
    if ((unsigned)alpha->type > TENSOR_SCALAR_FLOAT)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'alpha' has an unknown scalar type %d", func,
                            (int)alpha->type);
    return TENSOR_OK;
}

/* out= of another shape than the result: PyTorch's resize_output (runtime/resize.c) gives it
 * the broadcast shape of the inputs, row-major, growing its storage if needed (a warning when it
 * had elements). Left to the iterator's errors, without resizing anything: inputs that do not
 * broadcast and an out on another device. Refused: an out sharing storage with an input (the
 * input's elements would move or change under the op; PyTorch gives no defined result there). */
static tensor_status resize_out(const ew_call *c, tensor_device device) {
    tensor_t *out = c->out;
    int ndim = 0;
    int64_t shape[TENSOR_MAX_DIMS];
    for (int k = 0; k < c->nin; k++) {
        const tensor_t *t = c->scalar[k] != NULL ? NULL : c->in[k];
        if (t == NULL) continue; /* a host scalar is 0-d */
        /* align from the right; a size-1 dim takes the other size (0 included) */
        const int nd = t->ndim > ndim ? t->ndim : ndim;
        int64_t merged[TENSOR_MAX_DIMS];
        for (int d = 0; d < nd; d++) {
            const int da = d - (nd - ndim), db = d - (nd - t->ndim);
            const int64_t sa = da >= 0 ? shape[da] : 1, sb = db >= 0 ? t->sizes[db] : 1;
            if (sa != sb && sa != 1 && sb != 1) return TENSOR_OK; /* the iterator's shape error */
            merged[d] = sa == 1 ? sb : sa;
        }
        ndim = nd;
        memcpy(shape, merged, (size_t)nd * sizeof shape[0]);
    }
    bool same = out->ndim == ndim;
    for (int d = 0; same && d < ndim; d++) same = out->sizes[d] == shape[d];
    if (same || !tensor_device_equal(out->storage->device, device)) return TENSOR_OK;
    for (int k = 0; k < c->nin; k++) {
        const tensor_t *t = c->scalar[k] != NULL ? NULL : c->in[k];
        if (t != NULL && t->storage == out->storage) {
            char have[256], want[256];
            return tensor_error(TENSOR_ERR_SHAPE,
                                "%s: argument 'out' has shape %s, not the result shape %s, and shares memory with "
                                "input '%s': it cannot be resized",
                                c->func, tensor_format_shape(have, sizeof have, out->ndim, out->sizes),
                                tensor_format_shape(want, sizeof want, ndim, shape), c->in_names[k]);
        }
    }
    return tensor_resize_output(out, ndim, shape, c->func, NULL);
}

tensor_t *tt_ew_run(const ew_call *c) {
    const char *func = c->func;
    tensor_ew_op op = c->op;
    const int arity = tt_ew_op_arity(op);
    if (arity < 0) return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: unknown op %d", func, (int)op);
    if (arity != c->nin)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: op %s takes %d operand(s), not %d", func,
                                 tensor_ew_op_name(op), arity, c->nin);
    if (c->in_place && c->out == NULL) TENSOR_CHECK_NOT_NULL_P(c->out, func, "self");

    /* operands: tensors (non-NULL) or host scalars; the device is the tensors' */
    tensor_result_type_operand kinds[3];
    const tensor_t *first = c->out;
    for (int k = 0; k < c->nin; k++) {
        if (c->scalar[k] != NULL) {
            if ((unsigned)c->scalar[k]->type > TENSOR_SCALAR_FLOAT)
                return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' has an unknown scalar type %d",
                                         func, c->in_names[k], (int)c->scalar[k]->type);
            kinds[k] = kind_of_scalar(c->scalar[k]);
            continue;
        }
        TENSOR_CHECK_NOT_NULL_P(c->in[k], func, c->in_names[k]);
        kinds[k] = kind_of_tensor(c->in[k]);
        if (first == NULL) first = c->in[k];
    }
    if (first == NULL) return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: no tensor operand", func);
    /* PyTorch's rule: the first CUDA operand decides; 0-d CPU inputs may join it (passed by
     * value, TENSOR_ITER_ALLOW_CPU_SCALARS), any other mix is the iterator's device error. */
    tensor_device device = first->storage->device;
    for (int k = -1; k < c->nin && device.type == TENSOR_DEVICE_CPU; k++) {
        const tensor_t *t = k < 0 ? c->out : c->scalar[k] != NULL ? NULL : c->in[k];
        if (t != NULL && t->storage->device.type != TENSOR_DEVICE_CPU) device = t->storage->device;
    }

    tensor_dtype common, result;
    if (op == TENSOR_EW_COPY || op == TENSOR_EW_FILL) {
        /* the output decides: copy converts into it, fill stores into it */
        if (c->out == NULL) return tensor_error_null(TENSOR_ERR_INTERNAL, "%s: copy without an output", func);
        common = result = c->out->dtype;
    } else if (tt_ew_decide_types(func, &op, kinds, c->nin, &common, &result) != TENSOR_OK) {
        return NULL;
    }
    if ((op == TENSOR_EW_ADD || op == TENSOR_EW_SUB) && check_alpha(func, &c->alpha, result) != TENSOR_OK) return NULL;
    /* pow(int tensor, negative int scalar): PyTorch checks the scalar exponent only */
    if (op == TENSOR_EW_POW && c->scalar[1] != NULL && c->scalar[1]->type == TENSOR_SCALAR_INT && c->scalar[1]->i < 0 &&
        !tensor_dtype_is_floating(common))
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT,
                                 "%s: Integers to negative integer powers are not allowed.", func);

    tensor_dtype out_dtype = result;
    if (c->out != NULL) {
        out_dtype = c->out->dtype;
        if (!tt_ew_can_cast(result, out_dtype))
            return tensor_error_null(TENSOR_ERR_DTYPE, "%s: result type %s can't be cast to the desired output type %s",
                                     func, tensor_dtype_name(result), tensor_dtype_name(out_dtype));
    }

    /* the kernel first: "not implemented for CUDA" before any allocation */
    tensor_kernel_fn kernel = tensor_dispatch_get(tt_ew_op_slot(op), device.type, func);
    if (kernel == NULL) return NULL;

    /* out= (not in place, copy or fill: their output gives the shape) of another shape. A
     * failure after the resize (a kernel error such as ZeroDivisionError) gives out its old
     * shape back: a failing call never changes it (its storage may have grown). */
    const bool may_resize = c->out != NULL && !c->in_place && op != TENSOR_EW_COPY && op != TENSOR_EW_FILL;
    int old_ndim = 0;
    int64_t old_sizes[TENSOR_MAX_DIMS], old_strides[TENSOR_MAX_DIMS];
    if (may_resize) {
        old_ndim = c->out->ndim;
        memcpy(old_sizes, c->out->sizes, sizeof old_sizes);
        memcpy(old_strides, c->out->strides, sizeof old_strides);
        if (resize_out(c, device) != TENSOR_OK) return NULL;
    }

    tensor_t *scalars[3] = {NULL, NULL, NULL};
    /* config and iterator on the stack: iterator/iter_local.h says why */
    tensor_iter_config config, *cfg = &config;
    tensor_iter_t iter_storage, *iter = &iter_storage;
    tt_iter_config_init(cfg, func);
    iter->num_operands = 0; /* nothing for tt_iter_clear to drop until it is built */
    tensor_t *ret = NULL;
    const unsigned opmath = opmath_scalar_inputs(c, op, common);
    for (int k = 0; k < c->nin; k++) {
        if (c->scalar[k] == NULL) continue;
        /* an opmath scalar travels as a float32 0-d tensor: its original value, rounded once
         * to float32 (never to the 16-bit common dtype) */
        scalars[k] = scalar_tensor(c->scalar[k], (opmath >> k) & 1u ? TENSOR_FLOAT32 : common, func);
        if (scalars[k] == NULL) goto done;
    }
    tensor_iter_config_disable(cfg, TENSOR_ITER_SAME_DTYPE);
    tensor_iter_config_enable(cfg, TENSOR_ITER_ALLOW_CPU_SCALARS);
    tensor_iter_config_add_output_dtype(cfg, c->out, out_dtype);
    for (int k = 0; k < c->nin; k++) tensor_iter_config_add_input(cfg, scalars[k] != NULL ? scalars[k] : c->in[k]);
    if (op == TENSOR_EW_COPY || op == TENSOR_EW_FILL || c->in_place)
        tensor_iter_config_declare_static_shape(cfg, c->out->ndim, c->out->sizes);
    if (tt_iter_build_into(cfg, iter) != TENSOR_OK) goto done; /* reports any failed add above */
    if (tensor_iter_numel(iter) > 0) {
        tensor_kernel_params params;
        memset(&params, 0, sizeof params);
        params.ew_op = (int)op;
        params.ew_dtype = (int)common;
        params.ew_opmath_inputs = opmath;
        if (op == TENSOR_EW_ADD || op == TENSOR_EW_SUB) {
            params.scalar = c->alpha.type == TENSOR_SCALAR_FLOAT ? c->alpha.f : (double)c->alpha.i;
            /* PyTorch casts alpha to the common dtype: a bool op's alpha is alpha != 0, so that
             * True + -1 * True stays True */
            params.scalar_i = common == TENSOR_BOOL ? (int64_t)(c->alpha.i != 0) : c->alpha.i;
        } else if (op == TENSOR_EW_FILL) {
            const tensor_scalar *v = &c->alpha; /* fill's value travels in alpha */
            params.scalar = v->type == TENSOR_SCALAR_FLOAT ? v->f : (double)v->i;
            if (v->type == TENSOR_SCALAR_FLOAT)
                params.scalar_i = out_dtype == TENSOR_BOOL ? (v->f != 0.0) : tensor_ew_wrap_i64(out_dtype, tensor_ew_f64_to_i64(v->f));
            else
                params.scalar_i = tensor_ew_wrap_i64(out_dtype, v->i);
        }
        if (kernel(iter, &params) != TENSOR_OK) goto done;
    }
    ret = tensor_iter_output(iter, 0);
done:
    tt_iter_clear(iter);
    tt_iter_config_clear(cfg);
    for (int k = 0; k < 3; k++) tensor_release(scalars[k]);
    if (ret == NULL && may_resize) {
        c->out->ndim = old_ndim;
        memcpy(c->out->sizes, old_sizes, sizeof old_sizes);
        memcpy(c->out->strides, old_strides, sizeof old_strides);
    }
    return ret;
}

tensor_status tt_ew_run_status(const ew_call *call) {
    tensor_t *t = tt_ew_run(call);
    if (t == NULL) return tensor_last_status() != TENSOR_OK ? tensor_last_status() : TENSOR_ERR_INTERNAL;
    tensor_release(t);
    return TENSOR_OK;
}
