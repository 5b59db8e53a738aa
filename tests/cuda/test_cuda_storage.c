/* CUDA storage: creation, copies between host and device, the caching allocator seen through
 * the public statistics, streams, and the error paths. Needs a GPU: without one the
 * executable exits 77 (skipped).
 *
 * The allocator tests read num_device_mallocs and reserved, so every test releases all its
 * tensors before it returns: a tensor left alive would keep a segment from empty_cache. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_test_util.h"

#if TENSOR_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

TENSOR_TEST_NEEDS_GPU()

#define MiB ((size_t)1 << 20)

/* Random bytes; bool elements get 0 or 1, the only values a bool may hold. */
static void *random_bytes(tensor_dtype dtype, int64_t numel, uint64_t seed) {
    size_t n = (size_t)numel * tensor_dtype_size(dtype);
    unsigned char *p = malloc(n ? n : 1);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)ct_rng(&seed);
    if (dtype == TENSOR_BOOL)
        for (size_t i = 0; i < n; i++) p[i] &= 1;
    return p;
}

/* Same dtype, shape and bytes (bitwise: NaN payloads included). */
static void assert_same_bytes(const tensor_t *a, const tensor_t *b) {
    ct_assert_same_shape(a, b, "assert_same_bytes");
    void *pa = ct_download(a), *pb = ct_download(b);
    size_t n = ct_nbytes(a);
    assert_memory_equal(pa, pb, n ? n : 1);
    free(pa);
    free(pb);
}

static tensor_cuda_memory_stats stats0(void) {
    tensor_cuda_memory_stats s;
    if (tensor_cuda_memory_get_stats(0, &s) != TENSOR_OK) fail_msg("stats: %s", tensor_last_error());
    return s;
}

static bool on_cuda0(const tensor_t *t) { return tensor_device_equal(tensor_get_device(t), tensor_cuda(0)); }

static const tensor_dtype all_dtypes[] = {TENSOR_BOOL,    TENSOR_UINT8,    TENSOR_INT8,         TENSOR_INT16,
                                          TENSOR_INT32,   TENSOR_INT64,    TENSOR_FLOAT16,      TENSOR_BFLOAT16,
                                          TENSOR_FLOAT32, TENSOR_FLOAT64,  TENSOR_FLOAT8_E4M3FN, TENSOR_FLOAT8_E5M2};
#define NUM_DTYPES ((int)(sizeof all_dtypes / sizeof all_dtypes[0]))

/* ---- devices ---- */

static void test_device_count(void **state) {
    (void)state;
    assert_true(tensor_cuda_is_built());
    assert_true(tensor_cuda_device_count() > 0);
    assert_int_equal(tensor_device_check(tensor_cuda(0), "test"), TENSOR_OK);
    assert_null(tensor_cuda_get_stream(0)); /* the legacy default stream until set */
    assert_int_equal(tensor_cuda_synchronize(), TENSOR_OK);
}

/* ---- creation ---- */

static void test_create(void **state) {
    (void)state;
    int64_t sizes[2] = {37, 129};
    tensor_t *e = tensor_empty(2, sizes, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(e);
    assert_true(on_cuda0(e));
    assert_true(tensor_is_contiguous(e));
    assert_int_equal(tensor_numel(e), 37 * 129);
    assert_non_null(tensor_data(e));
    tensor_release(e);

    /* zeros/ones/full/arange/rand are made on the host and copied: the same bits as on the CPU. */
    for (int i = 0; i < NUM_DTYPES; i++) {
        tensor_dtype dt = all_dtypes[i];
        tensor_t *g[4], *c[4];
        g[0] = tensor_zeros(2, sizes, dt, tensor_cuda(0));
        c[0] = tensor_zeros(2, sizes, dt, tensor_cpu());
        g[1] = tensor_ones(2, sizes, dt, tensor_cuda(0));
        c[1] = tensor_ones(2, sizes, dt, tensor_cpu());
        g[2] = tensor_full(2, sizes, 3.0, dt, tensor_cuda(0));
        c[2] = tensor_full(2, sizes, 3.0, dt, tensor_cpu());
        g[3] = tensor_arange(0, dt == TENSOR_BOOL ? 1 : 100, 1, dt, tensor_cuda(0));
        c[3] = tensor_arange(0, dt == TENSOR_BOOL ? 1 : 100, 1, dt, tensor_cpu());
        for (int k = 0; k < 4; k++) {
            /* A dtype an op refuses (arange of bool, say) must be refused on both devices. */
            if (c[k] == NULL) {
                assert_null(g[k]);
                continue;
            }
            if (g[k] == NULL) fail_msg("%s, case %d: %s", tensor_dtype_name(dt), k, tensor_last_error());
            assert_true(on_cuda0(g[k]));
            assert_same_bytes(g[k], c[k]);
            tensor_release(g[k]);
            tensor_release(c[k]);
        }
    }
    tensor_t *r1 = tensor_rand(2, sizes, 42, TENSOR_FLOAT32, tensor_cuda(0));
    tensor_t *r2 = tensor_rand(2, sizes, 42, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(r1);
    assert_non_null(r2);
    assert_same_bytes(r1, r2);
    tensor_release(r1);
    tensor_release(r2);
}

static void test_from_buffer_round_trip(void **state) {
    (void)state;
    /* Odd sizes: not a multiple of any vector width or of the 512-byte block rounding. */
    int64_t shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {2, 33, 65}, {1, 1000, 1031}};
    for (int i = 0; i < NUM_DTYPES; i++) {
        for (int s = 0; s < 4; s++) {
            tensor_dtype dt = all_dtypes[i];
            int64_t numel = shapes[s][0] * shapes[s][1] * shapes[s][2];
            void *host = random_bytes(dt, numel, (uint64_t)(i * 10 + s));
            tensor_t *t = tensor_from_buffer(host, 3, shapes[s], dt, tensor_cuda(0));
            if (t == NULL) fail_msg("from_buffer %s: %s", tensor_dtype_name(dt), tensor_last_error());
            assert_true(on_cuda0(t));
            void *back = ct_download(t);
            assert_memory_equal(host, back, (size_t)numel * tensor_dtype_size(dt));
            free(back);
            free(host);
            tensor_release(t);
        }
    }
    /* A 0-d tensor. */
    double x = 2.75, y = 0;
    tensor_t *t = tensor_from_buffer(&x, 0, NULL, TENSOR_FLOAT64, tensor_cuda(0));
    assert_non_null(t);
    assert_int_equal(tensor_to_buffer(t, &y, sizeof y), TENSOR_OK);
    assert_true(y == 2.75);
    /* A too-small destination is refused before any copy. */
    char small[4];
    assert_int_equal(tensor_to_buffer(t, small, sizeof small), TENSOR_ERR_INVALID_ARGUMENT);
    tensor_release(t);
}

static void test_empty_tensors(void **state) {
    (void)state;
    tensor_status st = tensor_cuda_empty_cache();
    assert_int_equal(st, TENSOR_OK);
    tensor_cuda_memory_stats before = stats0();
    int64_t sizes[2] = {0, 5};
    tensor_t *t = tensor_empty(2, sizes, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(t);
    assert_int_equal(tensor_numel(t), 0);
    assert_int_equal(tensor_to_buffer(t, NULL, 0), TENSOR_OK);
    tensor_t *c = tensor_to_device(t, tensor_cpu());
    assert_non_null(c);
    assert_int_equal(tensor_numel(c), 0);
    tensor_t *g = tensor_to_device(c, tensor_cuda(0));
    assert_non_null(g);
    assert_int_equal(stats0().num_device_mallocs, before.num_device_mallocs); /* 0 bytes: no block */
    assert_int_equal(stats0().allocated, before.allocated);
    tensor_release(g);
    tensor_release(c);
    tensor_release(t);
}

/* ---- copies ---- */

static void test_to_device_round_trip(void **state) {
    (void)state;
    int64_t sizes[3] = {7, 11, 13};
    for (int i = 0; i < NUM_DTYPES; i++) {
        tensor_dtype dt = all_dtypes[i];
        void *host = random_bytes(dt, 7 * 11 * 13, 1000 + (uint64_t)i);
        tensor_t *cpu = tensor_from_buffer(host, 3, sizes, dt, tensor_cpu());
        assert_non_null(cpu);
        tensor_t *gpu = tensor_to_device(cpu, tensor_cuda(0));
        if (gpu == NULL) fail_msg("to cuda %s: %s", tensor_dtype_name(dt), tensor_last_error());
        assert_true(on_cuda0(gpu));
        assert_false(tensor_shares_storage(cpu, gpu));
        /* Already there: the same tensor, retained. */
        tensor_t *same = tensor_to_device(gpu, tensor_cuda(0));
        assert_ptr_equal(same, gpu);
        tensor_release(same);
        tensor_t *back = tensor_to_device(gpu, tensor_cpu());
        assert_non_null(back);
        assert_true(tensor_device_equal(tensor_get_device(back), tensor_cpu()));
        assert_memory_equal(tensor_data(back), host, (size_t)tensor_numel(cpu) * tensor_dtype_size(dt));
        tensor_release(back);
        tensor_release(gpu);

        /* A strided CPU tensor goes up contiguous (the host does the layout work). */
        tensor_t *tr = tensor_transpose(cpu, 0, 2);
        tensor_t *tr_gpu = tensor_to_device(tr, tensor_cuda(0));
        if (tr_gpu == NULL) fail_msg("strided to cuda %s: %s", tensor_dtype_name(dt), tensor_last_error());
        assert_true(tensor_is_contiguous(tr_gpu));
        assert_same_bytes(tr_gpu, tr);
        tensor_release(tr_gpu);
        tensor_release(tr);
        tensor_release(cpu);
        free(host);
    }
}

static void test_device_to_device(void **state) {
    (void)state;
    int64_t sizes[2] = {8, 1000};
    for (int i = 0; i < NUM_DTYPES; i++) {
        tensor_dtype dt = all_dtypes[i];
        void *host = random_bytes(dt, 8 * 1000, 2000 + (uint64_t)i);
        tensor_t *a = tensor_from_buffer(host, 2, sizes, dt, tensor_cuda(0));
        assert_non_null(a);
        tensor_t *b = tensor_clone(a);
        if (b == NULL) fail_msg("clone %s: %s", tensor_dtype_name(dt), tensor_last_error());
        assert_true(on_cuda0(b));
        assert_false(tensor_shares_storage(a, b));
        assert_same_bytes(a, b);
        /* Contiguous already: contiguous() is a no-op that returns a. */
        tensor_t *c = tensor_contiguous(a);
        assert_ptr_equal(c, a);
        tensor_release(c);
        /* Rows 3..5: contiguous, with a storage offset the copy must honour. */
        tensor_t *rows = tensor_narrow(a, 0, 3, 3);
        assert_non_null(rows);
        tensor_t *rc = tensor_clone(rows);
        assert_non_null(rc);
        void *got = ct_download(rc);
        size_t row_bytes = 1000 * tensor_dtype_size(dt);
        assert_memory_equal(got, (char *)host + 3 * row_bytes, 3 * row_bytes);
        free(got);
        tensor_release(rc);
        tensor_release(rows);
        tensor_release(b);
        tensor_release(a);
        free(host);
    }
}

/* Strided device-to-device copies run on the CUDA elementwise engine (cuda/copy.cu; the full
 * sweep is tests/cuda/test_cuda_copy.c). Downloads of any layout work too: the span is copied to
 * the host and gathered there. */
static void test_strided_cuda_copy(void **state) {
    (void)state;
    int64_t sizes[2] = {4, 6};
    tensor_t *a = tensor_arange(0, 24, 1, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(a);
    tensor_t *m = tensor_view(a, 2, sizes);
    assert_non_null(m);
    tensor_t *t = tensor_transpose(m, 0, 1);
    assert_non_null(t);
    assert_false(tensor_is_contiguous(t));
    tensor_t *c = tensor_contiguous(t);
    assert_non_null(c);
    assert_true(tensor_is_contiguous(c));
    assert_true(tensor_get_device(c).type == TENSOR_DEVICE_CUDA);
    float cbuf[24];
    assert_int_equal(tensor_to_buffer(c, cbuf, sizeof cbuf), TENSOR_OK);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 4; j++) assert_true(cbuf[i * 4 + j] == (float)(j * 6 + i));
    tensor_release(c);
    float buf[24];
    assert_int_equal(tensor_to_buffer(t, buf, sizeof buf), TENSOR_OK);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 4; j++) assert_true(buf[i * 4 + j] == (float)(j * 6 + i));
    tensor_t *h = tensor_to_device(t, tensor_cpu());
    assert_non_null(h);
    float buf2[24];
    assert_int_equal(tensor_to_buffer(h, buf2, sizeof buf2), TENSOR_OK);
    assert_memory_equal(buf, buf2, sizeof buf);
    tensor_release(h);
    tensor_release(t);
    tensor_release(m);
    tensor_release(a);
}

/* ---- the caching allocator, through the public statistics ---- */

static void test_cache_hit_no_malloc(void **state) {
    (void)state;
    assert_int_equal(tensor_cuda_empty_cache(), TENSOR_OK);
    tensor_cuda_memory_stats s0 = stats0();
    int64_t n = (int64_t)(3 * MiB / 4); /* 3 MiB of float32: the large pool */
    tensor_t *a = tensor_empty(1, &n, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(a);
    void *pa = tensor_data(a);
    tensor_cuda_memory_stats s1 = stats0();
    assert_int_equal(s1.num_device_mallocs, s0.num_device_mallocs + 1);
    tensor_release(a);
    for (int i = 0; i < 50; i++) {
        tensor_t *b = tensor_empty(1, &n, TENSOR_FLOAT32, tensor_cuda(0));
        assert_non_null(b);
        assert_ptr_equal(tensor_data(b), pa);
        tensor_release(b);
    }
    /* Small tensors too: one 2 MiB segment serves a thousand of them. */
    tensor_t *small[1000];
    int64_t k = 100;
    for (int i = 0; i < 1000; i++) {
        small[i] = tensor_empty(1, &k, TENSOR_FLOAT32, tensor_cuda(0)); /* 400 B -> 512 */
        assert_non_null(small[i]);
    }
    for (int i = 0; i < 1000; i++) tensor_release(small[i]);
    tensor_cuda_memory_stats s2 = stats0();
    assert_int_equal(s2.num_device_mallocs, s1.num_device_mallocs + 1);
    assert_int_equal(s2.num_device_frees, s0.num_device_frees);
}

static void test_stats_move(void **state) {
    (void)state;
    assert_int_equal(tensor_cuda_empty_cache(), TENSOR_OK);
    assert_int_equal(tensor_cuda_memory_reset_peak(0), TENSOR_OK);
    tensor_cuda_memory_stats s0 = stats0();
    assert_int_equal(s0.peak_allocated, s0.allocated);
    int64_t n = 1000;
    tensor_t *a = tensor_empty(1, &n, TENSOR_UINT8, tensor_cuda(0)); /* 1000 B -> 1024 */
    int64_t m = 5 * 1024 * 1024;
    tensor_t *b = tensor_empty(1, &m, TENSOR_UINT8, tensor_cuda(0)); /* 5 MiB */
    assert_non_null(a);
    assert_non_null(b);
    tensor_cuda_memory_stats s1 = stats0();
    assert_int_equal(s1.allocated, s0.allocated + 1024 + 5 * MiB);
    assert_true(s1.reserved >= s0.reserved + 2 * MiB + 5 * MiB);
    assert_int_equal(s1.peak_allocated, s1.allocated);
    tensor_release(b);
    tensor_cuda_memory_stats s2 = stats0();
    assert_int_equal(s2.allocated, s0.allocated + 1024);
    assert_int_equal(s2.peak_allocated, s1.allocated);
    assert_int_equal(s2.reserved, s1.reserved); /* cached, not freed */
    assert_int_equal(tensor_cuda_memory_reset_peak(0), TENSOR_OK);
    assert_int_equal(stats0().peak_allocated, s2.allocated);
    tensor_release(a);
    assert_int_equal(stats0().allocated, s0.allocated);

    tensor_cuda_memory_stats bad;
    assert_int_equal(tensor_cuda_memory_get_stats(0, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_cuda_memory_get_stats(tensor_cuda_device_count(), &bad), TENSOR_ERR_DEVICE);
}

static void test_empty_cache_lowers_reserved(void **state) {
    (void)state;
    int64_t n = 64 * 1024 * 1024;
    tensor_t *a = tensor_empty(1, &n, TENSOR_UINT8, tensor_cuda(0));
    assert_non_null(a);
    tensor_release(a);
    tensor_cuda_memory_stats s1 = stats0();
    assert_true(s1.reserved >= 64 * MiB);
    assert_int_equal(tensor_cuda_empty_cache(), TENSOR_OK);
    tensor_cuda_memory_stats s2 = stats0();
    assert_true(s2.reserved + 64 * MiB <= s1.reserved);
    assert_true(s2.num_device_frees > s1.num_device_frees);
    assert_int_equal(s2.allocated, s1.allocated);
    /* Nothing is live: nothing stays reserved. */
    assert_int_equal(s2.allocated, 0);
    assert_int_equal(s2.reserved, 0);
}

static void test_huge_allocation_fails_cleanly(void **state) {
    (void)state;
    tensor_cuda_memory_stats s0 = stats0();
    int64_t pib = (int64_t)1 << 50;
    tensor_clear_error();
    assert_null(tensor_empty(1, &pib, TENSOR_UINT8, tensor_cuda(0)));
    assert_error(TENSOR_ERR_OUT_OF_MEMORY, "tensor_empty: CUDA out of memory on cuda:0");
    assert_error(TENSOR_ERR_OUT_OF_MEMORY, "tried to allocate 1125899906842624 bytes (1.00 PiB)");
    assert_null(tensor_zeros(1, &pib, TENSOR_UINT8, tensor_cuda(0)));
    assert_error(TENSOR_ERR_OUT_OF_MEMORY, "tensor_zeros");
    tensor_cuda_memory_stats s1 = stats0();
    assert_int_equal(s1.allocated, s0.allocated);
    assert_int_equal(s1.num_device_mallocs, s0.num_device_mallocs);
    /* The failure left nothing behind: the next allocation and copy work. */
    int64_t n = 1000;
    tensor_t *t = tensor_ones(1, &n, TENSOR_INT32, tensor_cuda(0));
    assert_non_null(t);
    int32_t *h = ct_download(t);
    for (int i = 0; i < 1000; i++) assert_int_equal(h[i], 1);
    free(h);
    tensor_release(t);
#if TENSOR_HAVE_CUDA
    assert_int_equal(cudaGetLastError(), cudaSuccess);
#endif
}

/* ---- devices and streams ---- */

static void test_bad_device(void **state) {
    (void)state;
    int64_t sizes[1] = {4};
    assert_null(tensor_empty(1, sizes, TENSOR_FLOAT32, tensor_cuda(99)));
    assert_error(TENSOR_ERR_DEVICE, "cuda:99");
    assert_null(tensor_empty(1, sizes, TENSOR_FLOAT32, tensor_cuda(-1)));
    assert_error(TENSOR_ERR_DEVICE, "cuda:-1");
    tensor_t *cpu = tensor_ones(1, sizes, TENSOR_FLOAT32, tensor_cpu());
    assert_null(tensor_to_device(cpu, tensor_cuda(99)));
    assert_error(TENSOR_ERR_DEVICE, "tensor_to_device");
    tensor_release(cpu);
    tensor_cuda_memory_stats s;
    assert_int_equal(tensor_cuda_memory_get_stats(99, &s), TENSOR_ERR_DEVICE);
    assert_int_equal(tensor_cuda_memory_reset_peak(99), TENSOR_ERR_DEVICE);
    assert_int_equal(tensor_cuda_set_stream(99, NULL), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "tensor_cuda_set_stream: device cuda:99");
    assert_null(tensor_cuda_get_stream(99));
}

#if TENSOR_HAVE_CUDA
/* In a new thread: what it sees as current, and whether setting its own leaves ours alone. */
static void *read_stream(void *p) {
    void **seen = p;
    seen[0] = tensor_cuda_get_stream(0);
    seen[1] = (void *)(uintptr_t)(tensor_cuda_set_stream(0, (void *)0x10) == TENSOR_OK);
    seen[2] = tensor_cuda_get_stream(0);
    return NULL;
}

static void test_streams(void **state) {
    (void)state;
    cudaStream_t s;
    assert_int_equal(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    assert_int_equal(tensor_cuda_empty_cache(), TENSOR_OK);
    tensor_cuda_memory_stats m0 = stats0();

    assert_int_equal(tensor_cuda_set_stream(0, s), TENSOR_OK);
    assert_ptr_equal(tensor_cuda_get_stream(0), s);
    int64_t n = 3 * 1024 * 1024 / 4;
    void *host = random_bytes(TENSOR_FLOAT32, n, 77);
    tensor_t *a = tensor_from_buffer(host, 1, &n, TENSOR_FLOAT32, tensor_cuda(0)); /* copied on s */
    assert_non_null(a);
    void *back = ct_download(a);
    assert_memory_equal(back, host, (size_t)n * 4);
    free(back);
    tensor_t *b = tensor_clone(a); /* device-to-device on s */
    assert_non_null(b);
    assert_same_bytes(a, b);
    void *pa = tensor_data(a);
    tensor_release(a);
    tensor_release(b);
    assert_int_equal(stats0().num_device_mallocs, m0.num_device_mallocs + 1); /* a and b share a segment */

    /* Blocks freed on s are not handed to the default stream... */
    assert_int_equal(tensor_cuda_set_stream(0, NULL), TENSOR_OK);
    tensor_t *c = tensor_empty(1, &n, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(c);
    assert_ptr_not_equal(tensor_data(c), pa);
    assert_int_equal(stats0().num_device_mallocs, m0.num_device_mallocs + 2);
    tensor_release(c);
    /* ...but are reused on s. */
    assert_int_equal(tensor_cuda_set_stream(0, s), TENSOR_OK);
    tensor_t *d = tensor_empty(1, &n, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(d);
    assert_ptr_equal(tensor_data(d), pa);
    assert_int_equal(stats0().num_device_mallocs, m0.num_device_mallocs + 2);
    tensor_release(d);

    /* The current stream is per thread: a new thread starts on the default stream, and what it
     * sets stays its own. */
    void *seen[3] = {(void *)1, NULL, NULL};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, read_stream, seen), 0);
    pthread_join(th, NULL);
    assert_null(seen[0]);
    assert_ptr_equal(seen[1], (void *)1);
    assert_ptr_equal(seen[2], (void *)0x10);
    assert_ptr_equal(tensor_cuda_get_stream(0), s);
    /* exchange: set and hand back the one replaced */
    void *prev = (void *)1;
    assert_int_equal(tensor_cuda_exchange_stream(0, NULL, &prev), TENSOR_OK);
    assert_ptr_equal(prev, s);
    assert_null(tensor_cuda_get_stream(0));
    assert_int_equal(tensor_cuda_exchange_stream(0, s, &prev), TENSOR_OK);
    assert_null(prev);
    assert_int_equal(tensor_cuda_exchange_stream(0, s, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_cuda_exchange_stream: argument 'previous'");
    assert_int_equal(tensor_cuda_exchange_stream(99, s, &prev), TENSOR_ERR_DEVICE);
    assert_null(prev);
    assert_ptr_equal(tensor_cuda_get_stream(0), s);

    /* The caller's duty before destroying a stream the library used: synchronize it. */
    assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
    assert_int_equal(tensor_cuda_set_stream(0, NULL), TENSOR_OK);
    assert_int_equal(tensor_cuda_empty_cache(), TENSOR_OK);
    assert_int_equal(stats0().reserved, 0);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
    free(host);
}
#endif

/* ---- threads ---- */

typedef struct thread_arg {
    int id;
    int failures;
} thread_arg;

static void *thread_main(void *p) {
    thread_arg *arg = p;
    uint64_t seed = 5000 + (uint64_t)arg->id;
    for (int it = 0; it < 100; it++) {
        int64_t n = 1 + (int64_t)(ct_rng(&seed) % 300000);
        int32_t *host = malloc((size_t)n * 4);
        int32_t *back = malloc((size_t)n * 4);
        if (host == NULL || back == NULL) {
            arg->failures++;
            free(host);
            free(back);
            continue;
        }
        for (int64_t i = 0; i < n; i++) host[i] = (int32_t)(i * 31 + arg->id);
        tensor_t *t = tensor_from_buffer(host, 1, &n, TENSOR_INT32, tensor_cuda(0));
        tensor_t *u = t ? tensor_clone(t) : NULL;
        if (u == NULL || tensor_to_buffer(u, back, (size_t)n * 4) != TENSOR_OK ||
            memcmp(host, back, (size_t)n * 4) != 0)
            arg->failures++;
        tensor_release(u);
        tensor_release(t);
        free(host);
        free(back);
    }
    return NULL;
}

static void test_threads(void **state) {
    (void)state;
    enum { N = 6 };
    pthread_t th[N];
    thread_arg args[N];
    for (int i = 0; i < N; i++) {
        args[i] = (thread_arg){i, 0};
        assert_int_equal(pthread_create(&th[i], NULL, thread_main, &args[i]), 0);
    }
    for (int i = 0; i < N; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < N; i++) assert_int_equal(args[i].failures, 0);
    assert_int_equal(stats0().allocated, 0);
    assert_int_equal(tensor_cuda_empty_cache(), TENSOR_OK);
    assert_int_equal(stats0().reserved, 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_device_count),
    cmocka_unit_test(test_create),
    cmocka_unit_test(test_from_buffer_round_trip),
    cmocka_unit_test(test_empty_tensors),
    cmocka_unit_test(test_to_device_round_trip),
    cmocka_unit_test(test_device_to_device),
    cmocka_unit_test(test_strided_cuda_copy),
    cmocka_unit_test(test_cache_hit_no_malloc),
    cmocka_unit_test(test_stats_move),
    cmocka_unit_test(test_empty_cache_lowers_reserved),
    cmocka_unit_test(test_huge_allocation_fails_cleanly),
    cmocka_unit_test(test_bad_device),
#if TENSOR_HAVE_CUDA
    cmocka_unit_test(test_streams),
#endif
    cmocka_unit_test(test_threads),
};

TENSOR_TEST_GROUP(cuda_storage, tests, NULL, NULL)
