/* The threaded soak: several threads at once run reductions, elementwise ops (broadcast, in
 * place, where, casts), views and copies, printing and failing calls, on tensors they share
 * (read only) and tensors of their own, and take blocks from one caching allocator over a fake
 * device; every result is checked against a reference computed before the threads start.
 * Then nothing may have grown: between the end of a warm-up phase and the end of the main
 * phase (threads joined both times), the resident set (/proc/self/statm), the heap in use
 * (glibc's mallinfo2) and the caching allocator's statistics stay flat, and the CPU storages
 * alive (counted by a host allocator installed with tensor_set_host_allocator) are exactly the
 * shared inputs' again.
 *
 * ctest runs a short fixed number of iterations (label soak). TENSOR_SOAK_SECONDS=N runs the
 * main phase for N seconds instead, sampling memory every second, and prints the figures.
 * Under AddressSanitizer the resident set and heap figures mean nothing (its quarantine holds
 * freed memory; LeakSanitizer checks leaks there), nor under ThreadSanitizer (its own
 * allocator, and shadow memory and access histories that grow as threads touch memory), so
 * only the allocator's are checked there. */
#define _GNU_SOURCE
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "soak_util.h"
#include "test_main.h"

#include "runtime/block_cache.h"
#include "runtime/error.h"

#if defined(__SANITIZE_ADDRESS__)
#define SOAK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SOAK_ASAN 1
#endif
#endif
#ifndef SOAK_ASAN
#define SOAK_ASAN 0
#endif
#if defined(__SANITIZE_THREAD__)
#define SOAK_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SOAK_TSAN 1
#endif
#endif
#ifndef SOAK_TSAN
#define SOAK_TSAN 0
#endif

#define SOAK_THREADS 4
#define SOAK_WARMUP_ITERS 50
#define SOAK_MAIN_ITERS (SOAK_ASAN ? 150 : 500) /* ASan runs about 8 times slower */
/* Growth allowed between the two quiescent points of the short run, and between warm-up and
 * any later sample of a long run: the allocator's pages and glibc's per-thread arenas settle
 * in the warm-up; what is left is page-granular noise. */
#define SOAK_RSS_SLACK_KIB 2048
#define SOAK_HEAP_SLACK_BYTES (64 * 1024)

/* ---- shared inputs and their references ---- */

#define XR 48
#define XC 37
#define BIGN 70000

static tensor_t *X, *Y, *I3, *H, *BIG; /* shared, never written after setup */
static double x_vals[XR * XC], y_vals[XC], h_vals[300];
static int64_t i3_vals[5 * 6 * 7];
static double x_colsum[XC], x_rowsum[XR], x_total, big_total;
static int64_t x_text_len;
static char *h_text; /* tensor_format of H */

#define SOAK_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) soak_fail(__VA_ARGS__);                                                       \
    } while (0)

/* ---- helpers ---- */

static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static tensor_t *from_doubles(tensor_dtype dt, int ndim, const int64_t *sizes, const double *v, int64_t n) {
    const size_t es = tensor_dtype_size(dt);
    unsigned char *buf = malloc((size_t)n * es);
    if (buf == NULL) return NULL;
    for (int64_t i = 0; i < n; i++) tensor_dtype_store_double(dt, buf + (size_t)i * es, v[i]);
    tensor_t *t = tensor_from_buffer(buf, ndim, sizes, dt, tensor_cpu());
    free(buf);
    return t;
}

/* t's values in logical order as doubles into out (n of them); false on a failed copy. */
static bool values_of(const tensor_t *t, double *out, int64_t n) {
    if (t == NULL || tensor_numel(t) != n) return false;
    const tensor_dtype dt = tensor_get_dtype(t);
    const size_t es = tensor_dtype_size(dt);
    unsigned char *buf = malloc((size_t)(n > 0 ? n : 1) * es);
    if (buf == NULL) return false;
    const bool ok = tensor_to_buffer(t, buf, (size_t)n * es) == TENSOR_OK;
    for (int64_t i = 0; ok && i < n; i++) out[i] = tensor_dtype_load_double(dt, buf + (size_t)i * es);
    free(buf);
    return ok;
}

/* ---- memory figures ---- */

typedef struct mem_sample {
    int64_t rss_kib;
    int64_t heap_bytes; /* -1: not available */
    tensor_cuda_memory_stats cache;
    long storages, storage_bytes; /* CPU storages alive, and their bytes */
} mem_sample;

static int64_t heap_in_use(void) {
#if SOAK_ASAN || SOAK_TSAN || !defined(__GLIBC__) || !(__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    return -1;
#else
    const struct mallinfo2 mi = mallinfo2();
    return (int64_t)mi.uordblks + (int64_t)mi.hblkhd;
#endif
}

/* ---- the caching allocator over a fake device: host memory, a mutex-free fake (the cache
 * calls it with its own mutex held) ---- */

static atomic_long fake_live_bytes;
static tensor_status fake_alloc(void *ctx, int device, size_t nbytes, void **ptr, const char *func) {
    (void)ctx;
    (void)device;
    (void)func;
    *ptr = malloc(nbytes);
    if (*ptr == NULL) return TENSOR_ERR_OUT_OF_MEMORY;
    atomic_fetch_add(&fake_live_bytes, (long)nbytes);
    return TENSOR_OK;
}
static tensor_status fake_free(void *ctx, int device, void *ptr, size_t nbytes) {
    (void)ctx;
    (void)device;
    free(ptr);
    atomic_fetch_sub(&fake_live_bytes, (long)nbytes);
    return TENSOR_OK;
}
static tensor_block_cache *cache;

/* ---- CPU storages, counted through the host allocator hook ---- */

static atomic_long storages_live, storage_bytes_live, storages_made;
static void *counting_alloc(void *ctx, size_t nbytes, size_t alignment) {
    (void)ctx;
    void *p = aligned_alloc(alignment, nbytes);
    if (p != NULL) {
        atomic_fetch_add(&storages_live, 1);
        atomic_fetch_add(&storages_made, 1);
        atomic_fetch_add(&storage_bytes_live, (long)nbytes);
    }
    return p;
}
static void counting_free(void *ctx, void *ptr, size_t nbytes) {
    (void)ctx;
    free(ptr);
    atomic_fetch_sub(&storages_live, 1);
    atomic_fetch_sub(&storage_bytes_live, (long)nbytes);
}

static mem_sample sample(void) {
    mem_sample m;
    m.rss_kib = soak_rss_kib();
    m.heap_bytes = heap_in_use();
    memset(&m.cache, 0, sizeof m.cache);
    if (tensor_block_cache_get_stats(cache, 0, &m.cache, "soak") != TENSOR_OK) soak_fail("block cache stats failed");
    m.storages = atomic_load(&storages_live);
    m.storage_bytes = atomic_load(&storage_bytes_live);
    return m;
}

/* ---- one thread's work ---- */

typedef struct worker {
    int id;
    int64_t iters;     /* > 0: this many iterations */
    double deadline;   /* else: until this CLOCK_MONOTONIC time */
    int64_t done;
    int64_t checks;
} worker;

static void one_iteration(worker *w, uint64_t *rng) {
    const int it = (int)(w->done % 1000000);
    double got[XR * XC];
    /* a reduction over a drawn dim of the shared matrix */
    {
        const int dim = (int)(rng_next(rng) % 2);
        const bool keep = rng_next(rng) & 1;
        tensor_t *s = tensor_sum(X, dim, keep);
        const int64_t n = dim == 0 ? XC : XR;
        SOAK_CHECK(s != NULL && values_of(s, got, n), "sum(X, %d) failed: %s", dim, tensor_last_error());
        for (int64_t i = 0; s != NULL && i < n; i++)
            SOAK_CHECK(got[i] == (dim == 0 ? x_colsum[i] : x_rowsum[i]), "sum(X, %d)[%lld] = %g", dim, (long long)i, got[i]);
        SOAK_CHECK(s == NULL || tensor_ndim(s) == (keep ? 2 : 1), "sum keepdim rank");
        tensor_release(s);
        w->checks++;
    }
    /* a transposed view, copied */
    {
        tensor_t *t = tensor_transpose(X, 0, 1);
        tensor_t *c = tensor_contiguous(t);
        SOAK_CHECK(c != NULL && tensor_is_contiguous(c) && values_of(c, got, XR * XC), "transpose/contiguous failed");
        for (int i = 0; c != NULL && i < XC; i++)
            for (int j = 0; j < XR; j++) SOAK_CHECK(got[i * XR + j] == x_vals[j * XC + i], "X^T[%d][%d]", i, j);
        tensor_release(c);
        tensor_release(t);
        w->checks++;
    }
    /* broadcast add */
    {
        tensor_t *s = tensor_add(X, Y, tensor_scalar_int(2));
        SOAK_CHECK(s != NULL && values_of(s, got, XR * XC), "add failed: %s", tensor_last_error());
        for (int i = 0; s != NULL && i < XR * XC; i++)
            SOAK_CHECK(got[i] == x_vals[i] + 2 * y_vals[i % XC], "add[%d] = %g", i, got[i]);
        tensor_release(s);
        w->checks++;
    }
    /* a private copy of some rows, changed in place, reduced */
    {
        const int64_t start = (int64_t)(rng_next(rng) % XR), len = 1 + (int64_t)(rng_next(rng) % (uint64_t)(XR - start));
        tensor_t *v = tensor_narrow(X, 0, start, len);
        tensor_t *p = tensor_clone(v);
        SOAK_CHECK(p != NULL && tensor_mul_scalar_(p, tensor_scalar_float(2.0)) == TENSOR_OK, "mul_ failed");
        tensor_t *s = tensor_sum_dims(p, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        double want = 0;
        for (int64_t r = start; r < start + len; r++) want += x_rowsum[r];
        SOAK_CHECK(s != NULL && values_of(s, got, 1) && got[0] == 2 * want, "sum of the private copy");
        /* X itself is untouched */
        SOAK_CHECK(values_of(v, got, len * XC) && memcmp(got, x_vals + start * XC, sizeof(double) * (size_t)(len * XC)) == 0,
                   "a shared tensor changed");
        tensor_release(s);
        tensor_release(p);
        tensor_release(v);
        w->checks++;
    }
    /* arg-reduction and amax on an int32 3-d tensor */
    {
        const int dim = (int)(rng_next(rng) % 3);
        tensor_t *a = tensor_argmax(I3, &dim, false);
        tensor_t *m = tensor_amax(I3, &dim, 1, false);
        const int64_t sz[3] = {5, 6, 7}, st[3] = {42, 7, 1};
        const int64_t n = 5 * 6 * 7 / sz[dim];
        double ga[42], gm[42];
        SOAK_CHECK(a != NULL && m != NULL && values_of(a, ga, n) && values_of(m, gm, n), "argmax/amax failed");
        int64_t o = 0;
        for (int64_t i = 0; a != NULL && m != NULL && i < 5; i++)
            for (int64_t j = 0; j < 6; j++)
                for (int64_t k = 0; k < 7; k++) {
                    const int64_t idx[3] = {i, j, k};
                    if (idx[dim] != 0) continue;
                    int64_t best = INT64_MIN, arg = 0;
                    for (int64_t r = 0; r < sz[dim]; r++) {
                        const int64_t v = i3_vals[i * 42 + j * 7 + k + r * st[dim]];
                        if (v > best) best = v, arg = r;
                    }
                    SOAK_CHECK(ga[o] == (double)arg && gm[o] == (double)best, "argmax/amax element %lld", (long long)o);
                    o++;
                }
        tensor_release(a);
        tensor_release(m);
        w->checks++;
    }
    /* where, a comparison and a cast */
    {
        tensor_t *zero = tensor_zeros(0, NULL, TENSOR_FLOAT32, tensor_cpu());
        tensor_t *pos = tensor_gt(X, zero);
        tensor_t *r = tensor_where(pos, X, zero);
        tensor_t *r64 = tensor_cast(r, TENSOR_FLOAT64);
        SOAK_CHECK(r64 != NULL && tensor_get_dtype(r64) == TENSOR_FLOAT64 && values_of(r64, got, XR * XC), "where/cast failed");
        for (int i = 0; r64 != NULL && i < XR * XC; i++) SOAK_CHECK(got[i] == (x_vals[i] > 0 ? x_vals[i] : 0), "where[%d]", i);
        tensor_release(r64);
        tensor_release(r);
        tensor_release(pos);
        tensor_release(zero);
        w->checks++;
    }
    /* float16 mean, and printing: the same text every time */
    {
        tensor_t *m = tensor_mean(H, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        double hs = 0;
        for (int i = 0; i < 300; i++) hs += h_vals[i];
        SOAK_CHECK(m != NULL && values_of(m, got, 1) && got[0] == (double)tensor_float16_to_float(tensor_float_to_float16((float)(hs / 300.0))),
                   "mean(H) = %g", got[0]);
        tensor_release(m);
        SOAK_CHECK(tensor_format(X, NULL, 0) == x_text_len, "format length of X changed");
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        SOAK_CHECK(f != NULL && tensor_print(H, f) == TENSOR_OK, "tensor_print failed");
        if (f != NULL) fclose(f);
        SOAK_CHECK(text != NULL && len == strlen(h_text) + 1 && strncmp(text, h_text, len - 1) == 0, "print(H) changed");
        free(text);
        w->checks++;
    }
    /* errors are per thread: this thread's message names this thread's own numbers */
    {
        const int64_t start = 1000 + (int64_t)w->id * 100000 + it;
        tensor_t *bad = tensor_narrow(X, 1, start, 1);
        char want[64];
        snprintf(want, sizeof want, "start %lld", (long long)start);
        SOAK_CHECK(bad == NULL && tensor_last_status() == TENSOR_ERR_INDEX && strstr(tensor_last_error(), want) != NULL,
                   "thread %d: \"%s\" lacks \"%s\"", w->id, tensor_last_error(), want);
        tensor_clear_error();
        w->checks++;
    }
    /* a reduction big enough to use OpenMP, now and then */
    if (w->done % 8 == w->id % 8) {
        tensor_t *s = tensor_sum_dims(BIG, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        SOAK_CHECK(s != NULL && values_of(s, got, 1) && got[0] == big_total, "sum(BIG) = %g, want %g", got[0], big_total);
        tensor_release(s);
        w->checks++;
    }
    /* the caching allocator: the same sizes every iteration, on this thread's stream */
    {
        static const size_t sizes[3] = {100 * 1024, 1536 * 1024, 300 * 1024};
        tensor_block *blocks[3] = {NULL, NULL, NULL};
        void *stream = (void *)(intptr_t)(w->id + 1);
        for (int b = 0; b < 3; b++) {
            void *ptr = NULL;
            SOAK_CHECK(tensor_block_cache_alloc(cache, 0, stream, sizes[b], &ptr, &blocks[b], "soak") == TENSOR_OK,
                       "block alloc failed: %s", tensor_last_error());
            if (ptr != NULL) memset(ptr, w->id + b, 64); /* two threads given one block would clash below */
        }
        for (int b = 0; b < 3; b++) {
            const unsigned char *p = blocks[b] ? tensor_block_ptr(blocks[b]) : NULL;
            SOAK_CHECK(p != NULL && p[0] == (unsigned char)(w->id + b) && p[63] == (unsigned char)(w->id + b),
                       "a block was shared between threads");
            tensor_block_cache_free(cache, blocks[b]);
        }
        w->checks++;
    }
}

static void *worker_main(void *arg) {
    worker *w = arg;
    uint64_t rng = 0x5eed0000u + (uint64_t)w->id * 7919u;
    for (;;) {
        if (w->iters > 0 ? w->done >= w->iters : soak_now() >= w->deadline) break;
        one_iteration(w, &rng);
        w->done++;
    }
    return NULL;
}

/* Runs the threads to completion; returns the iterations and checks done. */
static void run_phase(int64_t iters, double seconds, int64_t *done, int64_t *checks, bool sample_long,
                      mem_sample *peak, const mem_sample *base) {
    pthread_t th[SOAK_THREADS];
    worker w[SOAK_THREADS];
    const double deadline = soak_now() + seconds;
    for (int i = 0; i < SOAK_THREADS; i++) {
        w[i] = (worker){i, iters, deadline, 0, 0};
        if (pthread_create(&th[i], NULL, worker_main, &w[i]) != 0) fail_msg("pthread_create failed");
    }
    if (sample_long) {
        /* while the threads run: the largest figures after the warm-up */
        while (soak_now() < deadline) {
            sleep(1);
            const mem_sample m = sample();
            if (m.rss_kib > peak->rss_kib) peak->rss_kib = m.rss_kib;
            if (m.heap_bytes > peak->heap_bytes) peak->heap_bytes = m.heap_bytes;
            if (m.cache.reserved > peak->cache.reserved) peak->cache.reserved = m.cache.reserved;
            if (m.storages > peak->storages) peak->storages = m.storages;
            if (m.storage_bytes > peak->storage_bytes) peak->storage_bytes = m.storage_bytes;
            if (!SOAK_ASAN && !SOAK_TSAN && base->rss_kib > 0 && m.rss_kib - base->rss_kib > 4 * SOAK_RSS_SLACK_KIB)
                soak_fail("resident set grew by %lld KiB during the run", (long long)(m.rss_kib - base->rss_kib));
        }
    }
    for (int i = 0; i < SOAK_THREADS; i++) pthread_join(th[i], NULL);
    *done = *checks = 0;
    for (int i = 0; i < SOAK_THREADS; i++) {
        *done += w[i].done;
        *checks += w[i].checks;
    }
}

static void print_sample(const char *what, const mem_sample *m) {
    printf("soak: %-9s rss %lld KiB, heap in use %lld bytes, CPU storages %ld (%ld bytes), caching allocator: "
           "allocated %llu reserved %llu mallocs %llu frees %llu\n",
           what, (long long)m->rss_kib, (long long)m->heap_bytes, m->storages, m->storage_bytes,
           (unsigned long long)m->cache.allocated, (unsigned long long)m->cache.reserved,
           (unsigned long long)m->cache.num_device_mallocs, (unsigned long long)m->cache.num_device_frees);
}

static void test_threaded_soak(void **state) {
    (void)state;
    const char *env = getenv("TENSOR_SOAK_SECONDS");
    const double seconds = env != NULL ? atof(env) : 0.0;
    const bool long_run = seconds > 0;
    atomic_store(&soak_failures, 0);
    int64_t done = 0, checks = 0;

    const mem_sample start = sample();
    /* warm-up: first touches, OpenMP's threads, glibc's arenas, the allocator's segments */
    run_phase(long_run ? 0 : SOAK_WARMUP_ITERS, long_run ? (seconds / 10 > 1 ? seconds / 10 : 1) : 0, &done, &checks,
              false, NULL, NULL);
    const int64_t warm_done = done;
    const mem_sample warm = sample();
    mem_sample peak = warm;
    run_phase(long_run ? 0 : SOAK_MAIN_ITERS, seconds, &done, &checks, long_run, &peak, &warm);
    const mem_sample end = sample();

    printf("soak: %d threads, %lld warm-up + %lld main iterations, %lld checked results, %ld CPU storages made%s\n",
           SOAK_THREADS, (long long)warm_done, (long long)done, (long long)checks, atomic_load(&storages_made),
           SOAK_ASAN ? " (AddressSanitizer)" : SOAK_TSAN ? " (ThreadSanitizer)" : "");
    print_sample("start", &start);
    print_sample("warm-up", &warm);
    if (long_run) print_sample("peak", &peak);
    print_sample("end", &end);
    if (atomic_load(&soak_failures) != 0)
        fail_msg("%d failed checks, the first: %s", atomic_load(&soak_failures), soak_first_failure);
    assert_true(done >= (long_run ? 1 : SOAK_THREADS * SOAK_MAIN_ITERS));

    /* CPU storages at rest: the shared inputs' and no other */
    assert_int_equal(warm.storages, start.storages);
    assert_int_equal(end.storages, start.storages);
    assert_int_equal(end.storage_bytes, start.storage_bytes);
    /* the caching allocator: nothing allocated at rest, and no new device memory after the warm-up */
    assert_int_equal(warm.cache.allocated, 0);
    assert_int_equal(end.cache.allocated, 0);
    assert_int_equal(end.cache.reserved, warm.cache.reserved);
    assert_int_equal(end.cache.num_device_mallocs, warm.cache.num_device_mallocs);
    assert_true(peak.cache.reserved <= warm.cache.reserved);
    if (SOAK_ASAN || SOAK_TSAN) return;
    if (warm.rss_kib > 0 && end.rss_kib - warm.rss_kib > SOAK_RSS_SLACK_KIB)
        fail_msg("resident set grew from %lld to %lld KiB", (long long)warm.rss_kib, (long long)end.rss_kib);
    if (long_run && warm.rss_kib > 0 && peak.rss_kib - warm.rss_kib > 4 * SOAK_RSS_SLACK_KIB)
        fail_msg("resident set peaked at %lld KiB after %lld KiB", (long long)peak.rss_kib, (long long)warm.rss_kib);
    if (warm.heap_bytes >= 0 && llabs(end.heap_bytes - warm.heap_bytes) > SOAK_HEAP_SLACK_BYTES)
        fail_msg("heap in use went from %lld to %lld bytes", (long long)warm.heap_bytes, (long long)end.heap_bytes);
}

/* ---- setup: the shared inputs and their references ---- */

static int setup(void **state) {
    (void)state;
    const tensor_allocator counting = {counting_alloc, counting_free, NULL};
    if (tensor_set_host_allocator(&counting) != TENSOR_OK) return -1;
    for (int i = 0; i < XR * XC; i++) x_vals[i] = (double)((i * 7) % 19 - 9);
    for (int j = 0; j < XC; j++) y_vals[j] = (double)(j % 5 - 2);
    for (int i = 0; i < 5 * 6 * 7; i++) i3_vals[i] = (int64_t)((i * 37) % 101) - 50;
    for (int i = 0; i < 300; i++) h_vals[i] = (double)(i % 9) - 4.0;
    memset(x_colsum, 0, sizeof x_colsum);
    memset(x_rowsum, 0, sizeof x_rowsum);
    x_total = 0;
    for (int i = 0; i < XR; i++)
        for (int j = 0; j < XC; j++) {
            x_colsum[j] += x_vals[i * XC + j];
            x_rowsum[i] += x_vals[i * XC + j];
            x_total += x_vals[i * XC + j];
        }
    X = from_doubles(TENSOR_FLOAT32, 2, (int64_t[]){XR, XC}, x_vals, XR * XC);
    Y = from_doubles(TENSOR_FLOAT32, 1, (int64_t[]){XC}, y_vals, XC);
    H = from_doubles(TENSOR_FLOAT16, 1, (int64_t[]){300}, h_vals, 300);
    double *iv = malloc(sizeof(double) * 210), *bv = malloc(sizeof(double) * BIGN);
    if (iv == NULL || bv == NULL) return -1;
    for (int i = 0; i < 210; i++) iv[i] = (double)i3_vals[i];
    I3 = from_doubles(TENSOR_INT32, 3, (int64_t[]){5, 6, 7}, iv, 210);
    big_total = 0;
    for (int i = 0; i < BIGN; i++) {
        bv[i] = (double)(i % 9) - 4.0 + (i % 1000 == 0 ? 1.0 : 0.0);
        big_total += bv[i];
    }
    BIG = from_doubles(TENSOR_FLOAT32, 1, (int64_t[]){BIGN}, bv, BIGN);
    free(iv);
    free(bv);
    if (X == NULL || Y == NULL || H == NULL || I3 == NULL || BIG == NULL) return -1;
    x_text_len = tensor_format(X, NULL, 0);
    const int64_t hl = tensor_format(H, NULL, 0);
    h_text = malloc((size_t)hl + 1);
    if (x_text_len <= 0 || hl <= 0 || h_text == NULL || tensor_format(H, h_text, (size_t)hl + 1) != hl) return -1;
    const tensor_block_cache_ops ops = {fake_alloc, fake_free, NULL, NULL};
    cache = tensor_block_cache_new(1, &ops, "soak");
    return cache != NULL ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    tensor_release(X);
    tensor_release(Y);
    tensor_release(H);
    tensor_release(I3);
    tensor_release(BIG);
    free(h_text);
    tensor_block_cache_destroy(cache);
    tensor_set_host_allocator(NULL);
    return atomic_load(&fake_live_bytes) == 0 && atomic_load(&storages_live) == 0 ? 0 : -1;
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_threaded_soak),
};

TENSOR_TEST_GROUP(soak, tests, setup, teardown)
