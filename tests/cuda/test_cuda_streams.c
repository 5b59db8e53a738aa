/* Per-thread current streams: several threads run multi-block reductions (the kind that count
 * finished blocks in the engine's grid counters) at the same time, each on a stream of its own,
 * and every result is exact; the ordering helpers order our work against a caller's stream;
 * a stream captured into a graph with no warm-up at all (its first allocation and its first
 * grid counters are made inside the capture) replays correctly. Needs a GPU. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_test_util.h"
#if TENSOR_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

TENSOR_TEST_NEEDS_GPU()

#if TENSOR_HAVE_CUDA
enum { THREADS = 6, ROUNDS = 12 };

/* Values in {-1, -0.5, 0, 0.5, 1}: every partial sum is a multiple of 0.5 far below 2^23, so
 * float32 sums are exact in any order and a wrong combine shows as a wrong value. */
static float value_at(int64_t i, int id) { return (float)((int)((i * 2654435761u + (uint64_t)id * 97u) % 5u) - 2) * 0.5f; }

typedef struct worker {
    int id;
    int failures;
    char what[160];
} worker;

static void note(worker *w, const char *what) {
    if (w->failures++ == 0) snprintf(w->what, sizeof w->what, "%s (%s)", what, tensor_last_error());
}

/* One round on the thread's stream: a [R, C] tensor summed whole, over dim 0 and over dim 1;
 * shapes picked so that the whole sum and the dim-0 sum use several blocks per output. */
static void round_on_stream(worker *w, int64_t rows, int64_t cols) {
    const int64_t n = rows * cols;
    float *h = malloc((size_t)n * sizeof *h);
    double *col = calloc((size_t)cols, sizeof *col);
    if (h == NULL || col == NULL) {
        note(w, "host memory");
        free(h);
        free(col);
        return;
    }
    double total = 0.0;
    for (int64_t i = 0; i < n; i++) {
        h[i] = value_at(i, w->id);
        total += h[i];
        col[i % cols] += h[i];
    }
    tensor_t *x = tensor_from_buffer(h, 2, (int64_t[]){rows, cols}, TENSOR_FLOAT32, tensor_cuda(0));
    tensor_t *all = x ? tensor_sum_dims(x, NULL, 0, false, TENSOR_FLOAT32) : NULL;
    tensor_t *d0 = x ? tensor_sum(x, 0, false) : NULL;
    if (all == NULL || d0 == NULL) {
        note(w, "a reduction failed");
    } else {
        float got = 0.0f;
        float *cols_got = malloc((size_t)cols * sizeof *cols_got);
        if (tensor_to_buffer(all, &got, sizeof got) != TENSOR_OK || cols_got == NULL ||
            tensor_to_buffer(d0, cols_got, (size_t)cols * sizeof *cols_got) != TENSOR_OK) {
            note(w, "a download failed");
        } else {
            if (got != (float)total) note(w, "the whole sum is wrong");
            for (int64_t c = 0; c < cols; c++)
                if (cols_got[c] != (float)col[c]) {
                    note(w, "a column sum is wrong");
                    break;
                }
        }
        free(cols_got);
    }
    tensor_release(all);
    tensor_release(d0);
    tensor_release(x);
    free(h);
    free(col);
}

static void *worker_main(void *p) {
    worker *w = p;
    cudaStream_t s = NULL;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
        note(w, "cudaStreamCreate");
        return NULL;
    }
    if (tensor_cuda_set_stream(0, s) != TENSOR_OK || tensor_cuda_get_stream(0) != (void *)s) note(w, "set_stream");
    const int quick = ct_quick();
    for (int r = 0; r < (quick ? 2 : ROUNDS); r++) {
        round_on_stream(w, 1 << 20, 4 + (r % 3));   /* long columns: several blocks per column */
        round_on_stream(w, 64, 8192 + 1024 * r);    /* a whole sum of 0.5M+ elements */
    }
    if (cudaStreamSynchronize(s) != cudaSuccess) note(w, "cudaStreamSynchronize");
    (void)tensor_cuda_set_stream(0, NULL);
    (void)cudaStreamDestroy(s);
    return NULL;
}
#endif

static void test_threads_on_their_own_streams(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    /* the multi-block plan is what the test is about: check the shapes get it */
    tensor_t *probe = tensor_empty(2, (int64_t[]){1 << 20, 4}, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(probe);
    char text[2048];
    assert_true(tensor_reduce_explain("sum", probe, (int[]){0}, 1, false, TENSOR_FLOAT32, text, sizeof text) > 0);
    if (strstr(text, "semaphores 0 B") != NULL) fail_msg("expected a multi-block plan:\n%s", text);
    tensor_release(probe);

    pthread_t th[THREADS];
    worker ws[THREADS];
    for (int i = 0; i < THREADS; i++) {
        ws[i] = (worker){.id = i};
        assert_int_equal(pthread_create(&th[i], NULL, worker_main, &ws[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < THREADS; i++)
        if (ws[i].failures != 0) fail_msg("thread %d: %d failures, first: %s", i, ws[i].failures, ws[i].what);
    assert_null(tensor_cuda_get_stream(0)); /* this thread's stream never changed */
    assert_int_equal(ct_release_cached(), TENSOR_OK);
#endif
}

static void test_ordering_helpers(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    cudaStream_t ours, theirs;
    assert_int_equal(cudaStreamCreateWithFlags(&ours, cudaStreamNonBlocking), cudaSuccess);
    assert_int_equal(cudaStreamCreateWithFlags(&theirs, cudaStreamNonBlocking), cudaSuccess);
    void *prev = NULL;
    assert_int_equal(tensor_cuda_exchange_stream(0, ours, &prev), TENSOR_OK);
    const int64_t n = 1 << 22;
    float *h = malloc((size_t)n * sizeof *h);
    assert_non_null(h);
    for (int64_t i = 0; i < n; i++) h[i] = 1.0f;
    tensor_t *x = tensor_from_buffer(h, 1, &n, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(x);
    for (int round = 0; round < 4; round++) {
        /* the caller zeroes x on its stream; our sum, ordered after it, sees zeros */
        assert_int_equal(cudaMemsetAsync(tensor_data(x), 0, (size_t)n * sizeof(float), theirs), cudaSuccess);
        assert_int_equal(tensor_cuda_wait_stream(0, theirs), TENSOR_OK);
        tensor_t *y = tensor_sum_dims(x, NULL, 0, false, TENSOR_FLOAT32);
        assert_non_null(y);
        /* and the caller's later work on its stream is ordered after our sum */
        assert_int_equal(tensor_cuda_stream_wait_ours(0, theirs), TENSOR_OK);
        float got = -1.0f;
        assert_int_equal(cudaMemcpyAsync(&got, tensor_data(y), sizeof got, cudaMemcpyDeviceToHost, theirs),
                         cudaSuccess);
        assert_int_equal(cudaStreamSynchronize(theirs), cudaSuccess);
        assert_true(got == 0.0f);
        tensor_release(y);
        /* refill with ones (on our stream) for the next round */
        tensor_t *c = tensor_from_buffer(h, 1, &n, TENSOR_FLOAT32, tensor_cpu());
        assert_non_null(c);
        assert_int_equal(tensor_copy_(x, c), TENSOR_OK);
        tensor_release(c);
        assert_int_equal(tensor_cuda_stream_wait_ours(0, theirs), TENSOR_OK);
    }
    /* a stream waiting on itself is a no-op; bad devices are refused, naming the function */
    assert_int_equal(tensor_cuda_wait_stream(0, ours), TENSOR_OK);
    assert_int_equal(tensor_cuda_wait_stream(99, theirs), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "tensor_cuda_wait_stream: device cuda:99");
    assert_int_equal(tensor_cuda_stream_wait_ours(-1, theirs), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "tensor_cuda_stream_wait_ours");
    tensor_release(x);
    free(h);
    assert_int_equal(cudaStreamSynchronize(ours), cudaSuccess);
    assert_int_equal(tensor_cuda_set_stream(0, prev), TENSOR_OK);
    assert_int_equal(ct_release_cached(), TENSOR_OK);
    assert_int_equal(cudaStreamDestroy(ours), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(theirs), cudaSuccess);
#endif
}

/* A fresh stream, and nothing of the library's made for it yet: the capture itself makes the
 * first cache segment and the first grid counters, outside the graph. */
static void test_cold_capture(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    assert_int_equal(ct_release_cached(), TENSOR_OK);
    const int64_t rows = 1 << 18, cols = 4, n = rows * cols;
    float *h = malloc((size_t)n * sizeof *h);
    assert_non_null(h);
    double col[4] = {0};
    for (int64_t i = 0; i < n; i++) {
        h[i] = value_at(i, 7);
        col[i % cols] += h[i];
    }
    tensor_t *x = tensor_from_buffer(h, 2, (int64_t[]){rows, cols}, TENSOR_FLOAT32, tensor_cuda(0)); /* default stream */
    assert_non_null(x);
    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);

    cudaStream_t s;
    assert_int_equal(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    void *prev = NULL;
    assert_int_equal(tensor_cuda_exchange_stream(0, s, &prev), TENSOR_OK);
    assert_int_equal(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    tensor_t *y = tensor_sum(x, 0, false); /* multi-block columns: counters and staging */
    tensor_t *z = y ? tensor_mul(y, y) : NULL;
    cudaGraph_t graph = NULL;
    cudaError_t end = cudaStreamEndCapture(s, &graph);
    if (z == NULL) fail_msg("a call failed inside the capture: %s", tensor_last_error());
    assert_int_equal(end, cudaSuccess);
    cudaGraphExec_t exec;
    assert_int_equal(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    for (int round = 0; round < 3; round++) {
        assert_int_equal(cudaGraphLaunch(exec, s), cudaSuccess);
        assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
        float gy[4], gz[4];
        assert_int_equal(tensor_to_buffer(y, gy, sizeof gy), TENSOR_OK);
        assert_int_equal(tensor_to_buffer(z, gz, sizeof gz), TENSOR_OK);
        for (int c = 0; c < 4; c++) {
            if (gy[c] != (float)col[c]) fail_msg("replay %d column %d: %g, expected %g", round, c, (double)gy[c], col[c]);
            assert_true(gz[c] == gy[c] * gy[c]);
        }
    }
    assert_int_equal(cudaGraphExecDestroy(exec), cudaSuccess);
    assert_int_equal(cudaGraphDestroy(graph), cudaSuccess);
    tensor_release(y);
    tensor_release(z);
    tensor_release(x);
    free(h);
    assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
    assert_int_equal(tensor_cuda_set_stream(0, prev), TENSOR_OK);
    assert_int_equal(ct_release_cached(), TENSOR_OK);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
#endif
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_threads_on_their_own_streams),
    cmocka_unit_test(test_ordering_helpers),
    cmocka_unit_test(test_cold_capture),
};

TENSOR_TEST_GROUP(cuda_streams, tests, NULL, NULL)
