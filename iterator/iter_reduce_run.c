/* The CPU reduction driver (tensor_iter_reduce_run): per-output accumulators, the reduced
 * dims cut into shape-determined chunks, chunk partials folded in a fixed order, so the
 * result does not depend on the thread count. See iterator.h for the contract. */
#include <stdlib.h>
#include <string.h>

#include "iterator/iter_impl.h"
#include "runtime/error.h"
#include "runtime/storage.h"
#include "iterator/iter_internal.h"

#if TENSOR_HAVE_OPENMP
#include <omp.h>
#endif

int64_t tensor_iter_reduce_num_chunks(const tensor_iter_t *iter, int *chunk_dim) {
    if (chunk_dim) *chunk_dim = -1;
    if (iter == NULL) return 1;
    int r = tensor_iter_num_reduce_dims(iter);
    int64_t reduced = 1;
    for (int d = 0; d < r; d++) reduced *= iter->shape[d];
    /* About a grain of reduced elements per chunk; only the shape decides. */
    int64_t want = reduced / TENSOR_ITER_GRAIN_SIZE;
    if (r == 0 || want < 2) return 1;
    int dc = r - 1;
    for (int d = r - 1; d >= 0; d--)
        if (iter->shape[d] > iter->shape[dc]) dc = d;
    int64_t chunks = want < iter->shape[dc] ? want : iter->shape[dc];
    if (chunks < 2) return 1;
    if (chunk_dim) *chunk_dim = dc;
    return chunks;
}

typedef struct {
    const tensor_iter_reduce_ops *ops;
    int r;                          /* reduced dims */
    int perm[TENSOR_MAX_DIMS];      /* view position -> computation dim (see block_order) */
    int64_t start[TENSOR_MAX_DIMS]; /* where this task's view starts, in base_shape units */
    int64_t scale[TENSOR_MAX_DIMS]; /* reduced linear index weight per dim */
} reduce_task_ctx;

static void call_reduce_loop(char **data, const int64_t *strides, int64_t size0, int64_t size1,
                             const int64_t *counter, void *ctx) {
    const reduce_task_ctx *t = ctx;
    tensor_iter_reduce_pos pos = {0, 0, 0};
    for (int k = 0; k < TENSOR_MAX_DIMS; k++) {
        const int d = t->perm[k];
        if (d >= 0 && d < t->r) pos.index0 += (counter[k] + t->start[d]) * t->scale[d];
    }
    if (t->perm[0] >= 0 && t->perm[0] < t->r) pos.index_stride0 = t->scale[t->perm[0]];
    if (t->perm[1] >= 0 && t->perm[1] < t->r) pos.index_stride1 = t->scale[t->perm[1]];
    t->ops->loop(data, strides, size0, size1, &pos, t->ops->ctx);
}

static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

/* The order in which the loop's blocks walk the dims (perm[k] = the computation dim at
 * view position k; -1 past ndim). Only strides and the shape decide.
 *  - Block dim 1: computation dim 1, except when a kept dim reads its input closer together
 *    than dim 0 (reduced) does: then the kept dim with the smallest input stride. The block
 *    is then an outer reduction over rows of that kept dim (e.g. [64,128,256,32] summed
 *    over dims 0 and 2: blocks of 256 rows of 32 contiguous elements, instead of 32 runs
 *    strided 128 bytes apart), which loops sweep row by row (numpy's order).
 *  - The other dims: smallest input stride first, so that consecutive blocks read memory
 *    in order (in the example, the kept dim of 128 before the reduced dim of 64: each block
 *    starts where the last one ended, instead of 4 MiB further on), except that reduced
 *    dims keep their computation order among themselves.
 * So every output still meets its elements in increasing reduced index. */
static void block_order(const tensor_iter_t *iter, int r, int perm[TENSOR_MAX_DIMS]) {
    const int ndim = iter->ndim;
    for (int k = 0; k < TENSOR_MAX_DIMS; k++) perm[k] = k < ndim ? k : -1;
    if (r < 1 || ndim < 2) return;
    const int64_t *st = iter->operands[iter->num_outputs].strides;
    int second = 1;
    if (iter->shape[0] >= 2) {
        int best = -1;
        for (int d = r; d < ndim; d++) {
            if (iter->shape[d] < 2 || st[d] == 0) continue;
            if (best < 0 || abs64(st[d]) < abs64(st[best])) best = d;
        }
        if (best > 1 && abs64(st[best]) < abs64(st[0])) second = best;
    }
    bool placed[TENSOR_MAX_DIMS] = {false};
    placed[0] = placed[second] = true;
    perm[1] = second;
    for (int k = 2; k < ndim; k++) {
        int pick = -1, next_reduced = -1;
        for (int d = 1; d < r; d++)
            if (!placed[d]) {
                next_reduced = d;
                break;
            }
        for (int d = 1; d < ndim; d++) {
            if (placed[d] || (d < r && d != next_reduced)) continue;
            if (pick < 0 || abs64(st[d]) < abs64(st[pick])) pick = d;
        }
        perm[k] = pick;
        placed[pick] = true;
    }
}

static void view_permute(iter_view *v, const int perm[TENSOR_MAX_DIMS]) {
    iter_view o = *v;
    for (int k = 0; k < v->ndim; k++) {
        v->shape[k] = o.shape[perm[k]];
        for (int a = 0; a < v->nops; a++) v->strides[a][k] = o.strides[a][perm[k]];
    }
}

typedef struct {
    const tensor_iter_reduce_ops *ops;
} project_ctx;

static void call_project(char **data, const int64_t *strides, int64_t size0, int64_t size1, const int64_t *counter,
                         void *ctx) {
    (void)counter;
    const project_ctx *p = ctx;
    p->ops->project(data, strides, size0, size1, p->ops->ctx);
}

static tensor_status check_args(const tensor_iter_t *iter, const tensor_iter_reduce_ops *ops, const char *func) {
    TENSOR_CHECK_NOT_NULL(iter, func, "iter");
    TENSOR_CHECK_NOT_NULL(ops, func, "ops");
    if (ops->acc_size == 0 || ops->init == NULL || ops->loop == NULL || ops->project == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                            "%s: ops needs acc_size > 0, init, loop and project (%s)", func, iter->name);
    if (iter->num_outputs < 1)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: the iterator has no outputs (%s)", func, iter->name);
    for (int a = 0; a < iter->num_operands; a++)
        if (iter->operands[a].device.type != TENSOR_DEVICE_CPU)
            return tensor_error(TENSOR_ERR_DEVICE, "%s: operand %d is not on the CPU (%s)", func, a, iter->name);
    return TENSOR_OK;
}

/* Accumulator bytes per slab (see run_slabs): a slab's accumulators stay in L1/L2 while its
 * inputs stream through. */
#define REDUCE_SLAB_BYTES (64 * 1024)
/* Accumulator sets up to this size go on the stack (tensor_iter_reduce_run). */
#define REDUCE_STACK_BYTES 1024

/* The projection view over the kept dims: outputs, then accumulators (acc_strides indexed
 * by computation dim, only dims >= r used). */
static void project_view(iter_view *pv, const tensor_iter_t *iter, int r, char *acc_buf, const int64_t *acc_strides) {
    const int nout = iter->num_outputs;
    pv->ndim = iter->ndim - r;
    pv->nops = nout + 1;
    for (int k = 0; k < pv->ndim; k++) pv->shape[k] = iter->shape[r + k];
    for (int a = 0; a < nout; a++) {
        pv->data[a] = iter->operands[a].data;
        memset(pv->strides[a], 0, sizeof pv->strides[a]);
        for (int k = 0; k < pv->ndim; k++) pv->strides[a][k] = iter->operands[a].strides[r + k];
    }
    pv->data[nout] = acc_buf;
    memset(pv->strides[nout], 0, sizeof pv->strides[nout]);
    for (int k = 0; k < pv->ndim; k++) pv->strides[nout][k] = acc_strides[r + k];
}

/* Many outputs, one chunk (short reductions such as [4M, 7] over dim 1): instead of an
 * accumulator per output for the whole run (32 MiB for 4M outputs: page faults, and
 * accumulators that make a round trip through DRAM), the kept index space is cut into
 * slabs of about REDUCE_SLAB_BYTES of accumulators, each reduced and projected in turn
 * in a reused buffer. The cut depends only on the shape; each output is reduced whole in
 * one slab, by the same loop calls on its elements, so the threads only change which slab
 * runs where. */
static tensor_status run_slabs(const tensor_iter_t *iter, const tensor_iter_reduce_ops *ops, const iter_view *base,
                               const reduce_task_ctx *proto, int nthreads) {
    const char *func = "tensor_iter_reduce_run";
    const int r = proto->r, ndim = iter->ndim;
    const int64_t acc = (int64_t)ops->acc_size;
    int64_t target = REDUCE_SLAB_BYTES / acc;
    if (target < 1) target = 1;
    /* The slab dim sd: the first kept dim at which the kept dims so far exceed the target;
     * a slab is `per` indices of sd, the dims below whole, the dims above one index. */
    int sd = ndim - 1;
    int64_t inner = 1;
    for (int d = r; d < ndim; d++) {
        if (inner * iter->shape[d] > target) {
            sd = d;
            break;
        }
        inner *= iter->shape[d];
    }
    int64_t per = target / inner;
    if (per < 1) per = 1;
    if (per > iter->shape[sd]) per = iter->shape[sd];
    const int64_t pieces = (iter->shape[sd] + per - 1) / per;
    int64_t slabs = pieces;
    for (int d = sd + 1; d < ndim; d++) slabs *= iter->shape[d];
    int64_t acc_strides[TENSOR_MAX_DIMS] = {0};
    int64_t running = acc;
    for (int d = r; d < ndim; d++) {
        acc_strides[d] = running;
        running *= d < sd ? iter->shape[d] : d == sd ? per : 1;
    }
    const int64_t slab_bytes = (inner * per * acc + 63) / 64 * 64;
    if (nthreads < 1) nthreads = 1;
    char *bufs = tensor_host_alloc((size_t)(slab_bytes * nthreads));
    if (bufs == NULL)
        return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: cannot allocate %lld bytes of accumulators (%s)", func,
                            (long long)(slab_bytes * nthreads), iter->name);
#if TENSOR_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (nthreads > 1 && slabs > 1)
#endif
    for (int64_t t = 0; t < slabs; t++) {
#if TENSOR_HAVE_OPENMP
        char *buf = bufs + (int64_t)omp_get_thread_num() * slab_bytes;
#else
        char *buf = bufs;
#endif
        iter_view v = *base, pv;
        project_view(&pv, iter, r, buf, acc_strides);
        v.data[0] = buf;
        memcpy(v.strides[0], acc_strides, sizeof acc_strides);
        const int64_t p = t % pieces;
        const int64_t b0 = p * per, n0 = iter->shape[sd] - b0 < per ? iter->shape[sd] - b0 : per;
        tt_iter_view_narrow(&v, sd, b0, n0);
        tt_iter_view_narrow(&pv, sd - r, b0, n0);
        int64_t o = t / pieces;
        for (int d = sd + 1; d < ndim; d++) {
            const int64_t i = o % iter->shape[d];
            o /= iter->shape[d];
            tt_iter_view_narrow(&v, d, i, 1);
            tt_iter_view_narrow(&pv, d - r, i, 1);
        }
        /* the narrowed accumulators start at the buffer: undo the offsets narrow added */
        v.data[0] = buf;
        pv.data[iter->num_outputs] = buf;
        ops->init(buf, inner * n0, ops->ctx);
        view_permute(&v, proto->perm);
        tt_iter_view_run(&v, 0, tt_iter_view_numel(&v), call_reduce_loop, (void *)proto);
        project_ctx pc = {ops};
        tt_iter_view_run(&pv, 0, tt_iter_view_numel(&pv), call_project, &pc);
    }
    tensor_host_free(bufs);
    return TENSOR_OK;
}

/* One task of the accumulator-buffer driver below: chunk c of group g, into chunk c's
 * accumulators. */
typedef struct {
    const tensor_iter_t *iter;
    const iter_view *base;
    const reduce_task_ctx *proto;
    char *buf;
    int64_t chunk_bytes; /* accumulator bytes of one chunk */
    int64_t chunks;
    int chunk_dim;
    int64_t groups;
    int group_dim;
} reduce_tasks;

static void run_reduce_task(const reduce_tasks *rt, int64_t t) {
    const tensor_iter_t *iter = rt->iter;
    int64_t g = t / rt->chunks, c = t % rt->chunks; /* group by group, its chunks in order */
    iter_view v = *rt->base;
    reduce_task_ctx tc = *rt->proto;
    v.data[0] = rt->buf + c * rt->chunk_bytes;
    if (rt->chunks > 1) {
        int64_t b0 = iter_part_begin(iter->shape[rt->chunk_dim], rt->chunks, c);
        int64_t b1 = iter_part_begin(iter->shape[rt->chunk_dim], rt->chunks, c + 1);
        tt_iter_view_narrow(&v, rt->chunk_dim, b0, b1 - b0);
        tc.start[rt->chunk_dim] += b0;
    }
    if (rt->groups > 1) {
        int64_t b0 = iter_part_begin(iter->shape[rt->group_dim], rt->groups, g);
        int64_t b1 = iter_part_begin(iter->shape[rt->group_dim], rt->groups, g + 1);
        tt_iter_view_narrow(&v, rt->group_dim, b0, b1 - b0);
    }
    view_permute(&v, tc.perm);
    tt_iter_view_run(&v, 0, tt_iter_view_numel(&v), call_reduce_loop, &tc);
}

/* Part p of `parts` of the outputs: chunk 0's accumulators absorb chunks 1, 2, ... in order. */
static void fold_chunks(const tensor_iter_reduce_ops *ops, char *buf, int64_t nouts, int64_t chunks, int64_t parts,
                        int64_t p) {
    const int64_t acc = (int64_t)ops->acc_size;
    int64_t lo = iter_part_begin(nouts, parts, p), hi = iter_part_begin(nouts, parts, p + 1);
    for (int64_t c = 1; c < chunks && hi > lo; c++)
        ops->combine(buf + lo * acc, buf + (c * nouts + lo) * acc, hi - lo, ops->ctx);
}

tensor_status tensor_iter_reduce_run(const tensor_iter_t *iter, const tensor_iter_reduce_ops *ops) {
    const char *func = "tensor_iter_reduce_run";
    if (check_args(iter, ops, func) != TENSOR_OK) return tensor_last_status();
    const int r = tensor_iter_num_reduce_dims(iter), ndim = iter->ndim, nout = iter->num_outputs;
    const int nin = iter->num_operands - nout;
    const int64_t acc = (int64_t)ops->acc_size;
    int64_t nouts = 1;
    for (int d = r; d < ndim; d++) nouts *= iter->shape[d];
    if (nouts == 0) return TENSOR_OK;
    int chunk_dim = 0;
    int64_t chunks = tensor_iter_reduce_num_chunks(iter, &chunk_dim);
    if (chunks > 1 && ops->combine == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: %lld chunks need ops->combine (%s)", func,
                            (long long)chunks, iter->name);

    /* The loop's view: accumulators first, then the inputs. */
    iter_view base;
    base.ndim = ndim;
    base.nops = 1 + nin;
    for (int d = 0; d < ndim; d++) base.shape[d] = iter->shape[d];
    for (int i = 0; i < nin; i++) {
        base.data[1 + i] = iter->operands[nout + i].data;
        memcpy(base.strides[1 + i], iter->operands[nout + i].strides, sizeof(int64_t) * TENSOR_MAX_DIMS);
    }
    reduce_task_ctx proto;
    memset(&proto, 0, sizeof proto);
    proto.ops = ops;
    proto.r = r;
    block_order(iter, r, proto.perm);
    int64_t scale = 1;
    for (int d = 0; d < r; d++) {
        proto.scale[d] = scale;
        proto.start[d] = iter->view_offsets[d];
        scale *= iter->base_shape[d];
    }
    int nthreads = tt_iter_in_parallel() ? 1 : tensor_get_num_threads();
    int64_t numel = tensor_iter_numel(iter);
    if (chunks == 1 && nouts > REDUCE_SLAB_BYTES / acc && r < ndim)
        return run_slabs(iter, ops, &base, &proto, numel >= TENSOR_ITER_GRAIN_SIZE ? nthreads : 1);

    /* Accumulators: one buffer of nouts per chunk, dense over the kept dims. */
    int64_t buf_elems, buf_bytes;
    if (__builtin_mul_overflow(chunks, nouts, &buf_elems) || __builtin_mul_overflow(buf_elems, acc, &buf_bytes))
        return tensor_error(TENSOR_ERR_OVERFLOW, "%s: the accumulator buffer size overflows (%s)", func, iter->name);
    /* Small accumulator sets (a tiny reduction's) live on the stack: aligned_alloc + free were
     * a tenth of a tiny sum's instructions. */
    _Alignas(64) char small_buf[REDUCE_STACK_BYTES];
    char *buf = buf_bytes <= REDUCE_STACK_BYTES ? small_buf : tensor_host_alloc((size_t)buf_bytes);
    if (buf == NULL)
        return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: cannot allocate %lld bytes of accumulators (%s)", func,
                            (long long)buf_bytes, iter->name);
    ops->init(buf, buf_elems, ops->ctx);
    int64_t acc_strides[TENSOR_MAX_DIMS] = {0};
    int64_t running = acc;
    for (int d = r; d < ndim; d++) {
        acc_strides[d] = running;
        running *= iter->shape[d];
    }
    base.data[0] = buf;
    memcpy(base.strides[0], acc_strides, sizeof acc_strides);

    /* Output groups spread work over threads, and keep long rows in order; the chunks fix
     * the arithmetic. */
    int64_t groups = 1;
    int group_dim = -1;
    const int64_t *ist = iter->operands[nout].strides;
    if (chunks > 1 && chunk_dim == 0 && proto.perm[1] >= r &&
        abs64(ist[proto.perm[1]]) >= iter->shape[0] * abs64(ist[0])) {
        /* Long rows cut into chunks along dim 0, rows (block dim 1) apart by at least a
         * row's length (e.g. [32, 2M] over dim 1): a task per row and chunk, taken row by
         * row, so memory is read in order instead of a chunk of each row in turn. */
        group_dim = proto.perm[1];
        groups = iter->shape[group_dim] < 4096 ? iter->shape[group_dim] : 4096;
    } else if (nthreads > 1 && numel >= TENSOR_ITER_GRAIN_SIZE && chunks < nthreads) {
        int64_t want = (nthreads + chunks - 1) / chunks;
        group_dim = tt_iter_find_split_dim(iter->shape, r, ndim, want);
        if (group_dim >= 0) groups = iter->shape[group_dim] < want ? iter->shape[group_dim] : want;
        if (groups < 1) groups = 1;
    }
    int64_t tasks = chunks * groups;
    const reduce_tasks rt = {iter, &base, &proto, buf, nouts * acc, chunks, chunk_dim, groups, group_dim};
    if (nthreads > 1 && tasks > 1) {
#if TENSOR_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
#endif
        for (int64_t t = 0; t < tasks; t++) run_reduce_task(&rt, t);
    } else {
        /* Not through the OpenMP runtime: entering a parallel region of one thread was a
         * fifth of a tiny reduction's instructions. */
        for (int64_t t = 0; t < tasks; t++) run_reduce_task(&rt, t);
    }

    /* Fold the chunks left to right: element k of chunk 0 absorbs chunk 1, 2, ... */
    if (chunks > 1) {
        int64_t parts = nthreads > 1 && nouts >= 64 ? (nouts < nthreads ? nouts : nthreads) : 1;
        if (parts > 1) {
#if TENSOR_HAVE_OPENMP
#pragma omp parallel for schedule(static) num_threads(nthreads)
#endif
            for (int64_t p = 0; p < parts; p++) fold_chunks(ops, buf, nouts, chunks, parts, p);
        } else {
            fold_chunks(ops, buf, nouts, chunks, 1, 0); /* not through a 1-thread OpenMP region */
        }
    }

    /* Project over the kept dims: outputs, then the (folded) accumulators. */
    iter_view pv;
    project_view(&pv, iter, r, buf, acc_strides);
    project_ctx pc = {ops};
    tt_iter_view_run_parallel(&pv, TENSOR_ITER_GRAIN_SIZE, call_project, &pc);
    if (buf != small_buf) tensor_host_free(buf);
    return TENSOR_OK;
}
