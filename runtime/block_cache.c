/* The caching allocator's bookkeeping (see runtime/block_cache.h for the rules). */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/alloc.h"
#include "runtime/block_cache.h"
#include "runtime/error.h"

enum { POOL_SMALL = 0, POOL_LARGE = 1 };

struct tensor_block {
    char *ptr;
    size_t size;
    int device;
    int pool_index; /* index of the (device, stream) pool in device_state.pools */
    void *stream;
    bool allocated;
    int kind; /* POOL_SMALL or POOL_LARGE */
    /* Neighbours by address inside the segment. The lowest block of a segment (prev == NULL)
     * is its head: merges always absorb the higher block, so a head lives as long as its
     * segment, and it alone carries the segment's size and links to the other segments. */
    tensor_block *prev, *next;
    tensor_block *free_prev, *free_next; /* in the free list while !allocated */
    size_t segment_size;                 /* heads only */
    tensor_block *seg_prev, *seg_next;   /* heads only: the device's list of segments */
    /* A block of a user allocator (tensor_block_cache_alloc_external): in no segment and no
     * free list; linked through seg_prev/seg_next into the device's list of such blocks,
     * which the cache's destroy walks. */
    bool external;
    tensor_device_allocator allocator;
};

typedef struct stream_pool {
    void *stream;
    tensor_block *free_list[2]; /* sorted by (size, ptr): the first that fits is the best fit */
} stream_pool;

typedef struct device_state {
    stream_pool *pools; /* grows, never shrinks: blocks refer to pools by index */
    int num_pools, cap_pools;
    tensor_block *segments;
    tensor_block *externals; /* live blocks of user allocators */
    tensor_cuda_memory_stats stats;
} device_state;

struct tensor_block_cache {
    pthread_mutex_t mutex;
    tensor_block_cache_ops ops;
    int num_devices;
    device_state *devices;
};

/* ---- sizes ---- */

size_t tensor_block_round_size(size_t nbytes) {
    if (nbytes < TENSOR_BLOCK_MIN_SIZE) return TENSOR_BLOCK_MIN_SIZE;
    if (nbytes > SIZE_MAX - (TENSOR_BLOCK_MIN_SIZE - 1)) return 0;
    return (nbytes + TENSOR_BLOCK_MIN_SIZE - 1) / TENSOR_BLOCK_MIN_SIZE * TENSOR_BLOCK_MIN_SIZE;
}

size_t tensor_block_segment_size(size_t rounded) {
    if (rounded <= TENSOR_BLOCK_SMALL_SIZE) return TENSOR_BLOCK_SMALL_SEGMENT;
    if (rounded < TENSOR_BLOCK_MIN_LARGE_ALLOC) return TENSOR_BLOCK_LARGE_SEGMENT;
    if (rounded > SIZE_MAX - (TENSOR_BLOCK_ROUND_LARGE - 1)) return 0;
    return (rounded + TENSOR_BLOCK_ROUND_LARGE - 1) / TENSOR_BLOCK_ROUND_LARGE * TENSOR_BLOCK_ROUND_LARGE;
}

static int pool_kind(size_t rounded) { return rounded <= TENSOR_BLOCK_SMALL_SIZE ? POOL_SMALL : POOL_LARGE; }

/* A remainder is split off only when it can serve a request of its pool: in the large pool a
 * remainder of 1 MiB or less could only serve small requests, which never come here, and
 * keeping it attached costs less than a block nobody can use. */
static bool worth_splitting(int kind, size_t remaining) {
    return kind == POOL_SMALL ? remaining >= TENSOR_BLOCK_MIN_SIZE : remaining > TENSOR_BLOCK_SMALL_SIZE;
}

static void format_bytes(char *buf, size_t size, uint64_t n) {
    static const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)n;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, size, "%llu bytes", (unsigned long long)n);
    else
        snprintf(buf, size, "%.2f %s", v, units[u]);
}

/* ---- lists (the mutex is held) ---- */

static tensor_block **free_list_of(tensor_block_cache *c, const tensor_block *b) {
    return &c->devices[b->device].pools[b->pool_index].free_list[b->kind];
}

static bool before(const tensor_block *a, const tensor_block *b) {
    return a->size < b->size || (a->size == b->size && (uintptr_t)a->ptr < (uintptr_t)b->ptr);
}

static void free_list_insert(tensor_block_cache *c, tensor_block *b) {
    tensor_block **head = free_list_of(c, b);
    tensor_block *prev = NULL, *cur = *head;
    while (cur != NULL && before(cur, b)) {
        prev = cur;
        cur = cur->free_next;
    }
    b->free_prev = prev;
    b->free_next = cur;
    if (cur) cur->free_prev = b;
    if (prev)
        prev->free_next = b;
    else
        *head = b;
}

static void free_list_remove(tensor_block_cache *c, tensor_block *b) {
    tensor_block **head = free_list_of(c, b);
    if (b->free_prev)
        b->free_prev->free_next = b->free_next;
    else
        *head = b->free_next;
    if (b->free_next) b->free_next->free_prev = b->free_prev;
    b->free_prev = b->free_next = NULL;
}

static void list_insert(tensor_block **list, tensor_block *head) {
    head->seg_prev = NULL;
    head->seg_next = *list;
    if (*list) (*list)->seg_prev = head;
    *list = head;
}

static void list_remove(tensor_block **list, tensor_block *head) {
    if (head->seg_prev)
        head->seg_prev->seg_next = head->seg_next;
    else
        *list = head->seg_next;
    if (head->seg_next) head->seg_next->seg_prev = head->seg_prev;
}

static void segment_insert(device_state *d, tensor_block *head) { list_insert(&d->segments, head); }
static void segment_remove(device_state *d, tensor_block *head) { list_remove(&d->segments, head); }

/* Index of the pool of `stream` on device d; creates it when `create`. -1 when absent or when
 * host memory for it runs out. */
static int find_pool(device_state *d, void *stream, bool create) {
    for (int i = 0; i < d->num_pools; i++)
        if (d->pools[i].stream == stream) return i;
    if (!create) return -1;
    if (d->num_pools == d->cap_pools) {
        int cap = d->cap_pools ? 2 * d->cap_pools : 4;
        stream_pool *p = tt_realloc(d->pools, (size_t)cap * sizeof *p);
        if (p == NULL) return -1;
        d->pools = p;
        d->cap_pools = cap;
    }
    stream_pool *p = &d->pools[d->num_pools];
    memset(p, 0, sizeof *p);
    p->stream = stream;
    return d->num_pools++;
}

/* Gives back every segment of `device` that is one free block. Returns the number released;
 * the first error of synchronize or raw_free goes to *first_error when that is not NULL. */
static int release_free_segments(tensor_block_cache *c, int device, tensor_status *first_error) {
    device_state *d = &c->devices[device];
    bool synced = false;
    int released = 0;
    tensor_block *b = d->segments;
    while (b != NULL) {
        tensor_block *next_seg = b->seg_next;
        if (!b->allocated && b->next == NULL) {
            if (!synced && c->ops.synchronize) {
                /* Once per device: kernels queued before the blocks were freed may still
                 * touch them, and the device's memory must not go back under them. */
                tensor_status st = c->ops.synchronize(c->ops.ctx, device);
                if (st != TENSOR_OK && first_error && *first_error == TENSOR_OK) *first_error = st;
                synced = true;
            }
            free_list_remove(c, b);
            segment_remove(d, b);
            tensor_status st = c->ops.raw_free(c->ops.ctx, device, b->ptr, b->segment_size);
            if (st != TENSOR_OK && first_error && *first_error == TENSOR_OK) *first_error = st;
            d->stats.reserved -= b->segment_size;
            d->stats.num_device_frees++;
            free(b);
            released++;
        }
        b = next_seg;
    }
    return released;
}

/* ---- public ---- */

tensor_block_cache *tensor_block_cache_new(int num_devices, const tensor_block_cache_ops *ops, const char *func) {
    if (ops == NULL || ops->raw_alloc == NULL || ops->raw_free == NULL)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: block cache needs raw_alloc and raw_free", func);
    if (num_devices < 0)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: negative device count %d", func, num_devices);
    tensor_block_cache *c = tt_calloc(1, sizeof *c);
    if (c == NULL) return tensor_error_null(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory for the block cache", func);
    c->devices = tt_calloc(num_devices > 0 ? (size_t)num_devices : 1, sizeof *c->devices);
    if (c->devices == NULL || pthread_mutex_init(&c->mutex, NULL) != 0) {
        free(c->devices);
        free(c);
        return tensor_error_null(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory for the block cache", func);
    }
    c->ops = *ops;
    c->num_devices = num_devices;
    return c;
}

void tensor_block_cache_destroy(tensor_block_cache *c) {
    if (c == NULL) return;
    for (int dev = 0; dev < c->num_devices; dev++) {
        device_state *d = &c->devices[dev];
        if (d->segments && c->ops.synchronize) c->ops.synchronize(c->ops.ctx, dev);
        tensor_block *head = d->segments;
        while (head != NULL) {
            tensor_block *next_seg = head->seg_next;
            c->ops.raw_free(c->ops.ctx, dev, head->ptr, head->segment_size);
            for (tensor_block *b = head; b != NULL;) {
                tensor_block *n = b->next;
                free(b);
                b = n;
            }
            head = next_seg;
        }
        while (d->externals != NULL) {
            tensor_block *b = d->externals;
            d->externals = b->seg_next;
            b->allocator.free(b->allocator.ctx, dev, b->ptr, b->size, b->stream);
            free(b);
        }
        free(d->pools);
    }
    pthread_mutex_destroy(&c->mutex);
    free(c->devices);
    free(c);
}

int tensor_block_cache_num_devices(const tensor_block_cache *c) { return c ? c->num_devices : 0; }

static tensor_status alloc_locked(tensor_block_cache *c, int device, void *stream, size_t nbytes, tensor_block **out,
                                  const char *func) {
    device_state *d = &c->devices[device];
    size_t rounded = tensor_block_round_size(nbytes);
    size_t seg = rounded ? tensor_block_segment_size(rounded) : 0;
    char want[32];
    format_bytes(want, sizeof want, nbytes);
    if (seg == 0)
        return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of memory on cuda:%d: tried to allocate %zu bytes (%s)",
                            func, device, nbytes, want);
    int kind = pool_kind(rounded);
    int pool = find_pool(d, stream, true);
    if (pool < 0)
        return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory for the CUDA allocator's bookkeeping",
                            func);

    tensor_block *b = d->pools[pool].free_list[kind];
    while (b != NULL && b->size < rounded) b = b->free_next;
    if (b != NULL) {
        free_list_remove(c, b);
    } else {
        tensor_block *nb = tt_calloc(1, sizeof *nb);
        if (nb == NULL)
            return tensor_error(TENSOR_ERR_OUT_OF_MEMORY,
                                "%s: out of host memory for the CUDA allocator's bookkeeping", func);
        void *ptr = NULL;
        tensor_status st = c->ops.raw_alloc(c->ops.ctx, device, seg, &ptr, func);
        if (st == TENSOR_ERR_OUT_OF_MEMORY && release_free_segments(c, device, NULL) > 0)
            st = c->ops.raw_alloc(c->ops.ctx, device, seg, &ptr, func);
        if (st != TENSOR_OK) {
            free(nb);
            if (st != TENSOR_ERR_OUT_OF_MEMORY) return st; /* raw_alloc recorded its message */
            char have[32], res[32];
            format_bytes(have, sizeof have, d->stats.allocated);
            format_bytes(res, sizeof res, d->stats.reserved);
            return tensor_error(TENSOR_ERR_OUT_OF_MEMORY,
                                "%s: CUDA out of memory on cuda:%d: tried to allocate %zu bytes (%s); tinytensor has "
                                "%s allocated and %s reserved on that device",
                                func, device, nbytes, want, have, res);
        }
        nb->ptr = ptr;
        nb->size = seg;
        nb->device = device;
        nb->pool_index = pool;
        nb->stream = stream;
        nb->kind = kind;
        nb->segment_size = seg;
        segment_insert(d, nb);
        d->stats.reserved += seg;
        d->stats.num_device_mallocs++;
        b = nb;
    }

    size_t remaining = b->size - rounded;
    if (worth_splitting(kind, remaining)) {
        /* If host memory for the remainder's record runs out, the whole block is handed
         * out instead: wasteful, never wrong. */
        tensor_block *r = tt_calloc(1, sizeof *r);
        if (r != NULL) {
            r->ptr = (char *)((uintptr_t)b->ptr + rounded); /* device address: never dereferenced here */
            r->size = remaining;
            r->device = device;
            r->pool_index = b->pool_index;
            r->stream = b->stream;
            r->kind = kind;
            r->prev = b;
            r->next = b->next;
            if (b->next) b->next->prev = r;
            b->next = r;
            b->size = rounded;
            free_list_insert(c, r);
        }
    }
    b->allocated = true;
    d->stats.allocated += b->size;
    if (d->stats.allocated > d->stats.peak_allocated) d->stats.peak_allocated = d->stats.allocated;
    *out = b;
    return TENSOR_OK;
}

tensor_status tensor_block_cache_alloc(tensor_block_cache *c, int device, void *stream, size_t nbytes, void **ptr,
                                       tensor_block **block, const char *func) {
    if (ptr) *ptr = NULL;
    if (block) *block = NULL;
    TENSOR_CHECK_NOT_NULL(c, func, "cache");
    TENSOR_CHECK_NOT_NULL(ptr, func, "ptr");
    TENSOR_CHECK_NOT_NULL(block, func, "block");
    if (device < 0 || device >= c->num_devices)
        return tensor_error(TENSOR_ERR_DEVICE, "%s: device cuda:%d is not available (%d CUDA device%s)", func, device,
                            c->num_devices, c->num_devices == 1 ? "" : "s");
    if (nbytes == 0)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: the block cache does not allocate 0 bytes", func);
    pthread_mutex_lock(&c->mutex);
    tensor_block *b = NULL;
    tensor_status st = alloc_locked(c, device, stream, nbytes, &b, func);
    pthread_mutex_unlock(&c->mutex);
    if (st == TENSOR_OK) {
        *block = b;
        *ptr = b->ptr;
    }
    return st;
}

tensor_status tensor_block_cache_alloc_external(tensor_block_cache *c, int device, void *stream, size_t nbytes,
                                                const tensor_device_allocator *a, void **ptr, tensor_block **block,
                                                const char *func) {
    if (ptr) *ptr = NULL;
    if (block) *block = NULL;
    TENSOR_CHECK_NOT_NULL(c, func, "cache");
    TENSOR_CHECK_NOT_NULL(a, func, "allocator");
    TENSOR_CHECK_NOT_NULL(ptr, func, "ptr");
    TENSOR_CHECK_NOT_NULL(block, func, "block");
    if (a->alloc == NULL || a->free == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: the device allocator has a NULL %s", func,
                            a->alloc == NULL ? "alloc" : "free");
    if (device < 0 || device >= c->num_devices)
        return tensor_error(TENSOR_ERR_DEVICE, "%s: device cuda:%d is not available (%d CUDA device%s)", func, device,
                            c->num_devices, c->num_devices == 1 ? "" : "s");
    if (nbytes == 0)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: the block cache does not allocate 0 bytes", func);
    size_t rounded = tensor_block_round_size(nbytes);
    char want[32];
    format_bytes(want, sizeof want, nbytes);
    if (rounded == 0)
        return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of memory on cuda:%d: tried to allocate %zu bytes (%s)",
                            func, device, nbytes, want);
    /* The record first: once the user's memory is in hand, nothing may fail but the checks of
     * what alloc returned. */
    tensor_block *b = tt_calloc(1, sizeof *b);
    if (b == NULL)
        return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory for the CUDA allocator's bookkeeping",
                            func);
    void *p = a->alloc(a->ctx, device, rounded, TENSOR_BLOCK_EXTERNAL_ALIGNMENT, stream);
    if (p == NULL) {
        free(b);
        return tensor_error(TENSOR_ERR_OUT_OF_MEMORY,
                            "%s: CUDA out of memory on cuda:%d: the device allocator returned NULL for %zu bytes (%s)",
                            func, device, rounded, want);
    }
    if (((uintptr_t)p & (TENSOR_BLOCK_EXTERNAL_ALIGNMENT - 1)) != 0) {
        /* the kernels' vector loads assume at least what cudaMalloc guarantees */
        a->free(a->ctx, device, p, rounded, stream);
        free(b);
        return tensor_error(TENSOR_ERR_OUT_OF_MEMORY,
                            "%s: the device allocator returned %p for %zu bytes on cuda:%d, not aligned to %zu bytes",
                            func, p, rounded, device, TENSOR_BLOCK_EXTERNAL_ALIGNMENT);
    }
    b->ptr = p;
    b->size = rounded;
    b->device = device;
    b->pool_index = -1;
    b->stream = stream;
    b->allocated = true;
    b->external = true;
    b->allocator = *a;
    pthread_mutex_lock(&c->mutex);
    device_state *d = &c->devices[device];
    list_insert(&d->externals, b);
    d->stats.allocated += rounded;
    d->stats.reserved += rounded;
    d->stats.num_device_mallocs++;
    if (d->stats.allocated > d->stats.peak_allocated) d->stats.peak_allocated = d->stats.allocated;
    pthread_mutex_unlock(&c->mutex);
    *block = b;
    *ptr = p;
    return TENSOR_OK;
}

void tensor_block_cache_free(tensor_block_cache *c, tensor_block *b) {
    if (c == NULL || b == NULL) return;
    pthread_mutex_lock(&c->mutex);
    device_state *d = &c->devices[b->device];
    if (b->external) {
        list_remove(&d->externals, b);
        d->stats.allocated -= b->size;
        d->stats.reserved -= b->size;
        d->stats.num_device_frees++;
        pthread_mutex_unlock(&c->mutex);
        b->allocator.free(b->allocator.ctx, b->device, b->ptr, b->size, b->stream);
        free(b);
        return;
    }
    b->allocated = false;
    d->stats.allocated -= b->size;
    if (b->prev && !b->prev->allocated) {
        tensor_block *p = b->prev;
        free_list_remove(c, p);
        p->size += b->size;
        p->next = b->next;
        if (b->next) b->next->prev = p;
        free(b);
        b = p;
    }
    if (b->next && !b->next->allocated) {
        tensor_block *n = b->next;
        free_list_remove(c, n);
        b->size += n->size;
        b->next = n->next;
        if (n->next) n->next->prev = b;
        free(n);
    }
    free_list_insert(c, b);
    pthread_mutex_unlock(&c->mutex);
}

tensor_status tensor_block_cache_empty(tensor_block_cache *c) {
    if (c == NULL) return TENSOR_OK;
    tensor_status st = TENSOR_OK;
    pthread_mutex_lock(&c->mutex);
    for (int dev = 0; dev < c->num_devices; dev++) release_free_segments(c, dev, &st);
    pthread_mutex_unlock(&c->mutex);
    return st;
}

static tensor_status check_device(const tensor_block_cache *c, int device, const char *func) {
    if (c == NULL || device < 0 || device >= c->num_devices) {
        int n = c ? c->num_devices : 0;
        return tensor_error(TENSOR_ERR_DEVICE, "%s: device cuda:%d is not available (%d CUDA device%s)", func, device,
                            n, n == 1 ? "" : "s");
    }
    return TENSOR_OK;
}

tensor_status tensor_block_cache_get_stats(tensor_block_cache *c, int device, tensor_cuda_memory_stats *stats,
                                           const char *func) {
    TENSOR_CHECK_NOT_NULL(stats, func, "stats");
    if (check_device(c, device, func) != TENSOR_OK) return TENSOR_ERR_DEVICE;
    pthread_mutex_lock(&c->mutex);
    *stats = c->devices[device].stats;
    pthread_mutex_unlock(&c->mutex);
    return TENSOR_OK;
}

tensor_status tensor_block_cache_reset_peak(tensor_block_cache *c, int device, const char *func) {
    if (check_device(c, device, func) != TENSOR_OK) return TENSOR_ERR_DEVICE;
    pthread_mutex_lock(&c->mutex);
    c->devices[device].stats.peak_allocated = c->devices[device].stats.allocated;
    pthread_mutex_unlock(&c->mutex);
    return TENSOR_OK;
}

int64_t tensor_block_cache_num_free_blocks(tensor_block_cache *c, int device) {
    if (c == NULL || device < 0 || device >= c->num_devices) return -1;
    int64_t n = 0;
    pthread_mutex_lock(&c->mutex);
    device_state *d = &c->devices[device];
    for (int i = 0; i < d->num_pools; i++)
        for (int k = 0; k < 2; k++)
            for (tensor_block *b = d->pools[i].free_list[k]; b != NULL; b = b->free_next) n++;
    pthread_mutex_unlock(&c->mutex);
    return n;
}

void *tensor_block_ptr(const tensor_block *b) { return b ? b->ptr : NULL; }
size_t tensor_block_size(const tensor_block *b) { return b ? b->size : 0; }
void *tensor_block_stream(const tensor_block *b) { return b ? b->stream : NULL; }
int tensor_block_device(const tensor_block *b) { return b ? b->device : -1; }
bool tensor_block_is_external(const tensor_block *b) { return b != NULL && b->external; }
