/* Full blocks of a contiguous bfloat16 run summed with AVX-512 or AVX2 (see cpu/sum_simd.h).
 *
 * Why: the template's block loop (cpu/sum_tmpl.h, bfloat16 widened with vpmovzxwd + vpslld,
 * eight floats per load) reached ~70% of a core's read bandwidth. Here one load brings 32
 * (AVX-512) or 16 (AVX2) elements, widened by two unpacks, every lane stays in a register,
 * and a software prefetch runs 4 KiB ahead. (Reading two blocks side by side, as the float32
 * row does, was slower here: 2-4 streams 4 KiB apart ran at half the speed of one.)
 *
 * Widening: bfloat16 is the high half of a float32, so unpacking the 16-bit words with zeros
 * as the low halves gives the floats exactly (unpacklo / unpackhi_epi16 per 128-bit lane).
 * That puts block element k (k % 32 = l, the template's lane l) at a fixed vector position:
 * per 32 elements, `lo` holds lanes 0-3, 8-11, 16-19, 24-27 and `hi` lanes 4-7, 12-15,
 * 20-23, 28-31 (AVX2: lo / hi of the first 16 elements are A / B, of the next 16 C / D).
 *
 * Same bits as the template's block(): each lane adds its elements in order from +0 (NaN
 * as +0 when nanskip), then the lanes are added pairwise exactly as there (lane l += lane
 * l + w, for w = 16, 8, 4, 2, 1; the lane with the smaller index is the first operand).
 * IEEE vector adds round as scalar ones; no FMA. */
#include "cpu/cpu_isa.h"
#include "cpu/sum_simd.h"

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>

#define BLK 2048 /* sum_tmpl.h's SUMT_BLOCK for 32 lanes */
/* Software prefetch distance in elements (4 KiB): measured ~10% faster than the hardware
 * prefetchers alone on one stream (Zen 5); a prefetch past the end of the tensor does not
 * fault. */
#define PREFETCH 2048

/* The tree from w = 8 down: a = lanes [0-3 | 8-11], b = lanes [4-7 | 12-15]. */
__attribute__((target("avx2"))) static inline float tree_ab(__m256 a, __m256 b) {
    const __m128 a4 = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1)); /* w = 8 */
    const __m128 b4 = _mm_add_ps(_mm256_castps256_ps128(b), _mm256_extractf128_ps(b, 1));
    __m128 x = _mm_add_ps(a4, b4);                       /* w = 4 */
    x = _mm_add_ps(x, _mm_movehl_ps(x, x));              /* w = 2 */
    x = _mm_add_ss(x, _mm_shuffle_ps(x, x, 1));          /* w = 1 */
    return _mm_cvtss_f32(x);
}

/* ---- AVX-512 ---- */

#define T512 __attribute__((target("avx512f,avx512bw")))

T512 static inline __m512 lo512(__m512i v) { return _mm512_castsi512_ps(_mm512_unpacklo_epi16(_mm512_setzero_si512(), v)); }
T512 static inline __m512 hi512(__m512i v) { return _mm512_castsi512_ps(_mm512_unpackhi_epi16(_mm512_setzero_si512(), v)); }
T512 static inline __m512 nan0_512(__m512 v) { return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, v, _CMP_ORD_Q), v); }

T512 static inline float tree512(__m512 lo, __m512 hi) { /* w = 16, then tree_ab */
    const __m256 a = _mm256_add_ps(_mm512_castps512_ps256(lo), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(lo), 1)));
    const __m256 b = _mm256_add_ps(_mm512_castps512_ps256(hi), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(hi), 1)));
    return tree_ab(a, b);
}

/* Block i of x into p[i], for i < nb. */
T512 static inline __attribute__((always_inline)) void run512_(const uint16_t *x, int64_t nb, float *p,
                                                               const bool nanskip) {
    for (int64_t i = 0; i < nb; i++) {
        const uint16_t *e = x + i * BLK;
        __m512 l = _mm512_setzero_ps(), h = l;
        for (int k = 0; k < BLK; k += 32) {
            _mm_prefetch((const char *)(e + k + PREFETCH), _MM_HINT_T0);
            const __m512i v = _mm512_loadu_si512((const void *)(e + k));
            __m512 a = lo512(v), b = hi512(v);
            if (nanskip) a = nan0_512(a), b = nan0_512(b);
            l = _mm512_add_ps(l, a);
            h = _mm512_add_ps(h, b);
        }
        p[i] = tree512(l, h);
    }
}

T512 static void run512(const uint16_t *x, int64_t nb, bool nanskip, float *p) {
    if (nanskip) run512_(x, nb, p, true);
    else run512_(x, nb, p, false);
}

/* ---- AVX2 ---- */

#define T256 __attribute__((target("avx2")))

T256 static inline __m256 lo256(__m256i v) { return _mm256_castsi256_ps(_mm256_unpacklo_epi16(_mm256_setzero_si256(), v)); }
T256 static inline __m256 hi256(__m256i v) { return _mm256_castsi256_ps(_mm256_unpackhi_epi16(_mm256_setzero_si256(), v)); }
T256 static inline __m256 nan0_256(__m256 v) { return _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q)); }

/* 32 elements at e into lanes A, B (the first 16) and C, D (the next 16). */
#define ADD32(e, A, B, C, D)                                                                       \
    do {                                                                                           \
        const __m256i v0_ = _mm256_loadu_si256((const __m256i *)(const void *)(e));                \
        const __m256i v1_ = _mm256_loadu_si256((const __m256i *)(const void *)((e) + 16));         \
        __m256 a_ = lo256(v0_), b_ = hi256(v0_), c_ = lo256(v1_), d_ = hi256(v1_);                 \
        if (nanskip) a_ = nan0_256(a_), b_ = nan0_256(b_), c_ = nan0_256(c_), d_ = nan0_256(d_);   \
        A = _mm256_add_ps(A, a_);                                                                  \
        B = _mm256_add_ps(B, b_);                                                                  \
        C = _mm256_add_ps(C, c_);                                                                  \
        D = _mm256_add_ps(D, d_);                                                                  \
    } while (0)

T256 static inline __attribute__((always_inline)) void run256_(const uint16_t *x, int64_t nb, float *p,
                                                               const bool nanskip) {
    for (int64_t i = 0; i < nb; i++) {
        const uint16_t *e = x + i * BLK;
        const __m256 z = _mm256_setzero_ps();
        __m256 a = z, b = z, c = z, d = z;
        for (int k = 0; k < BLK; k += 32) {
            _mm_prefetch((const char *)(e + k + PREFETCH), _MM_HINT_T0);
            ADD32(e + k, a, b, c, d);
        }
        p[i] = tree_ab(_mm256_add_ps(a, c), _mm256_add_ps(b, d)); /* w = 16: lane l += lane l + 16 */
    }
}

T256 static void run256(const uint16_t *x, int64_t nb, bool nanskip, float *p) {
    if (nanskip) run256_(x, nb, p, true);
    else run256_(x, nb, p, false);
}

bool tt_cpu_sum_bf16_blocks(const uint16_t *x, int64_t nb, bool nanskip, float *p, bool avx512) {
    if (avx512 && tt_cpu_has(TT_CPU_AVX512F | TT_CPU_AVX512BW)) run512(x, nb, nanskip, p);
    else if (tt_cpu_sum_simd_avx2()) run256(x, nb, nanskip, p);
    else return false;
    return true;
}

#else

bool tt_cpu_sum_bf16_blocks(const uint16_t *x, int64_t nb, bool nanskip, float *p, bool avx512) {
    (void)x, (void)nb, (void)nanskip, (void)p, (void)avx512;
    return false;
}

#endif
