// CUDA elementwise ops: exp, exp2, log, log2, log1p, expm1 (the device's libm: may differ from the CPU by
// an ulp).
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_FAMILY1_F(Exp, tensor_ew_exp)
TT_EW_FAMILY1_F(Exp2, tensor_ew_exp2)
TT_EW_FAMILY1_F(Log, tensor_ew_log)
TT_EW_FAMILY1_F(Log2, tensor_ew_log2)
TT_EW_FAMILY1_F(Log1p, tensor_ew_log1p)
TT_EW_FAMILY1_F(Expm1, tensor_ew_expm1)
}  // namespace

TT_EW_ENTRY(exp, Exp, "unary", -1)
TT_EW_ENTRY(exp2, Exp2, "unary", -1)
TT_EW_ENTRY(log, Log, "unary", -1)
TT_EW_ENTRY(log2, Log2, "unary", -1)
TT_EW_ENTRY(log1p, Log1p, "unary", -1)
TT_EW_ENTRY(expm1, Expm1, "unary", -1)
