// CUDA elementwise ops: maximum, minimum (NaN propagates), fmax, fmin (NaN ignored).
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY2_T(Maximum, tensor_ew_maximum)
TT_EW_FAMILY2_T(Minimum, tensor_ew_minimum)
TT_EW_FAMILY2_T(Fmax, tensor_ew_fmax)
TT_EW_FAMILY2_T(Fmin, tensor_ew_fmin)
}  // namespace

TT_EW_ENTRY(maximum, Maximum, "binary", -1)
TT_EW_ENTRY(minimum, Minimum, "binary", -1)
TT_EW_ENTRY(fmax, Fmax, "binary", -1)
TT_EW_ENTRY(fmin, Fmin, "binary", -1)
