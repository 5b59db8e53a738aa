// CUDA elementwise ops, one part of the unary/binary switch (one file per few ops so that the
// kernels compile in parallel): pow (float pow is the device's libm: may differ from the CPU by an ulp).
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY2_T(Pow, tensor_ew_pow)
}  // namespace

extern "C" tensor_status tensor_cuda_ew_part_pow(tensor_iter_t *iter, const tensor_kernel_params *p, int *handled) {
    const char *func = "tensor_binary (CUDA)";
    *handled = 1;
    switch (p->ew_op) {
    case TENSOR_EW_POW: return run<Pow>(iter, p, -1, func);
    default: *handled = 0; return TENSOR_ERR_NOT_IMPLEMENTED;
    }
}
