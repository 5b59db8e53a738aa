/* The fast paths of the CPU sums and of the reduction driver against slower paths with the
 * same arithmetic, bitwise, and against exact references:
 *  - short rows ([N, k], k <= 32, vectorised across rows with AVX2 where the CPU has it)
 *    give the bits of the strided tile path (the same anchored blocks and lane tree);
 *  - slabs (many outputs, one chunk: the driver reduces and projects the outputs a slab at a
 *    time) and the block order of multi-dim reductions (a kept dim with a smaller input
 *    stride than the inner reduced dim becomes the block's dim 1) give correct values,
 *    bitwise the same for 1 and N threads, for sum and the generic loops (amax, argmax,
 *    var, mean, nanmean). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU_SUM_TEST_SEED 88172645463325252ull
#include "cpu_sum_test_util.h"

/* [N, k] rows: contiguous (short path), rows in a wider buffer (the short path's plain
 * loads over the gap between rows) and every other element (the tile path); float32,
 * float16 and bfloat16 inputs summed into float32. */
static void test_short_rows_match_tile_path(void **state) {
    (void)state;
    const int64_t rows[] = {1, 7, 8, 9, 37, 300};
    const sum_fn fns[2] = {tensor_sum_dims, tensor_nansum};
    const tensor_dtype dts[3] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_BFLOAT16};
    const int dim = 1;
    for (int t = 0; t < 3; t++)
        for (int f = 0; f < 2; f++)
            for (int64_t k = 1; k <= 40; k++)
                for (size_t ri = 0; ri < sizeof rows / sizeof rows[0]; ri++) {
                    int64_t sizes[2] = {rows[ri], 2 * k};
                    tensor_t *f32 = rnd_tensor(2, sizes, f == 1 ? 5 : 0);
                    tensor_t *big = tensor_to_dtype(f32, dts[t]);
                    assert_non_null(big);
                    tensor_t *strided = tensor_slice(big, 1, 0, 2 * k, 2);
                    tensor_t *gapped = tensor_narrow(big, 1, 0, k);
                    tensor_t *dense = tensor_contiguous(strided);
                    tensor_t *gd = tensor_contiguous(gapped);
                    assert_non_null(strided);
                    assert_non_null(gapped);
                    assert_non_null(dense);
                    assert_non_null(gd);
                    tensor_t *a = fns[f](strided, &dim, 1, false, TENSOR_FLOAT32);
                    tensor_t *b = fns[f](dense, &dim, 1, false, TENSOR_FLOAT32);
                    tensor_t *g = fns[f](gapped, &dim, 1, false, TENSOR_FLOAT32);
                    tensor_t *h = fns[f](gd, &dim, 1, false, TENSOR_FLOAT32);
                    expect_bitwise(a, b, f ? "nansum strided vs dense rows" : "sum strided vs dense rows", (long long)k);
                    expect_bitwise(g, h, f ? "nansum gapped vs dense rows" : "sum gapped vs dense rows", (long long)k);
                    tensor_release(a);
                    tensor_release(b);
                    tensor_release(g);
                    tensor_release(h);
                    tensor_release(gd);
                    tensor_release(dense);
                    tensor_release(gapped);
                    tensor_release(strided);
                    tensor_release(big);
                    tensor_release(f32);
                }
    /* full sums over rows of N elements whose blocks start mid-row (row j starts at
     * reduced index N j): contiguous rows in a wider buffer (the row path) against the
     * same values every other element (the tile path), each dtype, sum and nansum */
    for (int t = 0; t < 6; t++)
        for (int f = 0; f < 2; f++) {
            /* rows of 5000 (several blocks) and of 1000 (less than two) */
            const int64_t R = 7, N = t < 3 ? 5000 : 1000, W = N + 3;
            float *v = malloc(sizeof(float) * (size_t)(R * W));
            float *v2 = calloc((size_t)(R * 2 * W), sizeof(float));
            assert_non_null(v);
            assert_non_null(v2);
            for (int64_t e = 0; e < R * W; e++) {
                v[e] = f == 1 && rng_next() % 11 == 0 ? NAN : rnd_value();
                v2[(e / W) * 2 * W + 2 * (e % W)] = v[e];
            }
            int64_t s1[2] = {R, W}, s2[2] = {R, 2 * W};
            tensor_t *b1 = tensor_from_buffer(v, 2, s1, TENSOR_FLOAT32, tensor_cpu());
            tensor_t *b2 = tensor_from_buffer(v2, 2, s2, TENSOR_FLOAT32, tensor_cpu());
            free(v);
            free(v2);
            tensor_t *c1 = tensor_to_dtype(b1, dts[t % 3]), *c2 = tensor_to_dtype(b2, dts[t % 3]);
            tensor_t *gapped = tensor_narrow(c1, 1, 0, N), *strided = tensor_slice(c2, 1, 0, 2 * N, 2);
            assert_non_null(gapped);
            assert_non_null(strided);
            tensor_t *a = fns[f](gapped, NULL, 0, false, TENSOR_FLOAT32);
            tensor_t *b = fns[f](strided, NULL, 0, false, TENSOR_FLOAT32);
            expect_bitwise(a, b, f ? "nansum all of gapped vs strided rows" : "sum all of gapped vs strided rows", t);
            tensor_release(a);
            tensor_release(b);
            tensor_release(gapped);
            tensor_release(strided);
            tensor_release(c1);
            tensor_release(c2);
            tensor_release(b1);
            tensor_release(b2);
        }
    /* long rows (several anchored blocks, the inner row path) of each dtype, from an odd
     * start: the same check */
    for (int t = 0; t < 3; t++) {
        int64_t sizes[2] = {3, 2 * 5000};
        tensor_t *f32 = rnd_tensor(2, sizes, 0);
        tensor_t *big = tensor_to_dtype(f32, dts[t]);
        tensor_t *strided = tensor_slice(big, 1, 1, 2 * 5000, 2);
        tensor_t *dense = tensor_contiguous(strided);
        tensor_t *a = tensor_sum_dims(strided, &dim, 1, false, TENSOR_FLOAT32);
        tensor_t *b = tensor_sum_dims(dense, &dim, 1, false, TENSOR_FLOAT32);
        expect_bitwise(a, b, "sum strided vs dense long rows", 4999);
        tensor_release(a);
        tensor_release(b);
        tensor_release(dense);
        tensor_release(strided);
        tensor_release(big);
        tensor_release(f32);
    }
}

/* Column sums ([R, C] over dim 0): contiguous rows (the outer fast path) against every
 * other column of a wider tensor (the converted tile path), for the three 16/32-bit float
 * dtypes, sum and nansum; lengths around the 16-row groups, the 8- and 64-column strips,
 * the 2048- and 4096-column chunks, and a reduction long enough for the driver to chunk it. */
static void test_outer_match_tile_path(void **state) {
    (void)state;
    const int64_t rows[] = {1, 15, 16, 17, 100};
    const int64_t cols[] = {1, 3, 8, 63, 64, 65, 130, 2100, 4100};
    const tensor_dtype dts[3] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_BFLOAT16};
    const sum_fn fns[2] = {tensor_sum_dims, tensor_nansum};
    const int dim = 0;
    for (int t = 0; t < 3; t++)
        for (int f = 0; f < 2; f++)
            for (size_t ri = 0; ri < sizeof rows / sizeof rows[0] + 2; ri++)
                for (size_t ci = 0; ci < sizeof cols / sizeof cols[0]; ci++) {
                    /* the last two row counts: 70001 rows (several driver chunks), 3 and 9 columns */
                    const bool longc = ri >= sizeof rows / sizeof rows[0];
                    if (longc && ci > 0) continue;
                    int64_t sizes[2] = {longc ? 70001 : rows[ri], longc ? (ri % 2 ? 9 : 3) * 2 : 2 * cols[ci]};
                    tensor_t *f32 = rnd_tensor(2, sizes, f == 1 ? 9 : 0);
                    tensor_t *big = tensor_to_dtype(f32, dts[t]);
                    assert_non_null(big);
                    tensor_t *strided = tensor_slice(big, 1, 0, sizes[1], 2);
                    tensor_t *dense = tensor_contiguous(strided);
                    assert_non_null(strided);
                    assert_non_null(dense);
                    tensor_t *a = fns[f](strided, &dim, 1, false, TENSOR_FLOAT32);
                    tensor_t *b = fns[f](dense, &dim, 1, false, TENSOR_FLOAT32);
                    expect_bitwise(a, b, f ? "nansum columns strided vs dense" : "sum columns strided vs dense",
                                   (long long)(sizes[1] / 2));
                    tensor_release(a);
                    tensor_release(b);
                    tensor_release(dense);
                    tensor_release(strided);
                    tensor_release(big);
                    tensor_release(f32);
                }
}

/* Signed zeros, infinities and NaN in short rows: the values of IEEE sums. */
static void test_short_rows_special_values(void **state) {
    (void)state;
    const float inf = INFINITY;
    const float v[16][3] = {
        {-0.0f, -0.0f, -0.0f}, {1, -1, 0}, {inf, 1, 2}, {inf, -inf, 0}, {NAN, 1, 2}, {-inf, 3, 4},
        {1e30f, 1e30f, -1e30f}, {3e38f, 3e38f, -3e38f}, {1, 2, 3}, {0, 0, -0.0f}, {5, NAN, inf},
        {-2, -2, -2}, {0.1f, 0.2f, 0.3f}, {-0.0f, 0, 0}, {7, 7, 7}, {1e-45f, 1e-45f, 0},
    };
    const int64_t sizes[2] = {16, 3};
    tensor_t *x = tensor_from_buffer(v, 2, sizes, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(x);
    const int dim = 1;
    tensor_t *s = tensor_sum_dims(x, &dim, 1, false, TENSOR_DTYPE_DEFAULT);
    assert_non_null(s);
    const float *got = tensor_data(s);
    for (int i = 0; i < 16; i++) {
        const float want = (v[i][0] + v[i][1]) + v[i][2]; /* exact or the same rounding here */
        if (isnan(want)) {
            if (!isnan(got[i])) fail_msg("row %d: want NaN, got %g", i, (double)got[i]);
        } else if (i == 7) {
            /* 3e38 + 3e38 overflows in float32; a compensated sum of the three may too: only
             * check that it is not NaN (an inf partial plus its NaN correction). */
            if (isnan(got[i])) fail_msg("row 7: NaN");
        } else if (got[i] != want) {
            fail_msg("row %d: want %g, got %g", i, (double)want, (double)got[i]);
        }
    }
    tensor_release(s);
    tensor_release(x);
}

/* int8 / uint8 / bool contiguous sums (a byte-summing fast path) against int64 loops:
 * every length up to 300 from odd starts, the extreme values, and a long run. */
static void test_byte_sums(void **state) {
    (void)state;
    const int64_t total = 70000;
    signed char *v = malloc((size_t)total);
    assert_non_null(v);
    for (int64_t i = 0; i < total; i++) v[i] = (signed char)(rng_next() >> 24);
    for (int64_t i = 0; i < 40; i++) v[i] = -128;
    for (int64_t i = 40; i < 80; i++) v[i] = 127;
    const tensor_dtype dts[3] = {TENSOR_INT8, TENSOR_UINT8, TENSOR_BOOL};
    for (int t = 0; t < 3; t++) {
        if (dts[t] == TENSOR_BOOL)
            for (int64_t i = 0; i < total; i++) v[i] = (signed char)(v[i] & 1);
        tensor_t *x = tensor_from_buffer(v, 1, &total, dts[t], tensor_cpu());
        assert_non_null(x);
        for (int64_t start = 0; start < 4; start++)
            for (int64_t n = 0; n <= 301; n++) {
                if (n == 301) n = total - start; /* the long run */
                tensor_t *part = tensor_narrow(x, 0, start, n);
                assert_non_null(part);
                tensor_t *s = tensor_sum_dims(part, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
                assert_non_null(s);
                assert_int_equal(tensor_get_dtype(s), TENSOR_INT64);
                int64_t want = 0;
                for (int64_t i = start; i < start + n; i++)
                    want += dts[t] == TENSOR_INT8 ? (int64_t)v[i] : (int64_t)(unsigned char)v[i];
                const int64_t got = *(const int64_t *)tensor_data(s);
                if (got != want)
                    fail_msg("%s sum of %lld from %lld: %lld, want %lld", tensor_dtype_name(dts[t]), (long long)n,
                             (long long)start, (long long)got, (long long)want);
                tensor_release(s);
                tensor_release(part);
            }
        tensor_release(x);
    }
    free(v);
}

/* ---- the driver: slabs and block order ---- */

typedef tensor_t *(*reduce_fn)(const tensor_t *x, const int *dims, int ndims);
static tensor_t *do_sum(const tensor_t *x, const int *d, int n) { return tensor_sum_dims(x, d, n, false, TENSOR_DTYPE_DEFAULT); }
static tensor_t *do_mean(const tensor_t *x, const int *d, int n) { return tensor_mean(x, d, n, false, TENSOR_DTYPE_DEFAULT); }
static tensor_t *do_nanmean(const tensor_t *x, const int *d, int n) { return tensor_nanmean(x, d, n, false, TENSOR_DTYPE_DEFAULT); }
static tensor_t *do_amax(const tensor_t *x, const int *d, int n) { return tensor_amax(x, d, n, false); }
static tensor_t *do_var(const tensor_t *x, const int *d, int n) { return tensor_var(x, 1.0, d, n, false); }
static tensor_t *do_argmax(const tensor_t *x, const int *d, int n) { return n == 1 ? tensor_argmax(x, d, false) : NULL; }

static void threads_case(const tensor_t *x, reduce_fn fn, const int *dims, int ndims, const char *what) {
    const int counts[3] = {2, 3, 8};
    assert_int_equal(tensor_set_num_threads(1), TENSOR_OK);
    tensor_t *a = fn(x, dims, ndims);
    for (int c = 0; c < 3; c++) {
        assert_int_equal(tensor_set_num_threads(counts[c]), TENSOR_OK);
        tensor_t *b = fn(x, dims, ndims);
        expect_bitwise(a, b, what, counts[c]);
        tensor_release(b);
    }
    tensor_release(a);
}

/* Reference of a reduction over a set of dims of a contiguous 4-D float tensor: sum (long
 * double), max (NaN wins) and the sum of squares about the mean, per output in row-major
 * order of the kept dims. */
typedef struct ref4 {
    long double *sum, *abs, *m2;
    float *max;
    int64_t nout, count;
} ref4;

static ref4 reference4(const float *v, const int64_t s[4], const bool red[4]) {
    ref4 r;
    r.nout = 1;
    r.count = 1;
    for (int d = 0; d < 4; d++) {
        if (red[d]) r.count *= s[d];
        else r.nout *= s[d];
    }
    r.sum = calloc((size_t)r.nout, sizeof *r.sum);
    r.abs = calloc((size_t)r.nout, sizeof *r.abs);
    r.m2 = calloc((size_t)r.nout, sizeof *r.m2);
    r.max = malloc(sizeof(float) * (size_t)r.nout);
    assert_true(r.sum && r.abs && r.m2 && r.max);
    for (int64_t o = 0; o < r.nout; o++) r.max[o] = -INFINITY;
    for (int pass = 0; pass < 2; pass++)
        for (int64_t i0 = 0; i0 < s[0]; i0++)
            for (int64_t i1 = 0; i1 < s[1]; i1++)
                for (int64_t i2 = 0; i2 < s[2]; i2++)
                    for (int64_t i3 = 0; i3 < s[3]; i3++) {
                        const int64_t idx[4] = {i0, i1, i2, i3};
                        int64_t o = 0;
                        for (int d = 0; d < 4; d++)
                            if (!red[d]) o = o * s[d] + idx[d];
                        const float x = v[((i0 * s[1] + i1) * s[2] + i2) * s[3] + i3];
                        if (pass == 0) {
                            r.sum[o] += x;
                            r.abs[o] += fabsf(x);
                            if (x > r.max[o]) r.max[o] = x; /* no NaN in these inputs */
                        } else {
                            const long double dv = x - r.sum[o] / r.count;
                            r.m2[o] += dv * dv;
                        }
                    }
    return r;
}

static void ref4_free(ref4 *r) {
    free(r->sum);
    free(r->abs);
    free(r->m2);
    free(r->max);
}

/* Sums, means, max and var over `dims` of a random 4-D tensor against the reference, then
 * 1 vs N threads bitwise. */
static void check_4d(const int64_t s[4], const int *dims, int ndims) {
    tensor_t *x = rnd_tensor(4, s, 0);
    const float *v = tensor_data(x);
    bool red[4] = {false, false, false, false};
    for (int k = 0; k < ndims; k++) red[dims[k]] = true;
    ref4 r = reference4(v, s, red);
    assert_int_equal(tensor_set_num_threads(1), TENSOR_OK);
    tensor_t *sum = do_sum(x, dims, ndims), *mean = do_mean(x, dims, ndims), *mx = do_amax(x, dims, ndims);
    tensor_t *var = do_var(x, dims, ndims);
    assert_non_null(sum);
    assert_non_null(mean);
    assert_non_null(mx);
    assert_non_null(var);
    assert_int_equal(tensor_numel(sum), r.nout);
    const float *gs = tensor_data(sum), *gm = tensor_data(mean), *gx = tensor_data(mx), *gv = tensor_data(var);
    for (int64_t o = 0; o < r.nout; o++) {
        /* a plain float sum of a block is off by up to (terms) * eps * sum |x|; the fast
         * paths do better (64-term lanes, compensated folds), a wrong element or a missed
         * one is far off */
        const long double tol = r.abs[o] * 0x1p-17L;
        if (fabsl((long double)gs[o] - r.sum[o]) > tol)
            fail_msg("sum out %lld: %.9g, want %.9Lg", (long long)o, (double)gs[o], r.sum[o]);
        const long double m = r.sum[o] / r.count;
        if (fabsl((long double)gm[o] - m) > tol / r.count)
            fail_msg("mean out %lld: %.9g, want %.9Lg", (long long)o, (double)gm[o], m);
        if (gx[o] != r.max[o]) fail_msg("amax out %lld: %g, want %g", (long long)o, (double)gx[o], (double)r.max[o]);
        const long double wv = r.m2[o] / (r.count - 1);
        if (fabsl((long double)gv[o] - wv) > wv * 1e-4L) fail_msg("var out %lld: %.9g, want %.9Lg", (long long)o, (double)gv[o], wv);
    }
    tensor_release(sum);
    tensor_release(mean);
    tensor_release(mx);
    tensor_release(var);
    ref4_free(&r);
    threads_case(x, do_sum, dims, ndims, "sum");
    threads_case(x, do_mean, dims, ndims, "mean");
    threads_case(x, do_amax, dims, ndims, "amax");
    threads_case(x, do_var, dims, ndims, "var");
    tensor_release(x);
}

static void test_block_order_multi_dims(void **state) {
    (void)state;
    int saved = tensor_get_num_threads();
    /* [a, b, c, d] over dims 0 and 2: the innermost kept dim (d) is contiguous, the inner
     * reduced dim (c) is d elements apart, so blocks are c rows of d. */
    const int d02[2] = {0, 2}, d13[2] = {1, 3}, d01[2] = {0, 1};
    const int64_t s1[4] = {6, 10, 40, 12}, s2[4] = {9, 40, 70, 32}, s3[4] = {3, 5, 7, 33};
    check_4d(s1, d02, 2);
    check_4d(s2, d02, 2); /* > 2^15 reduced elements per output: chunks too */
    check_4d(s3, d13, 2);
    check_4d(s3, d01, 2);
    tensor_set_num_threads(saved);
}

/* Many outputs: slabs along a kept dim, for inner, outer and mixed reductions. */
static void test_slabs(void **state) {
    (void)state;
    int saved = tensor_get_num_threads();
    const int d0 = 0, d1 = 1, d2 = 2;
    const int64_t a[4] = {70001, 5, 1, 1}, b[4] = {5, 30011, 1, 1}, c[4] = {20000, 3, 1, 1}, e[4] = {7, 9, 11, 301};
    check_4d(a, &d1, 1); /* inner: [70001, 5] over dim 1 */
    check_4d(b, &d0, 1); /* outer: 30011 columns, slabs of columns */
    check_4d(c, &d0, 1); /* outer with 3 columns (threads split them one by one) */
    check_4d(e, &d2, 1); /* a middle dim: slabs over the outer kept dim */
    /* nanmean (a larger accumulator) and argmax (indices) on slab shapes */
    int64_t sz[2] = {70001, 5};
    tensor_t *x = rnd_tensor(2, sz, 7);
    threads_case(x, do_nanmean, &d1, 1, "nanmean slabs");
    threads_case(x, do_argmax, &d1, 1, "argmax slabs");
    tensor_t *am = tensor_argmax(x, &d1, false);
    assert_non_null(am);
    const float *v = tensor_data(x);
    const int64_t *got = tensor_data(am);
    for (int64_t i = 0; i < sz[0]; i++) {
        int64_t best = 0;
        for (int64_t k = 1; k < sz[1]; k++) {
            const float bv = v[i * sz[1] + best], kv = v[i * sz[1] + k];
            if (!isnan(bv) && (isnan(kv) || kv > bv)) best = k;
        }
        if (got[i] != best) fail_msg("argmax row %lld: %lld, want %lld", (long long)i, (long long)got[i], (long long)best);
    }
    tensor_release(am);
    tensor_release(x);
    tensor_set_num_threads(saved);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_short_rows_match_tile_path),
    cmocka_unit_test(test_short_rows_special_values),
    cmocka_unit_test(test_outer_match_tile_path),
    cmocka_unit_test(test_byte_sums),
    cmocka_unit_test(test_block_order_multi_dims),
    cmocka_unit_test(test_slabs),
};

TENSOR_TEST_GROUP(cpu_sum_paths, tests, NULL, NULL)
