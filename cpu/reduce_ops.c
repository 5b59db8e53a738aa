/* CPU kernels of the reductions that run their functor through the generic loops of
 * cpu/cpu_reduce.h: prod, amax/amin, max/min with indices, argmax/argmin, var/std (Welford),
 * norm, logsumexp, count_nonzero, all and any.
 *
 * Value types: prod and logsumexp, norm and var (whose outputs are the computation dtype)
 * take theirs from the OUTPUT dtype, so an explicit dtype= casts each element first; the
 * comparisons (amax, max, argmax), count_nonzero and all/any look at the INPUT values as
 * they are. */
#include <math.h>

#include "cpu/cpu_reduce.h"
#include "ops/functors/all.h"
#include "ops/functors/amax.h"
#include "ops/functors/aminmax.h"
#include "ops/functors/any.h"
#include "ops/functors/argmax.h"
#include "ops/functors/count_nonzero.h"
#include "ops/functors/logsumexp.h"
#include "ops/functors/max.h"
#include "ops/functors/norm.h"
#include "ops/functors/prod.h"
#include "ops/functors/welford.h"
#include "runtime/error.h"
#include "iterator/iter_internal.h"

/* ---- prod ---- */
CPU_SIMPLE_REDUCTION(tensor_prod_f32, float, float, float, tt_cpu_store_f32)
CPU_SIMPLE_REDUCTION(tensor_prod_f64, double, double, double, tt_cpu_store_f64)
CPU_SIMPLE_REDUCTION(tensor_prod_i64, int64_t, int64_t, int64_t, tt_cpu_store_i64)

tensor_status tt_cpu_prod_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    return tt_cpu_run_by_output(iter, params, "prod", tensor_prod_f32_cpu_run, tensor_prod_f64_cpu_run, tensor_prod_i64_cpu_run);
}

/* ---- amax / amin ---- */
CPU_SIMPLE_REDUCTION(tensor_amax_f32, float, float, float, tt_cpu_store_f32)
CPU_SIMPLE_REDUCTION(tensor_amax_f64, double, double, double, tt_cpu_store_f64)
CPU_SIMPLE_REDUCTION(tensor_amax_i64, int64_t, int64_t, int64_t, tt_cpu_store_i64)
CPU_SIMPLE_REDUCTION(tensor_amin_f32, float, float, float, tt_cpu_store_f32)
CPU_SIMPLE_REDUCTION(tensor_amin_f64, double, double, double, tt_cpu_store_f64)
CPU_SIMPLE_REDUCTION(tensor_amin_i64, int64_t, int64_t, int64_t, tt_cpu_store_i64)

tensor_status tt_cpu_amax_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    return tt_cpu_run_by_input(iter, params, "amax", tensor_amax_f32_cpu_run, tensor_amax_f64_cpu_run, tensor_amax_i64_cpu_run);
}

tensor_status tt_cpu_amin_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    return tt_cpu_run_by_input(iter, params, "amin", tensor_amin_f32_cpu_run, tensor_amin_f64_cpu_run, tensor_amin_i64_cpu_run);
}

/* ---- aminmax: two outputs of the input's dtype (min, max) ---- */
#define MINMAX_ADAPTERS(SFX, T)                                                                    \
    static inline tensor_minmax_##SFX minmax_##SFX##_id(const cpu_reduce_ctx *c) {                 \
        (void)c;                                                                                   \
        return tensor_aminmax_##SFX##_identity();                                                  \
    }                                                                                              \
    static inline tensor_minmax_##SFX minmax_##SFX##_red(tensor_minmax_##SFX a, T x, int64_t i,    \
                                                         const cpu_reduce_ctx *c) {                \
        (void)c;                                                                                   \
        return tensor_aminmax_##SFX##_reduce(a, x, i);                                             \
    }                                                                                              \
    static inline tensor_minmax_##SFX minmax_##SFX##_comb(tensor_minmax_##SFX a, tensor_minmax_##SFX b, \
                                                          const cpu_reduce_ctx *c) {               \
        (void)c;                                                                                   \
        return tensor_aminmax_##SFX##_combine(a, b);                                               \
    }                                                                                              \
    static inline T minmax_##SFX##_min(tensor_minmax_##SFX a, const cpu_reduce_ctx *c) {           \
        (void)c;                                                                                   \
        return tensor_aminmax_##SFX##_project_min(a);                                              \
    }                                                                                              \
    static inline T minmax_##SFX##_max(tensor_minmax_##SFX a, const cpu_reduce_ctx *c) {           \
        (void)c;                                                                                   \
        return tensor_aminmax_##SFX##_project_max(a);                                              \
    }                                                                                              \
    CPU_DEFINE_INIT_COMBINE(minmax_##SFX, tensor_minmax_##SFX, minmax_##SFX##_id, minmax_##SFX##_comb) \
    CPU_DEFINE_REDUCE_LOOP(minmax_##SFX##_loop, tensor_minmax_##SFX, T, minmax_##SFX##_id,         \
                           minmax_##SFX##_red, minmax_##SFX##_comb)                                \
    CPU_DEFINE_PROJECT2(minmax_##SFX##_project, tensor_minmax_##SFX, minmax_##SFX##_min,           \
                        tt_cpu_store_##SFX, minmax_##SFX##_max, tt_cpu_store_##SFX)                \
    CPU_DEFINE_RUN(minmax_##SFX, tensor_minmax_##SFX)
MINMAX_ADAPTERS(f32, float)
MINMAX_ADAPTERS(f64, double)
MINMAX_ADAPTERS(i64, int64_t)

tensor_status tt_cpu_aminmax_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    if (iter != NULL && iter->num_outputs != 2)
        return tensor_error(TENSOR_ERR_INTERNAL, "cpu aminmax kernel: expected 2 outputs, got %d", iter->num_outputs);
    return tt_cpu_run_by_input(iter, params, "aminmax", minmax_f32_run, minmax_f64_run, minmax_i64_run);
}

/* ---- count_nonzero, all, any: the input values as they are ---- */
CPU_SIMPLE_REDUCTION(tensor_count_nonzero_f32, int64_t, float, int64_t, tt_cpu_store_i64)
CPU_SIMPLE_REDUCTION(tensor_count_nonzero_f64, int64_t, double, int64_t, tt_cpu_store_i64)
CPU_SIMPLE_REDUCTION(tensor_count_nonzero_i64, int64_t, int64_t, int64_t, tt_cpu_store_i64)
CPU_SIMPLE_REDUCTION(tensor_all_f32, bool, float, bool, tt_cpu_store_bool)
CPU_SIMPLE_REDUCTION(tensor_all_f64, bool, double, bool, tt_cpu_store_bool)
CPU_SIMPLE_REDUCTION(tensor_all_i64, bool, int64_t, bool, tt_cpu_store_bool)
CPU_SIMPLE_REDUCTION(tensor_any_f32, bool, float, bool, tt_cpu_store_bool)
CPU_SIMPLE_REDUCTION(tensor_any_f64, bool, double, bool, tt_cpu_store_bool)
CPU_SIMPLE_REDUCTION(tensor_any_i64, bool, int64_t, bool, tt_cpu_store_bool)

tensor_status tt_cpu_count_nonzero_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    return tt_cpu_run_by_input(iter, params, "count_nonzero", tensor_count_nonzero_f32_cpu_run, tensor_count_nonzero_f64_cpu_run,
                            tensor_count_nonzero_i64_cpu_run);
}

tensor_status tt_cpu_all_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    return tt_cpu_run_by_input(iter, params, "all", tensor_all_f32_cpu_run, tensor_all_f64_cpu_run, tensor_all_i64_cpu_run);
}

tensor_status tt_cpu_any_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    return tt_cpu_run_by_input(iter, params, "any", tensor_any_f32_cpu_run, tensor_any_f64_cpu_run, tensor_any_i64_cpu_run);
}

/* ---- logsumexp (integer inputs arrive as float32: the output's value type) ---- */
CPU_SIMPLE_REDUCTION(tensor_logsumexp_f32, tensor_logsumexp_f32, float, float, tt_cpu_store_f32)
CPU_SIMPLE_REDUCTION(tensor_logsumexp_f64, tensor_logsumexp_f64, double, double, tt_cpu_store_f64)

tensor_status tt_cpu_logsumexp_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    return tt_cpu_run_by_output(iter, params, "logsumexp", tensor_logsumexp_f32_cpu_run, tensor_logsumexp_f64_cpu_run, NULL);
}

/* ---- norm: one instantiation per kind of p ---- */
CPU_SIMPLE_REDUCTION(tensor_norm0_f32, float, float, float, tt_cpu_store_f32)
CPU_SIMPLE_REDUCTION(tensor_norm0_f64, double, double, double, tt_cpu_store_f64)
CPU_SIMPLE_REDUCTION(tensor_norminf_f32, float, float, float, tt_cpu_store_f32)
CPU_SIMPLE_REDUCTION(tensor_norminf_f64, double, double, double, tt_cpu_store_f64)
CPU_SIMPLE_REDUCTION(tensor_normninf_f32, float, float, float, tt_cpu_store_f32)
CPU_SIMPLE_REDUCTION(tensor_normninf_f64, double, double, double, tt_cpu_store_f64)

/* General p: the functor takes p (in the value type) from the context. */
#define NORMP_ADAPTERS(SFX, T)                                                                     \
    static inline T normp_##SFX##_id(const cpu_reduce_ctx *c) {                                    \
        (void)c;                                                                                   \
        return tensor_normp_##SFX##_identity();                                                    \
    }                                                                                              \
    static inline T normp_##SFX##_red(T a, T x, int64_t i, const cpu_reduce_ctx *c) {              \
        return tensor_normp_##SFX##_reduce(a, x, i, c->p_##SFX);                                   \
    }                                                                                              \
    static inline T normp_##SFX##_comb(T a, T b, const cpu_reduce_ctx *c) {                        \
        (void)c;                                                                                   \
        return tensor_normp_##SFX##_combine(a, b);                                                 \
    }                                                                                              \
    static inline T normp_##SFX##_proj(T a, const cpu_reduce_ctx *c) {                             \
        return tensor_normp_##SFX##_project(a, c->p_##SFX);                                       \
    }                                                                                              \
    CPU_REDUCTION(normp_##SFX, T, T, normp_##SFX##_id, normp_##SFX##_red, normp_##SFX##_comb,      \
                  normp_##SFX##_proj, tt_cpu_store_##SFX)
NORMP_ADAPTERS(f32, float)
NORMP_ADAPTERS(f64, double)

tensor_status tt_cpu_norm_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    const double p = params ? params->p : 2.0;
    if (p == 0.0) return tt_cpu_run_by_output(iter, params, "norm", tensor_norm0_f32_cpu_run, tensor_norm0_f64_cpu_run, NULL);
    if (p == 1.0 || p == 2.0) return tt_cpu_norm_kit_kernel(iter, params, (int)p); /* cpu/reduce_norm.c */
    if (p == INFINITY)
        return tt_cpu_run_by_output(iter, params, "norm", tensor_norminf_f32_cpu_run, tensor_norminf_f64_cpu_run, NULL);
    if (p == -INFINITY)
        return tt_cpu_run_by_output(iter, params, "norm", tensor_normninf_f32_cpu_run, tensor_normninf_f64_cpu_run, NULL);
    return tt_cpu_run_by_output(iter, params, "norm", normp_f32_run, normp_f64_run, NULL);
}

/* ---- var / std / var_mean / std_mean: Welford, two outputs (var or std, mean) ---- */
#define WELFORD_ADAPTERS(SFX, T)                                                                   \
    static inline tensor_welford_##SFX welford_##SFX##_id(const cpu_reduce_ctx *c) {               \
        (void)c;                                                                                   \
        return tensor_welford_##SFX##_identity();                                                  \
    }                                                                                              \
    static inline tensor_welford_##SFX welford_##SFX##_red(tensor_welford_##SFX a, T x, int64_t i, \
                                                           const cpu_reduce_ctx *c) {              \
        (void)c;                                                                                   \
        return tensor_welford_##SFX##_reduce(a, x, i);                                             \
    }                                                                                              \
    static inline tensor_welford_##SFX welford_##SFX##_comb(tensor_welford_##SFX a,                \
                                                            tensor_welford_##SFX b,                \
                                                            const cpu_reduce_ctx *c) {             \
        (void)c;                                                                                   \
        return tensor_welford_##SFX##_combine(a, b);                                               \
    }                                                                                              \
    static inline T welford_##SFX##_var(tensor_welford_##SFX a, const cpu_reduce_ctx *c) {         \
        return tensor_welford_##SFX##_project_var(a, c->params->correction, c->params->take_sqrt != 0); \
    }                                                                                              \
    static inline T welford_##SFX##_mean(tensor_welford_##SFX a, const cpu_reduce_ctx *c) {        \
        (void)c;                                                                                   \
        return tensor_welford_##SFX##_project_mean(a);                                             \
    }                                                                                              \
    CPU_DEFINE_INIT_COMBINE(welford_##SFX, tensor_welford_##SFX, welford_##SFX##_id, welford_##SFX##_comb) \
    CPU_DEFINE_REDUCE_LOOP(welford_##SFX##_loop, tensor_welford_##SFX, T, welford_##SFX##_id,      \
                           welford_##SFX##_red, welford_##SFX##_comb)                              \
    CPU_DEFINE_PROJECT2(welford_##SFX##_project, tensor_welford_##SFX, welford_##SFX##_var,        \
                        tt_cpu_store_##SFX, welford_##SFX##_mean, tt_cpu_store_##SFX)                    \
    CPU_DEFINE_RUN(welford_##SFX, tensor_welford_##SFX)
WELFORD_ADAPTERS(f64, double)

/* Every floating dtype runs Welford in double on the CPU (as PyTorch's CPU WelfordOps, whose
 * accumulator is double): var(1e7 + arange(10)) in float32 is then 9.1666670, the correctly
 * rounded value, where a float32 Welford gives 9.2222 and PyTorch's two-pass CPU path 9.4444.
 * (ops/functors/welford.h keeps its f32 variant for a backend that wants float32.) */
tensor_status tt_cpu_var_mean_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    static const tensor_kernel_params defaults = {.p = 0.0, .correction = 1.0, .take_sqrt = 0, .factor = 0.0};
    if (iter == NULL || iter->num_outputs != 2 || iter->num_operands != 3)
        return tensor_error(TENSOR_ERR_INTERNAL, "cpu var_mean kernel: expected 2 outputs and 1 input");
    cpu_reduce_ctx ctx;
    tt_cpu_ctx_init(&ctx, iter, params ? params : &defaults, CPU_VAL_F64, iter->operands[0].dtype);
    if (ctx.cvt == NULL) return tensor_error(TENSOR_ERR_DTYPE, "%s: var_mean got an unknown dtype", iter->name);
    return welford_f64_run(iter, &ctx);
}

/* ---- max / min with indices, argmax / argmin ----
 * The index is the reduced linear index the driver reports (computation order). The
 * frontend reduces a single dim (or a flattened input), and one reduced dim is never
 * permuted or merged with another, so it equals the logical index along that dim. */
#define VALIDX_ADAPTERS(OP, SFX, T)                                                                \
    static inline tensor_validx_##SFX OP##_##SFX##_id(const cpu_reduce_ctx *c) {                   \
        (void)c;                                                                                   \
        return tensor_##OP##_##SFX##_identity();                                                   \
    }                                                                                              \
    static inline tensor_validx_##SFX OP##_##SFX##_red(tensor_validx_##SFX a, T x, int64_t i,      \
                                                       const cpu_reduce_ctx *c) {                  \
        (void)c;                                                                                   \
        return tensor_##OP##_##SFX##_reduce(a, x, i);                                              \
    }                                                                                              \
    static inline tensor_validx_##SFX OP##_##SFX##_comb(tensor_validx_##SFX a, tensor_validx_##SFX b, \
                                                        const cpu_reduce_ctx *c) {                 \
        (void)c;                                                                                   \
        return tensor_##OP##_##SFX##_combine(a, b);                                                \
    }                                                                                              \
    static inline T OP##_##SFX##_val(tensor_validx_##SFX a, const cpu_reduce_ctx *c) {             \
        (void)c;                                                                                   \
        return tensor_##OP##_##SFX##_project_value(a);                                             \
    }                                                                                              \
    static inline int64_t OP##_##SFX##_idx(tensor_validx_##SFX a, const cpu_reduce_ctx *c) {       \
        (void)c;                                                                                   \
        return tensor_##OP##_##SFX##_project_index(a);                                             \
    }                                                                                              \
    CPU_DEFINE_INIT_COMBINE(OP##_##SFX, tensor_validx_##SFX, OP##_##SFX##_id, OP##_##SFX##_comb)   \
    CPU_DEFINE_REDUCE_LOOP(OP##_##SFX##_loop, tensor_validx_##SFX, T, OP##_##SFX##_id,             \
                           OP##_##SFX##_red, OP##_##SFX##_comb)                                   \
    CPU_DEFINE_PROJECT2(OP##_##SFX##_project, tensor_validx_##SFX, OP##_##SFX##_val, tt_cpu_store_##SFX, \
                        OP##_##SFX##_idx, tt_cpu_store_i64)                                           \
    CPU_DEFINE_RUN(OP##_##SFX, tensor_validx_##SFX)
VALIDX_ADAPTERS(max, f32, float)
VALIDX_ADAPTERS(max, f64, double)
VALIDX_ADAPTERS(max, i64, int64_t)
VALIDX_ADAPTERS(min, f32, float)
VALIDX_ADAPTERS(min, f64, double)
VALIDX_ADAPTERS(min, i64, int64_t)

tensor_status tt_cpu_max_dim_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    if (iter != NULL && iter->num_outputs != 2)
        return tensor_error(TENSOR_ERR_INTERNAL, "cpu max kernel: expected 2 outputs, got %d", iter->num_outputs);
    return tt_cpu_run_by_input(iter, params, "max", max_f32_run, max_f64_run, max_i64_run);
}

tensor_status tt_cpu_min_dim_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    if (iter != NULL && iter->num_outputs != 2)
        return tensor_error(TENSOR_ERR_INTERNAL, "cpu min kernel: expected 2 outputs, got %d", iter->num_outputs);
    return tt_cpu_run_by_input(iter, params, "min", min_f32_run, min_f64_run, min_i64_run);
}

CPU_SIMPLE_REDUCTION(tensor_argmax_f32, tensor_validx_f32, float, int64_t, tt_cpu_store_i64)
CPU_SIMPLE_REDUCTION(tensor_argmax_f64, tensor_validx_f64, double, int64_t, tt_cpu_store_i64)
CPU_SIMPLE_REDUCTION(tensor_argmax_i64, tensor_validx_i64, int64_t, int64_t, tt_cpu_store_i64)
CPU_SIMPLE_REDUCTION(tensor_argmin_f32, tensor_validx_f32, float, int64_t, tt_cpu_store_i64)
CPU_SIMPLE_REDUCTION(tensor_argmin_f64, tensor_validx_f64, double, int64_t, tt_cpu_store_i64)
CPU_SIMPLE_REDUCTION(tensor_argmin_i64, tensor_validx_i64, int64_t, int64_t, tt_cpu_store_i64)

tensor_status tt_cpu_argmax_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    return tt_cpu_run_by_input(iter, params, "argmax", tensor_argmax_f32_cpu_run, tensor_argmax_f64_cpu_run,
                            tensor_argmax_i64_cpu_run);
}

tensor_status tt_cpu_argmin_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    return tt_cpu_run_by_input(iter, params, "argmin", tensor_argmin_f32_cpu_run, tensor_argmin_f64_cpu_run,
                            tensor_argmin_i64_cpu_run);
}
