/* The named rules and examples of PyTorch (torch 2.11), one test per rule: output
 * dtypes and the dtype= argument, empty reductions, dim arguments, keepdim
 *, NaN/inf/ties, integer overflow and var/std corrections. */
#include "reduce_test_util.h"

static const int64_t INT64_TOP = INT64_MAX;

/* ================= output dtypes and dtype= ================= */

static void test_float8_sum_gives_float32(void **state) {
    (void)state;
    tensor_dtype f8[] = {TENSOR_FLOAT8_E4M3FN, TENSOR_FLOAT8_E5M2};
    for (int i = 0; i < 2; i++) {
        tensor_t *x = rt_tensor(2, RT_I64(2, 3), f8[i], (const double[]){1, 2, 3.5, -0.5, 4, 8});
        tensor_t *s = tensor_sum_dims(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        assert_non_null(s);
        assert_int_equal(tensor_get_dtype(s), TENSOR_FLOAT32);
        assert_true(rt_item(s) == 18.0);
        tensor_release(s);
        s = tensor_sum(x, 1, false);
        assert_non_null(s);
        assert_int_equal(tensor_get_dtype(s), TENSOR_FLOAT32);
        double *v = rt_read_f64(s);
        assert_true(v[0] == 6.5 && v[1] == 11.5);
        free(v);
        tensor_release(s);
        s = tensor_nansum(x, RT_INTS(0), 1, true, TENSOR_DTYPE_DEFAULT);
        assert_non_null(s);
        assert_int_equal(tensor_get_dtype(s), TENSOR_FLOAT32);
        RT_ASSERT_SHAPE(s, 1, 3);
        v = rt_read_f64(s);
        assert_true(v[0] == 0.5 && v[1] == 6 && v[2] == 11.5);
        free(v);
        tensor_release(s);
        tensor_release(x);
    }
}

static void test_any_all_uint8_stays_uint8(void **state) {
    (void)state;
    tensor_t *x = rt_tensor(2, RT_I64(2, 2), TENSOR_UINT8, (const double[]){0, 3, 5, 7});
    tensor_t *a = tensor_all(x, RT_INTS(1), 1, false);
    tensor_t *b = tensor_any(x, RT_INTS(1), 1, false);
    tensor_t *c = tensor_all(x, NULL, 0, false);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    assert_int_equal(tensor_get_dtype(a), TENSOR_UINT8);
    assert_int_equal(tensor_get_dtype(b), TENSOR_UINT8);
    assert_int_equal(tensor_get_dtype(c), TENSOR_UINT8);
    int64_t *va = rt_read_i64(a), *vb = rt_read_i64(b);
    assert_true(va[0] == 0 && va[1] == 1);
    assert_true(vb[0] == 1 && vb[1] == 1);
    assert_int_equal(rt_item_i64(c), 0);
    free(va);
    free(vb);
    tensor_release(a);
    tensor_release(b);
    tensor_release(c);
    tensor_release(x);
    /* every other dtype gives bool */
    tensor_dtype others[] = {TENSOR_BOOL, TENSOR_INT8, TENSOR_INT16, TENSOR_INT32, TENSOR_INT64,
                             TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_FLOAT32, TENSOR_FLOAT64};
    for (int i = 0; i < RT_NELEM(others); i++) {
        x = rt_tensor(1, RT_I64(3), others[i], (const double[]){1, 0, 1});
        a = tensor_all(x, NULL, 0, false);
        b = tensor_any(x, NULL, 0, false);
        assert_non_null(a);
        assert_non_null(b);
        assert_int_equal(tensor_get_dtype(a), TENSOR_BOOL);
        assert_int_equal(tensor_get_dtype(b), TENSOR_BOOL);
        assert_int_equal(rt_item_i64(a), 0);
        assert_int_equal(rt_item_i64(b), 1);
        tensor_release(a);
        tensor_release(b);
        tensor_release(x);
    }
}

static void test_logsumexp_of_ints_is_float32(void **state) {
    (void)state;
    tensor_dtype ints[] = {TENSOR_BOOL, TENSOR_UINT8, TENSOR_INT8, TENSOR_INT16, TENSOR_INT32, TENSOR_INT64};
    for (int i = 0; i < RT_NELEM(ints); i++) {
        tensor_t *x = rt_tensor(1, RT_I64(3), ints[i], (const double[]){1, 0, 1});
        tensor_t *r = tensor_logsumexp(x, RT_INTS(0), 1, false);
        assert_non_null(r);
        assert_int_equal(tensor_get_dtype(r), TENSOR_FLOAT32);
        double want = log(2 * exp(1.0) + 1);
        assert_true(fabs(rt_item(r) - want) < 1e-6);
        tensor_release(r);
        tensor_release(x);
    }
}

static void test_count_nonzero_argmax_int64(void **state) {
    (void)state;
    for (int i = 0; i < RT_NELEM(rt_dtypes); i++) {
        tensor_t *x = rt_tensor(2, RT_I64(2, 2), rt_dtypes[i], (const double[]){0, 1, 1, 1});
        tensor_t *c = tensor_count_nonzero(x, NULL, 0);
        assert_non_null(c);
        assert_int_equal(tensor_get_dtype(c), TENSOR_INT64);
        assert_int_equal(rt_item_i64(c), 3);
        tensor_release(c);
        tensor_t *v = NULL, *ix = NULL;
        assert_int_equal(tensor_max_dim(x, 1, false, &v, &ix), TENSOR_OK);
        assert_int_equal(tensor_get_dtype(v), rt_dtypes[i]);
        assert_int_equal(tensor_get_dtype(ix), TENSOR_INT64);
        tensor_release(v);
        tensor_release(ix);
        tensor_release(x);
    }
}

static void test_sum_dtype_casts_first(void **state) {
    (void)state;
    /* sum([1.5, 2.5, -1.7] f32, dtype=int32) == 2 (int32) */
    tensor_t *x = RT_VEC(TENSOR_FLOAT32, 1.5, 2.5, -1.7);
    tensor_t *s = tensor_sum_dims(x, NULL, 0, false, TENSOR_INT32);
    assert_non_null(s);
    assert_int_equal(tensor_get_dtype(s), TENSOR_INT32);
    assert_int_equal(rt_item_i64(s), 2);
    tensor_release(s);
    tensor_release(x);
    /* truncation happens before the sum: [1.5, 2.5] gives 1 + 2 = 3, not trunc(4.0) */
    x = RT_VEC(TENSOR_FLOAT32, 1.5, 2.5);
    s = tensor_sum_dims(x, NULL, 0, false, TENSOR_INT32);
    assert_int_equal(rt_item_i64(s), 3);
    tensor_release(s);
    s = tensor_sum_dims(x, NULL, 0, false, TENSOR_INT64);
    assert_int_equal(tensor_get_dtype(s), TENSOR_INT64);
    assert_int_equal(rt_item_i64(s), 3);
    tensor_release(s);
    tensor_release(x);
    /* sum(int8 [100, 100], dtype=int8) == -56 */
    x = RT_VEC(TENSOR_INT8, 100, 100);
    s = tensor_sum_dims(x, NULL, 0, false, TENSOR_INT8);
    assert_int_equal(tensor_get_dtype(s), TENSOR_INT8);
    assert_int_equal(rt_item_i64(s), -56);
    tensor_release(s);
    /* the default widens: 200 */
    s = tensor_sum_dims(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_int_equal(tensor_get_dtype(s), TENSOR_INT64);
    assert_int_equal(rt_item_i64(s), 200);
    tensor_release(s);
    tensor_release(x);
    /* sum(bool, dtype=bool) is allowed */
    x = RT_VEC(TENSOR_BOOL, 1, 0, 1);
    s = tensor_sum_dims(x, NULL, 0, false, TENSOR_BOOL);
    assert_non_null(s);
    assert_int_equal(tensor_get_dtype(s), TENSOR_BOOL);
    assert_int_equal(rt_item_i64(s), 1);
    tensor_release(s);
    tensor_release(x);
    /* sum(int32, dtype=float16) gives float16 */
    x = RT_VEC(TENSOR_INT32, 1000, 1000, 49);
    s = tensor_sum_dims(x, NULL, 0, false, TENSOR_FLOAT16);
    assert_int_equal(tensor_get_dtype(s), TENSOR_FLOAT16);
    assert_true(rt_item(s) == 2048); /* 2049 is a float16 tie: round to nearest even */
    tensor_release(s);
    tensor_release(x);
    /* f32 -> dtype=float16: each element is rounded to float16 first. 1.0004 rounds to 1.0, so
     * 2000 of them sum to exactly 2000 (summing the unrounded values would give 2000.8 -> 2001). */
    tensor_t *ones = tensor_full(1, RT_I64(2000), 1.0004, TENSOR_FLOAT32, tensor_cpu());
    s = tensor_sum_dims(ones, NULL, 0, false, TENSOR_FLOAT16);
    assert_int_equal(tensor_get_dtype(s), TENSOR_FLOAT16);
    assert_true(rt_item(s) == 2000.0);
    tensor_release(s);
    tensor_release(ones);
    /* nansum and prod take dtype too */
    x = RT_VEC(TENSOR_INT8, 100, 100);
    s = tensor_prod(x, NULL, false, TENSOR_DTYPE_DEFAULT);
    assert_int_equal(tensor_get_dtype(s), TENSOR_INT64);
    assert_int_equal(rt_item_i64(s), 10000);
    tensor_release(s);
    s = tensor_prod(x, NULL, false, TENSOR_INT8);
    assert_int_equal(tensor_get_dtype(s), TENSOR_INT8);
    assert_int_equal(rt_item_i64(s), 16); /* 10000 mod 256 */
    tensor_release(s);
    s = tensor_nansum(x, NULL, 0, false, TENSOR_INT8);
    assert_int_equal(tensor_get_dtype(s), TENSOR_INT8);
    assert_int_equal(rt_item_i64(s), -56);
    tensor_release(s);
    s = tensor_nansum(x, NULL, 0, false, TENSOR_FLOAT64);
    assert_int_equal(tensor_get_dtype(s), TENSOR_FLOAT64);
    assert_true(rt_item(s) == 200.0);
    tensor_release(s);
    tensor_release(x);
}

/* dtype= through every layout: the cast happens per element before the (wrapping) sum. */
static void test_dtype_arg_layouts(void **state) {
    (void)state;
    struct {
        tensor_dtype in, out;
        rt_kind kind;
    } cases[] = {
        {TENSOR_UINT8, TENSOR_UINT8, RT_WIDE},    {TENSOR_INT8, TENSOR_INT8, RT_WIDE},
        {TENSOR_INT32, TENSOR_INT16, RT_WIDE},    {TENSOR_INT16, TENSOR_INT32, RT_WIDE},
        {TENSOR_FLOAT32, TENSOR_FLOAT64, RT_SMALL}, {TENSOR_FLOAT64, TENSOR_FLOAT32, RT_SMALL},
        {TENSOR_INT32, TENSOR_FLOAT16, RT_SMALL}, {TENSOR_FLOAT16, TENSOR_FLOAT32, RT_SMALL},
        {TENSOR_FLOAT32, TENSOR_INT32, RT_WIDE},  {TENSOR_BOOL, TENSOR_FLOAT32, RT_SMALL},
    };
    static const rt_layout layouts[] = {RT_CONTIG, RT_TRANSPOSED, RT_SLICED, RT_EXPANDED, RT_EXPANDED_INNER};
    for (int ci = 0; ci < RT_NELEM(cases); ci++) {
        for (int li = 0; li < RT_NELEM(layouts); li++) {
            tensor_t *x = rt_make(layouts[li], 2, RT_I64(6, 37), cases[ci].in, cases[ci].kind, 100 + (uint64_t)ci);
            /* the reference: cast each element to the out dtype, then sum (wrapping for ints) */
            tensor_t *xc = tensor_to_dtype(x, cases[ci].out);
            assert_non_null(xc);
            bool out_int = rt_is_intlike(cases[ci].out);
            int64_t *vi = out_int ? rt_read_i64(xc) : NULL;
            double *vd = out_int ? NULL : rt_read_f64(xc);
            for (int dim = 0; dim < 2; dim++) {
                tensor_t *s = tensor_sum_dims(x, &dim, 1, false, cases[ci].out);
                assert_non_null(s);
                assert_int_equal(tensor_get_dtype(s), cases[ci].out);
                int64_t n_out = dim == 0 ? 37 : 6, n_red = dim == 0 ? 6 : 37;
                int64_t *gi = out_int ? rt_read_i64(s) : NULL;
                double *gd = out_int ? NULL : rt_read_f64(s);
                for (int64_t o = 0; o < n_out; o++) {
                    uint64_t si = 0;
                    long double sd = 0;
                    for (int64_t k = 0; k < n_red; k++) {
                        int64_t idx = dim == 0 ? k * 37 + o : o * 37 + k;
                        if (out_int) si += (uint64_t)vi[idx];
                        else sd += vd[idx];
                    }
                    if (out_int) {
                        unsigned char buf[8];
                        tensor_dtype_store_int64(cases[ci].out, buf, (int64_t)si); /* wrap to the dtype */
                        int64_t want = tensor_dtype_load_int64(cases[ci].out, buf);
                        if (gi[o] != want)
                            fail_msg("sum(%s, dtype=%s) %s dim %d out[%lld] = %lld, want %lld",
                                     tensor_dtype_name(cases[ci].in), tensor_dtype_name(cases[ci].out),
                                     rt_layout_names[layouts[li]], dim, (long long)o, (long long)gi[o], (long long)want);
                    } else if (gd[o] != rt_round_to(cases[ci].out, (double)sd)) {
                        fail_msg("sum(%s, dtype=%s) %s dim %d out[%lld] = %.9g, want %.9g", tensor_dtype_name(cases[ci].in),
                                 tensor_dtype_name(cases[ci].out), rt_layout_names[layouts[li]], dim, (long long)o, gd[o],
                                 rt_round_to(cases[ci].out, (double)sd));
                    }
                }
                free(gi);
                free(gd);
                tensor_release(s);
            }
            free(vi);
            free(vd);
            tensor_release(xc);
            tensor_release(x);
        }
    }
}

static void test_mean_dtype_rules(void **state) {
    (void)state;
    tensor_t *xi = RT_VEC(TENSOR_INT64, 1, 2, 4);
    RT_EXPECT_ERROR(tensor_mean(xi, NULL, 0, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_DTYPE,
                    "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: ");
    assert_error(TENSOR_ERR_DTYPE, "tensor_mean");
    /* mean(int64, dtype=float32) works: cast first */
    tensor_t *m = tensor_mean(xi, NULL, 0, false, TENSOR_FLOAT32);
    assert_non_null(m);
    assert_int_equal(tensor_get_dtype(m), TENSOR_FLOAT32);
    assert_true(rt_item(m) == (double)(7.0f / 3.0f));
    tensor_release(m);
    RT_EXPECT_ERROR(tensor_nanmean(xi, NULL, 0, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_DTYPE,
                    "nanmean(): expected input to have floating point or complex dtype but got int64");
    tensor_t *xb = RT_VEC(TENSOR_BOOL, 1, 0);
    RT_EXPECT_ERROR(tensor_mean(xb, NULL, 0, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_DTYPE, "Got: bool");
    tensor_t *xf = RT_VEC(TENSOR_FLOAT32, 1, 2, 4);
    RT_EXPECT_ERROR(tensor_mean(xf, NULL, 0, false, TENSOR_INT64), TENSOR_ERR_DTYPE,
                    "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: int64");
    assert_error(TENSOR_ERR_DTYPE, "tensor_mean");
    RT_EXPECT_ERROR(tensor_mean(xf, NULL, 0, false, TENSOR_BOOL), TENSOR_ERR_DTYPE, "Optional dtype");
    /* float dtype= is honoured */
    m = tensor_mean(xf, NULL, 0, false, TENSOR_FLOAT64);
    assert_int_equal(tensor_get_dtype(m), TENSOR_FLOAT64);
    assert_true(rt_item(m) == 7.0 / 3.0);
    tensor_release(m);
    tensor_t *xh = RT_VEC(TENSOR_FLOAT16, 1, 2, 4);
    m = tensor_mean(xh, NULL, 0, false, TENSOR_FLOAT32);
    assert_int_equal(tensor_get_dtype(m), TENSOR_FLOAT32);
    assert_true(fabs(rt_item(m) - 7.0 / 3.0) < 1e-6);
    tensor_release(m);
    m = tensor_nanmean(xi, NULL, 0, false, TENSOR_FLOAT64);
    assert_non_null(m);
    assert_true(rt_item(m) == 7.0 / 3.0);
    tensor_release(m);
    tensor_release(xh);
    tensor_release(xf);
    tensor_release(xb);
    tensor_release(xi);
}

static void test_unsupported_dtype_errors(void **state) {
    (void)state;
    tensor_t *b = RT_VEC(TENSOR_BOOL, 1, 0);
    RT_EXPECT_ERROR(tensor_argmax(b, NULL, false), TENSOR_ERR_DTYPE, "argmax(): does not support bool input");
    assert_error(TENSOR_ERR_DTYPE, "tensor_argmax");
    RT_EXPECT_ERROR(tensor_argmin(b, RT_INTS(0), false), TENSOR_ERR_DTYPE, "argmin(): does not support bool input");
    assert_error(TENSOR_ERR_DTYPE, "tensor_argmin");
    tensor_dtype nonfloat[] = {TENSOR_BOOL, TENSOR_UINT8, TENSOR_INT8, TENSOR_INT16, TENSOR_INT32, TENSOR_INT64};
    for (int i = 0; i < RT_NELEM(nonfloat); i++) {
        tensor_t *x = RT_VEC(nonfloat[i], 1, 0);
        RT_EXPECT_ERROR(tensor_var(x, 1, NULL, 0, false), TENSOR_ERR_DTYPE,
                        "std and var only support floating point and complex dtypes");
        assert_error(TENSOR_ERR_DTYPE, "tensor_var");
        RT_EXPECT_ERROR(tensor_std(x, 1, NULL, 0, false), TENSOR_ERR_DTYPE, "tensor_std");
        tensor_t *v = (tensor_t *)1, *m = (tensor_t *)1;
        RT_EXPECT_STATUS(tensor_var_mean(x, 1, NULL, 0, false, &v, &m), TENSOR_ERR_DTYPE, "tensor_var_mean");
        assert_null(v);
        assert_null(m);
        RT_EXPECT_STATUS(tensor_std_mean(x, 1, NULL, 0, false, &v, &m), TENSOR_ERR_DTYPE, "tensor_std_mean");
        RT_EXPECT_ERROR(tensor_norm(x, 2, NULL, 0, false), TENSOR_ERR_DTYPE,
                        "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ");
        assert_error(TENSOR_ERR_DTYPE, "tensor_norm");
        tensor_release(x);
    }
    tensor_release(b);
}

/* ================= empty reductions ================= */

static void test_empty_identities(void **state) {
    (void)state;
    for (int i = 0; i < RT_NELEM(rt_dtypes); i++) {
        tensor_dtype d = rt_dtypes[i];
        tensor_t *e = tensor_empty(1, RT_I64(0), d, tensor_cpu());
        assert_non_null(e);
        tensor_t *s = tensor_sum_dims(e, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        assert_non_null(s);
        rt_assert_shape(s, 0, NULL);
        assert_int_equal(tensor_get_dtype(s), rt_is_float(d) ? d : TENSOR_INT64);
        assert_true(rt_item(s) == 0.0);
        tensor_release(s);
        s = tensor_nansum(e, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        assert_true(rt_item(s) == 0.0);
        tensor_release(s);
        s = tensor_prod(e, NULL, false, TENSOR_DTYPE_DEFAULT); /* prod(empty bool) is int64 1 */
        assert_int_equal(tensor_get_dtype(s), rt_is_float(d) ? d : TENSOR_INT64);
        assert_true(rt_item(s) == 1.0);
        tensor_release(s);
        s = tensor_count_nonzero(e, NULL, 0);
        assert_int_equal(rt_item_i64(s), 0);
        tensor_release(s);
        s = tensor_all(e, NULL, 0, false);
        assert_int_equal(rt_item_i64(s), 1);
        tensor_release(s);
        s = tensor_any(e, NULL, 0, false);
        assert_int_equal(rt_item_i64(s), 0);
        tensor_release(s);
        s = tensor_logsumexp(e, RT_INTS(0), 1, false);
        assert_true(rt_item(s) == -INFINITY);
        tensor_release(s);
        if (rt_is_float(d)) {
            s = tensor_mean(e, NULL, 0, false, TENSOR_DTYPE_DEFAULT); /* mean(empty f16) is f16 nan */
            assert_int_equal(tensor_get_dtype(s), d);
            assert_true(isnan(rt_item(s)));
            tensor_release(s);
            s = tensor_nanmean(e, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
            assert_true(isnan(rt_item(s)));
            tensor_release(s);
            s = tensor_var(e, 0, NULL, 0, false); /* nan even with correction 0 */
            assert_true(isnan(rt_item(s)));
            tensor_release(s);
            s = tensor_std(e, 1, NULL, 0, false);
            assert_true(isnan(rt_item(s)));
            tensor_release(s);
            tensor_t *v = NULL, *m = NULL;
            assert_int_equal(tensor_var_mean(e, 1, NULL, 0, false, &v, &m), TENSOR_OK);
            assert_true(isnan(rt_item(v)) && isnan(rt_item(m)));
            tensor_release(v);
            tensor_release(m);
            double ps[] = {0, 1, 2, 3, 0.5};
            for (int k = 0; k < RT_NELEM(ps); k++) {
                s = tensor_norm(e, ps[k], NULL, 0, false);
                assert_non_null(s);
                assert_true(rt_item(s) == 0.0);
                tensor_release(s);
            }
        }
        tensor_release(e);
    }
}

static void test_empty_shapes(void **state) {
    (void)state;
    tensor_t *e = tensor_empty(3, RT_I64(2, 0, 4), TENSOR_FLOAT32, tensor_cpu());
    tensor_t *s = tensor_sum(e, 2, false);
    RT_ASSERT_SHAPE(s, 2, 0);
    tensor_release(s);
    s = tensor_sum(e, 2, true);
    RT_ASSERT_SHAPE(s, 2, 0, 1);
    tensor_release(s);
    s = tensor_sum(e, 1, false); /* reducing the empty dim: zeros of shape [2, 4] */
    RT_ASSERT_SHAPE(s, 2, 4);
    double *v = rt_read_f64(s);
    for (int i = 0; i < 8; i++) assert_true(v[i] == 0.0);
    free(v);
    tensor_release(s);
    s = tensor_prod(e, RT_INTS(1), true, TENSOR_DTYPE_DEFAULT);
    RT_ASSERT_SHAPE(s, 2, 1, 4);
    v = rt_read_f64(s);
    for (int i = 0; i < 8; i++) assert_true(v[i] == 1.0);
    free(v);
    tensor_release(s);
    s = tensor_amax(e, RT_INTS(2), 1, false); /* a non-empty dim of an empty tensor: empty result */
    RT_ASSERT_SHAPE(s, 2, 0);
    tensor_release(s);
    tensor_t *vals = NULL, *idx = NULL;
    assert_int_equal(tensor_max_dim(e, 0, false, &vals, &idx), TENSOR_OK);
    RT_ASSERT_SHAPE(vals, 0, 4);
    RT_ASSERT_SHAPE(idx, 0, 4);
    assert_int_equal(tensor_get_dtype(idx), TENSOR_INT64);
    tensor_release(vals);
    tensor_release(idx);
    s = tensor_argmax(e, RT_INTS(2), true);
    RT_ASSERT_SHAPE(s, 2, 0, 1);
    tensor_release(s);
    tensor_release(e);
    tensor_t *e2 = tensor_empty(2, RT_I64(0, 3), TENSOR_INT32, tensor_cpu());
    s = tensor_sum(e2, 1, false); /* sum((0,3), dim=1) has shape [0] */
    RT_ASSERT_SHAPE(s, 0);
    assert_int_equal(tensor_get_dtype(s), TENSOR_INT64);
    tensor_release(s);
    s = tensor_sum(e2, 0, false);
    RT_ASSERT_SHAPE(s, 3);
    tensor_release(s);
    s = tensor_all(e2, RT_INTS(0), 1, false);
    RT_ASSERT_SHAPE(s, 3);
    int64_t *b = rt_read_i64(s);
    assert_true(b[0] == 1 && b[1] == 1 && b[2] == 1);
    free(b);
    tensor_release(s);
    tensor_release(e2);
}

static void test_empty_errors(void **state) {
    (void)state;
    tensor_t *e = tensor_empty(3, RT_I64(2, 0, 4), TENSOR_FLOAT32, tensor_cpu());
    RT_EXPECT_ERROR(tensor_amax(e, RT_INTS(1), 1, false), TENSOR_ERR_INDEX,
                    "amax(): Expected reduction dim 1 to have non-zero size.");
    assert_error(TENSOR_ERR_INDEX, "tensor_amax");
    RT_EXPECT_ERROR(tensor_amin(e, RT_INTS(-2), 1, true), TENSOR_ERR_INDEX,
                    "amin(): Expected reduction dim 1 to have non-zero size.");
    /* the first zero-size dim among the reduced ones is named */
    RT_EXPECT_ERROR(tensor_amax(e, RT_INTS(0, 1), 2, false), TENSOR_ERR_INDEX,
                    "amax(): Expected reduction dim 1 to have non-zero size.");
    tensor_t *v = (tensor_t *)1, *ix = (tensor_t *)1;
    RT_EXPECT_STATUS(tensor_max_dim(e, 1, false, &v, &ix), TENSOR_ERR_INDEX,
                     "max(): Expected reduction dim 1 to have non-zero size.");
    assert_error(TENSOR_ERR_INDEX, "tensor_max_dim");
    assert_null(v);
    assert_null(ix);
    RT_EXPECT_STATUS(tensor_min_dim(e, -2, true, &v, &ix), TENSOR_ERR_INDEX,
                     "min(): Expected reduction dim 1 to have non-zero size.");
    RT_EXPECT_ERROR(tensor_argmax(e, RT_INTS(1), false), TENSOR_ERR_INDEX,
                    "argmax(): Expected reduction dim 1 to have non-zero size.");
    RT_EXPECT_ERROR(tensor_argmin(e, RT_INTS(1), true), TENSOR_ERR_INDEX,
                    "argmin(): Expected reduction dim 1 to have non-zero size.");
    /* no dim, numel() == 0: amax/amin raise RuntimeError, argmax/argmin IndexError */
    RT_EXPECT_ERROR(tensor_amax(e, NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT,
                    "amax(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
    RT_EXPECT_ERROR(tensor_amin(e, RT_INTS(0), 0, false), TENSOR_ERR_INVALID_ARGUMENT,
                    "amin(): Expected reduction dim to be specified for input.numel() == 0.");
    RT_EXPECT_ERROR(tensor_argmax(e, NULL, false), TENSOR_ERR_INDEX,
                    "argmax(): Expected reduction dim to be specified for input.numel() == 0.");
    assert_error(TENSOR_ERR_INDEX, "tensor_argmax");
    RT_EXPECT_ERROR(tensor_argmin(e, NULL, true), TENSOR_ERR_INDEX,
                    "argmin(): Expected reduction dim to be specified for input.numel() == 0.");
    tensor_t *e1 = tensor_empty(1, RT_I64(0), TENSOR_INT32, tensor_cpu());
    RT_EXPECT_ERROR(tensor_amax(e1, RT_INTS(0), 1, false), TENSOR_ERR_INDEX,
                    "amax(): Expected reduction dim 0 to have non-zero size.");
    RT_EXPECT_ERROR(tensor_amax(e1, NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_amax");
    /* norms without an identity (negative orders) */
    tensor_t *ef = tensor_empty(1, RT_I64(0), TENSOR_FLOAT32, tensor_cpu());
    RT_EXPECT_ERROR(tensor_norm(ef, -INFINITY, NULL, 0, false), TENSOR_ERR_INDEX, "tensor_norm");
    tensor_release(ef);
    tensor_release(e1);
    tensor_release(e);
}

/* ================= dims ================= */

static void test_dim_out_of_range(void **state) {
    (void)state;
    tensor_t *x = rt_tensor(2, RT_I64(2, 3), TENSOR_FLOAT32, (const double[]){1, 2, 3, 4, 5, 6});
    const char *msg = "Dimension out of range (expected to be in range of [-2, 1], but got 2)";
    RT_EXPECT_ERROR(tensor_sum(x, 2, false), TENSOR_ERR_INDEX, msg);
    assert_error(TENSOR_ERR_INDEX, "tensor_sum");
    RT_EXPECT_ERROR(tensor_sum_dims(x, RT_INTS(0, 2), 2, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INDEX, msg);
    RT_EXPECT_ERROR(tensor_sum(x, -3, false), TENSOR_ERR_INDEX,
                    "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
    RT_EXPECT_ERROR(tensor_nansum(x, RT_INTS(2), 1, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INDEX, msg);
    assert_error(TENSOR_ERR_INDEX, "tensor_nansum");
    RT_EXPECT_ERROR(tensor_mean(x, RT_INTS(2), 1, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INDEX, "tensor_mean");
    RT_EXPECT_ERROR(tensor_nanmean(x, RT_INTS(2), 1, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INDEX, "tensor_nanmean");
    RT_EXPECT_ERROR(tensor_prod(x, RT_INTS(2), false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INDEX, "tensor_prod");
    assert_error(TENSOR_ERR_INDEX, msg);
    RT_EXPECT_ERROR(tensor_amax(x, RT_INTS(2), 1, false), TENSOR_ERR_INDEX, "tensor_amax");
    RT_EXPECT_ERROR(tensor_amin(x, RT_INTS(2), 1, false), TENSOR_ERR_INDEX, "tensor_amin");
    RT_EXPECT_ERROR(tensor_argmax(x, RT_INTS(2), false), TENSOR_ERR_INDEX, msg);
    assert_error(TENSOR_ERR_INDEX, "tensor_argmax");
    RT_EXPECT_ERROR(tensor_argmin(x, RT_INTS(2), false), TENSOR_ERR_INDEX, "tensor_argmin");
    tensor_t *v = NULL, *ix = NULL;
    RT_EXPECT_STATUS(tensor_max_dim(x, 2, false, &v, &ix), TENSOR_ERR_INDEX, msg);
    assert_error(TENSOR_ERR_INDEX, "tensor_max_dim");
    assert_null(v);
    assert_null(ix);
    RT_EXPECT_STATUS(tensor_min_dim(x, -3, false, &v, &ix), TENSOR_ERR_INDEX, "tensor_min_dim");
    RT_EXPECT_ERROR(tensor_var(x, 1, RT_INTS(2), 1, false), TENSOR_ERR_INDEX, "tensor_var");
    RT_EXPECT_ERROR(tensor_std(x, 1, RT_INTS(2), 1, false), TENSOR_ERR_INDEX, "tensor_std");
    RT_EXPECT_STATUS(tensor_var_mean(x, 1, RT_INTS(2), 1, false, &v, &ix), TENSOR_ERR_INDEX, "tensor_var_mean");
    RT_EXPECT_STATUS(tensor_std_mean(x, 1, RT_INTS(2), 1, false, &v, &ix), TENSOR_ERR_INDEX, "tensor_std_mean");
    RT_EXPECT_ERROR(tensor_norm(x, 2, RT_INTS(2), 1, false), TENSOR_ERR_INDEX, "tensor_norm");
    RT_EXPECT_ERROR(tensor_logsumexp(x, RT_INTS(2), 1, false), TENSOR_ERR_INDEX, "tensor_logsumexp");
    RT_EXPECT_ERROR(tensor_count_nonzero(x, RT_INTS(2), 1), TENSOR_ERR_INDEX, "tensor_count_nonzero");
    RT_EXPECT_ERROR(tensor_all(x, RT_INTS(2), 1, false), TENSOR_ERR_INDEX, "tensor_all");
    RT_EXPECT_ERROR(tensor_any(x, RT_INTS(-3), 1, false), TENSOR_ERR_INDEX, "tensor_any");
    tensor_release(x);
}

static void test_dim_duplicates(void **state) {
    (void)state;
    const char *msg = "dim 0 appears multiple times in the list of dims";
    tensor_t *x = rt_tensor(2, RT_I64(2, 3), TENSOR_FLOAT32, (const double[]){1, 2, 3, 4, 5, 6});
    const int *lists[] = {RT_INTS(0, 0), RT_INTS(0, -2)};
    for (int i = 0; i < 2; i++) {
        const int *l = lists[i];
        RT_EXPECT_ERROR(tensor_sum_dims(x, l, 2, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INVALID_ARGUMENT, msg);
        assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_sum");
        RT_EXPECT_ERROR(tensor_nansum(x, l, 2, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INVALID_ARGUMENT, msg);
        RT_EXPECT_ERROR(tensor_mean(x, l, 2, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INVALID_ARGUMENT, msg);
        assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_mean");
        RT_EXPECT_ERROR(tensor_nanmean(x, l, 2, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INVALID_ARGUMENT, msg);
        RT_EXPECT_ERROR(tensor_amax(x, l, 2, false), TENSOR_ERR_INVALID_ARGUMENT, msg);
        assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_amax");
        RT_EXPECT_ERROR(tensor_amin(x, l, 2, false), TENSOR_ERR_INVALID_ARGUMENT, msg);
        RT_EXPECT_ERROR(tensor_var(x, 1, l, 2, false), TENSOR_ERR_INVALID_ARGUMENT, msg);
        assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_var");
        RT_EXPECT_ERROR(tensor_std(x, 1, l, 2, false), TENSOR_ERR_INVALID_ARGUMENT, msg);
        RT_EXPECT_ERROR(tensor_logsumexp(x, l, 2, false), TENSOR_ERR_INVALID_ARGUMENT, msg);
        assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_logsumexp");
        RT_EXPECT_ERROR(tensor_norm(x, 2, l, 2, false), TENSOR_ERR_INVALID_ARGUMENT, msg);
        assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_norm");
        RT_EXPECT_ERROR(tensor_count_nonzero(x, l, 2), TENSOR_ERR_INVALID_ARGUMENT, msg);
        RT_EXPECT_ERROR(tensor_all(x, l, 2, false), TENSOR_ERR_INVALID_ARGUMENT, msg);
        RT_EXPECT_ERROR(tensor_any(x, l, 2, false), TENSOR_ERR_INVALID_ARGUMENT, msg);
        tensor_t *o = tensor_empty(0, NULL, TENSOR_FLOAT32, tensor_cpu());
        RT_EXPECT_STATUS(tensor_sum_out(o, x, l, 2, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INVALID_ARGUMENT, msg);
        assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_sum_out");
        tensor_release(o);
    }
    tensor_release(x);
    /* (0, -4) on 4-D; (1, 3, -1) reports dim 3 */
    tensor_t *x4 = tensor_zeros(4, RT_I64(2, 2, 2, 2), TENSOR_FLOAT32, tensor_cpu());
    RT_EXPECT_ERROR(tensor_sum_dims(x4, RT_INTS(0, -4), 2, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INVALID_ARGUMENT,
                    msg);
    RT_EXPECT_ERROR(tensor_sum_dims(x4, RT_INTS(1, 3, -1), 3, false, TENSOR_DTYPE_DEFAULT),
                    TENSOR_ERR_INVALID_ARGUMENT, "dim 3 appears multiple times in the list of dims");
    tensor_release(x4);
}

static void test_zero_dim_inputs(void **state) {
    (void)state;
    tensor_t *x = rt_tensor(0, NULL, TENSOR_FLOAT32, (const double[]){5});
    const int *ok_dims[] = {RT_INTS(0), RT_INTS(-1)};
    for (int k = 0; k < 2; k++) {
        for (int keep = 0; keep < 2; keep++) {
            tensor_t *s = tensor_sum_dims(x, ok_dims[k], 1, keep, TENSOR_DTYPE_DEFAULT);
            rt_assert_shape(s, 0, NULL); /* 0-d whether or not keepdim */
            assert_true(rt_item(s) == 5.0);
            tensor_release(s);
            s = tensor_sum(x, ok_dims[k][0], keep);
            rt_assert_shape(s, 0, NULL);
            tensor_release(s);
            s = tensor_amax(x, ok_dims[k], 1, keep);
            rt_assert_shape(s, 0, NULL);
            assert_true(rt_item(s) == 5.0);
            tensor_release(s);
            s = tensor_argmax(x, ok_dims[k], keep);
            rt_assert_shape(s, 0, NULL);
            assert_int_equal(rt_item_i64(s), 0);
            tensor_release(s);
            s = tensor_prod(x, ok_dims[k], keep, TENSOR_DTYPE_DEFAULT);
            rt_assert_shape(s, 0, NULL);
            assert_true(rt_item(s) == 5.0);
            tensor_release(s);
            tensor_t *v = NULL, *ix = NULL;
            assert_int_equal(tensor_max_dim(x, ok_dims[k][0], keep, &v, &ix), TENSOR_OK); /* (value, 0) */
            rt_assert_shape(v, 0, NULL);
            rt_assert_shape(ix, 0, NULL);
            assert_true(rt_item(v) == 5.0);
            assert_int_equal(rt_item_i64(ix), 0);
            tensor_release(v);
            tensor_release(ix);
            s = tensor_all(x, ok_dims[k], 1, keep);
            rt_assert_shape(s, 0, NULL);
            assert_int_equal(rt_item_i64(s), 1);
            tensor_release(s);
        }
    }
    /* keepdim with all dims: still 0-d */
    tensor_t *s = tensor_sum_dims(x, NULL, 0, true, TENSOR_DTYPE_DEFAULT);
    rt_assert_shape(s, 0, NULL);
    tensor_release(s);
    RT_EXPECT_ERROR(tensor_sum(x, 1, false), TENSOR_ERR_INDEX,
                    "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    RT_EXPECT_ERROR(tensor_argmax(x, RT_INTS(-2), false), TENSOR_ERR_INDEX,
                    "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
    RT_EXPECT_ERROR(tensor_sum_dims(x, RT_INTS(0, -1), 2, false, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_INVALID_ARGUMENT,
                    "dim 0 appears multiple times in the list of dims");
    /* var of a 0-d tensor: N = 1, so nan with correction 1 and 0 with correction 0 */
    s = tensor_var(x, 1, NULL, 0, false);
    assert_true(isnan(rt_item(s)));
    tensor_release(s);
    s = tensor_var(x, 0, RT_INTS(0), 1, true);
    rt_assert_shape(s, 0, NULL);
    assert_true(rt_item(s) == 0.0);
    tensor_release(s);
    s = tensor_count_nonzero(x, RT_INTS(-1), 1);
    rt_assert_shape(s, 0, NULL);
    assert_int_equal(rt_item_i64(s), 1);
    tensor_release(s);
    tensor_release(x);
}

static void test_dims_null_or_empty_mean_all(void **state) {
    (void)state;
    /* arange(1,7).reshape(2,3) */
    tensor_t *x = rt_tensor(2, RT_I64(2, 3), TENSOR_FLOAT32, (const double[]){1, 2, 3, 4, 5, 6});
    static const int none = 0;
    for (int e = 0; e < 2; e++) {
        const int *dims = e ? &none : NULL;
        tensor_t *s = tensor_sum_dims(x, dims, 0, false, TENSOR_DTYPE_DEFAULT);
        rt_assert_shape(s, 0, NULL);
        assert_true(rt_item(s) == 21);
        tensor_release(s);
        s = tensor_sum_dims(x, dims, 0, true, TENSOR_DTYPE_DEFAULT); /* keepdim: [1, 1] */
        RT_ASSERT_SHAPE(s, 1, 1);
        tensor_release(s);
        s = tensor_nansum(x, dims, 0, false, TENSOR_DTYPE_DEFAULT);
        assert_true(rt_item(s) == 21);
        tensor_release(s);
        s = tensor_mean(x, dims, 0, false, TENSOR_DTYPE_DEFAULT);
        assert_true(rt_item(s) == 3.5);
        tensor_release(s);
        s = tensor_amax(x, dims, 0, true);
        RT_ASSERT_SHAPE(s, 1, 1);
        assert_true(rt_item(s) == 6);
        tensor_release(s);
        s = tensor_amin(x, dims, 0, false);
        assert_true(rt_item(s) == 1);
        tensor_release(s);
        s = tensor_var(x, 1, dims, 0, false);
        assert_true(fabs(rt_item(s) - 3.5) < 1e-6);
        tensor_release(s);
        s = tensor_count_nonzero(x, dims, 0);
        assert_int_equal(rt_item_i64(s), 6);
        tensor_release(s);
        s = tensor_norm(x, 1, dims, 0, false);
        assert_true(rt_item(s) == 21);
        tensor_release(s);
        s = tensor_logsumexp(x, dims, 0, true);
        RT_ASSERT_SHAPE(s, 1, 1);
        tensor_release(s);
    }
    /* any/all: NULL is all dims, an explicit empty list is a no-op giving bool of the same shape */
    tensor_t *s = tensor_all(x, NULL, 0, false);
    rt_assert_shape(s, 0, NULL);
    assert_int_equal(rt_item_i64(s), 1);
    tensor_release(s);
    for (int keep = 0; keep < 2; keep++) {
        s = tensor_any(x, &none, 0, keep);
        RT_ASSERT_SHAPE(s, 2, 3); /* keepdim is ignored */
        assert_int_equal(tensor_get_dtype(s), TENSOR_BOOL);
        tensor_release(s);
    }
    tensor_t *u = rt_tensor(2, RT_I64(2, 2), TENSOR_UINT8, (const double[]){0, 3, 5, 0});
    s = tensor_all(u, &none, 0, false);
    RT_ASSERT_SHAPE(s, 2, 2);
    assert_int_equal(tensor_get_dtype(s), TENSOR_UINT8);
    int64_t *b = rt_read_i64(s);
    assert_true(b[0] == 0 && b[1] == 1 && b[2] == 1 && b[3] == 0);
    free(b);
    tensor_release(s);
    tensor_release(u);
    tensor_release(x);
}

static void test_unsorted_dims_keep_input_order(void **state) {
    (void)state;
    /* [2,3,4,5]: reduce (3, 0) -> [3, 4]; (0, 2, 1) on [2,3,4] -> all */
    tensor_t *x = rt_make(RT_CONTIG, 4, RT_I64(2, 3, 4, 5), TENSOR_INT32, RT_SMALL, 99);
    int64_t *xi = rt_read_i64(x);
    tensor_t *s = tensor_sum_dims(x, RT_INTS(3, 0), 2, false, TENSOR_DTYPE_DEFAULT);
    RT_ASSERT_SHAPE(s, 3, 4);
    int64_t *g = rt_read_i64(s);
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 4; k++) {
            int64_t want = 0;
            for (int i = 0; i < 2; i++)
                for (int l = 0; l < 5; l++) want += xi[((i * 3 + j) * 4 + k) * 5 + l];
            assert_int_equal(g[j * 4 + k], want);
        }
    free(g);
    tensor_release(s);
    s = tensor_sum_dims(x, RT_INTS(3, 0, 2), 3, true, TENSOR_DTYPE_DEFAULT);
    RT_ASSERT_SHAPE(s, 1, 3, 1, 1);
    tensor_release(s);
    s = tensor_amax(x, RT_INTS(2, 1), 2, false);
    RT_ASSERT_SHAPE(s, 2, 5);
    tensor_release(s);
    free(xi);
    tensor_release(x);
}

static void test_argmax_flat_index_is_logical(void **state) {
    (void)state;
    /* x[:, :2].argmax() of [[-1,2,1],[5,3,6]] is 2 */
    tensor_t *x = rt_tensor(2, RT_I64(2, 3), TENSOR_FLOAT32, (const double[]){-1, 2, 1, 5, 3, 6});
    tensor_t *v = tensor_narrow(x, 1, 0, 2);
    tensor_t *a = tensor_argmax(v, NULL, false);
    rt_assert_shape(a, 0, NULL);
    assert_int_equal(rt_item_i64(a), 2);
    tensor_release(a);
    a = tensor_argmax(v, NULL, true); /* keepdim without dim: [1, 1] */
    RT_ASSERT_SHAPE(a, 1, 1);
    assert_int_equal(rt_item_i64(a), 2);
    tensor_release(a);
    a = tensor_argmin(v, NULL, false);
    assert_int_equal(rt_item_i64(a), 0);
    tensor_release(a);
    /* on the transpose: logical order of the view */
    tensor_t *t = tensor_transpose(x, 0, 1); /* [[-1,5],[2,3],[1,6]] */
    a = tensor_argmax(t, NULL, false);
    assert_int_equal(rt_item_i64(a), 5);
    tensor_release(a);
    a = tensor_argmin(t, NULL, false);
    assert_int_equal(rt_item_i64(a), 0);
    tensor_release(a);
    a = tensor_argmax(t, RT_INTS(1), false);
    int64_t *g = rt_read_i64(a);
    assert_true(g[0] == 1 && g[1] == 1 && g[2] == 1);
    free(g);
    tensor_release(a);
    tensor_release(t);
    tensor_release(v);
    tensor_release(x);
}

/* ================= keepdim ================= */

static void test_keepdim_shapes(void **state) {
    (void)state;
    tensor_t *x = tensor_ones(3, RT_I64(2, 1, 4), TENSOR_FLOAT32, tensor_cpu());
    tensor_t *s = tensor_sum(x, 1, true); /* reducing a size-1 dim with keepdim: unchanged */
    RT_ASSERT_SHAPE(s, 2, 1, 4);
    tensor_release(s);
    s = tensor_sum(x, 1, false);
    RT_ASSERT_SHAPE(s, 2, 4);
    tensor_release(s);
    s = tensor_sum_dims(x, RT_INTS(0, 2), 2, true, TENSOR_DTYPE_DEFAULT);
    RT_ASSERT_SHAPE(s, 1, 1, 1);
    assert_true(rt_item(s) == 8);
    tensor_release(s);
    tensor_t *v = NULL, *ix = NULL;
    assert_int_equal(tensor_max_dim(x, 2, true, &v, &ix), TENSOR_OK);
    RT_ASSERT_SHAPE(v, 2, 1, 1);
    RT_ASSERT_SHAPE(ix, 2, 1, 1);
    tensor_release(v);
    tensor_release(ix);
    assert_int_equal(tensor_var_mean(x, 1, RT_INTS(0), 1, true, &v, &ix), TENSOR_OK);
    RT_ASSERT_SHAPE(v, 1, 1, 4);
    RT_ASSERT_SHAPE(ix, 1, 1, 4);
    tensor_release(v);
    tensor_release(ix);
    assert_int_equal(tensor_std_mean(x, 1, RT_INTS(-1), 1, false, &v, &ix), TENSOR_OK);
    RT_ASSERT_SHAPE(v, 2, 1);
    RT_ASSERT_SHAPE(ix, 2, 1);
    tensor_release(v);
    tensor_release(ix);
    s = tensor_count_nonzero(x, RT_INTS(2), 1); /* no keepdim argument */
    RT_ASSERT_SHAPE(s, 2, 1);
    tensor_release(s);
    tensor_release(x);
}

/* ================= NaN, inf, signed zero, ties ================= */

static void test_nan_first_index_wins(void **state) {
    (void)state;
    for (int i = 0; i < RT_NELEM(rt_float_dtypes); i++) {
        tensor_dtype d = rt_float_dtypes[i];
        tensor_t *x = RT_VEC(d, 1, NAN, 3, NAN, -INFINITY);
        tensor_t *a = tensor_argmax(x, NULL, false), *b = tensor_argmin(x, NULL, false);
        assert_int_equal(rt_item_i64(a), 1);
        assert_int_equal(rt_item_i64(b), 1);
        tensor_release(a);
        tensor_release(b);
        a = tensor_argmax(x, RT_INTS(0), false);
        assert_int_equal(rt_item_i64(a), 1);
        tensor_release(a);
        tensor_t *v = NULL, *ix = NULL;
        assert_int_equal(tensor_max_dim(x, 0, false, &v, &ix), TENSOR_OK);
        assert_true(isnan(rt_item(v)));
        assert_int_equal(rt_item_i64(ix), 1);
        tensor_release(v);
        tensor_release(ix);
        assert_int_equal(tensor_min_dim(x, 0, false, &v, &ix), TENSOR_OK);
        assert_true(isnan(rt_item(v)));
        assert_int_equal(rt_item_i64(ix), 1);
        tensor_release(v);
        tensor_release(ix);
        a = tensor_amax(x, NULL, 0, false);
        assert_true(isnan(rt_item(a)));
        tensor_release(a);
        a = tensor_amin(x, NULL, 0, false);
        assert_true(isnan(rt_item(a)));
        tensor_release(a);
        a = tensor_sum_dims(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        assert_true(isnan(rt_item(a)));
        tensor_release(a);
        a = tensor_mean(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        assert_true(isnan(rt_item(a)));
        tensor_release(a);
        a = tensor_var(x, 1, NULL, 0, false);
        assert_true(isnan(rt_item(a)));
        tensor_release(a);
        a = tensor_logsumexp(x, RT_INTS(0), 1, false);
        assert_true(isnan(rt_item(a)));
        tensor_release(a);
        /* nansum([1,nan,3,nan,-inf]) is -inf */
        a = tensor_nansum(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        assert_true(rt_item(a) == -INFINITY);
        tensor_release(a);
        tensor_release(x);
        /* nanmean skips NaN; all-NaN is NaN */
        x = RT_VEC(d, 1, NAN, 3);
        a = tensor_nanmean(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        assert_true(rt_item(a) == 2.0);
        tensor_release(a);
        tensor_release(x);
        x = RT_VEC(d, NAN, NAN);
        a = tensor_nanmean(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        assert_true(isnan(rt_item(a)));
        tensor_release(a);
        a = tensor_nansum(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        assert_true(rt_item(a) == 0.0);
        tensor_release(a);
        tensor_release(x);
    }
}

static void test_ties_first_index(void **state) {
    (void)state;
    tensor_t *x = RT_VEC(TENSOR_FLOAT32, 1, 3, 3, 2);
    tensor_t *a = tensor_argmax(x, NULL, false);
    assert_int_equal(rt_item_i64(a), 1);
    tensor_release(a);
    tensor_release(x);
    x = RT_VEC(TENSOR_INT32, 4, 1, 3, 1, 4);
    a = tensor_argmin(x, NULL, false);
    assert_int_equal(rt_item_i64(a), 1);
    tensor_release(a);
    a = tensor_argmax(x, RT_INTS(0), false);
    assert_int_equal(rt_item_i64(a), 0);
    tensor_release(a);
    tensor_release(x);
    /* argmax(ones(100000)) is 0, also over several threads' chunks */
    x = tensor_ones(1, RT_I64(100000), TENSOR_FLOAT32, tensor_cpu());
    a = tensor_argmax(x, NULL, false);
    assert_int_equal(rt_item_i64(a), 0);
    tensor_release(a);
    a = tensor_argmin(x, RT_INTS(0), false);
    assert_int_equal(rt_item_i64(a), 0);
    tensor_release(a);
    tensor_release(x);
    /* max(ones(4,5000),1).indices are all 0; and over dim 0 of ones(5000, 4) */
    x = tensor_ones(2, RT_I64(4, 5000), TENSOR_FLOAT16, tensor_cpu());
    tensor_t *v = NULL, *ix = NULL;
    assert_int_equal(tensor_max_dim(x, 1, false, &v, &ix), TENSOR_OK);
    int64_t *g = rt_read_i64(ix);
    for (int i = 0; i < 4; i++) assert_int_equal(g[i], 0);
    free(g);
    tensor_release(v);
    tensor_release(ix);
    tensor_t *t = tensor_transpose(x, 0, 1);
    assert_int_equal(tensor_min_dim(t, 0, false, &v, &ix), TENSOR_OK);
    g = rt_read_i64(ix);
    for (int i = 0; i < 4; i++) assert_int_equal(g[i], 0);
    free(g);
    tensor_release(v);
    tensor_release(ix);
    tensor_release(t);
    tensor_release(x);
    /* rows [[-inf,-inf,inf,3],[inf,inf,-inf,-1]]: max(dim=1) values [inf,inf], indices [2,0] */
    x = rt_tensor(2, RT_I64(2, 4), TENSOR_FLOAT32, (const double[]){-INFINITY, -INFINITY, INFINITY, 3, INFINITY,
                                                                      INFINITY, -INFINITY, -1});
    assert_int_equal(tensor_max_dim(x, 1, false, &v, &ix), TENSOR_OK);
    double *dv = rt_read_f64(v);
    g = rt_read_i64(ix);
    assert_true(dv[0] == INFINITY && dv[1] == INFINITY);
    assert_true(g[0] == 2 && g[1] == 0);
    free(dv);
    free(g);
    tensor_release(v);
    tensor_release(ix);
    assert_int_equal(tensor_min_dim(x, 1, false, &v, &ix), TENSOR_OK);
    g = rt_read_i64(ix);
    assert_true(g[0] == 0 && g[1] == 2);
    free(g);
    tensor_release(v);
    tensor_release(ix);
    tensor_release(x);
    /* argmax([-0.0, 0.0]) is 0: they compare equal */
    x = RT_VEC(TENSOR_FLOAT32, -0.0, 0.0);
    a = tensor_argmax(x, NULL, false);
    assert_int_equal(rt_item_i64(a), 0);
    tensor_release(a);
    a = tensor_argmin(x, NULL, false);
    assert_int_equal(rt_item_i64(a), 0);
    tensor_release(a);
    tensor_release(x);
}

/* First index wins across the chunks threads work on: ties and NaNs far apart in a long row. */
static void test_first_index_across_chunks(void **state) {
    (void)state;
    const int64_t n = 1 << 20;
    tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_INT32};
    for (int di = 0; di < RT_NELEM(dts); di++) {
        tensor_t *x = tensor_zeros(1, &n, dts[di], tensor_cpu());
        /* maxima 5 at 600001 and 800003; minima -5 at 300007 and 900011 */
        unsigned char *p = tensor_data(x);
        size_t es = tensor_dtype_size(dts[di]);
        tensor_dtype_store_double(dts[di], p + 600001 * es, 5);
        tensor_dtype_store_double(dts[di], p + 800003 * es, 5);
        tensor_dtype_store_double(dts[di], p + 300007 * es, -5);
        tensor_dtype_store_double(dts[di], p + 900011 * es, -5);
        for (int threads = 1; threads <= 2; threads++) {
            tensor_set_num_threads(threads);
            tensor_t *a = tensor_argmax(x, NULL, false);
            assert_int_equal(rt_item_i64(a), 600001);
            tensor_release(a);
            a = tensor_argmin(x, RT_INTS(0), false);
            assert_int_equal(rt_item_i64(a), 300007);
            tensor_release(a);
            tensor_t *v = NULL, *ix = NULL;
            assert_int_equal(tensor_max_dim(x, 0, false, &v, &ix), TENSOR_OK);
            assert_int_equal(rt_item_i64(ix), 600001);
            tensor_release(v);
            tensor_release(ix);
            assert_int_equal(tensor_min_dim(x, -1, true, &v, &ix), TENSOR_OK);
            assert_int_equal(rt_item_i64(ix), 300007);
            tensor_release(v);
            tensor_release(ix);
            if (rt_is_float(dts[di])) {
                /* NaN at 700001 and 950000 beats every value, for argmax and argmin alike */
                tensor_t *y = tensor_clone(x);
                unsigned char *q = tensor_data(y);
                tensor_dtype_store_double(dts[di], q + 700001 * es, NAN);
                tensor_dtype_store_double(dts[di], q + 950000 * es, NAN);
                a = tensor_argmax(y, NULL, false);
                assert_int_equal(rt_item_i64(a), 700001);
                tensor_release(a);
                a = tensor_argmin(y, NULL, false);
                assert_int_equal(rt_item_i64(a), 700001);
                tensor_release(a);
                a = tensor_amax(y, NULL, 0, false);
                assert_true(isnan(rt_item(a)));
                tensor_release(a);
                a = tensor_amin(y, NULL, 0, false);
                assert_true(isnan(rt_item(a)));
                tensor_release(a);
                tensor_release(y);
            }
        }
        tensor_set_num_threads(0);
        tensor_release(x);
    }
}

static void test_signed_zero_and_infinities(void **state) {
    (void)state;
    for (int i = 0; i < RT_NELEM(rt_float_dtypes); i++) {
        tensor_dtype d = rt_float_dtypes[i];
        /* sum([-0.0,-0.0]) is +0.0: the accumulator starts at +0 */
        tensor_t *x = RT_VEC(d, -0.0, -0.0);
        tensor_t *s = tensor_sum_dims(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        double v = rt_item(s);
        assert_true(v == 0.0 && !signbit(v));
        tensor_release(s);
        tensor_release(x);
        x = RT_VEC(d, INFINITY, -INFINITY);
        s = tensor_sum_dims(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        assert_true(isnan(rt_item(s)));
        tensor_release(s);
        s = tensor_logsumexp(x, RT_INTS(0), 1, false); /* [inf,-inf] is inf */
        assert_true(rt_item(s) == INFINITY);
        tensor_release(s);
        tensor_release(x);
        x = RT_VEC(d, -INFINITY, -INFINITY);
        s = tensor_logsumexp(x, RT_INTS(0), 1, false);
        assert_true(rt_item(s) == -INFINITY);
        tensor_release(s);
        tensor_release(x);
        x = RT_VEC(d, INFINITY, INFINITY);
        s = tensor_logsumexp(x, RT_INTS(0), 1, false);
        assert_true(rt_item(s) == INFINITY);
        tensor_release(s);
        tensor_release(x);
        /* prod [0, nan] is nan */
        x = RT_VEC(d, 0, NAN);
        s = tensor_prod(x, NULL, false, TENSOR_DTYPE_DEFAULT);
        assert_true(isnan(rt_item(s)));
        tensor_release(s);
        tensor_release(x);
        /* logsumexp is computed stably: [1000, 1000] (f16 cannot hold 1000.69: rounded) */
        if (d != TENSOR_FLOAT16 && d != TENSOR_BFLOAT16) {
            x = RT_VEC(d, 1000, 1000);
            s = tensor_logsumexp(x, RT_INTS(0), 1, false);
            assert_true(fabs(rt_item(s) - 1000.6931471805599) < 1e-4);
            tensor_release(s);
            tensor_release(x);
        }
        x = RT_VEC(d, -1000, 0, 1000);
        s = tensor_logsumexp(x, RT_INTS(0), 1, false);
        assert_true(rt_item(s) == 1000.0);
        tensor_release(s);
        tensor_release(x);
    }
}

static void test_norm_without_scaling(void **state) {
    (void)state;
    tensor_t *x = RT_VEC(TENSOR_FLOAT32, 3e20, 4e20);
    tensor_t *n = tensor_norm(x, 2, NULL, 0, false);
    assert_true(rt_item(n) == INFINITY);
    tensor_release(n);
    n = tensor_norm(x, 1, NULL, 0, false);
    assert_true(fabs(rt_item(n) - 7e20) < 7e14);
    tensor_release(n);
    n = tensor_norm(x, INFINITY, NULL, 0, false);
    assert_true(rt_item(n) == (double)4e20f);
    tensor_release(n);
    tensor_release(x);
    x = RT_VEC(TENSOR_FLOAT32, 3e-30, 4e-30);
    n = tensor_norm(x, 2, NULL, 0, false);
    assert_true(rt_item(n) == 0.0);
    tensor_release(n);
    tensor_release(x);
    x = RT_VEC(TENSOR_FLOAT16, 60000, 60000, 60000, 60000);
    n = tensor_norm(x, 2, NULL, 0, false); /* 120000 overflows float16 */
    assert_true(rt_item(n) == INFINITY);
    tensor_release(n);
    tensor_release(x);
    /* float64: 5 exactly; p = 0 counts non-zeros (NaN counts); -inf is min |x| */
    x = RT_VEC(TENSOR_FLOAT64, 3, -4, 0);
    n = tensor_norm(x, 2, NULL, 0, false);
    assert_true(rt_item(n) == 5.0);
    tensor_release(n);
    n = tensor_norm(x, 0, NULL, 0, false);
    assert_true(rt_item(n) == 2.0);
    tensor_release(n);
    n = tensor_norm(x, -INFINITY, NULL, 0, false);
    assert_true(rt_item(n) == 0.0);
    tensor_release(n);
    n = tensor_norm(x, INFINITY, NULL, 0, false);
    assert_true(rt_item(n) == 4.0);
    tensor_release(n);
    n = tensor_norm(x, 3, NULL, 0, false);
    assert_true(fabs(rt_item(n) - cbrt(91.0)) < 1e-12);
    tensor_release(n);
    n = tensor_norm(x, 0.5, NULL, 0, false);
    assert_true(fabs(rt_item(n) - pow(sqrt(3.0) + 2.0, 2)) < 1e-12);
    tensor_release(n);
    RT_EXPECT_ERROR(tensor_norm(x, NAN, NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_norm");
    tensor_release(x);
}

/* ================= integer overflow ================= */

static void test_integer_overflow(void **state) {
    (void)state;
    tensor_t *x = RT_VEC_I64(TENSOR_INT32, INT32_MAX, 1);
    tensor_t *s = tensor_sum_dims(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_int_equal(tensor_get_dtype(s), TENSOR_INT64);
    assert_int_equal(rt_item_i64(s), INT64_C(2147483648));
    tensor_release(s);
    tensor_release(x);
    x = RT_VEC_I64(TENSOR_UINT8, 255, 1);
    s = tensor_sum(x, 0, false);
    assert_int_equal(rt_item_i64(s), 256);
    tensor_release(s);
    s = tensor_sum_dims(x, NULL, 0, false, TENSOR_UINT8); /* explicit narrow dtype wraps */
    assert_int_equal(tensor_get_dtype(s), TENSOR_UINT8);
    assert_int_equal(rt_item_i64(s), 0);
    tensor_release(s);
    tensor_release(x);
    x = RT_VEC_I64(TENSOR_INT8, 127, 1);
    s = tensor_sum_dims(x, NULL, 0, false, TENSOR_INT8);
    assert_int_equal(rt_item_i64(s), -128);
    tensor_release(s);
    tensor_release(x);
    x = RT_VEC_I64(TENSOR_INT16, 30000, 30000);
    s = tensor_sum_dims(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_int_equal(rt_item_i64(s), 60000);
    tensor_release(s);
    tensor_release(x);
    x = RT_VEC_I64(TENSOR_INT32, 65536, 65536);
    s = tensor_prod(x, NULL, false, TENSOR_DTYPE_DEFAULT);
    assert_int_equal(tensor_get_dtype(s), TENSOR_INT64);
    assert_int_equal(rt_item_i64(s), INT64_C(4294967296));
    tensor_release(s);
    tensor_release(x);
    /* int64 wraps silently */
    x = RT_VEC_I64(TENSOR_INT64, INT64_TOP, 1);
    s = tensor_sum_dims(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_int_equal(rt_item_i64(s), INT64_MIN);
    tensor_release(s);
    tensor_release(x);
    x = RT_VEC_I64(TENSOR_INT64, INT64_C(1) << 62, 4);
    s = tensor_prod(x, NULL, false, TENSOR_DTYPE_DEFAULT);
    assert_int_equal(rt_item_i64(s), 0);
    tensor_release(s);
    tensor_release(x);
    /* amax/argmax never widen */
    x = RT_VEC_I64(TENSOR_INT64, INT64_MIN, INT64_TOP);
    s = tensor_amax(x, NULL, 0, false);
    assert_int_equal(tensor_get_dtype(s), TENSOR_INT64);
    assert_int_equal(rt_item_i64(s), INT64_TOP);
    tensor_release(s);
    s = tensor_amin(x, NULL, 0, false);
    assert_int_equal(rt_item_i64(s), INT64_MIN);
    tensor_release(s);
    s = tensor_argmax(x, NULL, false);
    assert_int_equal(rt_item_i64(s), 1);
    tensor_release(s);
    tensor_release(x);
    /* large int64 sums stay exact (no detour through double) */
    x = RT_VEC_I64(TENSOR_INT64, (INT64_C(1) << 53) + 1, 2, -3);
    s = tensor_sum_dims(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_int_equal(rt_item_i64(s), INT64_C(1) << 53);
    tensor_release(s);
    tensor_release(x);
}

static void test_uint8_overflow_table(void **state) {
    (void)state;
    /* test_sum_dim_reduction_uint8_overflow: [[255,2,1],[5,3,6]] */
    tensor_t *x = rt_tensor(2, RT_I64(2, 3), TENSOR_UINT8, (const double[]){255, 2, 1, 5, 3, 6});
    tensor_t *s = tensor_sum_dims(x, NULL, 0, false, TENSOR_UINT8);
    assert_int_equal(tensor_get_dtype(s), TENSOR_UINT8);
    assert_int_equal(rt_item_i64(s), 16);
    tensor_release(s);
    s = tensor_sum_dims(x, RT_INTS(0), 1, false, TENSOR_UINT8);
    int64_t *g = rt_read_i64(s);
    assert_true(g[0] == 4 && g[1] == 5 && g[2] == 7);
    free(g);
    tensor_release(s);
    s = tensor_sum_dims(x, RT_INTS(1), 1, false, TENSOR_UINT8);
    g = rt_read_i64(s);
    assert_true(g[0] == 2 && g[1] == 14);
    free(g);
    tensor_release(s);
    s = tensor_sum(x, 1, false);
    assert_int_equal(tensor_get_dtype(s), TENSOR_INT64);
    g = rt_read_i64(s);
    assert_true(g[0] == 258 && g[1] == 14);
    free(g);
    tensor_release(s);
    /* the same through sum_out with a uint8 out */
    tensor_t *o = tensor_empty(1, RT_I64(3), TENSOR_UINT8, tensor_cpu());
    assert_int_equal(tensor_sum_out(o, x, RT_INTS(0), 1, false, TENSOR_DTYPE_DEFAULT), TENSOR_OK);
    g = rt_read_i64(o);
    assert_true(g[0] == 4 && g[1] == 5 && g[2] == 7);
    free(g);
    tensor_release(o);
    tensor_release(x);
}

/* ================= var/std correction ================= */

static void test_var_correction(void **state) {
    (void)state;
    tensor_t *x = rt_tensor(2, RT_I64(2, 3), TENSOR_FLOAT32, (const double[]){0, 1, 2, 3, 4, 5});
    struct {
        double c;
        double want;
    } cases[] = {{1, 1.0}, {0, 2.0 / 3.0}, {3, INFINITY}, {4, INFINITY}, {0.5, 2.0 / 2.5}, {-1, 0.5}, {2, 2.0}};
    for (int i = 0; i < RT_NELEM(cases); i++) {
        tensor_t *v = tensor_var(x, cases[i].c, RT_INTS(1), 1, false);
        assert_non_null(v);
        double *g = rt_read_f64(v);
        for (int k = 0; k < 2; k++)
            if (!rt_close(g[k], cases[i].want, 1e-6))
                fail_msg("var correction %g: got %.9g want %.9g", cases[i].c, g[k], cases[i].want);
        free(g);
        tensor_release(v);
        v = tensor_std(x, cases[i].c, RT_INTS(1), 1, false);
        g = rt_read_f64(v);
        for (int k = 0; k < 2; k++)
            if (!rt_close(g[k], sqrt(cases[i].want), 1e-6))
                fail_msg("std correction %g: got %.9g want %.9g", cases[i].c, g[k], sqrt(cases[i].want));
        free(g);
        tensor_release(v);
    }
    tensor_release(x);
    for (int i = 0; i < RT_NELEM(rt_float_dtypes); i++) {
        tensor_dtype d = rt_float_dtypes[i];
        x = RT_VEC(d, 1, 2);
        tensor_t *v = tensor_var(x, 1, NULL, 0, false);
        assert_int_equal(tensor_get_dtype(v), d);
        assert_true(rt_item(v) == 0.5);
        tensor_release(v);
        v = tensor_var(x, 0, NULL, 0, false);
        assert_true(rt_item(v) == 0.25);
        tensor_release(v);
        tensor_release(x);
        x = RT_VEC(d, 1, 2, 3);
        v = tensor_var(x, 1, NULL, 0, false);
        assert_true(rt_item(v) == 1.0);
        tensor_release(v);
        v = tensor_var(x, 0, NULL, 0, false);
        assert_true(fabs(rt_item(v) - 2.0 / 3.0) <= rt_rtol(d));
        tensor_release(v);
        tensor_release(x);
        /* a single element: 0/0 = nan with the default correction, 0 with correction 0 */
        x = RT_VEC(d, 7);
        v = tensor_var(x, 1, NULL, 0, false);
        assert_true(isnan(rt_item(v)));
        tensor_release(v);
        v = tensor_std(x, 1, RT_INTS(0), 1, true);
        RT_ASSERT_SHAPE(v, 1);
        assert_true(isnan(rt_item(v)));
        tensor_release(v);
        v = tensor_var(x, 0, NULL, 0, false);
        assert_true(rt_item(v) == 0.0);
        tensor_release(v);
        tensor_release(x);
    }
    /* test_var_stability */
    x = RT_VEC(TENSOR_FLOAT32, 2281.5, 2281.25);
    tensor_t *v = tensor_var(x, 1, NULL, 0, false);
    assert_true(rt_item(v) == 0.03125);
    tensor_release(v);
    tensor_release(x);
    /* var_mean / std_mean give both, same values as the separate calls */
    x = rt_tensor(2, RT_I64(2, 3), TENSOR_FLOAT64, (const double[]){0, 1, 2, 3, 4, 8});
    tensor_t *m = NULL;
    assert_int_equal(tensor_var_mean(x, 1, RT_INTS(1), 1, false, &v, &m), TENSOR_OK);
    double *gv = rt_read_f64(v), *gm = rt_read_f64(m);
    assert_true(fabs(gv[0] - 1.0) < 1e-12 && fabs(gv[1] - 7.0) < 1e-12);
    assert_true(gm[0] == 1.0 && gm[1] == 5.0);
    free(gv);
    free(gm);
    tensor_release(v);
    tensor_release(m);
    assert_int_equal(tensor_std_mean(x, 0, RT_INTS(1), 1, true, &v, &m), TENSOR_OK);
    RT_ASSERT_SHAPE(v, 2, 1);
    gv = rt_read_f64(v);
    assert_true(fabs(gv[0] - sqrt(2.0 / 3.0)) < 1e-12 && fabs(gv[1] - sqrt(14.0 / 3.0)) < 1e-12);
    free(gv);
    tensor_release(v);
    tensor_release(m);
    /* a non-finite correction is refused */
    RT_EXPECT_ERROR(tensor_var(x, NAN, NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_var");
    RT_EXPECT_ERROR(tensor_std(x, INFINITY, NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT, "tensor_std");
    tensor_release(x);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_float8_sum_gives_float32),
    cmocka_unit_test(test_any_all_uint8_stays_uint8),
    cmocka_unit_test(test_logsumexp_of_ints_is_float32),
    cmocka_unit_test(test_count_nonzero_argmax_int64),
    cmocka_unit_test(test_sum_dtype_casts_first),
    cmocka_unit_test(test_dtype_arg_layouts),
    cmocka_unit_test(test_mean_dtype_rules),
    cmocka_unit_test(test_unsupported_dtype_errors),
    cmocka_unit_test(test_empty_identities),
    cmocka_unit_test(test_empty_shapes),
    cmocka_unit_test(test_empty_errors),
    cmocka_unit_test(test_dim_out_of_range),
    cmocka_unit_test(test_dim_duplicates),
    cmocka_unit_test(test_zero_dim_inputs),
    cmocka_unit_test(test_dims_null_or_empty_mean_all),
    cmocka_unit_test(test_unsorted_dims_keep_input_order),
    cmocka_unit_test(test_argmax_flat_index_is_logical),
    cmocka_unit_test(test_keepdim_shapes),
    cmocka_unit_test(test_nan_first_index_wins),
    cmocka_unit_test(test_ties_first_index),
    cmocka_unit_test(test_first_index_across_chunks),
    cmocka_unit_test(test_signed_zero_and_infinities),
    cmocka_unit_test(test_norm_without_scaling),
    cmocka_unit_test(test_integer_overflow),
    cmocka_unit_test(test_uint8_overflow_table),
    cmocka_unit_test(test_var_correction),
};

TENSOR_TEST_GROUP(reduce_semantics, tests, NULL, NULL)
