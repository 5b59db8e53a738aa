/* Full blocks of a contiguous float16 run summed with F16C and AVX2 (see cpu/sum_simd.h).
 *
 * Why: the template's block loop (cpu/sum_tmpl.h with F16C loads) converts as fast as this
 * one, but without a prefetch it fell well short of a core's read bandwidth
 * (docs/perf_log.md). Converting is the bottleneck of a float16 sum on AVX2 (one vcvtph2ps per
 * 8 elements), so memory stalls cannot be hidden behind spare arithmetic as they are for
 * bfloat16: a software prefetch runs ahead and the loop carries nothing but the loads, the
 * conversions and the adds.
 *
 * Lanes: vcvtph2ps turns 8 consecutive elements into 8 floats in order, so per 32 elements
 * the four vectors A, B, C, D hold the template's lanes 0-7, 8-15, 16-23 and 24-31.
 *
 * Same bits as the template's block(): each lane adds its elements in order from +0 (NaN as
 * +0 when nanskip), then the lanes are added pairwise exactly as there (lane l += lane l + w,
 * for w = 16, 8, 4, 2, 1; the lane with the smaller index is the first operand). IEEE vector
 * adds round as scalar ones; no FMA. */
#include "cpu/cpu_isa.h"
#include "cpu/sum_simd.h"

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>

#define ATTR __attribute__((target("avx2,f16c")))
#define BLK 2048 /* sum_tmpl.h's SUMT_BLOCK for 32 lanes */
/* Software prefetch distance in elements (4 KiB; docs/perf_log.md has the measurements). A
 * prefetch past the end of the tensor does not fault. */
#define PREFETCH 2048

ATTR static inline __m256 cvt8(const uint16_t *p, const bool nanskip) {
    const __m256 v = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)p));
    return nanskip ? _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q)) : v;
}

/* The tree from w = 16 down. */
ATTR static inline float tree(__m256 a, __m256 b, __m256 c, __m256 d) {
    const __m256 x = _mm256_add_ps(_mm256_add_ps(a, c), _mm256_add_ps(b, d)); /* w = 16, 8 */
    __m128 y = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1)); /* w = 4 */
    y = _mm_add_ps(y, _mm_movehl_ps(y, y));                                        /* w = 2 */
    y = _mm_add_ss(y, _mm_shuffle_ps(y, y, 1));                                    /* w = 1 */
    return _mm_cvtss_f32(y);
}

/* Block i of x into p[i], for i < nb. */
ATTR static inline __attribute__((always_inline)) void run_(const uint16_t *x, int64_t nb, float *p,
                                                            const bool nanskip) {
    for (int64_t i = 0; i < nb; i++) {
        const uint16_t *e = x + i * BLK;
        __m256 a = _mm256_setzero_ps(), b = a, c = a, d = a;
        for (int k = 0; k < BLK; k += 32) {
            _mm_prefetch((const char *)(e + k + PREFETCH), _MM_HINT_T0);
            a = _mm256_add_ps(a, cvt8(e + k, nanskip));
            b = _mm256_add_ps(b, cvt8(e + k + 8, nanskip));
            c = _mm256_add_ps(c, cvt8(e + k + 16, nanskip));
            d = _mm256_add_ps(d, cvt8(e + k + 24, nanskip));
        }
        p[i] = tree(a, b, c, d);
    }
}

ATTR static void run(const uint16_t *x, int64_t nb, bool nanskip, float *p) {
    if (nanskip) run_(x, nb, p, true);
    else run_(x, nb, p, false);
}

bool tt_cpu_sum_f16_blocks(const uint16_t *x, int64_t nb, bool nanskip, float *p) {
    if (!tt_cpu_sum_simd_f16c()) return false;
    run(x, nb, nanskip, p);
    return true;
}

#else

bool tt_cpu_sum_f16_blocks(const uint16_t *x, int64_t nb, bool nanskip, float *p) {
    (void)x, (void)nb, (void)nanskip, (void)p;
    return false;
}

#endif
