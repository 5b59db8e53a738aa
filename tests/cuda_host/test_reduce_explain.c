/* Explain's CUDA lines without a GPU: tensor_cuda_reduce_explain (cuda/reduce_explain.c) for
 * the seed's x = arange(120.).reshape(2, 3, 4, 5), x.sum(1, keepdim=True), on a 132-SM
 * 2048-threads-per-SM device. The launch (reduce_host.c) plans through the same
 * tensor_cuda_reduce_plan_config, so this is the configuration that launches on an H100. */
#include <string.h>

#include "test_main.h"
#include "cuda/reduce_host.h"

static const tensor_cuda_props h100 = {132, 2048, 32};

/* x.sum(dims) for a float32 input of `shape` (fake, aligned data pointers: planning reads
 * only the addresses' alignment). */
static tensor_iter_t *seed_iter(int ndim, const int64_t *shape, const int *dims, int ndims, tensor_t **in) {
    *in = tensor_from_blob((void *)(uintptr_t)0x100000, ndim, shape, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_non_null(*in);
    int64_t out_shape[TENSOR_MAX_DIMS];
    for (int d = 0; d < ndim; d++) out_shape[d] = shape[d];
    for (int i = 0; i < ndims; i++) out_shape[dims[i]] = 1;
    tensor_t *out = tensor_from_blob((void *)(uintptr_t)0x200000, ndim, out_shape, NULL, TENSOR_FLOAT32, tensor_cpu(),
                                     NULL, NULL);
    assert_non_null(out);
    tensor_iter_t *it = tensor_iter_reduce_new("explain", out, *in, dims, ndims, true, TENSOR_FLOAT32);
    tensor_release(out);
    assert_non_null(it);
    return it;
}

static void test_seed_printout(void **state) {
    (void)state;
    const int64_t shape[4] = {2, 3, 4, 5};
    const int dim = 1;
    tensor_t *in;
    tensor_iter_t *it = seed_iter(4, shape, &dim, 1, &in);
    tensor_cuda_reduce_kind kind = {4, 4, NULL, NULL, 0, 1};
    char text[2048];
    int64_t n = tensor_cuda_reduce_explain(it, &h100, kind, "sum, float32 -> float32", text, sizeof text);
    print_message("%s", text);
    /* 40 outputs of 3 inputs each, the kept dims contiguous: 4 neighbouring outputs per load
     * (output_vec_size 4), so 10 output vectors over a {8, 2} block of lanes and warps that
     * both split outputs (output_mult {1, 8}); 16 threads, as PyTorch's seed trace
     * (output_mult {1, 8}, 2048 / 16 blocks per SM, as PyTorch plans it). */
    const char *expect =
        "  cuda kernel: sum, float32 -> float32, input element 4 B, accumulator 4 B\n"
        "  cuda launch: block {8, 2}, grid {1, 1}, reducing a strided dim, input_mult {0, 0, 0}, output_mult {1, 8}, "
        "step_input 1, step_output 16, vectorize_input no (x4), output_vec_size 4, vt0 4, values_per_thread 3, "
        "ctas_per_output 1, shared 0 B, staging 0 B, semaphores 0 B\n";
    assert_string_equal(text, expect);
    assert_int_equal(n, (int64_t)strlen(expect));
    /* the configuration itself, through the same planning call */
    tensor_reduce_config c;
    assert_int_equal(tensor_cuda_reduce_plan_config(it, &h100, kind, &c), TENSOR_OK);
    char launch[1024];
    tensor_reduce_config_format(&c, launch, sizeof launch);
    assert_non_null(strstr(text, launch));
    tensor_iter_free(it);
    tensor_release(in);
}

/* snprintf contract and errors. */
static void test_contract(void **state) {
    (void)state;
    const int64_t shape[2] = {64, 1000};
    const int dim = 1;
    tensor_t *in;
    tensor_iter_t *it = seed_iter(2, shape, &dim, 1, &in);
    tensor_cuda_reduce_kind kind = {2, 4, NULL, NULL, 0, 1};
    int64_t n = tensor_cuda_reduce_explain(it, &h100, kind, "sum, float16 -> float16", NULL, 0);
    assert_true(n > 0);
    char small[8];
    assert_int_equal(tensor_cuda_reduce_explain(it, &h100, kind, "sum, float16 -> float16", small, sizeof small), n);
    assert_int_equal(strlen(small), 7);
    assert_int_equal(tensor_cuda_reduce_explain(it, &h100, kind, "x", NULL, 4), -1);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "argument 'buf' is NULL");
    assert_int_equal(tensor_cuda_reduce_explain(NULL, &h100, kind, "x", small, sizeof small), -1);
    assert_int_equal(tensor_last_status(), TENSOR_ERR_INVALID_ARGUMENT);
    /* traits of a kind: 16-byte vectors */
    tensor_reduce_kernel_traits t = tensor_cuda_reduce_traits(kind);
    assert_int_equal(t.input_vec_size, 8);
    assert_int_equal(t.vt0, 8);
    assert_int_equal(t.acc_size, 4);
    tensor_iter_free(it);
    tensor_release(in);
}

/* What the planner asked the backend about residency (the fake answers `answer`). */
typedef struct {
    int answer, calls, ovs, threads;
    size_t smem;
} resident_probe;

static int fake_resident(const void *ctx, int ovs, int threads, size_t smem) {
    resident_probe *r = (resident_probe *)ctx;
    r->calls++;
    r->ovs = ovs;
    r->threads = threads;
    r->smem = smem;
    return r->answer;
}

/* Accumulators of 16 bytes (var's Welford) take at most 2 outputs per load; a global reduce's
 * grid is sized by the CTAs the compiled kernel fits on an SM, when the backend says, and then
 * is at most one wave of them. */
static void test_register_limited_residency(void **state) {
    (void)state;
    const tensor_cuda_reduce_kind k4 = {4, 4, NULL, NULL, 0, 1}, k8 = {4, 8, NULL, NULL, 0, 1}, k16 = {4, 16, NULL, NULL, 0, 1},
                                  k32 = {4, 32, NULL, NULL, 0, 1};
    assert_int_equal(tensor_cuda_reduce_traits(k4).max_output_vec, 4);
    assert_int_equal(tensor_cuda_reduce_traits(k8).max_output_vec, 4);
    assert_int_equal(tensor_cuda_reduce_traits(k16).max_output_vec, 2);
    assert_int_equal(tensor_cuda_reduce_traits(k32).max_output_vec, 1);

    tensor_t *in;
    int64_t shape[2] = {8192, 8192};
    int dim = 0;
    tensor_iter_t *it = seed_iter(2, shape, &dim, 1, &in);
    tensor_reduce_config base, c;
    assert_int_equal(tensor_cuda_reduce_plan_config(it, &h100, k16, &base), TENSOR_OK);
    assert_int_equal(base.output_vec_size, 2);
    assert_int_equal(base.num_threads, 256);
    assert_int_equal(base.grid[0], 128);
    /* 8 CTAs of 256 threads an SM, 1056 slots over 128 columns: 8 a column fill one wave
     * (1024 CTAs); PyTorch's 9 would spill 96 into a second */
    assert_int_equal(base.grid[1], 8);

    resident_probe r = {5, 0, 0, 0, 0};
    tensor_cuda_reduce_kind kr = {4, 16, fake_resident, &r, 0, 1};
    assert_int_equal(tensor_cuda_reduce_plan_config(it, &h100, kr, &c), TENSOR_OK);
    assert_int_equal(r.calls, 1);
    assert_int_equal(r.ovs, 2);
    assert_int_equal(r.threads, 256);
    assert_int_equal(r.smem, (size_t)16 * 256 * 2);
    assert_int_equal(c.grid[0], 128);
    assert_int_equal(c.grid[1], 5); /* one wave of 5 an SM: 640 CTAs <= 660 */
    assert_int_equal(c.ctas_per_output, 5);
    assert_true(c.grid[0] * c.grid[1] <= 132 * 5);

    /* As many as the threads allow, or no answer: the plan is unchanged. */
    for (int answer = 0; answer <= 16; answer += 8) {
        r.answer = answer;
        assert_int_equal(tensor_cuda_reduce_plan_config(it, &h100, kr, &c), TENSOR_OK);
        assert_int_equal(c.grid[1], base.grid[1]);
    }
    tensor_iter_free(it);
    tensor_release(in);

    /* Without a global reduce the question is not asked. */
    int64_t rows[2] = {8192, 8192};
    int d1 = 1;
    it = seed_iter(2, rows, &d1, 1, &in);
    r.calls = 0;
    r.answer = 1;
    assert_int_equal(tensor_cuda_reduce_plan_config(it, &h100, kr, &c), TENSOR_OK);
    assert_int_equal(r.calls, 0);
    tensor_iter_free(it);
    tensor_release(in);
}

/* A global reduce's CTAs per output fill whole waves: 64 long rows on 528 slots (4 CTAs of 512
 * an SM) take 8 CTAs each, one wave, where rounding 528 / 64 up gives 576 CTAs and a second
 * wave of 48; a row count that divides the wave keeps it. */
static void test_global_reduce_waves(void **state) {
    (void)state;
    const tensor_cuda_reduce_kind k4 = {4, 4, NULL, NULL, 0, 1};
    /* 300 rows: 1 a row fills 300 of 528 slots in one wave, 2 fill 600 of 1056 in two; a tie
     * keeps PyTorch's 2 */
    const int64_t shapes[3][2] = {{64, 1 << 19}, {132, 1 << 19}, {300, 1 << 17}};
    const int64_t want[3] = {8, 4, 2};
    for (int i = 0; i < 3; i++) {
        tensor_t *in;
        int d1 = 1;
        tensor_iter_t *it = seed_iter(2, shapes[i], &d1, 1, &in);
        tensor_reduce_config c;
        assert_int_equal(tensor_cuda_reduce_plan_config(it, &h100, k4, &c), TENSOR_OK);
        assert_int_equal(c.num_threads, 512);
        assert_int_equal(c.grid[0], shapes[i][0]);
        assert_int_equal(c.grid[1], want[i]);
        if (i < 2) assert_true(c.grid[0] * c.grid[1] <= 132 * 4); /* one wave */
        tensor_iter_free(it);
        tensor_release(in);
    }
}

/* The ops-level tensor_reduce_explain on a CPU tensor (no GPU needed): the iterator's plan,
 * no CUDA lines; every op name; the error paths, with nothing leaked (ASan preset). */
static void test_ops_explain_cpu(void **state) {
    (void)state;
    tensor_t *flat = tensor_arange(0, 120, 1, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(flat);
    int64_t shape[4] = {2, 3, 4, 5};
    tensor_t *x = tensor_view(flat, 4, shape);
    tensor_release(flat);
    assert_non_null(x);
    const char *ops[] = {"sum", "nansum", "prod", "mean", "nanmean", "amax", "amin", "max", "min", "argmax", "argmin",
                         "var", "std", "var_mean", "std_mean", "norm", "logsumexp", "count_nonzero", "all", "any",
                         "sum_of_squares"};
    int dim = 1;
    char text[4096];
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        int64_t n = tensor_reduce_explain(ops[i], x, &dim, 1, true, TENSOR_DTYPE_DEFAULT, text, sizeof text);
        if (n < 0) fail_msg("explain %s: %s", ops[i], tensor_last_error());
        assert_int_equal((int64_t)strlen(text), n);
        assert_non_null(strstr(text, "reduction iterator"));
        assert_null(strstr(text, "cuda kernel"));
    }
    assert_int_equal(tensor_reduce_explain("sum", NULL, NULL, 0, false, TENSOR_DTYPE_DEFAULT, text, sizeof text), -1);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "argument 't' is NULL");
    assert_int_equal(tensor_reduce_explain("nope", x, NULL, 0, false, TENSOR_DTYPE_DEFAULT, text, sizeof text), -1);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "names no reduction");
    assert_int_equal(tensor_reduce_explain(NULL, x, NULL, 0, false, TENSOR_DTYPE_DEFAULT, text, sizeof text), -1);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "argument 'op' is NULL");
    assert_int_equal(tensor_reduce_explain("sum", x, NULL, 0, false, TENSOR_DTYPE_DEFAULT, NULL, 3), -1);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "argument 'buf' is NULL");
    assert_int_equal(tensor_reduce_explain("sum", x, NULL, 0, false, (tensor_dtype)99, text, sizeof text), -1);
    assert_int_equal(tensor_last_status(), TENSOR_ERR_DTYPE);
    int bad = 7;
    assert_int_equal(tensor_reduce_explain("amax", x, &bad, 1, false, TENSOR_DTYPE_DEFAULT, text, sizeof text), -1);
    assert_int_equal(tensor_last_status(), TENSOR_ERR_INDEX);
    tensor_t *xi = tensor_to_dtype(x, TENSOR_INT32);
    assert_non_null(xi);
    assert_int_equal(tensor_reduce_explain("mean", xi, NULL, 0, false, TENSOR_DTYPE_DEFAULT, text, sizeof text), -1);
    assert_int_equal(tensor_last_status(), TENSOR_ERR_DTYPE);
    assert_true(tensor_reduce_explain("mean", xi, NULL, 0, false, TENSOR_FLOAT64, text, sizeof text) > 0);
    tensor_release(xi);
    /* empty input: no kernel; amax of an empty dim: the op's own error */
    tensor_t *e = tensor_narrow(x, 1, 0, 0);
    assert_non_null(e);
    assert_true(tensor_reduce_explain("sum", e, &dim, 1, false, TENSOR_DTYPE_DEFAULT, text, sizeof text) > 0);
    assert_non_null(strstr(text, "no kernel"));
    assert_int_equal(tensor_reduce_explain("amax", e, &dim, 1, false, TENSOR_DTYPE_DEFAULT, text, sizeof text), -1);
    assert_int_equal(tensor_last_status(), TENSOR_ERR_INDEX);
    tensor_release(e);
    tensor_release(x);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_seed_printout),
    cmocka_unit_test(test_register_limited_residency),
    cmocka_unit_test(test_global_reduce_waves),
    cmocka_unit_test(test_contract),
    cmocka_unit_test(test_ops_explain_cpu),
};

TENSOR_TEST_GROUP(reduce_explain, tests, NULL, NULL)
