/* The CUDA elementwise entries of the dispatch table: each slot tries the parts of its switch
 * (cuda/elementwise_<part>.cu) in turn. Plain C: no kernel lives here. */
#include <stddef.h>

#include "cuda/elementwise_ops.h"
#include "ops/elementwise.h"
#include "runtime/error.h"

typedef tensor_status (*part_fn)(struct tensor_iter *, const tensor_kernel_params *, int *);

static tensor_status chain(const part_fn *parts, size_t n, struct tensor_iter *iter, const tensor_kernel_params *p,
                           const char *func, const char *arity) {
    if (iter == NULL || p == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func, iter ? "params" : "iter");
    for (size_t k = 0; k < n; k++) {
        int handled = 0;
        tensor_status st = parts[k](iter, p, &handled);
        if (handled) return st;
    }
    return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: op %d is not a %s elementwise op", func, p->ew_op, arity);
}

tensor_status tensor_cuda_ew_unary_kernel(struct tensor_iter *iter, const tensor_kernel_params *p) {
    static const part_fn parts[] = {tensor_cuda_ew_part_unary, tensor_cuda_ew_part_pred, tensor_cuda_ew_part_math_exp,
                                    tensor_cuda_ew_part_math_trig, tensor_cuda_ew_part_math_act};
    return chain(parts, sizeof parts / sizeof parts[0], iter, p, "tensor_unary (CUDA)", "unary");
}

tensor_status tensor_cuda_ew_binary_kernel(struct tensor_iter *iter, const tensor_kernel_params *p) {
    static const part_fn parts[] = {tensor_cuda_ew_part_add,     tensor_cuda_ew_part_div,     tensor_cuda_ew_part_pow,
                                    tensor_cuda_ew_part_minmax,  tensor_cuda_ew_part_compare, tensor_cuda_ew_part_logical};
    return chain(parts, sizeof parts / sizeof parts[0], iter, p, "tensor_binary (CUDA)", "binary");
}
