// CUDA elementwise ops, one part of the unary/binary switch (one file per few ops so that the
// kernels compile in parallel): comparisons (bool results).
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY2(Eq, tensor_ew_eq, bool)
TT_EW_FAMILY2(Ne, tensor_ew_ne, bool)
TT_EW_FAMILY2(Lt, tensor_ew_lt, bool)
TT_EW_FAMILY2(Le, tensor_ew_le, bool)
TT_EW_FAMILY2(Gt, tensor_ew_gt, bool)
TT_EW_FAMILY2(Ge, tensor_ew_ge, bool)
}  // namespace

extern "C" tensor_status tensor_cuda_ew_part_compare(tensor_iter_t *iter, const tensor_kernel_params *p, int *handled) {
    const char *func = "tensor_binary (CUDA)";
    *handled = 1;
    switch (p->ew_op) {
    case TENSOR_EW_EQ: return run<Eq>(iter, p, -1, func);
    case TENSOR_EW_NE: return run<Ne>(iter, p, -1, func);
    case TENSOR_EW_LT: return run<Lt>(iter, p, -1, func);
    case TENSOR_EW_LE: return run<Le>(iter, p, -1, func);
    case TENSOR_EW_GT: return run<Gt>(iter, p, -1, func);
    case TENSOR_EW_GE: return run<Ge>(iter, p, -1, func);
    default: *handled = 0; return TENSOR_ERR_NOT_IMPLEMENTED;
    }
}
