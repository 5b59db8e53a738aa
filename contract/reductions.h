/* The built-in reductions: one row each, the single source of every fact about a reduction that
 * is not its math. From these rows come the stub table's slots (TENSOR_OP_*), the names in
 * messages, the backends' registrations (cpu/register.c, cuda/register.c), the output-dtype
 * rules and empty-input rules the public functions and tensor_reduce_explain apply.
 *
 *   X(ID, KERNEL, NAME, TORCH, NOUT, RULE, HAS_IDENTITY, IDENTITY, ALL_IF_NO_DIMS)
 *     ID              the slot: TENSOR_OP_<ID>
 *     KERNEL          the backends' entry names: tt_cpu_<KERNEL>_kernel,
 *                     tensor_cuda_<KERNEL>_kernel / tensor_cuda_<KERNEL>_explain
 *     NAME            its name in messages and in tensor_reduce_explain ("max" for max_dim)
 *     TORCH           PyTorch's prefix in messages ("amax():")
 *     NOUT            outputs (values + indices, var + mean: 2)
 *     RULE            the output dtype (tensor_reduce_rule)
 *     HAS_IDENTITY    an empty reduction gives IDENTITY (else it is an error, as amax's)
 *     ALL_IF_NO_DIMS  an explicit empty dims list reduces every dim (false: none, as all/any)
 *
 * Adding a reduction in-tree: its functor (ops/functors/), its row here, its public function
 * (a few lines over ops/reduce_internal.h), the CPU kernel tt_cpu_<KERNEL>_kernel, its CUDA
 * table rows (cuda/reduce_table.h, an entry in cuda/reduce_entries.cu) and its test. */
#ifndef TENSOR_CONTRACT_REDUCTIONS_H
#define TENSOR_CONTRACT_REDUCTIONS_H

#include <math.h>

#include "tinytensor/runtime/dtype.h"
#include "tinytensor/runtime/export.h"
#include "tinytensor/runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TENSOR_BUILTIN_REDUCTIONS(X)                                                                  \
    X(SUM, sum, "sum", "sum():", 1, TENSOR_RULE_SUM, 1, 0.0, 1)                                       \
    X(NANSUM, nansum, "nansum", "nansum():", 1, TENSOR_RULE_SUM, 1, 0.0, 1)                           \
    X(PROD, prod, "prod", "prod():", 1, TENSOR_RULE_SUM, 1, 1.0, 1)                                   \
    X(MEAN, mean, "mean", "mean():", 1, TENSOR_RULE_FLOAT, 1, NAN, 1)                                 \
    X(NANMEAN, nanmean, "nanmean", "nanmean():", 1, TENSOR_RULE_FLOAT, 1, NAN, 1)                     \
    X(AMAX, amax, "amax", "amax():", 1, TENSOR_RULE_INPUT, 0, 0.0, 1)                                 \
    X(AMIN, amin, "amin", "amin():", 1, TENSOR_RULE_INPUT, 0, 0.0, 1)                                 \
    X(MAX_DIM, max_dim, "max", "max():", 2, TENSOR_RULE_INPUT, 0, 0.0, 1)                             \
    X(MIN_DIM, min_dim, "min", "min():", 2, TENSOR_RULE_INPUT, 0, 0.0, 1)                             \
    X(AMINMAX, aminmax, "aminmax", "aminmax():", 2, TENSOR_RULE_INPUT, 0, 0.0, 1)                     \
    X(ARGMAX, argmax, "argmax", "argmax():", 1, TENSOR_RULE_INT64, 0, 0.0, 1)                         \
    X(ARGMIN, argmin, "argmin", "argmin():", 1, TENSOR_RULE_INT64, 0, 0.0, 1)                         \
    X(VAR_MEAN, var_mean, "var_mean", "var_mean():", 2, TENSOR_RULE_FLOAT, 1, NAN, 1)                 \
    X(NORM, norm, "norm", "linalg.vector_norm:", 1, TENSOR_RULE_FLOAT, 1, 0.0, 1)                     \
    X(LOGSUMEXP, logsumexp, "logsumexp", "logsumexp():", 1, TENSOR_RULE_LOGSUMEXP, 1, -INFINITY, 1)   \
    X(COUNT_NONZERO, count_nonzero, "count_nonzero", "count_nonzero():", 1, TENSOR_RULE_INT64, 1, 0.0, 1) \
    X(ALL, all, "all", "all():", 1, TENSOR_RULE_BOOL, 1, 1.0, 0)                                      \
    X(ANY, any, "any", "any():", 1, TENSOR_RULE_BOOL, 1, 0.0, 0)                                      \
    X(SUM_OF_SQUARES, sum_of_squares, "sum_of_squares", "sum_of_squares():", 1, TENSOR_RULE_SUM, 1, 0.0, 1)

/* How a reduction's (first) output dtype follows from its input's and a requested one. */
typedef enum tensor_reduce_rule {
    TENSOR_RULE_SUM = 0,       /* requested, else integers and bool -> int64, float8 -> float32 */
    TENSOR_RULE_FLOAT = 1,     /* requested or input, which must be floating; float8 -> float32 */
    TENSOR_RULE_INPUT = 2,     /* the input's dtype (amax, max) */
    TENSOR_RULE_INT64 = 3,     /* int64 (argmax, count_nonzero) */
    TENSOR_RULE_BOOL = 4,      /* bool, uint8 for uint8 input (all, any) */
    TENSOR_RULE_LOGSUMEXP = 5  /* floats as TENSOR_RULE_FLOAT, integers and bool -> float32 */
} tensor_reduce_rule;

/* One row, as data. */
typedef struct tensor_reduction_row {
    const char *name;
    const char *torch;
    int nout;
    tensor_reduce_rule rule;
    int has_identity;
    double identity;
    int all_if_no_dims;
} tensor_reduction_row;

/* The output dtype by `rule` for an input of dtype `in`; `requested` is TENSOR_DTYPE_DEFAULT
 * or the caller's dtype= (only the SUM and FLOAT rules take one). TENSOR_ERR_DTYPE when the
 * rule refuses it (a FLOAT rule without a floating dtype): the message starts "<func>: <name>". */
TENSOR_API tensor_status tensor_reduce_rule_dtype(tensor_reduce_rule rule, tensor_dtype in, tensor_dtype requested,
                                                  tensor_dtype *out, const char *func, const char *name);

#ifdef __cplusplus
}
#endif
#endif
