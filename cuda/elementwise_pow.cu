// CUDA elementwise ops: pow (float pow is the device's libm: may differ from the CPU by an ulp).
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY2_T(Pow, tensor_ew_pow)
}  // namespace

TT_EW_ENTRY(pow, Pow, "binary", -1)
