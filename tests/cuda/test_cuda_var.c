/* var / std / var_mean on CUDA for data with a large mean and a small spread (offset + step * k,
 * k a small integer), on every layout path of the engine: long rows, columns, short rows, a
 * global reduce and the 32-bit split. Every value is exact in its dtype, so
 * the reference is computed from the integers k exactly; float32 1e7 + arange(10) must give
 * 9.1666670 as the CPU and PyTorch do. Needs a GPU (exit 77 without one). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cuda_reduce_util.h"

TENSOR_TEST_NEEDS_GPU()

typedef struct {
    tensor_dtype dt;
    double offset, step; /* offset + step * k is exact in dt for k in [0, 16) */
    double rel_tol;      /* of var and std, including the output's rounding */
} offset_case;

static const offset_case cases[] = {
    {TENSOR_FLOAT32, 1e7, 1.0, 3e-5},
    {TENSOR_FLOAT32, -3e6, 0.25, 3e-5},
    {TENSOR_FLOAT64, 1e15, 0.125, 1e-10},
    {TENSOR_FLOAT16, 1000.0, 0.5, 3e-3},
    {TENSOR_BFLOAT16, 256.0, 2.0, 2e-2},
};
#define NUM_CASES ((int)(sizeof cases / sizeof cases[0]))

/* k of logical element i (row-major over the input's shape). */
static int64_t k_of(uint64_t seed, int64_t i) {
    uint64_t z = seed * 0x9E3779B97F4A7C15ull + (uint64_t)i * 0xBF58476D1CE4E5B9ull;
    z ^= z >> 31;
    z *= 0x94D049BB133111EBull;
    z ^= z >> 29;
    return (int64_t)(z & 15);
}

static tensor_t *offset_cpu(const offset_case *c, int ndim, const int64_t *sizes, uint64_t seed) {
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= sizes[d];
    size_t es = tensor_dtype_size(c->dt);
    char *buf = malloc((size_t)(n ? n : 1) * es);
    assert_non_null(buf);
    for (int64_t i = 0; i < n; i++)
        tensor_dtype_store_double(c->dt, buf + (size_t)i * es, c->offset + c->step * (double)k_of(seed, i));
    tensor_t *t = tensor_from_buffer(buf, ndim, sizes, c->dt, tensor_cpu());
    free(buf);
    assert_non_null(t);
    return t;
}

/* The exact var (correction 1) and mean of each output of a reduction over dim `dim` of a 2-D
 * [rows, cols] input (dim -1: all elements), from integer sums of k. */
static void reference(const offset_case *c, const int64_t *sizes, int dim, uint64_t seed, double *var, double *mean) {
    int64_t rows = sizes[0], cols = sizes[1];
    int64_t nout = dim < 0 ? 1 : (dim == 0 ? cols : rows), len = dim < 0 ? rows * cols : (dim == 0 ? rows : cols);
    for (int64_t o = 0; o < nout; o++) {
        int64_t s1 = 0, s2 = 0;
        for (int64_t j = 0; j < len; j++) {
            int64_t i = dim < 0 ? j : (dim == 0 ? j * cols + o : o * cols + j);
            int64_t k = k_of(seed, i);
            s1 += k;
            s2 += k * k;
        }
        /* n * sum(k^2) - sum(k)^2 is an exact integer: var = step^2 * that / (n (n - 1)) */
        double num = (double)(len * s2 - s1 * s1);
        var[o] = c->step * c->step * num / ((double)len * (double)(len - 1));
        mean[o] = c->offset + c->step * (double)s1 / (double)len;
    }
}

static void expect_close(const char *what, const char *q, int64_t o, double got, double want, double rel) {
    if (!(fabs(got - want) <= rel * fabs(want) + 1e-30))
        cr_fail("%s: %s[%lld] = %.9g, exact %.9g (rel. error %.3g > %.3g)", what, q, (long long)o, got, want,
                fabs(got - want) / fabs(want), rel);
}

/* var, std and var_mean of `g` (on the GPU) over `dim` against the exact values. */
static void check_offset(const offset_case *c, const tensor_t *g, const int64_t *sizes, int dim, uint64_t seed,
                         const char *layout) {
    int64_t nout = dim < 0 ? 1 : (dim == 0 ? sizes[1] : sizes[0]);
    double *var = malloc((size_t)nout * sizeof *var), *mean = malloc((size_t)nout * sizeof *mean);
    assert_true(var != NULL && mean != NULL);
    reference(c, sizes, dim, seed, var, mean);
    char what[128];
    snprintf(what, sizeof what, "%s %s, offset %g", layout, tensor_dtype_name(c->dt), c->offset);
    const int *dims = dim < 0 ? NULL : &dim;
    int ndims = dim < 0 ? 0 : 1;
    tensor_t *v = tensor_var(g, 1.0, dims, ndims, false), *s = tensor_std(g, 1.0, dims, ndims, false);
    tensor_t *vm = NULL, *mm = NULL;
    if (v == NULL || s == NULL || tensor_var_mean(g, 1.0, dims, ndims, false, &vm, &mm) != TENSOR_OK)
        fail_msg("%s: %s", what, tensor_last_error());
    const tensor_t *outs[4] = {v, s, vm, mm};
    const char *names[4] = {"var", "std", "var_mean.var", "var_mean.mean"};
    /* the mean is one rounding of the exact mean to the output dtype */
    double mean_tol = c->dt == TENSOR_FLOAT64 ? 1e-15 : c->dt == TENSOR_FLOAT32 ? 1.2e-7 :
                      c->dt == TENSOR_FLOAT16 ? 9.8e-4 : 7.9e-3;
    for (int q = 0; q < 4; q++) {
        assert_int_equal(tensor_numel(outs[q]), nout);
        char *h = ct_download(outs[q]);
        size_t es = tensor_dtype_size(tensor_get_dtype(outs[q]));
        for (int64_t o = 0; o < nout; o++) {
            double got = tensor_dtype_load_double(tensor_get_dtype(outs[q]), h + (size_t)o * es);
            double want = q == 1 ? sqrt(var[o]) : q == 3 ? mean[o] : var[o];
            expect_close(what, names[q], o, got, want, q == 3 ? mean_tol : c->rel_tol);
        }
        free(h);
    }
    tensor_release(v);
    tensor_release(s);
    tensor_release(vm);
    tensor_release(mm);
    free(var);
    free(mean);
}

/* One [rows, cols] shape reduced over `dim`, on the GPU. */
static void run_layout(int64_t rows, int64_t cols, int dim, const char *layout) {
    const int64_t sizes[2] = {rows, cols};
    for (int k = 0; k < NUM_CASES; k++) {
        uint64_t seed = (uint64_t)(rows * 31 + cols * 7 + dim + k * 1000);
        tensor_t *c = offset_cpu(&cases[k], 2, sizes, seed);
        tensor_t *g = ct_to_gpu(c);
        check_offset(&cases[k], g, sizes, dim, seed, layout);
        tensor_release(g);
        tensor_release(c);
    }
}

static void test_offset_layouts(void **state) {
    (void)state;
    run_layout(64, 4099, 1, "long rows");
    run_layout(8, 100003, 1, "few long rows");
    run_layout(4099, 64, 0, "columns");
    run_layout(100003, 3, 0, "long columns");
    run_layout(4099, 24, 1, "short rows");
    run_layout(4099, 3, 1, "very short rows");
    run_layout(1024, 1025, -1, "global");
    run_layout(1, 10, -1, "ten elements");
}

/* The 32-bit split (the engine's index limit lowered): partial Welford states of pieces are
 * combined through the accumulation buffer. */
static void test_offset_split(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    tensor_cuda_reduce_index_limit = 40000;
    run_layout(64, 4099, 1, "split, rows");
    run_layout(4099, 64, 0, "split, columns");
    run_layout(1024, 1025, -1, "split, global");
    tensor_cuda_reduce_index_limit = INT64_C(2147483647);
#endif
}

/* The case that showed the cancellation: var(float32 1e7 + arange(10)) is 82.5 / 9. */
static void test_arange_offset(void **state) {
    (void)state;
    float x[10];
    for (int i = 0; i < 10; i++) x[i] = 1e7f + (float)i;
    const int64_t n = 10;
    tensor_t *c = tensor_from_buffer(x, 1, &n, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(c);
    tensor_t *g = ct_to_gpu(c);
    tensor_t *v = tensor_var(g, 1.0, NULL, 0, false);
    assert_non_null(v);
    float got;
    assert_int_equal(tensor_to_buffer(v, &got, sizeof got), TENSOR_OK);
    if (fabs((double)got - 82.5 / 9.0) > 1e-6) fail_msg("var(1e7 + arange(10)) = %.8g, exact 9.1666667", (double)got);
    tensor_release(v);
    tensor_release(g);
    tensor_release(c);
}

static void test_var_release_scratch(void **state) {
    (void)state;
    assert_int_equal(ct_release_cached(), TENSOR_OK);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_arange_offset),
    cmocka_unit_test(test_offset_layouts),
    cmocka_unit_test(test_offset_split),
    cmocka_unit_test(test_var_release_scratch),
};

TENSOR_TEST_GROUP(cuda_var, tests, NULL, NULL)
