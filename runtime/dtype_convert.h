/* Bit-level conversions between float32 and the narrow float formats (float16, bfloat16,
 * float8_e4m3fn, float8_e5m2), as inline functions that compile as C11 and as CUDA C++.
 *
 * Kernels convert while loading (never a converted copy), so these sit on every hot path. The host
 * form (tensor_cvt_portable_*) is integer bit manipulation plus selects, with no float
 * arithmetic that FTZ/DAZ modes or -ffast-math could change. On the device the same
 * results come from the hardware cvt instructions (one instruction plus a NaN/overflow
 * fix-up, where the integer form is 20-40): at HBM speed the integer form would make an
 * 8-bit load loop compute-bound. The two forms agree bit for bit on every input, NaNs
 * included (checked over all 2^32 float32 patterns on an H100), so CPU and CUDA results match.
 *
 * Rules (PyTorch's c10 conversions and the OCP FP8 spec):
 * - float -> narrow rounds to nearest, ties to even, with subnormal results where the
 *   format has them; signed zeros are kept.
 * - float16, bfloat16, float8_e5m2: a value that rounds beyond the largest finite value is
 *   +-Inf, and +-Inf stays +-Inf.
 * - float8_e4m3fn has no Inf: a value that rounds beyond 448 (that is |x| > 464), and +-Inf,
 *   give NaN (0x7F / 0xFF). This is c10's Float8_e4m3fn behaviour (non-saturating casts);
 *   the OCP spec leaves saturation to the caller, and torch does not saturate in casts.
 * - narrow -> float is exact.
 * - A NaN stays a NaN and keeps its sign, with c10's bits: float -> narrow gives float16
 *   0x7E00, bfloat16 0x7FC0, float8 0x7F (plus the sign; c10 drops a bfloat16 NaN's sign, we
 *   keep it as for every other format). narrow -> float keeps the payload, shifted into
 *   place, and sets the quiet bit (float16 0x7C01 -> 0x7FC02000, e4m3fn 0x7F -> 0x7FF00000);
 *   bfloat16 -> float is the exact top-half embedding, payload and all. */
#ifndef TENSOR_DTYPE_CONVERT_H
#define TENSOR_DTYPE_CONVERT_H

#include <stdint.h>
#include <string.h>

#include "tinytensor/runtime/hostdevice.h"

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

/* |x| (float32 bits, sign cleared; a NaN gives garbage that the caller replaces) rounded to
 * nearest-even into a format with `mbits` mantissa bits and exponent bias `bias`, returned as the format's encoding without
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

TENSOR_INLINE float tensor_cvt_portable_f16_to_f32(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t a = h & 0x7FFFu;
    const uint32_t finite = tensor_cvt_widen_finite(a, 10, 15);
    /* Inf keeps m = 0; a NaN keeps its payload and gets the quiet bit */
    const uint32_t m = a & 0x3FFu;
    const uint32_t special = 0x7F800000u | (m << 13) | (m != 0 ? 0x00400000u : 0u);
    return tensor_cvt_bits_float(sign | (a >= 0x7C00u ? special : finite));
}

/* The same conversion written so that compilers vectorise loops over it (the CPU fast paths'
 * and the reduction kit's "convert in registers"): selects as masks, not ?:, so gcc
 * if-converts them. Bitwise equal to tensor_cvt_portable_f16_to_f32 for all 65536 inputs
 * (tests/cpu checks them all). Subnormal halves are built by subtracting 2^-14 from a normal
 * float, an exact subtraction with a normal result, so no subnormal arithmetic (slow, or
 * flushed under FTZ/DAZ) happens. */
TENSOR_INLINE float tensor_cvt_vec_f16_to_f32(uint16_t h) {
    const uint32_t em = (uint32_t)(h & 0x7fffu) << 13; /* exponent and mantissa, float place */
    const uint32_t exp = em & 0x0f800000u;
    const uint32_t norm = em + 0x38000000u;   /* rebias 15 -> 127 */
    const uint32_t quiet = (0u - (uint32_t)((em & 0x007fe000u) != 0)) & 0x00400000u;
    const uint32_t infnan = (em + 0x70000000u) | quiet; /* exponent 31 -> 255; NaNs quiet */
    /* 2^-14 * (1 + m/1024) - 2^-14 = m * 2^-24, exactly */
    const uint32_t den = tensor_cvt_float_bits(tensor_cvt_bits_float(em + 0x38800000u) - 0x1p-14f);
    const uint32_t is_inf = 0u - (uint32_t)(exp == 0x0f800000u), is_den = 0u - (uint32_t)(exp == 0);
    uint32_t r = (infnan & is_inf) | (den & is_den) | (norm & ~(is_inf | is_den));
    r |= (uint32_t)(h & 0x8000u) << 16;
    return tensor_cvt_bits_float(r);
}

TENSOR_INLINE uint16_t tensor_cvt_portable_f32_to_f16(float f) {
    const uint32_t x = tensor_cvt_float_bits(f);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t abs_bits = x & 0x7FFFFFFFu;
    uint32_t r = tensor_cvt_round_abs(abs_bits, 10, 15);
    r = r > 0x7BFFu ? 0x7C00u : r;
    r = abs_bits > 0x7F800000u ? 0x7E00u : r;
    return (uint16_t)(r | sign);
}

/* ---- bfloat16: 1.8.7, the high half of a float32 ---- */

TENSOR_INLINE float tensor_cvt_portable_bf16_to_f32(uint16_t b) {
    return tensor_cvt_bits_float((uint32_t)b << 16);
}

TENSOR_INLINE uint16_t tensor_cvt_portable_f32_to_bf16(float f) {
    const uint32_t x = tensor_cvt_float_bits(f);
    /* Same exponent range as float32, so rounding is one add: 0x7FFF plus the kept lsb is a
     * tie-to-even bias. A finite max rounds into the Inf encoding by the carry; the sign bit
     * cannot be reached because |x| <= 0x7F800000 here. */
    const uint32_t rounded = (x + 0x7FFFu + ((x >> 16) & 1u)) >> 16;
    const uint32_t qnan = ((x >> 16) & 0x8000u) | 0x7FC0u;
    return (uint16_t)((x & 0x7FFFFFFFu) > 0x7F800000u ? qnan : rounded);
}

/* ---- float8_e4m3fn: 1.4.3, bias 7, max 448, no Inf, NaN = S.1111.111 ---- */

TENSOR_INLINE float tensor_cvt_portable_e4m3fn_to_f32(uint8_t v) {
    const uint32_t sign = (uint32_t)(v & 0x80u) << 24;
    const uint32_t a = v & 0x7Fu;
    const uint32_t finite = tensor_cvt_widen_finite(a, 3, 7);
    /* the one NaN, S.1111.111, with its payload shifted in as for the other formats */
    return tensor_cvt_bits_float(sign | (a == 0x7Fu ? 0x7FF00000u : finite));
}

TENSOR_INLINE uint8_t tensor_cvt_portable_f32_to_e4m3fn(float f) {
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

TENSOR_INLINE float tensor_cvt_portable_e5m2_to_f32(uint8_t v) {
    const uint32_t sign = (uint32_t)(v & 0x80u) << 24;
    const uint32_t a = v & 0x7Fu;
    const uint32_t finite = tensor_cvt_widen_finite(a, 2, 15);
    const uint32_t m = a & 0x3u;
    const uint32_t special = 0x7F800000u | (m << 21) | (m != 0 ? 0x00400000u : 0u);
    return tensor_cvt_bits_float(sign | (a >= 0x7Cu ? special : finite));
}

TENSOR_INLINE uint8_t tensor_cvt_portable_f32_to_e5m2(float f) {
    const uint32_t x = tensor_cvt_float_bits(f);
    const uint32_t sign = (x >> 24) & 0x80u;
    const uint32_t abs_bits = x & 0x7FFFFFFFu;
    uint32_t r = tensor_cvt_round_abs(abs_bits, 2, 15);
    r = r > 0x7Bu ? 0x7Cu : r;
    r = abs_bits > 0x7F800000u ? 0x7Fu : r;
    return (uint8_t)(r | sign);
}

/* ---- the public conversions: hardware on the device, portable elsewhere ----
 * The cvt instructions agree with the portable forms on every input except NaNs (they give
 * the sign-less all-ones NaN) and, for float32 -> float8, the overflow range (.satfinite is
 * the only mode PTX offers there, and it clamps): a compare and a select fix each up. */

#if defined(__CUDA_ARCH__)
/* float16 bits -> float32, and a NaN as the portable form writes it */
TENSOR_INLINE float tensor_cvt_hw_f16_to_f32(uint16_t h) {
    float r;
    asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h));
    const uint32_t nan = ((uint32_t)(h & 0x8000u) << 16) | 0x7FC00000u | ((uint32_t)(h & 0x3FFu) << 13);
    return (h & 0x7FFFu) > 0x7C00u ? __uint_as_float(nan) : r;
}
#endif

TENSOR_INLINE float tensor_f16_to_f32(uint16_t h) {
#if defined(__CUDA_ARCH__)
    return tensor_cvt_hw_f16_to_f32(h);
#else
    return tensor_cvt_portable_f16_to_f32(h);
#endif
}

TENSOR_INLINE uint16_t tensor_f32_to_f16(float f) {
#if defined(__CUDA_ARCH__)
    uint16_t r;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r) : "f"(f));
    const uint32_t x = __float_as_uint(f);
    return (x & 0x7FFFFFFFu) > 0x7F800000u ? (uint16_t)(((x >> 16) & 0x8000u) | 0x7E00u) : r;
#else
    return tensor_cvt_portable_f32_to_f16(f);
#endif
}

TENSOR_INLINE float tensor_bf16_to_f32(uint16_t b) { return tensor_cvt_portable_bf16_to_f32(b); }

TENSOR_INLINE uint16_t tensor_f32_to_bf16(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    uint16_t r;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
    const uint32_t x = __float_as_uint(f);
    return (x & 0x7FFFFFFFu) > 0x7F800000u ? (uint16_t)(((x >> 16) & 0x8000u) | 0x7FC0u) : r;
#else
    return tensor_cvt_portable_f32_to_bf16(f);
#endif
}

TENSOR_INLINE float tensor_e4m3fn_to_f32(uint8_t v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    uint32_t h2;
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h2) : "h"((uint16_t)v));
    float r; /* every e4m3fn value is a float16, so the second step is exact */
    asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"((uint16_t)h2));
    const uint32_t nan = ((uint32_t)(v & 0x80u) << 24) | 0x7FF00000u;
    return (v & 0x7Fu) == 0x7Fu ? __uint_as_float(nan) : r;
#else
    return tensor_cvt_portable_e4m3fn_to_f32(v);
#endif
}

TENSOR_INLINE uint8_t tensor_f32_to_e4m3fn(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    uint16_t r;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r) : "f"(0.0f), "f"(f));
    const uint32_t x = __float_as_uint(f);
    /* satfinite clamps to 448; past the rounding boundary 464, Inf and NaN are NaN here */
    const uint32_t v = (x & 0x7FFFFFFFu) > 0x43E80000u ? 0x7Fu : (r & 0xFFu);
    return (uint8_t)(v | ((x >> 24) & 0x80u));
#else
    return tensor_cvt_portable_f32_to_e4m3fn(f);
#endif
}

TENSOR_INLINE float tensor_e5m2_to_f32(uint8_t v) {
#if defined(__CUDA_ARCH__)
    return tensor_cvt_hw_f16_to_f32((uint16_t)(v << 8)); /* e5m2 is the top byte of a float16 */
#else
    return tensor_cvt_portable_e5m2_to_f32(v);
#endif
}

TENSOR_INLINE uint8_t tensor_f32_to_e5m2(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
    uint16_t r;
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(r) : "f"(0.0f), "f"(f));
    const uint32_t x = __float_as_uint(f), a = x & 0x7FFFFFFFu;
    /* satfinite clamps to 57344; from the rounding boundary 61440 on (a tie that goes to the
     * even Inf) it is Inf, and a NaN is the canonical NaN */
    uint32_t v = a >= 0x47700000u ? 0x7Cu : (r & 0xFFu);
    v = a > 0x7F800000u ? 0x7Fu : v;
    return (uint8_t)(v | ((x >> 24) & 0x80u));
#else
    return tensor_cvt_portable_f32_to_e5m2(f);
#endif
}

#endif
