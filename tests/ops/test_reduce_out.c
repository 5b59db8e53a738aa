/* The out= forms of the reductions (ops/reduce_out.c): each equals its plain form bit for bit,
 * resizes a wrong-shaped out, refuses a wrong dtype, a NULL out and a wrong-shaped out that
 * shares the input's storage, and may write into a view of its own input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "ew_test_util.h"

static const int DIM1[1] = {1};

/* One op: its plain form and its out form, over t [5, 7] reducing dim 1 (keepdim false). */
typedef struct {
    const char *name;
    tensor_t *(*plain)(const tensor_t *t);
    tensor_status (*out)(tensor_t *o, const tensor_t *t);
} op_case;

#define CASE_DIMS(NAME)                                                                            \
    static tensor_t *p_##NAME(const tensor_t *t) { return tensor_##NAME(t, DIM1, 1, false); }      \
    static tensor_status o_##NAME(tensor_t *o, const tensor_t *t) { return tensor_##NAME##_out(o, t, DIM1, 1, false); }
#define CASE_DTYPE(NAME)                                                                           \
    static tensor_t *p_##NAME(const tensor_t *t) { return tensor_##NAME(t, DIM1, 1, false, TENSOR_DTYPE_DEFAULT); } \
    static tensor_status o_##NAME(tensor_t *o, const tensor_t *t) {                                \
        return tensor_##NAME##_out(o, t, DIM1, 1, false, TENSOR_DTYPE_DEFAULT);                    \
    }
CASE_DIMS(amax)
CASE_DIMS(amin)
CASE_DIMS(logsumexp)
CASE_DIMS(all)
CASE_DIMS(any)
CASE_DIMS(sum_of_squares)
CASE_DTYPE(nansum)
CASE_DTYPE(mean)
CASE_DTYPE(nanmean)
static tensor_t *p_prod(const tensor_t *t) { return tensor_prod(t, DIM1, false, TENSOR_DTYPE_DEFAULT); }
static tensor_status o_prod(tensor_t *o, const tensor_t *t) { return tensor_prod_out(o, t, DIM1, false, TENSOR_DTYPE_DEFAULT); }
static tensor_t *p_argmax(const tensor_t *t) { return tensor_argmax(t, DIM1, false); }
static tensor_status o_argmax(tensor_t *o, const tensor_t *t) { return tensor_argmax_out(o, t, DIM1, false); }
static tensor_t *p_argmin(const tensor_t *t) { return tensor_argmin(t, DIM1, false); }
static tensor_status o_argmin(tensor_t *o, const tensor_t *t) { return tensor_argmin_out(o, t, DIM1, false); }
static tensor_t *p_var(const tensor_t *t) { return tensor_var(t, 1.0, DIM1, 1, false); }
static tensor_status o_var(tensor_t *o, const tensor_t *t) { return tensor_var_out(o, t, 1.0, DIM1, 1, false); }
static tensor_t *p_std(const tensor_t *t) { return tensor_std(t, 0.0, DIM1, 1, false); }
static tensor_status o_std(tensor_t *o, const tensor_t *t) { return tensor_std_out(o, t, 0.0, DIM1, 1, false); }
static tensor_t *p_norm(const tensor_t *t) { return tensor_norm(t, 3.0, DIM1, 1, false); }
static tensor_status o_norm(tensor_t *o, const tensor_t *t) { return tensor_norm_out(o, t, 3.0, DIM1, 1, false); }
static tensor_t *p_count(const tensor_t *t) { return tensor_count_nonzero(t, DIM1, 1); }
static tensor_status o_count(tensor_t *o, const tensor_t *t) { return tensor_count_nonzero_out(o, t, DIM1, 1); }

static const op_case cases[] = {
    {"amax", p_amax, o_amax},       {"amin", p_amin, o_amin},       {"logsumexp", p_logsumexp, o_logsumexp},
    {"all", p_all, o_all},          {"any", p_any, o_any},          {"sum_of_squares", p_sum_of_squares, o_sum_of_squares},
    {"nansum", p_nansum, o_nansum}, {"mean", p_mean, o_mean},       {"nanmean", p_nanmean, o_nanmean},
    {"prod", p_prod, o_prod},       {"argmax", p_argmax, o_argmax}, {"argmin", p_argmin, o_argmin},
    {"var", p_var, o_var},          {"std", p_std, o_std},          {"norm", p_norm, o_norm},
    {"count_nonzero", p_count, o_count},
};

static void test_every_out_form(void **state) {
    (void)state;
    tensor_t *t = tensor_rand(2, (int64_t[]){5, 7}, 3, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(t);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tensor_t *want = cases[k].plain(t);
        if (want == NULL) fail_msg("%s: %s", cases[k].name, tensor_last_error());
        const tensor_dtype dt = tensor_get_dtype(want);
        /* a wrong-shaped out of the right dtype: resized, then equal bit for bit */
        tensor_t *out = tensor_zeros(1, (int64_t[]){2}, dt, tensor_cpu());
        if (cases[k].out(out, t) != TENSOR_OK) fail_msg("%s_out: %s", cases[k].name, tensor_last_error());
        assert_int_equal(tensor_ndim(out), 1);
        assert_int_equal(tensor_size(out, 0), 5);
        assert_memory_equal(tensor_data(out), tensor_data(want), (size_t)5 * tensor_dtype_size(dt));
        /* the wrong dtype: refused, out untouched */
        const tensor_dtype other = dt == TENSOR_FLOAT64 ? TENSOR_FLOAT32 : TENSOR_FLOAT64;
        tensor_t *bad = tensor_full(1, (int64_t[]){5}, 7.0, other, tensor_cpu());
        tensor_status st = cases[k].out(bad, t);
        if (strcmp(cases[k].name, "nansum") && strcmp(cases[k].name, "mean") && strcmp(cases[k].name, "nanmean") &&
            strcmp(cases[k].name, "prod")) {
            assert_int_equal(st, TENSOR_ERR_DTYPE);
            assert_non_null(strstr(tensor_last_error(), "_out: argument 'out' has dtype"));
            ew_expect(bad, other, (double[]){7, 7, 7, 7, 7}, 5);
        } else {
            assert_int_equal(st, TENSOR_OK); /* dtype= DEFAULT means out's dtype: a float64 result */
        }
        assert_int_equal(cases[k].out(NULL, t), TENSOR_ERR_INVALID_ARGUMENT);
        assert_int_equal(cases[k].out(out, NULL), TENSOR_ERR_INVALID_ARGUMENT);
        tensor_release(bad);
        tensor_release(out);
        tensor_release(want);
    }
    tensor_release(t);
}

static void test_max_min_with_indices(void **state) {
    (void)state;
    tensor_t *t = ew_tensor(TENSOR_FLOAT32, 2, (int64_t[]){2, 3}, (double[]){1, 5, 5, -2, 0, -2}, 6);
    tensor_t *v = tensor_zeros(1, (int64_t[]){1}, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *i = tensor_zeros(1, (int64_t[]){1}, TENSOR_INT64, tensor_cpu());
    assert_int_equal(tensor_max_dim_out(v, i, t, 1, false), TENSOR_OK);
    ew_expect(v, TENSOR_FLOAT32, (double[]){5, 0}, 2);
    ew_expect_i(i, TENSOR_INT64, (int64_t[]){1, 1}, 2);
    assert_int_equal(tensor_min_dim_out(v, i, t, -1, false), TENSOR_OK);
    ew_expect(v, TENSOR_FLOAT32, (double[]){1, -2}, 2);
    ew_expect_i(i, TENSOR_INT64, (int64_t[]){0, 0}, 2);
    assert_int_equal(tensor_max_dim_out(i, i, t, 1, false), TENSOR_ERR_DTYPE); /* values of the wrong dtype */
    assert_int_equal(tensor_max_dim_out(v, NULL, t, 1, false), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_max_dim_out(v, i, t, 5, false), TENSOR_ERR_INDEX);
    tensor_release(v);
    tensor_release(i);
    tensor_release(t);
}

static void test_aliasing_and_storage(void **state) {
    (void)state;
    tensor_t *t = ew_tensor(TENSOR_FLOAT32, 2, (int64_t[]){2, 3}, (double[]){1, 5, 2, 7, 0, 3}, 6);
    /* into a column of the input itself: computed first, then written */
    tensor_t *col = tensor_narrow(t, 1, 0, 1);
    assert_int_equal(tensor_amax_out(col, t, DIM1, 1, true), TENSOR_OK);
    ew_expect(t, TENSOR_FLOAT32, (double[]){5, 5, 2, 7, 0, 3}, 6);
    /* a wrong-shaped out that shares the input's storage cannot be resized */
    tensor_t *row = tensor_narrow(t, 0, 0, 1);
    assert_int_equal(tensor_amax_out(row, t, DIM1, 1, false), TENSOR_ERR_SHAPE);
    tensor_release(row);
    tensor_release(col);
    tensor_release(t);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_out_form),
    cmocka_unit_test(test_max_min_with_indices),
    cmocka_unit_test(test_aliasing_and_storage),
};

TENSOR_TEST_GROUP(reduce_out, tests, NULL, NULL)
