/* Element types: names, sizes, categories, PyTorch's promotion rules, and scalar conversions.
 * The bit-level float conversions (float16, bfloat16, float8) live in runtime/dtype_convert.h
 * as inline functions shared with CUDA kernels; this header gives their out-of-line forms. */
#ifndef TENSOR_DTYPE_H
#define TENSOR_DTYPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "tinytensor/runtime/export.h"
#include "tinytensor/runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values are fixed forever; new dtypes are appended before TENSOR_NUM_DTYPES. */
typedef enum tensor_dtype {
    TENSOR_DTYPE_DEFAULT = -1, /* "not given": ops pick their PyTorch default (never a tensor's dtype) */
    TENSOR_BOOL = 0,
    TENSOR_UINT8 = 1,
    TENSOR_INT8 = 2,
    TENSOR_INT16 = 3,
    TENSOR_INT32 = 4,
    TENSOR_INT64 = 5,
    TENSOR_FLOAT16 = 6,
    TENSOR_BFLOAT16 = 7,
    TENSOR_FLOAT32 = 8,
    TENSOR_FLOAT64 = 9,
    TENSOR_FLOAT8_E4M3FN = 10,
    TENSOR_FLOAT8_E5M2 = 11,
    TENSOR_NUM_DTYPES
} tensor_dtype;

/* Promotion categories, ordered: a higher category wins. */
typedef enum tensor_dtype_category {
    TENSOR_CATEGORY_BOOL = 0,
    TENSOR_CATEGORY_INTEGER = 1,
    TENSOR_CATEGORY_FLOATING = 2
} tensor_dtype_category;

/* true for the values of tensor_dtype above. */
TENSOR_API bool tensor_dtype_is_valid(tensor_dtype dtype);
/* PyTorch's name without the "torch." prefix ("float32", "bfloat16", "float8_e4m3fn");
 * "invalid" for an unknown value. Never NULL; static storage. */
TENSOR_API const char *tensor_dtype_name(tensor_dtype dtype);
/* Bytes per element; 0 for an unknown dtype. */
TENSOR_API size_t tensor_dtype_size(tensor_dtype dtype);
TENSOR_API tensor_dtype_category tensor_dtype_category_of(tensor_dtype dtype);
TENSOR_API bool tensor_dtype_is_floating(tensor_dtype dtype); /* f16, bf16, f32, f64, f8 */
TENSOR_API bool tensor_dtype_is_integer(tensor_dtype dtype);  /* u8, i8, i16, i32, i64 (not bool) */
TENSOR_API bool tensor_dtype_is_signed(tensor_dtype dtype);

/* torch.promote_types(a, b): writes the result to *out. Float8 with any other dtype is
 * TENSOR_ERR_DTYPE ("Promotion for Float8 Types is not supported ..."), as in PyTorch;
 * float8 with the same float8 gives itself. Unknown dtypes are TENSOR_ERR_DTYPE. */
TENSOR_API tensor_status tensor_promote_types(tensor_dtype a, tensor_dtype b, tensor_dtype *out);

/* One operand of a result-type computation (torch.result_type over several operands). */
typedef enum tensor_operand_kind {
    TENSOR_OPERAND_DIMENSIONED = 0, /* a tensor with ndim >= 1 */
    TENSOR_OPERAND_ZERO_DIM = 1,    /* a 0-d tensor: weak within its category */
    TENSOR_OPERAND_SCALAR = 2       /* a host scalar (bool, int64 or double): weakest */
} tensor_operand_kind;

typedef struct tensor_result_type_operand {
    tensor_dtype dtype; /* for SCALAR: TENSOR_BOOL, TENSOR_INT64 or TENSOR_FLOAT64 */
    tensor_operand_kind kind;
} tensor_result_type_operand;

/* The result dtype of an elementwise op over n operands: the highest
 * category wins; within it dimensioned tensors decide, then 0-d tensors, then the category's
 * default (int64 for ints, float32 for floats, bool). n must be >= 1. */
TENSOR_API tensor_status tensor_result_type(const tensor_result_type_operand *operands, int n,
                                            tensor_dtype *out);

/* Scalar conversions, out of line (the inline forms are in runtime/dtype_convert.h).
 * float -> 16/8-bit: round to nearest even; NaN stays NaN; float16/bfloat16/e5m2 overflow to
 * +-Inf; e4m3fn has no Inf: beyond 464 (rounds past 448) and +-Inf give NaN, as c10 does (no
 * saturation). See dtype_convert.h for each rule and the NaN bit patterns. */
TENSOR_API float tensor_float16_to_float(uint16_t bits);
TENSOR_API uint16_t tensor_float_to_float16(float value);
TENSOR_API float tensor_bfloat16_to_float(uint16_t bits);
TENSOR_API uint16_t tensor_float_to_bfloat16(float value);
TENSOR_API float tensor_float8_e4m3fn_to_float(uint8_t bits);
TENSOR_API uint8_t tensor_float_to_float8_e4m3fn(float value);
TENSOR_API float tensor_float8_e5m2_to_float(uint8_t bits);
TENSOR_API uint8_t tensor_float_to_float8_e5m2(float value);

/* Reads one element of `dtype` at `src` as double (ints exactly up to 2^53; bool 0/1). */
TENSOR_API double tensor_dtype_load_double(tensor_dtype dtype, const void *src);
/* Writes `value` as one element of `dtype` at `dst`, with PyTorch's cast rules: floats round
 * to nearest even (narrow floats via float, as c10), float -> int truncates toward zero
 * (out-of-range is undefined in C; here NaN and values outside int64 give INT64_MIN, as x86
 * does, and narrower ints keep the low bits of the int64), anything -> bool is value != 0
 * (NaN is true). An unknown dtype or NULL dst writes nothing. */
TENSOR_API void tensor_dtype_store_double(tensor_dtype dtype, void *dst, double value);
/* Exact int64 forms for integer dtypes (no rounding through double). */
TENSOR_API int64_t tensor_dtype_load_int64(tensor_dtype dtype, const void *src);
TENSOR_API void tensor_dtype_store_int64(tensor_dtype dtype, void *dst, int64_t value);

#ifdef __cplusplus
}
#endif
#endif
