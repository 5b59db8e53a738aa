/* tensor_reduce_explain on CUDA tensors: the iterator plan plus the kernel that would launch
 * and its launch configuration, equal to what the host planning call gives for the same
 * iterator and this GPU's properties (the launch calls the same function); every op; the
 * error paths. Needs a GPU. */
#include "cuda_reduce_util.h"

TENSOR_TEST_NEEDS_GPU()

#if TENSOR_HAVE_CUDA
static tensor_t *seed_input(tensor_device dev) {
    tensor_t *flat = tensor_arange(0, 120, 1, TENSOR_FLOAT32, dev);
    assert_non_null(flat);
    int64_t shape[4] = {2, 3, 4, 5};
    tensor_t *x = tensor_view(flat, 4, shape);
    tensor_release(flat);
    assert_non_null(x);
    return x;
}
#endif

/* The seed's x.sum(1, keepdim=True): the explain text holds the launch lines that the host
 * planning call computes for the same iterator with this device's properties. */
static void test_seed_matches_plan(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    tensor_t *x = seed_input(tensor_cuda(0));
    int dim = 1;
    char text[8192];
    int64_t n = tensor_reduce_explain("sum", x, &dim, 1, true, TENSOR_DTYPE_DEFAULT, text, sizeof text);
    if (n < 0) fail_msg("explain: %s", tensor_last_error());
    assert_true(n < (int64_t)sizeof text);
    assert_int_equal((int64_t)strlen(text), n);
    print_message("%s", text);

    int64_t out_shape[4] = {2, 1, 4, 5};
    tensor_t *out = tensor_empty(4, out_shape, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(out);
    tensor_iter_t *it = tensor_iter_reduce_new("explain", out, x, &dim, 1, true, TENSOR_FLOAT32);
    assert_non_null(it);
    tensor_cuda_props props;
    assert_int_equal(tensor_cuda_reduce_device_props(0, &props, "test"), TENSOR_OK);
    tensor_cuda_reduce_kind kind = {4, 4, NULL, NULL, 0, 1};
    char expect[2048];
    int64_t m = tensor_cuda_reduce_explain(it, &props, kind, "sum, float32 -> float32", expect, sizeof expect);
    assert_true(m > 0 && m < (int64_t)sizeof expect);
    if (strstr(text, expect) == NULL) fail_msg("explain lacks the planned launch:\n%s\nexpected:\n%s", text, expect);
    assert_non_null(strstr(text, "cuda launch: block {"));
    assert_non_null(strstr(text, "computation shape"));
    tensor_iter_free(it);
    tensor_release(out);

    /* snprintf contract: a short buffer gets a NUL-terminated prefix and the full length. */
    char small[16];
    assert_int_equal(tensor_reduce_explain("sum", x, &dim, 1, true, TENSOR_DTYPE_DEFAULT, small, sizeof small), n);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_int_equal(tensor_reduce_explain("sum", x, &dim, 1, true, TENSOR_DTYPE_DEFAULT, NULL, 0), n);
    tensor_release(x);
#endif
}

/* sum(a * b) over rows of device tensors: rows of whole 16-byte vectors from the allocator take
 * the aligned-rows kernel (the explain says so, with the vectors per row, and whether a warp
 * folds each row), and the same rows viewed one element in do not. */
static void test_aligned_rows(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    /* rows of 8192 (a CTA each) and of 512 (a warp each) */
    const int64_t nrows[2] = {1000, 5000}, ncols[2] = {8192, 512};
    tensor_cuda_props props;
    assert_int_equal(tensor_cuda_reduce_device_props(0, &props, "test"), TENSOR_OK);
    const tensor_cuda_reduce_kind kind = {4, 4, NULL, NULL, 0, 1};
    for (int k = 0; k < 2; k++) {
        const int64_t sh[2] = {nrows[k], ncols[k] + 1}, osh[1] = {nrows[k]};
        tensor_t *a = tensor_zeros(2, sh, TENSOR_FLOAT32, tensor_cuda(0));
        tensor_t *o = tensor_empty(1, osh, TENSOR_FLOAT32, tensor_cuda(0));
        assert_non_null(a);
        assert_non_null(o);
        char aligned[64];
        snprintf(aligned, sizeof aligned, "aligned rows of %lld vectors", (long long)(ncols[k] / 4));
        for (int start = 0; start <= 1; start++) {
            tensor_t *v = tensor_narrow(a, 1, start, ncols[k]); /* row stride cols + 1: aligned only at 0 ... */
            assert_non_null(v);
            tensor_t *rows = start == 0 ? tensor_contiguous(v) : tensor_retain(v); /* ... so copy it dense */
            assert_non_null(rows);
            tensor_iter_config *cfg = tensor_iter_config_new("explain");
            assert_non_null(cfg);
            assert_int_equal(tensor_iter_config_enable(cfg, TENSOR_ITER_REDUCTION), TENSOR_OK);
            assert_int_equal(tensor_iter_config_add_output(cfg, o), TENSOR_OK);
            assert_int_equal(tensor_iter_config_add_input(cfg, rows), TENSOR_OK);
            assert_int_equal(tensor_iter_config_add_input(cfg, rows), TENSOR_OK);
            const int dim = 1;
            assert_int_equal(tensor_iter_config_reduce_dims(cfg, &dim, 1, false), TENSOR_OK);
            tensor_iter_t *it = tensor_iter_build(cfg);
            tensor_iter_config_free(cfg);
            assert_non_null(it);
            char text[2048];
            const int64_t n = tensor_cuda_reduce_explain(it, &props, kind, "dot", text, sizeof text);
            assert_true(n > 0 && n < (int64_t)sizeof text);
            assert_non_null(strstr(text, "dense rows"));
            if ((strstr(text, "a warp each") != NULL) != (k == 1)) fail_msg("%lld columns: %s", (long long)ncols[k], text);
            if ((strstr(text, aligned) != NULL) != (start == 0)) fail_msg("start %d: %s", start, text);
            tensor_iter_free(it);
            tensor_release(rows);
            tensor_release(v);
        }
        tensor_release(a);
        tensor_release(o);
    }
#endif
}

/* Every op explains; the kernel line names its dtypes and accumulator. */
static void test_every_op(void **state) {
    (void)state;
    static const struct {
        const char *op;
        tensor_dtype dtype;
        const char *kernel;
    } cases[] = {
        {"sum", TENSOR_DTYPE_DEFAULT, "cuda kernel: sum, float16 -> float16, input element 2 B, accumulator 4 B"},
        {"sum", TENSOR_FLOAT64, "cuda kernel: sum, float16 -> float64 (dynamic cast), input element 2 B, accumulator 8 B"},
        {"nansum", TENSOR_DTYPE_DEFAULT, "cuda kernel: nansum, float16 -> float16"},
        {"prod", TENSOR_INT32, "cuda kernel: prod, float16 -> int32 (dynamic cast), input element 2 B, accumulator 8 B"},
        {"mean", TENSOR_DTYPE_DEFAULT, "cuda kernel: mean, float16 -> float16"},
        {"nanmean", TENSOR_FLOAT32, "cuda kernel: nanmean, float16 -> float32, input element 2 B, accumulator 16 B"},
        {"amax", TENSOR_DTYPE_DEFAULT, "cuda kernel: amax, float16 -> float16"},
        {"amin", TENSOR_DTYPE_DEFAULT, "cuda kernel: amin, float16 -> float16"},
        {"max", TENSOR_DTYPE_DEFAULT, "cuda kernel: max, float16 -> float16 + int64, input element 2 B, accumulator 16 B"},
        {"min", TENSOR_DTYPE_DEFAULT, "cuda kernel: min, float16 -> float16 + int64"},
        {"argmax", TENSOR_DTYPE_DEFAULT, "cuda kernel: argmax, float16 -> int64, input element 2 B, accumulator 16 B"},
        {"argmin", TENSOR_DTYPE_DEFAULT, "cuda kernel: argmin, float16 -> int64"},
        {"var", TENSOR_DTYPE_DEFAULT, "cuda kernel: var_mean, float16 -> float16 + float16, input element 2 B, accumulator 16 B"},
        {"std_mean", TENSOR_DTYPE_DEFAULT, "cuda kernel: var_mean, float16 -> float16 + float16"},
        {"norm", TENSOR_DTYPE_DEFAULT, "cuda kernel: norm, float16 -> float16"},
        {"logsumexp", TENSOR_DTYPE_DEFAULT, "cuda kernel: logsumexp, float16 -> float16, input element 2 B, accumulator 8 B"},
        {"count_nonzero", TENSOR_DTYPE_DEFAULT, "cuda kernel: count_nonzero, float16 -> int64"},
        {"all", TENSOR_DTYPE_DEFAULT, "cuda kernel: all, float16 -> bool, input element 2 B, accumulator 1 B"},
        {"any", TENSOR_DTYPE_DEFAULT, "cuda kernel: any, float16 -> bool"},
        {"sum_of_squares", TENSOR_DTYPE_DEFAULT, "cuda kernel: sum_of_squares, float16 -> float16"},
    };
    const int64_t shape[2] = {64, 1000};
    tensor_t *c = cr_random_cpu(2, shape, TENSOR_FLOAT16, 3, M_UNIFORM);
    tensor_t *g = ct_to_gpu(c);
    int dim = 1;
    char text[8192];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t n = tensor_reduce_explain(cases[i].op, g, &dim, 1, false, cases[i].dtype, text, sizeof text);
        if (n < 0) fail_msg("explain %s: %s", cases[i].op, tensor_last_error());
        if (strstr(text, cases[i].kernel) == NULL) fail_msg("explain %s lacks '%s':\n%s", cases[i].op, cases[i].kernel, text);
        assert_non_null(strstr(text, "cuda launch: block {"));
        /* the CPU tensor explains the iterator only */
        n = tensor_reduce_explain(cases[i].op, c, &dim, 1, false, cases[i].dtype, text, sizeof text);
        if (n < 0) fail_msg("explain %s (cpu): %s", cases[i].op, tensor_last_error());
        assert_null(strstr(text, "cuda kernel"));
        assert_non_null(strstr(text, "reduction iterator"));
    }
    tensor_release(g);
    tensor_release(c);
}

/* A split iterator explains each launch (the first few); errors name the argument. */
static void test_split_and_errors(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    const int64_t shape[1] = {100000};
    tensor_t *c = cr_random_cpu(1, shape, TENSOR_FLOAT32, 3, M_UNIFORM);
    tensor_t *g = ct_to_gpu(c);
    char text[16384];
    tensor_cuda_reduce_index_limit = 10000;
    int64_t n = tensor_reduce_explain("argmax", g, NULL, 0, false, TENSOR_DTYPE_DEFAULT, text, sizeof text);
    tensor_cuda_reduce_index_limit = INT64_C(2147483647);
    if (n < 0) fail_msg("explain: %s", tensor_last_error());
    assert_non_null(strstr(text, "launches in all"));

    assert_int_equal(tensor_reduce_explain("sum", NULL, NULL, 0, false, TENSOR_DTYPE_DEFAULT, text, sizeof text), -1);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "argument 't' is NULL");
    assert_int_equal(tensor_reduce_explain("frobnicate", g, NULL, 0, false, TENSOR_DTYPE_DEFAULT, text, sizeof text), -1);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "frobnicate");
    assert_int_equal(tensor_reduce_explain(NULL, g, NULL, 0, false, TENSOR_DTYPE_DEFAULT, text, sizeof text), -1);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "argument 'op' is NULL");
    assert_int_equal(tensor_reduce_explain("sum", g, NULL, 0, false, TENSOR_DTYPE_DEFAULT, NULL, 5), -1);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "argument 'buf' is NULL");
    int bad = 3;
    assert_int_equal(tensor_reduce_explain("sum", g, &bad, 1, false, TENSOR_DTYPE_DEFAULT, text, sizeof text), -1);
    assert_int_equal(tensor_last_status(), TENSOR_ERR_INDEX);
    /* an empty input launches nothing */
    tensor_t *e = tensor_narrow(g, 0, 0, 0);
    assert_non_null(e);
    n = tensor_reduce_explain("sum", e, NULL, 0, false, TENSOR_DTYPE_DEFAULT, text, sizeof text);
    assert_true(n > 0);
    assert_non_null(strstr(text, "no kernel"));
    tensor_release(e);
    tensor_release(g);
    tensor_release(c);
#endif
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_seed_matches_plan),
    cmocka_unit_test(test_aligned_rows),
    cmocka_unit_test(test_every_op),
    cmocka_unit_test(test_split_and_errors),
};

TENSOR_TEST_GROUP(cuda_reduce_explain, tests, NULL, cr_release_scratch)
