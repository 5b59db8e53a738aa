/* Scans on CUDA against the CPU backend on the same values: cumsum, cumprod, logcumsumexp,
 * cummax and cummin on every kernel path (dense long lines chained by look-back, dense lines of
 * one tile, the strided kernel with and without look-back, short dense lines, transposed,
 * misaligned and 3-D inputs), dtype pairs, NaN and ties, and bitwise reproducibility. Values
 * are chosen so that every order of evaluation gives the same bits (small integers for sums,
 * +-1 and powers of two for products, ties for cummax), so CPU and GPU compare exactly where
 * the math allows; logcumsumexp compares within a tolerance. Needs a GPU (exit 77 without). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cuda_test_util.h"
#include "ops/scan.h"

TENSOR_TEST_NEEDS_GPU()

enum { MODE_SMALL_INT, MODE_PROD, MODE_TIES_NAN, MODE_UNIFORM };

/* MODE_SMALL_INT: integers in [-3, 3]; MODE_PROD: mostly +-1, one in 256 is 2 or 0.5 (floats)
 * or one in 16 is 2 (integers); MODE_TIES_NAN: integers in [0, 7], floats with one NaN in 64;
 * MODE_UNIFORM: ct_store_uniform. */
static void store_scan(tensor_dtype dt, void *p, uint64_t r, int mode) {
    double v;
    switch (mode) {
    case MODE_SMALL_INT: v = (double)(int)(r % 7) - 3.0; break;
    case MODE_PROD: /* floats: rare enough that a product of 300000 stays inside float32's range */
        if (tensor_dtype_is_floating(dt) ? (r & 255) == 0 : (r & 15) == 0)
            v = tensor_dtype_is_floating(dt) && (r & 256) ? 0.5 : 2.0;
        else
            v = (r >> 9) & 1 ? 1.0 : -1.0;
        break;
    case MODE_TIES_NAN:
        v = (double)(r % 8);
        if (tensor_dtype_is_floating(dt) && ((r >> 8) & 63) == 0) v = NAN;
        break;
    default: ct_store_uniform(dt, p, r, 0); return;
    }
    if (dt == TENSOR_BOOL) v = v > 0;
    else if (!tensor_dtype_is_floating(dt) && dt == TENSOR_UINT8 && v < 0) v = -v;
    tensor_dtype_store_double(dt, p, v);
}

typedef enum { SC_CUMSUM, SC_CUMPROD, SC_LOGCUMSUMEXP, SC_CUMMAX, SC_CUMMIN } scan_op;

/* Runs op on t along dim; values (and indices for cummax/cummin). */
static tensor_status run_scan(scan_op op, const tensor_t *t, int dim, tensor_dtype dtype, tensor_t **v, tensor_t **i) {
    *v = *i = NULL;
    switch (op) {
    case SC_CUMSUM: *v = tensor_cumsum(t, dim, dtype); break;
    case SC_CUMPROD: *v = tensor_cumprod(t, dim, dtype); break;
    case SC_LOGCUMSUMEXP: *v = tensor_logcumsumexp(t, dim); break;
    case SC_CUMMAX: return tensor_cummax(t, dim, v, i);
    case SC_CUMMIN: return tensor_cummin(t, dim, v, i);
    }
    return *v != NULL ? TENSOR_OK : tensor_last_status();
}

/* Elementwise comparison of a CPU result and a downloaded GPU result (both logical order). */
static void compare(const tensor_t *cpu, const tensor_t *gpu, double rel_tol, const char *what) {
    ct_assert_same_shape(cpu, gpu, what);
    const tensor_dtype dt = tensor_get_dtype(cpu);
    const size_t es = tensor_dtype_size(dt);
    const int64_t n = tensor_numel(cpu);
    unsigned char *a = ct_download(cpu), *b = ct_download(gpu);
    for (int64_t k = 0; k < n; k++) {
        const void *pa = a + (size_t)k * es, *pb = b + (size_t)k * es;
        if (rel_tol == 0.0) {
            const double x = tensor_dtype_load_double(dt, pa), y = tensor_dtype_load_double(dt, pb);
            if (memcmp(pa, pb, es) != 0 && !(isnan(x) && isnan(y)))
                fail_msg("%s: element %lld: cpu %.17g, cuda %.17g", what, (long long)k, x, y);
        } else {
            const double x = tensor_dtype_load_double(dt, pa), y = tensor_dtype_load_double(dt, pb);
            if (isnan(x) || isnan(y)) {
                if (!(isnan(x) && isnan(y))) fail_msg("%s: element %lld: cpu %g, cuda %g", what, (long long)k, x, y);
            } else if (isinf(x) || isinf(y)) {
                if (x != y) fail_msg("%s: element %lld: cpu %g, cuda %g", what, (long long)k, x, y);
            } else if (fabs(x - y) > rel_tol * (1.0 + fabs(x))) {
                fail_msg("%s: element %lld: cpu %.9g, cuda %.9g", what, (long long)k, x, y);
            }
        }
    }
    free(a);
    free(b);
}

/* One case: a random CPU tensor of `sizes`, viewed by `view`, scanned along dim on both
 * devices. */
static void check_case(scan_op op, tensor_dtype dt, tensor_dtype dtype, int ndim, const int64_t *sizes, int dim,
                       view_kind view, int mode, double rel_tol, uint64_t seed) {
    char what[160];
    snprintf(what, sizeof what, "op %d %s->%s ndim %d [%lld..] dim %d view %d", (int)op, tensor_dtype_name(dt),
             dtype == TENSOR_DTYPE_DEFAULT ? "default" : tensor_dtype_name(dtype), ndim, (long long)sizes[0], dim,
             (int)view);
    tensor_t *base = ct_random_cpu(ndim, sizes, dt, seed, store_scan, mode);
    tensor_t *gbase = ct_to_gpu(base);
    tensor_t *c = ct_make_view(base, view, 0), *g = ct_make_view(gbase, view, 0);
    assert_non_null(c);
    assert_non_null(g);
    tensor_t *cv, *ci, *gv, *gi;
    if (run_scan(op, c, dim, dtype, &cv, &ci) != TENSOR_OK) fail_msg("%s: cpu: %s", what, tensor_last_error());
    if (run_scan(op, g, dim, dtype, &gv, &gi) != TENSOR_OK) fail_msg("%s: cuda: %s", what, tensor_last_error());
    assert_int_equal(tensor_get_device(gv).type, TENSOR_DEVICE_CUDA);
    compare(cv, gv, rel_tol, what);
    if (ci != NULL) compare(ci, gi, 0.0, what);
    tensor_release(cv);
    tensor_release(ci);
    tensor_release(gv);
    tensor_release(gi);
    tensor_release(c);
    tensor_release(g);
    tensor_release(base);
    tensor_release(gbase);
}

typedef struct {
    int ndim;
    int64_t sizes[3];
    int dim;
    view_kind view;
} layout;

/* Every kernel path: see the file's top. 4096 elements make a tile of the dense kernel. */
static const layout layouts[] = {
    {1, {3 * 4096 + 123}, 0, V_NONE},    /* one dense line, four tiles, the last partial */
    {1, {300000}, 0, V_NONE},            /* 74 tiles: look-back beyond a window */
    {2, {5, 9000}, 1, V_NONE},           /* dense rows of three tiles */
    {2, {7, 4096}, -1, V_NONE},          /* dense rows of one tile each */
    {2, {2500, 33}, 0, V_NONE},          /* strided: columns, many slabs */
    {2, {9, 700}, 0, V_NONE},            /* strided: one slab */
    {2, {3000, 37}, 1, V_NONE},          /* short dense rows: the strided kernel */
    {2, {5000, 3}, 0, V_NONE},           /* three long columns */
    {2, {9000, 6}, 0, V_TRANSPOSE},      /* the transposed input: dim 0 of [6, 9000] is dense */
    {2, {6, 9001}, 1, V_NARROW_LAST},    /* dense but misaligned rows */
    {3, {4, 600, 5}, 1, V_NONE},         /* lines over two outer dims */
    {3, {3, 4, 5000}, 2, V_NARROW0},     /* a sliced outer dim */
};
#define NUM_LAYOUTS ((int)(sizeof layouts / sizeof layouts[0]))

static void run_layouts(scan_op op, tensor_dtype dt, tensor_dtype dtype, int mode, double tol, int every) {
    for (int l = 0; l < NUM_LAYOUTS; l += every) {
        const layout *L = &layouts[l];
        check_case(op, dt, dtype, L->ndim, L->sizes, L->dim, L->view, mode, tol, 1000 + (uint64_t)l);
    }
}

static void test_cumsum(void **state) {
    (void)state;
    const int every = ct_quick() ? 3 : 1;
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_INT32, TENSOR_INT8, TENSOR_FLOAT64, TENSOR_FLOAT16,
                                TENSOR_BFLOAT16, TENSOR_INT64, TENSOR_UINT8, TENSOR_BOOL, TENSOR_INT16};
    for (int d = 0; d < (ct_quick() ? 3 : 10); d++) {
        /* 16-bit floats hold integers exactly only up to 256 / 2048: short lines for them. */
        const int small = dts[d] == TENSOR_FLOAT16 || dts[d] == TENSOR_BFLOAT16;
        if (small) {
            const int64_t s[2] = {50, 64};
            check_case(SC_CUMSUM, dts[d], TENSOR_DTYPE_DEFAULT, 2, s, 1, V_NONE, MODE_SMALL_INT, 0.0, 7);
            check_case(SC_CUMSUM, dts[d], TENSOR_DTYPE_DEFAULT, 2, s, 0, V_NONE, MODE_SMALL_INT, 0.0, 8);
            /* into float32 (the direct pair) on long lines */
            run_layouts(SC_CUMSUM, dts[d], TENSOR_FLOAT32, MODE_SMALL_INT, 0.0, every);
        } else {
            run_layouts(SC_CUMSUM, dts[d], TENSOR_DTYPE_DEFAULT, MODE_SMALL_INT, 0.0, every);
        }
    }
    /* Pairs converted before the scan: int8 -> float64, float32 -> int32. */
    run_layouts(SC_CUMSUM, TENSOR_INT8, TENSOR_FLOAT64, MODE_SMALL_INT, 0.0, 4);
    run_layouts(SC_CUMSUM, TENSOR_FLOAT32, TENSOR_INT32, MODE_SMALL_INT, 0.0, 4);
}

/* The dtype's extremes: int8, int16, uint8 and bool cumsums into int64 keep their per-element
 * work in int32 within a tile and their look-back records in 62 bits (cuda/scan_op.cuh,
 * NarrowSumOp), so whole tiles of the largest (or smallest) value check that those partial
 * sums stay exact and that negative prefixes keep their sign. */
static void store_extreme(tensor_dtype dt, void *p, uint64_t r, int mode) {
    (void)mode;
    double hi = 1.0, lo = 0.0;
    if (dt == TENSOR_INT8) hi = 127.0, lo = -128.0;
    else if (dt == TENSOR_INT16) hi = 32767.0, lo = -32768.0;
    else if (dt == TENSOR_UINT8) hi = 255.0, lo = 0.0;
    /* mode 0: mostly the largest (prefixes grow), 1: mostly the smallest (negative ones) */
    const int rare = r % 61 == 0;
    tensor_dtype_store_double(dt, p, (mode == 0) == rare ? lo : hi);
}

static void test_cumsum_narrow_extremes(void **state) {
    (void)state;
    const tensor_dtype dts[] = {TENSOR_INT16, TENSOR_INT8, TENSOR_UINT8, TENSOR_BOOL};
    const int64_t line = 3 * 8192 + 77, rows[2] = {3, 2 * 8192 + 5};
    for (int k = 0; k < 8; k++) {
        const int d = k % 4, mode = k / 4;
        tensor_t *c = ct_random_cpu(1, &line, dts[d], 40 + (uint64_t)k, store_extreme, mode);
        tensor_t *g = ct_to_gpu(c);
        tensor_t *cv = tensor_cumsum(c, 0, TENSOR_DTYPE_DEFAULT), *gv = tensor_cumsum(g, 0, TENSOR_DTYPE_DEFAULT);
        assert_non_null(cv);
        assert_non_null(gv);
        assert_int_equal(tensor_get_dtype(gv), TENSOR_INT64);
        compare(cv, gv, 0.0, "cumsum of extremes, one line");
        tensor_release(cv);
        tensor_release(gv);
        tensor_release(g);
        tensor_release(c);
        c = ct_random_cpu(2, rows, dts[d], 50 + (uint64_t)k, store_extreme, mode);
        g = ct_to_gpu(c);
        cv = tensor_cumsum(c, 1, TENSOR_DTYPE_DEFAULT);
        gv = tensor_cumsum(g, 1, TENSOR_DTYPE_DEFAULT);
        assert_non_null(gv);
        compare(cv, gv, 0.0, "cumsum of extremes, rows");
        tensor_release(cv);
        tensor_release(gv);
        tensor_release(g);
        tensor_release(c);
    }
}

static void test_cumprod(void **state) {
    (void)state;
    const int every = ct_quick() ? 3 : 1;
    run_layouts(SC_CUMPROD, TENSOR_FLOAT32, TENSOR_DTYPE_DEFAULT, MODE_PROD, 0.0, every);
    run_layouts(SC_CUMPROD, TENSOR_INT64, TENSOR_DTYPE_DEFAULT, MODE_PROD, 0.0, every); /* wraps past 2^63 */
    run_layouts(SC_CUMPROD, TENSOR_INT32, TENSOR_DTYPE_DEFAULT, MODE_PROD, 0.0, 2);
    run_layouts(SC_CUMPROD, TENSOR_FLOAT64, TENSOR_DTYPE_DEFAULT, MODE_PROD, 0.0, 2);
}

static void test_logcumsumexp(void **state) {
    (void)state;
    const int every = ct_quick() ? 3 : 1;
    run_layouts(SC_LOGCUMSUMEXP, TENSOR_FLOAT32, TENSOR_DTYPE_DEFAULT, MODE_UNIFORM, 1e-4, every);
    run_layouts(SC_LOGCUMSUMEXP, TENSOR_FLOAT64, TENSOR_DTYPE_DEFAULT, MODE_UNIFORM, 1e-12, 2);
    run_layouts(SC_LOGCUMSUMEXP, TENSOR_FLOAT16, TENSOR_DTYPE_DEFAULT, MODE_UNIFORM, 2e-3, 3);
    run_layouts(SC_LOGCUMSUMEXP, TENSOR_FLOAT32, TENSOR_DTYPE_DEFAULT, MODE_TIES_NAN, 1e-4, 3); /* NaN propagates */
}

static void test_cummax_cummin(void **state) {
    (void)state;
    const int every = ct_quick() ? 3 : 1;
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_INT32, TENSOR_FLOAT16, TENSOR_INT8,   TENSOR_FLOAT64,
                                TENSOR_BOOL,    TENSOR_INT64, TENSOR_UINT8,   TENSOR_BFLOAT16};
    for (int d = 0; d < (ct_quick() ? 2 : 9); d++) {
        run_layouts(SC_CUMMAX, dts[d], TENSOR_DTYPE_DEFAULT, MODE_TIES_NAN, 0.0, every);
        run_layouts(SC_CUMMIN, dts[d], TENSOR_DTYPE_DEFAULT, MODE_TIES_NAN, 0.0, every);
    }
}

/* Float sums whose value depends on the order: every run gives the same bytes. */
static void test_reproducible(void **state) {
    (void)state;
    const int64_t n = 1 << 20;
    tensor_t *c = ct_random_cpu(1, &n, TENSOR_FLOAT32, 99, store_scan, MODE_UNIFORM);
    tensor_t *g = ct_to_gpu(c);
    tensor_t *c2 = ct_random_cpu(2, (int64_t[]){4000, 300}, TENSOR_FLOAT32, 98, store_scan, MODE_UNIFORM);
    tensor_t *g2 = ct_to_gpu(c2);
    for (int which = 0; which < 2; which++) {
        void *first = NULL;
        for (int run = 0; run < 5; run++) {
            tensor_t *r = which == 0 ? tensor_cumsum(g, 0, TENSOR_DTYPE_DEFAULT) : tensor_cumsum(g2, 0, TENSOR_DTYPE_DEFAULT);
            assert_non_null(r);
            void *bytes = ct_download(r);
            if (first == NULL) {
                first = bytes;
                /* and close to the CPU's double-accumulated answer */
                tensor_t *ref = which == 0 ? tensor_cumsum(c, 0, TENSOR_DTYPE_DEFAULT) : tensor_cumsum(c2, 0, TENSOR_DTYPE_DEFAULT);
                compare(ref, r, 1e-3, "float32 cumsum against the CPU");
                tensor_release(ref);
            } else {
                assert_memory_equal(first, bytes, ct_nbytes(r));
                free(bytes);
            }
            tensor_release(r);
        }
        free(first);
    }
    tensor_release(g);
    tensor_release(c);
    tensor_release(g2);
    tensor_release(c2);
}

/* 0-d, empty, and out= on CUDA. */
static void test_edges(void **state) {
    (void)state;
    const float one = 2.5f;
    tensor_t *c = tensor_from_buffer(&one, 0, NULL, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *g = ct_to_gpu(c);
    tensor_t *r = tensor_cumsum(g, 0, TENSOR_DTYPE_DEFAULT);
    assert_non_null(r);
    assert_int_equal(tensor_ndim(r), 0);
    float got = 0;
    assert_int_equal(tensor_to_buffer(r, &got, sizeof got), TENSOR_OK);
    assert_true(got == 2.5f);
    tensor_release(r);
    tensor_t *v, *i;
    assert_int_equal(tensor_cummax(g, -1, &v, &i), TENSOR_OK);
    int64_t idx = -1;
    assert_int_equal(tensor_to_buffer(i, &idx, sizeof idx), TENSOR_OK);
    assert_int_equal(idx, 0);
    tensor_release(v);
    tensor_release(i);
    tensor_release(g);
    tensor_release(c);
    const int64_t es[2] = {0, 5};
    tensor_t *e = tensor_empty(2, es, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(e);
    r = tensor_cumsum(e, 1, TENSOR_DTYPE_DEFAULT);
    assert_non_null(r);
    assert_int_equal(tensor_numel(r), 0);
    tensor_release(r);
    tensor_release(e);
    /* out= into a CUDA tensor of another shape: resized, then filled */
    const int64_t n = 10000;
    tensor_t *src = ct_random_cpu(1, &n, TENSOR_INT32, 5, store_scan, MODE_SMALL_INT);
    tensor_t *gs = ct_to_gpu(src);
    tensor_t *out = tensor_empty(1, (int64_t[]){3}, TENSOR_INT64, tensor_cuda(0));
    assert_int_equal(tensor_cumsum_out(out, gs, 0, TENSOR_DTYPE_DEFAULT), TENSOR_OK);
    tensor_t *ref = tensor_cumsum(src, 0, TENSOR_DTYPE_DEFAULT);
    compare(ref, out, 0.0, "cumsum_out on CUDA");
    tensor_release(ref);
    tensor_release(out);
    tensor_release(gs);
    tensor_release(src);
}

static void test_scan_release_scratch(void **state) {
    (void)state;
    assert_int_equal(ct_release_cached(), TENSOR_OK);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cumsum),       cmocka_unit_test(test_cumsum_narrow_extremes), cmocka_unit_test(test_cumprod),      cmocka_unit_test(test_logcumsumexp),
    cmocka_unit_test(test_cummax_cummin), cmocka_unit_test(test_reproducible), cmocka_unit_test(test_edges),
    cmocka_unit_test(test_scan_release_scratch),
};

TENSOR_TEST_GROUP(cuda_scan, tests, NULL, NULL)
