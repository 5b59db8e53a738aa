/* The 1- and 2-norms on the CPU through the reduction kit (ops/reduction_kit.h), the loops a
 * user's functor gets: whole runs in place, bfloat16 / float16 converted in registers, rows of
 * outputs across a strided reduced dim (fold_columns). The generic template of cpu_reduce.h
 * converts every element into a tile first and keeps four lanes; the kit's loops ran these
 * norms 1.5-10x faster (docs/perf_log.md). The arithmetic is ops/functors/norm.h's (|x| or
 * x * x added in the value type, the sqrt at the end), in the kit's fixed order: results
 * depend on the shape only, not on the thread count. */
#include "cpu/cpu_reduce.h"
#include "contract/user_reduction.h"
#include "ops/functors/norm.h"
#include "ops/reduction_kit.h"

static float zero_f(void) { return 0.0f; }
static float abs_f(const float *x) { return tensor_fn_abs_f32(x[0]); }
static float square_f(const float *x) { return x[0] * x[0]; }
static float add_f(float a, float b) { return a + b; }
static float same_f(float a, int64_t n) { return (void)n, a; }
static float sqrt_f(float a, int64_t n) { return (void)n, tensor_fn_sqrt_f32(a); }
static double zero_d(void) { return 0.0; }
static double abs_d(const double *x) { return tensor_fn_abs_f64(x[0]); }
static double square_d(const double *x) { return x[0] * x[0]; }
static double add_d(double a, double b) { return a + b; }
static double same_d(double a, int64_t n) { return (void)n, a; }
static double sqrt_d(double a, int64_t n) { return (void)n, tensor_fn_sqrt_f64(a); }

TENSOR_REDUCTION_FNS(norm1_f32, 1, float, float, zero_f, abs_f, add_f, add_f, same_f)
TENSOR_REDUCTION_FNS(norm2_f32, 1, float, float, zero_f, square_f, add_f, add_f, sqrt_f)
TENSOR_REDUCTION_FNS(norm1_f64, 1, double, double, zero_d, abs_d, add_d, add_d, same_d)
TENSOR_REDUCTION_FNS(norm2_f64, 1, double, double, zero_d, square_d, add_d, add_d, sqrt_d)

tensor_status tt_cpu_norm_kit_kernel(struct tensor_iter *iter, const tensor_kernel_params *params, int p) {
    /* the value type follows the output, as the other norms' (tt_cpu_run_by_output) */
    const bool f64 = tensor_iter_dtype(iter, 0) == TENSOR_FLOAT64;
    const tensor_reduction_fns *fns = p == 1 ? (f64 ? &norm1_f64 : &norm1_f32) : (f64 ? &norm2_f64 : &norm2_f32);
    const int64_t nout = tensor_iter_num_output_elements(iter);
    tensor_user_reduce_call call = {"norm", fns, f64 ? TENSOR_REDUCTION_F64 : TENSOR_REDUCTION_F32,
                                    f64 ? sizeof(double) : sizeof(float), NULL,
                                    nout > 0 ? tensor_iter_numel(iter) / nout : 0, NULL, false, NULL, false};
    tensor_kernel_params up = params != NULL ? *params : (tensor_kernel_params){0};
    up.reduction = &call;
    return tt_cpu_user_reduce_kernel(iter, &up);
}
