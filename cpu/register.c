/* The CPU backend's entry in the dispatch stub table (ops/dispatch.h): one line per op.
 * Called once, by the table's initialisation. */
#include "cpu/cpu_reduce.h"
#include "ops/dispatch.h"

/* cpu/elementwise.c: one kernel per elementwise slot (docs/elementwise.md) */
tensor_status tt_cpu_ew_unary_kernel(tensor_iter_t *iter, const tensor_kernel_params *params);
tensor_status tt_cpu_ew_binary_kernel(tensor_iter_t *iter, const tensor_kernel_params *params);
tensor_status tt_cpu_ew_ternary_kernel(tensor_iter_t *iter, const tensor_kernel_params *params);
tensor_status tt_cpu_ew_copy_kernel(tensor_iter_t *iter, const tensor_kernel_params *params);
tensor_status tt_cpu_ew_fill_kernel(tensor_iter_t *iter, const tensor_kernel_params *params);

void tensor_cpu_register_kernels(void) {
    tensor_dispatch_register(TENSOR_OP_SUM, TENSOR_DEVICE_CPU, tt_cpu_sum_kernel);
    tensor_dispatch_register(TENSOR_OP_NANSUM, TENSOR_DEVICE_CPU, tt_cpu_nansum_kernel);
    tensor_dispatch_register(TENSOR_OP_PROD, TENSOR_DEVICE_CPU, tt_cpu_prod_kernel);
    tensor_dispatch_register(TENSOR_OP_MEAN, TENSOR_DEVICE_CPU, tt_cpu_mean_kernel);
    tensor_dispatch_register(TENSOR_OP_NANMEAN, TENSOR_DEVICE_CPU, tt_cpu_nanmean_kernel);
    tensor_dispatch_register(TENSOR_OP_AMAX, TENSOR_DEVICE_CPU, tt_cpu_amax_kernel);
    tensor_dispatch_register(TENSOR_OP_AMIN, TENSOR_DEVICE_CPU, tt_cpu_amin_kernel);
    tensor_dispatch_register(TENSOR_OP_MAX_DIM, TENSOR_DEVICE_CPU, tt_cpu_max_dim_kernel);
    tensor_dispatch_register(TENSOR_OP_MIN_DIM, TENSOR_DEVICE_CPU, tt_cpu_min_dim_kernel);
    tensor_dispatch_register(TENSOR_OP_ARGMAX, TENSOR_DEVICE_CPU, tt_cpu_argmax_kernel);
    tensor_dispatch_register(TENSOR_OP_ARGMIN, TENSOR_DEVICE_CPU, tt_cpu_argmin_kernel);
    tensor_dispatch_register(TENSOR_OP_VAR_MEAN, TENSOR_DEVICE_CPU, tt_cpu_var_mean_kernel);
    tensor_dispatch_register(TENSOR_OP_NORM, TENSOR_DEVICE_CPU, tt_cpu_norm_kernel);
    tensor_dispatch_register(TENSOR_OP_LOGSUMEXP, TENSOR_DEVICE_CPU, tt_cpu_logsumexp_kernel);
    tensor_dispatch_register(TENSOR_OP_COUNT_NONZERO, TENSOR_DEVICE_CPU, tt_cpu_count_nonzero_kernel);
    tensor_dispatch_register(TENSOR_OP_ALL, TENSOR_DEVICE_CPU, tt_cpu_all_kernel);
    tensor_dispatch_register(TENSOR_OP_ANY, TENSOR_DEVICE_CPU, tt_cpu_any_kernel);
    tensor_dispatch_register(TENSOR_OP_SUM_OF_SQUARES, TENSOR_DEVICE_CPU, tt_cpu_sum_of_squares_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_UNARY, TENSOR_DEVICE_CPU, tt_cpu_ew_unary_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_BINARY, TENSOR_DEVICE_CPU, tt_cpu_ew_binary_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_TERNARY, TENSOR_DEVICE_CPU, tt_cpu_ew_ternary_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_COPY, TENSOR_DEVICE_CPU, tt_cpu_ew_copy_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_FILL, TENSOR_DEVICE_CPU, tt_cpu_ew_fill_kernel);
    tensor_dispatch_register(TENSOR_OP_USER_REDUCE, TENSOR_DEVICE_CPU, tt_cpu_user_reduce_kernel);
}
