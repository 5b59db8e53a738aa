/* An 8 x 8 block of floats turned in AVX2 registers: the step that lets the CPU loops fold
 * short rows as columns (vecdot's rows, narrow outer sums, the float32 transposes) with the
 * same additions, in the same order, as a row at a time. Header only, for x86-64 GCC and
 * Clang; the caller's target must include AVX2. */
#pragma once

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>

/* t[i] lane r = q[r] lane i (t and q may be the same array: every q is read first). */
__attribute__((target("avx2"), always_inline)) static inline void tt_avx2_turn8(__m256 t[8], const __m256 q[8]) {
    const __m256 u0 = _mm256_unpacklo_ps(q[0], q[1]), u1 = _mm256_unpackhi_ps(q[0], q[1]);
    const __m256 u2 = _mm256_unpacklo_ps(q[2], q[3]), u3 = _mm256_unpackhi_ps(q[2], q[3]);
    const __m256 u4 = _mm256_unpacklo_ps(q[4], q[5]), u5 = _mm256_unpackhi_ps(q[4], q[5]);
    const __m256 u6 = _mm256_unpacklo_ps(q[6], q[7]), u7 = _mm256_unpackhi_ps(q[6], q[7]);
    const __m256 v0 = _mm256_shuffle_ps(u0, u2, 0x44), v1 = _mm256_shuffle_ps(u0, u2, 0xEE);
    const __m256 v2 = _mm256_shuffle_ps(u1, u3, 0x44), v3 = _mm256_shuffle_ps(u1, u3, 0xEE);
    const __m256 v4 = _mm256_shuffle_ps(u4, u6, 0x44), v5 = _mm256_shuffle_ps(u4, u6, 0xEE);
    const __m256 v6 = _mm256_shuffle_ps(u5, u7, 0x44), v7 = _mm256_shuffle_ps(u5, u7, 0xEE);
    t[0] = _mm256_permute2f128_ps(v0, v4, 0x20);
    t[1] = _mm256_permute2f128_ps(v1, v5, 0x20);
    t[2] = _mm256_permute2f128_ps(v2, v6, 0x20);
    t[3] = _mm256_permute2f128_ps(v3, v7, 0x20);
    t[4] = _mm256_permute2f128_ps(v0, v4, 0x31);
    t[5] = _mm256_permute2f128_ps(v1, v5, 0x31);
    t[6] = _mm256_permute2f128_ps(v2, v6, 0x31);
    t[7] = _mm256_permute2f128_ps(v3, v7, 0x31);
}
#endif
