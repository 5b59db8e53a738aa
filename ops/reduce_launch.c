#include "ops/reduce_launch.h"

#include <stdio.h>

#include "iterator/iter_local.h"
#include "runtime/error.h"
#include "iterator/iter_internal.h"

/* The reduction iterator of a launch (and of its explain: the same build), in the caller's
 * storage (iterator/iter_local.h: no heap traffic per call). */
static tensor_status build_iter(tensor_iter_t *iter, tensor_t *const *outs, int nout, const tensor_t *in,
                                const char *func) {
    tensor_iter_config cfg;
    tt_iter_config_init(&cfg, func);
    /* Outputs arrive already viewed with the input's rank (size 1, stride 0 on reduced dims). The
     * input keeps its dtype: kernels convert while loading instead of copying the input. */
    tensor_iter_config_enable(&cfg, TENSOR_ITER_REDUCTION | TENSOR_ITER_PROMOTE_INPUTS);
    for (int i = 0; i < nout; i++) tensor_iter_config_add_output_dtype(&cfg, outs[i], tensor_get_dtype(outs[i]));
    tensor_iter_config_add_input(&cfg, in);
    tensor_status st = tt_iter_build_into(&cfg, iter);
    tt_iter_config_clear(&cfg);
    return st;
}

tensor_status tensor_reduce_launch(tensor_op op, tensor_t *const *outs, int nout, const tensor_t *in,
                                   const tensor_kernel_params *params, const char *func) {
    tensor_kernel_fn kernel = tensor_dispatch_get(op, tensor_get_device(in).type, func);
    if (kernel == NULL) return tensor_last_status();
    tensor_iter_t iter;
    if (build_iter(&iter, outs, nout, in, func) != TENSOR_OK) return tensor_last_status();
    tensor_status st = kernel(&iter, params);
    tt_iter_clear(&iter);
    return st;
}

int64_t tensor_reduce_explain_launch(tensor_op op, tensor_t *const *outs, int nout, const tensor_t *in,
                                     const tensor_kernel_params *params, const char *func, char *buf, size_t size) {
    /* The kernel must exist for the explain to mean anything ("not implemented" otherwise). */
    tensor_device_type dev = tensor_get_device(in).type;
    if (tensor_dispatch_get(op, dev, func) == NULL) return -1;
    tensor_iter_t iter;
    if (build_iter(&iter, outs, nout, in, func) != TENSOR_OK) return -1;
    int64_t len = tensor_explain_iter_kernel(&iter, op, dev, params, buf, size);
    tt_iter_clear(&iter);
    return len;
}

int64_t tensor_explain_iter_kernel(tensor_iter_t *iter, tensor_op op, tensor_device_type dev,
                                   const tensor_kernel_params *params, char *buf, size_t size) {
    int64_t len = tensor_iter_explain(iter, buf, size);
    tensor_kernel_explain_fn ex = tensor_dispatch_get_explain(op, dev);
    if (len >= 0 && ex != NULL) {
        size_t off = (size_t)len;
        char *dst = buf != NULL && off < size ? buf + off : NULL;
        int64_t n = ex(iter, params, dst, dst != NULL ? size - off : 0);
        len = n < 0 ? -1 : len + n;
    }
    return len;
}
