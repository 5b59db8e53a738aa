/* tensor_reduce_named / tensor_reduce_named_out: any one-output built-in reduction by the name
 * in its row of contract/reductions.h, so that a reduction added in-tree as a row and a
 * functor is callable with no function of its own. The rows whose public function has its
 * own shape of arguments (argmax/argmin and prod take one dim, norm an order, all/any treat an
 * explicit empty dims list as "none") go through that function, so a name behaves exactly as
 * the function of that name; every other row runs the row's rules directly. */
#include <string.h>

#include "ops/ops.h"
#include "ops/reduce_internal.h"
#include "runtime/error.h"

static tensor_op find_row(const char *op) {
    for (int i = 0; i < TENSOR_NUM_REDUCTION_OPS; i++)
        if (strcmp(op, tensor_op_reduction((tensor_op)i)->name) == 0) return (tensor_op)i;
    return TENSOR_NUM_REDUCTION_OPS;
}

static bool takes_dtype(tensor_reduce_rule rule) { return rule == TENSOR_RULE_SUM || rule == TENSOR_RULE_FLOAT; }

static tensor_t *named(const char *func, const char *op, const tensor_t *t, const int *dims, int ndims, bool keepdim,
                       tensor_dtype dtype) {
    if (op == NULL) return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'op' is NULL", func);
    if (tensor_reduce_check_input(t, func) != TENSOR_OK) return NULL;
    if (dtype != TENSOR_DTYPE_DEFAULT && !tensor_dtype_is_valid(dtype))
        return tensor_error_null(TENSOR_ERR_DTYPE, "%s: unknown dtype %d", func, (int)dtype);
    if (ndims < 0 || (dims == NULL && ndims != 0))
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'ndims' is %d with dims %s", func, ndims,
                                 dims == NULL ? "NULL" : "given");
    const tensor_op k = find_row(op);
    if (k == TENSOR_NUM_REDUCTION_OPS)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'op' names no reduction: '%s'", func, op);
    const tensor_reduction_row *row = tensor_op_reduction(k);
    if (row->nout != 1)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT,
                                 "%s: '%s' has %d outputs: call its own function (tensor_%s...)", func, op, row->nout,
                                 op);
    if (dtype != TENSOR_DTYPE_DEFAULT && !takes_dtype(row->rule))
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: '%s' takes no dtype (its result dtype is fixed)",
                                 func, op);
    tensor_dtype odt;
    if (tensor_reduce_rule_dtype(row->rule, tensor_get_dtype(t), dtype, &odt, func, op) != TENSOR_OK) return NULL;
    const bool one_dim = k == TENSOR_OP_ARGMAX || k == TENSOR_OP_ARGMIN || k == TENSOR_OP_PROD;
    if (one_dim && ndims > 1)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: '%s' reduces one dim or all, not %d dims", func, op,
                                 ndims);
    const int *dim = ndims == 1 ? dims : NULL;
    switch (k) {
    case TENSOR_OP_ARGMAX: return tensor_argmax(t, dim, keepdim);
    case TENSOR_OP_ARGMIN: return tensor_argmin(t, dim, keepdim);
    case TENSOR_OP_PROD: return tensor_prod(t, dim, keepdim, dtype);
    case TENSOR_OP_NORM: return tensor_norm(t, 2.0, dims, ndims, keepdim);
    case TENSOR_OP_ALL: return tensor_all(t, dims, ndims, keepdim);
    case TENSOR_OP_ANY: return tensor_any(t, dims, ndims, keepdim);
    default: {
        const reduce_desc d = tensor_reduce_desc(k, func);
        return tensor_reduce_single(&d, t, dims, ndims, keepdim, odt, NULL);
    }
    }
}

tensor_t *tensor_reduce_named(const char *op, const tensor_t *t, const int *dims, int ndims, bool keepdim,
                              tensor_dtype dtype) {
    return named("tensor_reduce_named", op, t, dims, ndims, keepdim, dtype);
}

tensor_status tensor_reduce_named_out(tensor_t *out, const char *op, const tensor_t *t, const int *dims, int ndims,
                                      bool keepdim) {
    static const char func[] = "tensor_reduce_named_out";
    if (out == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'out' is NULL", func);
    /* out's dtype is the result's: asked for where the row takes a dtype, checked otherwise. */
    tensor_dtype dtype = TENSOR_DTYPE_DEFAULT;
    if (op != NULL) {
        const tensor_op k = find_row(op);
        if (k != TENSOR_NUM_REDUCTION_OPS && takes_dtype(tensor_op_reduction(k)->rule)) dtype = tensor_get_dtype(out);
    }
    return tt_out_finish(func, "out", out, t, named(func, op, t, dims, ndims, keepdim, dtype));
}
