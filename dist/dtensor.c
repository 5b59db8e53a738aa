/* Sharded and replicated tensors: creation (a checked collective), lifetime, accessors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist_internal.h"
#include "runtime/alloc.h"
#include "runtime/error.h"
#include "runtime/tensor_impl.h"

tensor_dtensor_t *tt_dtensor_make(tensor_comm_t *comm, tensor_t **locals, int dim, int ndim, const int64_t *sizes,
                                  const int64_t *offsets, const int64_t *lengths, const char *func) {
    tensor_dtensor_t *x = tt_calloc(1, sizeof *x);
    if (x != NULL) x->locals = tt_calloc((size_t)comm->nlocal, sizeof *x->locals);
    if (x != NULL && dim >= 0) {
        x->offsets = tt_malloc((size_t)comm->nranks * sizeof *x->offsets);
        x->lengths = tt_malloc((size_t)comm->nranks * sizeof *x->lengths);
    }
    if (x == NULL || x->locals == NULL || (dim >= 0 && (x->offsets == NULL || x->lengths == NULL))) {
        if (x != NULL) {
            free(x->locals);
            free(x->offsets);
            free(x->lengths);
            free(x);
        }
        for (int i = 0; i < comm->nlocal; i++) tensor_release(locals[i]);
        return tensor_error_null(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory for a dtensor", func);
    }
    atomic_init(&x->refs, 1);
    x->comm = tensor_comm_retain(comm);
    memcpy(x->locals, locals, (size_t)comm->nlocal * sizeof *locals);
    x->dim = dim;
    x->ndim = ndim;
    for (int d = 0; d < ndim; d++) x->sizes[d] = sizes[d];
    if (dim >= 0) {
        memcpy(x->offsets, offsets, (size_t)comm->nranks * sizeof *offsets);
        memcpy(x->lengths, lengths, (size_t)comm->nranks * sizeof *lengths);
    }
    return x;
}

/* ---- the creation collective ----
 * Each rank sends one record of what it was given; every rank checks all records the same way,
 * so all accept or all refuse (a rank that refused alone would leave the others waiting in the
 * next collective). A rank whose own arguments are bad still sends a record, marked bad. */
enum { REC_MAGIC, REC_NDIM, REC_DTYPE, REC_DIM, REC_OFFSET, REC_TABLE, REC_SIZES, REC_LEN = REC_SIZES + TENSOR_MAX_DIMS };
#define MAGIC_SHARDED 0x7464697374536864LL
#define MAGIC_REPLICATED 0x7464697374526570LL
#define MAGIC_BAD 0x74646973742d2d2dLL

#define NO_TABLE 0x6e6f2d7461626c65LL

/* FNV-1a over the offsets table (a different value for "no table"), so ranks given different
 * tables disagree visibly. */
static int64_t table_hash(const int64_t *offsets, int n) {
    uint64_t h = 1469598103934665603ull;
    if (offsets == NULL) return NO_TABLE;
    for (int i = 0; i < n; i++) {
        h ^= (uint64_t)offsets[i];
        h *= 1099511628211ull;
    }
    return (int64_t)(h >> 1);
}

static tensor_status local_checks(const tensor_comm_t *c, tensor_t *const *locals, int i, int *dim, bool sharded,
                                  const char *func) {
    const tensor_t *t = locals[i];
    if (t == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: locals[%d] is NULL", func, i);
    if (!tensor_device_equal(tensor_get_device(t), c->devices[i])) {
        char want[32], got[32];
        return tensor_error(TENSOR_ERR_DEVICE, "%s: locals[%d] is on %s, local rank %d's device is %s", func, i,
                            tensor_device_format(tensor_get_device(t), got, sizeof got), i,
                            tensor_device_format(c->devices[i], want, sizeof want));
    }
    if (!sharded) return TENSOR_OK;
    int nd = tensor_ndim(t);
    if (nd == 0) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: locals[%d] is 0-d: nothing to shard", func, i);
    int d = *dim < 0 ? *dim + nd : *dim;
    if (d < 0 || d >= nd)
        return tensor_error(TENSOR_ERR_INDEX, "%s: argument 'dim' is %d, out of range for a tensor of %d dims", func,
                            *dim, nd);
    *dim = d;
    return TENSOR_OK;
}

static void fill_record(int64_t *rec, const tensor_comm_t *c, const tensor_t *t, int i, int dim, bool sharded,
                        const int64_t *offsets, bool ok) {
    memset(rec, 0, REC_LEN * sizeof *rec);
    rec[REC_MAGIC] = !ok ? MAGIC_BAD : sharded ? MAGIC_SHARDED : MAGIC_REPLICATED;
    if (!ok) return;
    rec[REC_NDIM] = tensor_ndim(t);
    rec[REC_DTYPE] = tensor_get_dtype(t);
    rec[REC_DIM] = sharded ? dim : -1;
    rec[REC_OFFSET] = offsets != NULL ? offsets[c->ranks[i]] : -1;
    rec[REC_TABLE] = sharded ? table_hash(offsets, c->nranks) : 0;
    for (int d = 0; d < tensor_ndim(t); d++) rec[REC_SIZES + d] = tensor_size(t, d);
}

/* Checks the gathered records (nranks x REC_LEN) and fills the tiling. */
static tensor_status check_records(const int64_t *recs, int nranks, bool sharded, int64_t *offsets, int64_t *lengths,
                                   const char *func) {
    const int64_t *r0 = recs;
    for (int r = 0; r < nranks; r++) {
        const int64_t *rec = recs + (size_t)r * REC_LEN;
        if (rec[REC_MAGIC] == MAGIC_BAD)
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: rank %d's arguments are invalid (see its error)", func,
                                r);
        if (rec[REC_MAGIC] != r0[REC_MAGIC])
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                "%s: rank %d made a %s dtensor, rank 0 a %s one: every rank must make the same kind",
                                func, r, rec[REC_MAGIC] == MAGIC_SHARDED ? "sharded" : "replicated",
                                r0[REC_MAGIC] == MAGIC_SHARDED ? "sharded" : "replicated");
        if (rec[REC_DTYPE] != r0[REC_DTYPE])
            return tensor_error(TENSOR_ERR_DTYPE, "%s: rank %d's shard is %s, rank 0's %s", func, r,
                                tensor_dtype_name((tensor_dtype)rec[REC_DTYPE]),
                                tensor_dtype_name((tensor_dtype)r0[REC_DTYPE]));
        if (rec[REC_NDIM] != r0[REC_NDIM] || rec[REC_DIM] != r0[REC_DIM])
            return tensor_error(TENSOR_ERR_SHAPE, "%s: rank %d has %lld dims sharded on dim %lld, rank 0 %lld on %lld",
                                func, r, (long long)rec[REC_NDIM], (long long)rec[REC_DIM], (long long)r0[REC_NDIM],
                                (long long)r0[REC_DIM]);
        if (rec[REC_TABLE] != r0[REC_TABLE])
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: rank %d was given other offsets than rank 0", func, r);
        for (int d = 0; d < (int)r0[REC_NDIM]; d++)
            if (d != (int)r0[REC_DIM] && rec[REC_SIZES + d] != r0[REC_SIZES + d])
                return tensor_error(TENSOR_ERR_SHAPE, "%s: rank %d's shard has size %lld on dim %d, rank 0's %lld",
                                    func, r, (long long)rec[REC_SIZES + d], d, (long long)r0[REC_SIZES + d]);
    }
    if (!sharded) return TENSOR_OK;
    int dim = (int)r0[REC_DIM];
    int64_t next = 0;
    for (int r = 0; r < nranks; r++) {
        const int64_t *rec = recs + (size_t)r * REC_LEN;
        lengths[r] = rec[REC_SIZES + dim];
        /* Every rank holds the same table (checked above), so every rank sees this entry. */
        if (r0[REC_TABLE] != NO_TABLE && rec[REC_OFFSET] < 0)
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: offsets[%d] is %lld, expected at least 0", func, r,
                                (long long)rec[REC_OFFSET]);
        if (lengths[r] < 1)
            return tensor_error(TENSOR_ERR_SHAPE, "%s: rank %d's slice of dim %d is empty: every rank needs at least one",
                                func, r, dim);
        offsets[r] = rec[REC_OFFSET] < 0 ? next : rec[REC_OFFSET];
        /* Expanded shards cost no memory: their lengths may add up past int64. */
        if (__builtin_add_overflow(next, lengths[r], &next))
            return tensor_error(TENSOR_ERR_OVERFLOW, "%s: the slices' lengths along dim %d overflow int64 at rank %d",
                                func, dim, r);
    }
    /* The logical tensor must be a shape the library can hold (its element count fits int64). */
    int64_t logical[TENSOR_MAX_DIMS];
    for (int d = 0; d < (int)r0[REC_NDIM]; d++) logical[d] = d == dim ? next : r0[REC_SIZES + d];
    if (tensor_check_shape((int)r0[REC_NDIM], logical, NULL, func) != TENSOR_OK) return tensor_last_status();
    /* Tiling: walk from 0, each step finding the slice that starts where the last one ended.
     * nranks is small; quadratic is fine. */
    int64_t at = 0;
    for (int step = 0; step < nranks; step++) {
        int found = -1;
        for (int r = 0; r < nranks && found < 0; r++)
            if (offsets[r] == at) found = r;
        if (found < 0)
            return tensor_error(TENSOR_ERR_SHAPE, "%s: no rank's slice starts at %lld of dim %d: the slices must tile it",
                                func, (long long)at, dim);
        at += lengths[found];
    }
    /* at grows by at least one a step, so the nranks steps used nranks distinct slices: a tiling. */
    return TENSOR_OK;
}

static tensor_status create(tensor_comm_t *comm, tensor_t *const *locals, int dim, const int64_t *offsets,
                            bool sharded, tensor_dtensor_t **out, const char *func) {
    TENSOR_CHECK_NOT_NULL(out, func, "out");
    *out = NULL;
    if (tt_comm_check(comm, func) != TENSOR_OK) return tensor_last_status();
    TENSOR_CHECK_NOT_NULL(locals, func, "locals");
    const int n = comm->nlocal, nranks = comm->nranks;
    /* A bad argument on this rank still takes part in the exchange (marked bad). */
    tensor_status mine = TENSOR_OK;
    char mine_msg[512] = "";
    int dims[TT_DIST_MAX_LOCAL];
    for (int i = 0; i < n; i++) {
        dims[i] = dim;
        if (mine == TENSOR_OK && local_checks(comm, locals, i, &dims[i], sharded, func) != TENSOR_OK) {
            mine = tensor_last_status();
            snprintf(mine_msg, sizeof mine_msg, "%s", tensor_last_error());
        }
    }
    tensor_t *recs[TT_DIST_MAX_LOCAL] = {NULL}, *gathered[TT_DIST_MAX_LOCAL] = {NULL};
    int64_t rec[REC_LEN], one = REC_LEN;
    tensor_status st = TENSOR_OK;
    for (int i = 0; i < n && st == TENSOR_OK; i++) {
        fill_record(rec, comm, locals[i], i, dims[i], sharded, offsets, mine == TENSOR_OK);
        recs[i] = tensor_from_buffer(rec, 1, &one, TENSOR_INT64, comm->devices[i]);
        if (recs[i] == NULL) st = tt_dist_rethrow(func);
    }
    if (st == TENSOR_OK) st = tt_dist_gather_partials(comm, recs, gathered, func);
    int64_t *all = NULL, *offs = NULL, *lens = NULL;
    if (st == TENSOR_OK) {
        all = tt_malloc((size_t)nranks * REC_LEN * sizeof *all);
        offs = tt_malloc((size_t)nranks * sizeof *offs);
        lens = tt_malloc((size_t)nranks * sizeof *lens);
        if (all == NULL || offs == NULL || lens == NULL)
            st = tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    }
    /* Every local rank received the same bytes: local rank 0's copy decides. */
    if (st == TENSOR_OK && tensor_to_buffer(gathered[0], all, (size_t)nranks * REC_LEN * sizeof *all) != TENSOR_OK)
        st = tt_dist_rethrow(func);
    if (st == TENSOR_OK && mine != TENSOR_OK) st = tensor_error(mine, "%s", mine_msg);
    if (st == TENSOR_OK) st = check_records(all, nranks, sharded, offs, lens, func);
    for (int i = 0; i < n; i++) {
        tensor_release(recs[i]);
        tensor_release(gathered[i]);
    }
    if (st == TENSOR_OK) {
        int64_t sizes[TENSOR_MAX_DIMS];
        int nd = (int)all[REC_NDIM];
        for (int d = 0; d < nd; d++) sizes[d] = all[REC_SIZES + d];
        if (sharded) {
            sizes[dims[0]] = 0;
            for (int r = 0; r < nranks; r++) sizes[dims[0]] += lens[r];
        }
        tensor_t *held[TT_DIST_MAX_LOCAL];
        for (int i = 0; i < n; i++) held[i] = tensor_retain(locals[i]);
        *out = tt_dtensor_make(comm, held, sharded ? dims[0] : -1, nd, sizes, offs, lens, func);
        if (*out == NULL) st = tensor_last_status();
    }
    free(all);
    free(offs);
    free(lens);
    return st;
}

tensor_status tensor_dtensor_new(tensor_comm_t *comm, tensor_t *const *locals, int dim, const int64_t *offsets,
                                 tensor_dtensor_t **out) {
    return create(comm, locals, dim, offsets, true, out, "tensor_dtensor_new");
}

tensor_status tensor_dtensor_replicated(tensor_comm_t *comm, tensor_t *const *locals, tensor_dtensor_t **out) {
    return create(comm, locals, 0, NULL, false, out, "tensor_dtensor_replicated");
}

/* ---- lifetime and accessors ---- */

tensor_dtensor_t *tensor_dtensor_retain(tensor_dtensor_t *x) {
    if (x != NULL) atomic_fetch_add_explicit(&x->refs, 1, memory_order_relaxed);
    return x;
}

void tensor_dtensor_release(tensor_dtensor_t *x) {
    if (x == NULL || atomic_fetch_sub_explicit(&x->refs, 1, memory_order_acq_rel) != 1) return;
    for (int i = 0; i < x->comm->nlocal; i++) tensor_release(x->locals[i]);
    tensor_comm_release(x->comm);
    free(x->locals);
    free(x->offsets);
    free(x->lengths);
    free(x);
}

static bool check_x(const tensor_dtensor_t *x, const char *func) {
    if (x != NULL) return true;
    tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'x' is NULL", func);
    return false;
}

tensor_t *tensor_dtensor_local(const tensor_dtensor_t *x, int local) {
    const char *func = "tensor_dtensor_local";
    if (!check_x(x, func)) return NULL;
    if (local < 0 || local >= x->comm->nlocal)
        return tensor_error_null(TENSOR_ERR_INDEX, "%s: local rank %d is outside [0, %d)", func, local, x->comm->nlocal);
    return x->locals[local];
}

tensor_comm_t *tensor_dtensor_comm(const tensor_dtensor_t *x) {
    return check_x(x, "tensor_dtensor_comm") ? x->comm : NULL;
}

int tensor_dtensor_dim(const tensor_dtensor_t *x) { return check_x(x, "tensor_dtensor_dim") ? x->dim : -1; }

int tensor_dtensor_ndim(const tensor_dtensor_t *x) { return check_x(x, "tensor_dtensor_ndim") ? x->ndim : -1; }

const int64_t *tensor_dtensor_sizes(const tensor_dtensor_t *x) {
    return check_x(x, "tensor_dtensor_sizes") ? x->sizes : NULL;
}

static bool check_rank(const tensor_dtensor_t *x, int rank, const char *func) {
    if (!check_x(x, func)) return false;
    if (x->dim < 0) {
        tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: the dtensor is replicated: it has no slices", func);
        return false;
    }
    if (rank < 0 || rank >= x->comm->nranks) {
        tensor_error(TENSOR_ERR_INDEX, "%s: rank %d is outside [0, %d)", func, rank, x->comm->nranks);
        return false;
    }
    return true;
}

int64_t tensor_dtensor_offset(const tensor_dtensor_t *x, int rank) {
    return check_rank(x, rank, "tensor_dtensor_offset") ? x->offsets[rank] : -1;
}

int64_t tensor_dtensor_length(const tensor_dtensor_t *x, int rank) {
    return check_rank(x, rank, "tensor_dtensor_length") ? x->lengths[rank] : -1;
}
