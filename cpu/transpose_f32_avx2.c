/* Float32 rows transposed into columns with AVX2 (see cpu/transpose.h).
 *
 * Why: a user reduction over short inner rows (vecdot of [524288, 32]) folds each row alone,
 * in order (the kit's arithmetic for runs under two blocks of lanes): one dependent chain of
 * additions a row. Transposed, a group of rows becomes a block of columns, and the kit's
 * fold_columns runs the same in-order chains side by side across outputs, with the same bits.
 * A scalar transpose costs a load and a store an element; 8x8 tiles of vectors cost about 40
 * instructions per 64 elements. */
#include "cpu/cpu_isa.h"
#include "cpu/transpose.h"

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>

#include "runtime/avx2_turn.h"

#define ATTR __attribute__((target("avx2")))

/* Rows s[0..8) (8 floats each) into columns: d[i * ld + r] = s[r][i]. */
ATTR static inline __attribute__((always_inline)) void tile8(float *d, int64_t ld, const float *const s[8]) {
    __m256 r[8], t[8];
    for (int k = 0; k < 8; k++) r[k] = _mm256_loadu_ps(s[k]);
    tt_avx2_turn8(t, r);
    for (int k = 0; k < 8; k++) _mm256_storeu_ps(d + k * ld, t[k]);
}

ATTR static void transpose_avx2(float *dst, int64_t ld, const char *src, int64_t stride, int64_t m, int64_t nrows) {
    for (int64_t r0 = 0; r0 < nrows; r0 += 8) {
        const float *s[8];
        for (int k = 0; k < 8; k++) s[k] = (const float *)(src + (r0 + k) * stride);
        int64_t i = 0;
        for (; i + 8 <= m; i += 8) {
            const float *const p[8] = {s[0] + i, s[1] + i, s[2] + i, s[3] + i, s[4] + i, s[5] + i, s[6] + i, s[7] + i};
            tile8(dst + i * ld + r0, ld, p);
        }
        for (; i < m; i++)
            for (int k = 0; k < 8; k++) dst[i * ld + r0 + k] = s[k][i];
    }
}

bool tt_cpu_transpose_f32(float *dst, int64_t ld, const char *src, int64_t stride, int64_t m, int64_t nrows) {
    if (nrows % 8 != 0 || !tt_cpu_has(TT_CPU_AVX2)) return false;
    transpose_avx2(dst, ld, src, stride, m, nrows);
    return true;
}
#else
bool tt_cpu_transpose_f32(float *dst, int64_t ld, const char *src, int64_t stride, int64_t m, int64_t nrows) {
    (void)dst, (void)ld, (void)src, (void)stride, (void)m, (void)nrows;
    return false;
}
#endif
