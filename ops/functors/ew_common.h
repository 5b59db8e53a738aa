/* Shared pieces of the elementwise functors (ops/functors/ew_*.h).
 *
 * An elementwise functor is one small pure function per op and COMPUTE TYPE:
 *
 *     OUT tensor_ew_<op>_<sfx>(T a [, T b [, T c]] [, T alpha])
 *
 * where <sfx> names T, the type the op computes in, chosen from the op's common dtype
 * (tensor_kernel_params.ew_dtype) by tensor_ew_compute_kind():
 *     f32 = float   for float16, bfloat16, float32 (16-bit floats compute in float32, as
 *                   PyTorch's opmath, and the result is rounded once when stored);
 *     f64 = double  for float64;
 *     i64 = int64_t for every integer dtype and bool, wrapping (two's complement): storing
 *                   into the narrower result dtype wraps exactly as computing in it would,
 *                   for every op here (add, mul, pow, neg, abs, division's INT_MIN / -1).
 * OUT is T, or bool for predicates (comparisons, logical ops, isnan, ...).
 *
 * The backend converts every input element to the common dtype's value set and then to T
 * while loading (tensor_ew_load_*), and converts the result to the output dtype while storing
 * (tensor_ew_store_*). Functors never see storage dtypes.
 *
 * Rules (the same as the reduction functors', ops/functors/common.h): no C-only constructs,
 * TENSOR_INLINE on every function (static inline in C, __host__ __device__ under nvcc), no
 * undefined behaviour for any input (integer division by zero returns 0: the backend detects
 * it and reports the error, see docs/elementwise.md). */
#ifndef TENSOR_FUNCTORS_EW_COMMON_H
#define TENSOR_FUNCTORS_EW_COMMON_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tinytensor/ops/functors/common.h"
#include "tinytensor/runtime/dtype.h"
#include "tinytensor/runtime/dtype_convert.h"
#include "tinytensor/runtime/hostdevice.h"

/* The compute type of a common dtype. */
typedef enum tensor_ew_compute {
    TENSOR_EW_COMPUTE_F32 = 0,
    TENSOR_EW_COMPUTE_F64 = 1,
    TENSOR_EW_COMPUTE_I64 = 2
} tensor_ew_compute;

TENSOR_INLINE tensor_ew_compute tensor_ew_compute_kind(tensor_dtype common) {
    switch (common) {
    case TENSOR_FLOAT64: return TENSOR_EW_COMPUTE_F64;
    case TENSOR_FLOAT16:
    case TENSOR_BFLOAT16:
    case TENSOR_FLOAT32:
    case TENSOR_FLOAT8_E4M3FN:
    case TENSOR_FLOAT8_E5M2: return TENSOR_EW_COMPUTE_F32;
    default: return TENSOR_EW_COMPUTE_I64;
    }
}

/* Integer wrap: v reduced to the value set of an integer dtype (bool: v != 0). Other dtypes
 * return v. Done through unsigned types: no implementation-defined narrowing. */
TENSOR_INLINE int64_t tensor_ew_wrap_i64(tensor_dtype d, int64_t v) {
    const uint64_t u = (uint64_t)v;
    switch (d) {
    case TENSOR_BOOL: return v != 0;
    case TENSOR_UINT8: return (int64_t)(u & 0xFFu);
    case TENSOR_INT8: { const uint64_t w = u & 0xFFu; return w >= 0x80u ? (int64_t)w - 0x100 : (int64_t)w; }
    case TENSOR_INT16: { const uint64_t w = u & 0xFFFFu; return w >= 0x8000u ? (int64_t)w - 0x10000 : (int64_t)w; }
    case TENSOR_INT32: {
        const uint64_t w = u & 0xFFFFFFFFu;
        return w >= 0x80000000u ? (int64_t)w - INT64_C(0x100000000) : (int64_t)w;
    }
    default: return v;
    }
}

/* float -> int64 truncation toward zero without C's undefined behaviour: NaN and values out
 * of int64's range give INT64_MIN (what x86's cvttsd2si gives, so PyTorch on x86). */
TENSOR_INLINE int64_t tensor_ew_f64_to_i64(double x) {
    return (x > -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}

/* A float rounded to the value set of a narrow float dtype (identity for float32/64). */
TENSOR_INLINE float tensor_ew_round_to_f32(tensor_dtype d, float v) {
    switch (d) {
    case TENSOR_FLOAT16: return tensor_f16_to_f32(tensor_f32_to_f16(v));
    case TENSOR_BFLOAT16: return tensor_bf16_to_f32(tensor_f32_to_bf16(v));
    case TENSOR_FLOAT8_E4M3FN: return tensor_e4m3fn_to_f32(tensor_f32_to_e4m3fn(v));
    case TENSOR_FLOAT8_E5M2: return tensor_e5m2_to_f32(tensor_f32_to_e5m2(v));
    default: return v;
    }
}

/* float16 .. float8_e5m2 (the host's tensor_dtype_is_floating is not callable on a device). */
TENSOR_INLINE bool tensor_ew_is_floating(tensor_dtype d) { return d >= TENSOR_FLOAT16 && d <= TENSOR_FLOAT8_E5M2; }

/* ---- raw element access (p is aligned to the element size, as every tensor element is) ---- */
#define TENSOR_EW_RD(T, p) (*(const T *)(p))
#define TENSOR_EW_WR(T, p, v) (*(T *)(p) = (v))

/* One element of dtype `in` at p, as double (exact for every dtype but int64 > 2^53). */
TENSOR_INLINE double tensor_ew_read_f64(tensor_dtype in, const void *p) {
    switch (in) {
    case TENSOR_BOOL: return TENSOR_EW_RD(uint8_t, p) != 0 ? 1.0 : 0.0;
    case TENSOR_UINT8: return (double)TENSOR_EW_RD(uint8_t, p);
    case TENSOR_INT8: return (double)TENSOR_EW_RD(int8_t, p);
    case TENSOR_INT16: return (double)TENSOR_EW_RD(int16_t, p);
    case TENSOR_INT32: return (double)TENSOR_EW_RD(int32_t, p);
    case TENSOR_INT64: return (double)TENSOR_EW_RD(int64_t, p);
    case TENSOR_FLOAT16: return (double)tensor_f16_to_f32(TENSOR_EW_RD(uint16_t, p));
    case TENSOR_BFLOAT16: return (double)tensor_bf16_to_f32(TENSOR_EW_RD(uint16_t, p));
    case TENSOR_FLOAT32: return (double)TENSOR_EW_RD(float, p);
    case TENSOR_FLOAT64: return TENSOR_EW_RD(double, p);
    case TENSOR_FLOAT8_E4M3FN: return (double)tensor_e4m3fn_to_f32(TENSOR_EW_RD(uint8_t, p));
    case TENSOR_FLOAT8_E5M2: return (double)tensor_e5m2_to_f32(TENSOR_EW_RD(uint8_t, p));
    default: return 0.0;
    }
}

/* One element as float: single rounding for float64 and int64 inputs (as C's conversion). */
TENSOR_INLINE float tensor_ew_read_f32(tensor_dtype in, const void *p) {
    switch (in) {
    case TENSOR_INT64: return (float)TENSOR_EW_RD(int64_t, p);
    case TENSOR_INT32: return (float)TENSOR_EW_RD(int32_t, p);
    case TENSOR_FLOAT64: return (float)TENSOR_EW_RD(double, p);
    default: return (float)tensor_ew_read_f64(in, p); /* exact in double, then exact in float */
    }
}

/* One element as int64: integers exactly, bool 0/1, floats truncated (tensor_ew_f64_to_i64). */
TENSOR_INLINE int64_t tensor_ew_read_i64(tensor_dtype in, const void *p) {
    switch (in) {
    case TENSOR_BOOL: return TENSOR_EW_RD(uint8_t, p) != 0;
    case TENSOR_UINT8: return TENSOR_EW_RD(uint8_t, p);
    case TENSOR_INT8: return TENSOR_EW_RD(int8_t, p);
    case TENSOR_INT16: return TENSOR_EW_RD(int16_t, p);
    case TENSOR_INT32: return TENSOR_EW_RD(int32_t, p);
    case TENSOR_INT64: return TENSOR_EW_RD(int64_t, p);
    default: return tensor_ew_f64_to_i64(tensor_ew_read_f64(in, p));
    }
}

/* ---- loads: element of dtype `in` -> value set of the common dtype `via` -> compute type.
 * This is PyTorch's "inputs are cast to the common dtype" (an int64 0-d operand of an int8
 * op wraps to int8 first; a float64 0-d operand of a float16 op rounds to float16 first). */
TENSOR_INLINE float tensor_ew_load_f32(tensor_dtype in, const void *p, tensor_dtype via) {
    const float v = tensor_ew_read_f32(in, p);
    return in == via ? v : tensor_ew_round_to_f32(via, v);
}
TENSOR_INLINE double tensor_ew_load_f64(tensor_dtype in, const void *p, tensor_dtype via) {
    (void)via; /* via is float64 whenever the compute type is f64 */
    return tensor_ew_read_f64(in, p);
}
TENSOR_INLINE int64_t tensor_ew_load_i64(tensor_dtype in, const void *p, tensor_dtype via) {
    const int64_t v = tensor_ew_read_i64(in, p);
    if (in == TENSOR_BOOL || in == via) return v;
    /* a float input can only reach an integer common dtype in copies (via = the output) */
    if (via == TENSOR_BOOL && tensor_ew_is_floating(in)) return tensor_ew_read_f64(in, p) != 0.0;
    return tensor_ew_wrap_i64(via, v);
}
/* cond of WHERE and any "x != 0" use: NaN is true. */
TENSOR_INLINE bool tensor_ew_load_bool(tensor_dtype in, const void *p) {
    if (tensor_ew_is_floating(in)) return tensor_ew_read_f64(in, p) != 0.0;
    return tensor_ew_read_i64(in, p) != 0;
}

/* ---- stores: compute value -> element of dtype `out` (round to nearest even for floats,
 * truncation toward zero float -> int, wrap int -> narrower int, != 0 for bool) ---- */
TENSOR_INLINE void tensor_ew_store_i64(tensor_dtype out, void *p, int64_t v) {
    switch (out) {
    case TENSOR_BOOL: TENSOR_EW_WR(uint8_t, p, (uint8_t)(v != 0)); break;
    case TENSOR_UINT8: TENSOR_EW_WR(uint8_t, p, (uint8_t)((uint64_t)v & 0xFFu)); break;
    case TENSOR_INT8: TENSOR_EW_WR(int8_t, p, (int8_t)tensor_ew_wrap_i64(TENSOR_INT8, v)); break;
    case TENSOR_INT16: TENSOR_EW_WR(int16_t, p, (int16_t)tensor_ew_wrap_i64(TENSOR_INT16, v)); break;
    case TENSOR_INT32: TENSOR_EW_WR(int32_t, p, (int32_t)tensor_ew_wrap_i64(TENSOR_INT32, v)); break;
    case TENSOR_INT64: TENSOR_EW_WR(int64_t, p, v); break;
    case TENSOR_FLOAT16: TENSOR_EW_WR(uint16_t, p, tensor_f32_to_f16((float)v)); break;
    case TENSOR_BFLOAT16: TENSOR_EW_WR(uint16_t, p, tensor_f32_to_bf16((float)v)); break;
    case TENSOR_FLOAT32: TENSOR_EW_WR(float, p, (float)v); break;
    case TENSOR_FLOAT64: TENSOR_EW_WR(double, p, (double)v); break;
    case TENSOR_FLOAT8_E4M3FN: TENSOR_EW_WR(uint8_t, p, tensor_f32_to_e4m3fn((float)v)); break;
    case TENSOR_FLOAT8_E5M2: TENSOR_EW_WR(uint8_t, p, tensor_f32_to_e5m2((float)v)); break;
    default: break;
    }
}
TENSOR_INLINE void tensor_ew_store_f64(tensor_dtype out, void *p, double v) {
    switch (out) {
    case TENSOR_FLOAT64: TENSOR_EW_WR(double, p, v); break;
    case TENSOR_FLOAT32: TENSOR_EW_WR(float, p, (float)v); break;
    /* narrow floats: double -> float -> narrow, as c10's Half(double) */
    case TENSOR_FLOAT16: TENSOR_EW_WR(uint16_t, p, tensor_f32_to_f16((float)v)); break;
    case TENSOR_BFLOAT16: TENSOR_EW_WR(uint16_t, p, tensor_f32_to_bf16((float)v)); break;
    case TENSOR_FLOAT8_E4M3FN: TENSOR_EW_WR(uint8_t, p, tensor_f32_to_e4m3fn((float)v)); break;
    case TENSOR_FLOAT8_E5M2: TENSOR_EW_WR(uint8_t, p, tensor_f32_to_e5m2((float)v)); break;
    case TENSOR_BOOL: TENSOR_EW_WR(uint8_t, p, (uint8_t)(v != 0.0)); break;
    default: tensor_ew_store_i64(out, p, tensor_ew_f64_to_i64(v)); break;
    }
}
TENSOR_INLINE void tensor_ew_store_f32(tensor_dtype out, void *p, float v) {
    switch (out) {
    case TENSOR_FLOAT32: TENSOR_EW_WR(float, p, v); break;
    case TENSOR_FLOAT16: TENSOR_EW_WR(uint16_t, p, tensor_f32_to_f16(v)); break;
    case TENSOR_BFLOAT16: TENSOR_EW_WR(uint16_t, p, tensor_f32_to_bf16(v)); break;
    default: tensor_ew_store_f64(out, p, (double)v); break;
    }
}
TENSOR_INLINE void tensor_ew_store_bool(tensor_dtype out, void *p, bool v) { tensor_ew_store_i64(out, p, v ? 1 : 0); }

#endif
