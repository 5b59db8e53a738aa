/* The CUDA soak: several threads, each on a CUDA stream of its own (current streams are per
 * thread), run mixed work on one device at the same time: whole, row, column and multi-block
 * sums, argmax and amax, cumsum, broadcast elementwise ops, where, casts, transposed and
 * narrowed views copied, uploads and downloads. Every result is compared with the CPU's on the
 * same values; the values are small integers (and halves), so every result is exact and the
 * comparison is for equality. Then nothing may have grown: between the end of a warm-up and the
 * end of the main phase (threads joined both times) the caching allocator holds nothing, has
 * reserved no more and asked the driver for nothing more, and the resident set stays flat.
 * Kernels load lazily (on first launch), so the warm-up runs every kind of call the main phase
 * runs.
 *
 * ctest runs a short fixed number of iterations; TENSOR_SOAK_SECONDS=N runs the main phase for
 * N seconds and prints the counts. Needs a GPU. */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuda_test_util.h"
#include "soak_util.h"
#if TENSOR_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

TENSOR_TEST_NEEDS_GPU()

#if TENSOR_HAVE_CUDA
#define SOAK_THREADS 4
#define SOAK_WARMUP_ITERS 8
#define SOAK_MAIN_ITERS 12
#define SOAK_RSS_SLACK_KIB 8192 /* the driver's and cudart's own host allocations settle in the warm-up */

/* shared inputs: CPU originals, device copies (read by every thread), and the CPU's results */
enum { MR = 384, MC = 1536, TR = 1 << 17, TC = 8 };
static tensor_t *m_cpu, *t_cpu, *v_cpu;   /* [MR, MC] f32, [TR, TC] f32, [MC] f32 */
static tensor_t *m_gpu, *t_gpu, *v_gpu;

/* The GPU result `g` against the CPU result `c`: same shape, dtype and bytes. Releases both. */
static void same(tensor_t *g, tensor_t *c, const char *what, int id) {
    if (g == NULL || c == NULL) {
        soak_fail("thread %d: %s failed: %s", id, what, tensor_last_error());
    } else if (tensor_ndim(g) != tensor_ndim(c) || tensor_numel(g) != tensor_numel(c) ||
               tensor_get_dtype(g) != tensor_get_dtype(c)) {
        soak_fail("thread %d: %s: shape or dtype differs from the CPU's", id, what);
    } else {
        const size_t bytes = (size_t)tensor_numel(c) * tensor_dtype_size(tensor_get_dtype(c));
        void *hg = malloc(bytes + 1), *hc = malloc(bytes + 1);
        tensor_t *cc = tensor_contiguous(c);
        if (hg == NULL || hc == NULL || cc == NULL || tensor_to_buffer(g, hg, bytes) != TENSOR_OK ||
            tensor_to_buffer(cc, hc, bytes) != TENSOR_OK)
            soak_fail("thread %d: %s: a download failed: %s", id, what, tensor_last_error());
        else if (memcmp(hg, hc, bytes) != 0)
            soak_fail("thread %d: %s differs from the CPU's", id, what);
        tensor_release(cc);
        free(hg);
        free(hc);
    }
    tensor_release(g);
    tensor_release(c);
}

typedef struct worker {
    int id;
    cudaStream_t stream; /* the thread's own, made once for both phases */
    int64_t iters;
    double deadline;
    int64_t done, checks;
} worker;

static void one_iteration(worker *w, uint64_t *rng) {
    const int id = w->id;
    /* sums: whole (multi-block), over each dim, of the tall matrix over its rows (multi-block
     * columns) */
    same(tensor_sum_dims(m_gpu, NULL, 0, false, TENSOR_FLOAT32), tensor_sum_dims(m_cpu, NULL, 0, false, TENSOR_FLOAT32),
         "sum(M)", id);
    for (int dim = 0; dim < 2; dim++) {
        same(tensor_sum(m_gpu, dim, true), tensor_sum(m_cpu, dim, true), "sum(M, dim)", id);
        same(tensor_argmax(m_gpu, &dim, false), tensor_argmax(m_cpu, &dim, false), "argmax(M)", id);
    }
    same(tensor_sum(t_gpu, 0, false), tensor_sum(t_cpu, 0, false), "sum(T, 0)", id);
    /* amax of the tall matrix's columns */
    same(tensor_amax(t_gpu, (int[]){0}, 1, false), tensor_amax(t_cpu, (int[]){0}, 1, false), "amax(T)", id);
    /* a scan along the rows */
    same(tensor_cumsum(m_gpu, 1, TENSOR_DTYPE_DEFAULT), tensor_cumsum(m_cpu, 1, TENSOR_DTYPE_DEFAULT), "cumsum(M)", id);
    /* broadcast elementwise, where, cast */
    same(tensor_add(m_gpu, v_gpu, tensor_scalar_int(3)), tensor_add(m_cpu, v_cpu, tensor_scalar_int(3)), "M + 3v", id);
    {
        tensor_t *zg = tensor_zeros(0, NULL, TENSOR_FLOAT32, tensor_cuda(0)), *zc = tensor_zeros(0, NULL, TENSOR_FLOAT32, tensor_cpu());
        tensor_t *pg = zg ? tensor_gt(m_gpu, zg) : NULL, *pc = zc ? tensor_gt(m_cpu, zc) : NULL;
        tensor_t *wg = pg ? tensor_where(pg, m_gpu, zg) : NULL, *wc = pc ? tensor_where(pc, m_cpu, zc) : NULL;
        same(wg ? tensor_cast(wg, TENSOR_FLOAT64) : NULL, wc ? tensor_cast(wc, TENSOR_FLOAT64) : NULL, "where/cast", id);
        tensor_release(wg);
        tensor_release(wc);
        tensor_release(pg);
        tensor_release(pc);
        tensor_release(zg);
        tensor_release(zc);
    }
    /* views: a transpose made contiguous, a narrowed slice cloned, scaled in place and summed */
    {
        tensor_t *tg = tensor_transpose(m_gpu, 0, 1), *tc = tensor_transpose(m_cpu, 0, 1);
        same(tg ? tensor_contiguous(tg) : NULL, tc ? tensor_contiguous(tc) : NULL, "contiguous(M^T)", id);
        tensor_release(tg);
        tensor_release(tc);
        const int64_t start = (int64_t)(ct_rng(rng) % MR), len = 1 + (int64_t)(ct_rng(rng) % (uint64_t)(MR - start));
        tensor_t *ng = tensor_narrow(m_gpu, 0, start, len), *nc = tensor_narrow(m_cpu, 0, start, len);
        tensor_t *cg = ng ? tensor_clone(ng) : NULL, *cc = nc ? tensor_clone(nc) : NULL;
        if (cg == NULL || cc == NULL || tensor_mul_scalar_(cg, tensor_scalar_float(2.0)) != TENSOR_OK ||
            tensor_mul_scalar_(cc, tensor_scalar_float(2.0)) != TENSOR_OK)
            soak_fail("thread %d: narrow/clone/mul_ failed: %s", id, tensor_last_error());
        same(cg ? tensor_sum(cg, 1, false) : NULL, cc ? tensor_sum(cc, 1, false) : NULL, "sum(2 M[rows])", id);
        tensor_release(cg);
        tensor_release(cc);
        tensor_release(ng);
        tensor_release(nc);
    }
    /* an upload of this thread's own values and the round trip back */
    {
        const int64_t n = 1 + (int64_t)(ct_rng(rng) % 200000);
        int32_t *h = malloc((size_t)n * 4);
        if (h == NULL) {
            soak_fail("host memory");
            return;
        }
        for (int64_t i = 0; i < n; i++) h[i] = (int32_t)(i * 31 + id);
        tensor_t *c = tensor_from_buffer(h, 1, &n, TENSOR_INT32, tensor_cpu());
        tensor_t *g = c ? tensor_to_device(c, tensor_cuda(0)) : NULL;
        same(g ? tensor_sum(g, 0, false) : NULL, c ? tensor_sum(c, 0, false) : NULL, "sum(own int32)", id);
        same(g, c, "round trip", id);
        free(h);
    }
    w->checks += 14;
}

static void *worker_main(void *arg) {
    worker *w = arg;
    cudaStream_t s = w->stream;
    if (tensor_cuda_set_stream(0, s) != TENSOR_OK || tensor_cuda_get_stream(0) != (void *)s) {
        soak_fail("thread %d: could not set its stream", w->id);
        return NULL;
    }
    uint64_t rng = 0xC0DA0000u + (uint64_t)w->id * 7919u;
    while (w->iters > 0 ? w->done < w->iters : soak_now() < w->deadline) {
        one_iteration(w, &rng);
        w->done++;
    }
    if (cudaStreamSynchronize(s) != cudaSuccess) soak_fail("thread %d: stream synchronize failed", w->id);
    (void)tensor_cuda_set_stream(0, NULL);
    return NULL;
}

/* The streams live across both phases: the cache keeps memory per stream, so new streams in
 * the main phase would need new segments, which the test would count as growth. */
static void run_phase(int64_t iters, double seconds, int64_t *done, int64_t *checks, const cudaStream_t *streams) {
    pthread_t th[SOAK_THREADS];
    worker w[SOAK_THREADS];
    const double deadline = soak_now() + seconds;
    for (int i = 0; i < SOAK_THREADS; i++) {
        w[i] = (worker){i, streams[i], iters, deadline, 0, 0};
        if (pthread_create(&th[i], NULL, worker_main, &w[i]) != 0) fail_msg("pthread_create failed");
    }
    *done = *checks = 0;
    for (int i = 0; i < SOAK_THREADS; i++) {
        pthread_join(th[i], NULL);
        *done += w[i].done;
        *checks += w[i].checks;
    }
}

static tensor_cuda_memory_stats stats(void) {
    tensor_cuda_memory_stats m;
    memset(&m, 0, sizeof m);
    if (tensor_cuda_memory_get_stats(0, &m) != TENSOR_OK) soak_fail("memory stats failed");
    return m;
}

/* Shared inputs: small integers (and halves), so sums, scans and their CPU references agree
 * exactly in any order. */
static tensor_t *pattern(int64_t rows, int64_t cols, int salt) { /* cols 0: a vector of rows */
    const int64_t n = rows * (cols > 0 ? cols : 1);
    float *h = malloc((size_t)n * sizeof *h);
    if (h == NULL) return NULL;
    for (int64_t i = 0; i < n; i++) h[i] = (float)((int)((i * 7 + salt) % 11) - 5) * (i % 3 == 0 ? 0.5f : 1.0f);
    int64_t sizes[2] = {rows, cols};
    tensor_t *t = tensor_from_buffer(h, cols > 0 ? 2 : 1, sizes, TENSOR_FLOAT32, tensor_cpu());
    free(h);
    return t;
}
#endif

static void test_cuda_threaded_soak(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    m_cpu = pattern(MR, MC, 1);
    t_cpu = pattern(TR, TC, 2);
    v_cpu = pattern(MC, 0, 3);
    assert_non_null(m_cpu);
    assert_non_null(t_cpu);
    assert_non_null(v_cpu);
    m_gpu = tensor_to_device(m_cpu, tensor_cuda(0));
    t_gpu = tensor_to_device(t_cpu, tensor_cuda(0));
    v_gpu = tensor_to_device(v_cpu, tensor_cuda(0));
    assert_non_null(m_gpu);
    assert_non_null(t_gpu);
    assert_non_null(v_gpu);
    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);

    const char *env = getenv("TENSOR_SOAK_SECONDS");
    const double seconds = env != NULL ? atof(env) : 0.0;
    const bool long_run = seconds > 0;
    const bool quick = ct_quick();
    atomic_store(&soak_failures, 0);
    cudaStream_t streams[SOAK_THREADS] = {0};
    for (int i = 0; i < SOAK_THREADS; i++)
        assert_int_equal(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking), cudaSuccess);
    int64_t warm_done = 0, checks = 0, done = 0;
    const tensor_cuda_memory_stats base = stats();
    run_phase(quick ? 1 : SOAK_WARMUP_ITERS, 0, &warm_done, &checks, streams);
    const tensor_cuda_memory_stats warm = stats();
    const int64_t warm_rss = soak_rss_kib();
    const struct mallinfo2 warm_heap = mallinfo2();
    const double t0 = soak_now();
    run_phase(long_run ? 0 : (quick ? 2 : SOAK_MAIN_ITERS), seconds, &done, &checks, streams);
    const double elapsed = soak_now() - t0;
    const tensor_cuda_memory_stats end = stats();
    const int64_t end_rss = soak_rss_kib();
    const struct mallinfo2 end_heap = mallinfo2();
    printf("cuda soak: %d threads on %d streams, %lld warm-up + %lld main iterations in %.1f s, %lld checked "
           "results\n",
           SOAK_THREADS, SOAK_THREADS, (long long)warm_done, (long long)done, elapsed, (long long)checks);
    printf("cuda soak: allocated %llu -> %llu -> %llu B, reserved %llu -> %llu -> %llu B, device mallocs %llu -> "
           "%llu -> %llu, rss %lld -> %lld KiB (base, warm-up, end)\n",
           (unsigned long long)base.allocated, (unsigned long long)warm.allocated, (unsigned long long)end.allocated,
           (unsigned long long)base.reserved, (unsigned long long)warm.reserved, (unsigned long long)end.reserved,
           (unsigned long long)base.num_device_mallocs, (unsigned long long)warm.num_device_mallocs,
           (unsigned long long)end.num_device_mallocs, (long long)warm_rss, (long long)end_rss);
    /* glibc's heap: in use (what a leak grows) and held (what fragmentation grows) */
    printf("cuda soak: heap in use %zu -> %zu B, heap held %zu -> %zu B (warm-up, end)\n",
           warm_heap.uordblks + warm_heap.hblkhd, end_heap.uordblks + end_heap.hblkhd, warm_heap.arena + warm_heap.hblkhd,
           end_heap.arena + end_heap.hblkhd);
    if (atomic_load(&soak_failures) != 0)
        fail_msg("%d failed checks, the first: %s", atomic_load(&soak_failures), soak_first_failure);
    assert_true(done >= 1);
    /* at rest the threads hold nothing; after the warm-up the cache needs no new segment */
    assert_int_equal(warm.allocated, base.allocated);
    assert_int_equal(end.allocated, base.allocated);
    assert_int_equal(end.reserved, warm.reserved);
    assert_int_equal(end.num_device_mallocs, warm.num_device_mallocs);
    /* A leak of ours grows glibc's heap in use. The resident set also grows with what glibc
     * keeps of freed blocks (its arenas, one per thread that allocated: held, not in use) and
     * with what the driver and cudart allocate outside malloc: so the check on it subtracts the
     * growth of the heap glibc holds, and what remains must stay within the slack. Quick mode
     * is the compute-sanitizer runs, whose own host memory grows with every launch. */
    const int64_t in_use_growth = (int64_t)(end_heap.uordblks + end_heap.hblkhd) -
                                  (int64_t)(warm_heap.uordblks + warm_heap.hblkhd);
    const int64_t held_growth_kib =
        ((int64_t)(end_heap.arena + end_heap.hblkhd) - (int64_t)(warm_heap.arena + warm_heap.hblkhd)) / 1024;
    if (!quick && in_use_growth > (int64_t)SOAK_RSS_SLACK_KIB * 1024)
        fail_msg("the heap in use grew by %lld B", (long long)in_use_growth);
    if (!quick && warm_rss > 0 && end_rss - warm_rss - (held_growth_kib > 0 ? held_growth_kib : 0) > SOAK_RSS_SLACK_KIB)
        fail_msg("resident set grew from %lld to %lld KiB, %lld KiB of it in glibc's held heap", (long long)warm_rss,
                 (long long)end_rss, (long long)held_growth_kib);

    tensor_release(m_gpu);
    tensor_release(t_gpu);
    tensor_release(v_gpu);
    tensor_release(m_cpu);
    tensor_release(t_cpu);
    tensor_release(v_cpu);
    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
    assert_int_equal(ct_release_cached(), TENSOR_OK);
    for (int i = 0; i < SOAK_THREADS; i++)
        assert_int_equal(cudaStreamDestroy(streams[i]), cudaSuccess);
#endif
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_cuda_threaded_soak),
};

TENSOR_TEST_GROUP(cuda_soak, tests, NULL, NULL)
