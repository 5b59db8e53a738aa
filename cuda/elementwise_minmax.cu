// CUDA elementwise ops, one part of the unary/binary switch (one file per few ops so that the
// kernels compile in parallel): maximum, minimum (NaN propagates), fmax, fmin (NaN ignored).
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY2_T(Maximum, tensor_ew_maximum)
TT_EW_FAMILY2_T(Minimum, tensor_ew_minimum)
TT_EW_FAMILY2_T(Fmax, tensor_ew_fmax)
TT_EW_FAMILY2_T(Fmin, tensor_ew_fmin)
}  // namespace

extern "C" tensor_status tensor_cuda_ew_part_minmax(tensor_iter_t *iter, const tensor_kernel_params *p, int *handled) {
    const char *func = "tensor_binary (CUDA)";
    *handled = 1;
    switch (p->ew_op) {
    case TENSOR_EW_MAXIMUM: return run<Maximum>(iter, p, -1, func);
    case TENSOR_EW_MINIMUM: return run<Minimum>(iter, p, -1, func);
    case TENSOR_EW_FMAX: return run<Fmax>(iter, p, -1, func);
    case TENSOR_EW_FMIN: return run<Fmin>(iter, p, -1, func);
    default: *handled = 0; return TENSOR_ERR_NOT_IMPLEMENTED;
    }
}
