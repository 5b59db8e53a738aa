/* Bit-level conversions between float32 and the narrow float formats (float16, bfloat16,
 * float8_e4m3fn, float8_e5m2), as inline functions that compile as C11 and as CUDA C++.
 *
 * Kernels convert while loading (design.md §6), so these sit on every hot path: they are
 * integer bit manipulation plus selects, with no float arithmetic that FTZ/DAZ modes or
 * -ffast-math could change. The same code runs on host and device on purpose, so that a
 * CPU and a CUDA result are bitwise equal, NaNs included (the hardware cvt instructions
 * canonicalize NaNs differently).
 *
 * Rules (PyTorch's c10 conversions and the OCP FP8 spec):
 * - float -> narrow rounds to nearest, ties to even, with subnormal results where the
 *   format has them; signed zeros are kept.
 * - A NaN gives a quiet NaN of the same sign (float16 0x7E00, bfloat16 0x7FC0, both float8
 *   0x7F, plus the sign bit). c10 drops the sign of a bfloat16 NaN; we keep it, so every
 *   format treats the sign alike.
 * - float16, bfloat16, float8_e5m2: a value that rounds beyond the largest finite value is
 *   +-Inf, and +-Inf stays +-Inf.
 * - float8_e4m3fn has no Inf: a value that rounds beyond 448 (that is |x| > 464), and +-Inf,
 *   give NaN (0x7F / 0xFF). This is c10's Float8_e4m3fn behaviour (non-saturating); the OCP
 *   spec leaves saturation to the caller, and torch does not saturate in casts.
 * - narrow -> float is exact; a NaN stays a NaN of the same sign (float16/e5m2/bfloat16 keep
 *   the payload, quieted for float16/e5m2). */
#ifndef TENSOR_DTYPE_CONVERT_H
#define TENSOR_DTYPE_CONVERT_H

#include <stdint.h>
#include <string.h>

#include "runtime/hostdevice.h"

TENSOR_INLINE uint32_t tensor_cvt_float_bits(float f) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(f);
#else
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
#endif
}

TENSOR_INLINE float tensor_cvt_bits_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
#endif
}

/* |x| (float32 bits, sign cleared, not NaN) rounded to nearest-even into a format with
 * `mbits` mantissa bits and exponent bias `bias`, returned as the format's encoding without
 * sign; may exceed the largest finite encoding (the caller maps that to Inf or NaN). One
 * formula for every binade: the result quantum is 2^(max(e, emin) - mbits), so subnormal
 * outputs are just a larger right shift, and a round-up that carries into the next binade
 * (or from the largest subnormal into the smallest normal) falls out of the addition. All
 * parameters are compile-time constants at every call, so this folds to a few instructions. */
TENSOR_INLINE uint32_t tensor_cvt_round_abs(uint32_t abs_bits, int mbits, int bias) {
    const uint32_t e = abs_bits >> 23;
    const uint32_t is_normal = (uint32_t)(e != 0);
    const uint32_t mant = (abs_bits & 0x7FFFFFu) | (is_normal << 23);
    /* float32 subnormals have the exponent of the smallest normal, without the hidden bit */
    const int32_t e1 = (int32_t)(e + (is_normal ^ 1u));
    /* how far below the target's smallest normal exponent the value lies (0 when normal) */
    int32_t deficit = (128 - bias) - e1;
    deficit = deficit > 0 ? deficit : 0;
    /* mant < 2^24, so from a shift of 25 on everything rounds to 0; 31 keeps shifts defined */
    int32_t shift = 23 - mbits + deficit;
    shift = shift < 31 ? shift : 31;
    uint32_t q = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1);
    q += (uint32_t)(rem > half) | ((uint32_t)(rem == half) & q & 1u);
    /* q includes the hidden bit, so a normal result adds (biased exponent - 1) << mbits */
    int32_t ebase = e1 - 127 + bias - 1;
    ebase = ebase > 0 ? ebase : 0;
    return q + ((uint32_t)ebase << mbits);
}

/* float32 from a narrow encoding `a` (sign cleared) with `mbits` mantissa bits and bias
 * `bias`, for finite values only (the caller selects Inf/NaN). A subnormal m * 2^(1-bias-mbits)
 * takes its normalized exponent from the exact int -> float conversion of m, shifted by the
 * scale in the exponent field: no clz (not portable C) and no float arithmetic. */
TENSOR_INLINE uint32_t tensor_cvt_widen_finite(uint32_t a, int mbits, int bias) {
    const uint32_t m = a & ((1u << mbits) - 1u);
    const uint32_t normal = (a << (23 - mbits)) + ((uint32_t)(127 - bias) << 23);
    const uint32_t sub = tensor_cvt_float_bits((float)m) - ((uint32_t)(bias + mbits - 1) << 23);
    const uint32_t is_sub = (uint32_t)((a >> mbits) == 0);
    return is_sub ? (m != 0 ? sub : 0u) : normal;
}

/* ---- float16: 1.5.10, bias 15, max 65504 ---- */

TENSOR_INLINE float tensor_f16_to_f32(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t a = h & 0x7FFFu;
    const uint32_t finite = tensor_cvt_widen_finite(a, 10, 15);
    /* Inf keeps m = 0; a NaN keeps its payload and gets the quiet bit */
    const uint32_t m = a & 0x3FFu;
    const uint32_t special = 0x7F800000u | (m << 13) | (m != 0 ? 0x00400000u : 0u);
    return tensor_cvt_bits_float(sign | (a >= 0x7C00u ? special : finite));
}

TENSOR_INLINE uint16_t tensor_f32_to_f16(float f) {
    const uint32_t x = tensor_cvt_float_bits(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t abs_bits = x & 0x7FFFFFFFu;
    uint32_t r = tensor_cvt_round_abs(abs_bits, 10, 15);
    r = r > 0x7BFFu ? 0x7C00u : r;
    r = abs_bits > 0x7F800000u ? 0x7E00u : r;
    return (uint16_t)(r | sign);
}

/* ---- bfloat16: 1.8.7, the high half of a float32 ---- */

TENSOR_INLINE float tensor_bf16_to_f32(uint16_t b) {
    return tensor_cvt_bits_float((uint32_t)b << 16);
}

TENSOR_INLINE uint16_t tensor_f32_to_bf16(float f) {
    const uint32_t x = tensor_cvt_float_bits(f);
    /* Same exponent range as float32, so rounding is one add: 0x7FFF plus the kept lsb is a
     * tie-to-even bias. A finite max rounds into the Inf encoding by the carry; the sign bit
     * cannot be reached because |x| <= 0x7F800000 here. */
    const uint32_t rounded = (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;
    const uint32_t nan = ((x >> 16) & 0x8000u) | 0x7FC0u;
    return (uint16_t)((x & 0x7FFFFFFFu) > 0x7F800000u ? nan : rounded);
}

/* ---- float8_e4m3fn: 1.4.3, bias 7, max 448, no Inf, NaN = S.1111.111 ---- */

TENSOR_INLINE float tensor_e4m3fn_to_f32(uint8_t v) {
    const uint32_t sign = (uint32_t)(v & 0x80u) << 24;
    const uint32_t a = v & 0x7Fu;
    const uint32_t finite = tensor_cvt_widen_finite(a, 3, 7);
    return tensor_cvt_bits_float(sign | (a == 0x7Fu ? 0x7FC00000u : finite));
}

TENSOR_INLINE uint8_t tensor_f32_to_e4m3fn(float f) {
    const uint32_t x = tensor_cvt_float_bits(f);
    const uint32_t sign = (x >> 24) & 0x80u;
    const uint32_t abs_bits = x & 0x7FFFFFFFu;
    uint32_t r = tensor_cvt_round_abs(abs_bits, 3, 7);
    /* beyond 448 (after rounding), Inf and NaN all become NaN: the format has no Inf */
    r = r > 0x7Eu ? 0x7Fu : r;
    r = abs_bits > 0x7F800000u ? 0x7Fu : r;
    return (uint8_t)(r | sign);
}

/* ---- float8_e5m2: 1.5.2, bias 15, max 57344, IEEE-like Inf and NaN ---- */

TENSOR_INLINE float tensor_e5m2_to_f32(uint8_t v) {
    const uint32_t sign = (uint32_t)(v & 0x80u) << 24;
    const uint32_t a = v & 0x7Fu;
    const uint32_t finite = tensor_cvt_widen_finite(a, 2, 15);
    const uint32_t m = a & 0x3u;
    const uint32_t special = 0x7F800000u | (m << 21) | (m != 0 ? 0x00400000u : 0u);
    return tensor_cvt_bits_float(sign | (a >= 0x7Cu ? special : finite));
}

TENSOR_INLINE uint8_t tensor_f32_to_e5m2(float f) {
    const uint32_t x = tensor_cvt_float_bits(f);
    const uint32_t sign = (x >> 24) & 0x80u;
    const uint32_t abs_bits = x & 0x7FFFFFFFu;
    uint32_t r = tensor_cvt_round_abs(abs_bits, 2, 15);
    r = r > 0x7Bu ? 0x7Cu : r;
    r = abs_bits > 0x7F800000u ? 0x7Fu : r;
    return (uint8_t)(r | sign);
}

#endif
