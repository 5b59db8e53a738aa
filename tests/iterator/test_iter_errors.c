/* Bad input: every error has a status, a message naming the function and the argument, and
 * leaves no reference behind (refcounts are checked; the ASan preset checks the rest). */
#include <stdatomic.h>

#include "iter_test_util.h"

static long refs(const tensor_t *t) { return atomic_load(&((tensor_t *)t)->refcount); }

/* Builds out = f(inputs...) and expects failure with (status, needle). */
static void expect_build_error(tensor_t *out, tensor_t *const *in, int nin, unsigned flags, tensor_status status,
                               const char *needle) {
    tensor_iter_config *cfg = tensor_iter_config_new("test_op");
    assert_non_null(cfg);
    tensor_iter_config_add_output(cfg, out);
    for (int i = 0; i < nin; i++) tensor_iter_config_add_input(cfg, in[i]);
    tensor_iter_config_enable(cfg, flags);
    tensor_clear_error();
    tensor_iter_t *it = tensor_iter_build(cfg);
    if (it != NULL) fail_msg("expected an error containing \"%s\"", needle);
    assert_error(status, needle);
    assert_error(status, "test_op: ");
    tensor_iter_config_free(cfg);
    if (out) assert_int_equal(refs(out), 1);
    for (int i = 0; i < nin; i++) assert_int_equal(refs(in[i]), 1);
}

static void expect_reduce_error(tensor_t *out, tensor_t *in, const int *dims, int nd, bool keepdim,
                                tensor_dtype dtype, tensor_status status, const char *needle) {
    tensor_clear_error();
    tensor_iter_t *it = tensor_iter_reduce_new("test_sum", out, in, dims, nd, keepdim, dtype);
    if (it != NULL) fail_msg("expected an error containing \"%s\"", needle);
    assert_error(status, needle);
    assert_error(status, "test_sum: ");
    if (out) assert_int_equal(refs(out), 1);
    if (in) assert_int_equal(refs(in), 1);
}

static void test_broadcast_mismatch(void **state) {
    (void)state;
    tensor_t *a = itest_empty(2, I64(2, 3), TENSOR_FLOAT32), *b = itest_empty(2, I64(3, 2), TENSOR_FLOAT32);
    expect_build_error(NULL, (tensor_t *[]){a, b}, 2, 0, TENSOR_ERR_SHAPE,
                       "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
    tensor_t *c = itest_empty(4, I64(5, 2, 4, 1), TENSOR_FLOAT32), *d = itest_empty(3, I64(3, 1, 1), TENSOR_FLOAT32);
    expect_build_error(NULL, (tensor_t *[]){c, d}, 2, 0, TENSOR_ERR_SHAPE,
                       "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1");
    tensor_t *e = itest_empty(1, I64(0), TENSOR_FLOAT32), *f = itest_empty(1, I64(2), TENSOR_FLOAT32);
    expect_build_error(NULL, (tensor_t *[]){e, f}, 2, 0, TENSOR_ERR_SHAPE,
                       "The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 0");
    /* Static shape an input cannot broadcast to. */
    tensor_iter_config *cfg = tensor_iter_config_new("test_op");
    tensor_iter_config_add_output(cfg, NULL);
    tensor_iter_config_add_input(cfg, a);
    tensor_iter_config_declare_static_shape(cfg, 2, I64(2, 4));
    assert_null(tensor_iter_build(cfg));
    assert_error(TENSOR_ERR_SHAPE, "input 0 with shape [2, 3] cannot be broadcast to the declared shape [2, 4]");
    tensor_iter_config_free(cfg);
    tensor_release(a);
    tensor_release(b);
    tensor_release(c);
    tensor_release(d);
    tensor_release(e);
    tensor_release(f);
}

/* Broadcast shapes whose non-zero sizes multiply past int64 are refused, even when a size-0
 * dim makes the iterator empty: views of no memory (stride 0) that broadcast to [2^40, 2^40]
 * and [2^40, 2^40, 0]. */
static void test_element_count_overflow(void **state) {
    (void)state;
    static float cell;
    const int64_t big = INT64_C(1) << 40;
    const int64_t sa[3] = {big, 1, 0}, sb[3] = {1, big, 0}, st[3] = {0, 0, 0};
    for (int nd = 2; nd <= 3; nd++) {
        tensor_t *a = tensor_from_blob(&cell, nd, sa, st, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
        tensor_t *b = tensor_from_blob(&cell, nd, sb, st, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
        assert_non_null(a);
        assert_non_null(b);
        tensor_t *in[2] = {a, b};
        expect_build_error(NULL, in, 2, 0, TENSOR_ERR_OVERFLOW, "more elements than int64 holds");
        tensor_release(a);
        tensor_release(b);
    }
}

static void test_bad_dims(void **state) {
    (void)state;
    tensor_t *m = itest_empty(2, I64(3, 4), TENSOR_FLOAT32), *s = itest_empty(0, NULL, TENSOR_FLOAT32);
    expect_reduce_error(NULL, m, INTS(2), 1, false, TENSOR_FLOAT32, TENSOR_ERR_INDEX,
                        "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    expect_reduce_error(NULL, m, INTS(0, -3), 2, false, TENSOR_FLOAT32, TENSOR_ERR_INDEX,
                        "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
    expect_reduce_error(NULL, s, INTS(1), 1, false, TENSOR_FLOAT32, TENSOR_ERR_INDEX,
                        "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
    expect_reduce_error(NULL, m, INTS(0, -2), 2, false, TENSOR_FLOAT32, TENSOR_ERR_INVALID_ARGUMENT,
                        "dim 0 appears multiple times in the list of dims");
    expect_reduce_error(NULL, m, INTS(1, 1), 2, true, TENSOR_FLOAT32, TENSOR_ERR_INVALID_ARGUMENT,
                        "dim 1 appears multiple times in the list of dims");
    expect_reduce_error(NULL, s, INTS(0, -1), 2, false, TENSOR_FLOAT32, TENSOR_ERR_INVALID_ARGUMENT,
                        "dim 0 appears multiple times in the list of dims");
    /* More dims than a tensor can have; a NULL list with a count. */
    int many[TENSOR_MAX_DIMS + 1] = {0};
    expect_reduce_error(NULL, m, many, TENSOR_MAX_DIMS + 1, false, TENSOR_FLOAT32, TENSOR_ERR_INVALID_ARGUMENT,
                        "reduction dims given");
    expect_reduce_error(NULL, m, NULL, 2, false, TENSOR_FLOAT32, TENSOR_ERR_INVALID_ARGUMENT, "'dims'");
    expect_reduce_error(NULL, NULL, INTS(0), 1, false, TENSOR_FLOAT32, TENSOR_ERR_INVALID_ARGUMENT, "'input'");
    tensor_release(m);
    tensor_release(s);
}

static void test_rank_above_max(void **state) {
    (void)state;
    int64_t sizes[TENSOR_MAX_DIMS + 1];
    for (int i = 0; i <= TENSOR_MAX_DIMS; i++) sizes[i] = 1;
    tensor_iter_config *cfg = tensor_iter_config_new("test_op");
    tensor_clear_error();
    assert_int_equal(tensor_iter_config_declare_static_shape(cfg, TENSOR_MAX_DIMS + 1, sizes),
                     TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "rank 17 is outside [0, 16]");
    tensor_clear_error();
    assert_null(tensor_iter_build(cfg)); /* the config remembers */
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "rank 17 is outside [0, 16]");
    tensor_iter_config_free(cfg);
    /* The runtime refuses such tensors in the first place. */
    assert_null(tensor_empty(TENSOR_MAX_DIMS + 1, sizes, TENSOR_FLOAT32, tensor_cpu()));
}

static void test_mixed_devices(void **state) {
    (void)state;
    tensor_t *g = itest_fake_device(1, I64(4), TENSOR_FLOAT32, tensor_cuda(0));
    tensor_t *c = itest_empty(1, I64(4), TENSOR_FLOAT32);
    expect_build_error(NULL, (tensor_t *[]){c, g}, 2, 0, TENSOR_ERR_DEVICE,
                       "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!");
    expect_build_error(NULL, (tensor_t *[]){g, c}, 2, 0, TENSOR_ERR_DEVICE, "cuda:0 and cpu!");
    /* A defined CUDA output with CPU input. */
    expect_build_error(g, (tensor_t *[]){c}, 1, 0, TENSOR_ERR_DEVICE, "(input 0)");
    /* ALLOW_CPU_SCALARS admits 0-d CPU inputs only: not a 1-d CPU input, not a CPU output. */
    expect_build_error(NULL, (tensor_t *[]){g, c}, 2, TENSOR_ITER_ALLOW_CPU_SCALARS, TENSOR_ERR_DEVICE,
                       "cuda:0 and cpu!");
    tensor_t *c0 = itest_empty(0, NULL, TENSOR_FLOAT32);
    expect_build_error(c, (tensor_t *[]){g}, 1, TENSOR_ITER_ALLOW_CPU_SCALARS, TENSOR_ERR_DEVICE, "(output 0)");
    {
        tensor_t *g3 = itest_fake_device(1, I64(4), TENSOR_FLOAT32, tensor_cuda(0));
        tensor_iter_config *sc = tensor_iter_config_new("test_op");
        tensor_iter_config_add_output(sc, g3);
        tensor_iter_config_add_input(sc, g);
        tensor_iter_config_add_input(sc, c0);
        tensor_iter_config_enable(sc, TENSOR_ITER_ALLOW_CPU_SCALARS);
        tensor_iter_t *si = tensor_iter_build(sc);
        if (si == NULL) fail_msg("0-d CPU input with ALLOW_CPU_SCALARS: %s", tensor_last_error());
        assert_int_equal(tensor_iter_device(si).type, TENSOR_DEVICE_CUDA);
        tensor_iter_free(si);
        tensor_iter_config_free(sc);
        /* without the flag the same operands are refused */
        expect_build_error(g3, (tensor_t *[]){g, c0}, 2, 0, TENSOR_ERR_DEVICE, "(input 1)");
        tensor_release(g3);
    }
    tensor_release(c0);
    /* All on the (absent) GPU: allocating the output fails cleanly without CUDA. */
    if (!tensor_cuda_is_built()) expect_build_error(NULL, (tensor_t *[]){g}, 1, 0, TENSOR_ERR_DEVICE, "cuda:0");
    /* A built CUDA plan cannot run on the CPU loops. */
    tensor_t *g2 = itest_fake_device(1, I64(4), TENSOR_FLOAT32, tensor_cuda(0));
    tensor_iter_config *cfg = tensor_iter_config_new("test_op");
    tensor_iter_config_add_output(cfg, g2);
    tensor_iter_config_add_input(cfg, g);
    tensor_iter_t *it = tensor_iter_build(cfg);
    assert_non_null(it);
    assert_int_equal(tensor_iter_device(it).type, TENSOR_DEVICE_CUDA);
    assert_int_equal(tensor_iter_for_each(it, itest_record_loop, NULL, 0), TENSOR_ERR_DEVICE);
    assert_int_equal(tensor_iter_serial_for_each(it, itest_record_loop, NULL, 0, 4), TENSOR_ERR_DEVICE);
    tensor_iter_free(it);
    tensor_iter_config_free(cfg);
    tensor_release(g2);
    tensor_release(g);
    tensor_release(c);
}

static void test_wrong_output_shape(void **state) {
    (void)state;
    tensor_t *a = itest_empty(2, I64(3, 4), TENSOR_FLOAT32), *o = itest_empty(2, I64(3, 3), TENSOR_FLOAT32);
    expect_build_error(o, (tensor_t *[]){a}, 1, 0, TENSOR_ERR_SHAPE,
                       "output 0 with shape [3, 3] doesn't match the broadcast shape [3, 4]");
    /* In place cannot grow the output: [1,3,1] += [3,1,7]. */
    tensor_t *s = itest_empty(3, I64(1, 3, 1), TENSOR_FLOAT32), *t = itest_empty(3, I64(3, 1, 7), TENSOR_FLOAT32);
    expect_build_error(s, (tensor_t *[]){s, t}, 2, 0, TENSOR_ERR_SHAPE,
                       "output 0 with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]");
    /* Reductions. */
    tensor_t *x = itest_empty(3, I64(16, 128, 64), TENSOR_FLOAT32), *bad = itest_empty(2, I64(16, 64), TENSOR_FLOAT32);
    expect_reduce_error(bad, x, INTS(1), 1, true, TENSOR_FLOAT32, TENSOR_ERR_SHAPE,
                        "expected output 0 to have shape [16, 1, 64] but got [16, 64]");
    tensor_t *bad2 = itest_empty(2, I64(16, 128), TENSOR_FLOAT32);
    expect_reduce_error(bad2, x, INTS(1), 1, false, TENSOR_FLOAT32, TENSOR_ERR_SHAPE,
                        "expected output 0 to have shape [16, 64] (or the keepdim shape [16, 1, 64]) but got [16, 128]");
    /* Two outputs of different shapes. */
    tensor_t *k = itest_empty(3, I64(16, 1, 64), TENSOR_FLOAT32), *q = itest_empty(2, I64(16, 64), TENSOR_INT64);
    tensor_iter_config *cfg = tensor_iter_config_new("test_max");
    tensor_iter_config_add_output_dtype(cfg, k, TENSOR_FLOAT32);
    tensor_iter_config_add_output_dtype(cfg, q, TENSOR_INT64);
    tensor_iter_config_add_input(cfg, x);
    tensor_iter_config_reduce_dims(cfg, INTS(1), 1, false);
    assert_null(tensor_iter_build(cfg));
    assert_error(TENSOR_ERR_SHAPE, "test_max: expected all outputs to have the same shape, but output 0 has [16, 1, 64] "
                                   "and output 1 has [16, 64]");
    tensor_iter_config_free(cfg);
    /* A declared shape and a pre-viewed reduction output: each of its dims is the shape's size
     * or 1; a smaller one would be walked past its end (found by fuzz_iter). */
    tensor_t *small = itest_empty(1, I64(2), TENSOR_FLOAT32), *big = itest_empty(1, I64(4), TENSOR_FLOAT32);
    cfg = tensor_iter_config_new("test_op");
    tensor_iter_config_add_output(cfg, small);
    tensor_iter_config_add_input(cfg, big);
    tensor_iter_config_enable(cfg, TENSOR_ITER_REDUCTION);
    tensor_iter_config_declare_static_shape(cfg, 1, I64(4));
    assert_null(tensor_iter_build(cfg));
    assert_error(TENSOR_ERR_SHAPE, "test_op: output 0 with shape [2] does not fit the shape [4] (a reduction output has its rank, "
                                   "and on each dim its size or 1 if reduced)");
    tensor_iter_config_free(cfg);
    cfg = tensor_iter_config_new("test_op");
    tensor_iter_config_add_output(cfg, big);
    tensor_iter_config_enable(cfg, TENSOR_ITER_REDUCTION);
    tensor_iter_config_declare_static_shape(cfg, 1, I64(2));
    assert_null(tensor_iter_build(cfg));
    assert_error(TENSOR_ERR_SHAPE, "output 0 with shape [4] does not fit the shape [2]");
    tensor_iter_config_free(cfg);
    /* size 1 (reduced) or the shape's size are fine */
    tensor_t *one = itest_empty(1, I64(1), TENSOR_FLOAT32);
    for (int j = 0; j < 2; j++) {
        cfg = tensor_iter_config_new("test_op");
        tensor_iter_config_add_output(cfg, j ? one : big);
        tensor_iter_config_add_input(cfg, big);
        tensor_iter_config_enable(cfg, TENSOR_ITER_REDUCTION);
        tensor_iter_config_declare_static_shape(cfg, 1, I64(4));
        tensor_iter_t *it = tensor_iter_build(cfg);
        assert_non_null(it);
        assert_int_equal(tensor_iter_num_reduce_dims(it), j);
        tensor_iter_free(it);
        tensor_iter_config_free(cfg);
    }
    tensor_release(small);
    tensor_release(big);
    tensor_release(one);
    /* A reduction without dims cannot allocate. */
    cfg = tensor_iter_config_new("test_op");
    tensor_iter_config_add_output(cfg, NULL);
    tensor_iter_config_add_input(cfg, x);
    tensor_iter_config_enable(cfg, TENSOR_ITER_REDUCTION);
    assert_null(tensor_iter_build(cfg));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "output 0 is undefined");
    tensor_iter_config_free(cfg);
    /* Nothing to take a shape from. */
    cfg = tensor_iter_config_new("test_op");
    tensor_iter_config_add_output(cfg, NULL);
    assert_null(tensor_iter_build(cfg));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "cannot infer the shape");
    tensor_iter_config_free(cfg);
    cfg = tensor_iter_config_new("test_op");
    assert_null(tensor_iter_build(cfg));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "no operands");
    tensor_iter_config_free(cfg);
    tensor_t *all[] = {a, o, s, t, x, bad, bad2, k, q};
    for (size_t n = 0; n < sizeof all / sizeof all[0]; n++) assert_int_equal(refs(all[n]), 1);
    tensor_release(a);
    tensor_release(o);
    tensor_release(s);
    tensor_release(t);
    tensor_release(x);
    tensor_release(bad);
    tensor_release(bad2);
    tensor_release(k);
    tensor_release(q);
}

static void test_wrong_dtype(void **state) {
    (void)state;
    tensor_t *f = itest_empty(1, I64(4), TENSOR_FLOAT32), *i = itest_empty(1, I64(4), TENSOR_INT32);
    tensor_t *d = itest_empty(1, I64(4), TENSOR_FLOAT64), *x = itest_empty(2, I64(4, 3), TENSOR_FLOAT32);
    expect_build_error(NULL, (tensor_t *[]){f, i}, 2, 0, TENSOR_ERR_DTYPE, "Found dtype int32 but expected float32 (input 1)");
    expect_build_error(d, (tensor_t *[]){f}, 1, 0, TENSOR_ERR_DTYPE, "Found dtype float64 but expected float32 (output 0)");
    expect_build_error(i, (tensor_t *[]){f, f}, 2, TENSOR_ITER_PROMOTE_INPUTS | TENSOR_ITER_CAST_TO_OUTPUTS,
                       TENSOR_ERR_DTYPE, "result type float32 can't be cast to the desired output type int32");
    expect_build_error(i, (tensor_t *[]){f}, 1, TENSOR_ITER_PROMOTE_INPUTS, TENSOR_ERR_DTYPE,
                       "Found dtype int32 but expected float32");
    expect_reduce_error(i, x, INTS(1), 1, false, TENSOR_FLOAT32, TENSOR_ERR_DTYPE,
                        "expected output 0 to have dtype float32 but got int32");
    expect_reduce_error(NULL, x, INTS(1), 1, false, (tensor_dtype)99, TENSOR_ERR_DTYPE, "unknown dtype 99");
    /* Mixed inputs without promotion cannot type an undefined output. */
    tensor_iter_config *cfg = tensor_iter_config_new("test_op");
    tensor_iter_config_add_output(cfg, NULL);
    tensor_iter_config_add_input(cfg, f);
    tensor_iter_config_add_input(cfg, i);
    tensor_iter_config_disable(cfg, TENSOR_ITER_SAME_DTYPE);
    assert_null(tensor_iter_build(cfg));
    assert_error(TENSOR_ERR_DTYPE, "cannot infer the dtype of output 0");
    tensor_iter_config_free(cfg);
    /* Float8 promotion errors come from the runtime, prefixed with the op. */
    tensor_t *f8 = itest_empty(1, I64(4), TENSOR_FLOAT8_E4M3FN);
    expect_build_error(NULL, (tensor_t *[]){f8, f}, 2, TENSOR_ITER_PROMOTE_INPUTS, TENSOR_ERR_DTYPE, "Float8");
    tensor_release(f8);
    tensor_release(f);
    tensor_release(i);
    tensor_release(d);
    tensor_release(x);
}

static void test_overlap(void **state) {
    (void)state;
    tensor_t *base = itest_empty(1, I64(10), TENSOR_FLOAT32);
    tensor_t *lo = tensor_narrow(base, 0, 0, 5), *hi = tensor_narrow(base, 0, 2, 5);
    expect_build_error(lo, (tensor_t *[]){hi}, 1, 0, TENSOR_ERR_INVALID_ARGUMENT,
                       "some elements of the input tensor and the written-to tensor refer to a single memory location");
    /* Interleaved halves share a range but no element: allowed. */
    tensor_t *even = tensor_slice(base, 0, 0, 10, 2), *odd = tensor_slice(base, 0, 1, 10, 2);
    tensor_iter_config *cfg = tensor_iter_config_new("test_op");
    tensor_iter_config_add_output(cfg, even);
    tensor_iter_config_add_input(cfg, odd);
    tensor_iter_t *it = tensor_iter_build(cfg);
    assert_non_null(it);
    tensor_iter_free(it);
    tensor_iter_config_free(cfg);
    /* Disjoint halves of one storage: allowed. */
    tensor_t *far = tensor_narrow(base, 0, 5, 5);
    cfg = tensor_iter_config_new("test_op");
    tensor_iter_config_add_output(cfg, lo);
    tensor_iter_config_add_input(cfg, far);
    it = tensor_iter_build(cfg);
    assert_non_null(it);
    tensor_iter_free(it);
    /* The same partial overlap is accepted with CHECK_OVERLAP off. */
    tensor_iter_config_free(cfg);
    cfg = tensor_iter_config_new("test_op");
    tensor_iter_config_add_output(cfg, lo);
    tensor_iter_config_add_input(cfg, hi);
    tensor_iter_config_disable(cfg, TENSOR_ITER_CHECK_OVERLAP);
    it = tensor_iter_build(cfg);
    assert_non_null(it);
    tensor_iter_free(it);
    tensor_iter_config_free(cfg);
    /* An expanded output writes one element many times. */
    tensor_t *one = itest_empty(2, I64(1, 4), TENSOR_FLOAT32);
    tensor_t *wide = tensor_expand(one, 2, I64(3, 4));
    tensor_t *src = itest_empty(2, I64(3, 4), TENSOR_FLOAT32);
    expect_build_error(wide, (tensor_t *[]){src}, 1, 0, TENSOR_ERR_INVALID_ARGUMENT,
                       "more than one element of the written-to tensor refers to a single memory location");
    /* A reduction output that overlaps its input. */
    tensor_t *m = itest_empty(2, I64(4, 4), TENSOR_FLOAT32);
    tensor_t *row = tensor_narrow(m, 0, 1, 1);
    expect_reduce_error(row, m, INTS(0), 1, true, TENSOR_FLOAT32, TENSOR_ERR_INVALID_ARGUMENT,
                        "some elements of the input tensor and the written-to tensor");
    tensor_release(row);
    tensor_release(m);
    tensor_release(src);
    tensor_release(wide);
    tensor_release(one);
    tensor_release(far);
    tensor_release(even);
    tensor_release(odd);
    tensor_release(lo);
    tensor_release(hi);
    tensor_release(base);
}

static void test_config_misuse(void **state) {
    (void)state;
    tensor_t *a = itest_empty(1, I64(4), TENSOR_FLOAT32);
    tensor_iter_config *cfg = tensor_iter_config_new(NULL);
    assert_int_equal(tensor_iter_config_add_input(cfg, a), TENSOR_OK);
    assert_int_equal(tensor_iter_config_add_output(cfg, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_iter_build: outputs must be added before inputs");
    tensor_clear_error();
    assert_null(tensor_iter_build(cfg));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "outputs must be added before inputs");
    tensor_iter_config_free(cfg);
    /* Too many operands. */
    cfg = tensor_iter_config_new("test_op");
    for (int k = 0; k < TENSOR_ITER_MAX_OPERANDS; k++) assert_int_equal(tensor_iter_config_add_input(cfg, a), TENSOR_OK);
    assert_int_equal(tensor_iter_config_add_input(cfg, a), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "test_op: too many operands (at most 8)");
    assert_int_equal(refs(a), 1 + TENSOR_ITER_MAX_OPERANDS);
    assert_null(tensor_iter_build(cfg));
    tensor_iter_config_free(cfg);
    assert_int_equal(refs(a), 1);
    /* NULLs and unknown flags. */
    cfg = tensor_iter_config_new("test_op");
    assert_int_equal(tensor_iter_config_add_input(cfg, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "test_op: argument 'input 0' is NULL");
    assert_int_equal(tensor_iter_config_enable(cfg, 1u << 20), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_iter_config_declare_static_shape(cfg, 1, I64(-1)), TENSOR_ERR_INVALID_ARGUMENT);
    tensor_iter_config_free(cfg);
    assert_int_equal(tensor_iter_config_add_input(NULL, a), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_iter_config_add_output(NULL, a), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_iter_config_enable(NULL, 0), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_iter_config_reduce_dims(NULL, NULL, 0, false), TENSOR_ERR_INVALID_ARGUMENT);
    assert_null(tensor_iter_build(NULL));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_iter_build: argument 'cfg' is NULL");
    tensor_iter_config_free(NULL);
    /* Accessors on NULL. */
    assert_int_equal(tensor_iter_ndim(NULL), 0);
    assert_null(tensor_iter_shape(NULL));
    assert_int_equal(tensor_iter_numel(NULL), 0);
    assert_null(tensor_iter_data(NULL, 0));
    assert_null(tensor_iter_strides(NULL, 0));
    assert_null(tensor_iter_output(NULL, 0));
    assert_int_equal(tensor_iter_num_reduce_dims(NULL), 0);
    assert_false(tensor_iter_can_use_32bit_indexing(NULL));
    assert_null(tensor_iter_copy(NULL));
    tensor_iter_free(NULL);
    assert_int_equal(tensor_iter_explain(NULL, NULL, 0), -1);
    assert_int_equal(tensor_set_num_threads(-1), TENSOR_ERR_INVALID_ARGUMENT);
    /* A count the OpenMP runtime would crash on is refused, and the setting stays. */
    const int before = tensor_get_num_threads();
    assert_int_equal(tensor_set_num_threads(65536), TENSOR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(tensor_last_error(), "more than TENSOR_MAX_THREADS"));
    assert_int_equal(tensor_get_num_threads(), before);
    assert_int_equal(tensor_set_num_threads(TENSOR_MAX_THREADS + 1), TENSOR_ERR_INVALID_ARGUMENT);
    tensor_release(a);
}

static void test_narrow_split_misuse(void **state) {
    (void)state;
    tensor_t *a = itest_empty(2, I64(3, 5), TENSOR_FLOAT32);
    tensor_t *t = tensor_transpose(a, 0, 1);
    tensor_iter_config *cfg = tensor_iter_config_new("test_op");
    tensor_iter_config_add_output(cfg, NULL);
    tensor_iter_config_add_input(cfg, t);
    tensor_iter_config_enable(cfg, TENSOR_ITER_LINEAR);
    tensor_iter_t *it = tensor_iter_build(cfg);
    assert_non_null(it);
    assert_int_equal(tensor_iter_ndim(it), 2);
    assert_int_equal(tensor_iter_narrow(it, 2, 0, 1), TENSOR_ERR_INDEX);
    assert_int_equal(tensor_iter_narrow(it, 0, 2, 2), TENSOR_ERR_INDEX);
    assert_int_equal(tensor_iter_narrow(it, 0, -1, 1), TENSOR_ERR_INDEX);
    assert_int_equal(tensor_iter_narrow(NULL, 0, 0, 1), TENSOR_ERR_INVALID_ARGUMENT);
    assert_null(tensor_iter_split(it, 5));
    assert_error(TENSOR_ERR_INDEX, "cannot be split");
    assert_int_equal(tensor_iter_narrow(it, 0, 1, 1), TENSOR_OK);
    assert_null(tensor_iter_split(it, 0)); /* size 1 now */
    assert_null(tensor_iter_splitter_new(it, 0));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "limit 0 must be >= 1");
    const tensor_iter_t *p;
    assert_int_equal(tensor_iter_splitter_next(NULL, &p), TENSOR_ERR_INVALID_ARGUMENT);
    assert_null(p);
    assert_int_equal(tensor_iter_count_pieces(NULL, 10), -1);
    assert_int_equal(tensor_iter_serial_for_each(it, itest_record_loop, NULL, 3, 1), TENSOR_ERR_INDEX);
    assert_int_equal(tensor_iter_serial_for_each(it, NULL, NULL, 0, 1), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_iter_for_each(NULL, itest_record_loop, NULL, 0), TENSOR_ERR_INVALID_ARGUMENT);
    tensor_iter_free(it);
    tensor_iter_config_free(cfg);
    tensor_release(t);
    tensor_release(a);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_broadcast_mismatch), cmocka_unit_test(test_bad_dims),
    cmocka_unit_test(test_rank_above_max),     cmocka_unit_test(test_mixed_devices),
    cmocka_unit_test(test_wrong_output_shape), cmocka_unit_test(test_wrong_dtype),
    cmocka_unit_test(test_overlap),            cmocka_unit_test(test_config_misuse),
    cmocka_unit_test(test_narrow_split_misuse), cmocka_unit_test(test_element_count_overflow),
};

TENSOR_TEST_GROUP(iter_errors, tests, NULL, NULL)
