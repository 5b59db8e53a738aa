/* Tests of runtime/block_cache.c, the bookkeeping of the CUDA caching allocator, over a fake
 * device: no GPU needed, so CI and the sanitizer build run them.
 *
 * The fake hands out host memory (malloc) under a byte limit per device and remembers every
 * segment, so a test can check that the cache frees exactly what it obtained, and the
 * threaded test can write into blocks to catch two threads being given the same bytes. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"

#include "runtime/alloc.h"
#include "runtime/block_cache.h"
#include "runtime/error.h"

#define MiB ((size_t)1 << 20)
#define KiB ((size_t)1 << 10)
#define FAKE_MAX_SEGMENTS 4096
#define FAKE_MAX_DEVICES 4

typedef struct fake_segment {
    void *ptr;
    size_t nbytes;
    int device;
    bool live;
} fake_segment;

typedef struct fake_device {
    size_t limit;                     /* bytes per device */
    size_t in_use[FAKE_MAX_DEVICES];
    int mallocs, frees, syncs, bad_frees;
    int fail_other;                   /* next raw_alloc fails with TENSOR_ERR_CUDA */
    fake_segment segs[FAKE_MAX_SEGMENTS];
    int nsegs;
} fake_device;

/* The cache calls these with its mutex held, so the fake needs no lock of its own. */
static tensor_status fake_alloc(void *ctx, int device, size_t nbytes, void **ptr, const char *func) {
    fake_device *f = ctx;
    if (f->fail_other) {
        f->fail_other = 0;
        return tensor_error(TENSOR_ERR_CUDA, "%s: CUDA error cudaErrorLaunchFailure: planted", func);
    }
    if (nbytes > f->limit - f->in_use[device] || f->nsegs == FAKE_MAX_SEGMENTS) return TENSOR_ERR_OUT_OF_MEMORY;
    void *p = malloc(nbytes);
    if (p == NULL) return TENSOR_ERR_OUT_OF_MEMORY;
    f->segs[f->nsegs++] = (fake_segment){p, nbytes, device, true};
    f->in_use[device] += nbytes;
    f->mallocs++;
    *ptr = p;
    return TENSOR_OK;
}

static tensor_status fake_free(void *ctx, int device, void *ptr, size_t nbytes) {
    fake_device *f = ctx;
    for (int i = 0; i < f->nsegs; i++) {
        fake_segment *s = &f->segs[i];
        if (s->live && s->ptr == ptr) {
            if (s->device != device || s->nbytes != nbytes) f->bad_frees++;
            s->live = false;
            f->in_use[device] -= s->nbytes;
            f->frees++;
            free(ptr);
            return TENSOR_OK;
        }
    }
    f->bad_frees++;
    return tensor_error(TENSOR_ERR_CUDA, "fake_free: unknown pointer");
}

static tensor_status fake_sync(void *ctx, int device) {
    (void)device;
    ((fake_device *)ctx)->syncs++;
    return TENSOR_OK;
}

typedef struct fixture {
    fake_device fake;
    tensor_block_cache *cache;
} fixture;

static int setup(void **state) {
    fixture *fx = calloc(1, sizeof *fx);
    if (fx == NULL) return -1;
    fx->fake.limit = (size_t)1 << 30;
    tensor_block_cache_ops ops = {fake_alloc, fake_free, fake_sync, &fx->fake};
    fx->cache = tensor_block_cache_new(2, &ops, "test");
    if (fx->cache == NULL) {
        free(fx);
        return -1;
    }
    tensor_clear_error();
    *state = fx;
    return 0;
}

/* Destroying gives every segment back: nothing may stay live in the fake. */
static int teardown(void **state) {
    fixture *fx = *state;
    tensor_block_cache_destroy(fx->cache);
    int live = 0;
    for (int i = 0; i < fx->fake.nsegs; i++) live += fx->fake.segs[i].live;
    int bad = fx->fake.bad_frees;
    free(fx);
    return live == 0 && bad == 0 ? 0 : -1;
}

static tensor_block *alloc_ok(fixture *fx, int device, void *stream, size_t nbytes) {
    void *ptr = NULL;
    tensor_block *b = NULL;
    tensor_status st = tensor_block_cache_alloc(fx->cache, device, stream, nbytes, &ptr, &b, "test");
    if (st != TENSOR_OK) fail_msg("alloc of %zu bytes failed: %s", nbytes, tensor_last_error());
    assert_non_null(b);
    assert_ptr_equal(ptr, tensor_block_ptr(b));
    assert_true(tensor_block_size(b) >= nbytes);
    return b;
}

static tensor_cuda_memory_stats stats_of(fixture *fx, int device) {
    tensor_cuda_memory_stats s;
    assert_int_equal(tensor_block_cache_get_stats(fx->cache, device, &s, "test"), TENSOR_OK);
    return s;
}

/* ---- sizes ---- */

static void test_round_size(void **state) {
    (void)state;
    assert_int_equal(tensor_block_round_size(0), 512);
    assert_int_equal(tensor_block_round_size(1), 512);
    assert_int_equal(tensor_block_round_size(512), 512);
    assert_int_equal(tensor_block_round_size(513), 1024);
    assert_int_equal(tensor_block_round_size(MiB), MiB);
    assert_int_equal(tensor_block_round_size(MiB + 1), MiB + 512);
    assert_int_equal(tensor_block_round_size(SIZE_MAX), 0);
    assert_int_equal(tensor_block_round_size(SIZE_MAX - 511), SIZE_MAX - 511); /* already a multiple */
    assert_int_equal(tensor_block_round_size(SIZE_MAX - 510), 0);
}

static void test_segment_size(void **state) {
    (void)state;
    assert_int_equal(tensor_block_segment_size(512), 2 * MiB);
    assert_int_equal(tensor_block_segment_size(MiB), 2 * MiB);
    assert_int_equal(tensor_block_segment_size(MiB + 512), 20 * MiB);
    assert_int_equal(tensor_block_segment_size(10 * MiB - 512), 20 * MiB);
    assert_int_equal(tensor_block_segment_size(10 * MiB), 10 * MiB);
    assert_int_equal(tensor_block_segment_size(10 * MiB + 512), 12 * MiB);
    assert_int_equal(tensor_block_segment_size(50 * MiB), 50 * MiB);
    assert_int_equal(tensor_block_segment_size(SIZE_MAX - 511), 0);
}

/* ---- reuse, splitting, merging ---- */

static void test_small_reuse_no_malloc(void **state) {
    fixture *fx = *state;
    tensor_block *a = alloc_ok(fx, 0, NULL, 1000);
    assert_int_equal(tensor_block_size(a), 1024);
    void *pa = tensor_block_ptr(a);
    tensor_cuda_memory_stats s = stats_of(fx, 0);
    assert_int_equal(s.allocated, 1024);
    assert_int_equal(s.reserved, 2 * MiB);
    assert_int_equal(s.num_device_mallocs, 1);
    tensor_block_cache_free(fx->cache, a);
    assert_int_equal(stats_of(fx, 0).allocated, 0);

    /* The hot path: the same size again comes from the cache, at the same address. */
    for (int i = 0; i < 100; i++) {
        tensor_block *b = alloc_ok(fx, 0, NULL, 1000);
        assert_ptr_equal(tensor_block_ptr(b), pa);
        tensor_block_cache_free(fx->cache, b);
    }
    /* Two live blocks share the segment, adjacent. */
    tensor_block *b1 = alloc_ok(fx, 0, NULL, 1000);
    tensor_block *b2 = alloc_ok(fx, 0, NULL, 1000);
    assert_ptr_equal((char *)tensor_block_ptr(b2), (char *)tensor_block_ptr(b1) + 1024);
    s = stats_of(fx, 0);
    assert_int_equal(s.num_device_mallocs, 1);
    assert_int_equal(s.num_device_frees, 0);
    assert_int_equal(fx->fake.mallocs, 1);
    tensor_block_cache_free(fx->cache, b2);
    tensor_block_cache_free(fx->cache, b1);
    assert_int_equal(tensor_block_cache_num_free_blocks(fx->cache, 0), 1);
}

static void test_split_and_merge(void **state) {
    fixture *fx = *state;
    tensor_block *a = alloc_ok(fx, 0, NULL, 4096);
    tensor_block *b = alloc_ok(fx, 0, NULL, 4096);
    tensor_block *c = alloc_ok(fx, 0, NULL, 4096);
    assert_int_equal(tensor_block_cache_num_free_blocks(fx->cache, 0), 1); /* the tail */
    tensor_block_cache_free(fx->cache, b);
    assert_int_equal(tensor_block_cache_num_free_blocks(fx->cache, 0), 2); /* b, tail */
    tensor_block_cache_free(fx->cache, a);
    assert_int_equal(tensor_block_cache_num_free_blocks(fx->cache, 0), 2); /* a+b, tail */
    /* a+b is 8 KiB at a's address: an 8 KiB request takes exactly it (best fit). */
    tensor_block *ab = alloc_ok(fx, 0, NULL, 8192);
    assert_int_equal(tensor_block_size(ab), 8192);
    tensor_block_cache_free(fx->cache, ab);
    tensor_block_cache_free(fx->cache, c);
    assert_int_equal(tensor_block_cache_num_free_blocks(fx->cache, 0), 1); /* whole segment */
    assert_int_equal(stats_of(fx, 0).allocated, 0);
    /* Whole again: the largest small request (1 MiB) fits twice. */
    tensor_block *h1 = alloc_ok(fx, 0, NULL, MiB);
    tensor_block *h2 = alloc_ok(fx, 0, NULL, MiB);
    assert_int_equal(stats_of(fx, 0).num_device_mallocs, 1);
    tensor_block_cache_free(fx->cache, h1);
    tensor_block_cache_free(fx->cache, h2);
}

static void test_best_fit(void **state) {
    fixture *fx = *state;
    tensor_block *big = alloc_ok(fx, 0, NULL, 8192);
    tensor_block *sep1 = alloc_ok(fx, 0, NULL, 512);
    tensor_block *mid = alloc_ok(fx, 0, NULL, 4096);
    tensor_block *sep2 = alloc_ok(fx, 0, NULL, 512);
    void *pbig = tensor_block_ptr(big), *pmid = tensor_block_ptr(mid);
    tensor_block_cache_free(fx->cache, big);
    tensor_block_cache_free(fx->cache, mid);
    /* Free: 8 KiB, 4 KiB and the large tail. 3 KiB fits best in the 4 KiB hole. */
    tensor_block *x = alloc_ok(fx, 0, NULL, 3000);
    assert_ptr_equal(tensor_block_ptr(x), pmid);
    /* 6 KiB no longer fits in what is left of that hole (1 KiB): the 8 KiB one. */
    tensor_block *y = alloc_ok(fx, 0, NULL, 6000);
    assert_ptr_equal(tensor_block_ptr(y), pbig);
    assert_int_equal(stats_of(fx, 0).num_device_mallocs, 1);
    tensor_block_cache_free(fx->cache, x);
    tensor_block_cache_free(fx->cache, y);
    tensor_block_cache_free(fx->cache, sep1);
    tensor_block_cache_free(fx->cache, sep2);
    assert_int_equal(tensor_block_cache_num_free_blocks(fx->cache, 0), 1);
}

static void test_streams_are_separate(void **state) {
    fixture *fx = *state;
    void *s1 = (void *)(uintptr_t)0x1000, *s2 = (void *)(uintptr_t)0x2000;
    tensor_block *a = alloc_ok(fx, 0, s1, 5000);
    assert_ptr_equal(tensor_block_stream(a), s1);
    void *pa = tensor_block_ptr(a);
    tensor_block_cache_free(fx->cache, a);
    /* Freed on s1: a request on s2 must not get it (kernels on s1 may still use it). */
    tensor_block *b = alloc_ok(fx, 0, s2, 5000);
    assert_ptr_equal(tensor_block_stream(b), s2);
    assert_ptr_not_equal(tensor_block_ptr(b), pa);
    assert_int_equal(stats_of(fx, 0).num_device_mallocs, 2);
    /* ...nor the default stream. */
    tensor_block *c = alloc_ok(fx, 0, NULL, 5000);
    assert_int_equal(stats_of(fx, 0).num_device_mallocs, 3);
    /* Back on s1: reused, no malloc. */
    tensor_block *d = alloc_ok(fx, 0, s1, 5000);
    assert_ptr_equal(tensor_block_ptr(d), pa);
    assert_int_equal(stats_of(fx, 0).num_device_mallocs, 3);
    tensor_block_cache_free(fx->cache, b);
    tensor_block_cache_free(fx->cache, c);
    tensor_block_cache_free(fx->cache, d);
}

static void test_large_pool(void **state) {
    fixture *fx = *state;
    tensor_block *a = alloc_ok(fx, 0, NULL, 3 * MiB);
    tensor_block *b = alloc_ok(fx, 0, NULL, 3 * MiB);
    tensor_cuda_memory_stats s = stats_of(fx, 0);
    assert_int_equal(s.num_device_mallocs, 1); /* one 20 MiB segment holds both */
    assert_int_equal(s.reserved, 20 * MiB);
    assert_int_equal(s.allocated, 6 * MiB);
    assert_ptr_equal((char *)tensor_block_ptr(b), (char *)tensor_block_ptr(a) + 3 * MiB);
    /* A small request never comes from the large pool. */
    tensor_block *small = alloc_ok(fx, 0, NULL, 1000);
    assert_int_equal(stats_of(fx, 0).num_device_mallocs, 2);
    assert_int_equal(stats_of(fx, 0).reserved, 22 * MiB);
    /* 14 MiB is exactly the rest of the 20 MiB segment. */
    tensor_block *d = alloc_ok(fx, 0, NULL, 14 * MiB);
    assert_int_equal(stats_of(fx, 0).num_device_mallocs, 2);
    assert_int_equal(tensor_block_size(d), 14 * MiB);
    /* 11 MiB gets a 12 MiB segment; the 1 MiB rest is not worth a block in the large pool. */
    tensor_block *c = alloc_ok(fx, 0, NULL, 11 * MiB);
    assert_int_equal(tensor_block_size(c), 12 * MiB);
    assert_int_equal(stats_of(fx, 0).reserved, 34 * MiB);
    assert_int_equal(stats_of(fx, 0).num_device_mallocs, 3);
    assert_int_equal(tensor_block_cache_num_free_blocks(fx->cache, 0), 1); /* the small tail */
    tensor_block_cache_free(fx->cache, a);
    tensor_block_cache_free(fx->cache, b);
    tensor_block_cache_free(fx->cache, c);
    tensor_block_cache_free(fx->cache, d);
    tensor_block_cache_free(fx->cache, small);
    s = stats_of(fx, 0);
    assert_int_equal(s.allocated, 0);
    assert_int_equal(s.reserved, 34 * MiB);
    assert_int_equal(s.peak_allocated, 6 * MiB + 1024 + 12 * MiB + 14 * MiB);
}

/* ---- statistics and empty_cache ---- */

static void test_stats_and_peak(void **state) {
    fixture *fx = *state;
    tensor_block *a = alloc_ok(fx, 0, NULL, 100 * KiB);
    tensor_block *b = alloc_ok(fx, 0, NULL, 200 * KiB);
    tensor_block_cache_free(fx->cache, a);
    tensor_cuda_memory_stats s = stats_of(fx, 0);
    assert_int_equal(s.allocated, 200 * KiB);
    assert_int_equal(s.peak_allocated, 300 * KiB);
    assert_int_equal(tensor_block_cache_reset_peak(fx->cache, 0, "test"), TENSOR_OK);
    assert_int_equal(stats_of(fx, 0).peak_allocated, 200 * KiB);
    /* Device 1 is untouched. */
    s = stats_of(fx, 1);
    assert_int_equal(s.allocated + s.reserved + s.peak_allocated + s.num_device_mallocs + s.num_device_frees, 0);
    tensor_block_cache_free(fx->cache, b);
    assert_int_equal(stats_of(fx, 0).allocated, 0);
    assert_int_equal(stats_of(fx, 0).peak_allocated, 200 * KiB);
}

static void test_empty_cache(void **state) {
    fixture *fx = *state;
    tensor_block *keep = alloc_ok(fx, 0, NULL, 1000);      /* its segment must stay */
    tensor_block *gone = alloc_ok(fx, 0, NULL, 4 * MiB);   /* freed: its segment goes */
    tensor_block *other = alloc_ok(fx, 1, NULL, 30 * MiB); /* device 1, freed: goes */
    tensor_block_cache_free(fx->cache, gone);
    tensor_block_cache_free(fx->cache, other);
    assert_int_equal(stats_of(fx, 0).reserved, 22 * MiB);
    assert_int_equal(stats_of(fx, 1).reserved, 30 * MiB);
    assert_int_equal(tensor_block_cache_empty(fx->cache), TENSOR_OK);
    tensor_cuda_memory_stats s = stats_of(fx, 0);
    assert_int_equal(s.reserved, 2 * MiB);
    assert_int_equal(s.num_device_frees, 1);
    assert_int_equal(s.allocated, 1024);
    assert_int_equal(stats_of(fx, 1).reserved, 0);
    assert_int_equal(fx->fake.frees, 2);
    assert_true(fx->fake.syncs >= 2); /* each device waited before its memory went back */
    tensor_block_cache_free(fx->cache, keep);
    assert_int_equal(tensor_block_cache_empty(fx->cache), TENSOR_OK);
    assert_int_equal(stats_of(fx, 0).reserved, 0);
    assert_int_equal(fx->fake.in_use[0] + fx->fake.in_use[1], 0);
    assert_int_equal(tensor_block_cache_num_free_blocks(fx->cache, 0), 0);
    /* Still usable afterwards. */
    tensor_block *again = alloc_ok(fx, 0, NULL, 1000);
    tensor_block_cache_free(fx->cache, again);
    assert_int_equal(tensor_block_cache_empty(fx->cache), TENSOR_OK);
    assert_int_equal(tensor_block_cache_empty(fx->cache), TENSOR_OK); /* nothing to do */
}

/* ---- failures ---- */

static void test_oom_frees_cache_and_retries(void **state) {
    fixture *fx = *state;
    fx->fake.limit = 24 * MiB;
    tensor_block *a = alloc_ok(fx, 0, NULL, 1000);    /* 2 MiB small segment */
    tensor_block *b = alloc_ok(fx, 0, NULL, 3 * MiB); /* 20 MiB large segment */
    tensor_block_cache_free(fx->cache, a);
    tensor_block_cache_free(fx->cache, b);
    /* 22 MiB does not fit next to the 22 MiB cached: the cache frees both and tries again. */
    tensor_block *c = alloc_ok(fx, 0, NULL, 22 * MiB);
    tensor_cuda_memory_stats s = stats_of(fx, 0);
    assert_int_equal(s.num_device_frees, 2);
    assert_int_equal(s.num_device_mallocs, 3);
    assert_int_equal(s.reserved, 22 * MiB);
    assert_int_equal(s.allocated, 22 * MiB);

    /* Nothing left to free: a clean error naming the size asked for, no allocation. */
    void *ptr = (void *)1;
    tensor_block *blk = (tensor_block *)1;
    tensor_clear_error();
    assert_int_equal(tensor_block_cache_alloc(fx->cache, 0, NULL, 100 * MiB, &ptr, &blk, "tensor_empty"),
                     TENSOR_ERR_OUT_OF_MEMORY);
    assert_null(ptr);
    assert_null(blk);
    assert_error(TENSOR_ERR_OUT_OF_MEMORY, "tensor_empty: CUDA out of memory on cuda:0");
    assert_error(TENSOR_ERR_OUT_OF_MEMORY, "tried to allocate 104857600 bytes (100.00 MiB)");
    assert_error(TENSOR_ERR_OUT_OF_MEMORY, "22.00 MiB allocated");
    s = stats_of(fx, 0);
    assert_int_equal(s.num_device_mallocs, 3);
    assert_int_equal(s.allocated, 22 * MiB);
    tensor_block_cache_free(fx->cache, c);

    /* A petabyte, and sizes whose rounding overflows, fail the same way. */
    tensor_clear_error();
    assert_int_equal(tensor_block_cache_alloc(fx->cache, 0, NULL, (size_t)1 << 50, &ptr, &blk, "t"),
                     TENSOR_ERR_OUT_OF_MEMORY);
    assert_error(TENSOR_ERR_OUT_OF_MEMORY, "1.00 PiB");
    assert_int_equal(tensor_block_cache_alloc(fx->cache, 0, NULL, SIZE_MAX, &ptr, &blk, "t"),
                     TENSOR_ERR_OUT_OF_MEMORY);
    assert_int_equal(tensor_block_cache_alloc(fx->cache, 0, NULL, SIZE_MAX - 600 * MiB, &ptr, &blk, "t"),
                     TENSOR_ERR_OUT_OF_MEMORY);
    assert_null(ptr);
    /* And the cache still works. */
    fx->fake.limit = (size_t)1 << 30;
    tensor_block *d = alloc_ok(fx, 0, NULL, 22 * MiB);
    tensor_block_cache_free(fx->cache, d);
}

static void test_device_error_propagates(void **state) {
    fixture *fx = *state;
    void *ptr;
    tensor_block *blk;
    fx->fake.fail_other = 1;
    assert_int_equal(tensor_block_cache_alloc(fx->cache, 0, NULL, 4096, &ptr, &blk, "tensor_zeros"), TENSOR_ERR_CUDA);
    assert_error(TENSOR_ERR_CUDA, "tensor_zeros: CUDA error cudaErrorLaunchFailure");
    assert_null(ptr);
    assert_int_equal(stats_of(fx, 0).reserved, 0);
    tensor_block *b = alloc_ok(fx, 0, NULL, 4096);
    tensor_block_cache_free(fx->cache, b);
}

static void test_bad_arguments(void **state) {
    fixture *fx = *state;
    void *ptr;
    tensor_block *blk;
    assert_int_equal(tensor_block_cache_alloc(fx->cache, 2, NULL, 16, &ptr, &blk, "tensor_empty"), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "tensor_empty: device cuda:2 is not available (2 CUDA devices)");
    assert_int_equal(tensor_block_cache_alloc(fx->cache, -1, NULL, 16, &ptr, &blk, "t"), TENSOR_ERR_DEVICE);
    assert_int_equal(tensor_block_cache_alloc(fx->cache, 0, NULL, 0, &ptr, &blk, "t"), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_block_cache_alloc(NULL, 0, NULL, 16, &ptr, &blk, "t"), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_block_cache_alloc(fx->cache, 0, NULL, 16, NULL, &blk, "t"), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_block_cache_alloc(fx->cache, 0, NULL, 16, &ptr, NULL, "t"), TENSOR_ERR_INVALID_ARGUMENT);
    tensor_cuda_memory_stats s;
    assert_int_equal(tensor_block_cache_get_stats(fx->cache, 5, &s, "tensor_cuda_memory_get_stats"), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "tensor_cuda_memory_get_stats: device cuda:5");
    assert_int_equal(tensor_block_cache_get_stats(fx->cache, 0, NULL, "t"), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_block_cache_reset_peak(fx->cache, -3, "t"), TENSOR_ERR_DEVICE);
    assert_int_equal(tensor_block_cache_num_free_blocks(fx->cache, 9), -1);
    assert_int_equal(tensor_block_cache_num_devices(fx->cache), 2);
    tensor_block_cache_free(fx->cache, NULL);
    tensor_block_cache_free(NULL, NULL);
    tensor_block_cache_destroy(NULL);
    assert_int_equal(tensor_block_cache_empty(NULL), TENSOR_OK);

    tensor_block_cache_ops none = {NULL, NULL, NULL, NULL};
    assert_null(tensor_block_cache_new(1, &none, "t"));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_INVALID_ARGUMENT);
    assert_null(tensor_block_cache_new(1, NULL, "t"));
    tensor_block_cache_ops ops = {fake_alloc, fake_free, NULL, &fx->fake};
    assert_null(tensor_block_cache_new(-1, &ops, "t"));
    /* No devices at all (a CUDA build on a machine without a GPU). */
    tensor_block_cache *empty = tensor_block_cache_new(0, &ops, "t");
    assert_non_null(empty);
    assert_int_equal(tensor_block_cache_alloc(empty, 0, NULL, 16, &ptr, &blk, "t"), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "(0 CUDA devices)");
    assert_int_equal(tensor_block_cache_empty(empty), TENSOR_OK);
    tensor_block_cache_destroy(empty);
}

/* Destroying a cache whose blocks are still handed out gives their segments back too. */
static void test_destroy_with_live_blocks(void **state) {
    fixture *fx = *state;
    alloc_ok(fx, 0, NULL, 1000);
    alloc_ok(fx, 0, (void *)(uintptr_t)7, 3 * MiB);
    alloc_ok(fx, 1, NULL, 64 * MiB);
    /* teardown destroys the cache and checks that no segment stayed live */
}

/* ---- blocks of a user's device allocator (tensor_block_cache_alloc_external) ---- */

/* A user allocator over host memory that records what it was asked. Threads call it at once,
 * so it has a lock of its own (the cache calls it without its mutex). */
typedef struct user_alloc {
    pthread_mutex_t lock;
    int allocs, frees, bad_frees;
    int fail;       /* alloc returns NULL */
    int misalign;   /* alloc returns memory 16 bytes off its alignment */
    size_t live, last_nbytes, last_alignment;
    int last_device;
    void *last_stream, *last_ptr;
} user_alloc;

static void *u_alloc(void *ctx, int device, size_t nbytes, size_t alignment, void *stream) {
    user_alloc *u = ctx;
    pthread_mutex_lock(&u->lock);
    u->last_nbytes = nbytes;
    u->last_alignment = alignment;
    u->last_device = device;
    u->last_stream = stream;
    char *p = NULL;
    if (!u->fail) {
        p = aligned_alloc(alignment, nbytes + alignment);
        if (p != NULL && u->misalign) p += 16;
    }
    if (p != NULL) {
        u->allocs++;
        u->live += nbytes;
    }
    u->last_ptr = p;
    pthread_mutex_unlock(&u->lock);
    return p;
}

static void u_free(void *ctx, int device, void *ptr, size_t nbytes, void *stream) {
    user_alloc *u = ctx;
    pthread_mutex_lock(&u->lock);
    if (((uintptr_t)ptr & 255) != 0) ptr = (char *)ptr - 16; /* the misaligned ones */
    if (device < 0 || device > 1 || nbytes % TENSOR_BLOCK_MIN_SIZE != 0) u->bad_frees++;
    (void)stream;
    u->frees++;
    u->live -= nbytes;
    free(ptr);
    pthread_mutex_unlock(&u->lock);
}

static user_alloc *user_new(void) {
    user_alloc *u = calloc(1, sizeof *u);
    assert_non_null(u);
    pthread_mutex_init(&u->lock, NULL);
    return u;
}

static void user_done(user_alloc *u) {
    assert_int_equal(u->allocs, u->frees);
    assert_int_equal(u->live, 0);
    assert_int_equal(u->bad_frees, 0);
    pthread_mutex_destroy(&u->lock);
    free(u);
}

/* Through the user's allocator, not the cache; counted in the statistics; freed back to it
 * with what it was asked; beside cached blocks without touching them. */
static void test_external_blocks(void **state) {
    fixture *fx = *state;
    user_alloc *u = user_new();
    tensor_device_allocator a = {u_alloc, u_free, u};
    void *stream = (void *)(uintptr_t)7, *ptr = NULL;
    tensor_block *cached = alloc_ok(fx, 0, stream, 1000);
    tensor_cuda_memory_stats before = stats_of(fx, 0);
    tensor_block *b = NULL;
    assert_int_equal(tensor_block_cache_alloc_external(fx->cache, 0, stream, 1000, &a, &ptr, &b, "test"), TENSOR_OK);
    assert_true(tensor_block_is_external(b));
    assert_false(tensor_block_is_external(cached));
    assert_ptr_equal(ptr, tensor_block_ptr(b));
    assert_ptr_equal(ptr, u->last_ptr);
    assert_int_equal(u->last_nbytes, 1024); /* rounded as the cache's blocks */
    assert_int_equal(u->last_alignment, TENSOR_BLOCK_EXTERNAL_ALIGNMENT);
    assert_int_equal(u->last_device, 0);
    assert_ptr_equal(u->last_stream, stream);
    assert_int_equal(tensor_block_size(b), 1024);
    assert_int_equal(tensor_block_device(b), 0);
    assert_ptr_equal(tensor_block_stream(b), stream);
    tensor_cuda_memory_stats s = stats_of(fx, 0);
    assert_int_equal(s.allocated, before.allocated + 1024);
    assert_int_equal(s.reserved, before.reserved + 1024);
    assert_int_equal(s.peak_allocated, before.allocated + 1024);
    assert_int_equal(s.num_device_mallocs, before.num_device_mallocs + 1);
    assert_int_equal(fx->fake.mallocs, 1); /* the cached block's segment only */
    /* a large one on the other device */
    tensor_block *big = NULL;
    assert_int_equal(tensor_block_cache_alloc_external(fx->cache, 1, NULL, 64 * MiB + 1, &a, &ptr, &big, "test"),
                     TENSOR_OK);
    assert_int_equal(u->last_nbytes, 64 * MiB + 512);
    assert_int_equal(stats_of(fx, 1).allocated, 64 * MiB + 512);
    tensor_block_cache_free(fx->cache, b);
    tensor_block_cache_free(fx->cache, big);
    assert_int_equal(u->frees, 2);
    s = stats_of(fx, 0);
    assert_int_equal(s.allocated, before.allocated);
    assert_int_equal(s.reserved, before.reserved);
    assert_int_equal(s.num_device_frees, before.num_device_frees + 1);
    assert_int_equal(stats_of(fx, 1).reserved, 0);
    /* the user's blocks were never cached: emptying frees only the cache's segment */
    tensor_block_cache_free(fx->cache, cached);
    assert_int_equal(tensor_block_cache_empty(fx->cache), TENSOR_OK);
    assert_int_equal(fx->fake.frees, 1);
    assert_int_equal(u->frees, 2);
    user_done(u);
}

/* A failing user allocator: OUT_OF_MEMORY naming the caller, the device and the size, and
 * nothing counted or leaked. Misaligned memory goes back to the allocator that gave it. */
static void test_external_failures(void **state) {
    fixture *fx = *state;
    user_alloc *u = user_new();
    tensor_device_allocator a = {u_alloc, u_free, u};
    void *ptr = (void *)1;
    tensor_block *b = (tensor_block *)1;
    u->fail = 1;
    assert_int_equal(tensor_block_cache_alloc_external(fx->cache, 1, NULL, 3000, &a, &ptr, &b, "tensor_sum"),
                     TENSOR_ERR_OUT_OF_MEMORY);
    assert_null(ptr);
    assert_null(b);
    assert_error(TENSOR_ERR_OUT_OF_MEMORY, "tensor_sum: CUDA out of memory on cuda:1: the device allocator returned "
                                           "NULL for 3072 bytes");
    tensor_cuda_memory_stats s = stats_of(fx, 1);
    assert_int_equal(s.allocated + s.reserved + s.num_device_mallocs, 0);
    u->fail = 0;
    u->misalign = 1;
    assert_int_equal(tensor_block_cache_alloc_external(fx->cache, 0, NULL, 100, &a, &ptr, &b, "tensor_add"),
                     TENSOR_ERR_OUT_OF_MEMORY);
    assert_error(TENSOR_ERR_OUT_OF_MEMORY, "tensor_add: the device allocator returned");
    assert_non_null(strstr(tensor_last_error(), "not aligned to 256 bytes"));
    assert_int_equal(u->frees, 1);
    assert_int_equal(stats_of(fx, 0).num_device_mallocs, 0);
    u->misalign = 0;
    /* host memory for the record runs out: the user's allocator is not asked */
    int asked = u->allocs;
    tt_fault_fail_nth_host_alloc(1);
    assert_int_equal(tensor_block_cache_alloc_external(fx->cache, 0, NULL, 100, &a, &ptr, &b, "tensor_exp"),
                     TENSOR_ERR_OUT_OF_MEMORY);
    tt_fault_fail_nth_host_alloc(0);
    assert_error(TENSOR_ERR_OUT_OF_MEMORY, "tensor_exp: out of host memory");
    assert_int_equal(u->allocs, asked);
    /* bad arguments */
    assert_int_equal(tensor_block_cache_alloc_external(fx->cache, 2, NULL, 100, &a, &ptr, &b, "t"), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "t: device cuda:2 is not available");
    assert_int_equal(tensor_block_cache_alloc_external(fx->cache, 0, NULL, 0, &a, &ptr, &b, "t"),
                     TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_block_cache_alloc_external(fx->cache, 0, NULL, 100, NULL, &ptr, &b, "t"),
                     TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "t: argument 'allocator' is NULL");
    tensor_device_allocator half = {u_alloc, NULL, u};
    assert_int_equal(tensor_block_cache_alloc_external(fx->cache, 0, NULL, 100, &half, &ptr, &b, "t"),
                     TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "t: the device allocator has a NULL free");
    assert_int_equal(tensor_block_cache_alloc_external(fx->cache, 0, NULL, SIZE_MAX, &a, &ptr, &b, "t"),
                     TENSOR_ERR_OUT_OF_MEMORY);
    assert_int_equal(u->allocs, asked);
    user_done(u);
}

/* The cache's destroy gives the user's live blocks back to it too. */
static void test_external_destroy(void **state) {
    (void)state;
    fake_device *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->limit = (size_t)1 << 30;
    tensor_block_cache_ops ops = {fake_alloc, fake_free, fake_sync, f};
    tensor_block_cache *c = tensor_block_cache_new(2, &ops, "test");
    assert_non_null(c);
    user_alloc *u = user_new();
    tensor_device_allocator a = {u_alloc, u_free, u};
    void *ptr;
    tensor_block *b;
    for (int i = 0; i < 3; i++)
        assert_int_equal(tensor_block_cache_alloc_external(c, i % 2, NULL, 4096, &a, &ptr, &b, "t"), TENSOR_OK);
    tensor_block_cache_destroy(c);
    assert_int_equal(u->frees, 3);
    user_done(u);
    free(f);
}

/* ---- threads ---- */

#define THREADS 8
#define ITERS 3000
#define LIVE 6

typedef struct thread_arg {
    fixture *fx;
    int id;
    int failures;
    const tensor_device_allocator *user; /* a third of the allocations come from it when set */
} thread_arg;

static void *thread_main(void *p) {
    thread_arg *arg = p;
    static const size_t sizes[] = {100, 512, 3000, 4096, 65536, 300 * 1024, MiB, 2 * MiB + 5, 5 * MiB};
    uint64_t rng = 0x9E3779B97F4A7C15ull * (uint64_t)(arg->id + 1);
    tensor_block *live[LIVE] = {0};
    size_t live_n[LIVE] = {0};
    unsigned char tag = (unsigned char)(arg->id + 1);
    /* Threads share streams, so blocks move between threads through the free lists. */
    void *stream = (void *)(uintptr_t)(0x100 * (arg->id % 3));
    for (int it = 0; it < ITERS; it++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        int slot = (int)((rng >> 33) % LIVE);
        if (live[slot]) {
            /* Whatever we wrote must still be there: no other thread got these bytes. */
            unsigned char *q = tensor_block_ptr(live[slot]);
            for (size_t k = 0; k < live_n[slot]; k += 512)
                if (q[k] != tag) arg->failures++;
            if (q[live_n[slot] - 1] != tag) arg->failures++;
            tensor_block_cache_free(arg->fx->cache, live[slot]);
            live[slot] = NULL;
        } else {
            size_t n = sizes[(rng >> 40) % (sizeof sizes / sizeof sizes[0])];
            void *ptr;
            tensor_block *b;
            tensor_status st =
                arg->user != NULL && (rng >> 20) % 3 == 0
                    ? tensor_block_cache_alloc_external(arg->fx->cache, arg->id % 2, stream, n, arg->user, &ptr, &b,
                                                        "thread")
                    : tensor_block_cache_alloc(arg->fx->cache, arg->id % 2, stream, n, &ptr, &b, "thread");
            if (st != TENSOR_OK) {
                arg->failures++;
                continue;
            }
            /* Blocks start at 512-byte offsets of their segment, so two blocks that overlap
             * share one of these bytes. */
            unsigned char *q = ptr;
            for (size_t k = 0; k < n; k += 512) q[k] = tag;
            q[n - 1] = tag;
            live[slot] = b;
            live_n[slot] = n;
        }
    }
    for (int i = 0; i < LIVE; i++) tensor_block_cache_free(arg->fx->cache, live[i]);
    return NULL;
}

static void run_threads(fixture *fx, const tensor_device_allocator *user) {
    pthread_t th[THREADS];
    thread_arg args[THREADS];
    for (int i = 0; i < THREADS; i++) {
        args[i] = (thread_arg){fx, i, 0, user};
        assert_int_equal(pthread_create(&th[i], NULL, thread_main, &args[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < THREADS; i++) assert_int_equal(args[i].failures, 0);
    for (int dev = 0; dev < 2; dev++) {
        tensor_cuda_memory_stats s = stats_of(fx, dev);
        assert_int_equal(s.allocated, 0);
        assert_true(s.peak_allocated > 0);
        assert_int_equal(s.reserved, fx->fake.in_use[dev]);
    }
    assert_int_equal(tensor_block_cache_empty(fx->cache), TENSOR_OK);
    assert_int_equal(stats_of(fx, 0).reserved + stats_of(fx, 1).reserved, 0);
}

static void test_threads_smoke(void **state) { run_threads(*state, NULL); }

/* A user allocator's blocks and cached ones at once, from several threads: no bytes shared,
 * every user block freed to it, the statistics back to zero. */
static void test_threads_external(void **state) {
    user_alloc *u = user_new();
    tensor_device_allocator a = {u_alloc, u_free, u};
    run_threads(*state, &a);
    assert_true(u->allocs > 0);
    user_done(u);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_round_size),
    cmocka_unit_test(test_segment_size),
    cmocka_unit_test_setup_teardown(test_small_reuse_no_malloc, setup, teardown),
    cmocka_unit_test_setup_teardown(test_split_and_merge, setup, teardown),
    cmocka_unit_test_setup_teardown(test_best_fit, setup, teardown),
    cmocka_unit_test_setup_teardown(test_streams_are_separate, setup, teardown),
    cmocka_unit_test_setup_teardown(test_large_pool, setup, teardown),
    cmocka_unit_test_setup_teardown(test_stats_and_peak, setup, teardown),
    cmocka_unit_test_setup_teardown(test_empty_cache, setup, teardown),
    cmocka_unit_test_setup_teardown(test_oom_frees_cache_and_retries, setup, teardown),
    cmocka_unit_test_setup_teardown(test_device_error_propagates, setup, teardown),
    cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
    cmocka_unit_test_setup_teardown(test_destroy_with_live_blocks, setup, teardown),
    cmocka_unit_test_setup_teardown(test_external_blocks, setup, teardown),
    cmocka_unit_test_setup_teardown(test_external_failures, setup, teardown),
    cmocka_unit_test(test_external_destroy),
    cmocka_unit_test_setup_teardown(test_threads_smoke, setup, teardown),
    cmocka_unit_test_setup_teardown(test_threads_external, setup, teardown),
};

TENSOR_TEST_GROUP(block_cache, tests, NULL, NULL)
