/* The CPU backend's entry in the dispatch stub table (contract/dispatch.h): its reductions
 * from the rows of contract/reductions.h, then the other slots. Called once, by the table's
 * initialisation (backends/backends.c). */
#include "cpu/cpu_reduce.h"
#include "contract/dispatch.h"

/* cpu/elementwise.c: one kernel per elementwise slot (docs/elementwise.md) */
tensor_status tt_cpu_ew_unary_kernel(tensor_iter_t *iter, const tensor_kernel_params *params);
tensor_status tt_cpu_ew_binary_kernel(tensor_iter_t *iter, const tensor_kernel_params *params);
tensor_status tt_cpu_ew_ternary_kernel(tensor_iter_t *iter, const tensor_kernel_params *params);
tensor_status tt_cpu_ew_copy_kernel(tensor_iter_t *iter, const tensor_kernel_params *params);
tensor_status tt_cpu_ew_fill_kernel(tensor_iter_t *iter, const tensor_kernel_params *params);

void tt_cpu_register_kernels(void) {
    /* Every built-in reduction of contract/reductions.h: tt_cpu_<KERNEL>_kernel. */
#define REG_(ID, KERNEL, NAME, TORCH, NOUT, RULE, HAS_ID, IDENTITY, ALL, KIND) \
    tensor_dispatch_register(TENSOR_OP_##ID, TENSOR_DEVICE_CPU, tt_cpu_##KERNEL##_kernel);
    TENSOR_BUILTIN_REDUCTIONS(REG_)
#undef REG_
    tensor_dispatch_register(TENSOR_OP_EW_UNARY, TENSOR_DEVICE_CPU, tt_cpu_ew_unary_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_BINARY, TENSOR_DEVICE_CPU, tt_cpu_ew_binary_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_TERNARY, TENSOR_DEVICE_CPU, tt_cpu_ew_ternary_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_COPY, TENSOR_DEVICE_CPU, tt_cpu_ew_copy_kernel);
    tensor_dispatch_register(TENSOR_OP_EW_FILL, TENSOR_DEVICE_CPU, tt_cpu_ew_fill_kernel);
    tensor_dispatch_register(TENSOR_OP_USER_REDUCE, TENSOR_DEVICE_CPU, tt_cpu_user_reduce_kernel);
    tensor_dispatch_register(TENSOR_OP_SCAN, TENSOR_DEVICE_CPU, tt_cpu_scan_kernel);
}
