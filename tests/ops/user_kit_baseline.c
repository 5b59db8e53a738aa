/* The kit's callbacks compiled without the AVX2 copy of its loops, for test_user_reduction.c:
 * on a CPU with AVX2 the kit takes that copy, and the two must give the same bits. */
#define TENSOR_REDUCTION_KIT_NO_AVX2
#include <math.h>

#include "ops/reduction_kit.h"

tensor_reduction_fns tt_test_kit_baseline_sum(void);
tensor_reduction_fns tt_test_kit_baseline_abs_sum(void);

static float zero_f(void) { return 0.0f; }
static float first_f(const float *x) { return x[0]; }
static float abs_f(const float *x) { return fabsf(x[0]); }
static float add_f(float a, float b) { return a + b; }
static float same_f(float a, int64_t n) { return (void)n, a; }
TENSOR_REDUCTION_FNS(base_sum, 1, float, float, zero_f, first_f, add_f, add_f, same_f)
TENSOR_REDUCTION_FNS(base_abs_sum, 1, float, float, zero_f, abs_f, add_f, add_f, same_f)

tensor_reduction_fns tt_test_kit_baseline_sum(void) { return base_sum; }
tensor_reduction_fns tt_test_kit_baseline_abs_sum(void) { return base_abs_sum; }
