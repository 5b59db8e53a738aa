/* The CUDA elementwise entries of the dispatch table, one per arity: each looks the op up in a
 * table indexed by params->ew_op, built from the op lists of cuda/elementwise_ops.h. Plain C: no
 * kernel lives here. */
#include <stddef.h>

#include "cuda/elementwise_ops.h"
#include "ops/elementwise.h"
#include "runtime/error.h"

#define SLOT(E, NAME) [TENSOR_EW_##E] = tensor_cuda_ew_##NAME,

static const tensor_kernel_fn unary_ops[TENSOR_EW_NUM_OPS] = {TENSOR_CUDA_EW_UNARY_OPS(SLOT)};
static const tensor_kernel_fn binary_ops[TENSOR_EW_NUM_OPS] = {TENSOR_CUDA_EW_BINARY_OPS(SLOT)};
static const tensor_kernel_fn ternary_ops[TENSOR_EW_NUM_OPS] = {TENSOR_CUDA_EW_TERNARY_OPS(SLOT)};

static tensor_status run_op(const tensor_kernel_fn *table, struct tensor_iter *iter, const tensor_kernel_params *p,
                            const char *func, const char *arity) {
    if (iter == NULL || p == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func, iter ? "params" : "iter");
    if (p->ew_op < 0 || p->ew_op >= TENSOR_EW_NUM_OPS || table[p->ew_op] == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: op %d is not a %s elementwise op", func, p->ew_op, arity);
    return table[p->ew_op](iter, p);
}

tensor_status tensor_cuda_ew_unary_kernel(struct tensor_iter *iter, const tensor_kernel_params *p) {
    return run_op(unary_ops, iter, p, "tensor_unary (CUDA)", "unary");
}

tensor_status tensor_cuda_ew_binary_kernel(struct tensor_iter *iter, const tensor_kernel_params *p) {
    return run_op(binary_ops, iter, p, "tensor_binary (CUDA)", "binary");
}

tensor_status tensor_cuda_ew_ternary_kernel(struct tensor_iter *iter, const tensor_kernel_params *p) {
    return run_op(ternary_ops, iter, p, "tensor_ternary (CUDA)", "ternary");
}
