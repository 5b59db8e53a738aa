/* CPU sum kernels against paths with the same arithmetic, bitwise:
 *  - short float32 rows ([R, n], n <= 32, R >= 8192) summed straight into a float32 output
 *    (cpu/reduce_sum.c sum_short_direct, cpu/sum_short_avx2.c): against the strided tile
 *    path (every other element of a wider tensor), for sum and nansum, rows in a wider
 *    buffer, keepdim, several threads, outputs large enough for streaming stores, and
 *    outputs that do not start 32-byte aligned (the scalar head before the streamed part);
 *  - float32 column sums of narrow rows ([R, C], C < 8, over dim 0: cpu/sum_outer_avx2.c
 *    narrow_groups) against the outer tile path, with a driver chunk starting mid-group;
 *  - the bfloat16 block kernel (cpu/sum_bf16_avx.c), AVX-512 and AVX2, and the float16 one
 *    (cpu/sum_f16_avx.c, F16C) against a scalar copy of sum_tmpl.h's block() arithmetic, and
 *    through tensor_sum against the tile path;
 *  - float16 column sums of long rows (cpu/sum_outer_avx2.c long_f16) against a scalar copy
 *    of the outer arithmetic, from every position in a 16-row group.
 * Where the CPU lacks AVX2 the fast paths are not taken and the comparisons still hold. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_sum_test_util.h"

#include "cpu/cpu_reduce.h"
#include "cpu/sum_simd.h"
#include "runtime/dtype_convert.h"


/* [R, n] over dim 1, three ways: every other element of [R, 4n] (the tile path), the same
 * values contiguous (the direct path) and as the first n of 2n columns (the direct path
 * with a row stride of 2n). */
static void check_rows(int64_t R, int64_t n, int f, int nan_every, const char *what) {
    const sum_fn fns[2] = {tensor_sum_dims, tensor_nansum};
    const int dim = 1;
    int64_t sizes[2] = {R, 4 * n};
    tensor_t *base = rnd_tensor(2, sizes, nan_every);
    tensor_t *strided = tensor_slice(base, 1, 0, 2 * n, 2);
    tensor_t *dense = tensor_contiguous(strided);
    tensor_t *wide_s = tensor_slice(base, 1, 0, 4 * n, 2);
    tensor_t *wide = tensor_contiguous(wide_s);
    assert_non_null(wide);
    tensor_t *gapped = tensor_narrow(wide, 1, 0, n);
    assert_non_null(gapped);
    tensor_t *a = fns[f](strided, &dim, 1, false, TENSOR_FLOAT32);
    tensor_t *b = fns[f](dense, &dim, 1, false, TENSOR_FLOAT32);
    tensor_t *c = fns[f](gapped, &dim, 1, false, TENSOR_FLOAT32);
    tensor_t *d = fns[f](dense, &dim, 1, true, TENSOR_FLOAT32);
    expect_bitwise(a, b, what, (long long)n);
    expect_bitwise(a, c, what, (long long)n);
    expect_bitwise(a, d, what, (long long)n);
    tensor_release(a);
    tensor_release(b);
    tensor_release(c);
    tensor_release(d);
    tensor_release(gapped);
    tensor_release(wide);
    tensor_release(wide_s);
    tensor_release(dense);
    tensor_release(strided);
    tensor_release(base);
}

static void test_short_direct_match_tile_path(void **state) {
    (void)state;
    const int64_t ns[] = {2, 3, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33};
    const int64_t rows[] = {8192, 8199, 70001};
    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
        for (size_t ri = 0; ri < sizeof rows / sizeof rows[0]; ri++) {
            if (ri == 2 && ni % 4 != 1) continue; /* the long one for a few lengths */
            check_rows(rows[ri], ns[ni], 0, 0, "sum rows: direct vs tile");
            check_rows(rows[ri], ns[ni], 0, 9, "sum rows with NaN: direct vs tile");
            check_rows(rows[ri], ns[ni], 1, 5, "nansum rows: direct vs tile");
        }
}

/* Outputs of 8 MiB and more are streamed: rows of 3 and 7 there. */
static void test_short_direct_streaming(void **state) {
    (void)state;
    check_rows((int64_t)1 << 21, 3, 0, 0, "sum, streamed output");
    check_rows(((int64_t)1 << 21) + 13, 7, 1, 11, "nansum, streamed output");
}

/* The same bits for 1, 2, 3 and 8 threads (tasks of 32768 rows), and values near a long
 * double reference: the tree of a row of n <= 32 is off by at most log2(32) = 5 roundings
 * of the row's sum of |x| (2^-24 each), a missed or doubled element far more. */
static void threads_rows(int64_t n) {
    const int counts[4] = {1, 2, 3, 8};
    const int dim = 1;
    int64_t sizes[2] = {3 * 32768 + 13, n};
    tensor_t *x = rnd_tensor(2, sizes, 0);
    tensor_t *first = NULL;
    for (int c = 0; c < 4; c++) {
        assert_int_equal(tensor_set_num_threads(counts[c]), TENSOR_OK);
        tensor_t *s = tensor_sum_dims(x, &dim, 1, false, TENSOR_FLOAT32);
        assert_non_null(s);
        if (first == NULL) {
            first = s;
        } else {
            expect_bitwise(first, s, "direct rows: 1 thread vs more", counts[c]);
            tensor_release(s);
        }
    }
    const float *v = tensor_data(x), *got = tensor_data(first);
    for (int64_t i = 0; i < sizes[0]; i++) {
        long double want = 0, mag = 0;
        for (int64_t k = 0; k < n; k++) {
            want += v[i * n + k];
            mag += fabsl((long double)v[i * n + k]);
        }
        if (fabsl((long double)got[i] - want) > mag * 0x1p-19L)
            fail_msg("row %lld of %lld: %.9g, want %.9Lg", (long long)i, (long long)n, (double)got[i], want);
    }
    tensor_release(first);
    tensor_release(x);
}

static void test_short_direct_threads(void **state) {
    (void)state;
    const int saved = tensor_get_num_threads();
    threads_rows(7);
    threads_rows(32);
    tensor_set_num_threads(saved);
}

/* Signed zeros, infinities and NaN: a row of zeros sums to +0 (the accumulator starts at
 * +0), inf - inf and NaN give NaN, nansum skips NaN. */
static void test_short_direct_special_values(void **state) {
    (void)state;
    const float inf = INFINITY;
    const float v[8][3] = {{-0.0f, -0.0f, -0.0f}, {inf, 1, 2}, {inf, -inf, 0}, {NAN, 1, 2},
                           {-inf, 3, 4},          {1, 2, 3},   {5, NAN, inf}, {-2, -2, -2}};
    const int64_t R = 8192;
    float *buf = malloc(sizeof(float) * 3 * (size_t)R);
    assert_non_null(buf);
    for (int64_t i = 0; i < R; i++) memcpy(buf + 3 * i, v[i % 8], sizeof v[0]);
    const int64_t sizes[2] = {R, 3};
    tensor_t *x = tensor_from_buffer(buf, 2, sizes, TENSOR_FLOAT32, tensor_cpu());
    free(buf);
    assert_non_null(x);
    const int dim = 1;
    tensor_t *s = tensor_sum_dims(x, &dim, 1, false, TENSOR_FLOAT32);
    tensor_t *ns = tensor_nansum(x, &dim, 1, false, TENSOR_FLOAT32);
    assert_non_null(s);
    assert_non_null(ns);
    const float *gs = tensor_data(s), *gn = tensor_data(ns);
    const float want_s[8] = {0.0f, inf, NAN, NAN, -inf, 6, NAN, -6};
    const float want_n[8] = {0.0f, inf, NAN, 3, -inf, 6, inf, -6};
    for (int64_t i = 0; i < R; i++) {
        const int r = (int)(i % 8);
        const float ws = want_s[r], wn = want_n[r];
        if (isnan(ws) ? !isnan(gs[i]) : (gs[i] != ws || signbit(gs[i]) != signbit(ws)))
            fail_msg("sum row %lld: %g, want %g", (long long)i, (double)gs[i], (double)ws);
        if (isnan(wn) ? !isnan(gn[i]) : (gn[i] != wn || signbit(gn[i]) != signbit(wn)))
            fail_msg("nansum row %lld: %g, want %g", (long long)i, (double)gn[i], (double)wn);
    }
    tensor_release(s);
    tensor_release(ns);
    tensor_release(x);
    /* rows of 8 (no zero padding lanes in the tree) of -0: +0 as well */
    const int64_t s8[2] = {R, 8};
    tensor_t *z = tensor_full(2, s8, -0.0, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(z);
    tensor_t *zs = tensor_sum_dims(z, &dim, 1, false, TENSOR_FLOAT32);
    assert_non_null(zs);
    const float *gz = tensor_data(zs);
    for (int64_t i = 0; i < R; i++)
        if (gz[i] != 0.0f || signbit(gz[i])) fail_msg("row %lld of -0: %g, want +0", (long long)i, (double)gz[i]);
    tensor_release(zs);
    tensor_release(z);
}

/* An output that starts 4 .. 28 bytes past a 32-byte boundary (a view of a larger buffer,
 * given to the kernel through an iterator): the rows before the boundary take the scalar
 * head, the rest are streamed. The result must be the tile path's. */
static void test_short_direct_unaligned_output(void **state) {
    (void)state;
    const int64_t R = ((int64_t)1 << 21) + 5, n = 3;
    int64_t sizes[2] = {R, 2 * n};
    tensor_t *base = rnd_tensor(2, sizes, 0);
    tensor_t *strided = tensor_slice(base, 1, 0, 2 * n, 2);
    tensor_t *dense = tensor_contiguous(strided);
    assert_non_null(dense);
    const int dim = 1;
    tensor_t *want = tensor_sum_dims(strided, &dim, 1, false, TENSOR_FLOAT32);
    assert_non_null(want);
    const int64_t big = R + 8;
    tensor_t *outbuf = tensor_zeros(1, &big, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(outbuf);
    for (int64_t off = 0; off < 8; off++) {
        tensor_t *out = tensor_narrow(outbuf, 0, off, R);
        assert_non_null(out);
        tensor_iter_config *cfg = tensor_iter_config_new("test_sum_direct");
        assert_non_null(cfg);
        assert_int_equal(tensor_iter_config_add_output(cfg, out), TENSOR_OK);
        assert_int_equal(tensor_iter_config_add_input(cfg, dense), TENSOR_OK);
        assert_int_equal(tensor_iter_config_reduce_dims(cfg, &dim, 1, false), TENSOR_OK);
        tensor_iter_t *it = tensor_iter_build(cfg);
        tensor_iter_config_free(cfg);
        assert_non_null(it);
        tensor_kernel_params params;
        memset(&params, 0, sizeof params);
        assert_int_equal(tt_cpu_sum_kernel(it, &params), TENSOR_OK);
        tensor_iter_free(it);
        expect_bitwise(want, out, "sum into an unaligned output", (long long)off);
        tensor_release(out);
    }
    tensor_release(outbuf);
    tensor_release(want);
    tensor_release(dense);
    tensor_release(strided);
    tensor_release(base);
}

/* ---- narrow outer rows ([R, C] over dim 0, C < 8: eight 16-row groups at once) ---- */

/* Dense rows of C columns (the narrow kernel) against every other column of [R, 2C] (the
 * outer tile path); 70001 rows make two driver chunks, the second starting mid-group. */
static void test_outer_narrow_match_tile_path(void **state) {
    (void)state;
    const int saved = tensor_get_num_threads();
    const sum_fn fns[2] = {tensor_sum_dims, tensor_nansum};
    const int64_t rows[] = {127, 128, 1000, 70001};
    const int dim = 0;
    for (int64_t C = 1; C <= 8; C++)
        for (size_t ri = 0; ri < sizeof rows / sizeof rows[0]; ri++)
            for (int f = 0; f < 2; f++) {
                int64_t sizes[2] = {rows[ri], 2 * C};
                tensor_t *base = rnd_tensor(2, sizes, f ? 7 : 0);
                tensor_t *strided = tensor_slice(base, 1, 0, 2 * C, 2);
                tensor_t *dense = tensor_contiguous(strided);
                assert_non_null(dense);
                assert_int_equal(tensor_set_num_threads(1), TENSOR_OK);
                tensor_t *a = fns[f](strided, &dim, 1, false, TENSOR_FLOAT32);
                tensor_t *b = fns[f](dense, &dim, 1, false, TENSOR_FLOAT32);
                assert_int_equal(tensor_set_num_threads(8), TENSOR_OK);
                tensor_t *c = fns[f](dense, &dim, 1, false, TENSOR_FLOAT32);
                expect_bitwise(a, b, f ? "nansum narrow columns: dense vs tile" : "sum narrow columns: dense vs tile",
                               (long long)(C * 1000000 + rows[ri]));
                expect_bitwise(b, c, "narrow columns: 1 vs 8 threads", (long long)(C * 1000000 + rows[ri]));
                tensor_release(a);
                tensor_release(b);
                tensor_release(c);
                tensor_release(dense);
                tensor_release(strided);
                tensor_release(base);
            }
    tensor_set_num_threads(saved);
}

/* ---- bfloat16 blocks ---- */

/* sum_tmpl.h's block() for one full block of 2048 bfloat16 (32 lanes, the pairwise tree). */
static float ref_block(const uint16_t *x, bool nanskip) {
    float lane[32] = {0};
    for (int k = 0; k < 2048; k++) {
        float v = tensor_bf16_to_f32(x[k]);
        if (nanskip && v != v) v = 0;
        lane[k % 32] += v;
    }
    for (int w = 16; w > 0; w /= 2)
        for (int l = 0; l < w; l++) lane[l] += lane[l + w];
    return lane[0];
}

static void fill_bf16(uint16_t *x, int64_t n, int nan_every) {
    for (int64_t i = 0; i < n; i++) {
        float f = rnd_value();
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        x[i] = (uint16_t)(u >> 16);
        if (nan_every > 0 && rng_next() % (uint64_t)nan_every == 0) x[i] = 0x7fc1;
    }
}

static void test_bf16_blocks_match_reference(void **state) {
    (void)state;
    const int64_t nbmax = 7;
    uint16_t *x = malloc(sizeof(uint16_t) * 2048 * (size_t)nbmax);
    assert_non_null(x);
    for (int nanskip = 0; nanskip < 2; nanskip++)
        for (int avx512 = 0; avx512 < 2; avx512++)
            for (int64_t nb = 1; nb <= nbmax; nb++) {
                fill_bf16(x, 2048 * nb, nanskip ? 50 : 0);
                if (!nanskip && nb == 3) {
                    x[2048 + 5] = 0x7f80; /* +inf in block 1 */
                    x[2 * 2048 + 9] = 0x7f80, x[2 * 2048 + 77] = 0xff80; /* inf - inf in block 2 */
                }
                if (nb == 4) x[3 * 2048 + 1] = 0x0001; /* a subnormal */
                float p[7];
                if (!tt_cpu_sum_bf16_blocks(x, nb, nanskip, p, avx512)) {
                    assert_false(tt_cpu_sum_simd_avx2()); /* only without AVX2 */
                    continue;
                }
                for (int64_t i = 0; i < nb; i++) {
                    const float want = ref_block(x + i * 2048, nanskip);
                    const bool same = isnan(want) ? isnan(p[i]) : memcmp(&want, &p[i], sizeof want) == 0;
                    if (!same)
                        fail_msg("bf16 block %lld of %lld (nanskip %d, avx512 %d): %a, want %a", (long long)i,
                                 (long long)nb, nanskip, avx512, (double)p[i], (double)want);
                }
            }
    free(x);
}

/* ---- float16 blocks ---- */

/* block() for one full block of 2048 float16, as the bfloat16 reference above. */
static float ref_block_f16(const uint16_t *x, bool nanskip) {
    float lane[32] = {0};
    for (int k = 0; k < 2048; k++) {
        float v = tensor_f16_to_f32(x[k]);
        if (nanskip && v != v) v = 0;
        lane[k % 32] += v;
    }
    for (int w = 16; w > 0; w /= 2)
        for (int l = 0; l < w; l++) lane[l] += lane[l + w];
    return lane[0];
}

/* Random float16 over 2^-14 .. 2^14 (rnd_value rounded; its tiny values become
 * subnormals or zeros), a NaN every nan_every elements. */
static void fill_f16(uint16_t *x, int64_t n, int nan_every) {
    for (int64_t i = 0; i < n; i++) {
        x[i] = tensor_f32_to_f16(rnd_value() * 0x1p-6f);
        if (nan_every > 0 && rng_next() % (uint64_t)nan_every == 0) x[i] = 0x7e01;
    }
}

static void test_f16_blocks_match_reference(void **state) {
    (void)state;
    const int64_t nbmax = 7;
    uint16_t *x = malloc(sizeof(uint16_t) * 2048 * (size_t)nbmax);
    assert_non_null(x);
    for (int nanskip = 0; nanskip < 2; nanskip++)
        for (int64_t nb = 1; nb <= nbmax; nb++) {
            fill_f16(x, 2048 * nb, nanskip ? 50 : 0);
            if (!nanskip && nb == 3) {
                x[2048 + 5] = 0x7c00; /* +inf in block 1 */
                x[2 * 2048 + 9] = 0x7c00, x[2 * 2048 + 77] = 0xfc00; /* inf - inf in block 2 */
            }
            if (nb == 4) x[3 * 2048 + 1] = 0x0001, x[3 * 2048 + 40] = 0x83ff; /* subnormals */
            if (nb == 5) x[4 * 2048 + 7] = 0x7bff, x[4 * 2048 + 39] = 0x7bff; /* 65504 twice */
            float p[7];
            if (!tt_cpu_sum_f16_blocks(x, nb, nanskip, p)) {
                assert_false(tt_cpu_sum_simd_f16c()); /* only without AVX2 and F16C */
                continue;
            }
            for (int64_t i = 0; i < nb; i++) {
                const float want = ref_block_f16(x + i * 2048, nanskip);
                const bool same = isnan(want) ? isnan(p[i]) : memcmp(&want, &p[i], sizeof want) == 0;
                if (!same)
                    fail_msg("f16 block %lld of %lld (nanskip %d): %a, want %a", (long long)i, (long long)nb, nanskip,
                             (double)p[i], (double)want);
            }
        }
    free(x);
}

/* ---- long float16 rows summed over dim 0 ---- */

/* sum_tmpl.h's outer arithmetic for one column: groups of 16 rows anchored to the reduced
 * index (row i has index index0 + i), each summed in row order from +0, then TwoSum into
 * {s, c}. */
static void ref_outer_col(const char *in, int64_t row_stride, int64_t size0, int64_t index0, bool nanskip,
                          float *s, float *c) {
    for (int64_t i0 = 0; i0 < size0;) {
        int64_t g = 16 - (index0 + i0) % 16;
        if (g > size0 - i0) g = size0 - i0;
        float p = 0.0f;
        for (int64_t i = i0; i < i0 + g; i++) {
            uint16_t h;
            memcpy(&h, in + i * row_stride, sizeof h);
            float v = tensor_f16_to_f32(h);
            if (nanskip && v != v) v = 0;
            p += v;
        }
        const float t = *s + p, bp = t - *s;
        *c += (*s - (t - bp)) + (p - bp);
        *s = t;
        i0 += g;
    }
}

/* Rows more than 1 KiB apart: full groups four rows at a time along runs of 4096 columns,
 * the partial groups at either end, columns past the last multiple of 8 one at a time;
 * accumulators that start non-zero. */
static void test_f16_outer_long_match_reference(void **state) {
    (void)state;
    const int64_t sizes0[] = {1, 11, 16, 40, 75};
    const int64_t ncols_list[] = {1, 9, 520, 4100, 8200};
    const int64_t index0s[] = {0, 5, 16, 31};
    const int64_t maxc = 8200, maxr = 75, pad = 40;
    uint16_t *x = malloc(sizeof(uint16_t) * (size_t)(maxr * (maxc + 600)));
    float *acc = malloc(sizeof(float) * 2 * (size_t)maxc), *want = malloc(sizeof(float) * 2 * (size_t)maxc);
    assert_non_null(x);
    assert_non_null(acc);
    assert_non_null(want);
    for (int nanskip = 0; nanskip < 2; nanskip++)
        for (size_t ci = 0; ci < sizeof ncols_list / sizeof ncols_list[0]; ci++)
            for (size_t ri = 0; ri < sizeof sizes0 / sizeof sizes0[0]; ri++)
                for (size_t ii = 0; ii < sizeof index0s / sizeof index0s[0]; ii++) {
                    const int64_t ncols = ncols_list[ci], size0 = sizes0[ri], index0 = index0s[ii];
                    /* elements per row: at least 520 (rows > 1 KiB apart), an odd gap */
                    const int64_t rs = (ncols + pad < 520 ? 520 : ncols + pad) + 1;
                    fill_f16(x, size0 * rs, nanskip ? 30 : 0);
                    if (!nanskip && size0 > 3) x[3 * rs] = 0x7c00; /* +inf in column 0 */
                    for (int64_t j = 0; j < 2 * ncols; j++) acc[j] = want[j] = rnd_value();
                    for (int64_t j = 0; j < ncols; j++)
                        ref_outer_col((const char *)(x + j), 2 * rs, size0, index0, nanskip, &want[2 * j],
                                      &want[2 * j + 1]);
                    if (!tt_cpu_sum_outer_avx2(CPU_SUM_ELEM_F16, nanskip, (const char *)x, 2 * rs, size0, ncols,
                                               acc, index0)) {
                        assert_false(tt_cpu_sum_simd_f16c());
                        continue;
                    }
                    for (int64_t j = 0; j < 2 * ncols; j++) {
                        const bool same = isnan(want[j]) ? isnan(acc[j]) : memcmp(&want[j], &acc[j], 4) == 0;
                        if (!same)
                            fail_msg("f16 long rows [%lld, %lld] from index %lld (nanskip %d): column %lld %s: "
                                     "%a, want %a",
                                     (long long)size0, (long long)ncols, (long long)index0, nanskip,
                                     (long long)(j / 2), j % 2 ? "c" : "s", (double)acc[j], (double)want[j]);
                    }
                }
    free(x);
    free(acc);
    free(want);
}

/* Full sums of bfloat16 and float16 (the block kernels for full blocks, the template for
 * the head and the tail) against the tile path, from an odd start, sum and nansum, 1 and 8
 * threads. */
static void test_16bit_full_sum_match_tile_path(void **state) {
    (void)state;
    const int saved = tensor_get_num_threads();
    const int64_t n = 2048 * 37 + 301, n2 = 2 * (n + 1);
    uint16_t *v = malloc(sizeof(uint16_t) * (size_t)n2);
    assert_non_null(v);
    for (int f = 0; f < 4; f++) {
        const bool f16 = f >= 2;
        if (f16) fill_f16(v, n2, f % 2 ? 40 : 0);
        else fill_bf16(v, n2, f % 2 ? 40 : 0);
        tensor_t *x = tensor_from_buffer(v, 1, &n2, f16 ? TENSOR_FLOAT16 : TENSOR_BFLOAT16, tensor_cpu());
        assert_non_null(x);
        tensor_t *strided = tensor_slice(x, 0, 2, n2, 2); /* elements 2, 4, ...: n of them */
        assert_non_null(strided);
        tensor_t *dense = tensor_contiguous(strided);
        tensor_t *odd = tensor_narrow(dense, 0, 1, n - 1); /* from an odd start */
        tensor_t *odd_s = tensor_narrow(strided, 0, 1, n - 1);
        assert_non_null(odd);
        assert_non_null(odd_s);
        for (int t = 0; t < 2; t++) {
            assert_int_equal(tensor_set_num_threads(t ? 8 : 1), TENSOR_OK);
            const sum_fn fn = f % 2 ? tensor_nansum : tensor_sum_dims;
            tensor_t *a = fn(strided, NULL, 0, false, TENSOR_FLOAT32);
            tensor_t *b = fn(dense, NULL, 0, false, TENSOR_FLOAT32);
            tensor_t *c = fn(odd_s, NULL, 0, false, TENSOR_FLOAT32);
            tensor_t *d = fn(odd, NULL, 0, false, TENSOR_FLOAT32);
            expect_bitwise(a, b, "16-bit full sum: dense vs tile", f);
            expect_bitwise(c, d, "16-bit full sum from an odd start: dense vs tile", f);
            tensor_release(a);
            tensor_release(b);
            tensor_release(c);
            tensor_release(d);
        }
        tensor_release(odd);
        tensor_release(odd_s);
        tensor_release(dense);
        tensor_release(strided);
        tensor_release(x);
    }
    free(v);
    tensor_set_num_threads(saved);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_short_direct_match_tile_path),
    cmocka_unit_test(test_short_direct_streaming),
    cmocka_unit_test(test_short_direct_threads),
    cmocka_unit_test(test_short_direct_special_values),
    cmocka_unit_test(test_short_direct_unaligned_output),
    cmocka_unit_test(test_outer_narrow_match_tile_path),
    cmocka_unit_test(test_bf16_blocks_match_reference),
    cmocka_unit_test(test_f16_blocks_match_reference),
    cmocka_unit_test(test_f16_outer_long_match_reference),
    cmocka_unit_test(test_16bit_full_sum_match_tile_path),
};

TENSOR_TEST_GROUP(cpu_sum_direct, tests, NULL, NULL)
