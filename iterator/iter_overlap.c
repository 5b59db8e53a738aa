/* Build stage 3: memory overlap between each output and the other operands, and inside each
 * output. A result computed from values the same call already overwrote is never returned:
 *   - an output that is an input element for element (in place) is fine;
 *   - an output that shares any other memory element with an input is refused;
 *   - an output whose elements share memory with each other is refused.
 * Dense views are decided by their byte ranges. Other views are decided exactly: a gcd test
 * proves most interleaved views disjoint (x[0::2] and x[1::2]), and otherwise the element
 * offsets of both are compared; views too large to compare are refused (never guessed). */
#include <stdlib.h>
#include <string.h>

#include "runtime/alloc.h"
#include "iterator/iter_build_impl.h"
#include "runtime/error.h"

/* Views whose elements are compared one by one: at most this many elements in the smaller
 * one (its offsets are sorted, 8 bytes each) and in the larger one (each is looked up). */
#define OVERLAP_SORT_LIMIT ((int64_t)1 << 20)
#define OVERLAP_SCAN_LIMIT ((int64_t)1 << 24)

static int64_t numel_of(const tensor_t *t) {
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++) n *= t->sizes[d];
    return n;
}

/* Dense without holes or repeats in some dim order (PyTorch's non_overlapping_and_dense). */
static bool non_overlapping_and_dense(const tensor_t *t) {
    int dims[TENSOR_MAX_DIMS], n = 0;
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] != 1) dims[n++] = d;
    /* Insertion sort by stride (ties by size), then check strides are running products. */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            int a = dims[j - 1], c = dims[j];
            if (t->strides[a] < t->strides[c] || (t->strides[a] == t->strides[c] && t->sizes[a] <= t->sizes[c])) break;
            dims[j - 1] = c;
            dims[j] = a;
        }
    int64_t expected = 1;
    for (int i = 0; i < n; i++) {
        if (t->strides[dims[i]] != expected) return false;
        expected *= t->sizes[dims[i]];
    }
    return true;
}

/* [begin, end) in bytes from the storage's start. */
static void byte_range(const tensor_t *t, int64_t *begin, int64_t *end) {
    int64_t es = (int64_t)tensor_dtype_size(t->dtype), last = 0;
    for (int d = 0; d < t->ndim; d++) last += (t->sizes[d] - 1) * t->strides[d];
    *begin = t->offset * es;
    *end = (t->offset + last) * es + es;
}

bool tt_iter_same_elements(const tensor_t *a, const tensor_t *b) {
    if (a == b) return true;
    if (a->storage != b->storage || a->offset != b->offset || a->ndim != b->ndim ||
        tensor_dtype_size(a->dtype) != tensor_dtype_size(b->dtype))
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->sizes[d] != b->sizes[d] || (a->sizes[d] != 1 && a->strides[d] != b->strides[d])) return false;
    return true;
}

static int64_t gcd64(int64_t a, int64_t b) {
    while (b != 0) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static int cmp_i64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* t's addresses as runs: dims of size 1 or stride 0 dropped (they add no address), then the
 * smallest strides merged while each equals the run so far (a dense row, a dense block): a
 * column block x[:, 0:k] is rows of k elements, not k * rows single elements. */
typedef struct runs {
    int64_t len; /* elements per run */
    int n;       /* the dims left, enumerated for the run starts */
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    int64_t count; /* runs */
} runs;

static void runs_of(const tensor_t *t, runs *r) {
    int n = 0;
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] > 1 && t->strides[d] > 0) {
            r->sizes[n] = t->sizes[d];
            r->strides[n] = t->strides[d];
            n++;
        }
    for (int i = 1; i < n; i++) /* ascending strides */
        for (int j = i; j > 0 && r->strides[j - 1] > r->strides[j]; j--) {
            int64_t s = r->sizes[j - 1], st = r->strides[j - 1];
            r->sizes[j - 1] = r->sizes[j];
            r->strides[j - 1] = r->strides[j];
            r->sizes[j] = s;
            r->strides[j] = st;
        }
    int first = 0;
    r->len = 1;
    while (first < n && r->strides[first] == r->len) r->len *= r->sizes[first++];
    r->n = n - first;
    memmove(r->sizes, r->sizes + first, (size_t)r->n * sizeof r->sizes[0]);
    memmove(r->strides, r->strides + first, (size_t)r->n * sizeof r->strides[0]);
    r->count = 1;
    for (int d = 0; d < r->n; d++) r->count *= r->sizes[d];
}

/* The start (in elements from the storage's start) of each run, in index order. */
static void run_starts(const runs *r, int64_t offset, int64_t *out) {
    int64_t idx[TENSOR_MAX_DIMS] = {0};
    int64_t off = offset;
    for (int64_t k = 0; k < r->count; k++) {
        out[k] = off;
        for (int d = r->n - 1; d >= 0; d--) {
            if (++idx[d] < r->sizes[d]) {
                off += r->strides[d];
                break;
            }
            off -= (r->sizes[d] - 1) * r->strides[d];
            idx[d] = 0;
        }
    }
}

typedef enum { SHARE_NO, SHARE_YES, SHARE_UNKNOWN, SHARE_NO_MEMORY } share_result;

/* Whether two non-empty views of one storage share a byte, decided exactly. */
static share_result share_exact(const tensor_t *a, const tensor_t *b) {
    const int64_t esa = (int64_t)tensor_dtype_size(a->dtype), esb = (int64_t)tensor_dtype_size(b->dtype);
    /* gcd test (same element size): every element starts at offset + a combination of the
     * strides, so two views whose offsets differ by a non-multiple of the strides' gcd never
     * meet at an element start, and equal sizes mean no partial overlap either. */
    if (esa == esb) {
        int64_t g = 0;
        for (int d = 0; d < a->ndim; d++)
            if (a->sizes[d] > 1) g = gcd64(g, a->strides[d]);
        for (int d = 0; d < b->ndim; d++)
            if (b->sizes[d] > 1) g = gcd64(g, b->strides[d]);
        const int64_t diff = b->offset - a->offset;
        if (g == 0) return diff == 0 ? SHARE_YES : SHARE_NO;
        if (diff % g != 0) return SHARE_NO;
    }
    /* Otherwise run by run: the smaller set's starts sorted, each run of the other looked up. */
    runs ra, rb;
    runs_of(a, &ra);
    runs_of(b, &rb);
    const bool a_small = ra.count <= rb.count;
    const runs *rs = a_small ? &ra : &rb, *rl = a_small ? &rb : &ra;
    const tensor_t *ts = a_small ? a : b, *tl = a_small ? b : a;
    if (rs->count > OVERLAP_SORT_LIMIT || rl->count > OVERLAP_SCAN_LIMIT) return SHARE_UNKNOWN;
    int64_t *starts = tt_malloc((size_t)rs->count * sizeof *starts);
    int64_t *large = tt_malloc((size_t)rl->count * sizeof *large);
    if (starts == NULL || large == NULL) {
        free(starts);
        free(large);
        return SHARE_NO_MEMORY;
    }
    run_starts(rs, ts->offset, starts);
    run_starts(rl, tl->offset, large);
    qsort(starts, (size_t)rs->count, sizeof *starts, cmp_i64);
    const int64_t ess = (int64_t)tensor_dtype_size(ts->dtype), esl = (int64_t)tensor_dtype_size(tl->dtype);
    const int64_t bytes_s = rs->len * ess, bytes_l = rl->len * esl;
    share_result r = SHARE_NO;
    for (int64_t k = 0; k < rl->count && r == SHARE_NO; k++) {
        /* [x, x + bytes_l) meets some [o, o + bytes_s): the first o > x - bytes_s is below
         * x + bytes_l. */
        const int64_t x = large[k] * esl;
        int64_t lo = 0, hi = rs->count;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (starts[mid] * ess <= x - bytes_s) lo = mid + 1;
            else hi = mid;
        }
        if (lo < rs->count && starts[lo] * ess < x + bytes_l) r = SHARE_YES;
    }
    free(starts);
    free(large);
    return r;
}

/* Whether output `out` and operand `in` share memory other than element for element. */
static share_result share(const tensor_t *out, const tensor_t *in) {
    if (out->storage != in->storage || numel_of(out) == 0 || numel_of(in) == 0) return SHARE_NO;
    if (tt_iter_same_elements(out, in)) return SHARE_NO; /* in place */
    int64_t ab, ae, bb, be;
    byte_range(out, &ab, &ae);
    byte_range(in, &bb, &be);
    if (ae <= bb || be <= ab) return SHARE_NO;
    if (non_overlapping_and_dense(out) && non_overlapping_and_dense(in)) return SHARE_YES;
    return share_exact(out, in);
}

/* Whether two index vectors of t give one address (t non-empty, no stride 0 on a dim of size
 * > 1: the caller checks that first). Strides sorted ascending, each larger than the span of
 * the dims below it, prove every address distinct; otherwise the offsets are compared. */
static share_result self_overlap(const tensor_t *t) {
    int dims[TENSOR_MAX_DIMS], n = 0;
    for (int d = 0; d < t->ndim; d++)
        if (t->sizes[d] > 1) dims[n++] = d;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && t->strides[dims[j - 1]] > t->strides[dims[j]]; j--) {
            int x = dims[j - 1];
            dims[j - 1] = dims[j];
            dims[j] = x;
        }
    int64_t span = 0; /* the largest offset the dims below reach */
    bool separated = true;
    for (int i = 0; i < n && separated; i++) {
        separated = t->strides[dims[i]] > span;
        span += (t->sizes[dims[i]] - 1) * t->strides[dims[i]];
    }
    if (separated) return SHARE_NO;
    runs r = {.len = 1, .n = n, .count = 1};
    for (int i = 0; i < n; i++) {
        r.sizes[i] = t->sizes[dims[i]];
        r.strides[i] = t->strides[dims[i]];
        r.count *= r.sizes[i];
    }
    const int64_t nt = r.count;
    if (nt > OVERLAP_SORT_LIMIT) return SHARE_UNKNOWN;
    int64_t *offs = tt_malloc((size_t)nt * sizeof *offs);
    if (offs == NULL) return SHARE_NO_MEMORY;
    run_starts(&r, t->offset, offs);
    qsort(offs, (size_t)nt, sizeof *offs, cmp_i64);
    share_result res = SHARE_NO;
    for (int64_t k = 1; k < nt && res == SHARE_NO; k++)
        if (offs[k] == offs[k - 1]) res = SHARE_YES;
    free(offs);
    return res;
}

static tensor_status internal_overlap_error(const iter_build *b, int i, const char *why) {
    return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                        "%s: unsupported operation: more than one element of the written-to tensor refers to a single "
                        "memory location%s. Please clone() the tensor before performing the operation. (output %d)",
                        b->name, why, i);
}

tensor_status tt_iter_check_overlap(iter_build *b) {
    for (int i = 0; i < b->nout; i++) {
        const tensor_t *out = b->ops[i].t;
        if (out == NULL || numel_of(out) == 0) continue;
        for (int d = 0; d < out->ndim; d++)
            if (out->sizes[d] > 1 && out->strides[d] == 0) return internal_overlap_error(b, i, "");
        switch (self_overlap(out)) {
        case SHARE_NO: break;
        case SHARE_YES: return internal_overlap_error(b, i, "");
        case SHARE_UNKNOWN: return internal_overlap_error(b, i, " (or may: too large to decide)");
        case SHARE_NO_MEMORY:
            return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of memory while checking output %d for overlap",
                                b->name, i);
        }
        for (int j = b->nout; j < b->nops; j++) {
            if (b->ops[j].t == NULL) continue;
            const int k = j - b->nout;
            switch (share(out, b->ops[j].t)) {
            case SHARE_NO: continue;
            case SHARE_YES:
                return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                    "%s: unsupported operation: some elements of the input tensor and the written-to "
                                    "tensor refer to a single memory location. Please clone() the tensor before "
                                    "performing the operation. (output %d, input %d)",
                                    b->name, i, k);
            case SHARE_UNKNOWN:
                return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                    "%s: unsupported operation: the input tensor and the written-to tensor may refer "
                                    "to a single memory location (views too large to decide). Please clone() the "
                                    "tensor before performing the operation. (output %d, input %d)",
                                    b->name, i, k);
            case SHARE_NO_MEMORY:
                return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of memory while checking output %d for overlap",
                                    b->name, i);
            }
        }
    }
    return TENSOR_OK;
}
