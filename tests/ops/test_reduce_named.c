/* tensor_reduce_named / tensor_reduce_named_out: every one-output row of the reduction table by
 * name gives, bit for bit, what the function of that name gives (values, dtype, shape, and
 * for the dtype-taking ops the requested dtype), on every dtype, over one dim, a dims list and
 * every dim; and each bad argument is an error naming the function and the argument. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "reduce_test_util.h"

typedef tensor_t *(*direct_fn)(const tensor_t *t, const int *dims, int ndims, bool keepdim, tensor_dtype dtype);

static tensor_t *d_sum(const tensor_t *t, const int *d, int n, bool k, tensor_dtype dt) { return tensor_sum_dims(t, d, n, k, dt); }
static tensor_t *d_nansum(const tensor_t *t, const int *d, int n, bool k, tensor_dtype dt) { return tensor_nansum(t, d, n, k, dt); }
static tensor_t *d_mean(const tensor_t *t, const int *d, int n, bool k, tensor_dtype dt) { return tensor_mean(t, d, n, k, dt); }
static tensor_t *d_nanmean(const tensor_t *t, const int *d, int n, bool k, tensor_dtype dt) { return tensor_nanmean(t, d, n, k, dt); }
static tensor_t *d_prod(const tensor_t *t, const int *d, int n, bool k, tensor_dtype dt) { return tensor_prod(t, n ? d : NULL, k, dt); }
static tensor_t *d_amax(const tensor_t *t, const int *d, int n, bool k, tensor_dtype dt) { return (void)dt, tensor_amax(t, d, n, k); }
static tensor_t *d_amin(const tensor_t *t, const int *d, int n, bool k, tensor_dtype dt) { return (void)dt, tensor_amin(t, d, n, k); }
static tensor_t *d_argmax(const tensor_t *t, const int *d, int n, bool k, tensor_dtype dt) { return (void)dt, tensor_argmax(t, n ? d : NULL, k); }
static tensor_t *d_argmin(const tensor_t *t, const int *d, int n, bool k, tensor_dtype dt) { return (void)dt, tensor_argmin(t, n ? d : NULL, k); }
static tensor_t *d_norm(const tensor_t *t, const int *d, int n, bool k, tensor_dtype dt) { return (void)dt, tensor_norm(t, 2.0, d, n, k); }
static tensor_t *d_lse(const tensor_t *t, const int *d, int n, bool k, tensor_dtype dt) { return (void)dt, tensor_logsumexp(t, d, n, k); }
static tensor_t *d_cnz(const tensor_t *t, const int *d, int n, bool k, tensor_dtype dt) { return (void)dt, (void)k, tensor_count_nonzero(t, d, n); }
static tensor_t *d_all(const tensor_t *t, const int *d, int n, bool k, tensor_dtype dt) { return (void)dt, tensor_all(t, d, n, k); }
static tensor_t *d_any(const tensor_t *t, const int *d, int n, bool k, tensor_dtype dt) { return (void)dt, tensor_any(t, d, n, k); }
static tensor_t *d_sumsq(const tensor_t *t, const int *d, int n, bool k, tensor_dtype dt) { return (void)dt, tensor_sum_of_squares(t, d, n, k); }

static const struct {
    const char *name;
    direct_fn fn;
    bool takes_dtype, one_dim, no_keepdim;
} ops[] = {
    {"sum", d_sum, true, false, false},         {"nansum", d_nansum, true, false, false},
    {"mean", d_mean, true, false, false},       {"nanmean", d_nanmean, true, false, false},
    {"prod", d_prod, true, true, false},        {"amax", d_amax, false, false, false},
    {"amin", d_amin, false, false, false},      {"argmax", d_argmax, false, true, false},
    {"argmin", d_argmin, false, true, false},   {"norm", d_norm, false, false, false},
    {"logsumexp", d_lse, false, false, false},  {"count_nonzero", d_cnz, false, false, true},
    {"all", d_all, false, false, false},        {"any", d_any, false, false, false},
    {"sum_of_squares", d_sumsq, false, false, false},
};

/* Same status; on success the same dtype, shape and bytes. */
static void same(tensor_t *a, tensor_t *b, const char *what) {
    if ((a == NULL) != (b == NULL))
        fail_msg("%s: named %s, direct %s (%s)", what, a ? "succeeded" : "failed", b ? "succeeded" : "failed",
                 tensor_last_error());
    if (a == NULL) return;
    assert_int_equal(tensor_get_dtype(a), tensor_get_dtype(b));
    assert_int_equal(tensor_ndim(a), tensor_ndim(b));
    for (int d = 0; d < tensor_ndim(a); d++) assert_int_equal(tensor_size(a, d), tensor_size(b, d));
    void *x = rt_read_raw(a), *y = rt_read_raw(b);
    if (memcmp(x, y, (size_t)tensor_numel(a) * tensor_dtype_size(tensor_get_dtype(a))) != 0)
        fail_msg("%s: the values differ", what);
    free(x);
    free(y);
    tensor_release(a);
    tensor_release(b);
}

static void test_named_matches_functions(void **state) {
    (void)state;
    const int64_t sizes[3] = {4, 5, 6};
    const int one[1] = {1}, two[2] = {0, 2}, neg[1] = {-1};
    struct {
        const int *dims;
        int n;
    } dimsets[] = {{one, 1}, {two, 2}, {neg, 1}, {NULL, 0}};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int di = 0; di < RT_NELEM(rt_dtypes); di++)
            for (rt_kind kind = RT_SMALL; kind <= RT_SPECIAL; kind++) {
                tensor_t *t = rt_make_contig(3, sizes, rt_dtypes[di], kind, 11 + o * 7 + (uint64_t)di);
                for (size_t s = 0; s < sizeof dimsets / sizeof dimsets[0]; s++) {
                    if (ops[o].one_dim && dimsets[s].n > 1) continue;
                    for (int keep = 0; keep < 2; keep++) {
                        if (ops[o].no_keepdim && keep) continue;
                        char what[128];
                        snprintf(what, sizeof what, "%s of %s (%s), %d dims, keepdim %d", ops[o].name,
                                 tensor_dtype_name(rt_dtypes[di]), rt_kind_names[kind], dimsets[s].n, keep);
                        same(tensor_reduce_named(ops[o].name, t, dimsets[s].dims, dimsets[s].n, keep,
                                                 TENSOR_DTYPE_DEFAULT),
                             ops[o].fn(t, dimsets[s].dims, dimsets[s].n, keep, TENSOR_DTYPE_DEFAULT), what);
                        if (ops[o].takes_dtype) {
                            strncat(what, ", dtype float64", sizeof what - strlen(what) - 1);
                            same(tensor_reduce_named(ops[o].name, t, dimsets[s].dims, dimsets[s].n, keep,
                                                     TENSOR_FLOAT64),
                                 ops[o].fn(t, dimsets[s].dims, dimsets[s].n, keep, TENSOR_FLOAT64), what);
                        }
                    }
                }
                tensor_release(t);
            }
}

static void test_named_out(void **state) {
    (void)state;
    tensor_t *t = RT_VEC(TENSOR_INT32, 1, 2, 3, 4);
    /* sum takes out's dtype; a wrong-shaped out is resized */
    tensor_t *out = tensor_zeros(1, RT_I64(3), TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_reduce_named_out(out, "sum", t, NULL, 0, false), TENSOR_OK);
    assert_int_equal(tensor_ndim(out), 0);
    assert_true(rt_item(out) == 10.0);
    tensor_release(out);
    /* sum_of_squares (no dtype argument): out must be int64 for an int32 input */
    out = tensor_zeros(0, NULL, TENSOR_INT64, tensor_cpu());
    assert_int_equal(tensor_reduce_named_out(out, "sum_of_squares", t, NULL, 0, false), TENSOR_OK);
    assert_int_equal(rt_item_i64(out), 30);
    tensor_release(out);
    out = tensor_zeros(0, NULL, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_reduce_named_out(out, "amax", t, NULL, 0, false), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "tensor_reduce_named_out: argument 'out' has dtype float32, expected int32");
    assert_true(rt_item(out) == 0.0); /* unchanged */
    assert_int_equal(tensor_reduce_named_out(NULL, "sum", t, NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_reduce_named_out: argument 'out' is NULL");
    assert_int_equal(tensor_reduce_named_out(out, "nope", t, NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_reduce_named_out: argument 'op' names no reduction: 'nope'");
    tensor_release(out);
    tensor_release(t);
}

static void test_named_errors(void **state) {
    (void)state;
    tensor_t *t = tensor_ones(2, RT_I64(2, 3), TENSOR_FLOAT32, tensor_cpu());
    const int dims2[2] = {0, 1};
    assert_null(tensor_reduce_named(NULL, t, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_reduce_named: argument 'op' is NULL");
    assert_null(tensor_reduce_named("sum", NULL, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_reduce_named: argument 't' is NULL");
    assert_null(tensor_reduce_named("summ", t, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "names no reduction: 'summ'");
    assert_null(tensor_reduce_named("var_mean", t, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "'var_mean' has 2 outputs");
    assert_null(tensor_reduce_named("max", t, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "'max' has 2 outputs");
    assert_null(tensor_reduce_named("argmax", t, dims2, 2, false, TENSOR_DTYPE_DEFAULT));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "'argmax' reduces one dim or all, not 2 dims");
    assert_null(tensor_reduce_named("sum", t, NULL, 2, false, TENSOR_DTYPE_DEFAULT));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_reduce_named: argument 'ndims' is 2 with dims NULL");
    assert_null(tensor_reduce_named("sum", t, dims2, -1, false, TENSOR_DTYPE_DEFAULT));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "argument 'ndims' is -1");
    assert_null(tensor_reduce_named("sum", t, NULL, 0, false, (tensor_dtype)99));
    assert_error(TENSOR_ERR_DTYPE, "tensor_reduce_named: unknown dtype 99");
    assert_null(tensor_reduce_named("amax", t, NULL, 0, false, TENSOR_FLOAT64));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_reduce_named: 'amax' takes no dtype");
    const int bad[1] = {5};
    assert_null(tensor_reduce_named("sum_of_squares", t, bad, 1, false, TENSOR_DTYPE_DEFAULT));
    assert_error(TENSOR_ERR_INDEX, "tensor_reduce_named");
    tensor_t *e = tensor_zeros(1, RT_I64(0), TENSOR_FLOAT32, tensor_cpu());
    assert_null(tensor_reduce_named("amax", e, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "amax(): Expected reduction dim to be specified");
    tensor_release(e);
    tensor_release(t);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_named_matches_functions),
    cmocka_unit_test(test_named_out),
    cmocka_unit_test(test_named_errors),
};

TENSOR_TEST_GROUP(reduce_named, tests, NULL, NULL)
