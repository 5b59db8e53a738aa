/* CPU loops: parallel for_each vs serial, the reduction driver (float sum bitwise equal for
 * 1 and N threads; argmax through the index positions; empty and 0-d reductions), the
 * thread-count API and tensor_iter_explain. */
#include <math.h>
#include <stdio.h>

#include "iter_test_util.h"
#include "iterator/iter_internal.h"

static int restore_threads(void **state) {
    (void)state;
    tensor_set_num_threads(0);
    return 0;
}

static tensor_t *random_floats(int ndim, const int64_t *sizes, uint64_t seed) {
    tensor_t *t = itest_empty(ndim, sizes, TENSOR_FLOAT32);
    float *p = tensor_data(t);
    int64_t n = tensor_numel(t);
    for (int64_t i = 0; i < n; i++) p[i] = (float)((double)(itest_rng(&seed) >> 11) * 0x1.0p-53 * 2.0 - 1.0);
    return t;
}

static double load_f32(const tensor_t *t, const int64_t *idx) {
    int64_t off = t->offset;
    for (int d = 0; d < t->ndim; d++) off += idx[d] * t->strides[d];
    return ((const float *)t->storage->data)[off];
}

/* ---- for_each ---- */

static void add_loop(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *ctx) {
    (void)ctx;
    for (int64_t j = 0; j < size1; j++)
        for (int64_t i = 0; i < size0; i++) {
            float a = *(const float *)(data[1] + i * strides[1] + j * strides[4]);
            float b = *(const float *)(data[2] + i * strides[2] + j * strides[5]);
            *(float *)(data[0] + i * strides[0] + j * strides[3]) = a + b;
        }
}

static tensor_t *run_add(const tensor_t *a, const tensor_t *b, int threads) {
    tensor_set_num_threads(threads);
    tensor_iter_config *cfg = tensor_iter_config_new("test_add");
    tensor_iter_config_add_output(cfg, NULL);
    tensor_iter_config_add_input(cfg, a);
    tensor_iter_config_add_input(cfg, b);
    tensor_iter_t *it = tensor_iter_build(cfg);
    assert_non_null(it);
    assert_int_equal(tensor_iter_for_each(it, add_loop, NULL, 0), TENSOR_OK);
    tensor_t *out = tensor_iter_output(it, 0);
    tensor_iter_free(it);
    tensor_iter_config_free(cfg);
    return out;
}

static void test_for_each_parallel_elementwise(void **state) {
    (void)state;
    tensor_t *base = random_floats(2, I64(300, 257), 1);
    tensor_t *a = tensor_transpose(base, 0, 1); /* [257, 300], permuted */
    tensor_t *b = random_floats(2, I64(257, 1), 2);
    tensor_t *o1 = run_add(a, b, 1), *o4 = run_add(a, b, 4);
    int64_t idx[2];
    for (idx[0] = 0; idx[0] < 257; idx[0]++)
        for (idx[1] = 0; idx[1] < 300; idx[1]++) {
            int64_t bi[2] = {idx[0], 0};
            float want = (float)load_f32(a, idx) + (float)load_f32(b, bi);
            if (load_f32(o1, idx) != want || load_f32(o4, idx) != want)
                fail_msg("add at [%lld, %lld]", (long long)idx[0], (long long)idx[1]);
        }
    tensor_release(o1);
    tensor_release(o4);
    tensor_release(a);
    tensor_release(b);
    tensor_release(base);
}

/* out += in directly in the output: safe in parallel because for_each gives each thread
 * its own outputs on reduction iterators. */
static void sum_into_output_loop(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *ctx) {
    (void)ctx;
    for (int64_t j = 0; j < size1; j++)
        for (int64_t i = 0; i < size0; i++)
            *(float *)(data[0] + i * strides[0] + j * strides[2]) += *(const float *)(data[1] + i * strides[1] + j * strides[3]);
}

static void test_for_each_parallel_reduction(void **state) {
    (void)state;
    tensor_t *x = random_floats(2, I64(64, 2000), 3);
    float results[2][64];
    for (int k = 0; k < 2; k++) {
        tensor_set_num_threads(k == 0 ? 1 : 4);
        tensor_t *out = tensor_zeros(1, I64(64), TENSOR_FLOAT32, tensor_cpu());
        tensor_iter_t *it = tensor_iter_reduce_new("test_sum", out, x, INTS(1), 1, false, TENSOR_FLOAT32);
        assert_non_null(it);
        assert_int_equal(tensor_iter_for_each(it, sum_into_output_loop, NULL, 0), TENSOR_OK);
        memcpy(results[k], tensor_data(out), sizeof results[k]);
        tensor_iter_free(it);
        tensor_release(out);
    }
    assert_memory_equal(results[0], results[1], sizeof results[0]);
    for (int r = 0; r < 64; r++) {
        double want = 0;
        for (int64_t c = 0; c < 2000; c++) want += load_f32(x, I64(r, c));
        assert_true(fabs(results[0][r] - want) < 1e-3);
    }
    tensor_release(x);
}

/* ---- the reduction driver: float sum ---- */

static void sum_init(void *acc, int64_t n, void *ctx) {
    (void)ctx;
    memset(acc, 0, sizeof(float) * (size_t)n);
}

static void sum_loop(char **data, const int64_t *strides, int64_t size0, int64_t size1,
                     const tensor_iter_reduce_pos *pos, void *ctx) {
    (void)pos;
    (void)ctx;
    for (int64_t j = 0; j < size1; j++)
        for (int64_t i = 0; i < size0; i++)
            *(float *)(data[0] + i * strides[0] + j * strides[2]) += *(const float *)(data[1] + i * strides[1] + j * strides[3]);
}

static void sum_combine(void *acc, const void *later, int64_t n, void *ctx) {
    (void)ctx;
    for (int64_t k = 0; k < n; k++) ((float *)acc)[k] += ((const float *)later)[k];
}

static void sum_project(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *ctx) {
    (void)ctx;
    for (int64_t j = 0; j < size1; j++)
        for (int64_t i = 0; i < size0; i++)
            *(float *)(data[0] + i * strides[0] + j * strides[2]) = *(const float *)(data[1] + i * strides[1] + j * strides[3]);
}

static const tensor_iter_reduce_ops sum_ops = {sizeof(float), sum_init, sum_loop, sum_combine, sum_project, NULL};

/* Sums x over dims with `threads` threads; returns the output (new reference). */
static tensor_t *driver_sum(const tensor_t *x, const int *dims, int nd, int threads, int64_t *chunks) {
    tensor_set_num_threads(threads);
    tensor_iter_t *it = tensor_iter_reduce_new("test_sum", NULL, x, dims, nd, false, TENSOR_FLOAT32);
    assert_non_null(it);
    if (chunks) *chunks = tensor_iter_reduce_num_chunks(it, NULL);
    assert_int_equal(tensor_iter_reduce_run(it, &sum_ops), TENSOR_OK);
    tensor_t *out = tensor_iter_output(it, 0);
    tensor_iter_free(it);
    return out;
}

static void check_sum_threads(const tensor_t *x, const int *dims, int nd, int64_t want_chunks) {
    int64_t chunks;
    tensor_t *ref = driver_sum(x, dims, nd, 1, &chunks);
    assert_int_equal(chunks, want_chunks);
    int64_t n = tensor_numel(ref);
    for (int threads = 2; threads <= 5; threads += 3) {
        tensor_t *o = driver_sum(x, dims, nd, threads, NULL);
        assert_memory_equal(tensor_data(ref), tensor_data(o), (size_t)n * sizeof(float));
        tensor_release(o);
    }
    tensor_release(ref);
}

static void test_driver_sum_bitwise(void **state) {
    (void)state;
    /* Full reduction of 2^18: 8 chunks of 32768, combined in order. */
    tensor_t *v = random_floats(1, I64(1 << 18), 4);
    check_sum_threads(v, NULL, 0, 8);
    tensor_t *o = driver_sum(v, NULL, 0, 3, NULL);
    double want = 0;
    const float *p = tensor_data(v);
    for (int64_t i = 0; i < (1 << 18); i++) want += p[i];
    assert_true(fabs(*(float *)tensor_data(o) - want) < 0.05);
    tensor_release(o);
    /* Few outputs, long rows: chunks along the reduced dim. */
    tensor_t *rows = random_floats(2, I64(3, 150000), 5);
    check_sum_threads(rows, INTS(1), 1, 4);
    /* Many outputs, short columns: threads split the outputs. */
    tensor_t *cols = random_floats(2, I64(1000, 300), 6);
    check_sum_threads(cols, INTS(0), 1, 1);
    /* Permuted, sliced input, two reduced dims that do not coalesce. */
    tensor_t *base = random_floats(3, I64(40, 50, 60), 7);
    tensor_t *perm = tensor_permute(base, INTS(2, 0, 1));
    tensor_t *sl = tensor_slice(perm, 1, 1, 40, 2);
    check_sum_threads(sl, INTS(0, 2), 2, 1);
    o = driver_sum(sl, INTS(0, 2), 2, 4, NULL);
    for (int64_t k = 0; k < tensor_size(sl, 1); k++) {
        double w = 0;
        for (int64_t a = 0; a < 60; a++)
            for (int64_t c = 0; c < 50; c++) w += load_f32(sl, I64(a, k, c));
        assert_true(fabs(((float *)tensor_data(o))[k] - w) < 1e-3);
    }
    tensor_release(o);
    tensor_release(sl);
    tensor_release(perm);
    tensor_release(base);
    tensor_release(cols);
    tensor_release(rows);
    tensor_release(v);
}

static void test_driver_empty_and_scalar(void **state) {
    (void)state;
    /* Empty reduced dim: the identity, projected. */
    tensor_t *e = itest_empty(2, I64(3, 0), TENSOR_FLOAT32);
    tensor_t *o = driver_sum(e, INTS(1), 1, 4, NULL);
    assert_int_equal(tensor_numel(o), 3);
    for (int k = 0; k < 3; k++) assert_true(((float *)tensor_data(o))[k] == 0.0f);
    tensor_release(o);
    /* Empty kept dim: nothing to do. */
    tensor_t *z = itest_empty(2, I64(0, 3), TENSOR_FLOAT32);
    o = driver_sum(z, INTS(1), 1, 4, NULL);
    assert_int_equal(tensor_numel(o), 0);
    tensor_release(o);
    /* 0-d input. */
    tensor_t *s = tensor_full(0, NULL, 2.5, TENSOR_FLOAT32, tensor_cpu());
    o = driver_sum(s, INTS(0), 1, 4, NULL);
    assert_int_equal(tensor_ndim(o), 0);
    assert_true(*(float *)tensor_data(o) == 2.5f);
    tensor_release(o);
    tensor_release(s);
    tensor_release(z);
    tensor_release(e);
}

/* ---- the reduction driver: argmax with values and indices (2 outputs) ---- */

typedef struct {
    float value;
    int32_t pad;
    int64_t index;
} argmax_acc;

static void argmax_init(void *acc, int64_t n, void *ctx) {
    (void)ctx;
    argmax_acc *a = acc;
    for (int64_t k = 0; k < n; k++) a[k] = (argmax_acc){-INFINITY, 0, -1};
}

static void argmax_loop(char **data, const int64_t *strides, int64_t size0, int64_t size1,
                        const tensor_iter_reduce_pos *pos, void *ctx) {
    (void)ctx;
    for (int64_t j = 0; j < size1; j++)
        for (int64_t i = 0; i < size0; i++) {
            argmax_acc *a = (argmax_acc *)(data[0] + i * strides[0] + j * strides[2]);
            float x = *(const float *)(data[1] + i * strides[1] + j * strides[3]);
            /* Strictly greater: the first index wins ties. */
            if (a->index < 0 || x > a->value) {
                a->value = x;
                a->index = pos->index0 + i * pos->index_stride0 + j * pos->index_stride1;
            }
        }
}

static void argmax_combine(void *acc, const void *later, int64_t n, void *ctx) {
    (void)ctx;
    argmax_acc *a = acc;
    const argmax_acc *b = later;
    for (int64_t k = 0; k < n; k++)
        if (a[k].index < 0 || (b[k].index >= 0 && b[k].value > a[k].value)) a[k] = b[k];
}

static void argmax_project(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *ctx) {
    (void)ctx;
    for (int64_t j = 0; j < size1; j++)
        for (int64_t i = 0; i < size0; i++) {
            const argmax_acc *a = (const argmax_acc *)(data[2] + i * strides[2] + j * strides[5]);
            *(float *)(data[0] + i * strides[0] + j * strides[3]) = a->value;
            *(int64_t *)(data[1] + i * strides[1] + j * strides[4]) = a->index;
        }
}

static void test_driver_argmax(void **state) {
    (void)state;
    static const tensor_iter_reduce_ops ops = {sizeof(argmax_acc), argmax_init, argmax_loop, argmax_combine,
                                               argmax_project, NULL};
    /* Values with many ties, so the first index must survive the chunk combine. */
    const int64_t rows = 3, cols = 150000;
    tensor_t *x = itest_empty(2, I64(3, 150000), TENSOR_FLOAT32);
    float *p = tensor_data(x);
    uint64_t seed = 9;
    for (int64_t i = 0; i < rows * cols; i++) p[i] = (float)(itest_rng(&seed) % 50);
    for (int threads = 1; threads <= 4; threads += 3) {
        tensor_set_num_threads(threads);
        tensor_iter_config *cfg = tensor_iter_config_new("test_max");
        tensor_iter_config_add_output_dtype(cfg, NULL, TENSOR_FLOAT32);
        tensor_iter_config_add_output_dtype(cfg, NULL, TENSOR_INT64);
        tensor_iter_config_add_input(cfg, x);
        tensor_iter_config_reduce_dims(cfg, INTS(1), 1, false);
        tensor_iter_t *it = tensor_iter_build(cfg);
        assert_non_null(it);
        assert_true(tensor_iter_reduce_num_chunks(it, NULL) > 1);
        assert_int_equal(tensor_iter_reduce_run(it, &ops), TENSOR_OK);
        tensor_t *vals = tensor_iter_output(it, 0), *idx = tensor_iter_output(it, 1);
        for (int64_t r = 0; r < rows; r++) {
            int64_t best = 0;
            for (int64_t c = 1; c < cols; c++)
                if (p[r * cols + c] > p[r * cols + best]) best = c;
            assert_int_equal(((int64_t *)tensor_data(idx))[r], best);
            assert_true(((float *)tensor_data(vals))[r] == p[r * cols + best]);
        }
        tensor_release(vals);
        tensor_release(idx);
        tensor_iter_free(it);
        tensor_iter_config_free(cfg);
    }
    /* Over all dims of a transposed input with LINEAR: indices are row-major flat indices. */
    tensor_t *base = random_floats(2, I64(70, 90), 10);
    tensor_t *t = tensor_transpose(base, 0, 1); /* [90, 70] */
    tensor_iter_config *cfg = tensor_iter_config_new("test_argmax");
    tensor_iter_config_add_output_dtype(cfg, NULL, TENSOR_FLOAT32);
    tensor_iter_config_add_output_dtype(cfg, NULL, TENSOR_INT64);
    tensor_iter_config_add_input(cfg, t);
    tensor_iter_config_enable(cfg, TENSOR_ITER_LINEAR);
    tensor_iter_config_reduce_dims(cfg, NULL, 0, false);
    tensor_iter_t *it = tensor_iter_build(cfg);
    assert_non_null(it);
    assert_int_equal(tensor_iter_num_reduce_dims(it), 2);
    assert_int_equal(tensor_iter_reduce_run(it, &ops), TENSOR_OK);
    int64_t best = 0;
    for (int64_t k = 1; k < 90 * 70; k++)
        if (load_f32(t, I64(k / 70, k % 70)) > load_f32(t, I64(best / 70, best % 70))) best = k;
    assert_int_equal(*(int64_t *)tensor_data(it->operands[1].tensor), best);
    tensor_iter_free(it);
    tensor_iter_config_free(cfg);
    tensor_release(t);
    tensor_release(base);
    tensor_release(x);
}

/* Two inputs: sum(a * b) with b broadcast. */
static void dot_loop(char **data, const int64_t *strides, int64_t size0, int64_t size1,
                     const tensor_iter_reduce_pos *pos, void *ctx) {
    (void)pos;
    (void)ctx;
    for (int64_t j = 0; j < size1; j++)
        for (int64_t i = 0; i < size0; i++)
            *(float *)(data[0] + i * strides[0] + j * strides[3]) +=
                *(const float *)(data[1] + i * strides[1] + j * strides[4]) *
                *(const float *)(data[2] + i * strides[2] + j * strides[5]);
}

static void test_driver_two_inputs_and_errors(void **state) {
    (void)state;
    tensor_t *a = random_floats(2, I64(50, 8), 11), *b = random_floats(1, I64(8), 12);
    tensor_iter_config *cfg = tensor_iter_config_new("test_dot");
    tensor_iter_config_add_output_dtype(cfg, NULL, TENSOR_FLOAT32);
    tensor_iter_config_add_input(cfg, a);
    tensor_iter_config_add_input(cfg, b);
    tensor_iter_config_reduce_dims(cfg, INTS(0), 1, false);
    tensor_iter_t *it = tensor_iter_build(cfg);
    assert_non_null(it);
    tensor_iter_reduce_ops ops = {sizeof(float), sum_init, dot_loop, sum_combine, sum_project, NULL};
    assert_int_equal(tensor_iter_reduce_run(it, &ops), TENSOR_OK);
    const float *o = tensor_data(it->operands[0].tensor);
    for (int64_t c = 0; c < 8; c++) {
        double w = 0;
        for (int64_t r = 0; r < 50; r++) w += load_f32(a, I64(r, c)) * load_f32(b, I64(c));
        assert_true(fabs(o[c] - w) < 1e-4);
    }
    /* Bad ops. */
    tensor_iter_reduce_ops bad = ops;
    bad.acc_size = 0;
    assert_int_equal(tensor_iter_reduce_run(it, &bad), TENSOR_ERR_INVALID_ARGUMENT);
    bad = ops;
    bad.project = NULL;
    assert_int_equal(tensor_iter_reduce_run(it, &bad), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_iter_reduce_run(NULL, &ops), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_iter_reduce_run(it, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    tensor_iter_free(it);
    tensor_iter_config_free(cfg);
    /* combine is needed once the reduced dims are chunked. */
    tensor_t *v = itest_empty(1, I64(1 << 17), TENSOR_FLOAT32);
    it = tensor_iter_reduce_new("test_sum", NULL, v, NULL, 0, false, TENSOR_FLOAT32);
    bad = sum_ops;
    bad.combine = NULL;
    assert_int_equal(tensor_iter_reduce_run(it, &bad), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "chunks need ops->combine");
    tensor_iter_free(it);
    tensor_release(v);
    tensor_release(a);
    tensor_release(b);
}

static void test_threads_api(void **state) {
    (void)state;
    /* Tests are not compiled with OpenMP's flags: 3 with OpenMP in the library, 1 without. */
    assert_int_equal(tensor_set_num_threads(3), TENSOR_OK);
    int n = tensor_get_num_threads();
    assert_true(n == 3 || n == 1);
    assert_int_equal(tensor_set_num_threads(0), TENSOR_OK);
    assert_true(tensor_get_num_threads() >= 1);
}

static void test_explain(void **state) {
    (void)state;
    tensor_t *x = itest_huge(4, I64(16, 128, 64, 128), TENSOR_FLOAT32);
    tensor_iter_t *it = tensor_iter_reduce_new("tensor_sum", NULL, x, INTS(1), 1, false, TENSOR_FLOAT32);
    int64_t n = tensor_iter_explain(it, NULL, 0);
    assert_true(n > 0);
    char *buf = malloc((size_t)n + 1);
    assert_int_equal(tensor_iter_explain(it, buf, (size_t)n + 1), n);
    assert_int_equal((int64_t)strlen(buf), n);
    static const char *const needles[] = {
        "tensor_sum: reduction iterator, 2 operands (1 output, 1 input), common dtype float32, device cpu",
        "logical shape [16, 128, 64, 128]",
        "permutation (computation order, fastest first) [1, 3, 2, 0]",
        "dim 0 = logical {1}, dim 1 = logical {3, 2}, dim 2 = logical {0}",
        "computation shape [128, 8192, 16], numel 16777216",
        "operand 0: output 0, float32, tensor shape [16, 64, 128] strides [8192, 128, 1] (allocated); byte strides [0, 4, 32768]",
        "operand 1: input 0, float32, tensor shape [16, 128, 64, 128] strides [1048576, 8192, 128, 1]; byte strides [32768, 4, 4194304]",
        "reduced dims: 1 (computation dims [0, 1)), output elements 131072, inputs per output 128",
        "cpu reduction: 1 chunk",
        "32-bit indexing: yes (1 piece)",
    };
    for (size_t k = 0; k < sizeof needles / sizeof needles[0]; k++)
        if (strstr(buf, needles[k]) == NULL) fail_msg("explain lacks \"%s\":\n%s", needles[k], buf);
    /* Truncation is snprintf's. */
    char small[16];
    assert_int_equal(tensor_iter_explain(it, small, sizeof small), n);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_memory_equal(small, buf, sizeof small - 1);
    free(buf);
    tensor_iter_free(it);
    tensor_release(x);

    /* Too big for 32-bit indexing: the pieces and their flags are listed. */
    tensor_t *big = itest_huge(2, I64(1 << 20, 1 << 10), TENSOR_FLOAT32);
    it = tensor_iter_reduce_new("tensor_sum", NULL, big, INTS(0), 1, false, TENSOR_FLOAT32);
    n = tensor_iter_explain(it, NULL, 0);
    buf = malloc((size_t)n + 1);
    tensor_iter_explain(it, buf, (size_t)n + 1);
    static const char *const big_needles[] = {
        "32-bit indexing: no; pieces:",
        "piece 0: shape [524288, 1024] view offsets [0, 0] accumulate no, final_output no",
        "piece 1: shape [524288, 1024] view offsets [524288, 0] accumulate yes, final_output yes",
        "cpu reduction: 32 chunks along dim 0",
    };
    for (size_t k = 0; k < sizeof big_needles / sizeof big_needles[0]; k++)
        if (strstr(buf, big_needles[k]) == NULL) fail_msg("explain lacks \"%s\":\n%s", big_needles[k], buf);
    free(buf);
    /* A broadcast view of 2^62 elements has about 2^31 pieces: explain counts the first ones
     * and says there are more, instead of walking them all (found by fuzz_format). */
    tensor_t *vast = itest_huge(1, I64(1), TENSOR_FLOAT32);
    tensor_t *vast_view = tensor_expand(vast, 2, I64(INT64_C(1) << 31, INT64_C(1) << 31));
    assert_non_null(vast_view);
    tensor_iter_t *vit = tensor_iter_reduce_new("tensor_sum", NULL, vast_view, INTS(0), 1, false, TENSOR_FLOAT32);
    assert_non_null(vit);
    n = tensor_iter_explain(vit, NULL, 0);
    char *vbuf = malloc((size_t)n + 1);
    assert_int_equal(tensor_iter_explain(vit, vbuf, (size_t)n + 1), n);
    if (strstr(vbuf, "    ... more than 1024 pieces in all\n") == NULL) fail_msg("vast explain:\n%s", vbuf);
    free(vbuf);
    tensor_iter_free(vit);
    tensor_release(vast_view);
    tensor_release(vast);
    /* A piece explains where it sits. */
    tensor_iter_t *first = tensor_iter_split(it, 0);
    assert_non_null(first);
    n = tensor_iter_explain(first, NULL, 0);
    buf = malloc((size_t)n + 1);
    tensor_iter_explain(first, buf, (size_t)n + 1);
    if (strstr(buf, "piece of [1048576, 1024]: view offsets [0, 0], accumulate no, final_output no") == NULL)
        fail_msg("piece explain:\n%s", buf);
    free(buf);
    tensor_iter_free(first);
    tensor_iter_free(it);
    tensor_release(big);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test_teardown(test_for_each_parallel_elementwise, restore_threads),
    cmocka_unit_test_teardown(test_for_each_parallel_reduction, restore_threads),
    cmocka_unit_test_teardown(test_driver_sum_bitwise, restore_threads),
    cmocka_unit_test_teardown(test_driver_empty_and_scalar, restore_threads),
    cmocka_unit_test_teardown(test_driver_argmax, restore_threads),
    cmocka_unit_test_teardown(test_driver_two_inputs_and_errors, restore_threads),
    cmocka_unit_test_teardown(test_threads_api, restore_threads),
    cmocka_unit_test(test_explain),
};

TENSOR_TEST_GROUP(iter_loops, tests, NULL, NULL)
