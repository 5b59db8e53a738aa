/* User reductions and tensor_vecdot on CUDA tensors: the fused vecdot kernel equals the CPU's
 * fused vecdot on every layout path and dtype; a registered reduction refuses a CUDA tensor
 * cleanly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "cuda_test_util.h"
#include "ops/reduction_kit.h"

TENSOR_TEST_NEEDS_GPU()

static float zero(void) { return 0.0f; }
static float first(const float *x) { return x[0]; }
static float add(float a, float b) { return a + b; }
static float done(float a, int64_t n) { return (void)n, a; }
TENSOR_REDUCTION_FNS(sum_fns, 1, float, float, zero, first, add, add, done)

/* A tensor and the same values in the same layout on the GPU (views are taken of both). */
typedef struct {
    tensor_t *c, *g;
} pair_t;

static pair_t pair_of(tensor_t *cpu) {
    assert_non_null(cpu);
    pair_t p = {cpu, ct_to_gpu(cpu)};
    return p;
}
static void pair_release(pair_t p) {
    tensor_release(p.c);
    tensor_release(p.g);
}
static pair_t pair_narrow(pair_t p, int dim, int64_t start, int64_t len) {
    pair_t r = {tensor_narrow(p.c, dim, start, len), tensor_narrow(p.g, dim, start, len)};
    assert_non_null(r.c);
    assert_non_null(r.g);
    pair_release(p);
    return r;
}
static pair_t pair_transpose(pair_t p) {
    pair_t r = {tensor_transpose(p.c, 0, 1), tensor_transpose(p.g, 0, 1)};
    assert_non_null(r.c);
    assert_non_null(r.g);
    pair_release(p);
    return r;
}

/* GPU vecdot (the fused kernel) against the CPU's fused vecdot: integers exactly, floats to a
 * tolerance (the two sum in different orders); the GPU result bitwise the same on a rerun. */
static void check_vecdot_views(pair_t a, pair_t b, int dim, const char *what) {
    tensor_t *c = tensor_vecdot(a.c, b.c, dim);
    if (c == NULL) fail_msg("%s: CPU vecdot: %s", what, tensor_last_error());
    tensor_t *g = tensor_vecdot(a.g, b.g, dim);
    if (g == NULL) fail_msg("%s: CUDA vecdot: %s", what, tensor_last_error());
    ct_assert_same_shape(g, c, what);
    const tensor_dtype dt = tensor_get_dtype(c);
    const int64_t n = tensor_numel(c);
    tensor_t *gd = tensor_to_dtype(g, TENSOR_FLOAT64), *cd = tensor_to_dtype(c, TENSOR_FLOAT64);
    assert_non_null(gd);
    assert_non_null(cd);
    double *x = ct_download(gd), *y = ct_download(cd);
    const double tol = dt == TENSOR_FLOAT64 ? 1e-12 : dt == TENSOR_FLOAT32 ? 1e-5 : 1e-2;
    const int64_t len = tensor_size(a.c, dim < 0 ? dim + tensor_ndim(a.c) : dim);
    for (int64_t i = 0; i < n; i++) {
        bool ok = tensor_dtype_is_floating(dt) ? fabs(x[i] - y[i]) <= tol * (1.0 + sqrt((double)len) + fabs(y[i]))
                                               : x[i] == y[i];
        if (!ok) fail_msg("%s: element %lld: CUDA %.9g, CPU %.9g", what, (long long)i, x[i], y[i]);
    }
    tensor_t *g2 = tensor_vecdot(a.g, b.g, dim);
    assert_non_null(g2);
    void *r1 = ct_download(g), *r2 = ct_download(g2);
    if (memcmp(r1, r2, ct_nbytes(g)) != 0) fail_msg("%s: two runs differ", what);
    free(r1);
    free(r2);
    free(x);
    free(y);
    tensor_release(g2);
    tensor_release(gd);
    tensor_release(cd);
    tensor_release(c);
    tensor_release(g);
}

static tensor_t *rnd(int nd, const int64_t *sizes, tensor_dtype dt, uint64_t seed) {
    return ct_random_cpu(nd, sizes, dt, seed, ct_store_uniform, 0);
}

/* Every layout path of the engine with two inputs: row vectors (aligned, with a head, with
 * rows the kernel cannot cut alike), strided rows, output vectors (outer reductions), short
 * rows, a broadcast input on either kind of dim, several kept dims, a global reduce. */
static void test_vecdot_layouts(void **state) {
    (void)state;
    const bool q = ct_quick();
    struct {
        int nd;
        int64_t sa[3], sb[3];
        int dim;
        int narrow_a, narrow_b; /* drop the first element of the last dim */
        int transpose_a;        /* a is the transpose of a contiguous tensor */
        const char *what;
    } cases[] = {
        {2, {300, 1000}, {1, 1000}, 1, 0, 0, 0, "b broadcast over rows"},
        {2, {257, 4099}, {257, 4099}, 1, 0, 0, 0, "rows, tail"},
        {2, {64, 4097}, {64, 4097}, -1, 1, 1, 0, "rows, both with a head"},
        {2, {64, 4097}, {64, 4097}, 1, 1, 0, 0, "rows cut differently"},
        {2, {1024, 300}, {1024, 300}, 0, 0, 0, 0, "columns, output vectors"},
        {2, {1000, 33}, {1000, 33}, 0, 0, 0, 0, "columns, odd width"},
        {2, {1000, 300}, {1, 300}, 0, 0, 0, 0, "columns, b broadcast along the reduced dim"},
        {2, {1000, 300}, {1000, 1}, 0, 0, 0, 0, "columns, b broadcast along the kept dim"},
        {2, {20000, 32}, {20000, 32}, 1, 0, 0, 0, "short rows, vectors"},
        {2, {20000, 7}, {20000, 7}, 1, 0, 0, 0, "short rows, elements"},
        {2, {20000, 32}, {1, 32}, 1, 0, 0, 0, "short rows, b broadcast"},
        {2, {500, 700}, {500, 700}, 1, 0, 0, 1, "a transposed"},
        {3, {8, 64, 50}, {8, 64, 50}, 1, 0, 0, 0, "middle dim"},
        {2, {2, 1 << 21}, {2, 1 << 21}, 1, 0, 0, 0, "long rows, global reduce"},
        {2, {1 << 18, 4}, {1 << 18, 4}, 0, 0, 0, 0, "long columns, global reduce"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (q && i >= 13) break;
        pair_t a = pair_of(rnd(cases[i].nd, cases[i].sa, TENSOR_FLOAT32, 100 + i));
        pair_t b = pair_of(rnd(cases[i].nd, cases[i].sb, TENSOR_FLOAT32, 200 + i));
        const int last = cases[i].nd - 1;
        if (cases[i].narrow_a) a = pair_narrow(a, last, 1, cases[i].sa[last] - 1);
        if (cases[i].narrow_b) b = pair_narrow(b, last, 1, cases[i].sb[last] - 1);
        else if (cases[i].narrow_a && cases[i].sb[last] > 1) b = pair_narrow(b, last, 0, cases[i].sb[last] - 1);
        if (cases[i].transpose_a) {
            const int64_t st[2] = {cases[i].sa[1], cases[i].sa[0]};
            pair_release(a);
            a = pair_transpose(pair_of(rnd(2, st, TENSOR_FLOAT32, 300 + i)));
        }
        check_vecdot_views(a, b, cases[i].dim, cases[i].what);
        pair_release(a);
        pair_release(b);
    }
}

/* Every dtype the kernels are compiled for, on rows and on columns. */
static void test_vecdot_dtypes(void **state) {
    (void)state;
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_INT64,
                                TENSOR_INT32,   TENSOR_INT16,   TENSOR_INT8,    TENSOR_UINT8};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        for (int dim = 0; dim < 2; dim++) {
            const int64_t s[2] = {517, 1030};
            pair_t a = pair_of(rnd(2, s, dts[k], 7 + k)), b = pair_of(rnd(2, s, dts[k], 70 + k));
            char what[64];
            snprintf(what, sizeof what, "%s over dim %d", tensor_dtype_name(dts[k]), dim);
            check_vecdot_views(a, b, dim, what);
            pair_release(a);
            pair_release(b);
        }
    }
}

/* Iterators past 32-bit offsets run in pieces: the test lowers the limit so that small
 * tensors take that path. */
static void test_vecdot_split(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    const int64_t saved = tensor_cuda_reduce_index_limit;
    tensor_cuda_reduce_index_limit = 1 << 14;
    const int64_t s[2] = {96, 3000};
    pair_t a = pair_of(rnd(2, s, TENSOR_FLOAT32, 11)), b = pair_of(rnd(2, s, TENSOR_FLOAT32, 12));
    pair_t h = pair_of(rnd(2, s, TENSOR_FLOAT16, 13)), h2 = pair_of(rnd(2, s, TENSOR_FLOAT16, 14));
    check_vecdot_views(a, b, 1, "split, rows");
    check_vecdot_views(a, b, 0, "split, columns");
    check_vecdot_views(h, h2, 1, "split, float16 rows (accumulator buffer)");
    tensor_cuda_reduce_index_limit = saved;
    pair_release(a);
    pair_release(b);
    pair_release(h);
    pair_release(h2);
#endif
}

static void test_vecdot_errors(void **state) {
    (void)state;
    const int64_t s[1] = {16};
    tensor_t *g = tensor_ones(1, s, TENSOR_FLOAT32, tensor_cuda(0)), *gh = tensor_ones(1, s, TENSOR_FLOAT16, tensor_cuda(0));
    tensor_t *c = tensor_ones(1, s, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *gb = tensor_ones(1, s, TENSOR_BOOL, tensor_cuda(0));
    assert_null(tensor_vecdot(g, c, 0));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_DEVICE);
    assert_null(tensor_vecdot(g, gh, 0));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_DTYPE);
    assert_null(tensor_vecdot(gb, gb, 0));
    assert_null(tensor_vecdot(g, g, 2));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_INDEX);
    tensor_release(g);
    tensor_release(gh);
    tensor_release(c);
    tensor_release(gb);
}

static void test_user_reduction_refuses_cuda(void **state) {
    (void)state;
    tensor_reduction_def d = {"cuda_test_sum", 1, sizeof(float), TENSOR_REDUCTION_DTYPE_SUM, true, {{0}}, NULL};
    d.fns[TENSOR_REDUCTION_F32] = sum_fns;
    tensor_reduction *r = tensor_reduction_register(&d);
    assert_non_null(r);
    tensor_t *g = tensor_ones(1, (int64_t[]){8}, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(g);
    const tensor_t *in[1] = {g};
    assert_null(tensor_reduce(r, in, 1, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_NOT_IMPLEMENTED);
    assert_non_null(strstr(tensor_last_error(), "not implemented for CUDA"));
    tensor_release(g);
    assert_int_equal(tensor_reduction_release(r), TENSOR_OK);
}

/* The caching allocator's segments go back to the device, so memcheck's leak check sees only
 * real leaks. */
static int release_cached(void **state) {
    (void)state;
    return ct_release_cached() == TENSOR_OK ? 0 : -1;
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_vecdot_layouts),
    cmocka_unit_test(test_vecdot_dtypes),
    cmocka_unit_test(test_vecdot_split),
    cmocka_unit_test(test_vecdot_errors),
    cmocka_unit_test(test_user_reduction_refuses_cuda),
};

TENSOR_TEST_GROUP(cuda_user_reduction, tests, NULL, release_cached)
