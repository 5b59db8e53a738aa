/* Precision where the result is fixed by our algorithm: float32 cascade
 * summation, float16/bfloat16 accumulated in float32 and rounded ONCE at the end; and sums at
 * lengths around vector, unroll and block boundaries in every layout, checked exactly. */
#include "reduce_test_util.h"

static double sum_all(const tensor_t *x, tensor_dtype dtype) {
    tensor_t *s = tensor_sum_dims(x, NULL, 0, false, dtype);
    assert_non_null(s);
    double v = rt_item(s);
    tensor_release(s);
    return v;
}

/* A size-n 1-D tensor of `value` as an expanded (stride 0) view: no memory, and a different
 * kernel path from the contiguous one. */
static tensor_t *expanded_full(int64_t n, double value, tensor_dtype d) {
    tensor_t *one = tensor_full(1, RT_I64(1), value, d, tensor_cpu());
    tensor_t *e = tensor_expand(one, 1, &n);
    tensor_release(one);
    assert_non_null(e);
    return e;
}

static void test_f32_cascade_sum(void **state) {
    (void)state;
    const int64_t n = (INT64_C(1) << 24) + 3;
    tensor_t *x = tensor_ones(1, &n, TENSOR_FLOAT32, tensor_cpu());
    /* 16777219 rounds to 16777220; a naive float32 loop stops at 16777216 */
    assert_true(sum_all(x, TENSOR_DTYPE_DEFAULT) == 16777220.0);
    assert_true(sum_all(x, TENSOR_FLOAT64) == 16777219.0);
    tensor_t *m = tensor_mean(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_true(rt_item(m) == 1.0);
    tensor_release(m);
    tensor_release(x);
    x = expanded_full(n, 1.0, TENSOR_FLOAT32);
    assert_true(sum_all(x, TENSOR_DTYPE_DEFAULT) == 16777220.0);
    tensor_release(x);
    /* along an outer dim: [n, 2] with stride 0 on dim 0 */
    tensor_t *row = tensor_ones(2, RT_I64(1, 2), TENSOR_FLOAT32, tensor_cpu());
    x = tensor_expand(row, 2, RT_I64(n, 2));
    tensor_t *s = tensor_sum(x, 0, false);
    double *g = rt_read_f64(s);
    assert_true(g[0] == 16777220.0 && g[1] == 16777220.0);
    free(g);
    tensor_release(s);
    tensor_release(x);
    tensor_release(row);
}

static void test_f32_sum_small_examples(void **state) {
    (void)state;
    /* [2^24] + [1]*15: exact 16777231; PyTorch's CPU gives 16777230, correct rounding 16777232 */
    double v[16];
    v[0] = 16777216.0;
    for (int i = 1; i < 16; i++) v[i] = 1;
    tensor_t *x = rt_vec(TENSOR_FLOAT32, 16, v);
    double s = sum_all(x, TENSOR_DTYPE_DEFAULT);
    assert_true(s == 16777230.0 || s == 16777232.0);
    tensor_release(x);
    /* arange(2^20) sums to 549755289600, which float32 holds exactly */
    x = tensor_arange(0, 1048576, 1, TENSOR_FLOAT32, tensor_cpu());
    s = sum_all(x, TENSOR_DTYPE_DEFAULT);
    assert_true(fabs(s - 549755289600.0) <= 549755289600.0 * 0x1p-23);
    tensor_release(x);
    /* mean([1,2,4]) is 7/3 rounded once: 2.3333332539 */
    x = RT_VEC(TENSOR_FLOAT32, 1, 2, 4);
    tensor_t *m = tensor_mean(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_true(rt_item(m) == (double)(7.0f / 3.0f));
    tensor_release(m);
    tensor_release(x);
}

static void test_f16_bf16_sums_round_once(void **state) {
    (void)state;
    struct {
        tensor_dtype d;
        int64_t n;
        double value;
        double want;
    } cases[] = {
        {TENSOR_FLOAT16, 2049, 1.0, 2048.0},    /* 2049 is a tie: round to even */
        {TENSOR_FLOAT16, 4096, 1.0, 4096.0},    /* a float16 accumulator would stop at 2048 */
        {TENSOR_FLOAT16, 70000, 1.0, INFINITY}, /* 70000 > 65504 */
        {TENSOR_FLOAT16, 70000, 0.1, 7000.0},   /* 6998.29 in float32, rounded once */
        {TENSOR_BFLOAT16, 257, 1.0, 256.0},     /* 257 rounds to even */
        {TENSOR_BFLOAT16, 100000, 1.0, 99840.0},
    };
    for (int i = 0; i < RT_NELEM(cases); i++) {
        for (int layout = 0; layout < 3; layout++) {
            tensor_t *x;
            if (layout == 0) {
                x = tensor_full(1, &cases[i].n, cases[i].value, cases[i].d, tensor_cpu());
            } else if (layout == 1) {
                x = expanded_full(cases[i].n, cases[i].value, cases[i].d);
            } else { /* every other element of a 2n buffer */
                int64_t n2 = 2 * cases[i].n;
                tensor_t *b = tensor_full(1, &n2, cases[i].value, cases[i].d, tensor_cpu());
                x = tensor_slice(b, 0, 0, n2, 2);
                tensor_release(b);
            }
            assert_non_null(x);
            double s = sum_all(x, TENSOR_DTYPE_DEFAULT);
            if (s != cases[i].want)
                fail_msg("%s sum of %lld x %g (layout %d): got %.9g, want %.9g", tensor_dtype_name(cases[i].d),
                         (long long)cases[i].n, cases[i].value, layout, s, cases[i].want);
            tensor_release(x);
        }
    }
    /* the same along an outer dim: [70000, 3] of float16 0.1 summed over dim 0 */
    tensor_t *row = tensor_full(2, RT_I64(1, 3), 0.1, TENSOR_FLOAT16, tensor_cpu());
    tensor_t *x = tensor_expand(row, 2, RT_I64(70000, 3));
    tensor_t *s = tensor_sum(x, 0, false);
    double *g = rt_read_f64(s);
    for (int i = 0; i < 3; i++) assert_true(g[i] == 7000.0);
    free(g);
    tensor_release(s);
    tensor_t *c = tensor_contiguous(x); /* and materialised: 70000 x 3 */
    s = tensor_sum(c, 0, true);
    g = rt_read_f64(s);
    for (int i = 0; i < 3; i++) assert_true(g[i] == 7000.0);
    free(g);
    tensor_release(s);
    tensor_release(c);
    tensor_release(x);
    tensor_release(row);
    /* mean(ones(70000) f16) is 1.0, not inf */
    x = tensor_ones(1, RT_I64(70000), TENSOR_FLOAT16, tensor_cpu());
    tensor_t *m = tensor_mean(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_int_equal(tensor_get_dtype(m), TENSOR_FLOAT16);
    assert_true(rt_item(m) == 1.0);
    tensor_release(m);
    tensor_release(x);
    /* f16 full(20, 2).prod() is inf (2^20 > 65504) */
    x = tensor_full(1, RT_I64(20), 2, TENSOR_FLOAT16, tensor_cpu());
    m = tensor_prod(x, NULL, false, TENSOR_DTYPE_DEFAULT);
    assert_true(rt_item(m) == INFINITY);
    tensor_release(m);
    tensor_release(x);
}

static void test_bf16_noncontiguous_sum(void **state) {
    (void)state;
    /* bf16 ones(50^3)[::2,::2,::2].permute(2,0,1).sum((0,2)): 625 rounds to 624 */
    tensor_t *b = tensor_ones(3, RT_I64(50, 50, 50), TENSOR_BFLOAT16, tensor_cpu());
    tensor_t *a = tensor_slice(b, 0, 0, 50, 2);
    tensor_t *c = tensor_slice(a, 1, 0, 50, 2);
    tensor_t *d = tensor_slice(c, 2, 0, 50, 2);
    tensor_t *p = tensor_permute(d, RT_INTS(2, 0, 1));
    tensor_t *s = tensor_sum_dims(p, RT_INTS(0, 2), 2, false, TENSOR_DTYPE_DEFAULT);
    RT_ASSERT_SHAPE(s, 25);
    assert_int_equal(tensor_get_dtype(s), TENSOR_BFLOAT16);
    double *g = rt_read_f64(s);
    for (int i = 0; i < 25; i++) assert_true(g[i] == 624.0);
    free(g);
    tensor_release(s);
    tensor_release(p);
    tensor_release(d);
    tensor_release(c);
    tensor_release(a);
    tensor_release(b);
}

static void test_var_large_offset(void **state) {
    (void)state;
    /* var(1e7 + arange(10)) in float32: exact 9.1666667; PyTorch's CPU gives 9.4444447, CUDA's
     * Welford 9.1666670. Only require that catastrophic cancellation is avoided. */
    tensor_t *x = tensor_arange(1e7, 1e7 + 10, 1, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *v = tensor_var(x, 1, NULL, 0, false);
    assert_true(fabs(rt_item(v) - 9.1666667) < 0.5);
    tensor_release(v);
    v = tensor_var(x, 1, RT_INTS(0), 1, false);
    assert_true(fabs(rt_item(v) - 9.1666667) < 0.5);
    tensor_release(v);
    tensor_release(x);
}

/* Sums of small integers at lengths around 8/16/32/64-element vectors and unrolls, in every
 * layout and for the main dtypes: exact (one rounding for 16-bit floats). */
static void test_sum_boundary_lengths(void **state) {
    (void)state;
    static const int64_t lens[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
                                   511, 513, 1023, 1025, 4097};
    static const tensor_dtype dts[] = {TENSOR_INT8, TENSOR_UINT8, TENSOR_INT32, TENSOR_INT64, TENSOR_FLOAT16,
                                       TENSOR_BFLOAT16, TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_BOOL};
    int bad = 0;
    uint64_t seed = 7;
    for (int di = 0; di < RT_NELEM(dts); di++) {
        for (int li = 0; li < RT_NELEM(lens); li++) {
            for (int layout = 0; layout < 3; layout++) {
                /* 2-D [3, n] summed over dim 1 (inner), dim 0 (outer, on the transpose) and all */
                int64_t n = lens[li];
                tensor_t *x = rt_make(layout == 0 ? RT_CONTIG : layout == 1 ? RT_TRANSPOSED : RT_SLICED, 2,
                                      RT_I64(3, n), dts[di], RT_SMALL, ++seed);
                int64_t *xi = rt_read_i64(x);
                tensor_dtype odt = rt_is_float(dts[di]) ? dts[di] : TENSOR_INT64;
                tensor_t *s = tensor_sum(x, 1, false);
                assert_non_null(s);
                double *g = rt_read_f64(s);
                int64_t tot = 0;
                for (int r = 0; r < 3; r++) {
                    int64_t want = 0;
                    for (int64_t k = 0; k < n; k++) want += xi[r * n + k];
                    tot += want;
                    if (g[r] != rt_round_to(odt, (double)want) && bad++ < 5)
                        fprintf(stderr, "MISMATCH %s [3,%lld] layout %d row %d: got %.9g want %lld\n",
                                tensor_dtype_name(dts[di]), (long long)n, layout, r, g[r], (long long)want);
                }
                free(g);
                tensor_release(s);
                s = tensor_sum(x, 0, false);
                g = rt_read_f64(s);
                for (int64_t k = 0; k < n; k++) {
                    int64_t want = xi[k] + xi[n + k] + xi[2 * n + k];
                    if (g[k] != rt_round_to(odt, (double)want) && bad++ < 5)
                        fprintf(stderr, "MISMATCH %s [3,%lld] layout %d dim 0 col %lld: got %.9g want %lld\n",
                                tensor_dtype_name(dts[di]), (long long)n, layout, (long long)k, g[k], (long long)want);
                }
                free(g);
                tensor_release(s);
                double all = sum_all(x, TENSOR_DTYPE_DEFAULT);
                if (all != rt_round_to(odt, (double)tot) && bad++ < 5)
                    fprintf(stderr, "MISMATCH %s [3,%lld] layout %d all: got %.9g want %lld\n",
                            tensor_dtype_name(dts[di]), (long long)n, layout, all, (long long)tot);
                free(xi);
                tensor_release(x);
            }
        }
    }
    if (bad) fail_msg("%d boundary-length sums mismatched", bad);
}

/* Random float32 sums of various lengths against a long double reference (tolerance). */
static void test_sum_random_f32_tolerance(void **state) {
    (void)state;
    static const int64_t lens[] = {5, 100, 1000, 10007, 100003, 1000003};
    for (int li = 0; li < RT_NELEM(lens); li++) {
        tensor_t *x = tensor_rand(1, &lens[li], 1000 + (uint64_t)li, TENSOR_FLOAT32, tensor_cpu());
        double *v = rt_read_f64(x);
        long double ref = 0;
        for (int64_t i = 0; i < lens[li]; i++) ref += v[i];
        double s = sum_all(x, TENSOR_DTYPE_DEFAULT);
        /* cascade summation: error a few ulps of the result, not n ulps */
        if (fabs(s - (double)ref) > 4 * 0x1p-24 * (double)ref)
            fail_msg("sum of %lld uniform floats: got %.9g want %.9Lg", (long long)lens[li], s, ref);
        tensor_t *m = tensor_mean(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        if (fabs(rt_item(m) - (double)(ref / lens[li])) > 4 * 0x1p-24 * (double)(ref / lens[li]))
            fail_msg("mean of %lld uniform floats: got %.9g", (long long)lens[li], rt_item(m));
        tensor_release(m);
        free(v);
        tensor_release(x);
    }
}

/* Moments and friends over a million elements (threaded paths) against long double. */
static void test_large_moments_accuracy(void **state) {
    (void)state;
    const int64_t n = 1000003;
    tensor_t *x = tensor_randn(1, &n, 2024, TENSOR_FLOAT32, tensor_cpu());
    double *v = rt_read_f64(x);
    long double s = 0, ss = 0, s2 = 0, s1 = 0, mx = -INFINITY;
    for (int64_t i = 0; i < n; i++) s += v[i], s1 += fabs(v[i]), s2 += (long double)v[i] * v[i];
    long double mean = s / n;
    for (int64_t i = 0; i < n; i++) ss += (v[i] - mean) * (v[i] - mean), mx = v[i] > mx ? v[i] : mx;
    long double lse = 0;
    for (int64_t i = 0; i < n; i++) lse += expl(v[i] - mx);
    lse = mx + logl(lse);
    struct {
        const char *what;
        tensor_t *r;
        long double want;
        double rtol;
    } c[] = {
        {"mean", tensor_mean(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT), mean, 1e-4},
        {"var", tensor_var(x, 1, NULL, 0, false), ss / (n - 1), 1e-5},
        {"std", tensor_std(x, 0, RT_INTS(0), 1, false), sqrtl(ss / n), 1e-5},
        {"norm2", tensor_norm(x, 2, NULL, 0, false), sqrtl(s2), 1e-5},
        {"norm1", tensor_norm(x, 1, NULL, 0, false), s1, 1e-5},
        {"logsumexp", tensor_logsumexp(x, RT_INTS(0), 1, false), lse, 1e-6},
        {"nansum", tensor_nansum(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT), s, 1e-4},
    };
    for (int i = 0; i < RT_NELEM(c); i++) {
        assert_non_null(c[i].r);
        double got = rt_item(c[i].r);
        /* mean and sum of randn are near 0: scale their tolerance by sum |x| / n or sum |x| */
        double scale = i == 0 ? (double)(s1 / n) : i == 6 ? (double)s1 : fabs((double)c[i].want);
        if (fabs(got - (double)c[i].want) > c[i].rtol * scale)
            fail_msg("%s of %lld randn floats: got %.9g want %.9Lg", c[i].what, (long long)n, got, c[i].want);
        tensor_release(c[i].r);
    }
    /* the mean of var_mean is the mean */
    tensor_t *vv = NULL, *mm = NULL;
    assert_int_equal(tensor_var_mean(x, 1, NULL, 0, false, &vv, &mm), TENSOR_OK);
    assert_true(fabs(rt_item(mm) - (double)mean) <= 1e-4 * (double)(s1 / n));
    assert_true(fabs(rt_item(vv) - (double)(ss / (n - 1))) <= 1e-5 * (double)(ss / (n - 1)));
    tensor_release(vv);
    tensor_release(mm);
    free(v);
    tensor_release(x);
    /* constants: var exactly 0 and mean exact, over 2^24 + 3 elements (stride 0) */
    x = expanded_full((INT64_C(1) << 24) + 3, 3.3, TENSOR_FLOAT32);
    tensor_t *r = tensor_var(x, 1, NULL, 0, false);
    assert_true(rt_item(r) == 0.0);
    tensor_release(r);
    r = tensor_mean(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    /* Not exact: every 64-element lane of every block rounds the same way, so the blocked sum
     * drifts by a few ulps (55364852 against 55364820 correctly rounded; PyTorch's cascade has
     * the same kind of error). Relative 1e-5, as other float32 checks. */
    if (fabs(rt_item(r) - (double)3.3f) > 1e-5 * 3.3)
        fail_msg("mean of 2^24+3 x 3.3f: got %.9g", rt_item(r));
    tensor_release(r);
    tensor_release(x);
    /* float16 mean along an outer dim whose sum overflows float16: [70000, 3] of 1 */
    tensor_t *row = tensor_ones(2, RT_I64(1, 3), TENSOR_FLOAT16, tensor_cpu());
    x = tensor_expand(row, 2, RT_I64(70000, 3));
    r = tensor_mean(x, RT_INTS(0), 1, false, TENSOR_DTYPE_DEFAULT);
    double *g = rt_read_f64(r);
    for (int i = 0; i < 3; i++) assert_true(g[i] == 1.0);
    free(g);
    tensor_release(r);
    tensor_release(x);
    tensor_release(row);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_large_moments_accuracy),
    cmocka_unit_test(test_f32_cascade_sum),
    cmocka_unit_test(test_f32_sum_small_examples),
    cmocka_unit_test(test_f16_bf16_sums_round_once),
    cmocka_unit_test(test_bf16_noncontiguous_sum),
    cmocka_unit_test(test_var_large_offset),
    cmocka_unit_test(test_sum_boundary_lengths),
    cmocka_unit_test(test_sum_random_f32_tolerance),
};

TENSOR_TEST_GROUP(reduce_precision, tests, NULL, NULL)
