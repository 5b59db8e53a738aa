/* The device allocator hook (tensor_set_device_allocator, runtime/allocator.h) on a GPU: with a
 * counting allocator over cudaMalloc/cudaFree installed, reductions (a global reduce's staging
 * buffer and a split reduction's partials included), elementwise ops, copies and a resize take
 * every device allocation from it (the caching allocator makes none, and every result's data
 * lies in memory it handed out), with what the hook promises (device current, the current
 * stream, 256-byte alignment, 512-byte multiples); the statistics count its bytes; everything
 * goes back to it; memory outlives a change of allocator and returns to the one that made it; a
 * NULL or misaligned answer is TENSOR_ERR_OUT_OF_MEMORY naming the call, with nothing leaked;
 * and the default comes back. Needs a GPU (exit 77 without one). */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_test_util.h"
#include "tinytensor.h"
#if TENSOR_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

TENSOR_TEST_NEEDS_GPU()

#if TENSOR_HAVE_CUDA

#define MAX_LIVE 4096

typedef struct counting {
    pthread_mutex_t lock;
    int64_t allocs, frees, bad;
    size_t live_bytes;
    int64_t fail_at;  /* > 0: the fail_at-th alloc from now returns NULL (then disarms) */
    int misalign;     /* alloc returns memory 16 bytes past a cudaMalloc'ed block */
    void *last_stream;
    void *ptrs[MAX_LIVE];
    size_t sizes[MAX_LIVE];
    int nlive;
    char why[200]; /* the first broken promise */
} counting;

static void broken(counting *c, const char *what) {
    c->bad++;
    if (c->why[0] == '\0') snprintf(c->why, sizeof c->why, "%s", what);
}

/* Never calls into tinytensor: the hook's rules forbid it. */
static void *count_alloc(void *ctx, int device, size_t nbytes, size_t alignment, void *stream) {
    counting *c = ctx;
    pthread_mutex_lock(&c->lock);
    int cur = -1;
    if (cudaGetDevice(&cur) != cudaSuccess || cur != device) broken(c, "alloc: device is not the current one");
    if (nbytes == 0 || nbytes % 512 != 0) broken(c, "alloc: nbytes is not a positive multiple of 512");
    if (alignment != 256) broken(c, "alloc: alignment is not 256");
    c->last_stream = stream;
    void *p = NULL;
    bool fail = c->fail_at > 0 && --c->fail_at == 0;
    if (!fail && c->nlive < MAX_LIVE && cudaMalloc(&p, nbytes + (c->misalign ? 256 : 0)) == cudaSuccess) {
        if (c->misalign) p = (char *)p + 16;
        c->ptrs[c->nlive] = p;
        c->sizes[c->nlive] = nbytes;
        c->nlive++;
        c->allocs++;
        c->live_bytes += nbytes;
    } else {
        (void)cudaGetLastError();
        p = NULL;
    }
    pthread_mutex_unlock(&c->lock);
    return p;
}

static void count_free(void *ctx, int device, void *ptr, size_t nbytes, void *stream) {
    counting *c = ctx;
    (void)stream;
    pthread_mutex_lock(&c->lock);
    int cur = -1;
    if (cudaGetDevice(&cur) != cudaSuccess || cur != device) broken(c, "free: device is not the current one");
    int i = 0;
    while (i < c->nlive && c->ptrs[i] != ptr) i++;
    if (i == c->nlive) {
        broken(c, "free: a pointer alloc did not return");
    } else {
        if (c->sizes[i] != nbytes) broken(c, "free: nbytes differs from alloc's");
        c->live_bytes -= c->sizes[i];
        c->ptrs[i] = c->ptrs[c->nlive - 1];
        c->sizes[i] = c->sizes[c->nlive - 1];
        c->nlive--;
        c->frees++;
        if (((uintptr_t)ptr & 255) != 0) ptr = (char *)ptr - 16; /* the misaligned ones */
        /* cudaFree waits for the device: the work still queued on the memory finishes first */
        if (cudaFree(ptr) != cudaSuccess) broken(c, "free: cudaFree failed");
    }
    pthread_mutex_unlock(&c->lock);
}

/* True when [p, p + n) lies in memory the counting allocator handed out and still holds. */
static bool owns(counting *c, const void *p, size_t n) {
    pthread_mutex_lock(&c->lock);
    bool in = false;
    for (int i = 0; i < c->nlive && !in; i++)
        in = (uintptr_t)p >= (uintptr_t)c->ptrs[i] && (uintptr_t)p + n <= (uintptr_t)c->ptrs[i] + c->sizes[i];
    pthread_mutex_unlock(&c->lock);
    return in;
}

static counting *counting_new(void) {
    counting *c = calloc(1, sizeof *c);
    assert_non_null(c);
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

static void counting_done(counting *c) {
    if (c->bad) fail_msg("the hook broke its promises %lld times, first: %s", (long long)c->bad, c->why);
    assert_int_equal(c->allocs, c->frees);
    assert_int_equal(c->live_bytes, 0);
    assert_int_equal(c->nlive, 0);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static tensor_cuda_memory_stats stats(void) {
    tensor_cuda_memory_stats s;
    assert_int_equal(tensor_cuda_memory_get_stats(0, &s), TENSOR_OK);
    return s;
}

static tensor_t *gpu_rand(int ndim, const int64_t *shape, uint64_t seed, tensor_dtype dt) {
    tensor_t *c = tensor_rand(ndim, shape, seed, dt, tensor_cpu());
    assert_non_null(c);
    tensor_t *g = ct_to_gpu(c);
    tensor_release(c);
    return g;
}

/* The result's bytes came from the counting allocator. */
static void assert_owned(counting *c, const tensor_t *t, const char *what) {
    if (t == NULL) fail_msg("%s failed: %s", what, tensor_last_error());
    size_t n = ct_nbytes(t);
    if (!owns(c, tensor_data(t), n ? n : 1)) fail_msg("%s: its memory did not come from the user allocator", what);
}

/* The same call on the CPU copy and on the GPU tensor agree (to float32 rounding). */
static void assert_close(const tensor_t *gpu, const tensor_t *cpu, const char *what) {
    tensor_t *back = tensor_to_device(gpu, tensor_cpu());
    assert_non_null(back);
    tensor_t *a = tensor_to_dtype(back, TENSOR_FLOAT64), *b = tensor_to_dtype(cpu, TENSOR_FLOAT64);
    assert_non_null(a);
    assert_non_null(b);
    ct_assert_same_shape(a, b, what);
    const double *x = tensor_data(a), *y = tensor_data(b);
    for (int64_t i = 0; i < tensor_numel(a); i++)
        if (!(fabs(x[i] - y[i]) <= 1e-4 * (1 + fabs(y[i]))))
            fail_msg("%s: element %lld is %g on the GPU, %g on the CPU", what, (long long)i, x[i], y[i]);
    tensor_release(a);
    tensor_release(b);
    tensor_release(back);
}

/* Reductions, elementwise ops, copies and a resize with the counting allocator installed. */
static void test_everything_through_the_hook(void **state) {
    (void)state;
    assert_int_equal(tensor_cuda_synchronize(), TENSOR_OK);
    /* the reduction engine's counters come from cudaMalloc once per device (documented): made
     * here, before the count starts */
    tensor_t *warm = gpu_rand(1, (int64_t[]){1 << 20}, 9, TENSOR_FLOAT32);
    tensor_t *warm_sum = tensor_sum(warm, 0, false);
    assert_non_null(warm_sum);
    tensor_release(warm_sum);
    tensor_release(warm);

    const tensor_cuda_memory_stats base = stats();
    counting *c = counting_new();
    const tensor_device_allocator saved = tensor_get_device_allocator();
    assert_null(saved.alloc);
    const tensor_device_allocator mine = {count_alloc, count_free, c};
    assert_int_equal(tensor_set_device_allocator(&mine), TENSOR_OK);

    const int64_t shape[2] = {300, 5000};
    tensor_t *xc = tensor_rand(2, shape, 1, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(xc);
    tensor_t *x = ct_to_gpu(xc);
    assert_owned(c, x, "upload");
    const int d0 = 0, d1 = 1;
    /* a long row: a global reduce with a staging buffer */
    tensor_t *big_c = tensor_rand(1, (int64_t[]){1 << 22}, 2, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *big = ct_to_gpu(big_c);
    int64_t mallocs_before_sum = c->allocs;
    tensor_t *big_sum = tensor_sum_dims(big, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_owned(c, big_sum, "tensor_sum_dims (global reduce)");
    tensor_t *big_sum_c = tensor_sum_dims(big_c, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    assert_close(big_sum, big_sum_c, "global sum");
    print_message("a global reduce made %lld allocations through the hook\n",
                  (long long)(c->allocs - mallocs_before_sum));

    tensor_t *gpu[16] = {0}, *cpu[16] = {0};
    const char *what[16];
    int k = 0;
    what[k] = "sum dim 0", gpu[k] = tensor_sum_dims(x, &d0, 1, false, TENSOR_DTYPE_DEFAULT),
    cpu[k++] = tensor_sum_dims(xc, &d0, 1, false, TENSOR_DTYPE_DEFAULT);
    what[k] = "mean dim 1", gpu[k] = tensor_mean(x, &d1, 1, true, TENSOR_DTYPE_DEFAULT),
    cpu[k++] = tensor_mean(xc, &d1, 1, true, TENSOR_DTYPE_DEFAULT);
    what[k] = "var", gpu[k] = tensor_var(x, 1.0, &d0, 1, false), cpu[k++] = tensor_var(xc, 1.0, &d0, 1, false);
    what[k] = "argmax", gpu[k] = tensor_argmax(x, &d1, false), cpu[k++] = tensor_argmax(xc, &d1, false);
    tensor_t *row_c = tensor_rand(1, (int64_t[]){5000}, 3, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *row = ct_to_gpu(row_c);
    what[k] = "add (broadcast)", gpu[k] = tensor_add(x, row, tensor_scalar_int(1)),
    cpu[k++] = tensor_add(xc, row_c, tensor_scalar_int(1));
    what[k] = "exp", gpu[k] = tensor_exp(row), cpu[k++] = tensor_exp(row_c);
    tensor_t *xt = tensor_transpose(x, 0, 1), *xtc = tensor_transpose(xc, 0, 1);
    what[k] = "contiguous (transpose)", gpu[k] = tensor_contiguous(xt), cpu[k++] = tensor_contiguous(xtc);
    what[k] = "cast to bfloat16", gpu[k] = tensor_to_dtype(xt, TENSOR_BFLOAT16),
    cpu[k++] = tensor_to_dtype(xtc, TENSOR_BFLOAT16);
    what[k] = "clone", gpu[k] = tensor_clone(row), cpu[k++] = tensor_clone(row_c);
    for (int i = 0; i < k; i++) {
        assert_owned(c, gpu[i], what[i]);
        assert_non_null(cpu[i]);
        assert_close(gpu[i], cpu[i], what[i]);
    }
    /* a reduction split into 32-bit pieces accumulates partials in a buffer of its own */
    tensor_cuda_reduce_index_limit = 40000;
    tensor_t *split = tensor_sum_dims(x, &d1, 1, false, TENSOR_DTYPE_DEFAULT);
    tensor_cuda_reduce_index_limit = INT64_C(2147483647);
    tensor_t *split_c = tensor_sum_dims(xc, &d1, 1, false, TENSOR_DTYPE_DEFAULT);
    assert_owned(c, split, "split sum");
    assert_close(split, split_c, "split sum");
    /* a resize that grows the storage takes its new block from the hook and frees the old */
    tensor_t *grow = tensor_clone(row);
    int64_t frees_before = c->frees;
    assert_int_equal(tensor_resize_(grow, 2, (int64_t[]){600, 5000}), TENSOR_OK);
    assert_owned(c, grow, "tensor_resize_");
    assert_true(c->frees == frees_before + 1);

    /* the statistics saw all of it, and the cache made no device allocation */
    assert_int_equal(tensor_cuda_synchronize(), TENSOR_OK);
    tensor_cuda_memory_stats s = stats();
    assert_int_equal(s.allocated - base.allocated, c->live_bytes);
    assert_int_equal(s.reserved - base.reserved, c->live_bytes);
    assert_int_equal(s.num_device_mallocs - base.num_device_mallocs, c->allocs);
    assert_int_equal(s.num_device_frees - base.num_device_frees, c->frees);
    assert_true(s.peak_allocated >= s.allocated);
    assert_null(c->last_stream); /* the default stream is current */

    tensor_t *all[] = {x, xc, big, big_c, big_sum, big_sum_c, row, row_c, xt, xtc, split, split_c, grow};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) tensor_release(all[i]);
    for (int i = 0; i < k; i++) {
        tensor_release(gpu[i]);
        tensor_release(cpu[i]);
    }
    assert_int_equal(tensor_cuda_synchronize(), TENSOR_OK);
    s = stats();
    assert_int_equal(s.allocated, base.allocated);
    assert_int_equal(s.reserved, base.reserved);
    assert_int_equal(s.num_device_mallocs - base.num_device_mallocs, c->allocs);
    assert_int_equal(s.num_device_frees - base.num_device_frees, c->frees);
    print_message("%lld device allocations through the hook, all freed\n", (long long)c->allocs);
    assert_true(c->allocs >= 13); /* at least one per GPU result above (each checked to come from the hook) */

    /* back to the caching allocator: saved, as tensor_get_device_allocator gave it */
    assert_int_equal(tensor_set_device_allocator(&saved), TENSOR_OK);
    assert_null(tensor_get_device_allocator().alloc);
    tensor_t *after = gpu_rand(1, (int64_t[]){1000}, 4, TENSOR_FLOAT32);
    assert_int_equal(c->allocs, c->frees);
    assert_false(owns(c, tensor_data(after), 4));
    tensor_release(after);
    counting_done(c);
}

/* Each allocation goes back to the allocator that made it, whatever is installed by then; the
 * work on another stream gets memory for that stream. */
static void test_switching_allocators(void **state) {
    (void)state;
    counting *c = counting_new();
    const tensor_device_allocator mine = {count_alloc, count_free, c};
    tensor_t *cached = gpu_rand(1, (int64_t[]){1000}, 5, TENSOR_FLOAT32); /* from the cache */
    assert_int_equal(tensor_set_device_allocator(&mine), TENSOR_OK);
    tensor_t *hooked = gpu_rand(1, (int64_t[]){1000}, 6, TENSOR_FLOAT32);
    assert_owned(c, hooked, "upload");
    tensor_release(cached); /* back to the cache, not to the hook */
    assert_int_equal(c->frees, 0);
    /* another stream: the hook is told which */
    cudaStream_t st;
    assert_int_equal(cudaStreamCreate(&st), cudaSuccess);
    void *prev = NULL;
    assert_int_equal(tensor_cuda_exchange_stream(0, st, &prev), TENSOR_OK);
    tensor_t *on_stream = tensor_exp(hooked);
    assert_owned(c, on_stream, "tensor_exp on a stream");
    assert_ptr_equal(c->last_stream, (void *)st);
    tensor_t *down = tensor_to_device(on_stream, tensor_cpu());
    assert_non_null(down);
    tensor_release(on_stream);
    assert_int_equal(cudaStreamSynchronize(st), cudaSuccess);
    void *ours = NULL;
    assert_int_equal(tensor_cuda_exchange_stream(0, prev, &ours), TENSOR_OK);
    assert_int_equal(cudaStreamDestroy(st), cudaSuccess);
    tensor_release(down);
    /* back to the cache while the hook's memory lives: it still returns to the hook */
    assert_int_equal(tensor_set_device_allocator(NULL), TENSOR_OK);
    int64_t frees = c->frees;
    tensor_release(hooked);
    assert_true(c->frees == frees + 1);
    counting_done(c);
}

/* A user allocator that fails: TENSOR_ERR_OUT_OF_MEMORY from the call that needed the memory,
 * naming it, for every allocation of a scenario in turn, with nothing leaked and the inputs
 * unchanged. Memory that is not aligned is handed back and refused the same way. */
static void test_failing_allocator(void **state) {
    (void)state;
    counting *c = counting_new();
    const tensor_device_allocator mine = {count_alloc, count_free, c};
    tensor_t *x = gpu_rand(2, (int64_t[]){300, 500}, 7, TENSOR_FLOAT32);
    tensor_t *b = gpu_rand(1, (int64_t[]){500}, 8, TENSOR_FLOAT32);
    assert_int_equal(tensor_set_device_allocator(&mine), TENSOR_OK);

    c->fail_at = 1;
    assert_null(tensor_empty(1, (int64_t[]){100}, TENSOR_FLOAT32, tensor_cuda(0)));
    assert_error(TENSOR_ERR_OUT_OF_MEMORY,
                 "tensor_empty: CUDA out of memory on cuda:0: the device allocator returned NULL");
    c->fail_at = 1;
    assert_null(tensor_sum(x, 1, false));
    /* the output's allocation fails: the message names the allocating function */
    assert_error(TENSOR_ERR_OUT_OF_MEMORY, "the device allocator returned NULL");

    const int d0 = 0;
    int64_t points = 0;
    for (int64_t n = 1; n < 1000; n++) {
        const int64_t allocs = c->allocs;
        c->fail_at = n;
        tensor_t *s = tensor_sum_dims(x, &d0, 1, false, TENSOR_DTYPE_DEFAULT);
        tensor_t *m = s ? tensor_mean(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT) : NULL;
        tensor_t *a = m ? tensor_add(x, b, tensor_scalar_int(2)) : NULL;
        tensor_t *t = a ? tensor_transpose(a, 0, 1) : NULL;
        tensor_t *k = t ? tensor_contiguous(t) : NULL;
        tensor_status st = k ? TENSOR_OK : tensor_last_status();
        const bool armed = c->fail_at > 0;
        c->fail_at = 0;
        tensor_t *all[] = {k, t, a, m, s};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) tensor_release(all[i]);
        assert_int_equal(tensor_cuda_synchronize(), TENSOR_OK);
        if (c->live_bytes != 0) fail_msg("allocation %lld failing left %zu bytes live", (long long)n, c->live_bytes);
        if (st == TENSOR_OK) {
            if (!armed) fail_msg("allocation %lld was made to fail, yet the calls succeeded", (long long)n);
            break;
        }
        if (st != TENSOR_ERR_OUT_OF_MEMORY || strstr(tensor_last_error(), "tensor_") == NULL ||
            strstr(tensor_last_error(), "device allocator returned NULL") == NULL)
            fail_msg("allocation %lld failing gave %s: '%s'", (long long)n, tensor_status_name(st),
                     tensor_last_error());
        assert_true(c->allocs >= allocs + n - 1);
        points++;
    }
    print_message("%lld allocation failure points, each a clean TENSOR_ERR_OUT_OF_MEMORY\n", (long long)points);
    assert_true(points >= 4);

    c->misalign = 1;
    int64_t frees = c->frees;
    assert_null(tensor_exp(x));
    assert_error(TENSOR_ERR_OUT_OF_MEMORY, "tensor_exp: the device allocator returned");
    assert_non_null(strstr(tensor_last_error(), "not aligned to 256 bytes"));
    assert_true(c->frees == frees + 1); /* given back */
    c->misalign = 0;

    assert_int_equal(tensor_set_device_allocator(NULL), TENSOR_OK);
    tensor_release(x);
    tensor_release(b);
    counting_done(c);
}

static void test_allocator_release_cached(void **state) {
    (void)state;
    assert_int_equal(tensor_set_device_allocator(NULL), TENSOR_OK);
    assert_int_equal(ct_release_cached(), TENSOR_OK);
}

/* A failed test must not leave its allocator installed for the groups that run after it. */
static int restore_default(void **state) {
    (void)state;
    return tensor_set_device_allocator(NULL) == TENSOR_OK ? 0 : -1;
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test_teardown(test_everything_through_the_hook, restore_default),
    cmocka_unit_test_teardown(test_switching_allocators, restore_default),
    cmocka_unit_test_teardown(test_failing_allocator, restore_default),
    cmocka_unit_test(test_allocator_release_cached),
};

TENSOR_TEST_GROUP(cuda_allocator, tests, NULL, NULL)

#endif /* TENSOR_HAVE_CUDA */
