/* User reductions (ops/reduction.h, ops/reduction_kit.h) against compositions of built-ins:
 * one and two inputs, broadcasting, struct accumulators, dtype rules, out=, empty reductions,
 * thread-count independence, the kit's paths against each other (fold, fold_stored,
 * fold_columns, F16C), tensor_vecdot, and every error path of the registry. */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "cpu/cpu_isa.h"
#include "ew_test_util.h"
#include "ops/reduction_kit.h"

/* ---- functors ---- */
static float zero_f(void) { return 0.0f; }
static double zero_d(void) { return 0.0; }
static int64_t zero_i(void) { return 0; }
static float abs_f(const float *x) { return fabsf(x[0]); }
static double abs_d(const double *x) { return fabs(x[0]); }
static float first_f(const float *x) { return x[0]; }
static int64_t first_i(const int64_t *x) { return x[0]; }
static float mul_f(const float *x) { return x[0] * x[1]; }
static double mul_d(const double *x) { return x[0] * x[1]; }
static float add_f(float a, float b) { return a + b; }
static double add_d(double a, double b) { return a + b; }
static int64_t add_i(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static float same_f(float a, int64_t n) { return (void)n, a; }
static double same_d(double a, int64_t n) { return (void)n, a; }
static int64_t same_i(int64_t a, int64_t n) { return (void)n, a; }
static float mean_f(float a, int64_t n) { return a / (float)n; }

TENSOR_REDUCTION_FNS(abs_sum_f32, 1, float, float, zero_f, abs_f, add_f, add_f, same_f)
TENSOR_REDUCTION_FNS(abs_sum_f64, 1, double, double, zero_d, abs_d, add_d, add_d, same_d)
TENSOR_REDUCTION_FNS(sum_f32, 1, float, float, zero_f, first_f, add_f, add_f, same_f)
TENSOR_REDUCTION_FNS(sum_i64, 1, int64_t, int64_t, zero_i, first_i, add_i, add_i, same_i)
TENSOR_REDUCTION_FNS(wsum_f32, 2, float, float, zero_f, mul_f, add_f, add_f, same_f)
TENSOR_REDUCTION_FNS(wsum_f64, 2, double, double, zero_d, mul_d, add_d, add_d, same_d)
TENSOR_REDUCTION_FNS(mean_f32, 1, float, float, zero_f, first_f, add_f, add_f, mean_f)
static float mul3_f(const float *x) { return x[0] * x[1] * x[2]; }
TENSOR_REDUCTION_FNS(prod3_f32, 3, float, float, zero_f, mul3_f, add_f, add_f, same_f)

/* A softmax denominator: sum(exp(x - max)) with a running max and a rescaled sum. */
typedef struct {
    float m, s;
} soft_acc;
static soft_acc soft_id(void) { return (soft_acc){-INFINITY, 0.0f}; }
static soft_acc soft_red(soft_acc a, float x) {
    if (x > a.m) return (soft_acc){x, a.s * expf(a.m - x) + 1.0f};
    return (soft_acc){a.m, a.s + expf(x - a.m)};
}
static soft_acc soft_comb(soft_acc a, soft_acc b) {
    if (b.m == -INFINITY) return a;
    if (a.m == -INFINITY) return b;
    const float m = a.m > b.m ? a.m : b.m;
    return (soft_acc){m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}
static float soft_proj(soft_acc a, int64_t n) { return (void)n, a.s; }
TENSOR_REDUCTION_FNS(soft_f32, 1, float, soft_acc, soft_id, first_f, soft_red, soft_comb, soft_proj)

static tensor_reduction_def def1(const char *name, tensor_reduction_fns f32, tensor_reduction_dtype_rule rule) {
    tensor_reduction_def d = {name, 1, sizeof(double), rule, true, {{0}}, NULL};
    d.fns[TENSOR_REDUCTION_F32] = f32;
    return d;
}

static tensor_t *rand_cpu(int ndim, const int64_t *shape, uint64_t seed, tensor_dtype dt) {
    tensor_t *t = tensor_rand(ndim, shape, seed, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(t);
    /* values in [-1, 1) */
    tensor_t *two = tensor_mul_scalar(t, tensor_scalar_float(2.0));
    tensor_t *c = tensor_sub_scalar(two, tensor_scalar_float(1.0), tensor_scalar_int(1));
    tensor_release(t);
    tensor_release(two);
    assert_non_null(c);
    if (dt == TENSOR_FLOAT32) return c;
    tensor_t *r = tensor_to_dtype(c, dt);
    tensor_release(c);
    assert_non_null(r);
    return r;
}

static void expect_close(const tensor_t *got, const tensor_t *want, double rtol) {
    assert_int_equal(tensor_numel(got), tensor_numel(want));
    assert_int_equal(tensor_ndim(got), tensor_ndim(want));
    for (int d = 0; d < tensor_ndim(got); d++) assert_int_equal(tensor_size(got, d), tensor_size(want, d));
    double *g = ew_values(got), *w = ew_values(want);
    for (int64_t i = 0; i < tensor_numel(got); i++)
        if (g[i] != w[i] && !(fabs(g[i] - w[i]) <= rtol * (1.0 + fabs(w[i])))) fail_msg("element %lld: %.9g, want %.9g", (long long)i, g[i], w[i]);
    free(g);
    free(w);
}

static void test_abs_sum_matches_norm1(void **state) {
    (void)state;
    tensor_reduction_def d = def1("test_abs_sum", abs_sum_f32, TENSOR_REDUCTION_DTYPE_FLOAT);
    d.fns[TENSOR_REDUCTION_F64] = abs_sum_f64;
    tensor_reduction *r = tensor_reduction_register(&d);
    assert_non_null(r);
    assert_string_equal(tensor_reduction_name(r), "test_abs_sum");
    assert_ptr_equal(tensor_reduction_find("test_abs_sum"), r);
    const int64_t shape[3] = {5, 300, 7};
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_BFLOAT16};
    const int dimsets[][2] = {{1, -1}, {0, 2}, {2, -1}, {-1, 0}};
    for (size_t k = 0; k < 3; k++) {
        tensor_t *x = rand_cpu(3, shape, 7 + k, dts[k]);
        const tensor_t *in[1] = {x};
        for (size_t s = 0; s < 4; s++) {
            const int nd = dimsets[s][1] == -1 && s != 3 ? 1 : 2;
            for (int keep = 0; keep < 2; keep++) {
                tensor_t *got = tensor_reduce(r, in, 1, dimsets[s], nd, keep, TENSOR_DTYPE_DEFAULT);
                if (got == NULL) fail_msg("%s", tensor_last_error());
                tensor_t *want = tensor_norm(x, 1.0, dimsets[s], nd, keep);
                assert_non_null(want);
                assert_int_equal(tensor_get_dtype(got), tensor_get_dtype(want));
                expect_close(got, want, dts[k] == TENSOR_BFLOAT16 ? 1e-2 : 1e-5);
                tensor_release(got);
                tensor_release(want);
            }
        }
        /* every dim */
        tensor_t *got = tensor_reduce(r, in, 1, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        tensor_t *want = tensor_norm(x, 1.0, NULL, 0, false);
        assert_non_null(got);
        expect_close(got, want, dts[k] == TENSOR_BFLOAT16 ? 1e-2 : 1e-5);
        tensor_release(got);
        tensor_release(want);
        tensor_release(x);
    }
    assert_int_equal(tensor_reduction_release(r), TENSOR_OK);
}

static void test_integer_sum_and_rules(void **state) {
    (void)state;
    tensor_reduction_def d = def1("test_sum", sum_f32, TENSOR_REDUCTION_DTYPE_SUM);
    d.fns[TENSOR_REDUCTION_I64] = sum_i64;
    tensor_reduction *r = tensor_reduction_register(&d);
    assert_non_null(r);
    int64_t v[6] = {2000000000, 2000000000, -7, 1, 2, 3};
    tensor_t *x = ew_tensor(TENSOR_INT32, 2, (int64_t[]){2, 3}, (double[]){2e9, 2e9, -7, 1, 2, 3}, 6);
    (void)v;
    const tensor_t *in[1] = {x};
    tensor_t *s = tensor_reduce(r, in, 1, (int[]){1}, 1, false, TENSOR_DTYPE_DEFAULT);
    assert_non_null(s);
    ew_expect_i(s, TENSOR_INT64, (int64_t[]){3999999993LL, 6}, 2);
    /* dtype= float32: the F32 form */
    tensor_t *f = tensor_reduce(r, in, 1, (int[]){1}, 1, false, TENSOR_FLOAT32);
    assert_non_null(f);
    assert_int_equal(tensor_get_dtype(f), TENSOR_FLOAT32);
    /* dtype= float64: no F64 form */
    assert_null(tensor_reduce(r, in, 1, (int[]){1}, 1, false, TENSOR_FLOAT64));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_DTYPE);
    assert_non_null(strstr(tensor_last_error(), "'test_sum' has no double form"));
    /* out=: resized, its dtype is the result's */
    tensor_t *o = tensor_zeros(1, (int64_t[]){5}, TENSOR_INT64, tensor_cpu());
    assert_int_equal(tensor_reduce_out(o, r, in, 1, (int[]){0}, 1, false), TENSOR_OK);
    ew_expect_i(o, TENSOR_INT64, (int64_t[]){2000000001, 2000000002, -4}, 3);
    tensor_t *bad = tensor_zeros(1, (int64_t[]){3}, TENSOR_FLOAT64, tensor_cpu());
    assert_int_equal(tensor_reduce_out(bad, r, in, 1, (int[]){0}, 1, false), TENSOR_ERR_DTYPE);
    /* the mean-like rule: ints give float32 */
    tensor_reduction_def dm = def1("test_mean", mean_f32, TENSOR_REDUCTION_DTYPE_FLOAT);
    tensor_reduction *m = tensor_reduction_register(&dm);
    tensor_t *mm = tensor_reduce(m, in, 1, (int[]){1}, 1, true, TENSOR_DTYPE_DEFAULT);
    assert_non_null(mm);
    assert_int_equal(tensor_get_dtype(mm), TENSOR_FLOAT32);
    assert_int_equal(tensor_ndim(mm), 2);
    assert_int_equal(tensor_reduction_release(m), TENSOR_OK);
    tensor_release(mm);
    tensor_release(bad);
    tensor_release(o);
    tensor_release(f);
    tensor_release(s);
    tensor_release(x);
    assert_int_equal(tensor_reduction_release(r), TENSOR_OK);
}

static void test_two_inputs_broadcast(void **state) {
    (void)state;
    tensor_reduction_def d = def1("test_wsum", wsum_f32, TENSOR_REDUCTION_DTYPE_SUM);
    d.ninputs = 2;
    tensor_reduction *r = tensor_reduction_register(&d);
    assert_non_null(r);
    const int64_t sx[2] = {37, 129}, sw[1] = {129};
    tensor_t *x = rand_cpu(2, sx, 3, TENSOR_FLOAT32), *w = rand_cpu(1, sw, 4, TENSOR_FLOAT32);
    const tensor_t *in[2] = {x, w};
    for (int dim = -2; dim < 2; dim++) {
        tensor_t *got = tensor_reduce(r, in, 2, &dim, 1, false, TENSOR_DTYPE_DEFAULT);
        if (got == NULL) fail_msg("%s", tensor_last_error());
        tensor_t *p = tensor_mul(x, w);
        tensor_t *want = tensor_sum_dims(p, &dim, 1, false, TENSOR_DTYPE_DEFAULT);
        expect_close(got, want, 1e-5);
        tensor_release(got);
        tensor_release(want);
        tensor_release(p);
    }
    /* the inputs swapped: the same products */
    const tensor_t *sw_in[2] = {w, x};
    tensor_t *a = tensor_reduce(r, sw_in, 2, (int[]){1}, 1, false, TENSOR_DTYPE_DEFAULT);
    assert_non_null(a);
    /* shapes that do not broadcast */
    tensor_t *bad = rand_cpu(1, (int64_t[]){5}, 5, TENSOR_FLOAT32);
    const tensor_t *bin[2] = {x, bad};
    assert_null(tensor_reduce(r, bin, 2, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_SHAPE);
    /* the wrong number of inputs */
    assert_null(tensor_reduce(r, in, 1, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_non_null(strstr(tensor_last_error(), "argument 'ninputs' is 1, but 'test_wsum' takes 2 inputs"));
    const tensor_t *nul[2] = {x, NULL};
    assert_null(tensor_reduce(r, nul, 2, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_non_null(strstr(tensor_last_error(), "argument 'inputs[1]' is NULL"));
    /* A 0-d input is weak in the promotion, as in PyTorch: a 0-d float8 weight beside float32
     * rows gives float32 (float8 promoted with float32 would be an error), and a 0-d float64
     * beside float32 rows does not make the result float64. */
    const tensor_dtype weak[2] = {TENSOR_FLOAT8_E5M2, TENSOR_FLOAT64};
    for (int k = 0; k < 2; k++) {
        tensor_t *s = tensor_full(0, NULL, 2.0, weak[k], tensor_cpu());
        assert_non_null(s);
        const tensor_t *sin[2] = {x, s};
        tensor_t *got = tensor_reduce(r, sin, 2, (int[]){1}, 1, false, TENSOR_DTYPE_DEFAULT);
        if (got == NULL) fail_msg("0-d %s: %s", tensor_dtype_name(weak[k]), tensor_last_error());
        assert_int_equal(tensor_get_dtype(got), TENSOR_FLOAT32);
        tensor_t *twos = tensor_full(1, sw, 2.0, TENSOR_FLOAT32, tensor_cpu());
        const tensor_t *win[2] = {x, twos};
        tensor_t *want = tensor_reduce(r, win, 2, (int[]){1}, 1, false, TENSOR_DTYPE_DEFAULT);
        expect_close(got, want, 1e-6);
        tensor_release(want);
        tensor_release(twos);
        tensor_release(got);
        tensor_release(s);
    }
    tensor_release(bad);
    tensor_release(a);
    tensor_release(x);
    tensor_release(w);
    assert_int_equal(tensor_reduction_release(r), TENSOR_OK);
}

/* Columns of three inputs where the third is float64 read down its columns (a transposed
 * view) into float values: the library stages its elements as they are, then converts them.
 * With an odd number of rows and of columns the staged float values end 4 bytes past an 8-byte
 * boundary; the float64 elements after them must still be 8-aligned (UBSan flagged the store). */
static void test_staged_columns_wide_elements(void **state) {
    (void)state;
    tensor_reduction_def d = def1("test_prod3", prod3_f32, TENSOR_REDUCTION_DTYPE_FLOAT);
    d.ninputs = 3;
    tensor_reduction *r = tensor_reduction_register(&d);
    assert_non_null(r);
    enum { R = 7, C = 5 };
    float xv[R * C], zv[R * C];
    double wv[R * C]; /* element (i, j) at i + R * j: dense along the reduced dim 0 */
    for (int i = 0; i < R * C; i++) {
        xv[i] = (float)(i % 5 - 2);
        zv[i] = (float)(i % 3 + 1);
        wv[i] = (double)(i % 4 - 1);
    }
    const int64_t shape[2] = {R, C}, rows[2] = {C, 1}, cols[2] = {1, R};
    tensor_t *x = tensor_from_blob(xv, 2, shape, rows, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    tensor_t *z = tensor_from_blob(zv, 2, shape, rows, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    tensor_t *w = tensor_from_blob(wv, 2, shape, cols, TENSOR_FLOAT64, tensor_cpu(), NULL, NULL);
    assert_non_null(x);
    assert_non_null(z);
    assert_non_null(w);
    const tensor_t *in[3] = {x, z, w};
    tensor_t *got = tensor_reduce(r, in, 3, (int[]){0}, 1, false, TENSOR_FLOAT32);
    if (got == NULL) fail_msg("%s", tensor_last_error());
    float out[C];
    assert_int_equal(tensor_to_buffer(got, out, sizeof out), TENSOR_OK);
    for (int j = 0; j < C; j++) {
        float want = 0; /* small integers: exact in any order */
        for (int i = 0; i < R; i++) want += xv[i * C + j] * zv[i * C + j] * (float)wv[i + R * j];
        assert_true(out[j] == want);
    }
    tensor_release(got);
    tensor_release(x);
    tensor_release(z);
    tensor_release(w);
    assert_int_equal(tensor_reduction_release(r), TENSOR_OK);
}

static void test_struct_accumulator_and_threads(void **state) {
    (void)state;
    tensor_reduction_def d = def1("test_softmax_den", soft_f32, TENSOR_REDUCTION_DTYPE_FLOAT);
    d.acc_size = sizeof(soft_acc);
    d.empty_ok = false;
    tensor_reduction *r = tensor_reduction_register(&d);
    assert_non_null(r);
    const int64_t shape[2] = {64, 20000};
    tensor_t *x = rand_cpu(2, shape, 11, TENSOR_FLOAT32);
    const tensor_t *in[1] = {x};
    tensor_t *got = tensor_reduce(r, in, 1, (int[]){1}, 1, false, TENSOR_DTYPE_DEFAULT);
    assert_non_null(got);
    /* exp(logsumexp(x) - amax(x)) */
    tensor_t *lse = tensor_logsumexp(x, (int[]){1}, 1, false);
    tensor_t *mx = tensor_amax(x, (int[]){1}, 1, false);
    tensor_t *diff = tensor_sub(lse, mx, tensor_scalar_int(1));
    tensor_t *want = tensor_exp(diff);
    expect_close(got, want, 1e-4);
    /* bitwise the same for 1 and 4 threads, and over every dim (chunks of the reduced dim) */
    int saved = tensor_get_num_threads();
    for (int all = 0; all < 2; all++) {
        tensor_t *res[2];
        for (int t = 0; t < 2; t++) {
            tensor_set_num_threads(t == 0 ? 1 : 4);
            res[t] = tensor_reduce(r, in, 1, all ? NULL : (int[]){0}, all ? 0 : 1, false, TENSOR_DTYPE_DEFAULT);
            assert_non_null(res[t]);
        }
        assert_int_equal(tensor_numel(res[0]), tensor_numel(res[1]));
        assert_memory_equal(tensor_data(res[0]), tensor_data(res[1]), (size_t)tensor_numel(res[0]) * sizeof(float));
        tensor_release(res[0]);
        tensor_release(res[1]);
    }
    tensor_set_num_threads(saved);
    /* empty reduced dims: refused (empty_ok false) */
    tensor_t *e = tensor_zeros(2, (int64_t[]){3, 0}, TENSOR_FLOAT32, tensor_cpu());
    const tensor_t *ein[1] = {e};
    assert_null(tensor_reduce(r, ein, 1, (int[]){1}, 1, false, TENSOR_DTYPE_DEFAULT));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_INDEX);
    tensor_release(e);
    tensor_release(want);
    tensor_release(diff);
    tensor_release(mx);
    tensor_release(lse);
    tensor_release(got);
    tensor_release(x);
    assert_int_equal(tensor_reduction_release(r), TENSOR_OK);
}

/* The kit's arithmetic depends on the shape only: whole dense runs, runs of bfloat16 / float16
 * converted in the kit's loop (fold_stored), tiles the library converts (fold_stored cleared),
 * a strided reduced dim read by rows (fold_columns), the AVX2 and the baseline copy of the
 * loops, 1 and 4 threads: the same bits. */
tensor_reduction_fns tt_test_kit_baseline_sum(void);
tensor_reduction_fns tt_test_kit_baseline_abs_sum(void);

/* One call of a fresh registration of d, into result dtype dt. */
static tensor_t *reduce_def_as(tensor_reduction_def d, const tensor_t *x, const int *dims, int nd, tensor_dtype dt) {
    static int serial;
    char name[32];
    snprintf(name, sizeof name, "test_cols_%d", serial++);
    d.name = name;
    tensor_reduction *r = tensor_reduction_register(&d);
    assert_non_null(r);
    const tensor_t *in[1] = {x};
    tensor_t *y = tensor_reduce(r, in, 1, dims, nd, false, dt);
    if (y == NULL) fail_msg("%s", tensor_last_error());
    assert_int_equal(tensor_reduction_release(r), TENSOR_OK);
    return y;
}
static tensor_t *reduce_def(tensor_reduction_def d, const tensor_t *x, const int *dims, int nd) {
    return reduce_def_as(d, x, dims, nd, TENSOR_DTYPE_DEFAULT);
}

static tensor_t *reduce_with(tensor_reduction_fns fns, const tensor_t *x, const int *dims, int nd) {
    return reduce_def(def1("test_with", fns, TENSOR_REDUCTION_DTYPE_SUM), x, dims, nd);
}

static void expect_same_bits(const tensor_t *a, const tensor_t *b, const char *what) {
    assert_int_equal(tensor_get_dtype(a), tensor_get_dtype(b));
    assert_int_equal(tensor_numel(a), tensor_numel(b));
    if (memcmp(tensor_data(a), tensor_data(b), (size_t)tensor_numel(a) * tensor_dtype_size(tensor_get_dtype(a))) != 0)
        fail_msg("%s: the bits differ", what);
}

static void test_kit_paths_agree(void **state) {
    (void)state;
    const tensor_dtype dts[3] = {TENSOR_FLOAT32, TENSOR_BFLOAT16, TENSOR_FLOAT16};
    const int saved = tensor_get_num_threads();
    /* rows of 9000: a head block, windows of full blocks read in pairs, a tail */
    for (int f = 0; f < 2; f++)
        for (int t = 0; t < 3; t++) {
            const tensor_reduction_fns kit = f == 0 ? sum_f32 : abs_sum_f32;
            const tensor_reduction_fns base = f == 0 ? tt_test_kit_baseline_sum() : tt_test_kit_baseline_abs_sum();
            tensor_reduction_fns tiles = kit;
            tiles.fold_stored = NULL;
            tensor_t *x = rand_cpu(2, (int64_t[]){37, 9000}, 31 + (uint64_t)t, dts[t]);
            /* the same values with the reduced dim strided: rows of outputs (fold_columns) */
            tensor_t *xt = tensor_transpose(x, 0, 1), *col = tensor_contiguous(xt), *strided = tensor_transpose(col, 0, 1);
            assert_non_null(strided);
            for (int all = 0; all < 2; all++) {
                const int *dims = all ? NULL : (const int[]){1};
                const int nd = all ? 0 : 1;
                tensor_set_num_threads(1);
                tensor_t *want = reduce_with(kit, x, dims, nd);
                tensor_t *got[4];
                got[0] = reduce_with(tiles, x, dims, nd);
                got[1] = reduce_with(base, x, dims, nd);
                tensor_set_num_threads(4);
                got[2] = reduce_with(kit, x, dims, nd);
                got[3] = all ? NULL : reduce_with(kit, strided, dims, nd);
                static const char *const what[4] = {"tiles", "baseline", "4 threads", "strided"};
                for (int k = 0; k < 4; k++)
                    if (got[k] != NULL) {
                        expect_same_bits(want, got[k], what[k]);
                        tensor_release(got[k]);
                    }
                /* and the math: a sum (abs-sum) within the result dtype's precision */
                tensor_t *ref = f == 0 ? tensor_sum_dims(x, dims, nd, false, TENSOR_DTYPE_DEFAULT)
                                       : tensor_norm(x, 1.0, dims, nd, false);
                expect_close(want, ref, dts[t] == TENSOR_FLOAT32 ? 1e-4 : 1e-2);
                tensor_release(ref);
                tensor_release(want);
            }
            tensor_release(strided);
            tensor_release(col);
            tensor_release(xt);
            tensor_release(x);
        }
    tensor_set_num_threads(saved);
}

/* vecdot of the dtypes whose products are rounded (16-bit floats, narrow integers) where the
 * outputs lie along the rows: over dim 0 of row-major inputs (fold_columns on rows read in
 * place or staged) and beside a transposed input (its blocks transposed, then converted), the
 * same bits as over dim 1 of the transposed copies (fold on whole rows, in order), on 1 and 2
 * threads. 2203 rows: a block of the driver (2048) and a piece; 70 columns: a block of 64 and
 * a piece. Special products for float16: one past 65504 (infinity), a NaN. */
static void test_vecdot_rounded_columns(void **state) {
    (void)state;
    const int saved = tensor_get_num_threads();
    const tensor_dtype dts[6] = {TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_INT32, TENSOR_INT16, TENSOR_INT8, TENSOR_UINT8};
    for (int d = 0; d < 6; d++) {
        const tensor_dtype dt = dts[d];
        tensor_t *fa = rand_cpu(2, (int64_t[]){2203, 70}, 121 + (uint64_t)d, TENSOR_FLOAT32);
        tensor_t *fb = rand_cpu(2, (int64_t[]){2203, 70}, 131 + (uint64_t)d, TENSOR_FLOAT32);
        const double scale = dt == TENSOR_FLOAT16 ? 8.0 : dt == TENSOR_BFLOAT16 ? 300.0 : 120.0;
        tensor_t *sa = tensor_mul_scalar(fa, tensor_scalar_float(scale)), *sb = tensor_mul_scalar(fb, tensor_scalar_float(scale));
        if (dt == TENSOR_FLOAT16) { /* a NaN product in column 3, one past 65504 in column 9 */
            float *p = tensor_data(sa), *q = tensor_data(sb);
            p[5 * 70 + 3] = NAN;
            p[7 * 70 + 9] = q[7 * 70 + 9] = 300.0f;
        }
        tensor_t *a = tensor_to_dtype(sa, dt), *b = tensor_to_dtype(sb, dt);
        assert_non_null(a);
        assert_non_null(b);
        tensor_t *at = tensor_transpose(a, 0, 1), *bt = tensor_transpose(b, 0, 1);
        tensor_t *atc = tensor_contiguous(at), *btc = tensor_contiguous(bt);
        tensor_t *a_cols = tensor_transpose(atc, 0, 1); /* a's values, dense along dim 0 */
        assert_true(at && bt && atc && btc && a_cols);
        tensor_set_num_threads(1);
        tensor_t *want = tensor_vecdot(atc, btc, 1);
        assert_non_null(want);
        for (int th = 1; th <= 2; th++) {
            tensor_set_num_threads(th);
            tensor_t *cols = tensor_vecdot(a, b, 0), *mixed = tensor_vecdot(a_cols, b, 0), *mixed2 = tensor_vecdot(b, a_cols, 0);
            if (!cols || !mixed || !mixed2) fail_msg("%s: %s", tensor_dtype_name(dt), tensor_last_error());
            char msg[96];
            snprintf(msg, sizeof msg, "%s over dim 0, %d threads", tensor_dtype_name(dt), th);
            expect_same_bits(want, cols, msg);
            snprintf(msg, sizeof msg, "%s, a dense along dim 0 beside b, %d threads", tensor_dtype_name(dt), th);
            expect_same_bits(want, mixed, msg);
            expect_same_bits(want, mixed2, msg);
            tensor_release(cols);
            tensor_release(mixed);
            tensor_release(mixed2);
        }
        tensor_set_num_threads(saved);
        tensor_t *const ts[12] = {fa, fb, sa, sb, a, b, at, bt, atc, btc, a_cols, want};
        for (int i = 0; i < 12; i++) tensor_release(ts[i]);
    }
}

/* ---- fold_columns: outputs that meet one element per row (a reduced dim that is not the
 * innermost) take the kit's fold_columns, which must give fold's bits for each output ---- */

/* Same bits with fold_columns (1 and 2 threads) as without it (fold over gathered tiles), for
 * one definition on one input, into result dtype dt. */
static void expect_columns_agree_as(tensor_reduction_def d, tensor_reduction_value v, const tensor_t *x,
                                    const int *dims, int nd, tensor_dtype dt, const char *what) {
    const int saved = tensor_get_num_threads();
    tensor_reduction_def plain = d;
    plain.fns[v].fold_columns = NULL;
    tensor_set_num_threads(1);
    tensor_t *want = reduce_def_as(plain, x, dims, nd, dt);
    tensor_t *got = reduce_def_as(d, x, dims, nd, dt);
    char msg[160];
    snprintf(msg, sizeof msg, "%s: fold_columns vs fold", what);
    expect_same_bits(want, got, msg);
    tensor_release(got);
    tensor_set_num_threads(2);
    got = reduce_def_as(d, x, dims, nd, dt);
    snprintf(msg, sizeof msg, "%s: 2 threads", what);
    expect_same_bits(want, got, msg);
    tensor_release(got);
    tensor_set_num_threads(saved);
    tensor_release(want);
}
static void expect_columns_agree(tensor_reduction_def d, tensor_reduction_value v, const tensor_t *x, const int *dims,
                                 int nd, const char *what) {
    expect_columns_agree_as(d, v, x, dims, nd, TENSOR_DTYPE_DEFAULT, what);
}

static tensor_t *rand_dt(int ndim, const int64_t *shape, uint64_t seed, tensor_dtype dt) {
    if (dt == TENSOR_INT64) {
        tensor_t *f = rand_cpu(ndim, shape, seed, TENSOR_FLOAT32);
        tensor_t *big = tensor_mul_scalar(f, tensor_scalar_float(1e6));
        tensor_t *i = tensor_to_dtype(big, TENSOR_INT64);
        tensor_release(big);
        tensor_release(f);
        assert_non_null(i);
        return i;
    }
    return rand_cpu(ndim, shape, seed, dt);
}

/* fold_columns keeps its accumulators (96 KB for 16-bit elements into float) off the calling
 * thread's stack: a thread with a 96 KB stack reduces dim 0 of 5000 bfloat16 columns, and
 * gets the bits the main thread gets. */
typedef struct {
    const tensor_t *x;
    tensor_reduction *r;
    tensor_t *y;
} small_stack_job;
static void *small_stack_main(void *p) {
    small_stack_job *j = p;
    const tensor_t *in[1] = {j->x};
    j->y = tensor_reduce(j->r, in, 1, (const int[]){0}, 1, false, TENSOR_DTYPE_DEFAULT);
    return NULL;
}
static void test_kit_columns_small_stack(void **state) {
    (void)state;
    const int saved = tensor_get_num_threads();
    tensor_set_num_threads(1);
    tensor_t *x = rand_dt(2, (int64_t[]){64, 5000}, 91, TENSOR_BFLOAT16);
    tensor_reduction_def d = def1("test_small_stack", sum_f32, TENSOR_REDUCTION_DTYPE_SUM);
    tensor_reduction *r = tensor_reduction_register(&d);
    assert_non_null(r);
    small_stack_job job = {x, r, NULL};
    pthread_attr_t attr;
    assert_int_equal(pthread_attr_init(&attr), 0);
    assert_int_equal(pthread_attr_setstacksize(&attr, 96 * 1024), 0);
    pthread_t th;
    assert_int_equal(pthread_create(&th, &attr, small_stack_main, &job), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    pthread_attr_destroy(&attr);
    if (job.y == NULL) fail_msg("%s", tensor_last_error());
    const tensor_t *in[1] = {x};
    tensor_t *ref = tensor_reduce(r, in, 1, (const int[]){0}, 1, false, TENSOR_DTYPE_DEFAULT);
    assert_non_null(ref);
    expect_same_bits(job.y, ref, "bfloat16 dim 0 on a 96 KB thread");
    tensor_release(ref);
    tensor_release(job.y);
    assert_int_equal(tensor_reduction_release(r), TENSOR_OK);
    tensor_release(x);
    tensor_set_num_threads(saved);
}

static void test_kit_columns_agree(void **state) {
    (void)state;
    const tensor_dtype dts[5] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_INT64, TENSOR_BFLOAT16, TENSOR_FLOAT16};
    for (int t = 0; t < 5; t++) {
        const tensor_dtype dt = dts[t];
        tensor_reduction_value v = dt == TENSOR_FLOAT64 ? TENSOR_REDUCTION_F64 : dt == TENSOR_INT64 ? TENSOR_REDUCTION_I64
                                                                                                    : TENSOR_REDUCTION_F32;
        tensor_reduction_def d = def1("test_cols", sum_f32, TENSOR_REDUCTION_DTYPE_SUM);
        d.fns[TENSOR_REDUCTION_F32] = t == 4 ? abs_sum_f32 : sum_f32; /* float16: an abs-sum, a MAP too */
        d.fns[TENSOR_REDUCTION_F64] = abs_sum_f64;
        d.fns[TENSOR_REDUCTION_I64] = sum_i64;
        char what[96];
        /* dim 0 of a matrix: a block of 2048 rows and a tail of 40 (folded in order), more
         * columns than a tile of the kit takes (2048 float accumulators; 4096 for 16-bit
         * elements; 1024 doubles), and a remainder of columns that is not a multiple of 8 */
        const size_t esize = tensor_dtype_size(dt);
        const int64_t ncols = esize == 8 ? 1100 : esize == 2 ? 4100 : 2100;
        tensor_t *x = rand_dt(2, (int64_t[]){2088, ncols}, 41 + (uint64_t)t, dt);
        snprintf(what, sizeof what, "%s [2088, %lld] dim 0", tensor_dtype_name(dt), (long long)ncols);
        expect_columns_agree(d, v, x, (const int[]){0}, 1, what);
        /* the same values with the reduced dim contiguous: fold over whole runs */
        {
            tensor_t *xt = tensor_transpose(x, 0, 1), *xc = tensor_contiguous(xt);
            tensor_set_num_threads(1);
            tensor_t *a = reduce_def(d, x, (const int[]){0}, 1), *b = reduce_def(d, xc, (const int[]){1}, 1);
            snprintf(what, sizeof what, "%s: columns vs contiguous runs", tensor_dtype_name(dt));
            expect_same_bits(a, b, what);
            tensor_release(a);
            tensor_release(b);
            tensor_release(xc);
            tensor_release(xt);
        }
        /* rows two apart (a step on the reduced dim): the rows' stride */
        tensor_t *rows2 = tensor_slice(x, 0, 0, 2088, 2);
        snprintf(what, sizeof what, "%s rows 2 apart", tensor_dtype_name(dt));
        expect_columns_agree(d, v, rows2, (const int[]){0}, 1, what);
        /* columns two apart: not dense along the row, so fold over gathered tiles both ways */
        tensor_t *cols2 = tensor_slice(rows2, 1, 0, 300, 2);
        snprintf(what, sizeof what, "%s columns 2 apart", tensor_dtype_name(dt));
        expect_columns_agree(d, v, cols2, (const int[]){0}, 1, what);
        tensor_release(cols2);
        tensor_release(rows2);
        tensor_release(x);
        /* the middle dim of 3-D (a row of outputs per reduced index, per outer index), and the
         * first two dims (coalesced into 4500 rows: two full blocks and a tail of 404) */
        tensor_t *x3 = rand_dt(3, (int64_t[]){3, 1500, 70}, 51 + (uint64_t)t, dt);
        snprintf(what, sizeof what, "%s [3, 1500, 70] dim 1", tensor_dtype_name(dt));
        expect_columns_agree(d, v, x3, (const int[]){1}, 1, what);
        snprintf(what, sizeof what, "%s [3, 1500, 70] dims 0, 1", tensor_dtype_name(dt));
        expect_columns_agree(d, v, x3, (const int[]){0, 1}, 2, what);
        tensor_release(x3);
        /* a reduced dim long enough to be cut into chunks (tensor_iter_reduce_run): the second
         * starts inside a block of the kit */
        tensor_t *xl = rand_dt(2, (int64_t[]){70001, 20}, 61 + (uint64_t)t, dt);
        snprintf(what, sizeof what, "%s [70001, 20] dim 0", tensor_dtype_name(dt));
        expect_columns_agree(d, v, xl, (const int[]){0}, 1, what);
        tensor_release(xl);
        /* a broadcast input (rows 0 bytes apart) */
        tensor_t *b2 = rand_dt(2, (int64_t[]){64, 48}, 71 + (uint64_t)t, dt);
        tensor_t *be = tensor_expand(b2, 3, (int64_t[]){100, 64, 48});
        snprintf(what, sizeof what, "%s expanded [100, 64, 48] dim 0", tensor_dtype_name(dt));
        expect_columns_agree(d, v, be, (const int[]){0}, 1, what);
        tensor_release(be);
        tensor_release(b2);
        /* few rows (every block short: the tile is one row of accumulators) and more columns
         * than a tile takes */
        tensor_t *xf = rand_dt(2, (int64_t[]){40, 5000}, 75 + (uint64_t)t, dt);
        snprintf(what, sizeof what, "%s [40, 5000] dim 0", tensor_dtype_name(dt));
        expect_columns_agree(d, v, xf, (const int[]){0}, 1, what);
        tensor_release(xf);
        /* a size-1 reduced dim: dim 0 of the blocks is kept, one element per accumulator */
        tensor_t *x1 = rand_dt(3, (int64_t[]){64, 1, 48}, 81 + (uint64_t)t, dt);
        snprintf(what, sizeof what, "%s [64, 1, 48] dim 1", tensor_dtype_name(dt));
        expect_columns_agree(d, v, x1, (const int[]){1}, 1, what);
        tensor_release(x1);
    }
    /* rows that need converting into the value type (int32 into an int64 sum, into a float
     * value, float32 into a float64 value): converted a few columns at a time into dense rows
     * for fold_columns, against fold over gathered tiles */
    {
        tensor_t *xf = rand_cpu(2, (int64_t[]){2088, 2100}, 111, TENSOR_FLOAT32);
        tensor_t *xs = tensor_mul_scalar(xf, tensor_scalar_float(1e6));
        tensor_t *xi = tensor_to_dtype(xs, TENSOR_INT32);
        assert_non_null(xi);
        tensor_reduction_def di = def1("test_cols_i32", sum_f32, TENSOR_REDUCTION_DTYPE_SUM);
        di.fns[TENSOR_REDUCTION_I64] = sum_i64;
        tensor_reduction_def dfl = def1("test_cols_i32f", sum_f32, TENSOR_REDUCTION_DTYPE_FLOAT);
        tensor_reduction_def dd = def1("test_cols_f64", sum_f32, TENSOR_REDUCTION_DTYPE_SUM);
        dd.fns[TENSOR_REDUCTION_F64] = abs_sum_f64;
        tensor_t *xd = tensor_to_dtype(xf, TENSOR_FLOAT64), *x16 = tensor_to_dtype(xf, TENSOR_BFLOAT16);
        tensor_t *xdt = tensor_slice(xd, 1, 1, 2100, 3); /* float64 columns 3 apart */
        expect_columns_agree(di, TENSOR_REDUCTION_I64, xi, (const int[]){0}, 1, "int32 into int64, dim 0");
        expect_columns_agree(dfl, TENSOR_REDUCTION_F32, xi, (const int[]){0}, 1, "int32 into float, dim 0");
        expect_columns_agree(dd, TENSOR_REDUCTION_F64, xdt, (const int[]){0}, 1, "float64 columns 3 apart");
        /* bfloat16 with a float64 result: no fold_stored, converted through the float64 value */
        tensor_reduction_def db = def1("test_cols_bf", sum_f32, TENSOR_REDUCTION_DTYPE_FLOAT);
        db.fns[TENSOR_REDUCTION_F64] = abs_sum_f64;
        expect_columns_agree_as(db, TENSOR_REDUCTION_F64, x16, (const int[]){0}, 1, TENSOR_FLOAT64,
                                "bfloat16 into a float64 result, dim 0");
        /* a long reduced dim cut into chunks, the second starting inside a block; a middle dim */
        tensor_t *lf = rand_cpu(2, (int64_t[]){70001, 20}, 112, TENSOR_FLOAT32);
        tensor_t *ls = tensor_mul_scalar(lf, tensor_scalar_float(1e6));
        tensor_t *li = tensor_to_dtype(ls, TENSOR_INT32);
        expect_columns_agree(dfl, TENSOR_REDUCTION_F32, li, (const int[]){0}, 1, "int32 into float, [70001, 20] dim 0");
        tensor_t *mf = rand_cpu(3, (int64_t[]){3, 1500, 70}, 113, TENSOR_FLOAT32);
        tensor_t *ms = tensor_mul_scalar(mf, tensor_scalar_float(1e6));
        tensor_t *m3 = tensor_to_dtype(ms, TENSOR_INT32);
        expect_columns_agree(di, TENSOR_REDUCTION_I64, m3, (const int[]){1}, 1, "int32 into int64, [3, 1500, 70] dim 1");
        tensor_release(m3);
        tensor_release(ms);
        tensor_release(mf);
        tensor_release(li);
        tensor_release(ls);
        tensor_release(lf);
        tensor_release(xdt);
        tensor_release(x16);
        tensor_release(xd);
        tensor_release(xi);
        tensor_release(xs);
        tensor_release(xf);
    }
    /* two inputs, one broadcast along the rows */
    tensor_reduction_def w = def1("test_cols_w", wsum_f32, TENSOR_REDUCTION_DTYPE_SUM);
    w.ninputs = 2;
    tensor_t *x = rand_cpu(2, (int64_t[]){2200, 300}, 91, TENSOR_FLOAT32), *wt = rand_cpu(1, (int64_t[]){300}, 92, TENSOR_FLOAT32);
    const tensor_t *in[2] = {x, wt};
    tensor_reduction_def wp = w;
    wp.fns[TENSOR_REDUCTION_F32].fold_columns = NULL;
    tensor_reduction *rw = tensor_reduction_register(&w);
    wp.name = "test_cols_w_plain";
    tensor_reduction *rp = tensor_reduction_register(&wp);
    assert_non_null(rw);
    assert_non_null(rp);
    tensor_t *a = tensor_reduce(rw, in, 2, (const int[]){0}, 1, false, TENSOR_DTYPE_DEFAULT);
    tensor_t *b = tensor_reduce(rp, in, 2, (const int[]){0}, 1, false, TENSOR_DTYPE_DEFAULT);
    assert_non_null(a);
    assert_non_null(b);
    expect_same_bits(a, b, "two inputs");
    tensor_release(a);
    tensor_release(b);
    /* two layouts: x dense along the rows of outputs, y the transpose of a contiguous tensor,
     * dense along the reduced dim (its blocks transposed: float32 in 8x8 AVX2 tiles where the
     * CPU has AVX2, other values in 8x8 blocks, inputs that need converting transposed raw and
     * then converted; 301 columns leave a last piece of 45, which no 8-row tile covers); over
     * dim 0 and, with the roles swapped, over dim 1; 1 and 2 threads; against fold over
     * gathered tiles */
    tensor_reduction_def w2 = def1("test_cols_w2", wsum_f32, TENSOR_REDUCTION_DTYPE_SUM), w2f = w2;
    w2.ninputs = 2;
    w2.fns[TENSOR_REDUCTION_F64] = wsum_f64;
    w2f.ninputs = 2;
    w2f.name = "test_cols_w2f";
    w2f.dtype_rule = TENSOR_REDUCTION_DTYPE_FLOAT;
    tensor_reduction_def w2p = w2, w2fp = w2f;
    w2p.name = "test_cols_w2_plain";
    w2fp.name = "test_cols_w2f_plain";
    w2p.fns[TENSOR_REDUCTION_F32].fold_columns = w2p.fns[TENSOR_REDUCTION_F64].fold_columns = NULL;
    w2fp.fns[TENSOR_REDUCTION_F32].fold_columns = NULL;
    tensor_reduction *r2 = tensor_reduction_register(&w2), *r2p = tensor_reduction_register(&w2p);
    tensor_reduction *r2f = tensor_reduction_register(&w2f), *r2fp = tensor_reduction_register(&w2fp);
    assert_true(r2 && r2p && r2f && r2fp);
    const int saved = tensor_get_num_threads();
    const tensor_dtype two_dts[4] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_BFLOAT16, TENSOR_INT32};
    for (int d = 0; d < 4; d++) {
        tensor_reduction *got_r = two_dts[d] == TENSOR_INT32 ? r2f : r2, *want_r = two_dts[d] == TENSOR_INT32 ? r2fp : r2p;
        for (int64_t cols = 296; cols <= 301; cols += 5) {
            tensor_t *xs = rand_dt(2, (int64_t[]){2203, cols}, 93, two_dts[d] == TENSOR_INT32 ? TENSOR_INT64 : two_dts[d]);
            tensor_t *yc = rand_dt(2, (int64_t[]){cols, 2203}, 94, two_dts[d] == TENSOR_INT32 ? TENSOR_INT64 : two_dts[d]);
            if (two_dts[d] == TENSOR_INT32) { /* int64 values of rand_dt, narrowed */
                tensor_t *xi = tensor_to_dtype(xs, TENSOR_INT32), *yi = tensor_to_dtype(yc, TENSOR_INT32);
                tensor_release(xs);
                tensor_release(yc);
                xs = xi;
                yc = yi;
            }
            tensor_t *yt = tensor_transpose(yc, 0, 1), *xt = tensor_transpose(xs, 0, 1);
            assert_non_null(yt);
            assert_non_null(xt);
            const tensor_t *pairs[2][2] = {{xs, yt}, {yc, xt}};
            for (int k = 0; k < 2; k++) {
                const int dim = k;
                tensor_set_num_threads(1);
                tensor_t *want = tensor_reduce(want_r, pairs[k], 2, &dim, 1, false, TENSOR_DTYPE_DEFAULT);
                tensor_t *got = tensor_reduce(got_r, pairs[k], 2, &dim, 1, false, TENSOR_DTYPE_DEFAULT);
                tensor_set_num_threads(2);
                tensor_t *got2 = tensor_reduce(got_r, pairs[k], 2, &dim, 1, false, TENSOR_DTYPE_DEFAULT);
                tensor_set_num_threads(saved);
                if (!want || !got || !got2) fail_msg("two layouts: %s", tensor_last_error());
                char msg[96];
                snprintf(msg, sizeof msg, "two layouts, %s, %lld columns, dim %d", tensor_dtype_name(two_dts[d]),
                         (long long)cols, dim);
                expect_same_bits(want, got, msg);
                expect_same_bits(want, got2, msg);
                tensor_release(want);
                tensor_release(got);
                tensor_release(got2);
            }
            tensor_release(xt);
            tensor_release(yt);
            tensor_release(yc);
            tensor_release(xs);
        }
    }
    assert_int_equal(tensor_reduction_release(r2), TENSOR_OK);
    assert_int_equal(tensor_reduction_release(r2p), TENSOR_OK);
    assert_int_equal(tensor_reduction_release(r2f), TENSOR_OK);
    assert_int_equal(tensor_reduction_release(r2fp), TENSOR_OK);
    assert_int_equal(tensor_reduction_release(rw), TENSOR_OK);
    assert_int_equal(tensor_reduction_release(rp), TENSOR_OK);
    tensor_release(wt);
    tensor_release(x);
}

/* A struct accumulator (the running max with its rescaled sum), packed and with acc_size
 * larger than the struct (accumulators 16 bytes apart): the same bits as fold's, and as a
 * contiguous reduced dim's. */
static void test_kit_columns_struct_acc(void **state) {
    (void)state;
    const int saved = tensor_get_num_threads();
    tensor_t *x = rand_cpu(2, (int64_t[]){2150, 300}, 101, TENSOR_FLOAT32);
    tensor_t *xt = tensor_transpose(x, 0, 1), *xc = tensor_contiguous(xt);
    const size_t sizes[2] = {sizeof(soft_acc), 12};
    for (int k = 0; k < 2; k++) {
        tensor_reduction_def d = def1("test_cols_soft", soft_f32, TENSOR_REDUCTION_DTYPE_FLOAT);
        d.acc_size = sizes[k];
        expect_columns_agree(d, TENSOR_REDUCTION_F32, x, (const int[]){0}, 1, "softmax denominator");
        tensor_set_num_threads(1);
        tensor_t *a = reduce_def(d, x, (const int[]){0}, 1), *b = reduce_def(d, xc, (const int[]){1}, 1);
        expect_same_bits(a, b, "softmax denominator: columns vs contiguous runs");
        tensor_release(b);
        tensor_release(a);
    }
    tensor_set_num_threads(saved);
    tensor_release(xc);
    tensor_release(xt);
    tensor_release(x);
}

/* float16 converted with F16C (the kit's AVX2 copy) and one element at a time (the baseline
 * copy, and the library's converters when fold_stored and fold_columns are cleared): the same
 * bits, on data with every kind of float16: infinities, NaNs, subnormals, 65504, signed
 * zeros. An output meets at most one kind of NaN (a NaN's payload would otherwise depend on
 * the order of an addition's operands, which compilers may swap). */
static uint16_t f16_pick(uint64_t *s, int special) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    const uint16_t r = (uint16_t)(*s >> 33);
    switch (special) {
    case 1: return (r & 3) == 0 ? 0x7C00 : (uint16_t)(r & 0x83FF);           /* +inf among subnormals */
    case 2: return (r & 3) == 0 ? (uint16_t)(0x7C00 | (r & 0x8000)) : 0x3C00; /* +inf and -inf: a NaN */
    case 3: return (r & 7) == 0 ? 0x7E5A : (uint16_t)(r & 0xBBFF);            /* one NaN */
    case 4: return (r & 1) ? 0x7BFF : 0xFBFF;                                 /* +-65504 */
    case 5: return (uint16_t)(r & 0x8000);                                    /* signed zeros */
    default: return (uint16_t)(r % 0x7C00) | (uint16_t)(r & 0x8000);          /* finite, any */
    }
}

static void test_kit_f16c_agrees(void **state) {
    (void)state;
    const int saved = tensor_get_num_threads();
    tensor_set_num_threads(1);
    for (int cols = 0; cols < 2; cols++) {
        /* outputs along rows (fold_stored) or along columns (fold_columns); output o gets
         * special kind o % 6 */
        const int64_t nout = 13, len = 9000;
        const int64_t shape[2] = {cols ? len : nout, cols ? nout : len};
        uint16_t *h = malloc((size_t)(nout * len) * sizeof *h);
        assert_non_null(h);
        uint64_t seed = 7;
        for (int64_t i = 0; i < shape[0]; i++)
            for (int64_t j = 0; j < shape[1]; j++) h[i * shape[1] + j] = f16_pick(&seed, (int)((cols ? j : i) % 6));
        tensor_t *x = tensor_from_buffer(h, 2, shape, TENSOR_FLOAT16, tensor_cpu());
        assert_non_null(x);
        free(h);
        const int dim = cols ? 0 : 1;
        for (int f = 0; f < 2; f++) {
            const tensor_reduction_fns kit = f == 0 ? sum_f32 : abs_sum_f32;
            tensor_reduction_fns conv = kit;
            conv.fold_stored = NULL;
            conv.fold_columns = NULL;
            tensor_t *want = reduce_with(kit, x, &dim, 1);
            tensor_t *base = reduce_with(f == 0 ? tt_test_kit_baseline_sum() : tt_test_kit_baseline_abs_sum(), x, &dim, 1);
            tensor_t *lib = reduce_with(conv, x, &dim, 1);
            expect_same_bits(want, base, cols ? "float16 columns: F16C vs baseline" : "float16 rows: F16C vs baseline");
            expect_same_bits(want, lib, cols ? "float16 columns: vs converted by the library"
                                             : "float16 rows: vs converted by the library");
            /* the specials came through: +inf; +inf + -inf (|x|: +inf); a NaN */
            double *v = ew_values(want);
            assert_true(isinf(v[1]) && v[1] > 0);
            assert_true(f == 0 ? isnan(v[2]) : isinf(v[2]) && v[2] > 0);
            assert_true(isnan(v[3]));
            free(v);
            tensor_release(lib);
            tensor_release(base);
            tensor_release(want);
        }
        tensor_release(x);
    }
    tensor_set_num_threads(saved);
}

static void test_empty_gives_identity(void **state) {
    (void)state;
    tensor_reduction_def d = def1("test_empty_sum", sum_f32, TENSOR_REDUCTION_DTYPE_SUM);
    tensor_reduction *r = tensor_reduction_register(&d);
    tensor_t *e = tensor_zeros(2, (int64_t[]){3, 0}, TENSOR_FLOAT32, tensor_cpu());
    const tensor_t *in[1] = {e};
    tensor_t *s = tensor_reduce(r, in, 1, (int[]){1}, 1, false, TENSOR_DTYPE_DEFAULT);
    assert_non_null(s);
    ew_expect(s, TENSOR_FLOAT32, (double[]){0, 0, 0}, 3);
    tensor_t *none = tensor_reduce(r, in, 1, (int[]){0}, 1, false, TENSOR_DTYPE_DEFAULT); /* [0] result */
    assert_non_null(none);
    assert_int_equal(tensor_numel(none), 0);
    tensor_release(none);
    tensor_release(s);
    tensor_release(e);
    assert_int_equal(tensor_reduction_release(r), TENSOR_OK);
}

static void test_registry_errors(void **state) {
    (void)state;
    assert_null(tensor_reduction_register(NULL));
    assert_non_null(strstr(tensor_last_error(), "tensor_reduction_register: argument 'def' is NULL"));
    tensor_reduction_def d = def1("test_reg", sum_f32, TENSOR_REDUCTION_DTYPE_SUM);
    tensor_reduction_def bad = d;
    bad.name = NULL;
    assert_null(tensor_reduction_register(&bad));
    bad = d;
    bad.ninputs = 5;
    assert_null(tensor_reduction_register(&bad));
    assert_non_null(strstr(tensor_last_error(), "ninputs is 5"));
    bad = d;
    bad.acc_size = 0;
    assert_null(tensor_reduction_register(&bad));
    bad = d;
    bad.fns[TENSOR_REDUCTION_F32].combine = NULL;
    assert_null(tensor_reduction_register(&bad));
    assert_non_null(strstr(tensor_last_error(), "lacks combine"));
    bad = d;
    bad.fns[TENSOR_REDUCTION_F32] = (tensor_reduction_fns){0};
    assert_null(tensor_reduction_register(&bad));
    assert_non_null(strstr(tensor_last_error(), "no value type has callbacks"));
    bad = d;
    bad.dtype_rule = (tensor_reduction_dtype_rule)9;
    assert_null(tensor_reduction_register(&bad));

    tensor_reduction *r = tensor_reduction_register(&d);
    assert_non_null(r);
    assert_null(tensor_reduction_register(&d));
    assert_non_null(strstr(tensor_last_error(), "a reduction named 'test_reg' is already registered"));
    tensor_t *x = tensor_ones(1, (int64_t[]){4}, TENSOR_FLOAT32, tensor_cpu());
    const tensor_t *in[1] = {x};
    assert_null(tensor_reduce(NULL, in, 1, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_non_null(strstr(tensor_last_error(), "tensor_reduce: argument 'r' is NULL"));
    assert_null(tensor_reduce(r, NULL, 1, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_null(tensor_reduce(r, in, 1, (int[]){3}, 1, false, TENSOR_DTYPE_DEFAULT));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_INDEX);
    assert_null(tensor_reduce(r, in, 1, NULL, 0, false, (tensor_dtype)99));
    assert_int_equal(tensor_reduce_out(NULL, r, in, 1, NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT);
    /* released: every use is caught, the name is free again */
    assert_int_equal(tensor_reduction_release(r), TENSOR_OK);
    assert_null(tensor_reduce(r, in, 1, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_non_null(strstr(tensor_last_error(), "argument 'r' ('test_reg') has been released"));
    assert_int_equal(tensor_reduction_release(r), TENSOR_ERR_INVALID_ARGUMENT);
    assert_null(tensor_reduction_name(r));
    assert_null(tensor_reduction_find("test_reg"));
    assert_int_equal(tensor_reduction_release(NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_null(tensor_reduction_find(NULL));
    tensor_reduction *again = tensor_reduction_register(&d);
    assert_non_null(again);
    assert_true(again != r);
    tensor_t *s = tensor_reduce(again, in, 1, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_non_null(s);
    ew_expect(s, TENSOR_FLOAT32, (double[]){4}, 1);
    tensor_release(s);
    assert_int_equal(tensor_reduction_release(again), TENSOR_OK);
    tensor_release(x);
}

/* tensor_reduction_explain: the iterator's plan of the call tensor_reduce would make, the
 * snprintf contract, nothing run, and the same errors. */
static void test_explain(void **state) {
    (void)state;
    tensor_reduction_def d = def1("test_explain", sum_f32, TENSOR_REDUCTION_DTYPE_SUM);
    tensor_reduction *r = tensor_reduction_register(&d);
    assert_non_null(r);
    tensor_t *x = tensor_ones(2, (int64_t[]){6, 10}, TENSOR_FLOAT32, tensor_cpu());
    const tensor_t *in[1] = {x};
    int dim = 1;
    int64_t n = tensor_reduction_explain(r, in, 1, &dim, 1, false, TENSOR_DTYPE_DEFAULT, NULL, 0);
    assert_true(n > 0);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(tensor_reduction_explain(r, in, 1, &dim, 1, false, TENSOR_DTYPE_DEFAULT, buf, (size_t)n + 1), n);
    assert_int_equal((int64_t)strlen(buf), n);
    char small[8];
    assert_int_equal(tensor_reduction_explain(r, in, 1, &dim, 1, false, TENSOR_DTYPE_DEFAULT, small, sizeof small), n);
    assert_int_equal((int)strlen(small), 7);
    assert_non_null(strstr(buf, "tensor_reduction_explain: reduction iterator"));
    /* The same plan as the built-in sum's explain (the same iterator), after the first line's
     * function name. */
    char *sum_buf = malloc(4096);
    assert_non_null(sum_buf);
    assert_true(tensor_reduce_explain("sum", x, &dim, 1, false, TENSOR_DTYPE_DEFAULT, sum_buf, 4096) > 0);
    assert_non_null(strchr(buf, '\n'));
    assert_non_null(strstr(sum_buf, strchr(buf, '\n')));
    /* Errors as tensor_reduce's. */
    assert_int_equal(tensor_reduction_explain(NULL, in, 1, &dim, 1, false, TENSOR_DTYPE_DEFAULT, NULL, 0), -1);
    assert_non_null(strstr(tensor_last_error(), "tensor_reduction_explain: argument 'r' is NULL"));
    assert_int_equal(tensor_reduction_explain(r, in, 1, (int[]){2}, 1, false, TENSOR_DTYPE_DEFAULT, NULL, 0), -1);
    assert_int_equal(tensor_last_status(), TENSOR_ERR_INDEX);
    assert_int_equal(tensor_reduction_explain(r, in, 2, &dim, 1, false, TENSOR_DTYPE_DEFAULT, NULL, 0), -1);
    assert_int_equal(tensor_reduction_explain(r, in, 1, &dim, 1, false, TENSOR_DTYPE_DEFAULT, NULL, 5), -1);
    assert_int_equal(tensor_reduction_release(r), TENSOR_OK);
    assert_int_equal(tensor_reduction_explain(r, in, 1, &dim, 1, false, TENSOR_DTYPE_DEFAULT, NULL, 0), -1);
    assert_non_null(strstr(tensor_last_error(), "has been released"));
    free(buf);
    free(sum_buf);
    tensor_release(x);
}

static void test_vecdot(void **state) {
    (void)state;
    /* float32, broadcast b, negative dim */
    tensor_t *a = rand_cpu(2, (int64_t[]){33, 1000}, 21, TENSOR_FLOAT32);
    tensor_t *b = rand_cpu(1, (int64_t[]){1000}, 22, TENSOR_FLOAT32);
    tensor_t *got = tensor_vecdot(a, b, -1);
    if (got == NULL) fail_msg("%s", tensor_last_error());
    tensor_t *p = tensor_mul(a, b);
    tensor_t *want = tensor_sum_dims(p, (int[]){-1}, 1, false, TENSOR_DTYPE_DEFAULT);
    expect_close(got, want, 1e-5);
    assert_int_equal(tensor_ndim(got), 1);
    tensor_release(got);
    tensor_release(want);
    tensor_release(p);
    /* over dim 0 of a [33, 1000] with itself */
    got = tensor_vecdot(a, a, 0);
    p = tensor_mul(a, a);
    want = tensor_sum_dims(p, (int[]){0}, 1, false, TENSOR_DTYPE_DEFAULT);
    expect_close(got, want, 1e-5);
    tensor_release(got);
    tensor_release(want);
    tensor_release(p);
    /* float16: the product rounds to float16 first, as a * b would; the result is float16 */
    tensor_t *h = tensor_to_dtype(a, TENSOR_FLOAT16), *hb = tensor_to_dtype(b, TENSOR_FLOAT16);
    got = tensor_vecdot(h, hb, 1);
    p = tensor_mul(h, hb);
    want = tensor_sum_dims(p, (int[]){1}, 1, false, TENSOR_DTYPE_DEFAULT);
    assert_int_equal(tensor_get_dtype(got), TENSOR_FLOAT16);
    expect_close(got, want, 2e-3);
    tensor_release(got);
    tensor_release(want);
    tensor_release(p);
    tensor_release(h);
    tensor_release(hb);
    /* int32: products wrap to 32 bits, the sum is int64 */
    tensor_t *i = ew_tensor(TENSOR_INT32, 1, (int64_t[]){3}, (double[]){100000, 3, -2}, 3);
    got = tensor_vecdot(i, i, 0);
    ew_expect_i(got, TENSOR_INT64, (int64_t[]){(int64_t)(int32_t)(uint32_t)10000000000ULL + 13}, 1);
    tensor_release(got);
    /* errors */
    tensor_t *d = tensor_to_dtype(b, TENSOR_FLOAT64);
    assert_null(tensor_vecdot(b, d, 0));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_DTYPE);
    assert_null(tensor_vecdot(a, b, 2));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_INDEX);
    assert_null(tensor_vecdot(NULL, b, 0));
    /* bool and float8: refused, the message naming the function, the argument and the dtype */
    const tensor_dtype refused[] = {TENSOR_BOOL, TENSOR_FLOAT8_E4M3FN, TENSOR_FLOAT8_E5M2};
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        tensor_t *r = tensor_to_dtype(b, refused[k]);
        assert_non_null(r);
        assert_null(tensor_vecdot(r, r, 0));
        assert_int_equal(tensor_last_status(), TENSOR_ERR_DTYPE);
        assert_non_null(strstr(tensor_last_error(), "tensor_vecdot: argument 'a'"));
        assert_non_null(strstr(tensor_last_error(), tensor_dtype_name(refused[k])));
        tensor_release(r);
    }
    tensor_release(d);
    tensor_release(i);
    tensor_release(a);
    tensor_release(b);
}

/* The next of a fixed sequence of uniform values in [0, 1) (a 64-bit LCG's high bits). */
static double next_uniform(uint64_t *x) {
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*x >> 11) / 9007199254740992.0;
}

/* tensor_vecdot(a, b, dim) must give the int64 values want[0 .. n). */
static void expect_vecdot_i64(const tensor_t *a, const tensor_t *b, int dim, const int64_t *want, int64_t n,
                              const char *what) {
    tensor_t *got = tensor_vecdot(a, b, dim);
    if (got == NULL) fail_msg("%s: %s", what, tensor_last_error());
    ew_expect_i(got, TENSOR_INT64, want, n);
    tensor_release(got);
}

/* Integer vecdot: each product wraps to the inputs' width (as a * b would), the sum is int64,
 * on rows long enough for the fold's vector loops (and a tail), with extreme values. Three
 * layouts of the same values: dense rows (the inputs read as stored, in the fold), over dim 0
 * of the transposed copies (rows of outputs read as stored, fold_columns) and every other
 * column of a wider tensor (widened into buffers first), on 1 and 2 threads; and over dim 0
 * of the dense rows (2100 outputs: two blocks of fold_columns' 1024 and a piece). */
static void test_vecdot_integer_widths(void **state) {
    (void)state;
    const tensor_dtype dts[4] = {TENSOR_INT8, TENSOR_INT16, TENSOR_INT32, TENSOR_UINT8};
    const int rows = 3, cols = 2100;
    double *va = malloc(sizeof(double) * rows * cols * 2), *vb = malloc(sizeof(double) * rows * cols * 2);
    assert_true(va && vb);
    const int saved = tensor_get_num_threads();
    for (int k = 0; k < 4; k++) {
        const bool is_unsigned = dts[k] == TENSOR_UINT8;
        const int bits = k == 0 || is_unsigned ? 8 : k == 1 ? 16 : 32;
        const double lo = is_unsigned ? 0.0 : -ldexp(1.0, bits - 1);
        const double hi = is_unsigned ? 255.0 : ldexp(1.0, bits - 1) - 1;
        uint64_t x = 12345u + (uint64_t)k;
        for (int i = 0; i < rows * cols * 2; i++) {
            const double r = next_uniform(&x);
            va[i] = i % 97 == 0 ? hi : i % 89 == 0 ? lo : floor(lo + r * (hi - lo + 1));
            vb[i] = i % 83 == 0 ? lo : i % 79 == 0 ? hi : floor(lo + (1.0 - r) * (hi - lo + 1) * 0.999);
        }
        /* va, vb as [rows, 2 * cols]: the dense case takes the first `cols` of each row of a
         * [rows, cols] copy, the strided one every other column */
        double *da = malloc(sizeof(double) * rows * cols), *db = malloc(sizeof(double) * rows * cols);
        assert_true(da && db);
        int64_t want[3], *want_cols = calloc((size_t)cols, sizeof(int64_t));
        assert_non_null(want_cols);
        for (int r = 0; r < rows; r++) {
            uint64_t u = 0;
            for (int c = 0; c < cols; c++) {
                const double ea = va[r * 2 * cols + 2 * c], eb = vb[r * 2 * cols + 2 * c];
                da[r * cols + c] = ea;
                db[r * cols + c] = eb;
                const uint64_t p = (uint64_t)(int64_t)ea * (uint64_t)(int64_t)eb;
                const uint64_t m = p & ((1ull << bits) - 1);
                const bool neg = !is_unsigned && ((m >> (bits - 1)) & 1);
                const uint64_t w = neg ? m | ~((1ull << bits) - 1) : m;
                u += w;
                want_cols[c] = (int64_t)((uint64_t)want_cols[c] + w);
            }
            want[r] = (int64_t)u;
        }
        tensor_t *a = ew_tensor(dts[k], 2, (int64_t[]){rows, cols}, da, rows * cols);
        tensor_t *b = ew_tensor(dts[k], 2, (int64_t[]){rows, cols}, db, rows * cols);
        tensor_t *wa = ew_tensor(dts[k], 2, (int64_t[]){rows, 2 * cols}, va, rows * cols * 2);
        tensor_t *wb = ew_tensor(dts[k], 2, (int64_t[]){rows, 2 * cols}, vb, rows * cols * 2);
        assert_true(a && b && wa && wb);
        tensor_t *at = tensor_transpose(a, 0, 1), *bt = tensor_transpose(b, 0, 1);
        tensor_t *atc = tensor_contiguous(at), *btc = tensor_contiguous(bt);
        tensor_t *sa = tensor_slice(wa, 1, 0, 2 * cols, 2), *sb = tensor_slice(wb, 1, 0, 2 * cols, 2);
        assert_true(at && bt && atc && btc && sa && sb);
        for (int th = 1; th <= 2; th++) {
            tensor_set_num_threads(th);
            const char *name = tensor_dtype_name(dts[k]);
            expect_vecdot_i64(a, b, 1, want, rows, name);
            expect_vecdot_i64(atc, btc, 0, want, rows, name);
            expect_vecdot_i64(sa, sb, 1, want, rows, name);
            expect_vecdot_i64(a, b, 0, want_cols, cols, name);
        }
        free(want_cols);
        tensor_set_num_threads(saved);
        tensor_t *const ts[10] = {a, b, wa, wb, at, bt, atc, btc, sa, sb};
        for (int i = 0; i < 10; i++) tensor_release(ts[i]);
        free(da);
        free(db);
    }
    free(va);
    free(vb);
}

/* Integer vecdot over dim 0 of 70000 rows: 8- and 16-bit products are summed in 32-bit partials
 * a bounded number of rows at a time, then in 64 bits; products near the top of their range
 * make column sums past 2^31 (int16: 181 * 181 = 32761, times 70000). On 1 and 2 threads. */
static void test_vecdot_narrow_long_columns(void **state) {
    (void)state;
    const tensor_dtype dts[3] = {TENSOR_INT16, TENSOR_INT8, TENSOR_UINT8};
    const int64_t rows = 70000, cols = 3;
    double *v = malloc(sizeof(double) * (size_t)(rows * cols));
    assert_non_null(v);
    const int saved = tensor_get_num_threads();
    for (int k = 0; k < 3; k++) {
        /* per column: the top product, a wrapping one, a mix of signs */
        const double top = dts[k] == TENSOR_INT16 ? 181 : dts[k] == TENSOR_INT8 ? 11 : 15;
        const double wraps = dts[k] == TENSOR_INT16 ? 300 : dts[k] == TENSOR_INT8 ? 100 : 200;
        int64_t want[3] = {0, 0, 0};
        for (int64_t r = 0; r < rows; r++) {
            const double e[3] = {top, wraps, dts[k] == TENSOR_UINT8 ? (double)(r % 256) : (double)(r % 200) - 100};
            for (int c = 0; c < 3; c++) {
                v[r * cols + c] = e[c];
                const uint64_t p = (uint64_t)(int64_t)e[c] * (uint64_t)(int64_t)e[c];
                const int bits = dts[k] == TENSOR_INT16 ? 16 : 8;
                const uint64_t m = p & ((1ull << bits) - 1);
                const bool neg = dts[k] != TENSOR_UINT8 && ((m >> (bits - 1)) & 1);
                want[c] = (int64_t)((uint64_t)want[c] + (neg ? m | ~((1ull << bits) - 1) : m));
            }
        }
        tensor_t *a = ew_tensor(dts[k], 2, (int64_t[]){rows, cols}, v, rows * cols);
        assert_non_null(a);
        for (int th = 1; th <= 2; th++) {
            tensor_set_num_threads(th);
            expect_vecdot_i64(a, a, 0, want, cols, tensor_dtype_name(dts[k]));
        }
        tensor_release(a);
    }
    tensor_set_num_threads(saved);
    free(v);
}

/* float32 and float64 vecdot of rows of 64 to 8191 elements (one block of the kit, with and
 * without a tail of the lanes, and several blocks, the last of them under 64 elements or not)
 * against the same values over dim 0 of the
 * transposed copies (the kit's fold_columns, separate code from the rows' AVX2 blocks): the
 * same bits, on 1 and 2 threads. Values of mixed signs and magnitudes, so that the order of the
 * additions shows. */
static void test_vecdot_f32_block_bits(void **state) {
    (void)state;
    const int64_t lens[] = {64, 65, 95, 100, 127, 128, 200, 1000, 2047, 2048, 4100, 4160, 6000, 8191}, rows = 37;
    const int nlens = (int)(sizeof lens / sizeof lens[0]);
    const int saved = tensor_get_num_threads();
    for (int d = 0; d < 2; d++) {
        const tensor_dtype dt = d == 0 ? TENSOR_FLOAT32 : TENSOR_FLOAT64;
        for (int l = 0; l < nlens; l++) {
            const int64_t m = lens[l];
            tensor_t *fa = rand_cpu(2, (int64_t[]){rows, m}, 1500 + (uint64_t)l, dt);
            tensor_t *fb = rand_cpu(2, (int64_t[]){rows, m}, 1600 + (uint64_t)l, dt);
            assert_true(fa && fb);
            for (int64_t i = 0; i < rows * m; i++) {
                const double scale = i % 7 == 0 ? 1e4 : 1.0;
                if (d == 0) ((float *)tensor_data(fa))[i] = (((float *)tensor_data(fa))[i] - 0.5f) * (float)scale;
                else ((double *)tensor_data(fa))[i] = (((double *)tensor_data(fa))[i] - 0.5) * scale;
            }
            tensor_t *at = tensor_transpose(fa, 0, 1), *bt = tensor_transpose(fb, 0, 1);
            tensor_t *atc = tensor_contiguous(at), *btc = tensor_contiguous(bt);
            assert_true(at && bt && atc && btc);
            for (int th = 1; th <= 2; th++) {
                tensor_set_num_threads(th);
                tensor_t *r = tensor_vecdot(fa, fb, 1), *c = tensor_vecdot(atc, btc, 0);
                if (!r || !c) fail_msg("%s", tensor_last_error());
                char what[64];
                snprintf(what, sizeof what, "%s rows of %lld, %d threads", tensor_dtype_name(dt), (long long)m, th);
                expect_same_bits(c, r, what);
                tensor_release(r);
                tensor_release(c);
            }
            tensor_t *const ts[6] = {fa, fb, at, bt, atc, btc};
            for (int i = 0; i < 6; i++) tensor_release(ts[i]);
        }
    }
    tensor_set_num_threads(saved);
}

/* float32 rows beside a broadcast row (b of shape [m] against a's [rows, m], or a's [m] against
 * b's rows), of 2000 to 8191 elements (past two blocks of the kit the rows path prefetches the
 * streamed input): the bits of the same vecdot with the broadcast row written out as a full
 * input, on 1 and 2 threads. */
static void test_vecdot_broadcast_rows_bits(void **state) {
    (void)state;
    const int64_t lens[] = {2000, 4096, 4097, 6000, 8191}, rows = 23;
    const int saved = tensor_get_num_threads();
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
        const int64_t m = lens[l], sa[2] = {rows, m};
        tensor_t *a = rand_cpu(2, sa, 1700 + (uint64_t)l, TENSOR_FLOAT32);
        tensor_t *b = rand_cpu(1, &m, 1750 + (uint64_t)l, TENSOR_FLOAT32);
        assert_true(a && b);
        for (int64_t i = 0; i < rows * m; i++)
            ((float *)tensor_data(a))[i] = (((float *)tensor_data(a))[i] - 0.5f) * (i % 5 == 0 ? 1e4f : 1.0f);
        tensor_t *wide = tensor_expand(b, 2, sa), *dense = wide ? tensor_contiguous(wide) : NULL;
        assert_true(wide && dense);
        for (int th = 1; th <= 2; th++) {
            tensor_set_num_threads(th);
            for (int side = 0; side < 2; side++) {
                tensor_t *r = side == 0 ? tensor_vecdot(a, b, 1) : tensor_vecdot(b, a, 1);
                tensor_t *c = side == 0 ? tensor_vecdot(a, dense, 1) : tensor_vecdot(dense, a, 1);
                if (!r || !c) fail_msg("%s", tensor_last_error());
                char what[80];
                snprintf(what, sizeof what, "rows of %lld, broadcast %s, %d threads", (long long)m,
                         side == 0 ? "b" : "a", th);
                expect_same_bits(c, r, what);
                tensor_release(r);
                tensor_release(c);
            }
        }
        tensor_release(dense);
        tensor_release(wide);
        tensor_release(b);
        tensor_release(a);
    }
    tensor_set_num_threads(saved);
}

/* float16 vecdot on one thread: each product rounded to float16, then added in index order
 * into a float (as the portable loop does, whatever the CPU): the bits of a serial sum of the
 * float16 products a * b gives, rounded to float16 at the end; NaN products (inf * 0, a NaN
 * input) give NaN. Rows of 1500 (one block of the driver) include overflowing, subnormal and
 * special products. */
static void test_vecdot_f16_product_bits(void **state) {
    (void)state;
    const int saved = tensor_get_num_threads();
    tensor_set_num_threads(1);
    const int rows = 4, cols = 1500;
    double *va = malloc(sizeof(double) * rows * cols), *vb = malloc(sizeof(double) * rows * cols);
    assert_true(va && vb);
    uint64_t x = 777;
    for (int i = 0; i < rows * cols; i++) {
        const double r = next_uniform(&x);
        va[i] = (r - 0.5) * 8.0;
        vb[i] = (0.5 - r) * 3.0 + 0.001 * (double)(i % 7);
    }
    for (int c = 0; c < cols; c += 101) va[c] = 300.0, vb[c] = 250.0;         /* row 0: products past 65504 */
    for (int c = 3; c < cols; c += 53) va[cols + c] = 1e-4, vb[cols + c] = 3e-3; /* row 1: subnormal products */
    va[2 * cols + 17] = INFINITY, vb[2 * cols + 17] = 0.0;                     /* row 2: inf * 0 */
    va[3 * cols + 1499] = NAN;                                                  /* row 3: a NaN, in the tail */
    tensor_t *a = ew_tensor(TENSOR_FLOAT16, 2, (int64_t[]){rows, cols}, va, rows * cols);
    tensor_t *b = ew_tensor(TENSOR_FLOAT16, 2, (int64_t[]){rows, cols}, vb, rows * cols);
    tensor_t *got = tensor_vecdot(a, b, 1);
    if (got == NULL) fail_msg("%s", tensor_last_error());
    tensor_t *p = tensor_mul(a, b), *pf = p ? tensor_to_dtype(p, TENSOR_FLOAT32) : NULL;
    assert_non_null(pf);
    const float *pv = tensor_data(pf);
    double sums[4];
    for (int r = 0; r < rows; r++) {
        float s = 0.0f;
        for (int c = 0; c < cols; c++) s += pv[r * cols + c];
        sums[r] = s;
    }
    tensor_t *want = ew_tensor(TENSOR_FLOAT16, 1, (int64_t[]){rows}, sums, rows);
    const uint16_t *g = tensor_data(got), *w = tensor_data(want);
    for (int r = 0; r < rows; r++) {
        const bool gnan = (g[r] & 0x7FFF) > 0x7C00, wnan = (w[r] & 0x7FFF) > 0x7C00;
        if (gnan != wnan || (!gnan && g[r] != w[r])) fail_msg("row %d: 0x%04x, want 0x%04x", r, g[r], w[r]);
    }
    assert_true((g[2] & 0x7FFF) > 0x7C00 && (g[3] & 0x7FFF) > 0x7C00);
    tensor_t *all[6] = {a, b, got, p, pf, want};
    for (int i = 0; i < 6; i++) tensor_release(all[i]);
    free(va);
    free(vb);
    tensor_set_num_threads(saved);
}

/* vecdot with one input constant along the reduced dim (b of [R, N] x [R, 1], or a
 * one-element b, either order): from 64 columns on its value is converted once a row and the
 * rows are read in order, shorter rows take the staged columns; either way the bits equal
 * those of the same call with b written out dense, with 1 and 4 threads (float16 and bfloat16
 * round each product). */
static void test_vecdot_constant_along_row(void **state) {
    (void)state;
    const int saved = tensor_get_num_threads();
    const tensor_dtype dts[4] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT16, TENSOR_BFLOAT16};
    const int64_t cols[5] = {50, 64, 333, 3000, 8192};
    for (int k = 0; k < 4; k++) {
        for (int c = 0; c < 5; c++) {
            for (int form = 0; form < 3; form++) { /* b [R, 1] second, b [R, 1] first, b [1] */
                const int64_t rows = 37, sa[2] = {rows, cols[c]}, sb[2] = {form == 2 ? 1 : rows, 1};
                tensor_t *a = rand_cpu(2, sa, (uint64_t)(900 + 10 * k + c), dts[k]);
                tensor_t *b = rand_cpu(form == 2 ? 1 : 2, sb, (uint64_t)(950 + 10 * k + c), dts[k]);
                tensor_t *wide = tensor_expand(b, 2, sa), *dense = wide ? tensor_contiguous(wide) : NULL;
                assert_non_null(dense);
                tensor_t *res[2];
                for (int t = 0; t < 2; t++) {
                    tensor_set_num_threads(t == 0 ? 1 : 4);
                    res[t] = form == 1 ? tensor_vecdot(b, a, 1) : tensor_vecdot(a, b, -1);
                    if (res[t] == NULL) fail_msg("%s", tensor_last_error());
                }
                tensor_t *want = form == 1 ? tensor_vecdot(dense, a, 1) : tensor_vecdot(a, dense, 1);
                assert_non_null(want);
                char what[96];
                snprintf(what, sizeof what, "%s, %lld columns, form %d", tensor_dtype_name(dts[k]), (long long)cols[c], form);
                expect_same_bits(res[0], res[1], what);
                expect_same_bits(res[0], want, what);
                tensor_t *all[7] = {a, b, wide, dense, res[0], res[1], want};
                for (int i = 0; i < 7; i++) tensor_release(all[i]);
            }
        }
    }
    tensor_set_num_threads(saved);
}

/* float32 vecdot over short inner rows, many rows: rows of under 64 elements go eight at a
 * time through vecdot's fold_rows (AVX2) where the CPU has it, else groups of rows of up to 32
 * through fold_columns transposed; the rest (and longer rows) through fold. Every output must
 * have the bits of the same row reduced alone (a [1, m] view: one fold call), dense and strided
 * rows and a b of one row for all, 1 and 4 threads; some rows hold an infinity, a NaN, negative
 * zeros only, or a value that swamps the rest. */
static void test_vecdot_short_rows(void **state) {
    (void)state;
    const int saved = tensor_get_num_threads();
    const int64_t lens[8] = {1, 5, 8, 13, 31, 32, 33, 63}, rows = 1003;
    for (int l = 0; l < 8; l++) {
        for (int form = 0; form < 3; form++) { /* dense, strided rows, b one row for all */
            const int strided = form == 1;
            const int64_t m = lens[l], sa[2] = {rows, m + 3 * strided}, sb[2] = {form == 2 ? 1 : rows, m + 3 * strided};
            tensor_t *a0 = rand_cpu(2, sa, (uint64_t)(1200 + l), TENSOR_FLOAT32);
            tensor_t *b0 = rand_cpu(2, sb, (uint64_t)(1300 + l), TENSOR_FLOAT32);
            assert_true(a0 && b0);
            float *pa = tensor_data(a0);
            const int64_t w = sa[1];
            for (int64_t i = 0; i < rows * w; i++) pa[i] -= 0.5f; /* mixed signs */
            pa[9 * w + strided + m - 1] = INFINITY;              /* row 9: its last element */
            pa[17 * w + strided] = NAN;                           /* row 17: its first */
            for (int64_t i = 0; i < m; i++) pa[26 * w + strided + i] = -0.0f; /* row 26: -0 products */
            pa[30 * w + strided + m / 2] = 3e38f;                 /* row 30: swamps, then more adds */
            tensor_t *a = tensor_narrow(a0, 1, strided, m), *b = tensor_narrow(b0, 1, 0, m);
            assert_true(a && b);
            tensor_t *res[3] = {NULL, NULL, NULL};
            for (int t = 0; t < 3; t++) {
                tensor_set_num_threads(t == 1 ? 4 : 1);
                /* the third: no SIMD feature (detected again afterwards) */
                if (t == 2) atomic_store(&tt_cpu_feature_bits, TT_CPU_DETECTED);
                res[t] = tensor_vecdot(a, b, 1);
                if (t == 2) atomic_store(&tt_cpu_feature_bits, 0u);
                if (res[t] == NULL) fail_msg("%s", tensor_last_error());
            }
            char what[64];
            snprintf(what, sizeof what, "%lld-element rows, %s", (long long)m,
                     form == 1 ? "strided" : form == 2 ? "b broadcast" : "dense");
            expect_same_bits(res[0], res[1], what);
            expect_same_bits(res[0], res[2], what);
            const float *got = tensor_data(res[0]);
            for (int64_t r = 0; r < rows; r++) {
                tensor_t *ar = tensor_narrow(a, 0, r, 1), *br = tensor_narrow(b, 0, form == 2 ? 0 : r, 1);
                tensor_t *one = ar && br ? tensor_vecdot(ar, br, 1) : NULL;
                assert_non_null(one);
                const float want = *(const float *)tensor_data(one);
                if (memcmp(&got[r], &want, sizeof want) != 0)
                    fail_msg("%s: row %lld: %.9g, alone %.9g", what, (long long)r, got[r], want);
                tensor_release(one);
                tensor_release(ar);
                tensor_release(br);
            }
            tensor_t *all[7] = {a0, b0, a, b, res[0], res[1], res[2]};
            for (int i = 0; i < 7; i++) tensor_release(all[i]);
        }
    }
    tensor_set_num_threads(saved);
}

/* float64 and int64 vecdot over many rows: float64 rows of under 64 elements go four at a time
 * through vecdot's fold_rows (AVX2) where the CPU has it, int64 rows of any length through its
 * fold_rows (four running sums: integer sums wrap, so any order gives the same bits). A float64
 * output must equal the same row reduced alone (a [1, m] view: one fold call) bit for bit, an
 * int64 one the wrapped sum computed here; 1 and 4 threads, dense and strided rows; the int64
 * values are large enough that the products and sums wrap. */
static void test_vecdot_rows_f64_i64(void **state) {
    (void)state;
    const int saved = tensor_get_num_threads();
    const int64_t lens[9] = {1, 3, 4, 5, 13, 32, 63, 100, 2049}, rows = 203;
    const tensor_dtype dts[2] = {TENSOR_FLOAT64, TENSOR_INT64};
    uint64_t x = 4242;
    for (int d = 0; d < 2; d++) {
        for (int l = 0; l < 9; l++) {
            for (int strided = 0; strided < 2; strided++) {
                const int64_t m = lens[l], w = m + 3 * strided, sh[2] = {rows, w};
                tensor_t *a0 = tensor_empty(2, sh, dts[d], tensor_cpu()), *b0 = tensor_empty(2, sh, dts[d], tensor_cpu());
                assert_true(a0 && b0);
                for (int64_t i = 0; i < rows * w; i++) {
                    const double u = next_uniform(&x) - 0.5, v = next_uniform(&x) - 0.5;
                    if (dts[d] == TENSOR_FLOAT64) {
                        ((double *)tensor_data(a0))[i] = u * (i % 5 == 0 ? 1e6 : 1.0);
                        ((double *)tensor_data(b0))[i] = v;
                    } else {
                        ((int64_t *)tensor_data(a0))[i] = (int64_t)(u * 9.0e18);
                        ((int64_t *)tensor_data(b0))[i] = (int64_t)(v * 4.0e6) * 1000003;
                    }
                }
                tensor_t *a = tensor_narrow(a0, 1, strided, m), *b = tensor_narrow(b0, 1, 0, m);
                assert_true(a && b);
                tensor_t *res[2];
                for (int t = 0; t < 2; t++) {
                    tensor_set_num_threads(t == 0 ? 1 : 4);
                    res[t] = tensor_vecdot(a, b, 1);
                    if (res[t] == NULL) fail_msg("%s", tensor_last_error());
                }
                char what[64];
                snprintf(what, sizeof what, "%s rows of %lld%s", tensor_dtype_name(dts[d]), (long long)m,
                         strided ? ", strided" : "");
                expect_same_bits(res[0], res[1], what);
                for (int64_t r = 0; r < rows; r++) {
                    if (dts[d] == TENSOR_INT64) { /* the wrapped sum, computed here */
                        const int64_t *pa = (const int64_t *)tensor_data(a0) + r * w + strided,
                                      *pb = (const int64_t *)tensor_data(b0) + r * w;
                        uint64_t want = 0;
                        for (int64_t i = 0; i < m; i++) want += (uint64_t)pa[i] * (uint64_t)pb[i];
                        const int64_t got = ((const int64_t *)tensor_data(res[0]))[r];
                        if ((uint64_t)got != want) fail_msg("%s: row %lld: %lld, want %lld", what, (long long)r,
                                                             (long long)got, (long long)want);
                        continue;
                    }
                    tensor_t *ar = tensor_narrow(a, 0, r, 1), *br = tensor_narrow(b, 0, r, 1);
                    tensor_t *one = ar && br ? tensor_vecdot(ar, br, 1) : NULL;
                    assert_non_null(one);
                    if (memcmp((const char *)tensor_data(res[0]) + r * 8, tensor_data(one), 8) != 0)
                        fail_msg("%s: row %lld differs from the row alone", what, (long long)r);
                    tensor_release(one);
                    tensor_release(ar);
                    tensor_release(br);
                }
                tensor_t *all[6] = {a0, b0, a, b, res[0], res[1]};
                for (int i = 0; i < 6; i++) tensor_release(all[i]);
            }
        }
    }
    tensor_set_num_threads(saved);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_abs_sum_matches_norm1),
    cmocka_unit_test(test_integer_sum_and_rules),
    cmocka_unit_test(test_two_inputs_broadcast),
    cmocka_unit_test(test_staged_columns_wide_elements),
    cmocka_unit_test(test_struct_accumulator_and_threads),
    cmocka_unit_test(test_kit_paths_agree),
    cmocka_unit_test(test_kit_columns_agree),
    cmocka_unit_test(test_kit_columns_small_stack),
    cmocka_unit_test(test_kit_columns_struct_acc),
    cmocka_unit_test(test_kit_f16c_agrees),
    cmocka_unit_test(test_empty_gives_identity),
    cmocka_unit_test(test_registry_errors),
    cmocka_unit_test(test_explain),
    cmocka_unit_test(test_vecdot),
    cmocka_unit_test(test_vecdot_constant_along_row),
    cmocka_unit_test(test_vecdot_short_rows),
    cmocka_unit_test(test_vecdot_rows_f64_i64),
    cmocka_unit_test(test_vecdot_integer_widths),
    cmocka_unit_test(test_vecdot_narrow_long_columns),
    cmocka_unit_test(test_vecdot_f32_block_bits),
    cmocka_unit_test(test_vecdot_broadcast_rows_bits),
    cmocka_unit_test(test_vecdot_f16_product_bits),
    cmocka_unit_test(test_vecdot_rounded_columns),
};

TENSOR_TEST_GROUP(user_reduction, tests, NULL, NULL)
