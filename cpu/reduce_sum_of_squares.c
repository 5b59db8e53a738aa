/* CPU kernel of sum_of_squares, the worked example of docs/functors.md: the functor header
 * instantiated by the generic loops, nothing else. The value type follows the output dtype,
 * as for sum (float16/bfloat16/float32/float8 -> float, float64 -> double, integers and bool
 * -> int64, wrapping). */
#include "cpu/cpu_reduce.h"
#include "ops/functors/sum_of_squares.h"

/*                   functor prefix             acc type value    result   store into the output */
CPU_SIMPLE_REDUCTION(tensor_sum_of_squares_f32, float, float, float, tt_cpu_store_f32)
CPU_SIMPLE_REDUCTION(tensor_sum_of_squares_f64, double, double, double, tt_cpu_store_f64)
CPU_SIMPLE_REDUCTION(tensor_sum_of_squares_i64, int64_t, int64_t, int64_t, tt_cpu_store_i64)

tensor_status tt_cpu_sum_of_squares_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    return tt_cpu_run_by_output(iter, params, "sum_of_squares", tensor_sum_of_squares_f32_cpu_run,
                             tensor_sum_of_squares_f64_cpu_run, tensor_sum_of_squares_i64_cpu_run);
}
