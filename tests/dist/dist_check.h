/* Shared by the dist tests (tests/dist over the loopback transport, tests/dist_nccl over NCCL in
 * one process, tests/dist/mp one rank per process): shard a logical tensor across a
 * communicator's ranks, run every reduction of dist/reduce.h on it and compare each rank's result
 * with the same reduction of the whole tensor on that rank's device: the same status, shape and
 * dtype; bytes equal for integer results and extremes, within float tolerance otherwise. Each
 * sharded call is run twice: the two results must be the same bytes, and so must every local
 * rank's copy of a replicated result.
 * Failures go through dc_fail, which the includer defines (CMocka's fail_msg, or a printf and a
 * flag in a plain program). Every helper is static: a file pays only for what it uses. */
#ifndef TENSOR_TEST_DIST_CHECK_H
#define TENSOR_TEST_DIST_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tinytensor.h"

#ifndef dc_fail
#error "define dc_fail(...) before including dist_check.h"
#endif

typedef enum { DC_SUM, DC_MEAN, DC_PROD, DC_AMAX, DC_AMIN, DC_VAR, DC_STD, DC_NORM, DC_LSE, DC_ARGMAX, DC_ARGMIN } dc_op;

static const char *const dc_op_names[] = {"sum", "mean", "prod", "amax", "amin", "var",
                                          "std", "norm", "logsumexp", "argmax", "argmin"};

typedef struct dc_red {
    dc_op op;
    int ndims; /* 0: all dims (prod, argmax: the NULL dim) */
    int dims[3];
    bool keepdim;
    double scalar; /* var/std's correction, norm's p */
} dc_red;

static inline const int *dc_dims(const dc_red *r) { return r->ndims > 0 ? r->dims : NULL; }

static inline tensor_t *dc_ref(const dc_red *r, const tensor_t *t) {
    const int *d = dc_dims(r);
    switch (r->op) {
    case DC_SUM: return tensor_sum_dims(t, d, r->ndims, r->keepdim, TENSOR_DTYPE_DEFAULT);
    case DC_MEAN: return tensor_mean(t, d, r->ndims, r->keepdim, TENSOR_DTYPE_DEFAULT);
    case DC_PROD: return tensor_prod(t, d, r->keepdim, TENSOR_DTYPE_DEFAULT);
    case DC_AMAX: return tensor_amax(t, d, r->ndims, r->keepdim);
    case DC_AMIN: return tensor_amin(t, d, r->ndims, r->keepdim);
    case DC_VAR: return tensor_var(t, r->scalar, d, r->ndims, r->keepdim);
    case DC_STD: return tensor_std(t, r->scalar, d, r->ndims, r->keepdim);
    case DC_NORM: return tensor_norm(t, r->scalar, d, r->ndims, r->keepdim);
    case DC_LSE: return tensor_logsumexp(t, d, r->ndims, r->keepdim);
    case DC_ARGMAX: return tensor_argmax(t, d, r->keepdim);
    default: return tensor_argmin(t, d, r->keepdim);
    }
}

static inline tensor_dtensor_t *dc_dist(const dc_red *r, const tensor_dtensor_t *x) {
    const int *d = dc_dims(r);
    switch (r->op) {
    case DC_SUM: return tensor_dist_sum(x, d, r->ndims, r->keepdim, TENSOR_DTYPE_DEFAULT);
    case DC_MEAN: return tensor_dist_mean(x, d, r->ndims, r->keepdim, TENSOR_DTYPE_DEFAULT);
    case DC_PROD: return tensor_dist_prod(x, d, r->keepdim, TENSOR_DTYPE_DEFAULT);
    case DC_AMAX: return tensor_dist_amax(x, d, r->ndims, r->keepdim);
    case DC_AMIN: return tensor_dist_amin(x, d, r->ndims, r->keepdim);
    case DC_VAR: return tensor_dist_var(x, r->scalar, d, r->ndims, r->keepdim);
    case DC_STD: return tensor_dist_std(x, r->scalar, d, r->ndims, r->keepdim);
    case DC_NORM: return tensor_dist_norm(x, r->scalar, d, r->ndims, r->keepdim);
    case DC_LSE: return tensor_dist_logsumexp(x, d, r->ndims, r->keepdim);
    case DC_ARGMAX: return tensor_dist_argmax(x, d, r->keepdim);
    default: return tensor_dist_argmin(x, d, r->keepdim);
    }
}

static inline void dc_describe(const dc_red *r, tensor_dtype dt, int shard_dim, char *buf, size_t n) {
    int k = snprintf(buf, n, "%s(%s, dims=[", dc_op_names[r->op], tensor_dtype_name(dt));
    for (int i = 0; i < r->ndims && k > 0 && (size_t)k < n; i++)
        k += snprintf(buf + k, n - (size_t)k, "%s%d", i ? "," : "", r->dims[i]);
    if (k > 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, "], keepdim=%d, %g) sharded on %d", r->keepdim, r->scalar, shard_dim);
}

/* Host copy of t's values as doubles (and int64 for exact compares); the caller frees both. */
static inline void dc_values(const tensor_t *t, double **vals, int64_t **ints) {
    int64_t n = tensor_numel(t);
    tensor_t *d = tensor_to_dtype(t, TENSOR_FLOAT64);
    tensor_t *i = tensor_to_dtype(t, TENSOR_INT64);
    *vals = malloc((size_t)(n ? n : 1) * sizeof **vals);
    *ints = malloc((size_t)(n ? n : 1) * sizeof **ints);
    if (d == NULL || i == NULL || *vals == NULL || *ints == NULL ||
        tensor_to_buffer(d, *vals, (size_t)n * sizeof **vals) != TENSOR_OK ||
        tensor_to_buffer(i, *ints, (size_t)n * sizeof **ints) != TENSOR_OK)
        dc_fail("download: %s", tensor_last_error());
    tensor_release(d);
    tensor_release(i);
}

/* Raw bytes of t (contiguous copy on the host); the caller frees them. */
static inline void *dc_bytes(const tensor_t *t, size_t *nbytes) {
    *nbytes = (size_t)tensor_numel(t) * tensor_dtype_size(tensor_get_dtype(t));
    void *p = malloc(*nbytes ? *nbytes : 1);
    if (p == NULL || tensor_to_buffer(t, p, *nbytes) != TENSOR_OK) dc_fail("bytes: %s", tensor_last_error());
    return p;
}

static inline void dc_tol(tensor_dtype dt, double *rtol, double *atol) {
    switch (dt) {
    case TENSOR_FLOAT64: *rtol = 1e-10, *atol = 1e-12; break;
    case TENSOR_FLOAT16: *rtol = 4e-3, *atol = 4e-3; break;
    case TENSOR_BFLOAT16: *rtol = 3e-2, *atol = 3e-2; break;
    default: *rtol = 2e-5, *atol = 2e-5; break;
    }
}

/* got (a dist result's local tensor) against want (the whole tensor's result, or its slice). */
static inline void dc_compare(const tensor_t *got, const tensor_t *want, bool exact, const char *what) {
    if (tensor_get_dtype(got) != tensor_get_dtype(want))
        dc_fail("%s: dtype %s, expected %s", what, tensor_dtype_name(tensor_get_dtype(got)),
                tensor_dtype_name(tensor_get_dtype(want)));
    if (tensor_ndim(got) != tensor_ndim(want)) dc_fail("%s: ndim %d, expected %d", what, tensor_ndim(got), tensor_ndim(want));
    for (int d = 0; d < tensor_ndim(got); d++)
        if (tensor_size(got, d) != tensor_size(want, d))
            dc_fail("%s: size %lld on dim %d, expected %lld", what, (long long)tensor_size(got, d), d,
                    (long long)tensor_size(want, d));
    tensor_dtype dt = tensor_get_dtype(got);
    exact = exact || !tensor_dtype_is_floating(dt);
    double *gv, *wv;
    int64_t *gi, *wi;
    dc_values(got, &gv, &gi);
    dc_values(want, &wv, &wi);
    double rtol, atol;
    dc_tol(dt, &rtol, &atol);
    for (int64_t k = 0; k < tensor_numel(got); k++) {
        bool ok;
        if (!tensor_dtype_is_floating(dt)) ok = gi[k] == wi[k];
        else if (isnan(wv[k]) || isnan(gv[k])) ok = isnan(wv[k]) && isnan(gv[k]);
        else if (isinf(wv[k]) || isinf(gv[k]) || exact) ok = gv[k] == wv[k];
        else ok = fabs(gv[k] - wv[k]) <= atol + rtol * fabs(wv[k]);
        if (!ok) dc_fail("%s: element %lld is %.9g, expected %.9g", what, (long long)k, gv[k], wv[k]);
    }
    free(gv);
    free(wv);
    free(gi);
    free(wi);
}

/* ---- sharding a logical tensor ---- */

typedef struct dc_tiling {
    int64_t offsets[16], lengths[16];
    bool given; /* pass offsets to tensor_dtensor_new (else NULL: rank order) */
} dc_tiling;

/* `size` split over n ranks, the first size % n one longer; reversed: rank r holds the slice
 * rank n-1-r would. */
static inline dc_tiling dc_tile(int64_t size, int n, bool reversed) {
    dc_tiling t;
    memset(&t, 0, sizeof t);
    int64_t at = 0;
    for (int s = 0; s < n; s++) {
        int r = reversed ? n - 1 - s : s;
        t.lengths[r] = size / n + (s < size % n);
        t.offsets[r] = at;
        at += t.lengths[r];
    }
    t.given = reversed;
    return t;
}

/* Every local rank's copy of the whole tensor `global` (on the host; moved to each rank's GPU
 * when gpu is set) and the dtensor sharding it (views of those copies, not contiguous off dim
 * 0); both arrays hold new references. */
static inline tensor_dtensor_t *dc_shard(tensor_comm_t *c, const tensor_t *global, int dim, const dc_tiling *tl,
                                  tensor_t **full, bool gpu) {
    int n = tensor_comm_local_count(c);
    tensor_t *shards[64];
    for (int i = 0; i < n; i++) {
        int r = tensor_comm_rank(c, i);
        tensor_device dev = gpu ? tensor_cuda(tensor_comm_device(c, i)) : tensor_get_device(global);
        full[i] = tensor_to_device(global, dev);
        shards[i] = full[i] != NULL ? tensor_narrow(full[i], dim, tl->offsets[r], tl->lengths[r]) : NULL;
        if (shards[i] == NULL) dc_fail("shard: %s", tensor_last_error());
    }
    tensor_dtensor_t *x = NULL;
    if (tensor_dtensor_new(c, shards, dim, tl->given ? tl->offsets : NULL, &x) != TENSOR_OK)
        dc_fail("tensor_dtensor_new: %s", tensor_last_error());
    for (int i = 0; i < n; i++) tensor_release(shards[i]);
    return x;
}

/* Element k of the test tensors: multiples of 1/4 in [-1, 1] (exact in every float dtype, with
 * ties for argmax), small integers for the integer dtypes. */
static inline tensor_t *dc_global(int ndim, const int64_t *sizes, tensor_dtype dt, uint64_t seed) {
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= sizes[d];
    double *v = malloc((size_t)n * sizeof *v);
    for (int64_t k = 0; k < n; k++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        int q = (int)((seed >> 33) % 9); /* 0..8 */
        v[k] = tensor_dtype_is_floating(dt) ? (q - 4) / 4.0 : dt == TENSOR_BOOL ? (q & 1) : q % 4;
    }
    tensor_t *d = tensor_from_buffer(v, ndim, sizes, TENSOR_FLOAT64, tensor_cpu());
    tensor_t *t = d != NULL ? tensor_to_dtype(d, dt) : NULL;
    tensor_release(d);
    free(v);
    if (t == NULL) dc_fail("global: %s", tensor_last_error());
    return t;
}

/* One reduction: the dist result against the whole tensor's on every local rank, run twice. */
static inline void dc_check_one(const dc_red *r, const tensor_dtensor_t *x, tensor_t *const *full) {
    char what[160];
    tensor_t *loc0 = tensor_dtensor_local(x, 0);
    dc_describe(r, tensor_get_dtype(loc0), tensor_dtensor_dim(x), what, sizeof what);
    tensor_comm_t *c = tensor_dtensor_comm(x);
    int n = tensor_comm_local_count(c);
    tensor_clear_error();
    tensor_t *want0 = dc_ref(r, full[0]);
    tensor_status want_st = tensor_last_status();
    tensor_clear_error();
    tensor_dtensor_t *y = dc_dist(r, x);
    tensor_dtensor_t *y2 = y != NULL ? dc_dist(r, x) : NULL;
    if (want0 == NULL) {
        if (y != NULL) dc_fail("%s: succeeded, the local op failed with %s", what, tensor_status_name(want_st));
        if (tensor_last_status() != want_st)
            dc_fail("%s: status %s (%s), the local op's %s", what, tensor_status_name(tensor_last_status()),
                    tensor_last_error(), tensor_status_name(want_st));
        return;
    }
    if (y == NULL || y2 == NULL) dc_fail("%s: %s", what, tensor_last_error());
    bool exact = r->op == DC_AMAX || r->op == DC_AMIN || r->op == DC_ARGMAX || r->op == DC_ARGMIN;
    size_t nb0 = 0;
    void *bytes0 = NULL;
    for (int i = 0; i < n; i++) {
        tensor_t *want = i == 0 ? tensor_retain(want0) : dc_ref(r, full[i]);
        tensor_t *got = tensor_dtensor_local(y, i);
        int ydim = tensor_dtensor_dim(y);
        if (ydim >= 0) {
            /* Sharded result: this rank's slice of the whole result. */
            int rank = tensor_comm_rank(c, i);
            tensor_t *slice = tensor_narrow(want, ydim, tensor_dtensor_offset(y, rank), tensor_dtensor_length(y, rank));
            tensor_release(want);
            want = slice;
        }
        dc_compare(got, want, exact, what);
        tensor_release(want);
        size_t nb, nb2;
        void *b = dc_bytes(got, &nb), *b2 = dc_bytes(tensor_dtensor_local(y2, i), &nb2);
        if (nb != nb2 || memcmp(b, b2, nb) != 0) dc_fail("%s: local rank %d: a second run gave other bytes", what, i);
        if (ydim < 0 && i == 0) {
            bytes0 = b;
            nb0 = nb;
        } else {
            if (ydim < 0 && (nb != nb0 || memcmp(b, bytes0, nb) != 0))
                dc_fail("%s: local rank %d's copy differs from local rank 0's", what, i);
            free(b);
        }
        free(b2);
    }
    free(bytes0);
    tensor_release(want0);
    tensor_dtensor_release(y);
    tensor_dtensor_release(y2);
}

/* Every reduction over every interesting set of dims of a 3-d dtensor. */
static inline void dc_check_all(const tensor_dtensor_t *x, tensor_t *const *full) {
    int sd = tensor_dtensor_dim(x), other = (sd + 1) % 3;
    const dc_op ops[] = {DC_SUM, DC_MEAN, DC_PROD, DC_AMAX, DC_AMIN, DC_VAR, DC_STD,
                         DC_NORM, DC_LSE, DC_ARGMAX, DC_ARGMIN};
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        dc_op op = ops[o];
        bool one_dim = op == DC_PROD || op == DC_ARGMAX || op == DC_ARGMIN;
        /* dims: all, the sharded one, another, (both, for the multi-dim ops) */
        dc_red cases[4];
        int nc = 0;
        cases[nc++] = (dc_red){op, 0, {0}, false, 0};
        cases[nc++] = (dc_red){op, 1, {sd}, false, 0};
        cases[nc++] = (dc_red){op, 1, {other - 3}, false, 0}; /* a negative dim */
        if (!one_dim) cases[nc++] = (dc_red){op, 2, {other, sd}, false, 0};
        for (int k = 0; k < nc; k++)
            for (int keep = 0; keep < 2; keep++) {
                dc_red r = cases[k];
                r.keepdim = keep;
                if (op == DC_VAR || op == DC_STD) {
                    r.scalar = 1.0;
                    dc_check_one(&r, x, full);
                    r.scalar = 0.0;
                } else if (op == DC_NORM) {
                    const double ps[] = {2.0, 1.0, INFINITY, 0.0, 3.0};
                    for (int p = 0; p < 4; p++) {
                        r.scalar = ps[p];
                        dc_check_one(&r, x, full);
                    }
                    r.scalar = ps[4];
                }
                dc_check_one(&r, x, full);
            }
    }
}

/* A sweep: every dtype, every sharded dim of a [7, 5, 4] tensor, slices in rank order and
 * reversed, with the communicator's ranks. */
static inline void dc_sweep(tensor_comm_t *c, const tensor_dtype *dtypes, int ndt, bool gpu) {
    const int64_t sizes[3] = {7, 5, 4};
    int nranks = tensor_comm_size(c), n = tensor_comm_local_count(c);
    for (int k = 0; k < ndt; k++)
        for (int dim = 0; dim < 3; dim++)
            for (int rev = 0; rev < 2; rev++) {
                if (sizes[dim] < nranks) continue;
                tensor_t *g = dc_global(3, sizes, dtypes[k], 1234 + (uint64_t)(k * 7 + dim));
                dc_tiling tl = dc_tile(sizes[dim], nranks, rev);
                tensor_t *full[64];
                tensor_dtensor_t *x = dc_shard(c, g, dim, &tl, full, gpu);
                dc_check_all(x, full);
                tensor_dtensor_release(x);
                for (int i = 0; i < n; i++) tensor_release(full[i]);
                tensor_release(g);
            }
}

/* ---- collectives ---- */

/* Rank r's element k: small integers, so sums and products are exact in every dtype. */
static inline double dc_cval(tensor_dtype dt, int r, int64_t k) {
    if (dt == TENSOR_BOOL) return (double)((r + k) % 3 == 0);
    return (double)(((r + 1) * (k + 2)) % 5);
}

static inline tensor_t *dc_cvec(tensor_dtype dt, int r, int64_t offset, int64_t n, tensor_device dev) {
    double v[64];
    if (n > 64) dc_fail("dc_cvec: %lld elements, at most 64", (long long)n);
    for (int64_t k = 0; k < n; k++) v[k] = dc_cval(dt, r, offset + k);
    tensor_t *d = tensor_from_buffer(v, 1, &n, TENSOR_FLOAT64, tensor_cpu());
    tensor_t *h = d != NULL ? tensor_to_dtype(d, dt) : NULL;
    tensor_t *t = h != NULL ? tensor_to_device(h, dev) : NULL;
    tensor_release(d);
    tensor_release(h);
    if (t == NULL) dc_fail("collective input: %s", tensor_last_error());
    return t;
}

static inline double dc_cop(tensor_dist_op op, tensor_dtype dt, double a, double b) {
    if (dt == TENSOR_BOOL) op = op == TENSOR_DIST_SUM || op == TENSOR_DIST_MAX ? TENSOR_DIST_MAX : TENSOR_DIST_MIN;
    switch (op) {
    case TENSOR_DIST_PROD: return a * b;
    case TENSOR_DIST_MAX: return a > b ? a : b;
    case TENSOR_DIST_MIN: return a < b ? a : b;
    default: return a + b;
    }
}

/* Every collective, every dtype NCCL reduces, against values computed on the host. */
static inline void dc_check_collectives(tensor_comm_t *c, bool gpu) {
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT16, TENSOR_BFLOAT16,
                                TENSOR_INT32,   TENSOR_INT64,   TENSOR_UINT8,   TENSOR_INT8, TENSOR_BOOL};
    const int64_t m = 5;
    int n = tensor_comm_local_count(c), nranks = tensor_comm_size(c);
    char what[96];
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        tensor_dtype dt = dts[k];
        tensor_t *ts[64], *outs[64];
        for (int op = TENSOR_DIST_SUM; op <= TENSOR_DIST_AVG; op++) {
            if (op == TENSOR_DIST_AVG && !tensor_dtype_is_floating(dt)) continue;
            for (int i = 0; i < n; i++) {
                tensor_device dev = gpu ? tensor_cuda(tensor_comm_device(c, i)) : tensor_cpu();
                ts[i] = dc_cvec(dt, tensor_comm_rank(c, i), 0, m, dev);
            }
            if (tensor_dist_all_reduce(c, ts, (tensor_dist_op)op) != TENSOR_OK)
                dc_fail("all_reduce(%s, op %d): %s", tensor_dtype_name(dt), op, tensor_last_error());
            double want[64];
            for (int64_t e = 0; e < m; e++) {
                double acc = dc_cval(dt, 0, e);
                for (int r = 1; r < nranks; r++) acc = dc_cop((tensor_dist_op)op, dt, acc, dc_cval(dt, r, e));
                want[e] = op == TENSOR_DIST_AVG ? acc / nranks : acc;
            }
            tensor_t *wd = tensor_from_buffer(want, 1, &m, TENSOR_FLOAT64, tensor_cpu());
            tensor_t *w = tensor_to_dtype(wd, dt);
            snprintf(what, sizeof what, "all_reduce(%s, op %d)", tensor_dtype_name(dt), op);
            for (int i = 0; i < n; i++) {
                dc_compare(ts[i], w, false, what);
                tensor_release(ts[i]);
            }
            tensor_release(wd);
            tensor_release(w);
        }
        /* broadcast from the last rank; all-gather; reduce-scatter (sum). */
        int root = nranks - 1;
        for (int i = 0; i < n; i++) {
            tensor_device dev = gpu ? tensor_cuda(tensor_comm_device(c, i)) : tensor_cpu();
            ts[i] = dc_cvec(dt, tensor_comm_rank(c, i), 0, m, dev);
        }
        if (tensor_dist_broadcast(c, ts, root) != TENSOR_OK) dc_fail("broadcast: %s", tensor_last_error());
        tensor_t *w = dc_cvec(dt, root, 0, m, tensor_cpu());
        snprintf(what, sizeof what, "broadcast(%s)", tensor_dtype_name(dt));
        for (int i = 0; i < n; i++) dc_compare(ts[i], w, true, what);
        tensor_release(w);
        for (int i = 0; i < n; i++) {
            tensor_release(ts[i]);
            tensor_device dev = gpu ? tensor_cuda(tensor_comm_device(c, i)) : tensor_cpu();
            ts[i] = dc_cvec(dt, tensor_comm_rank(c, i), 0, m, dev);
            int64_t big = m * nranks;
            outs[i] = tensor_empty(1, &big, dt, dev);
        }
        if (tensor_dist_all_gather(c, outs, (const tensor_t *const *)ts) != TENSOR_OK)
            dc_fail("all_gather: %s", tensor_last_error());
        snprintf(what, sizeof what, "all_gather(%s)", tensor_dtype_name(dt));
        for (int r = 0; r < nranks; r++) {
            w = dc_cvec(dt, r, 0, m, tensor_cpu());
            for (int i = 0; i < n; i++) {
                tensor_t *block = tensor_narrow(outs[i], 0, r * m, m);
                dc_compare(block, w, true, what);
                tensor_release(block);
            }
            tensor_release(w);
        }
        /* reduce-scatter: inputs of nranks * m elements (rank r's values at offsets 0..), rank
         * i gets block i of the elementwise sum. */
        for (int i = 0; i < n; i++) {
            tensor_release(ts[i]);
            tensor_release(outs[i]);
            tensor_device dev = gpu ? tensor_cuda(tensor_comm_device(c, i)) : tensor_cpu();
            ts[i] = dc_cvec(dt, tensor_comm_rank(c, i), 0, m * nranks, dev);
            outs[i] = tensor_empty(1, &m, dt, dev);
        }
        if (tensor_dist_reduce_scatter(c, outs, (const tensor_t *const *)ts, TENSOR_DIST_SUM) != TENSOR_OK)
            dc_fail("reduce_scatter: %s", tensor_last_error());
        snprintf(what, sizeof what, "reduce_scatter(%s)", tensor_dtype_name(dt));
        for (int i = 0; i < n; i++) {
            int rank = tensor_comm_rank(c, i);
            double want[64];
            for (int64_t e = 0; e < m; e++) {
                double acc = dc_cval(dt, 0, rank * m + e);
                for (int r = 1; r < nranks; r++) acc = dc_cop(TENSOR_DIST_SUM, dt, acc, dc_cval(dt, r, rank * m + e));
                want[e] = acc;
            }
            tensor_t *wd = tensor_from_buffer(want, 1, &m, TENSOR_FLOAT64, tensor_cpu());
            w = tensor_to_dtype(wd, dt);
            dc_compare(outs[i], w, false, what);
            tensor_release(wd);
            tensor_release(w);
            tensor_release(ts[i]);
            tensor_release(outs[i]);
        }
    }
}

#endif
