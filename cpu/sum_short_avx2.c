/* Short float32 rows summed 8 rows at a time with AVX2 (see cpu/sum_simd.h).
 *
 * Why: a row of 7 or 32 floats is too short to vectorise along the row; summing it alone
 * costs a horizontal reduction and a scalar TwoSum fold per row (about 12 ns for a row of 7).
 * Here 8 rows are loaded as 8 vectors (masked to the row's length), the per-row pairwise
 * trees run as an 8x8 transpose-and-add, and the 8 folds are one vector TwoSum.
 *
 * Same bits as sum_tmpl.h's short_n: that code puts element l in lane l, zeros in lanes n ..
 * p (p = the next power of two), then adds lane l + w into lane l for w = p/2, ..., 1. Here
 * the lanes are padded to 8, 16 or 32 (a multiple of 8); for p < 8 that adds extra zeros to
 * lanes, which changes at most the sign of a zero partial, and the fold (s starts at +0 and
 * never becomes -0) gives the same s and c for +0 and -0. Every other addition is the same
 * addition on the same operands: IEEE vector adds round as scalar ones, and no FMA is used. */
#include "cpu/cpu_isa.h"
#include "cpu/sum_simd.h"

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>

bool tt_cpu_sum_simd_avx2(void) { return tt_cpu_has(TT_CPU_AVX2); }

#define ATTR __attribute__((target("avx2")))
/* Software prefetch distance of the direct (output) path, in bytes: with 16 KiB, [4M, 7] ran
 * ~10-20% faster than without (4 KiB: ~7%) and [1M, 32] at 85-95% of the read ceiling
 * instead of anywhere between 58% and 100% from run to run; rows of 16 and 24 the same
 * either way. Only for rows at most 128 bytes apart (8 rows: at most 16 lines to
 * prefetch). A prefetch past the tensor does not fault. */
#define SHORT_PREFETCH 16384

/* One row as one vector of 8 lanes: the tree's levels above 8 lanes (p = 16, 32) done on
 * whole vectors. nv = ceil(n / 8) vectors, the last one's lanes past the row zeroed by
 * `last` (all ones in the lanes of the row). masked: read the last vector with a masked
 * load (lanes past the row are not read, so nothing past the tensor is touched); else a
 * plain load whose extra lanes (read from the next row, or a gap of a strided view, inside
 * the tensor's storage: the caller checks) are cleared with an and, which is faster than
 * the masked load on current x86 cores. */
ATTR static inline __attribute__((always_inline)) __m256 row_vec(const float *e, const int nv, __m256i last,
                                                                 bool nanskip, bool masked) {
    __m256 v[4];
    for (int q = 0; q < nv; q++) {
        if (q + 1 < nv) v[q] = _mm256_loadu_ps(e + 8 * q);
        else if (masked) v[q] = _mm256_maskload_ps(e + 8 * q, last);
        else v[q] = _mm256_and_ps(_mm256_loadu_ps(e + 8 * q), _mm256_castsi256_ps(last));
        if (nanskip) v[q] = _mm256_and_ps(v[q], _mm256_cmp_ps(v[q], v[q], _CMP_ORD_Q));
    }
    if (nv >= 3) { /* p = 32: lane l += lane l + 16 */
        v[0] = _mm256_add_ps(v[0], v[2]);
        if (nv == 4) v[1] = _mm256_add_ps(v[1], v[3]);
    }
    if (nv >= 2) v[0] = _mm256_add_ps(v[0], v[1]); /* p >= 16: lane l += lane l + 8 */
    return v[0];
}

/* The 8-lane trees of 8 rows at once. in[] holds the rows in the order r0 r2 r1 r3 r4 r6 r5
 * r7; the result is [r0 r1 r4 r5 | r2 r3 r6 r7], the order in which the accumulator pairs
 * of rows 0..7 deinterleave (see fold8). */
ATTR static inline __attribute__((always_inline)) __m256 tree8(const __m256 in[8]) {
    __m256 w[4];
    for (int k = 0; k < 4; k++) /* lane l += lane l + 4 (l < 4), two rows per vector */
        w[k] = _mm256_add_ps(_mm256_permute2f128_ps(in[2 * k], in[2 * k + 1], 0x20),
                             _mm256_permute2f128_ps(in[2 * k], in[2 * k + 1], 0x31));
    /* lane l += lane l + 2 (l < 2): [b(in0) b(in2) | b(in1) b(in3)] */
    const __m256 x0 = _mm256_add_ps(_mm256_shuffle_ps(w[0], w[1], 0x44), _mm256_shuffle_ps(w[0], w[1], 0xEE));
    const __m256 x1 = _mm256_add_ps(_mm256_shuffle_ps(w[2], w[3], 0x44), _mm256_shuffle_ps(w[2], w[3], 0xEE));
    /* lane 0 += lane 1: [in0 in2 in4 in6 | in1 in3 in5 in7] */
    return _mm256_add_ps(_mm256_shuffle_ps(x0, x1, 0x88), _mm256_shuffle_ps(x0, x1, 0xDD));
}

/* TwoSum-folds p = [r0 r1 r4 r5 | r2 r3 r6 r7] into the {s, c} pairs of rows 0..7 at acc:
 * the additions of reduce_sum.c's fold_f32, one lane per row. */
ATTR static inline __attribute__((always_inline)) void fold8(float *acc, __m256 p) {
    const __m256 a = _mm256_loadu_ps(acc), b = _mm256_loadu_ps(acc + 8);
    const __m256 s = _mm256_shuffle_ps(a, b, 0x88); /* s0 s1 s4 s5 | s2 s3 s6 s7 */
    __m256 c = _mm256_shuffle_ps(a, b, 0xDD);
    const __m256 t = _mm256_add_ps(s, p), bp = _mm256_sub_ps(t, s);
    c = _mm256_add_ps(c, _mm256_add_ps(_mm256_sub_ps(s, _mm256_sub_ps(t, bp)), _mm256_sub_ps(p, bp)));
    _mm256_storeu_ps(acc, _mm256_unpacklo_ps(t, c));
    _mm256_storeu_ps(acc + 8, _mm256_unpackhi_ps(t, c));
}

/* Stores 8 row sums p = [r0 .. r7] as the rows' final values: what fold8 into fresh {+0, +0}
 * pairs and reduce_sum.c's projection give, s + c = (+0 + p) + (+0) = +0 + p (a -0 sum
 * becomes +0; inf and NaN stay as they are). stream: a non-temporal store (out 32-byte
 * aligned), which writes the line without reading it first. */
ATTR static inline __attribute__((always_inline)) void store8(float *out, __m256 p, bool stream) {
    const __m256 v = _mm256_add_ps(_mm256_setzero_ps(), p);
    if (stream) _mm256_stream_ps(out, v);
    else _mm256_storeu_ps(out, v);
}

/* Rows j .. j + 7; acc != NULL: folded into acc, else the final values stored at out. end:
 * where the last row of the call ends (plain loads are safe while a group's reads end
 * before it: everything between the first row and the end of the last lies in the
 * tensor's storage). */
ATTR static inline __attribute__((always_inline)) void group8(const char *x, int64_t stride, int64_t j, int64_t end,
                                                              __m256i last, float *acc, float *out, bool stream,
                                                              bool nanskip, const int nv) {
    static const int order[8] = {0, 2, 1, 3, 4, 6, 5, 7};
    __m256 in[8];
    if (acc == NULL && stride > 0 && stride <= 128) /* rows packed closely: the span ahead */
        for (int64_t o = 0; o < 8 * stride; o += 64) _mm_prefetch(x + j * stride + SHORT_PREFETCH + o, _MM_HINT_T0);
    if (stride > 0 && (j + 7) * stride + 32 * nv <= end) {
        for (int k = 0; k < 8; k++)
            in[k] = row_vec((const float *)(x + (j + order[k]) * stride), nv, last, nanskip, false);
    } else {
        for (int k = 0; k < 8; k++)
            in[k] = row_vec((const float *)(x + (j + order[k]) * stride), nv, last, nanskip, true);
    }
    if (acc != NULL) fold8(acc + 2 * j, tree8(in));
    else /* [r0 r1 r4 r5 | r2 r3 r6 r7] -> r0 .. r7 */
        store8(out + j, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(tree8(in)), 0xD8)), stream);
}

/* Rows in groups of 8, one input stream (taking the groups of two halves alternately, two
 * streams, was measured ~15% slower for [1M, 32] and [4M, 7]). */
ATTR static inline __attribute__((always_inline)) int64_t short_nv(const char *x, int64_t stride, int64_t n,
                                                                   int64_t nrows, float *acc, float *out,
                                                                   bool stream, bool nanskip, const int nv) {
    const int rem = (int)(n - 8 * (nv - 1)); /* lanes of the last vector, 1..8 */
    const __m256i last = _mm256_cmpgt_epi32(_mm256_set1_epi32(rem), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const int64_t end = stride > 0 ? (nrows - 1) * stride + 4 * n : 0;
    int64_t j = 0;
    for (; j + 8 <= nrows; j += 8) group8(x, stride, j, end, last, acc, out, stream, nanskip, nv);
    if (stream) _mm_sfence(); /* the streamed lines are visible before the caller goes on */
    return j;
}

/* One instance per (nv, nanskip) and sink, so that the per-row loads unroll. */
#define SHORT_SWITCH(ACC, OUT, STREAM)                                                             \
    do {                                                                                           \
        if (nanskip) {                                                                             \
            switch (nv) {                                                                          \
            case 1: return short_nv(x, stride, n, nrows, ACC, OUT, STREAM, true, 1);               \
            case 2: return short_nv(x, stride, n, nrows, ACC, OUT, STREAM, true, 2);               \
            case 3: return short_nv(x, stride, n, nrows, ACC, OUT, STREAM, true, 3);               \
            default: return short_nv(x, stride, n, nrows, ACC, OUT, STREAM, true, 4);              \
            }                                                                                      \
        }                                                                                          \
        switch (nv) {                                                                              \
        case 1: return short_nv(x, stride, n, nrows, ACC, OUT, STREAM, false, 1);                  \
        case 2: return short_nv(x, stride, n, nrows, ACC, OUT, STREAM, false, 2);                  \
        case 3: return short_nv(x, stride, n, nrows, ACC, OUT, STREAM, false, 3);                  \
        default: return short_nv(x, stride, n, nrows, ACC, OUT, STREAM, false, 4);                 \
        }                                                                                          \
    } while (0)

ATTR int64_t tt_cpu_sum_short_f32_avx2(const char *x, int64_t stride, int64_t n, int64_t nrows, float *acc,
                                    bool nanskip) {
    if (n < 1 || n > 32 || !tt_cpu_sum_simd_avx2()) return 0;
    const int nv = (int)((n + 7) / 8);
    SHORT_SWITCH(acc, NULL, false);
}

ATTR int64_t tt_cpu_sum_short_f32_out_avx2(const char *x, int64_t stride, int64_t n, int64_t nrows, float *out,
                                        bool nanskip, bool stream) {
    if (n < 1 || n > 32 || !tt_cpu_sum_simd_avx2()) return 0;
    const int nv = (int)((n + 7) / 8);
    if (stream && ((uintptr_t)out & 31) == 0) SHORT_SWITCH(NULL, out, true);
    SHORT_SWITCH(NULL, out, false);
}

#else

bool tt_cpu_sum_simd_avx2(void) { return false; }

int64_t tt_cpu_sum_short_f32_avx2(const char *x, int64_t stride, int64_t n, int64_t nrows, float *acc, bool nanskip) {
    (void)x, (void)stride, (void)n, (void)nrows, (void)acc, (void)nanskip;
    return 0;
}

int64_t tt_cpu_sum_short_f32_out_avx2(const char *x, int64_t stride, int64_t n, int64_t nrows, float *out,
                                   bool nanskip, bool stream) {
    (void)x, (void)stride, (void)n, (void)nrows, (void)out, (void)nanskip, (void)stream;
    return 0;
}

#endif
