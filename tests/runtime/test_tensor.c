/* Tests of tensor creation, properties, lifetime (runtime/tensor.c, tensor_create.c, storage.c,
 * status.c's version functions). Expected values are PyTorch's (torch 2.x), written out. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const tensor_dtype all_dtypes[] = {
    TENSOR_BOOL,    TENSOR_UINT8,    TENSOR_INT8,    TENSOR_INT16,         TENSOR_INT32,        TENSOR_INT64,
    TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT8_E4M3FN, TENSOR_FLOAT8_E5M2,
};
static const tensor_dtype float_dtypes[] = {
    TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT8_E4M3FN, TENSOR_FLOAT8_E5M2,
};

/* ---- helpers ---- */

/* Copies t's elements (logical order) into a new host buffer the caller frees. */
static void *to_host(const tensor_t *t) {
    size_t n = (size_t)tensor_numel(t) * tensor_dtype_size(tensor_get_dtype(t));
    void *buf = malloc(n ? n : 1);
    assert_non_null(buf);
    assert_int_equal(tensor_to_buffer(t, buf, n), TENSOR_OK);
    return buf;
}

/* Element i of t as double, through the raw bytes. */
static double *to_doubles(const tensor_t *t) {
    int64_t n = tensor_numel(t);
    tensor_dtype dt = tensor_get_dtype(t);
    size_t es = tensor_dtype_size(dt);
    char *raw = to_host(t);
    double *out = malloc(sizeof(double) * (size_t)(n ? n : 1));
    assert_non_null(out);
    for (int64_t i = 0; i < n; i++) out[i] = tensor_dtype_load_double(dt, raw + (size_t)i * es);
    free(raw);
    return out;
}

static void expect_shape(const tensor_t *t, int ndim, const int64_t *sizes, const int64_t *strides) {
    assert_non_null(t);
    assert_int_equal(tensor_ndim(t), ndim);
    for (int i = 0; i < ndim; i++) {
        assert_int_equal(tensor_size(t, i), sizes[i]);
        assert_int_equal(tensor_sizes(t)[i], sizes[i]);
        if (strides) {
            assert_int_equal(tensor_stride(t, i), strides[i]);
            assert_int_equal(tensor_strides(t)[i], strides[i]);
        }
    }
}

/* ---- empty ---- */

static void test_empty_geometry(void **state) {
    (void)state;
    int64_t sizes[] = {2, 3, 4};
    int64_t strides[] = {12, 4, 1};
    tensor_t *t = tensor_empty(3, sizes, TENSOR_FLOAT32, tensor_cpu());
    expect_shape(t, 3, sizes, strides);
    assert_int_equal(tensor_numel(t), 24);
    assert_int_equal(tensor_storage_offset(t), 0);
    assert_int_equal(tensor_get_dtype(t), TENSOR_FLOAT32);
    assert_true(tensor_device_equal(tensor_get_device(t), tensor_cpu()));
    assert_true(tensor_is_contiguous(t));
    assert_non_null(tensor_data(t));
    /* Host storage is 64-byte aligned (documented in storage.h, relied on by kernels). */
    assert_int_equal((uintptr_t)tensor_data(t) % 64, 0);
    /* Negative dims wrap. */
    assert_int_equal(tensor_size(t, -1), 4);
    assert_int_equal(tensor_size(t, -3), 2);
    assert_int_equal(tensor_stride(t, -2), 4);
    tensor_release(t);
}

static void test_empty_scalar_and_zero_size(void **state) {
    (void)state;
    /* A 0-d tensor: sizes may be NULL, numel is 1. */
    tensor_t *s = tensor_empty(0, NULL, TENSOR_INT64, tensor_cpu());
    assert_non_null(s);
    assert_int_equal(tensor_ndim(s), 0);
    assert_int_equal(tensor_numel(s), 1);
    assert_true(tensor_is_contiguous(s));
    assert_non_null(tensor_data(s));
    tensor_release(s);

    /* torch.empty(2, 0, 3).stride() == (3, 3, 1): zero sizes do not zero outer strides. */
    int64_t sizes[] = {2, 0, 3};
    int64_t strides[] = {3, 3, 1};
    tensor_t *z = tensor_empty(3, sizes, TENSOR_FLOAT64, tensor_cpu());
    expect_shape(z, 3, sizes, strides);
    assert_int_equal(tensor_numel(z), 0);
    assert_true(tensor_is_contiguous(z));
    tensor_release(z);

    /* A size product that overflows only with the zero left out stays legal when small. */
    int64_t sizes2[] = {0, 1LL << 30, 1LL << 30};
    tensor_t *z2 = tensor_empty(3, sizes2, TENSOR_FLOAT64, tensor_cpu());
    assert_non_null(z2);
    assert_int_equal(tensor_numel(z2), 0);
    assert_int_equal(tensor_stride(z2, 0), 1LL << 60);
    tensor_release(z2);

    /* Every dtype, including the maximum rank. */
    int64_t ones16[TENSOR_MAX_DIMS];
    for (int i = 0; i < TENSOR_MAX_DIMS; i++) ones16[i] = i == 3 ? 2 : 1;
    for (int k = 0; k < NELEM(all_dtypes); k++) {
        tensor_t *t = tensor_empty(TENSOR_MAX_DIMS, ones16, all_dtypes[k], tensor_cpu());
        assert_non_null(t);
        assert_int_equal(tensor_ndim(t), TENSOR_MAX_DIMS);
        assert_int_equal(tensor_numel(t), 2);
        assert_int_equal(tensor_get_dtype(t), all_dtypes[k]);
        tensor_release(t);
    }
}

/* ---- zeros / ones / full ---- */

static void test_zeros_ones_every_dtype(void **state) {
    (void)state;
    int64_t sizes[] = {3, 5};
    for (int k = 0; k < NELEM(all_dtypes); k++) {
        tensor_dtype dt = all_dtypes[k];
        size_t es = tensor_dtype_size(dt);
        tensor_t *z = tensor_zeros(2, sizes, dt, tensor_cpu());
        tensor_t *o = tensor_ones(2, sizes, dt, tensor_cpu());
        assert_non_null(z);
        assert_non_null(o);
        assert_int_equal(tensor_get_dtype(z), dt);
        unsigned char *zb = to_host(z), *ob = to_host(o);
        for (size_t i = 0; i < 15 * es; i++) assert_int_equal(zb[i], 0);
        double *ov = to_doubles(o);
        for (int i = 0; i < 15; i++) assert_true(ov[i] == 1.0);
        free(zb);
        free(ob);
        free(ov);
        tensor_release(z);
        tensor_release(o);
    }
}

static void test_ones_bit_patterns(void **state) {
    (void)state;
    int64_t n = 2;
    struct {
        tensor_dtype dt;
        uint64_t bits;
    } cases[] = {
        {TENSOR_BOOL, 1},          {TENSOR_UINT8, 1},         {TENSOR_INT8, 1},
        {TENSOR_INT16, 1},         {TENSOR_INT32, 1},         {TENSOR_INT64, 1},
        {TENSOR_FLOAT16, 0x3C00},  {TENSOR_BFLOAT16, 0x3F80}, {TENSOR_FLOAT32, 0x3F800000},
        {TENSOR_FLOAT64, 0x3FF0000000000000ull}, {TENSOR_FLOAT8_E4M3FN, 0x38}, {TENSOR_FLOAT8_E5M2, 0x3C},
    };
    for (int k = 0; k < NELEM(cases); k++) {
        tensor_t *t = tensor_ones(1, &n, cases[k].dt, tensor_cpu());
        size_t es = tensor_dtype_size(cases[k].dt);
        unsigned char *b = to_host(t);
        for (int i = 0; i < 2; i++) {
            uint64_t v = 0;
            memcpy(&v, b + (size_t)i * es, es); /* little-endian host */
            if (v != cases[k].bits)
                fail_msg("ones(%s): got 0x%llx, want 0x%llx", tensor_dtype_name(cases[k].dt), (unsigned long long)v,
                         (unsigned long long)cases[k].bits);
        }
        free(b);
        tensor_release(t);
    }
}

static void test_full_values_and_casts(void **state) {
    (void)state;
    int64_t sizes[] = {2, 2};
    /* torch.full(..., 2.5, dtype=...) */
    struct {
        tensor_dtype dt;
        double value, want;
    } cases[] = {
        {TENSOR_FLOAT32, 2.5, 2.5},   {TENSOR_FLOAT64, -1e300, -1e300}, {TENSOR_FLOAT16, 2.5, 2.5},
        {TENSOR_BFLOAT16, 2.5, 2.5},  {TENSOR_FLOAT8_E4M3FN, 2.5, 2.5}, {TENSOR_FLOAT8_E5M2, 2.5, 2.5},
        {TENSOR_INT32, 2.5, 2},       {TENSOR_INT32, -2.7, -2},         {TENSOR_INT64, -1.7, -1},
        {TENSOR_INT8, -1.7, -1},      {TENSOR_INT16, 300.9, 300},       {TENSOR_UINT8, 7.9, 7},
        {TENSOR_BOOL, 0.5, 1},        {TENSOR_BOOL, -3.0, 1},           {TENSOR_BOOL, 0.0, 0},
        {TENSOR_FLOAT16, 65504, 65504}, {TENSOR_BFLOAT16, 1.00390625, 1.0}, /* ties to even */
    };
    for (int k = 0; k < NELEM(cases); k++) {
        tensor_t *t = tensor_full(2, sizes, cases[k].value, cases[k].dt, tensor_cpu());
        assert_non_null(t);
        double *v = to_doubles(t);
        for (int i = 0; i < 4; i++)
            if (v[i] != cases[k].want)
                fail_msg("full(%g, %s)[%d] = %g, want %g", cases[k].value, tensor_dtype_name(cases[k].dt), i, v[i],
                         cases[k].want);
        free(v);
        tensor_release(t);
    }
    /* NaN and Inf survive in floating dtypes. */
    tensor_t *nan = tensor_full(0, NULL, NAN, TENSOR_FLOAT16, tensor_cpu());
    double *nv = to_doubles(nan);
    assert_true(isnan(nv[0]));
    free(nv);
    tensor_release(nan);
    tensor_t *inf = tensor_full(0, NULL, -INFINITY, TENSOR_FLOAT32, tensor_cpu());
    double *iv = to_doubles(inf);
    assert_true(isinf(iv[0]) && iv[0] < 0);
    free(iv);
    tensor_release(inf);
    /* Empty tensors are fine. */
    int64_t zero = 0;
    tensor_t *e = tensor_full(1, &zero, 1.0, TENSOR_INT32, tensor_cpu());
    assert_non_null(e);
    assert_int_equal(tensor_numel(e), 0);
    tensor_release(e);
}

/* ---- arange / linspace ---- */

static void test_arange_int(void **state) {
    (void)state;
    tensor_t *t = tensor_arange(0, 5, 1, TENSOR_INT64, tensor_cpu());
    int64_t n = 5, one = 1;
    expect_shape(t, 1, &n, &one);
    int64_t *v = to_host(t);
    for (int i = 0; i < 5; i++) assert_int_equal(v[i], i);
    free(v);
    tensor_release(t);

    /* torch.arange(0, 10, 3) -> [0, 3, 6, 9] */
    t = tensor_arange(0, 10, 3, TENSOR_INT32, tensor_cpu());
    assert_int_equal(tensor_numel(t), 4);
    int32_t *w = to_host(t);
    assert_int_equal(w[0], 0);
    assert_int_equal(w[3], 9);
    free(w);
    tensor_release(t);

    /* torch.arange(10, 0, -3) -> [10, 7, 4, 1] */
    t = tensor_arange(10, 0, -3, TENSOR_INT64, tensor_cpu());
    assert_int_equal(tensor_numel(t), 4);
    v = to_host(t);
    int64_t want[] = {10, 7, 4, 1};
    for (int i = 0; i < 4; i++) assert_int_equal(v[i], want[i]);
    free(v);
    tensor_release(t);

    /* start == end: empty. */
    t = tensor_arange(3, 3, 1, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(t);
    assert_int_equal(tensor_ndim(t), 1);
    assert_int_equal(tensor_numel(t), 0);
    tensor_release(t);
    t = tensor_arange(3, 3, -1, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(t);
    assert_int_equal(tensor_numel(t), 0);
    tensor_release(t);
}

static void test_arange_float(void **state) {
    (void)state;
    /* torch.arange(0, 1, 0.1): length 10 (ceil(1/0.1) = 10 although 10*0.1 == 1.0), last 0.9. */
    tensor_t *t = tensor_arange(0, 1, 0.1, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_numel(t), 10);
    float *f = to_host(t);
    for (int i = 0; i < 10; i++) assert_true(f[i] == (float)(0.1 * i));
    assert_true(f[9] < 1.0f);
    free(f);
    tensor_release(t);

    t = tensor_arange(0, 1, 0.1, TENSOR_FLOAT64, tensor_cpu());
    assert_int_equal(tensor_numel(t), 10);
    double *d = to_host(t);
    for (int i = 0; i < 10; i++) assert_true(d[i] == 0.1 * i);
    free(d);
    tensor_release(t);

    /* torch.arange(1, 2.5, 0.5) -> [1.0, 1.5, 2.0]; torch.arange(5, 0, -1.5) -> [5, 3.5, 2, 0.5]. */
    t = tensor_arange(1, 2.5, 0.5, TENSOR_FLOAT64, tensor_cpu());
    assert_int_equal(tensor_numel(t), 3);
    d = to_host(t);
    assert_true(d[0] == 1.0 && d[1] == 1.5 && d[2] == 2.0);
    free(d);
    tensor_release(t);
    t = tensor_arange(5, 0, -1.5, TENSOR_FLOAT64, tensor_cpu());
    assert_int_equal(tensor_numel(t), 4);
    d = to_host(t);
    assert_true(d[0] == 5.0 && d[1] == 3.5 && d[2] == 2.0 && d[3] == 0.5);
    free(d);
    tensor_release(t);

    /* torch.arange(-1, 1, 0.5, dtype=float16) -> [-1, -0.5, 0, 0.5] */
    t = tensor_arange(-1, 1, 0.5, TENSOR_FLOAT16, tensor_cpu());
    assert_int_equal(tensor_numel(t), 4);
    double *v = to_doubles(t);
    assert_true(v[0] == -1.0 && v[1] == -0.5 && v[2] == 0.0 && v[3] == 0.5);
    free(v);
    tensor_release(t);
}

static void test_linspace(void **state) {
    (void)state;
    /* torch.linspace(0, 1, 5) -> [0, 0.25, 0.5, 0.75, 1] */
    tensor_t *t = tensor_linspace(0, 1, 5, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_ndim(t), 1);
    assert_int_equal(tensor_numel(t), 5);
    float *f = to_host(t);
    float want[] = {0.f, 0.25f, 0.5f, 0.75f, 1.f};
    for (int i = 0; i < 5; i++) assert_true(f[i] == want[i]);
    free(f);
    tensor_release(t);

    /* Both ends are exact, the inside is within an ulp: linspace(0, 1, 4) in float64. */
    t = tensor_linspace(0, 1, 4, TENSOR_FLOAT64, tensor_cpu());
    double *d = to_host(t);
    assert_true(d[0] == 0.0 && d[3] == 1.0);
    assert_true(fabs(d[1] - 1.0 / 3) < 1e-15 && fabs(d[2] - 2.0 / 3) < 1e-15);
    free(d);
    tensor_release(t);

    /* Decreasing: linspace(10, 0, 3) -> [10, 5, 0]; a long one ends exactly on end. */
    t = tensor_linspace(10, 0, 3, TENSOR_FLOAT64, tensor_cpu());
    d = to_host(t);
    assert_true(d[0] == 10 && d[1] == 5 && d[2] == 0);
    free(d);
    tensor_release(t);
    t = tensor_linspace(-3.7, 12.1, 1001, TENSOR_FLOAT64, tensor_cpu());
    d = to_host(t);
    assert_true(d[0] == -3.7 && d[1000] == 12.1);
    for (int i = 1; i < 1001; i++) assert_true(d[i] > d[i - 1]);
    free(d);
    tensor_release(t);

    /* steps == 1 gives [start] (PyTorch fills start), steps == 0 gives an empty tensor. */
    t = tensor_linspace(-1, 1, 1, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_numel(t), 1);
    f = to_host(t);
    assert_true(f[0] == -1.0f);
    free(f);
    tensor_release(t);
    t = tensor_linspace(-1, 1, 0, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(t);
    assert_int_equal(tensor_ndim(t), 1);
    assert_int_equal(tensor_numel(t), 0);
    tensor_release(t);

    /* Integer dtypes truncate: torch.linspace(0, 10, 4, dtype=torch.int64) -> [0, 3, 6, 10]. */
    t = tensor_linspace(0, 10, 4, TENSOR_INT64, tensor_cpu());
    int64_t *v = to_host(t);
    int64_t wi[] = {0, 3, 6, 10};
    for (int i = 0; i < 4; i++) assert_int_equal(v[i], wi[i]);
    free(v);
    tensor_release(t);
}

/* ---- rand / randn ---- */

static void test_rand_deterministic(void **state) {
    (void)state;
    int64_t sizes[] = {64, 33};
    for (int k = 0; k < NELEM(float_dtypes); k++) {
        tensor_dtype dt = float_dtypes[k];
        size_t nb = 64 * 33 * tensor_dtype_size(dt);
        tensor_t *a = tensor_rand(2, sizes, 42, dt, tensor_cpu());
        tensor_t *b = tensor_rand(2, sizes, 42, dt, tensor_cpu());
        tensor_t *c = tensor_rand(2, sizes, 43, dt, tensor_cpu());
        assert_non_null(a);
        assert_non_null(b);
        assert_non_null(c);
        assert_int_equal(tensor_get_dtype(a), dt);
        assert_memory_equal(tensor_data(a), tensor_data(b), nb);
        double *av = to_doubles(a), *cv = to_doubles(c);
        int differ = 0;
        for (int i = 0; i < 64 * 33; i++) differ += av[i] != cv[i];
        /* Coarse dtypes (float8: 8 or 16 distinct values) collide often; float16+ almost never. */
        int min_differ = tensor_dtype_size(dt) == 1 ? 64 * 33 / 2 : 64 * 33 * 9 / 10;
        if (differ < min_differ) fail_msg("%s: seeds 42 and 43 differ in only %d values", tensor_dtype_name(dt), differ);
        free(av);
        free(cv);
        tensor_release(a);
        tensor_release(b);
        tensor_release(c);
    }
    /* Element i depends only on (seed, i): a shorter tensor is a prefix, whatever the shape. */
    int64_t n100 = 100, s2[] = {5, 4};
    tensor_t *longer = tensor_randn(1, &n100, 7, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *shorter = tensor_randn(2, s2, 7, TENSOR_FLOAT32, tensor_cpu());
    assert_memory_equal(tensor_data(longer), tensor_data(shorter), 20 * sizeof(float));
    tensor_release(longer);
    tensor_release(shorter);
    /* ... and the dtype only rounds: randn float32 == (float)randn float64. */
    tensor_t *f32 = tensor_randn(1, &n100, 9, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *f64 = tensor_randn(1, &n100, 9, TENSOR_FLOAT64, tensor_cpu());
    const float *pf = tensor_data(f32);
    const double *pd = tensor_data(f64);
    for (int i = 0; i < 100; i++) assert_true(pf[i] == (float)pd[i]);
    tensor_release(f32);
    tensor_release(f64);
    /* Seed 0 and a 0-d tensor work. */
    tensor_t *s = tensor_rand(0, NULL, 0, TENSOR_FLOAT64, tensor_cpu());
    assert_non_null(s);
    assert_int_equal(tensor_numel(s), 1);
    tensor_release(s);
}

static void test_rand_uniform_range(void **state) {
    (void)state;
    int64_t n = 100000;
    for (int k = 0; k < NELEM(float_dtypes); k++) {
        tensor_dtype dt = float_dtypes[k];
        tensor_t *t = tensor_rand(1, &n, 12345 + (uint64_t)k, dt, tensor_cpu());
        assert_non_null(t);
        double *v = to_doubles(t);
        double sum = 0, lo = 1, hi = 0;
        for (int64_t i = 0; i < n; i++) {
            if (!(v[i] >= 0.0 && v[i] < 1.0))
                fail_msg("rand(%s)[%lld] = %.17g is outside [0, 1)", tensor_dtype_name(dt), (long long)i, v[i]);
            sum += v[i];
            lo = v[i] < lo ? v[i] : lo;
            hi = v[i] > hi ? v[i] : hi;
        }
        double mean = sum / (double)n;
        /* Uniform: mean 0.5 (float8 e5m2 has only k/8 values: mean 7/16). */
        double want = dt == TENSOR_FLOAT8_E5M2 ? 0.4375 : dt == TENSOR_FLOAT8_E4M3FN ? 0.46875 : 0.5;
        if (fabs(mean - want) > 0.01) fail_msg("rand(%s): mean %g, want %g", tensor_dtype_name(dt), mean, want);
        assert_true(lo < 0.01 || tensor_dtype_size(dt) == 1);
        assert_true(hi > 0.85);
        free(v);
        tensor_release(t);
    }
}

static void test_randn_moments(void **state) {
    (void)state;
    int64_t n = 100000;
    tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_BFLOAT16, TENSOR_FLOAT16};
    for (int k = 0; k < NELEM(dts); k++) {
        tensor_t *t = tensor_randn(1, &n, 2024, dts[k], tensor_cpu());
        assert_non_null(t);
        double *v = to_doubles(t);
        double sum = 0, sq = 0;
        int64_t beyond2 = 0;
        for (int64_t i = 0; i < n; i++) {
            assert_true(isfinite(v[i]));
            assert_true(fabs(v[i]) < 10);
            sum += v[i];
            beyond2 += fabs(v[i]) > 2;
        }
        double mean = sum / (double)n;
        for (int64_t i = 0; i < n; i++) sq += (v[i] - mean) * (v[i] - mean);
        double sd = sqrt(sq / (double)(n - 1));
        if (fabs(mean) > 0.02 || fabs(sd - 1) > 0.02)
            fail_msg("randn(%s): mean %g std %g", tensor_dtype_name(dts[k]), mean, sd);
        /* P(|x| > 2) = 4.55% for a normal. */
        double frac = (double)beyond2 / (double)n;
        assert_true(frac > 0.040 && frac < 0.051);
        free(v);
        tensor_release(t);
    }
}

static void test_rand_non_floating(void **state) {
    (void)state;
    int64_t n = 4;
    tensor_dtype bad[] = {TENSOR_BOOL, TENSOR_UINT8, TENSOR_INT8, TENSOR_INT16, TENSOR_INT32, TENSOR_INT64};
    for (int k = 0; k < NELEM(bad); k++) {
        tensor_clear_error();
        assert_null(tensor_rand(1, &n, 1, bad[k], tensor_cpu()));
        assert_error(TENSOR_ERR_DTYPE, "tensor_rand");
        tensor_clear_error();
        assert_null(tensor_randn(1, &n, 1, bad[k], tensor_cpu()));
        assert_error(TENSOR_ERR_DTYPE, "tensor_randn");
    }
}

/* ---- from_buffer / to_buffer ---- */

static void test_buffer_round_trip_every_dtype(void **state) {
    (void)state;
    int64_t sizes[] = {3, 7};
    for (int k = 0; k < NELEM(all_dtypes); k++) {
        tensor_dtype dt = all_dtypes[k];
        size_t nb = 21 * tensor_dtype_size(dt);
        unsigned char *src = malloc(nb), *dst = malloc(nb + 8);
        for (size_t i = 0; i < nb; i++) src[i] = dt == TENSOR_BOOL ? (unsigned char)(i % 3 == 0) : (unsigned char)(i * 37 + 11);
        tensor_t *t = tensor_from_buffer(src, 2, sizes, dt, tensor_cpu());
        assert_non_null(t);
        assert_true(tensor_is_contiguous(t));
        assert_ptr_not_equal(tensor_data(t), src); /* a copy */
        src[0] ^= 1;                               /* ...that does not see later writes */
        memset(dst, 0xAB, nb + 8);
        assert_int_equal(tensor_to_buffer(t, dst, nb + 8), TENSOR_OK); /* larger dst is fine */
        src[0] ^= 1;
        assert_memory_equal(src, dst, nb);
        for (size_t i = nb; i < nb + 8; i++) assert_int_equal(dst[i], 0xAB); /* nothing past numel */
        /* exact size too */
        memset(dst, 0, nb);
        assert_int_equal(tensor_to_buffer(t, dst, nb), TENSOR_OK);
        assert_memory_equal(src, dst, nb);
        free(src);
        free(dst);
        tensor_release(t);
    }
    /* 0-d and empty. */
    double x = 3.25, y = 0;
    tensor_t *s = tensor_from_buffer(&x, 0, NULL, TENSOR_FLOAT64, tensor_cpu());
    assert_int_equal(tensor_to_buffer(s, &y, sizeof y), TENSOR_OK);
    assert_true(y == 3.25);
    tensor_release(s);
    int64_t zero = 0;
    tensor_t *e = tensor_from_buffer(NULL, 1, &zero, TENSOR_INT32, tensor_cpu()); /* nothing to read */
    assert_non_null(e);
    assert_int_equal(tensor_to_buffer(e, NULL, 0), TENSOR_OK);
    tensor_release(e);
}

static void test_to_buffer_strided(void **state) {
    (void)state;
    /* to_buffer writes the logical (row-major) order of a non-contiguous view. */
    int16_t src[6] = {0, 1, 2, 3, 4, 5};
    int64_t sizes[] = {2, 3};
    tensor_t *t = tensor_from_buffer(src, 2, sizes, TENSOR_INT16, tensor_cpu());
    tensor_t *tt = tensor_transpose(t, 0, 1);
    int16_t out[6];
    assert_int_equal(tensor_to_buffer(tt, out, sizeof out), TENSOR_OK);
    int16_t want[6] = {0, 3, 1, 4, 2, 5};
    assert_memory_equal(out, want, sizeof out);
    /* expanded (stride 0) */
    int64_t n = 1;
    tensor_t *one = tensor_from_buffer(&src[5], 1, &n, TENSOR_INT16, tensor_cpu());
    int64_t big[] = {2, 2};
    tensor_t *ex = tensor_expand(one, 2, big);
    int16_t eo[4];
    assert_int_equal(tensor_to_buffer(ex, eo, sizeof eo), TENSOR_OK);
    for (int i = 0; i < 4; i++) assert_int_equal(eo[i], 5);
    tensor_release(ex);
    tensor_release(one);
    tensor_release(tt);
    tensor_release(t);
}

/* ---- from_blob ---- */

typedef struct {
    int calls;
    void *data;
} deleter_log;

static void counting_deleter(void *data, void *ctx) {
    deleter_log *log = ctx;
    log->calls++;
    log->data = data;
}

static void test_from_blob_no_deleter(void **state) {
    (void)state;
    float buf[6] = {1, 2, 3, 4, 5, 6};
    int64_t sizes[] = {2, 3};
    tensor_t *t = tensor_from_blob(buf, 2, sizes, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_non_null(t);
    int64_t strides[] = {3, 1};
    expect_shape(t, 2, sizes, strides);
    assert_ptr_equal(tensor_data(t), buf); /* no copy */
    buf[4] = 50;                          /* writes through */
    float out[6];
    assert_int_equal(tensor_to_buffer(t, out, sizeof out), TENSOR_OK);
    assert_true(out[4] == 50);
    tensor_release(t);
    assert_true(buf[0] == 1); /* still ours, untouched */

    /* Explicit (column-major) strides. */
    int64_t cm[] = {1, 2};
    tensor_t *c = tensor_from_blob(buf, 2, sizes, cm, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_non_null(c);
    expect_shape(c, 2, sizes, cm);
    assert_false(tensor_is_contiguous(c));
    assert_int_equal(tensor_to_buffer(c, out, sizeof out), TENSOR_OK);
    float want[6] = {1, 3, 50, 2, 4, 6};
    assert_memory_equal(out, want, sizeof out);
    tensor_release(c);

    /* Empty with a NULL pointer, and a 0-d blob. */
    int64_t zero[] = {0, 4};
    tensor_t *e = tensor_from_blob(NULL, 2, zero, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_non_null(e);
    assert_int_equal(tensor_numel(e), 0);
    tensor_release(e);
    tensor_t *s = tensor_from_blob(&buf[5], 0, NULL, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_ptr_equal(tensor_data(s), &buf[5]);
    tensor_release(s);
    /* Stride-0 blob: one value seen four times. */
    int64_t four = 4, z = 0;
    tensor_t *b = tensor_from_blob(&buf[1], 1, &four, &z, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_int_equal(tensor_to_buffer(b, out, 4 * sizeof(float)), TENSOR_OK);
    for (int i = 0; i < 4; i++) assert_true(out[i] == 2);
    tensor_release(b);
}

static void test_from_blob_deleter_after_last_view(void **state) {
    (void)state;
    deleter_log log = {0, NULL};
    double *mem = malloc(12 * sizeof(double));
    for (int i = 0; i < 12; i++) mem[i] = i;
    int64_t sizes[] = {3, 4};
    tensor_t *t = tensor_from_blob(mem, 2, sizes, NULL, TENSOR_FLOAT64, tensor_cpu(), counting_deleter, &log);
    assert_non_null(t);
    tensor_t *v1 = tensor_transpose(t, 0, 1);
    tensor_t *v2 = tensor_narrow(v1, 0, 1, 2);
    tensor_t *r = tensor_retain(t);
    tensor_release(t);
    assert_int_equal(log.calls, 0);
    tensor_release(r); /* the base handle is gone; views hold the storage */
    assert_int_equal(log.calls, 0);
    tensor_release(v1);
    assert_int_equal(log.calls, 0);
    double out[6];
    assert_int_equal(tensor_to_buffer(v2, out, sizeof out), TENSOR_OK); /* still readable */
    double want[6] = {1, 5, 9, 2, 6, 10};
    assert_memory_equal(out, want, sizeof out);
    tensor_release(v2);
    assert_int_equal(log.calls, 1);
    assert_ptr_equal(log.data, mem);
    free(mem);

    /* A clone owns its memory: the deleter runs at the base's release, the clone lives on. */
    deleter_log log2 = {0, NULL};
    float f[3] = {1, 2, 3};
    int64_t n = 3;
    tensor_t *b = tensor_from_blob(f, 1, &n, NULL, TENSOR_FLOAT32, tensor_cpu(), counting_deleter, &log2);
    tensor_t *c = tensor_clone(b);
    assert_false(tensor_shares_storage(b, c));
    tensor_release(b);
    assert_int_equal(log2.calls, 1);
    assert_ptr_equal(log2.data, f);
    float o[3];
    assert_int_equal(tensor_to_buffer(c, o, sizeof o), TENSOR_OK);
    assert_memory_equal(o, f, sizeof o);
    tensor_release(c);
    assert_int_equal(log2.calls, 1);

    /* Empty blob: the deleter still runs once, with the pointer given. */
    deleter_log log3 = {0, NULL};
    int64_t zero = 0;
    tensor_t *e = tensor_from_blob(NULL, 1, &zero, NULL, TENSOR_INT8, tensor_cpu(), counting_deleter, &log3);
    assert_non_null(e);
    tensor_release(e);
    assert_int_equal(log3.calls, 1);
    assert_null(log3.data);
}

static void test_from_blob_deleter_not_called_on_failure(void **state) {
    (void)state;
    deleter_log log = {0, NULL};
    float buf[4];
    int64_t bad[] = {2, -2};
    int64_t ok[] = {2, 2};
    int64_t neg_stride[] = {2, -1};
    int64_t huge_stride[] = {1LL << 62, 1};
    tensor_device nodev = {(tensor_device_type)7, 0};
    assert_null(tensor_from_blob(buf, 2, bad, NULL, TENSOR_FLOAT32, tensor_cpu(), counting_deleter, &log));
    assert_null(tensor_from_blob(buf, 17, ok, NULL, TENSOR_FLOAT32, tensor_cpu(), counting_deleter, &log));
    assert_null(tensor_from_blob(buf, 2, ok, neg_stride, TENSOR_FLOAT32, tensor_cpu(), counting_deleter, &log));
    assert_null(tensor_from_blob(buf, 2, ok, huge_stride, TENSOR_FLOAT32, tensor_cpu(), counting_deleter, &log));
    assert_null(tensor_from_blob(buf, 2, ok, NULL, (tensor_dtype)99, tensor_cpu(), counting_deleter, &log));
    assert_null(tensor_from_blob(buf, 2, ok, NULL, TENSOR_FLOAT32, nodev, counting_deleter, &log));
    assert_null(tensor_from_blob(NULL, 2, ok, NULL, TENSOR_FLOAT32, tensor_cpu(), counting_deleter, &log));
    assert_int_equal(log.calls, 0);
}

/* ---- properties ---- */

static void test_properties_of_views(void **state) {
    (void)state;
    int64_t sizes[] = {4, 5};
    tensor_t *t = tensor_arange(0, 20, 1, TENSOR_INT32, tensor_cpu());
    tensor_t *m = tensor_view(t, 2, sizes);
    tensor_t *row = tensor_select(m, 0, 2);   /* [10..14], offset 10 */
    tensor_t *col = tensor_narrow(m, 1, 3, 2); /* offset 3, strides (5, 1) */
    assert_int_equal(tensor_storage_offset(row), 10);
    assert_int_equal(tensor_storage_offset(col), 3);
    assert_ptr_equal(tensor_data(row), (char *)tensor_data(t) + 10 * sizeof(int32_t));
    assert_ptr_equal(tensor_data(col), (char *)tensor_data(t) + 3 * sizeof(int32_t));
    assert_true(tensor_shares_storage(t, row));
    assert_true(tensor_shares_storage(row, col));
    assert_int_equal(tensor_get_dtype(col), TENSOR_INT32);
    assert_true(tensor_device_equal(tensor_get_device(col), tensor_cpu()));
    assert_int_equal(tensor_numel(col), 8);
    assert_true(tensor_is_contiguous(row));
    assert_false(tensor_is_contiguous(col));
    tensor_t *other = tensor_zeros(2, sizes, TENSOR_INT32, tensor_cpu());
    assert_false(tensor_shares_storage(t, other));
    assert_false(tensor_shares_storage(t, NULL));
    assert_false(tensor_shares_storage(NULL, NULL));
    tensor_release(other);
    tensor_release(col);
    tensor_release(row);
    tensor_release(m);
    tensor_release(t);
}

/* ---- lifetime ---- */

static void test_retain_release(void **state) {
    (void)state;
    assert_null(tensor_retain(NULL));
    tensor_release(NULL);
    int64_t n = 8;
    tensor_t *t = tensor_ones(1, &n, TENSOR_FLOAT32, tensor_cpu());
    assert_ptr_equal(tensor_retain(t), t);
    assert_ptr_equal(tensor_retain(t), t);
    tensor_release(t);
    tensor_release(t);
    assert_int_equal(tensor_numel(t), 8); /* one reference left: still valid */
    tensor_release(t);
}

static void test_views_outlive_base(void **state) {
    (void)state;
    int64_t sizes[] = {3, 4};
    tensor_t *base = tensor_arange(0, 12, 1, TENSOR_INT64, tensor_cpu());
    tensor_t *m = tensor_view(base, 2, sizes);
    tensor_release(base);
    tensor_t *tr = tensor_transpose(m, 0, 1);
    tensor_t *col = tensor_select(m, 1, 2);
    tensor_t *ex = tensor_expand(col, 2, (int64_t[]){2, 3});
    tensor_release(col);
    tensor_release(m);
    int64_t out[12];
    assert_int_equal(tensor_to_buffer(tr, out, sizeof out), TENSOR_OK);
    int64_t want[12] = {0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11};
    assert_memory_equal(out, want, sizeof out);
    assert_int_equal(tensor_to_buffer(ex, out, 6 * sizeof(int64_t)), TENSOR_OK);
    int64_t want2[6] = {2, 6, 10, 2, 6, 10};
    assert_memory_equal(out, want2, sizeof want2);
    tensor_release(tr);
    tensor_release(ex);
}

typedef struct {
    tensor_t *t;
    int iters;
} churn_arg;

static void *churn(void *p) {
    churn_arg *a = p;
    for (int i = 0; i < a->iters; i++) {
        tensor_t *r = tensor_retain(a->t);
        tensor_t *v = tensor_narrow(r, 0, i % 4, 1);
        tensor_release(r);
        tensor_release(v);
    }
    return NULL;
}

static void test_retain_release_threads(void **state) {
    (void)state;
    deleter_log log = {0, NULL};
    static float buf[8];
    int64_t n = 8;
    tensor_t *t = tensor_from_blob(buf, 1, &n, NULL, TENSOR_FLOAT32, tensor_cpu(), counting_deleter, &log);
    pthread_t th[4];
    churn_arg arg = {t, 20000};
    for (int i = 0; i < 4; i++) assert_int_equal(pthread_create(&th[i], NULL, churn, &arg), 0);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    assert_int_equal(log.calls, 0);
    tensor_release(t);
    assert_int_equal(log.calls, 1);
}

/* ---- version ---- */

static void test_version(void **state) {
    (void)state;
    assert_string_equal(tensor_version_string(), TENSOR_VERSION_STRING);
    assert_int_equal(tensor_version_number(), TENSOR_VERSION_NUMBER);
    assert_int_equal(TENSOR_VERSION_NUMBER,
                     TENSOR_VERSION_MAJOR * 10000 + TENSOR_VERSION_MINOR * 100 + TENSOR_VERSION_PATCH);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", TENSOR_VERSION_MAJOR, TENSOR_VERSION_MINOR, TENSOR_VERSION_PATCH);
    assert_string_equal(tensor_version_string(), want);
}

static const struct CMUnitTest tensor_tests[] = {
    cmocka_unit_test(test_empty_geometry),
    cmocka_unit_test(test_empty_scalar_and_zero_size),
    cmocka_unit_test(test_zeros_ones_every_dtype),
    cmocka_unit_test(test_ones_bit_patterns),
    cmocka_unit_test(test_full_values_and_casts),
    cmocka_unit_test(test_arange_int),
    cmocka_unit_test(test_arange_float),
    cmocka_unit_test(test_linspace),
    cmocka_unit_test(test_rand_deterministic),
    cmocka_unit_test(test_rand_uniform_range),
    cmocka_unit_test(test_randn_moments),
    cmocka_unit_test(test_rand_non_floating),
    cmocka_unit_test(test_buffer_round_trip_every_dtype),
    cmocka_unit_test(test_to_buffer_strided),
    cmocka_unit_test(test_from_blob_no_deleter),
    cmocka_unit_test(test_from_blob_deleter_after_last_view),
    cmocka_unit_test(test_from_blob_deleter_not_called_on_failure),
    cmocka_unit_test(test_properties_of_views),
    cmocka_unit_test(test_retain_release),
    cmocka_unit_test(test_views_outlive_base),
    cmocka_unit_test(test_retain_release_threads),
    cmocka_unit_test(test_version),
};

TENSOR_TEST_GROUP(tensor, tensor_tests, NULL, NULL)
