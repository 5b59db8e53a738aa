/* Tests of the CPU reduction backend's own machinery (cpu/): the in-register float16
 * conversion, the converters, the sum fast paths' accuracy and their thread-count
 * independence, and arg-reduction indices on permuted inputs. The ops' semantics are tested
 * through the public API in tests/ops/.
 *
 * TENSOR_TEST_SLOW=1 in the environment adds the 10^8-element float32 sum (400 MB, seconds):
 * the accuracy claim of cpu/reduce_sum.c at full size. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"

#include "cpu/cpu_reduce.h"
#include "runtime/dtype_convert.h"

static bool slow_tests(void) {
    const char *e = getenv("TENSOR_TEST_SLOW");
    return e != NULL && e[0] != '\0' && strcmp(e, "0") != 0;
}

static uint32_t bits_of(float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* ---- conversions ---- */

static void test_f16_fast_conversion_exhaustive(void **state) {
    (void)state;
    for (uint32_t h = 0; h < 65536; h++) {
        float ref = tensor_f16_to_f32((uint16_t)h), got = cpu_f16_to_f32((uint16_t)h);
        if (bits_of(ref) != bits_of(got))
            fail_msg("f16 0x%04x: got %a (0x%08x), want %a (0x%08x)", h, got, bits_of(got), ref, bits_of(ref));
        float bref = tensor_bf16_to_f32((uint16_t)h), bgot = cpu_bf16_to_f32((uint16_t)h);
        if (bits_of(bref) != bits_of(bgot)) fail_msg("bf16 0x%04x: got 0x%08x want 0x%08x", h, bits_of(bgot), bits_of(bref));
    }
}

/* The 16-bit converters of the reduction template (F16C / AVX2 on CPUs that have them, the
 * integer decode elsewhere and for strided runs): every pattern, the same bits as the reference,
 * in a contiguous run (lengths that leave a tail after groups of 8, misaligned starts) and
 * strided; float16 into float, float16 and bfloat16 into double. */
static void test_f16_converter_every_pattern(void **state) {
    (void)state;
    uint16_t *h = malloc(65536 * 2 * sizeof *h);
    float *out = malloc(65536 * sizeof *out);
    assert_non_null(h);
    assert_non_null(out);
    for (uint32_t k = 0; k < 65536; k++) h[k] = h[65536 + k] = (uint16_t)k;
    const tensor_dtype vias[2] = {TENSOR_FLOAT16, TENSOR_FLOAT32};
    for (int v = 0; v < 2; v++) {
        const cpu_cvt_fn cvt = tt_cpu_converter(TENSOR_FLOAT16, CPU_VAL_F32, vias[v]);
        const int64_t starts[3] = {0, 1, 7}, lens[3] = {65536, 65535, 65529};
        for (int c = 0; c < 3; c++) {
            memset(out, 0, 65536 * sizeof *out);
            cvt(out, (const char *)(h + starts[c]), 2, lens[c]);
            for (int64_t k = 0; k < lens[c]; k++) {
                const uint16_t x = h[starts[c] + k];
                if (bits_of(out[k]) != bits_of(tensor_f16_to_f32(x)))
                    fail_msg("via %d, start %lld: f16 0x%04x gave 0x%08x", v, (long long)starts[c], x, bits_of(out[k]));
            }
        }
        cvt(out, (const char *)h, 4, 65536); /* every other pattern, from both copies */
        for (int64_t k = 0; k < 65536; k++)
            if (bits_of(out[k]) != bits_of(tensor_f16_to_f32(h[2 * k]))) fail_msg("strided: element %lld", (long long)k);
    }
    /* float16 and bfloat16 into double: through float, exactly */
    double *dout = malloc(65536 * sizeof *dout);
    assert_non_null(dout);
    for (int b = 0; b < 2; b++) {
        const tensor_dtype dt = b == 0 ? TENSOR_FLOAT16 : TENSOR_BFLOAT16;
        const cpu_cvt_fn cvt = tt_cpu_converter(dt, CPU_VAL_F64, TENSOR_FLOAT64);
        const int64_t starts[3] = {0, 3, 9}, lens[3] = {65536, 65533, 65527}, strides[2] = {2, 4};
        for (int c = 0; c < 4; c++) {
            const int64_t st = c < 3 ? starts[c] : 0, n = c < 3 ? lens[c] : 65536, stride = strides[c == 3];
            memset(dout, 0, 65536 * sizeof *dout);
            cvt(dout, (const char *)(h + st), stride, n);
            for (int64_t k = 0; k < n; k++) {
                const uint16_t x = h[st + k * (stride / 2)];
                const double want = (double)(b == 0 ? tensor_f16_to_f32(x) : tensor_bf16_to_f32(x));
                if (memcmp(&want, &dout[k], sizeof want) != 0)
                    fail_msg("%s 0x%04x into double (case %d): got %a, want %a", tensor_dtype_name(dt), x, c, dout[k], want);
            }
        }
    }
    free(dout);
    free(out);
    free(h);
}

/* Every converter reading every other element (step-2 slices: a loop of its own) gives the
 * bits its contiguous loop gives on those elements gathered, aligned or not, for lengths
 * up to a few vectors. */
static void test_converters_step2(void **state) {
    (void)state;
    enum { N = 67 };
    unsigned char raw[2 * N * 8 + 16], packed[N * 8];
    double want[N], got[N]; /* large enough for any value type */
    uint64_t r = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < sizeof raw; i++) {
        r = r * 6364136223846793005u + 1442695040888963407u;
        raw[i] = (unsigned char)(r >> 56);
    }
    const cpu_val_kind vals[3] = {CPU_VAL_F32, CPU_VAL_F64, CPU_VAL_I64};
    const tensor_dtype vias[3] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_INT64};
    for (int d = 0; d < TENSOR_NUM_DTYPES; d++) {
        const tensor_dtype dt = (tensor_dtype)d;
        const size_t es = tensor_dtype_size(dt);
        for (int v = 0; v < 3; v++) {
            const cpu_cvt_fn cvt = tt_cpu_converter(dt, vals[v], vias[v]);
            if (cvt == NULL) continue;
            const size_t vs = vals[v] == CPU_VAL_F32 ? 4 : 8;
            for (int off = 0; off < 2; off++) { /* off 1: misaligned, the general strided loop */
                const unsigned char *src = raw + off * (es > 1 ? 1 : 0);
                for (int64_t n = 0; n <= N; n += n < 20 ? 1 : 47) {
                    for (int64_t k = 0; k < n; k++) memcpy(packed + k * es, src + 2 * k * es, es);
                    memset(want, 0, sizeof want);
                    memset(got, 0xff, sizeof got);
                    cvt(want, (const char *)packed, (int64_t)es, n);
                    cvt(got, (const char *)src, 2 * (int64_t)es, n);
                    if (memcmp(want, got, (size_t)n * vs) != 0)
                        fail_msg("%s into value kind %d, step 2, offset %d, n %lld: differs from the contiguous loop",
                                 tensor_dtype_name(dt), v, off, (long long)n);
                }
            }
        }
    }
}

/* The cast-first rule: with via = float16 each value is rounded to float16 before it is
 * reduced; via = bool maps to 0/1; float -> int64 truncates toward zero. */
static void test_converters(void **state) {
    (void)state;
    const float in[4] = {1.0f + 0x1p-12f, 2049.0f, -1.7f, 65520.0f};
    float out[4];
    tt_cpu_converter(TENSOR_FLOAT32, CPU_VAL_F32, TENSOR_FLOAT16)(out, (const char *)in, sizeof(float), 4);
    assert_true(out[0] == 1.0f && out[1] == 2048.0f && isinf(out[3]));
    assert_true(out[2] == tensor_f16_to_f32(tensor_f32_to_f16(-1.7f)));
    tt_cpu_converter(TENSOR_FLOAT32, CPU_VAL_F32, TENSOR_FLOAT32)(out, (const char *)in, sizeof(float), 4);
    assert_memory_equal(out, in, sizeof in);
    int64_t iv[4];
    tt_cpu_converter(TENSOR_FLOAT32, CPU_VAL_I64, TENSOR_INT32)(iv, (const char *)in, sizeof(float), 4);
    assert_true(iv[0] == 1 && iv[1] == 2049 && iv[2] == -1 && iv[3] == 65520);
    const int8_t i8[3] = {-3, 0, 7};
    tt_cpu_converter(TENSOR_INT8, CPU_VAL_I64, TENSOR_BOOL)(iv, (const char *)i8, 1, 3);
    assert_true(iv[0] == 1 && iv[1] == 0 && iv[2] == 1);
    /* strided and broadcast (stride 0) loads */
    const double d[6] = {1, 2, 3, 4, 5, 6};
    tt_cpu_converter(TENSOR_FLOAT64, CPU_VAL_F32, TENSOR_FLOAT32)(out, (const char *)d, 2 * sizeof(double), 3);
    assert_true(out[0] == 1 && out[1] == 3 && out[2] == 5);
    tt_cpu_converter(TENSOR_FLOAT64, CPU_VAL_F32, TENSOR_FLOAT32)(out, (const char *)(d + 3), 0, 2);
    assert_true(out[0] == 4 && out[1] == 4);
    assert_true(tt_cpu_converter_is_plain(TENSOR_FLOAT16, CPU_VAL_F32, TENSOR_FLOAT32));
    assert_false(tt_cpu_converter_is_plain(TENSOR_FLOAT32, CPU_VAL_F32, TENSOR_FLOAT16));
    assert_true(tt_cpu_converter_is_plain(TENSOR_INT8, CPU_VAL_I64, TENSOR_INT8));
    assert_false(tt_cpu_converter_is_plain(TENSOR_INT8, CPU_VAL_I64, TENSOR_BOOL));
}

/* ---- accuracy of the float sum paths ---- */

static float *floats_of(const tensor_t *t) {
    size_t n = (size_t)tensor_numel(t);
    tensor_t *f = tensor_to_dtype(t, TENSOR_FLOAT32);
    assert_non_null(f);
    float *v = malloc(sizeof(float) * (n ? n : 1));
    assert_non_null(v);
    assert_int_equal(tensor_to_buffer(f, v, sizeof(float) * n), TENSOR_OK);
    tensor_release(f);
    return v;
}

/* |got - ref| in ulps of the float nearest to ref. */
static double ulps(float got, long double ref) {
    float cr = (float)ref;
    double ulp = nextafterf(fabsf(cr), INFINITY) - fabsf(cr);
    return fabsl((long double)got - ref) / ulp;
}

/* Sums all of a float32 tensor of n uniform values; returns the error in ulps against the
 * long double sum of the same float values. */
static double sum_error_ulps(int64_t n, uint64_t seed) {
    tensor_t *x = tensor_rand(1, &n, seed, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(x);
    const float *v = tensor_data(x);
    long double ref = 0;
    for (int64_t i = 0; i < n; i++) ref += v[i];
    tensor_t *s = tensor_sum_dims(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_non_null(s);
    float got = *(const float *)tensor_data(s);
    double e = ulps(got, ref);
    tensor_release(s);
    tensor_release(x);
    return e;
}

static void test_f32_sum_accuracy(void **state) {
    (void)state;
    /* Lengths around the block (2048) and chunk (32768 per driver chunk) boundaries, and one
     * of several chunks. A naive float loop is off by hundreds of ulps at 2^22. */
    const int64_t lens[] = {1, 31, 32, 33, 2047, 2049, 65536 + 17, 1 << 22};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        double e = sum_error_ulps(lens[i], 100 + i);
        if (getenv("TENSOR_TEST_VERBOSE")) print_message("      n=%lld: %.4f ulp\n", (long long)lens[i], e);
        if (e > 2.0) fail_msg("float32 sum of %lld uniform values: %.3f ulp from the exact sum", (long long)lens[i], e);
    }
}

/* The claim at full size: 10^8 uniform float32 values (opt-in; prints the figure). */
static void test_f32_sum_1e8_accuracy(void **state) {
    (void)state;
    if (!slow_tests()) {
        print_message("      (skipped: set TENSOR_TEST_SLOW=1 for the 10^8-element sum)\n");
        return;
    }
    double e = sum_error_ulps(100000000, 2024);
    print_message("      float32 sum of 1e8 uniform values: %.4f ulp from the exact sum\n", e);
    assert_true(e <= 2.0);
}

/* Outer (column) and inner (row) sums of a matrix, float16 and bfloat16 too: within 2 ulps
 * for float32 and half an ulp (plus that) of a 16-bit output, which is rounded once. */
static void test_matrix_sums_accuracy(void **state) {
    (void)state;
    const tensor_dtype dts[3] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_BFLOAT16};
    int64_t sizes[2] = {3000, 517};
    for (int t = 0; t < 3; t++) {
        tensor_t *x = tensor_rand(2, sizes, 11 + (uint64_t)t, dts[t], tensor_cpu());
        float *v = floats_of(x);
        for (int dim = 0; dim < 2; dim++) {
            tensor_t *s = tensor_sum(x, dim, false);
            assert_non_null(s);
            float *got = floats_of(s);
            int64_t nout = sizes[1 - dim], nred = sizes[dim];
            for (int64_t o = 0; o < nout; o++) {
                long double ref = 0;
                for (int64_t k = 0; k < nred; k++) ref += dim == 0 ? v[k * sizes[1] + o] : v[o * sizes[1] + k];
                double e = ulps(got[o], ref);
                /* float32: a row or column shorter than one block is a 64-term-per-lane sum and
                 * a pairwise tree, not compensated: about an ulp; 16-bit outputs: one rounding
                 * (half an ulp of the output) on top, plus that. */
                double allowed = dts[t] == TENSOR_FLOAT32 ? 2.0 : dts[t] == TENSOR_FLOAT16 ? 0x1p12 + 2.0 : 0x1p15 + 2.0;
                if (e > allowed) fail_msg("%s sum dim %d out %lld: %.3f float32-ulps off", tensor_dtype_name(dts[t]), dim, (long long)o, e);
            }
            free(got);
            tensor_release(s);
        }
        free(v);
        tensor_release(x);
    }
}

/* ---- 1 vs N threads ---- */

static void expect_same_bits(const tensor_t *a, const tensor_t *b, const char *what) {
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(tensor_numel(a), tensor_numel(b));
    assert_int_equal(tensor_get_dtype(a), tensor_get_dtype(b));
    size_t bytes = (size_t)tensor_numel(a) * tensor_dtype_size(tensor_get_dtype(a));
    char *va = malloc(bytes ? bytes : 1), *vb = malloc(bytes ? bytes : 1);
    assert_int_equal(tensor_to_buffer(a, va, bytes), TENSOR_OK);
    assert_int_equal(tensor_to_buffer(b, vb, bytes), TENSOR_OK);
    if (memcmp(va, vb, bytes) != 0) fail_msg("%s: 1 thread and N threads differ", what);
    free(va);
    free(vb);
}

typedef tensor_t *(*reduce_fn)(const tensor_t *x, const int *dims, int ndims);
static tensor_t *do_sum(const tensor_t *x, const int *d, int n) { return tensor_sum_dims(x, d, n, false, TENSOR_DTYPE_DEFAULT); }
static tensor_t *do_mean(const tensor_t *x, const int *d, int n) { return tensor_mean(x, d, n, false, TENSOR_DTYPE_DEFAULT); }
static tensor_t *do_nanmean(const tensor_t *x, const int *d, int n) { return tensor_nanmean(x, d, n, false, TENSOR_DTYPE_DEFAULT); }
static tensor_t *do_var(const tensor_t *x, const int *d, int n) { return tensor_var(x, 1.0, d, n, false); }
static tensor_t *do_norm3(const tensor_t *x, const int *d, int n) { return tensor_norm(x, 3.0, d, n, false); }
static tensor_t *do_lse(const tensor_t *x, const int *d, int n) { return tensor_logsumexp(x, d, n, false); }
static tensor_t *do_argmax(const tensor_t *x, const int *d, int n) { return tensor_argmax(x, n ? d : NULL, false); }

static void threads_case(const tensor_t *x, reduce_fn fn, const int *dims, int ndims, const char *what) {
    const int counts[3] = {2, 3, 8};
    tensor_set_num_threads(1);
    tensor_t *a = fn(x, dims, ndims);
    for (int c = 0; c < 3; c++) {
        tensor_set_num_threads(counts[c]);
        tensor_t *b = fn(x, dims, ndims);
        expect_same_bits(a, b, what);
        tensor_release(b);
    }
    tensor_release(a);
}

static void test_threads_bitwise(void **state) {
    (void)state;
    int saved = tensor_get_num_threads();
    /* [96, 40000]: dim 1 (inner) and all dims are chunked by the driver (> 65536 reduced
     * elements for all dims), dim 0 (outer) is split over threads along the kept dim. */
    const tensor_dtype dts[4] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_FLOAT64};
    int64_t sizes[2] = {96, 40000};
    const int d0 = 0, d1 = 1;
    for (int t = 0; t < 4; t++) {
        tensor_t *x = tensor_rand(2, sizes, 5 + (uint64_t)t, dts[t], tensor_cpu());
        threads_case(x, do_sum, &d1, 1, "sum inner");
        threads_case(x, do_sum, &d0, 1, "sum outer");
        threads_case(x, do_sum, NULL, 0, "sum all");
        tensor_t *tr = tensor_transpose(x, 0, 1); /* [40000, 96] viewed transposed */
        threads_case(tr, do_sum, &d0, 1, "sum transposed");
        tensor_release(tr);
        if (t == 0 || t == 1) {
            threads_case(x, do_mean, &d1, 1, "mean inner");
            threads_case(x, do_nanmean, NULL, 0, "nanmean all");
            threads_case(x, do_var, &d1, 1, "var inner");
            threads_case(x, do_var, NULL, 0, "var all");
            threads_case(x, do_norm3, &d0, 1, "norm3 outer");
            threads_case(x, do_lse, NULL, 0, "logsumexp all");
            threads_case(x, do_argmax, NULL, 0, "argmax flat");
        }
        tensor_release(x);
    }
    /* A long single row: several driver chunks combined in order. */
    int64_t n = 3 * 1000 * 1000 + 7;
    tensor_t *big = tensor_rand(1, &n, 9, TENSOR_FLOAT32, tensor_cpu());
    threads_case(big, do_sum, NULL, 0, "sum 3M");
    tensor_release(big);
    tensor_set_num_threads(saved);
}

/* ---- arg-reductions: indices along the reduced dim of the LOGICAL tensor ---- */

static void test_argmax_permuted_inputs(void **state) {
    (void)state;
    /* x[i][j] = ((i * 7 + j * 3) % 11), with ties; reduce dim 0 of x and of x^T's views */
    int64_t sizes[2] = {13, 9};
    double v[13 * 9];
    for (int i = 0; i < 13; i++)
        for (int j = 0; j < 9; j++) v[i * 9 + j] = (double)((i * 7 + j * 3) % 11);
    tensor_t *base = tensor_from_buffer(v, 2, sizes, TENSOR_FLOAT64, tensor_cpu());
    tensor_t *x32 = tensor_to_dtype(base, TENSOR_FLOAT32);
    tensor_t *t = tensor_transpose(x32, 0, 1); /* [9, 13], strides (1, 9): dim 1 is the fast one */
    for (int dim = 0; dim < 2; dim++) {
        tensor_t *vals = NULL, *idx = NULL;
        assert_int_equal(tensor_max_dim(t, dim, false, &vals, &idx), TENSOR_OK);
        tensor_t *am = tensor_argmin(t, &dim, false);
        int64_t nout = dim == 0 ? 13 : 9, nred = dim == 0 ? 9 : 13;
        int64_t *gi = malloc(sizeof(int64_t) * (size_t)nout), *gm = malloc(sizeof(int64_t) * (size_t)nout);
        assert_int_equal(tensor_to_buffer(idx, gi, sizeof(int64_t) * (size_t)nout), TENSOR_OK);
        assert_int_equal(tensor_to_buffer(am, gm, sizeof(int64_t) * (size_t)nout), TENSOR_OK);
        for (int64_t o = 0; o < nout; o++) {
            /* t[a][b] = x[b][a] */
            int64_t best = 0, worst = 0;
            for (int64_t k = 1; k < nred; k++) {
                double cur = dim == 0 ? v[o * 9 + k] : v[k * 9 + o];
                double bv = dim == 0 ? v[o * 9 + best] : v[best * 9 + o];
                double wv = dim == 0 ? v[o * 9 + worst] : v[worst * 9 + o];
                if (cur > bv) best = k;
                if (cur < wv) worst = k;
            }
            if (gi[o] != best) fail_msg("max(t^T, %d) index %lld: got %lld want %lld", dim, (long long)o, (long long)gi[o], (long long)best);
            if (gm[o] != worst) fail_msg("argmin(t^T, %d) %lld: got %lld want %lld", dim, (long long)o, (long long)gm[o], (long long)worst);
        }
        free(gi);
        free(gm);
        tensor_release(vals);
        tensor_release(idx);
        tensor_release(am);
    }
    /* No dim: the flat index into the (transposed) view, row-major */
    tensor_t *flat = tensor_argmax(t, NULL, false);
    int64_t fi = *(const int64_t *)tensor_data(flat);
    int64_t want = 0;
    double bestv = -1;
    for (int a = 0; a < 9; a++)
        for (int b = 0; b < 13; b++)
            if (v[b * 9 + a] > bestv) bestv = v[b * 9 + a], want = a * 13 + b;
    assert_int_equal(fi, want);
    tensor_release(flat);
    tensor_release(t);
    tensor_release(x32);
    tensor_release(base);
}

/* First index on ties and first NaN across driver chunks (a row longer than a chunk). */
static void test_argmax_across_chunks(void **state) {
    (void)state;
    int64_t n = 200000;
    tensor_t *x = tensor_zeros(1, &n, TENSOR_FLOAT32, tensor_cpu());
    float *p = tensor_data(x);
    p[150000] = 5;
    p[70000] = 5;
    p[190000] = 5;
    tensor_t *a = tensor_argmax(x, NULL, false);
    assert_int_equal(*(const int64_t *)tensor_data(a), 70000);
    tensor_release(a);
    p[120000] = NAN;
    p[160000] = NAN;
    a = tensor_argmin(x, NULL, false);
    assert_int_equal(*(const int64_t *)tensor_data(a), 120000);
    tensor_release(a);
    tensor_release(x);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_f16_fast_conversion_exhaustive),
    cmocka_unit_test(test_f16_converter_every_pattern),
    cmocka_unit_test(test_converters),
    cmocka_unit_test(test_converters_step2),
    cmocka_unit_test(test_f32_sum_accuracy),
    cmocka_unit_test(test_f32_sum_1e8_accuracy),
    cmocka_unit_test(test_matrix_sums_accuracy),
    cmocka_unit_test(test_threads_bitwise),
    cmocka_unit_test(test_argmax_permuted_inputs),
    cmocka_unit_test(test_argmax_across_chunks),
};

TENSOR_TEST_GROUP(cpu_reduce, tests, NULL, NULL)
