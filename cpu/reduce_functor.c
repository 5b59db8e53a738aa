/* The CPU kernels of the FUNCTOR rows of contract/reductions.h, generated from each row: the
 * functor header's three value types (float, double, int64) through the generic loops, the
 * one the output dtype needs picked per call (as sum: float16 / bfloat16 / float32 / float8
 * outputs reduce in float, float64 in double, integers and bool in wrapping int64). The
 * functor headers come from tt_functor_headers.h, which CMake writes from the same rows. */
#include "cpu/cpu_reduce.h"
#include "tt_functor_headers.h"

#define TT_CPU_FUNCTOR_KERNEL_(KERNEL, NAME)                                                                   \
    CPU_SIMPLE_REDUCTION(tensor_##KERNEL##_f32, float, float, float, tt_cpu_store_f32)                         \
    CPU_SIMPLE_REDUCTION(tensor_##KERNEL##_f64, double, double, double, tt_cpu_store_f64)                      \
    CPU_SIMPLE_REDUCTION(tensor_##KERNEL##_i64, int64_t, int64_t, int64_t, tt_cpu_store_i64)                   \
    tensor_status tt_cpu_##KERNEL##_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {          \
        return tt_cpu_run_by_output(iter, params, NAME, tensor_##KERNEL##_f32_cpu_run, tensor_##KERNEL##_f64_cpu_run, \
                                    tensor_##KERNEL##_i64_cpu_run);                                            \
    }
#define TT_CPU_FUNCTOR_ROW_(ID, KERNEL, NAME, TORCH, NOUT, RULE, HAS_ID, IDENTITY, ALL, KIND) \
    TENSOR_REDUCTION_IF_FUNCTOR(KIND, TT_CPU_FUNCTOR_KERNEL_(KERNEL, NAME))
TENSOR_BUILTIN_REDUCTIONS(TT_CPU_FUNCTOR_ROW_)
