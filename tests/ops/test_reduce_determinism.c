/* Bitwise reproducibility (ops.h): the same call twice gives the same bits, and so
 * do 1 and 2 threads, on tensors large enough (> 2^20 elements) that the CPU backend splits
 * the work, over the inner dim, an outer dim and all dims. */
#include "reduce_test_util.h"

typedef tensor_t *(*reduce_fn)(const tensor_t *t, int which);

/* which: 0 = inner dim, 1 = outer dim, 2 = all dims */
static const int *which_dims(int which, int *n) {
    static const int inner = 1, outer = 0;
    *n = which == 2 ? 0 : 1;
    return which == 0 ? &inner : which == 1 ? &outer : NULL;
}
static tensor_t *do_sum(const tensor_t *t, int which) {
    int n;
    const int *d = which_dims(which, &n);
    return tensor_sum_dims(t, d, n, false, TENSOR_DTYPE_DEFAULT);
}
static tensor_t *do_mean(const tensor_t *t, int which) {
    int n;
    const int *d = which_dims(which, &n);
    return tensor_mean(t, d, n, false, TENSOR_DTYPE_DEFAULT);
}
static tensor_t *do_var(const tensor_t *t, int which) {
    int n;
    const int *d = which_dims(which, &n);
    return tensor_var(t, 1, d, n, false);
}
static tensor_t *do_norm(const tensor_t *t, int which) {
    int n;
    const int *d = which_dims(which, &n);
    return tensor_norm(t, 2, d, n, false);
}
static tensor_t *do_lse(const tensor_t *t, int which) {
    int n;
    const int *d = which_dims(which, &n);
    return tensor_logsumexp(t, d, n, false);
}
static tensor_t *do_argmax(const tensor_t *t, int which) {
    int n;
    const int *d = which_dims(which, &n);
    return tensor_argmax(t, d, false);
}

static int check_reproducible(const char *name, reduce_fn fn, const tensor_t *x) {
    int bad = 0;
    for (int which = 0; which < 3; which++) {
        assert_int_equal(tensor_set_num_threads(2), TENSOR_OK);
        tensor_t *a = fn(x, which);
        tensor_t *b = fn(x, which);
        assert_int_equal(tensor_set_num_threads(1), TENSOR_OK);
        tensor_t *c = fn(x, which);
        assert_non_null(a);
        assert_non_null(b);
        assert_non_null(c);
        if (!rt_bitwise_equal(a, b)) {
            fprintf(stderr, "NONDETERMINISTIC %s %s which=%d: two runs differ\n", name,
                    tensor_dtype_name(tensor_get_dtype(x)), which);
            bad++;
        }
        if (!rt_bitwise_equal(a, c)) {
            fprintf(stderr, "NONDETERMINISTIC %s %s which=%d: 1 vs 2 threads differ\n", name,
                    tensor_dtype_name(tensor_get_dtype(x)), which);
            bad++;
        }
        tensor_release(a);
        tensor_release(b);
        tensor_release(c);
    }
    assert_int_equal(tensor_set_num_threads(0), TENSOR_OK);
    return bad;
}

static void test_threads_bitwise_equal_sum(void **state) {
    (void)state;
    int bad = 0;
    /* [1024, 1031]: 1,055,744 elements > 2^20 */
    tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_BFLOAT16};
    for (int i = 0; i < RT_NELEM(dts); i++) {
        tensor_t *x = tensor_randn(2, RT_I64(1024, 1031), 42 + (uint64_t)i, dts[i], tensor_cpu());
        assert_non_null(x);
        bad += check_reproducible("sum", do_sum, x);
        tensor_t *t = tensor_transpose(x, 0, 1); /* the same on a transposed view */
        bad += check_reproducible("sum(transposed)", do_sum, t);
        tensor_release(t);
        tensor_release(x);
    }
    /* a 1-D float32 tensor of 2^20 + 7 elements, and a tall-skinny one */
    tensor_t *x = tensor_rand(1, RT_I64((1 << 20) + 7), 5, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *x2 = tensor_view(x, 2, RT_I64(1, (1 << 20) + 7));
    bad += check_reproducible("sum(1-D)", do_sum, x2);
    tensor_release(x2);
    tensor_release(x);
    x = tensor_randn(2, RT_I64(262147, 4), 6, TENSOR_FLOAT32, tensor_cpu());
    bad += check_reproducible("sum(tall)", do_sum, x);
    tensor_release(x);
    if (bad) fail_msg("%d sums were not bitwise reproducible", bad);
}

static void test_threads_bitwise_equal_other_ops(void **state) {
    (void)state;
    int bad = 0;
    tensor_t *x = tensor_randn(2, RT_I64(1024, 1031), 77, TENSOR_FLOAT32, tensor_cpu());
    bad += check_reproducible("mean", do_mean, x);
    bad += check_reproducible("var", do_var, x);
    bad += check_reproducible("norm", do_norm, x);
    bad += check_reproducible("logsumexp", do_lse, x);
    bad += check_reproducible("argmax", do_argmax, x);
    tensor_release(x);
    x = tensor_randn(2, RT_I64(1024, 1031), 78, TENSOR_FLOAT16, tensor_cpu());
    bad += check_reproducible("mean f16", do_mean, x);
    bad += check_reproducible("var f16", do_var, x);
    tensor_release(x);
    if (bad) fail_msg("%d reductions were not bitwise reproducible", bad);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_threads_bitwise_equal_sum),
    cmocka_unit_test(test_threads_bitwise_equal_other_ops),
};

TENSOR_TEST_GROUP(reduce_determinism, tests, NULL, NULL)
