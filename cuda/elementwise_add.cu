// CUDA elementwise ops: add, sub (with alpha) and mul.
#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"

namespace {
using namespace tt_ew;

// a + alpha * b with the product rounded on its own: nvcc would contract the C functor's
// expression into one FMA (-fmad=true is its default), which rounds once and so differs from
// the CPU backend (C11 mode: no contraction) whenever alpha != 1. __fmul_rn is never fused.
__device__ __forceinline__ float add_f32(float a, float b, float al) { return __fadd_rn(a, __fmul_rn(al, b)); }
__device__ __forceinline__ double add_f64(double a, double b, double al) { return __dadd_rn(a, __dmul_rn(al, b)); }
__device__ __forceinline__ float sub_f32(float a, float b, float al) { return __fsub_rn(a, __fmul_rn(al, b)); }
__device__ __forceinline__ double sub_f64(double a, double b, double al) { return __dsub_rn(a, __dmul_rn(al, b)); }

TT_EW_OP2A(AddF32, add_f32, float)
TT_EW_OP2A(AddF64, add_f64, double)
TT_EW_OP2A(AddI64, tensor_ew_add_i64, int64_t)
using Add = Family<AddF32, AddF64, AddI64>;
TT_EW_OP2A(SubF32, sub_f32, float)
TT_EW_OP2A(SubF64, sub_f64, double)
TT_EW_OP2A(SubI64, tensor_ew_sub_i64, int64_t)
using Sub = Family<SubF32, SubF64, SubI64>;
TT_EW_FAMILY2_T(Mul, tensor_ew_mul)
}  // namespace

TT_EW_ENTRY(add, Add, "binary", -1)
TT_EW_ENTRY(sub, Sub, "binary", -1)
TT_EW_ENTRY(mul, Mul, "binary", -1)
