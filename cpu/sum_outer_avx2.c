/* Outer float sums (rows swept into a row of accumulators) with AVX2: see cpu/sum_simd.h.
 *
 * Why: for short rows (e.g. [1M, 64] or [N, 32] summed over dim 0) sum_tmpl.h's outer path
 * spends its time in loop control: per group of 16 rows, four passes over a few columns
 * into an array of partials and a fold pass. Here a strip of up to 64 columns keeps its
 * partials in registers down the whole group and folds them at once. Long rows stay with
 * the template (see MAX_ROW_BYTES), except float16 rows, which have a kernel of their own
 * below (long_f16).
 *
 * Same bits as sum_tmpl.h's outer: per column, part = ((0 + r0) + r1) + ... over the
 * group's rows in order (NaN as 0 when nanskip), then TwoSum into {s, c}; groups anchored to
 * the reduced index (16 rows, starting at multiples of 16). */
#include "cpu/cpu_isa.h"
#include "cpu/sum_simd.h"

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>

#include "runtime/avx2_turn.h"

#define ATTR __attribute__((target("avx2,f16c")))
#define INLINE static inline __attribute__((always_inline))

/* Rows per group (the template's SUMT_GROUP). */
#define GROUP 16
/* Rows further apart than this go to the template: with a whole group's rows streaming at
 * once, rows a power of two apart alias in the L1 sets and the prefetched lines evict each
 * other (measured: 4096-float rows ran ~10% slower than the template's four rows per pass;
 * 64-float rows 1.8x faster). */
#define MAX_ROW_BYTES 1024

bool tt_cpu_sum_simd_f16c(void) { return tt_cpu_has(TT_CPU_AVX2 | TT_CPU_F16C); }

/* 8 elements at p as floats (NaN as 0 when nanskip). */
ATTR INLINE __m256 ld8(const char *p, const cpu_sum_elem e, const bool nanskip) {
    __m256 v;
    if (e == CPU_SUM_ELEM_F32) {
        v = _mm256_loadu_ps((const float *)(const void *)p);
    } else {
        const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)p);
        if (e == CPU_SUM_ELEM_F16) v = _mm256_cvtph_ps(h);
        else v = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    }
    if (nanskip) v = _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q));
    return v;
}

/* One element as a float, as ld8 converts it. */
ATTR INLINE float ld1(const char *p, const cpu_sum_elem e, const bool nanskip) {
    float v;
    if (e == CPU_SUM_ELEM_F32) {
        v = *(const float *)(const void *)p;
    } else {
        const uint16_t h = *(const uint16_t *)(const void *)p;
        if (e == CPU_SUM_ELEM_F16) {
            v = _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(h)));
        } else {
            const uint32_t b = (uint32_t)h << 16;
            __builtin_memcpy(&v, &b, sizeof v);
        }
    }
    return nanskip && v != v ? 0.0f : v;
}

/* Columns [j, j + 8 * NV) of a group of g rows: partials in registers, then the folds into
 * the interleaved {s, c} pairs at acc (the deinterleave puts the pairs of columns 0 1 4 5 |
 * 2 3 6 7 in the lanes; the partials are permuted the same way). */
ATTR INLINE void strip(const char *rows, int64_t row_stride, int64_t g, int64_t j, float *acc, const int NV,
                       const cpu_sum_elem e, const bool nanskip) {
    const int64_t es = e == CPU_SUM_ELEM_F32 ? 4 : 2;
    __m256 p[8];
    for (int q = 0; q < NV; q++) p[q] = _mm256_setzero_ps();
    const char *r = rows + j * es;
    for (int64_t i = 0; i < g; i++, r += row_stride)
        for (int q = 0; q < NV; q++) p[q] = _mm256_add_ps(p[q], ld8(r + 8 * q * es, e, nanskip));
    for (int q = 0; q < NV; q++) {
        float *a = acc + 2 * (j + 8 * q);
        const __m256 pa = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(p[q]), 0xD8));
        const __m256 lo = _mm256_loadu_ps(a), hi = _mm256_loadu_ps(a + 8);
        const __m256 s = _mm256_shuffle_ps(lo, hi, 0x88), c = _mm256_shuffle_ps(lo, hi, 0xDD);
        const __m256 t = _mm256_add_ps(s, pa), bp = _mm256_sub_ps(t, s);
        const __m256 c2 = _mm256_add_ps(c, _mm256_add_ps(_mm256_sub_ps(s, _mm256_sub_ps(t, bp)), _mm256_sub_ps(pa, bp)));
        _mm256_storeu_ps(a, _mm256_unpacklo_ps(t, c2));
        _mm256_storeu_ps(a + 8, _mm256_unpackhi_ps(t, c2));
    }
}

/* ---- narrow rows: fewer than 8 float32 columns, rows dense (e.g. [4M, 3] over dim 0) ----
 * A group of 16 such rows is 16 C contiguous floats (2 C vectors), and the per-column loop
 * above is a chain of 16 dependent scalar adds per column. Here 8 consecutive full groups
 * run at once, one group per lane: vector b of the 8 groups is transposed (8x8), which gives
 * element e = 8 b + k of every group in one vector, added to the partials of column e % C.
 * Each column still sees its rows in order from +0, and the 8 partials are then folded in
 * group order: the additions of the loop above. */

/* Software prefetch distance in floats (16 KiB ahead: [4M, 3] ran at 18, 26, 31, 34 and 35
 * GB/s with 2, 4, 8, 16 and 32 KiB, 17 without; a prefetch past the tensor does not
 * fault). */
#define NARROW_PREFETCH 4096

/* ngroups8 * 8 full groups of 16 rows of C floats at x (dense), folded into acc[0 .. 2 C). */
ATTR INLINE void narrow_groups(const float *x, int64_t ngroups8, float *acc, const int C, const bool nanskip) {
    const int64_t gsz = 16 * (int64_t)C; /* floats per group */
    for (int64_t q = 0; q < ngroups8; q++, x += 8 * gsz) {
        __m256 p[7];
        for (int c = 0; c < C; c++) p[c] = _mm256_setzero_ps();
        /* unrolled, so that c below is a constant and the partials stay in registers */
#pragma GCC unroll 14
        for (int b = 0; b < 2 * C; b++) {
            __m256 v[8], r[8];
            for (int g = 0; g < 8; g++) {
                _mm_prefetch((const char *)(x + g * gsz + 8 * b + NARROW_PREFETCH), _MM_HINT_T0);
                v[g] = _mm256_loadu_ps(x + g * gsz + 8 * b);
            }
            tt_avx2_turn8(r, v);
#pragma GCC unroll 8
            for (int k = 0; k < 8; k++) {
                const int c = (8 * b + k) % C;
                const __m256 e = nanskip ? _mm256_and_ps(r[k], _mm256_cmp_ps(r[k], r[k], _CMP_ORD_Q)) : r[k];
                p[c] = _mm256_add_ps(p[c], e);
            }
        }
        for (int c = 0; c < C; c++) { /* the folds, group by group */
            float part[8];
            _mm256_storeu_ps(part, p[c]);
            float s = acc[2 * c], cc = acc[2 * c + 1];
            for (int g = 0; g < 8; g++) {
                const float t = s + part[g], bp = t - s;
                cc += (s - (t - bp)) + (part[g] - bp);
                s = t;
            }
            acc[2 * c] = s;
            acc[2 * c + 1] = cc;
        }
    }
}

/* From row `skip` (the first of a group) on, as many 8-group runs as there are: returns the
 * rows done (a multiple of 128), 0 when the shape is not one for narrow_groups. */
ATTR INLINE int64_t narrow_f32(const char *in, int64_t row_stride, int64_t size0, int64_t ncols, float *acc,
                               int64_t skip, const bool nanskip) {
    if (ncols < 1 || ncols > 7 || row_stride != 4 * ncols) return 0;
    const int64_t n8 = (size0 - skip) / 128;
    if (n8 < 1) return 0;
    const float *x = (const float *)(const void *)(in + skip * row_stride);
    switch (ncols) {
#define NC_CASE(C)                                                                                 \
    case C: narrow_groups(x, n8, acc, C, nanskip); break;
        NC_CASE(1) NC_CASE(2) NC_CASE(3) NC_CASE(4) NC_CASE(5) NC_CASE(6) NC_CASE(7)
#undef NC_CASE
    }
    return 128 * n8;
}

/* Columns [j, ncols) of one group of g rows, one at a time: the same additions as strip(). */
ATTR INLINE void cols1(const char *rows, int64_t row_stride, int64_t g, int64_t j, int64_t ncols, float *acc,
                       const cpu_sum_elem e, const bool nanskip) {
    const int64_t es = e == CPU_SUM_ELEM_F32 ? 4 : 2;
    for (; j < ncols; j++) {
        float p = 0.0f;
        for (int64_t i = 0; i < g; i++) p += ld1(rows + i * row_stride + j * es, e, nanskip);
        const float s = acc[2 * j], t = s + p, bp = t - s;
        acc[2 * j + 1] += (s - (t - bp)) + (p - bp);
        acc[2 * j] = t;
    }
}

/* Every column of one group of g rows at rows. */
ATTR INLINE void group_cols(const char *rows, int64_t row_stride, int64_t g, int64_t ncols, float *acc,
                            const cpu_sum_elem e, const bool nanskip) {
    int64_t j = 0;
    for (; j + 64 <= ncols; j += 64) strip(rows, row_stride, g, j, acc, 8, e, nanskip);
    switch ((ncols - j) / 8) { /* 8 .. 56 columns in one strip: independent chains */
#define NV_CASE(N)                                                                                 \
    case N: strip(rows, row_stride, g, j, acc, N, e, nanskip); break;
        NV_CASE(1) NV_CASE(2) NV_CASE(3) NV_CASE(4) NV_CASE(5) NV_CASE(6) NV_CASE(7)
#undef NV_CASE
    default: break;
    }
    j += (ncols - j) / 8 * 8;
    cols1(rows, row_stride, g, j, ncols, acc, e, nanskip); /* the last columns one at a time */
}

ATTR INLINE void outer_impl(const char *in, int64_t row_stride, int64_t size0, int64_t ncols, float *acc,
                            int64_t index0, const cpu_sum_elem e, const bool nanskip) {
    /* narrow float32 rows: whole groups 8 at a time once the first (partial) group is done */
    const int64_t first_full = (GROUP - index0 % GROUP) % GROUP;
    for (int64_t i0 = 0; i0 < size0;) {
        if (e == CPU_SUM_ELEM_F32 && i0 == first_full) {
            const int64_t done = narrow_f32(in, row_stride, size0, ncols, acc, i0, nanskip);
            i0 += done;
            if (done > 0) continue;
        }
        int64_t g = GROUP - (index0 + i0) % GROUP;
        if (g > size0 - i0) g = size0 - i0;
        group_cols(in + i0 * row_stride, row_stride, g, ncols, acc, e, nanskip);
        i0 += g;
    }
}

/* ---- long float16 rows (more than MAX_ROW_BYTES apart, e.g. [4096, 4096] over dim 0) ----
 * Converting is a float16 sum's bottleneck (one vcvtph2ps per 8 elements), so everything
 * else is kept off the critical path: the rows of a full group are read four at a time along
 * a run of LONG_COLS columns (four long sequential streams; a whole group at once aliases in
 * L1, see MAX_ROW_BYTES), the first pass starts the partials from +0 without reading them,
 * and the last pass folds them into split s and c arrays (copied from and back to the
 * interleaved pairs once per run of columns) instead of storing them for a separate fold
 * pass. The sum_tmpl.h template, which did that fold pass and read every partial on every
 * pass, was slower (docs/perf_log.md). Partial groups at the ends go through group_cols.
 * Per column: ((0 + r0) + r1) + ... + r15, then one TwoSum fold per group, groups in order:
 * the same additions. */

/* Columns per run: 16 KiB each of partials, s and c on the stack (sum_tmpl.h's SUMT_COLS;
 * shorter runs, with shorter streams, were slower). */
#define LONG_COLS 4096

/* {s, c} += p (TwoSum, fold_f32 of cpu/reduce_sum.c), 8 columns at sv, cv. */
ATTR INLINE void fold8(float *sv, float *cv, __m256 p) {
    const __m256 s = _mm256_loadu_ps(sv), c = _mm256_loadu_ps(cv);
    const __m256 t = _mm256_add_ps(s, p), bp = _mm256_sub_ps(t, s);
    _mm256_storeu_ps(cv, _mm256_add_ps(c, _mm256_add_ps(_mm256_sub_ps(s, _mm256_sub_ps(t, bp)), _mm256_sub_ps(p, bp))));
    _mm256_storeu_ps(sv, t);
}

/* Rows r0 .. r0 + 3 row_stride, columns [0, w): the partials from +0 (first) or from part,
 * then stored to part, or folded into sv, cv (last). */
ATTR INLINE void pass4(const char *r0, int64_t row_stride, int64_t w, float *restrict part, float *restrict sv,
                       float *restrict cv, const bool first, const bool last, const bool nanskip) {
    const cpu_sum_elem e = CPU_SUM_ELEM_F16;
    const char *r1 = r0 + row_stride, *r2 = r1 + row_stride, *r3 = r2 + row_stride;
    for (int64_t j = 0; j < w; j += 8) {
        __m256 p = first ? _mm256_setzero_ps() : _mm256_loadu_ps(part + j);
        p = _mm256_add_ps(p, ld8(r0 + 2 * j, e, nanskip));
        p = _mm256_add_ps(p, ld8(r1 + 2 * j, e, nanskip));
        p = _mm256_add_ps(p, ld8(r2 + 2 * j, e, nanskip));
        p = _mm256_add_ps(p, ld8(r3 + 2 * j, e, nanskip));
        if (last) fold8(sv + j, cv + j, p);
        else _mm256_storeu_ps(part + j, p);
    }
}

_Static_assert(GROUP == 16, "long_groups takes a group in four passes of four rows");

/* nfull full groups of 16 rows from rows, columns [0, w) (w a multiple of 8), folded into
 * sv, cv. */
ATTR INLINE void long_groups(const char *rows, int64_t row_stride, int64_t nfull, int64_t w, float *restrict part,
                             float *restrict sv, float *restrict cv, const bool nanskip) {
    for (int64_t q = 0; q < nfull; q++, rows += GROUP * row_stride) {
        pass4(rows, row_stride, w, part, sv, cv, true, false, nanskip);
        pass4(rows + 4 * row_stride, row_stride, w, part, sv, cv, false, false, nanskip);
        pass4(rows + 8 * row_stride, row_stride, w, part, sv, cv, false, false, nanskip);
        pass4(rows + 12 * row_stride, row_stride, w, part, sv, cv, false, true, nanskip);
    }
}

ATTR INLINE void long_f16(const char *in, int64_t row_stride, int64_t size0, int64_t ncols, float *acc,
                          int64_t index0, const bool nanskip) {
    const cpu_sum_elem e = CPU_SUM_ELEM_F16;
    int64_t head = (GROUP - index0 % GROUP) % GROUP;
    if (head > size0) head = size0;
    if (head > 0) group_cols(in, row_stride, head, ncols, acc, e, nanskip);
    const int64_t nfull = (size0 - head) / GROUP;
    const char *rows = in + head * row_stride;
    if (nfull > 0) {
        float part[LONG_COLS], sv[LONG_COLS], cv[LONG_COLS];
        const int64_t nvec = ncols / 8 * 8;
        for (int64_t j0 = 0; j0 < nvec; j0 += LONG_COLS) {
            const int64_t w = nvec - j0 < LONG_COLS ? nvec - j0 : LONG_COLS;
            float *a = acc + 2 * j0;
            for (int64_t j = 0; j < w; j++) sv[j] = a[2 * j], cv[j] = a[2 * j + 1];
            long_groups(rows + 2 * j0, row_stride, nfull, w, part, sv, cv, nanskip);
            for (int64_t j = 0; j < w; j++) a[2 * j] = sv[j], a[2 * j + 1] = cv[j];
        }
        for (int64_t q = 0; q < nfull; q++) /* the last columns one at a time */
            cols1(rows + q * GROUP * row_stride, row_stride, GROUP, nvec, ncols, acc, e, nanskip);
    }
    const int64_t tail = size0 - head - nfull * GROUP;
    if (tail > 0) group_cols(rows + nfull * GROUP * row_stride, row_stride, tail, ncols, acc, e, nanskip);
}

ATTR bool tt_cpu_sum_outer_avx2(cpu_sum_elem e, bool nanskip, const char *in, int64_t row_stride, int64_t size0,
                             int64_t ncols, float *acc, int64_t index0) {
    if (!tt_cpu_sum_simd_f16c()) return false;
    if (row_stride > MAX_ROW_BYTES || row_stride < -MAX_ROW_BYTES) {
        if (e != CPU_SUM_ELEM_F16) return false;
        if (nanskip) long_f16(in, row_stride, size0, ncols, acc, index0, true);
        else long_f16(in, row_stride, size0, ncols, acc, index0, false);
        return true;
    }
#define CASE(E)                                                                                    \
    case E:                                                                                        \
        if (nanskip) outer_impl(in, row_stride, size0, ncols, acc, index0, E, true);               \
        else outer_impl(in, row_stride, size0, ncols, acc, index0, E, false);                      \
        return true;
    switch (e) {
        CASE(CPU_SUM_ELEM_F32)
        CASE(CPU_SUM_ELEM_F16)
        CASE(CPU_SUM_ELEM_BF16)
    }
#undef CASE
    return false;
}

#else

bool tt_cpu_sum_simd_f16c(void) { return false; }

bool tt_cpu_sum_outer_avx2(cpu_sum_elem e, bool nanskip, const char *in, int64_t row_stride, int64_t size0,
                        int64_t ncols, float *acc, int64_t index0) {
    (void)e, (void)nanskip, (void)in, (void)row_stride, (void)size0, (void)ncols, (void)acc, (void)index0;
    return false;
}

#endif
