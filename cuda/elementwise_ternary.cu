// where(cond, a, b) and clamp(x, lo, hi) on CUDA. where's condition is loaded as bool (input 0,
// EwCasts' bool_input) and reaches the functor as 0 / 1 in the compute type.
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

TT_EW_OP3(WhereF32, tensor_ew_where_f32(a != 0.0f, b, c), float, float)
TT_EW_OP3(WhereF64, tensor_ew_where_f64(a != 0.0, b, c), double, double)
TT_EW_OP3(WhereI64, tensor_ew_where_i64(a != 0, b, c), int64_t, int64_t)
using Where = Family<WhereF32, WhereF64, WhereI64>;
TT_EW_OP3(ClampF32, tensor_ew_clamp_f32(a, b, c), float, float)
TT_EW_OP3(ClampF64, tensor_ew_clamp_f64(a, b, c), double, double)
TT_EW_OP3(ClampI64, tensor_ew_clamp_i64(a, b, c), int64_t, int64_t)
using Clamp = Family<ClampF32, ClampF64, ClampI64>;
}  // namespace

TT_EW_ENTRY(where, Where, "ternary", 0)
TT_EW_ENTRY(clamp, Clamp, "ternary", -1)
