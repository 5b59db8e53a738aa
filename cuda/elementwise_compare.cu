// CUDA elementwise ops: comparisons (bool results).
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

TT_EW_ENTRY(eq, Eq, "binary", -1)
TT_EW_ENTRY(ne, Ne, "binary", -1)
TT_EW_ENTRY(lt, Lt, "binary", -1)
TT_EW_ENTRY(le, Le, "binary", -1)
TT_EW_ENTRY(gt, Gt, "binary", -1)
TT_EW_ENTRY(ge, Ge, "binary", -1)
