/* Internal: the CUDA elementwise kernels' entries for the dispatch table (cuda/elementwise_*.cu,
 * cuda/copy.cu), registered by cuda/register.c. Each runs one built iterator whose operands
 * ops/elementwise*.c has checked (docs/elementwise.md). */
#ifndef TENSOR_CUDA_ELEMENTWISE_OPS_H
#define TENSOR_CUDA_ELEMENTWISE_OPS_H

#include "contract/dispatch.h"

#ifdef __cplusplus
extern "C" {
#endif

tensor_status tensor_cuda_ew_unary_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_ew_binary_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_ew_ternary_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_ew_copy_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
tensor_status tensor_cuda_ew_fill_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);

/* Every elementwise op with a CUDA kernel, by arity: X(TENSOR_EW_ suffix, entry name). Each
 * entry, tensor_cuda_ew_<name> (defined in cuda/elementwise_<file>.cu with TT_EW_ENTRY), runs one
 * op; the arity kernels above find it by a table lookup on params->ew_op. */
#define TENSOR_CUDA_EW_UNARY_OPS(X) \
    X(SIGMOID, sigmoid) \
    X(ERF, erf) \
    X(RECIPROCAL, reciprocal) \
    X(GELU, gelu) \
    X(GELU_TANH, gelu_tanh) \
    X(SILU, silu) \
    X(EXP, exp) \
    X(EXP2, exp2) \
    X(LOG, log) \
    X(LOG2, log2) \
    X(LOG1P, log1p) \
    X(EXPM1, expm1) \
    X(SQRT, sqrt) \
    X(RSQRT, rsqrt) \
    X(SIN, sin) \
    X(COS, cos) \
    X(TAN, tan) \
    X(TANH, tanh) \
    X(ISNAN, isnan) \
    X(ISINF, isinf) \
    X(ISFINITE, isfinite) \
    X(LOGICAL_NOT, logical_not) \
    X(BITWISE_NOT, bitwise_not) \
    X(NEG, neg) \
    X(ABS, abs) \
    X(SIGN, sign) \
    X(RELU, relu) \
    X(FLOOR, floor) \
    X(CEIL, ceil) \
    X(ROUND, round) \
    X(TRUNC, trunc)
#define TENSOR_CUDA_EW_BINARY_OPS(X) \
    X(ADD, add) \
    X(SUB, sub) \
    X(MUL, mul) \
    X(EQ, eq) \
    X(NE, ne) \
    X(LT, lt) \
    X(LE, le) \
    X(GT, gt) \
    X(GE, ge) \
    X(DIV, div) \
    X(DIV_FLOOR, div_floor) \
    X(DIV_TRUNC, div_trunc) \
    X(REMAINDER, remainder) \
    X(LOGICAL_AND, logical_and) \
    X(LOGICAL_OR, logical_or) \
    X(LOGICAL_XOR, logical_xor) \
    X(BITWISE_AND, bitwise_and) \
    X(BITWISE_OR, bitwise_or) \
    X(BITWISE_XOR, bitwise_xor) \
    X(MAXIMUM, maximum) \
    X(MINIMUM, minimum) \
    X(FMAX, fmax) \
    X(FMIN, fmin) \
    X(POW, pow)
#define TENSOR_CUDA_EW_TERNARY_OPS(X) \
    X(WHERE, where) \
    X(CLAMP, clamp)

#define TENSOR_CUDA_EW_DECLARE(E, NAME) \
    tensor_status tensor_cuda_ew_##NAME(struct tensor_iter *iter, const tensor_kernel_params *params);
TENSOR_CUDA_EW_UNARY_OPS(TENSOR_CUDA_EW_DECLARE)
TENSOR_CUDA_EW_BINARY_OPS(TENSOR_CUDA_EW_DECLARE)
TENSOR_CUDA_EW_TERNARY_OPS(TENSOR_CUDA_EW_DECLARE)
#undef TENSOR_CUDA_EW_DECLARE

#ifdef __cplusplus
}
#endif
#endif
