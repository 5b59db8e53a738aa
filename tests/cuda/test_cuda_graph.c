/* CUDA graph capture: tensor_sum and elementwise ops queued on a user stream inside
 * cudaStreamBeginCapture (global mode: any synchronization or cudaMalloc would end the capture
 * with an error) are recorded into a graph; replaying it recomputes every result from the
 * input's current values. The calls are warmed up first, so that the caching allocator has a
 * segment on the stream and the engine its semaphores. Needs a GPU (exit 77 without one). */
#include <stdlib.h>
#include <string.h>

#include "cuda_test_util.h"
#if TENSOR_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

TENSOR_TEST_NEEDS_GPU()

#define CALLS 100

#if TENSOR_HAVE_CUDA
/* x := value everywhere (host copy in, on the current stream). */
static void fill(tensor_t *x, float value) {
    int64_t n = tensor_numel(x);
    float *h = malloc((size_t)n * sizeof *h);
    assert_non_null(h);
    for (int64_t i = 0; i < n; i++) h[i] = value + (float)(i % 7);
    tensor_t *c = tensor_from_buffer(h, tensor_ndim(x), (int64_t[]){tensor_size(x, 0), tensor_size(x, 1)},
                                     TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(c);
    assert_int_equal(tensor_copy_(x, c), TENSOR_OK);
    tensor_release(c);
    free(h);
}

/* Every row of x sums to 1024 * value + the row's share of (i % 7): checks y and z = y * y. */
static void check(const tensor_t *y, const tensor_t *z, float value) {
    float *hy = ct_download(y), *hz = ct_download(z);
    for (int64_t r = 0; r < tensor_numel(y); r++) {
        double want = 0.0;
        for (int64_t c = 0; c < 1024; c++) want += value + (double)((r * 1024 + c) % 7);
        if (hy[r] != (float)want) fail_msg("row %lld: sum %g, expected %g", (long long)r, (double)hy[r], want);
        if (hz[r] != hy[r] * hy[r]) fail_msg("row %lld: product %g, expected %g", (long long)r, (double)hz[r],
                                             (double)hy[r] * hy[r]);
    }
    free(hy);
    free(hz);
}
#endif

static void test_capture_and_replay(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    cudaStream_t s;
    assert_int_equal(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    void *prev = NULL;
    assert_int_equal(tensor_cuda_exchange_stream(0, s, &prev), TENSOR_OK);
    tensor_t *x = tensor_empty(2, (int64_t[]){64, 1024}, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(x);
    fill(x, 1.0f);
    /* warm-up: the same calls once, outside the capture */
    tensor_t *wy = tensor_sum(x, 1, false), *wz = wy ? tensor_mul(wy, wy) : NULL;
    assert_non_null(wz);
    check(wy, wz, 1.0f);
    tensor_release(wy);
    tensor_release(wz);

    tensor_t *y[CALLS] = {0}, *z[CALLS] = {0};
    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    int made = 0;
    for (; made < CALLS; made++) {
        y[made] = tensor_sum(x, 1, false);
        z[made] = y[made] ? tensor_mul(y[made], y[made]) : NULL;
        if (z[made] == NULL) break;
    }
    cudaGraph_t graph = NULL;
    cudaError_t end = cudaStreamEndCapture(s, &graph);
    if (made < CALLS) fail_msg("call %d failed inside the capture: %s", made, tensor_last_error());
    assert_int_equal(end, cudaSuccess);
    size_t nodes = 0;
    assert_int_equal(cudaGraphGetNodes(graph, NULL, &nodes), cudaSuccess);
    assert_true(nodes >= 2 * CALLS); /* every reduction and product is a kernel node */
    cudaGraphExec_t exec;
    assert_int_equal(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);

    /* new input values, then a replay: every result follows them */
    for (int round = 0; round < 2; round++) {
        const float v = round == 0 ? 3.0f : -2.0f;
        fill(x, v);
        assert_int_equal(cudaGraphLaunch(exec, s), cudaSuccess);
        assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
        for (int i = 0; i < CALLS; i += 33) check(y[i], z[i], v);
        check(y[CALLS - 1], z[CALLS - 1], v);
    }
    assert_int_equal(cudaGraphExecDestroy(exec), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(graph), cudaSuccess);
    for (int i = 0; i < CALLS; i++) {
        tensor_release(y[i]);
        tensor_release(z[i]);
    }
    tensor_release(x);
    assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
    assert_int_equal(tensor_cuda_set_stream(0, prev), TENSOR_OK);
    assert_int_equal(ct_release_cached(), TENSOR_OK);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
#endif
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_capture_and_replay),
};

TENSOR_TEST_GROUP(cuda_graph, tests, NULL, NULL)
