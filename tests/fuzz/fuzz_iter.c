/* libFuzzer target: the iterator build (tensor_iter_config_* + tensor_iter_build, and
 * tensor_iter_reduce_new) from arbitrary operands: views of one shared storage made with the
 * public view functions, and tensor_from_blob views with any sizes, strides (0 included;
 * negative ones must be refused), offsets and dtypes, some far too large to walk; any flags,
 * reduction dims, keepdim, static shapes, misordered or NULL operands.
 *
 * A failed build must report a status and a message (the config's first failing call's own,
 * when one failed) and leak nothing. A successful one is checked against a plain reference:
 *   - its logical shape is the broadcast (or declared) shape, and the computation shape has
 *     as many elements; the permutation is one; reduced dims come first;
 *   - walking it (serially in two ranges, in 32-bit-style pieces, and in parallel) visits
 *     exactly the reference's (output, input...) element tuples, each once, every address
 *     inside its operand's memory; a parallel reduction walk gives each output to one thread;
 *   - tensor_iter_reduce_run counts, for each output, exactly its reduced elements;
 *   - with overlap checks on, it is refused exactly when an output overlaps itself or shares a
 *     byte with an input other than element for element (decided here by listing addresses).
 * Configs simple enough to be valid (undefined outputs, inputs that broadcast and promote) must
 * build, with the promoted common dtype. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>

#include "fuzz_common.h"
#include "iterator/iter_internal.h"

/* The memory every defined operand lives in: views may overlap each other in it. */
#define ARENA_BYTES 8192
static _Alignas(64) unsigned char arena[ARENA_BYTES];

/* Walks stay small: a fuzz input should run in well under a millisecond. */
#define WALK_LIMIT 2048
#define MAXOPS TENSOR_ITER_MAX_OPERANDS

static const unsigned known_flags[9] = {
    TENSOR_ITER_REDUCTION,    TENSOR_ITER_PROMOTE_INPUTS, TENSOR_ITER_PROMOTE_INT_TO_FLOAT,
    TENSOR_ITER_CAST_TO_OUTPUTS, TENSOR_ITER_SAME_DEVICE,  TENSOR_ITER_SAME_DTYPE,
    TENSOR_ITER_CHECK_OVERLAP, TENSOR_ITER_LINEAR,         TENSOR_ITER_ALLOW_CPU_SCALARS};

typedef struct operand {
    tensor_t *t;   /* NULL: an undefined output */
    bool huge;     /* reaches beyond the arena (never walked) */
    bool declared; /* output added with add_output_dtype */
    tensor_dtype ddt;
} operand;

static bool ok_status(tensor_status st) {
    return st == TENSOR_ERR_SHAPE || st == TENSOR_ERR_INDEX || st == TENSOR_ERR_DTYPE || st == TENSOR_ERR_DEVICE ||
           st == TENSOR_ERR_INVALID_ARGUMENT || st == TENSOR_ERR_OUT_OF_MEMORY || st == TENSOR_ERR_OVERFLOW;
}

/* ---- operands ---- */

static void draw_sizes(fz_reader *r, int nd, int64_t *sizes) {
    for (int d = 0; d < nd; d++) {
        const unsigned b = fz_byte(r);
        sizes[d] = b % 8 == 0 ? 0 : 1 + (int64_t)((b >> 3) % 4);
    }
}

/* A tensor_from_blob view into the arena with drawn strides and offset; now and then a huge
 * size (broadcast, stride 0) or a huge stride (build only), or a negative stride that must be
 * refused. */
static tensor_t *make_blob(fz_reader *r, tensor_dtype dt, bool *huge) {
    const unsigned c = fz_byte(r);
    int nd = (int)(c % 5);
    if (c % 64 == 63) nd = 5 + (int)((c >> 6) % 2);
    int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
    draw_sizes(r, nd, sizes);
    for (int d = 0; d < nd; d++) strides[d] = fz_byte(r) % 10;
    const int64_t offset = 8 * (int64_t)fz_below(r, 64);
    *huge = false;
    const unsigned h = fz_byte(r);
    if (nd > 0 && h % 16 == 0) {
        static const int64_t big[4] = {(INT64_C(1) << 31) + 1, INT64_C(1) << 40, INT64_C(1) << 61, INT64_MAX / 3};
        const int d = (int)((h >> 4) % (unsigned)nd);
        if (h & 0x40) {
            sizes[d] = big[(h >> 7) & 1 ? 1 : 0] + (h & 1);
            strides[d] = 0;
        } else {
            sizes[d] = 2;
            strides[d] = big[2 + ((h >> 7) & 1)] / (int64_t)fz_size(dt);
        }
        *huge = true;
    }
    if (nd > 0 && h % 16 == 1) {
        /* negative strides are not supported: refused with a message, then drawn again */
        strides[0] = -1 - strides[0];
        tensor_clear_error();
        if (tensor_from_blob(arena + offset, nd, sizes, strides, dt, tensor_cpu(), NULL, NULL) != NULL)
            fz_fail("tensor_from_blob accepted a negative stride");
        if (tensor_last_status() != TENSOR_ERR_INVALID_ARGUMENT) fz_fail("negative stride: wrong status");
        fz_check_error_reported("tensor_from_blob");
        strides[0] = -1 - strides[0];
    }
    tensor_t *t = tensor_from_blob(arena + offset, nd, sizes, strides, dt, tensor_cpu(), NULL, NULL);
    if (t == NULL) {
        if (!*huge) fz_fail("tensor_from_blob refused a small view");
        fz_check_error_reported("tensor_from_blob");
    }
    return t;
}

/* A view of `base` (1-D over the whole arena) through the public view functions; a step that
 * fails must say why, and the view before it is kept. */
static tensor_t *make_view(fz_reader *r, const tensor_t *base) {
    int nd = 1 + (int)fz_below(r, 4);
    int64_t sizes[TENSOR_MAX_DIMS];
    draw_sizes(r, nd, sizes);
    const int64_t len = fz_numel(nd, sizes);
    tensor_t *v = tensor_narrow(base, 0, (int64_t)fz_below(r, 64), len);
    if (v == NULL) fz_fail("tensor_narrow of the arena failed");
    tensor_t *w = tensor_view(v, nd, sizes);
    if (w == NULL) fz_fail("tensor_view of a contiguous block failed");
    tensor_release(v);
    v = w;
    const int steps = (int)fz_below(r, 5);
    for (int s = 0; s < steps; s++) {
        const int n = tensor_ndim(v);
        const unsigned op = fz_byte(r), a = fz_byte(r), b = fz_byte(r);
        /* dims may be out of range on purpose: the call must then fail cleanly */
        const int da = (int)(a % 8) - 3, db = (int)(b % 8) - 3;
        tensor_t *nv = NULL;
        switch (op % 8) {
        case 0: nv = tensor_transpose(v, da, db); break;
        case 1: nv = tensor_slice(v, da, (int64_t)(b % 5) - 2, (int64_t)(op >> 3) % 6, 1 + (int64_t)(b >> 5) % 3); break;
        case 2: {
            /* size-1 dims (and new leading dims) take drawn sizes */
            int64_t es[TENSOR_MAX_DIMS];
            const int lead = (int)(a % 2);
            if (n + lead > TENSOR_MAX_DIMS) break;
            for (int d = 0; d < n + lead; d++) es[d] = d < lead || tensor_size(v, d - lead) == 1 ? (int64_t)(b >> d) % 4 : -1;
            nv = tensor_expand(v, n + lead, es);
            break;
        }
        case 3: nv = tensor_unsqueeze(v, da); break;
        case 4: nv = tensor_select(v, da, (int64_t)(b % 4) - 1); break;
        case 5: nv = tensor_squeeze_dim(v, da); break;
        case 6: {
            int perm[TENSOR_MAX_DIMS];
            for (int d = 0; d < n; d++) perm[d] = d;
            for (int d = n - 1; d > 0; d--) {
                const int k = (int)((a + (unsigned)d * b) % (unsigned)(d + 1)), t = perm[d];
                perm[d] = perm[k];
                perm[k] = t;
            }
            nv = tensor_permute(v, perm);
            break;
        }
        default: nv = tensor_narrow(v, da, (int64_t)(b % 3), (int64_t)(op >> 3) % 3); break;
        }
        if (nv == NULL) {
            fz_check_error_reported("a view function");
            continue;
        }
        tensor_release(v);
        v = nv;
    }
    return v;
}

/* ---- the reference walk ---- */

typedef struct record {
    int n; /* values per tuple */
    int64_t count, cap;
    int64_t *tuples;
} record;

static void record_push(record *rec, const int64_t *tuple) {
    if (rec->count == rec->cap) {
        rec->cap = rec->cap ? 2 * rec->cap : 256;
        rec->tuples = realloc(rec->tuples, sizeof(int64_t) * (size_t)(rec->cap * rec->n));
        if (rec->tuples == NULL) abort();
    }
    memcpy(rec->tuples + rec->count * rec->n, tuple, sizeof(int64_t) * (size_t)rec->n);
    rec->count++;
}

static int tuple_n;
static int cmp_tuple(const void *a, const void *b) {
    const int64_t *x = a, *y = b;
    for (int i = 0; i < tuple_n; i++)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}
static void record_sort(record *rec) {
    tuple_n = rec->n;
    if (rec->count > 1) qsort(rec->tuples, (size_t)rec->count, sizeof(int64_t) * (size_t)rec->n, cmp_tuple);
}
static bool record_equal(record *a, record *b) {
    record_sort(a);
    record_sort(b);
    return a->count == b->count &&
           (a->count == 0 || memcmp(a->tuples, b->tuples, sizeof(int64_t) * (size_t)(a->count * a->n)) == 0);
}

/* What a walk records: each operand's byte offset from its base, bounds checked. */
typedef struct walk_ctx {
    int nops;
    char *base[MAXOPS];
    int64_t limit[MAXOPS]; /* largest valid offset of an element start */
    int64_t es[MAXOPS];
    record rec;
    pthread_mutex_t lock;
    /* parallel reductions: which thread first wrote each output-0 offset */
    bool track_threads;
    record owners; /* (output-0 offset, thread) pairs */
} walk_ctx;

static atomic_int next_thread_id;
static _Thread_local int thread_id = -1;

static void walk_loop(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *vctx) {
    walk_ctx *w = vctx;
    int64_t tuple[MAXOPS];
    if (thread_id < 0) thread_id = atomic_fetch_add(&next_thread_id, 1);
    pthread_mutex_lock(&w->lock);
    for (int64_t j = 0; j < size1; j++)
        for (int64_t i = 0; i < size0; i++) {
            for (int a = 0; a < w->nops; a++) {
                const int64_t off = (data[a] - w->base[a]) + i * strides[a] + j * strides[w->nops + a];
                if (off < 0 || off > w->limit[a] || off % w->es[a] != 0)
                    fz_fail("operand %d: byte offset %lld is outside its memory [0, %lld]", a, (long long)off,
                            (long long)w->limit[a]);
                tuple[a] = off;
            }
            record_push(&w->rec, tuple);
            if (w->track_threads) {
                const int64_t owner[2] = {tuple[0], thread_id};
                record_push(&w->owners, owner);
            }
        }
    pthread_mutex_unlock(&w->lock);
}

/* Byte offset of logical index idx (over the nshape-dim shape) in operand tensor t, whose
 * geometry is either broadcast against the shape (same or lower rank) or, for a reduction
 * output without keepdim, the shape without the masked dims. */
static int64_t ref_offset(const tensor_t *t, int nshape, const int64_t *idx, const bool *mask, int64_t start) {
    const int n = tensor_ndim(t);
    const int64_t *sz = tensor_sizes(t), *st = tensor_strides(t);
    const int64_t es = (int64_t)tensor_dtype_size(tensor_get_dtype(t));
    int64_t off = 0;
    if (n <= nshape && (mask == NULL || n == nshape)) {
        off = fz_bcast_offset(nshape, idx, n, sz, st);
    } else {
        for (int d = 0, k = 0; d < nshape; d++)
            if (!mask[d]) {
                off += idx[d] * st[k];
                k++;
            }
    }
    return start + off * es;
}

/* tensor_iter_reduce_run counting: each output's accumulator counts its reduced elements. */
typedef struct count_ctx {
    int ninputs;
    int noutputs;
    tensor_dtype out_dtype;
} count_ctx;

static void count_init(void *acc, int64_t n, void *vctx) {
    (void)vctx;
    memset(acc, 0, (size_t)n * sizeof(int64_t));
}
static void count_loop(char **data, const int64_t *strides, int64_t size0, int64_t size1,
                       const tensor_iter_reduce_pos *pos, void *vctx) {
    const count_ctx *c = vctx;
    (void)pos;
    const int nt = 1 + c->ninputs;
    for (int64_t j = 0; j < size1; j++)
        for (int64_t i = 0; i < size0; i++) (*(int64_t *)(data[0] + i * strides[0] + j * strides[nt]))++;
}
static void count_combine(void *acc, const void *later, int64_t n, void *vctx) {
    (void)vctx;
    for (int64_t k = 0; k < n; k++) ((int64_t *)acc)[k] += ((const int64_t *)later)[k];
}
static void count_project(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *vctx) {
    const count_ctx *c = vctx;
    const int nt = c->noutputs + 1;
    for (int64_t j = 0; j < size1; j++)
        for (int64_t i = 0; i < size0; i++) {
            const int64_t v = *(const int64_t *)(data[c->noutputs] + i * strides[c->noutputs] + j * strides[nt + c->noutputs]);
            for (int o = 0; o < c->noutputs; o++)
                tensor_dtype_store_double(c->out_dtype, data[o] + i * strides[o] + j * strides[nt + o], (double)v);
        }
}

/* ---- overlap, decided by listing addresses ---- */

/* The byte offset from the arena of every element of t (in index order). */
static int64_t *element_offsets(const tensor_t *t, int64_t *n) {
    const int nd = tensor_ndim(t);
    const int64_t *sz = tensor_sizes(t), *st = tensor_strides(t);
    const int64_t es = (int64_t)tensor_dtype_size(tensor_get_dtype(t));
    *n = tensor_numel(t);
    int64_t *offs = malloc(sizeof(int64_t) * (size_t)(*n > 0 ? *n : 1));
    if (offs == NULL) abort();
    int64_t idx[TENSOR_MAX_DIMS] = {0};
    const int64_t start = (const char *)tensor_data(t) - (const char *)arena;
    for (int64_t e = 0; e < *n; e++) {
        int64_t off = 0;
        for (int d = 0; d < nd; d++) off += idx[d] * st[d];
        offs[e] = start + off * es;
        fz_next_index(nd, sz, idx);
    }
    return offs;
}

static int cmp_i64(const void *a, const void *b) {
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Whether output o has two elements at one address, or shares a byte with input in other
 * than element for element (same storage only: the library sees views of one storage). */
static bool overlaps(const tensor_t *o, const tensor_t *const *ins, int nin) {
    int64_t no;
    int64_t *oo = element_offsets(o, &no);
    bool hit = false;
    if (no > 0) {
        int64_t *sorted = malloc(sizeof(int64_t) * (size_t)no);
        if (sorted == NULL) abort();
        memcpy(sorted, oo, sizeof(int64_t) * (size_t)no);
        qsort(sorted, (size_t)no, sizeof(int64_t), cmp_i64);
        for (int64_t k = 1; k < no && !hit; k++) hit = sorted[k] == sorted[k - 1];
        const int64_t eso = (int64_t)tensor_dtype_size(tensor_get_dtype(o));
        for (int j = 0; j < nin && !hit; j++) {
            const tensor_t *in = ins[j];
            if (in == NULL || !tensor_shares_storage(o, in) || tensor_numel(in) == 0) continue;
            int64_t ni;
            int64_t *io = element_offsets(in, &ni);
            const int64_t esi = (int64_t)tensor_dtype_size(tensor_get_dtype(in));
            bool same = esi == eso && ni == no && tensor_ndim(in) == tensor_ndim(o);
            for (int d = 0; same && d < tensor_ndim(o); d++) same = tensor_size(in, d) == tensor_size(o, d);
            for (int64_t k = 0; same && k < no; k++) same = io[k] == oo[k];
            if (!same) {
                /* [x, x + esi) meets some [y, y + eso) of the sorted output starts */
                for (int64_t k = 0; k < ni && !hit; k++) {
                    int64_t lo = 0, hi = no;
                    while (lo < hi) {
                        const int64_t mid = lo + (hi - lo) / 2;
                        if (sorted[mid] + eso <= io[k]) lo = mid + 1;
                        else hi = mid;
                    }
                    hit = lo < no && sorted[lo] < io[k] + esi;
                }
            }
            free(io);
        }
        free(sorted);
    }
    free(oo);
    return hit;
}

/* ---- the target ---- */

typedef struct fuzz_case {
    int nout, nin;
    operand ops[MAXOPS]; /* outputs, then inputs */
    unsigned flags;      /* as the config will have them */
    bool has_mask;
    int rdims[TENSOR_MAX_DIMS + 1];
    int nrdims;
    bool keepdim;
    bool has_static;
    int static_nd;
    int64_t static_shape[TENSOR_MAX_DIMS];
    tensor_status first_error; /* the first config call that failed */
    char first_msg[512];
    bool simple; /* a config that must build */
    bool huge;   /* some operand reaches beyond the arena */
} fuzz_case;

static void note_config_call(fuzz_case *fc, tensor_status st) {
    if (st == TENSOR_OK) return;
    fz_check_error_reported("a tensor_iter_config call");
    if (fc->first_error == TENSOR_OK) {
        fc->first_error = st;
        snprintf(fc->first_msg, sizeof fc->first_msg, "%s", tensor_last_error());
    }
}

/* The reference's logical shape, or false when the operands cannot give one. */
static bool reference_shape(const fuzz_case *fc, int *nshape, int64_t *shape) {
    if (fc->has_static) {
        *nshape = fc->static_nd;
        memcpy(shape, fc->static_shape, sizeof(int64_t) * (size_t)fc->static_nd);
        return true;
    }
    const bool reduction = (fc->flags & TENSOR_ITER_REDUCTION) != 0;
    const bool outputs_count = (reduction && !fc->has_mask) || fc->nin == 0;
    bool any = false;
    *nshape = 0;
    for (int a = 0; a < fc->nout + fc->nin; a++) {
        const tensor_t *t = fc->ops[a].t;
        if (t == NULL || (a < fc->nout && !outputs_count)) continue;
        if (!fz_broadcast(*nshape, shape, tensor_ndim(t), tensor_sizes(t), nshape, shape)) return false;
        any = true;
    }
    return any;
}

/* The reduction mask of the reference (dims wrapped against the shape's rank, a 0-d shape
 * counting as rank 1); false for out-of-range or repeated dims. */
static bool reference_mask(const fuzz_case *fc, int nshape, bool *mask) {
    for (int d = 0; d < TENSOR_MAX_DIMS; d++) mask[d] = fc->nrdims == 0 && d < nshape;
    const int n = nshape > 0 ? nshape : 1;
    bool seen[TENSOR_MAX_DIMS] = {false};
    for (int i = 0; i < fc->nrdims; i++) {
        int d = fc->rdims[i];
        if (d < -n || d >= n) return false;
        if (d < 0) d += n;
        if (seen[d]) return false;
        seen[d] = true;
        if (d < nshape) mask[d] = true;
    }
    return true;
}

/* The case, and the plan when there is one, on stderr before a finding aborts. */
static const tensor_iter_t *dump_iter;
static const fuzz_case *dump_case;
static void dump(void) {
    const fuzz_case *fc = dump_case;
    if (fc == NULL) return;
    fprintf(stderr, "flags 0x%x, mask %d (dims", fc->flags, fc->has_mask);
    for (int i = 0; i < fc->nrdims; i++) fprintf(stderr, " %d", fc->rdims[i]);
    fprintf(stderr, "), keepdim %d, static %d\n", fc->keepdim, fc->has_static);
    for (int a = 0; a < fc->nout + fc->nin; a++) {
        const tensor_t *t = fc->ops[a].t;
        fprintf(stderr, "  %s %d: ", a < fc->nout ? "output" : "input", a < fc->nout ? a : a - fc->nout);
        if (t == NULL) {
            fprintf(stderr, "undefined\n");
            continue;
        }
        fprintf(stderr, "%s sizes", tensor_dtype_name(tensor_get_dtype(t)));
        for (int d = 0; d < tensor_ndim(t); d++) fprintf(stderr, " %lld", (long long)tensor_size(t, d));
        fprintf(stderr, " strides");
        for (int d = 0; d < tensor_ndim(t); d++) fprintf(stderr, " %lld", (long long)tensor_stride(t, d));
        fprintf(stderr, " at byte %lld\n", (long long)((const char *)tensor_data(t) - (const char *)arena));
    }
    if (dump_iter != NULL) {
        char text[4096];
        tensor_iter_explain(dump_iter, text, sizeof text);
        fprintf(stderr, "%s", text);
    }
}

static void check_iterator(fuzz_case *fc, tensor_iter_t *it, unsigned char walk_choice, unsigned grain_choice,
                           unsigned limit_choice) {
    const int nops = fc->nout + fc->nin;
    if (tensor_iter_ntensors(it) != nops || tensor_iter_noutputs(it) != fc->nout || tensor_iter_ninputs(it) != fc->nin)
        fz_fail("operand counts differ from the config's");
    /* the shape */
    int nshape = 0;
    int64_t shape[TENSOR_MAX_DIMS];
    if (!reference_shape(fc, &nshape, shape)) fz_fail("built although the reference finds no shape");
    if (it->logical_ndim != nshape) fz_fail("logical rank %d, reference %d", it->logical_ndim, nshape);
    for (int d = 0; d < nshape; d++)
        if (it->logical_shape[d] != shape[d]) fz_fail("logical dim %d is %lld, reference %lld", d, (long long)it->logical_shape[d], (long long)shape[d]);
    int64_t numel = 1, nonzero = 1;
    bool overflow = false;
    for (int d = 0; d < nshape; d++) {
        overflow |= __builtin_mul_overflow(numel, shape[d], &numel);
        if (shape[d] > 0 && __builtin_mul_overflow(nonzero, shape[d], &nonzero))
            fz_fail("built a shape whose non-zero sizes multiply past int64 (dim %d)", d);
    }
    int64_t cnumel = 1;
    for (int d = 0; d < it->ndim; d++)
        if (__builtin_mul_overflow(cnumel, it->shape[d], &cnumel)) fz_fail("the computation shape's count overflows");
    if (!overflow && (tensor_iter_numel(it) != numel || cnumel != numel))
        fz_fail("computation shape has %lld elements, the broadcast shape %lld", (long long)cnumel, (long long)numel);
    int pn;
    const int *perm = tensor_iter_perm(it, &pn);
    bool seen[TENSOR_MAX_DIMS] = {false};
    if (pn != nshape) fz_fail("permutation length");
    for (int i = 0; i < pn; i++) {
        if (perm[i] < 0 || perm[i] >= pn || seen[perm[i]]) fz_fail("not a permutation");
        seen[perm[i]] = true;
    }
    if (it->perm_groups[0] != 0 || it->perm_groups[it->ndim] != nshape) fz_fail("coalesced groups do not cover the dims");
    for (int d = 0; d < it->ndim; d++) {
        if (it->perm_groups[d] >= it->perm_groups[d + 1]) fz_fail("empty coalesced group");
        int64_t p = 1;
        for (int g = it->perm_groups[d]; g < it->perm_groups[d + 1]; g++) p *= shape[perm[g]];
        if (p != it->shape[d]) fz_fail("computation dim %d is not the product of its group", d);
    }
    /* operands */
    for (int a = 0; a < nops; a++) {
        const tensor_iter_operand *o = &it->operands[a];
        if (o->tensor == NULL) fz_fail("operand %d has no tensor", a);
        if (o->dtype != tensor_get_dtype(o->tensor)) fz_fail("operand %d: dtype differs from its tensor's", a);
        if (o->data != (char *)tensor_data(o->tensor)) fz_fail("operand %d: data is not the tensor's", a);
        if (a >= fc->nout && o->tensor != fc->ops[a].t) fz_fail("input %d is not the tensor given", a - fc->nout);
        if (a < fc->nout && fc->ops[a].t != NULL && o->is_allocated) fz_fail("output %d allocated though given", a);
        if (a < fc->nout && fc->ops[a].t == NULL && !o->is_allocated) fz_fail("output %d not allocated", a);
    }
    const bool reduction = it->is_reduction;
    bool mask[TENSOR_MAX_DIMS] = {false};
    const bool masked = reduction && fc->has_mask;
    if (masked && !reference_mask(fc, nshape, mask)) fz_fail("built with invalid reduction dims");
    /* outputs' shapes: the broadcast shape, or for a reduction the keepdim / squeezed shape */
    for (int i = 0; i < fc->nout; i++) {
        const tensor_t *t = it->operands[i].tensor;
        const int n = tensor_ndim(t);
        const int64_t *sz = tensor_sizes(t);
        if (masked) {
            bool keep_ok = n == nshape, sq_ok = true;
            for (int d = 0; keep_ok && d < nshape; d++) keep_ok = sz[d] == (mask[d] ? 1 : shape[d]);
            int k = 0;
            for (int d = 0; d < nshape; d++)
                if (!mask[d]) {
                    sq_ok = sq_ok && k < n && sz[k] == shape[d];
                    k++;
                }
            sq_ok = sq_ok && k == n && !fc->keepdim;
            if (!keep_ok && !sq_ok) fz_fail("output %d has neither the keepdim nor the squeezed shape", i);
            if (it->operands[i].is_allocated && (fc->keepdim ? !keep_ok : (!sq_ok && n != nshape)))
                fz_fail("allocated output %d has the wrong rank for keepdim %d", i, fc->keepdim);
        } else if (!reduction) {
            bool same = n == nshape;
            for (int d = 0; same && d < nshape; d++) same = sz[d] == shape[d];
            if (!same) fz_fail("output %d does not have the broadcast shape", i);
        } else {
            bool fits = n == nshape;
            for (int d = 0; fits && d < nshape; d++) fits = sz[d] == shape[d] || sz[d] == 1;
            if (!fits) fz_fail("reduction output %d has neither the shape's size nor 1 on some dim", i);
        }
    }
    /* reduced dims first, and the output element count */
    if (reduction && fc->nout > 0) {
        const int r = tensor_iter_num_reduce_dims(it);
        for (int d = r; d < it->ndim; d++)
            if (it->operands[0].strides[d] == 0 && it->shape[d] > 1) fz_fail("reduced computation dim %d after kept ones", d);
        const tensor_t *o0 = it->operands[0].tensor;
        bool out_expanded = false;
        for (int d = 0; d < tensor_ndim(o0); d++) out_expanded |= tensor_size(o0, d) > 1 && tensor_stride(o0, d) == 0;
        if (!overflow && numel > 0 && !out_expanded && tensor_iter_num_output_elements(it) != tensor_numel(o0))
            fz_fail("num_output_elements %lld, output 0 has %lld", (long long)tensor_iter_num_output_elements(it),
                    (long long)tensor_numel(o0));
    }
    /* the common dtype of a config that promotes */
    if ((fc->flags & TENSOR_ITER_PROMOTE_INPUTS) && fc->nin > 0) {
        fz_operand_type kinds[MAXOPS];
        for (int j = 0; j < fc->nin; j++) {
            const tensor_t *t = fc->ops[fc->nout + j].t;
            kinds[j].kind = tensor_ndim(t) == 0 ? FZ_ZERO_DIM : FZ_DIMENSIONED;
            kinds[j].dtype = tensor_get_dtype(t);
        }
        bool err = false;
        tensor_dtype want = fz_result_type(kinds, fc->nin, &err);
        if (!err && (fc->flags & TENSOR_ITER_PROMOTE_INT_TO_FLOAT) && !fz_is_float(want)) want = TENSOR_FLOAT32;
        if (err) fz_fail("built although the inputs do not promote");
        if (it->common_dtype != want)
            fz_fail("common dtype %s, reference %s", tensor_dtype_name(it->common_dtype), tensor_dtype_name(want));
    }
    /* queries that must not crash */
    (void)tensor_iter_is_contiguous(it);
    (void)tensor_iter_can_use_32bit_indexing(it);
    (void)tensor_iter_dim_to_split(it);
    (void)tensor_iter_reduce_index_base(it);
    int cdim;
    (void)tensor_iter_reduce_num_chunks(it, &cdim);
    tensor_iter_t *copy = tensor_iter_copy(it);
    if (copy == NULL) fz_fail("tensor_iter_copy failed");
    tensor_iter_free(copy);

    if (fc->huge || overflow || numel > WALK_LIMIT) return;
    for (int a = 0; a < nops; a++)
        if (tensor_numel(it->operands[a].tensor) > WALK_LIMIT) return;

    /* the reference tuples */
    walk_ctx w;
    memset(&w, 0, sizeof w);
    w.nops = nops;
    pthread_mutex_init(&w.lock, NULL);
    record ref = {nops, 0, 0, NULL};
    int64_t start[MAXOPS];
    for (int a = 0; a < nops; a++) {
        const tensor_iter_operand *o = &it->operands[a];
        const tensor_t *t = o->tensor;
        w.es[a] = (int64_t)tensor_dtype_size(o->dtype);
        if (o->is_allocated) {
            int64_t extent = 0;
            for (int d = 0; d < tensor_ndim(t); d++)
                if (tensor_size(t, d) > 0) extent += (tensor_size(t, d) - 1) * tensor_stride(t, d);
            w.base[a] = (char *)tensor_data(t);
            w.limit[a] = tensor_numel(t) > 0 ? extent * w.es[a] : -1;
            if (tensor_numel(t) > 0 && extent + 1 != tensor_numel(t)) fz_fail("allocated output %d is not dense", a);
        } else {
            w.base[a] = (char *)arena;
            w.limit[a] = ARENA_BYTES - w.es[a];
        }
        start[a] = (char *)tensor_data(t) - w.base[a];
    }
    {
        int64_t idx[TENSOR_MAX_DIMS] = {0}, tuple[MAXOPS];
        for (int64_t e = 0; e < numel; e++) {
            for (int a = 0; a < nops; a++)
                tuple[a] = ref_offset(it->operands[a].tensor, nshape, idx, a < fc->nout && masked ? mask : NULL, start[a]);
            record_push(&ref, tuple);
            fz_next_index(nshape, shape, idx);
        }
    }
    /* serial, in two ranges cut anywhere */
    w.rec.n = nops;
    const int64_t cut = numel > 0 ? (int64_t)walk_choice % (numel + 1) : 0;
    if (tensor_iter_serial_for_each(it, walk_loop, &w, 0, cut) != TENSOR_OK ||
        tensor_iter_serial_for_each(it, walk_loop, &w, cut, numel + 3) != TENSOR_OK)
        fz_fail("serial_for_each failed");
    if (!record_equal(&w.rec, &ref)) fz_fail("the serial walk differs from the reference (%lld vs %lld tuples)",
                                             (long long)w.rec.count, (long long)ref.count);
    /* in pieces under a small index limit */
    const int64_t limit = 1 + (int64_t)limit_choice * (int64_t)limit_choice;
    const int64_t npieces = tensor_iter_count_pieces(it, limit);
    if (npieces < 1) fz_fail("count_pieces failed");
    if (npieces <= 256) {
        tensor_iter_splitter *sp = tensor_iter_splitter_new(it, limit);
        if (sp == NULL) fz_fail("splitter_new failed");
        w.rec.count = 0;
        const tensor_iter_t *piece;
        int64_t seen_pieces = 0;
        for (;;) {
            if (tensor_iter_splitter_next(sp, &piece) != TENSOR_OK) fz_fail("splitter_next failed");
            if (piece == NULL) break;
            seen_pieces++;
            if (!tensor_iter_fits_index_limit(piece, limit) && tensor_iter_dim_to_split(piece) >= 0 &&
                tensor_iter_numel(piece) > 0)
                fz_fail("a piece exceeds the limit though it could be split");
            if (tensor_iter_serial_for_each(piece, walk_loop, &w, 0, tensor_iter_numel(piece)) != TENSOR_OK)
                fz_fail("walking a piece failed");
        }
        tensor_iter_splitter_free(sp);
        if (seen_pieces != npieces) fz_fail("count_pieces %lld, splitter gave %lld", (long long)npieces, (long long)seen_pieces);
        if (!record_equal(&w.rec, &ref)) fz_fail("the pieces' walk differs from the reference");
    }
    /* in parallel, with a small grain */
    if (grain_choice % 4 == 1) {
        w.rec.count = 0;
        /* distinct output elements have distinct addresses only when overlap was checked */
        w.track_threads = reduction && fc->nout > 0 &&
                          ((fc->flags & TENSOR_ITER_CHECK_OVERLAP) || it->operands[0].is_allocated);
        w.owners.n = 2;
        if (tensor_iter_for_each(it, walk_loop, &w, 1 + (int64_t)(grain_choice >> 1) % 64) != TENSOR_OK)
            fz_fail("for_each failed");
        if (!record_equal(&w.rec, &ref)) fz_fail("the parallel walk differs from the reference");
        if (w.track_threads) {
            record_sort(&w.owners);
            for (int64_t k = 1; k < w.owners.count; k++) {
                const int64_t *p = w.owners.tuples + 2 * (k - 1), *q = w.owners.tuples + 2 * k;
                if (p[0] == q[0] && p[1] != q[1] && tensor_iter_num_reduce_dims(it) > 0)
                    fz_fail("a parallel reduction walk gave one output element to two threads");
            }
        }
        free(w.owners.tuples);
    }
    /* the reduction driver counts each output's reduced elements */
    if (reduction && fc->nout == 1 && it->operands[0].dtype != TENSOR_BOOL) {
        count_ctx cc = {fc->nin, 1, it->operands[0].dtype};
        const tensor_iter_reduce_ops rops = {sizeof(int64_t), count_init, count_loop, count_combine, count_project, &cc};
        const tensor_t *o0 = it->operands[0].tensor;
        const int64_t nout = tensor_numel(o0), nred = tensor_iter_num_output_elements(it);
        const int64_t per = nred > 0 ? numel / nred : 0;
        /* every output element must be written: start from another value */
        {
            int64_t idx[TENSOR_MAX_DIMS] = {0};
            const int64_t oes = (int64_t)tensor_dtype_size(cc.out_dtype);
            for (int64_t e = 0; e < nout; e++) {
                int64_t off = 0;
                for (int d = 0; d < tensor_ndim(o0); d++) off += idx[d] * tensor_stride(o0, d);
                tensor_dtype_store_double(cc.out_dtype, (char *)tensor_data(o0) + off * oes, (double)(per + 3));
                fz_next_index(tensor_ndim(o0), tensor_sizes(o0), idx);
            }
        }
        if (tensor_iter_reduce_run(it, &rops) != TENSOR_OK) fz_fail("reduce_run failed");
        unsigned char want[8];
        tensor_dtype_store_double(cc.out_dtype, want, (double)per);
        const double wv = tensor_dtype_load_double(cc.out_dtype, want);
        unsigned char *raw = malloc((size_t)(nout > 0 ? nout : 1) * 8);
        if (raw == NULL) abort();
        if (tensor_to_buffer(o0, raw, (size_t)nout * tensor_dtype_size(cc.out_dtype)) != TENSOR_OK) fz_fail("to_buffer");
        for (int64_t e = 0; e < nout; e++) {
            const double v = tensor_dtype_load_double(cc.out_dtype, raw + (size_t)e * tensor_dtype_size(cc.out_dtype));
            if (!(v == wv || (v != v && wv != wv)))
                fz_fail("reduce_run: output element %lld counted %g elements, expected %g", (long long)e, v, wv);
        }
        free(raw);
    }
    free(ref.tuples);
    free(w.rec.tuples);
    pthread_mutex_destroy(&w.lock);
}

/* The parallel walks use OpenMP: its idle workers must sleep, not spin on a shared machine. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    setenv("OMP_WAIT_POLICY", "passive", 0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader r = {data, size};
    fuzz_case fc;
    memset(&fc, 0, sizeof fc);
    fz_dump = dump;
    memset(arena, 0, sizeof arena); /* no state from earlier inputs */
    dump_case = &fc;
    dump_iter = NULL;
    const unsigned head = fz_byte(&r);
    const bool reduction = head & 1;
    const unsigned variant = (head >> 1) % 4; /* reductions: 0-1 dims given, 2 pre-viewed, 3 reduce_new */
    const bool one_dtype = (head >> 3) & 1;
    const tensor_dtype common_dt = fz_dtypes[fz_below(&r, FZ_NUM_DTYPES)];
    fc.nout = reduction ? 1 + (int)fz_below(&r, 2) : (int)fz_below(&r, 8) == 0 ? 0 : 1 + (int)(fz_byte(&r) % 8 == 0);
    fc.nin = (int)fz_below(&r, 4);
    if (reduction && variant == 3) fc.nout = fc.nin = 1;
    if (fc.nout + fc.nin > MAXOPS) fc.nin = MAXOPS - fc.nout;

    /* the shared storage that views come from */
    const tensor_dtype view_dt = one_dtype ? common_dt : fz_dtypes[fz_below(&r, FZ_NUM_DTYPES)];
    const int64_t base_n = ARENA_BYTES / (int64_t)fz_size(view_dt);
    tensor_t *base = tensor_from_blob(arena, 1, &base_n, NULL, view_dt, tensor_cpu(), NULL, NULL);
    if (base == NULL) fz_fail("tensor_from_blob of the arena failed");

    /* inputs first (outputs may take their shape) */
    for (int j = 0; j < fc.nin; j++) {
        operand *o = &fc.ops[fc.nout + j];
        const unsigned k = fz_byte(&r);
        const tensor_dtype dt = one_dtype ? common_dt : fz_dtypes[fz_below(&r, FZ_NUM_DTYPES)];
        o->t = k % 2 ? make_view(&r, base) : make_blob(&r, dt, &o->huge);
        if (o->t == NULL) o->t = make_view(&r, base);
        fc.huge |= o->huge;
    }
    int nb = 0;
    int64_t bshape[TENSOR_MAX_DIMS];
    bool bok = true;
    for (int j = 0; j < fc.nin && bok; j++) {
        const tensor_t *t = fc.ops[fc.nout + j].t;
        bok = fz_broadcast(nb, bshape, tensor_ndim(t), tensor_sizes(t), &nb, bshape);
    }
    /* reduction dims */
    fc.keepdim = fz_byte(&r) & 1;
    fc.nrdims = (int)fz_below(&r, 4);
    for (int i = 0; i < fc.nrdims; i++) fc.rdims[i] = (int)fz_below(&r, 11) - 5;
    bool mask[TENSOR_MAX_DIMS] = {false};
    fc.has_mask = true;
    const bool mask_ok = bok && reference_mask(&fc, nb, mask);
    fc.has_mask = false;
    /* outputs: undefined, a view with the shape they need, or anything */
    bool any_undefined = false;
    for (int i = 0; i < fc.nout; i++) {
        operand *o = &fc.ops[i];
        const unsigned k = fz_byte(&r);
        if (k % 3 == 0) {
            any_undefined = true;
        } else if (k % 3 == 1 && bok) {
            /* the needed shape, in some layout of the arena (views or a blob) */
            int64_t sizes[TENSOR_MAX_DIMS], strides[TENSOR_MAX_DIMS];
            int n = 0;
            for (int d = 0; d < nb; d++) {
                const bool red = reduction && (variant == 2 ? ((k >> 2) >> (d % 6)) & 1 : mask_ok && mask[d]);
                if (red && variant != 2 && !fc.keepdim) continue;
                sizes[n++] = red ? 1 : bshape[d];
            }
            /* the inputs' shape may be huge (broadcast): then it does not fit the arena */
            int64_t running = 1;
            bool fits = true;
            for (int d = n - 1; d >= 0; d--) {
                const unsigned g = fz_byte(&r);
                strides[d] = g % 16 == 0 ? 0 : running * (1 + (g >> 4) % 2); /* 0: an expanded output */
                fits = fits && !__builtin_mul_overflow(strides[d] ? strides[d] : running, sizes[d] > 0 ? sizes[d] : 1,
                                                       &running) && running <= ARENA_BYTES;
                if (!fits) break;
            }
            const tensor_dtype dt = one_dtype ? common_dt : fz_dtypes[fz_below(&r, FZ_NUM_DTYPES)];
            if (fits && running * (int64_t)fz_size(dt) + 512 <= ARENA_BYTES) {
                o->t = tensor_from_blob(arena + 8 * fz_below(&r, 64), n, sizes, strides, dt, tensor_cpu(), NULL, NULL);
                if (o->t == NULL) fz_fail("tensor_from_blob refused an output view");
            } else {
                any_undefined = true;
            }
        } else {
            const tensor_dtype dt = one_dtype ? common_dt : fz_dtypes[fz_below(&r, FZ_NUM_DTYPES)];
            o->t = (k >> 2) & 1 ? make_view(&r, base) : make_blob(&r, dt, &o->huge);
            fc.huge |= o->huge;
            any_undefined |= o->t == NULL;
        }
        const unsigned dd = fz_byte(&r);
        o->declared = reduction || dd % 2;
        o->ddt = dd % 32 == 1 ? (tensor_dtype)(TENSOR_NUM_DTYPES + (int)(dd >> 5)) /* invalid */
                               : fz_dtypes[(dd >> 1) % FZ_NUM_DTYPES];
        if (i == 1 && reduction) o->ddt = TENSOR_INT64; /* values + indices */
    }
    /* huge views with an undefined output would ask for terabytes: libFuzzer calls that a crash */
    if (fc.huge && any_undefined) goto cleanup;

    tensor_clear_error();
    tensor_iter_t *it = NULL;
    fc.flags = TENSOR_ITER_DEFAULT_FLAGS;
    if (reduction && variant == 3) {
        /* the convenience constructor */
        fc.flags |= TENSOR_ITER_REDUCTION | TENSOR_ITER_PROMOTE_INPUTS;
        fc.has_mask = true;
        const tensor_dtype odt = fc.ops[0].ddt;
        it = tensor_iter_reduce_new("fuzz_iter", fc.ops[0].t, fc.ops[1].t, fc.rdims, fc.nrdims, fc.keepdim, odt);
        if (it == NULL && !tensor_dtype_is_valid(odt)) fc.first_error = TENSOR_ERR_DTYPE;
        fc.simple = fc.ops[0].t == NULL && tensor_dtype_is_valid(odt) && !fc.huge && mask_ok;
    } else {
        tensor_iter_config *cfg = tensor_iter_config_new("fuzz_iter");
        if (cfg == NULL) fz_fail("tensor_iter_config_new failed");
        const unsigned order = fz_byte(&r);
        const bool misorder = order % 32 == 0 && fc.nin > 0 && fc.nout > 0;
        const bool null_input = order % 32 == 1 && fc.nin > 0;
        /* flags: mostly promotion on or off, sometimes anything */
        const unsigned fsel = fz_byte(&r);
        if (fsel % 4 == 0) {
            unsigned on = 0, off = 0;
            const unsigned bon = fz_byte(&r), boff = fz_byte(&r), extra = fz_byte(&r);
            for (int f = 0; f < 9; f++) {
                if ((bon >> (f % 8)) & 1 && f % 2 == (int)(extra & 1)) on |= known_flags[f];
                if ((boff >> (f % 8)) & 1 && f % 2 != (int)(extra & 1)) off |= known_flags[f];
            }
            if (extra % 16 == 2) on |= 1u << 12;
            tensor_status st = tensor_iter_config_enable(cfg, on);
            note_config_call(&fc, st);
            if (st == TENSOR_OK) fc.flags |= on;
            st = tensor_iter_config_disable(cfg, off);
            note_config_call(&fc, st);
            if (st == TENSOR_OK) fc.flags &= ~off;
        } else if (fsel % 4 == 1) {
            note_config_call(&fc, tensor_iter_config_enable(cfg, TENSOR_ITER_PROMOTE_INPUTS));
            fc.flags |= TENSOR_ITER_PROMOTE_INPUTS;
        }
        if (reduction) {
            if (variant < 2) {
                const int n = (fsel >> 2) % 16 == 0 ? -1 : (fsel >> 2) % 16 == 1 ? TENSOR_MAX_DIMS + 1 : fc.nrdims;
                const tensor_status st = tensor_iter_config_reduce_dims(cfg, fc.rdims, n, fc.keepdim);
                note_config_call(&fc, st);
                if (st == TENSOR_OK) {
                    fc.flags |= TENSOR_ITER_REDUCTION;
                    fc.has_mask = true;
                }
            } else {
                note_config_call(&fc, tensor_iter_config_enable(cfg, TENSOR_ITER_REDUCTION));
                fc.flags |= TENSOR_ITER_REDUCTION;
            }
        }
        if ((order >> 5) % 8 == 1) {
            /* a declared shape: the inputs' own, or drawn (negative sizes refused) */
            fc.static_nd = (int)fz_below(&r, 5);
            for (int d = 0; d < fc.static_nd; d++) fc.static_shape[d] = (int64_t)fz_below(&r, 5) - ((order & 2) ? 1 : 0);
            if (bok && (order & 4)) {
                fc.static_nd = nb;
                memcpy(fc.static_shape, bshape, sizeof(int64_t) * (size_t)nb);
            }
            const tensor_status st = tensor_iter_config_declare_static_shape(cfg, fc.static_nd, fc.static_shape);
            note_config_call(&fc, st);
            fc.has_static = st == TENSOR_OK;
        }
        if (misorder) note_config_call(&fc, tensor_iter_config_add_input(cfg, fc.ops[fc.nout].t));
        for (int i = 0; i < fc.nout; i++) {
            const operand *o = &fc.ops[i];
            note_config_call(&fc, o->declared ? tensor_iter_config_add_output_dtype(cfg, o->t, o->ddt)
                                               : tensor_iter_config_add_output(cfg, o->t));
        }
        for (int j = misorder ? 1 : 0; j < fc.nin; j++) note_config_call(&fc, tensor_iter_config_add_input(cfg, fc.ops[fc.nout + j].t));
        if (null_input) note_config_call(&fc, tensor_iter_config_add_input(cfg, NULL));
        /* valid by construction: undefined outputs, inputs that broadcast and promote */
        bool promotes = true;
        if (fc.nin > 0) {
            fz_operand_type kinds[MAXOPS];
            for (int j = 0; j < fc.nin; j++) {
                kinds[j].kind = tensor_ndim(fc.ops[fc.nout + j].t) == 0 ? FZ_ZERO_DIM : FZ_DIMENSIONED;
                kinds[j].dtype = tensor_get_dtype(fc.ops[fc.nout + j].t);
            }
            bool err = false;
            fz_result_type(kinds, fc.nin, &err);
            promotes = !err;
        }
        bool all_undefined = true, valid_declared = true;
        for (int i = 0; i < fc.nout; i++) {
            all_undefined &= fc.ops[i].t == NULL;
            valid_declared &= !fc.ops[i].declared || tensor_dtype_is_valid(fc.ops[i].ddt);
        }
        fc.simple = !reduction && fsel % 4 == 1 && fc.nin > 0 && fc.nout == 1 && all_undefined && valid_declared &&
                    !fc.has_static && !misorder && !null_input && bok && promotes && !fc.huge;
        it = tensor_iter_build(cfg);
        /* the config is reusable: a second build gives the same outcome */
        if ((order >> 5) % 8 == 2) {
            tensor_iter_t *again = tensor_iter_build(cfg);
            if ((again == NULL) != (it == NULL)) fz_fail("a second build of one config gave another outcome");
            tensor_iter_free(again);
        }
        tensor_iter_config_free(cfg);
    }
    const unsigned walk_choice = fz_byte(&r), grain_choice = fz_byte(&r), limit_choice = fz_byte(&r);
    if (it == NULL) {
        const tensor_status st = tensor_last_status();
        fz_check_error_reported("tensor_iter_build");
        if (!ok_status(st)) fz_fail("tensor_iter_build failed with %s", tensor_status_name(st));
        if (fc.first_error != TENSOR_OK && st != fc.first_error)
            fz_fail("the build's status %s is not the failed config call's %s", tensor_status_name(st),
                    tensor_status_name(fc.first_error));
        if (fc.first_error != TENSOR_OK && fc.first_msg[0] != '\0' && strcmp(fc.first_msg, tensor_last_error()) != 0)
            fz_fail("the build's message is not the failed config call's (\"%s\")", fc.first_msg);
        if (fc.first_error == TENSOR_OK && fc.nin > 0 && !fc.has_static && !bok && st != TENSOR_ERR_SHAPE &&
            !(fc.flags & TENSOR_ITER_REDUCTION && !fc.has_mask))
            fz_fail("inputs that do not broadcast gave %s, not a shape error", tensor_status_name(st));
        if (fc.simple && fc.first_error == TENSOR_OK) fz_fail("a valid config did not build");
        if (st == TENSOR_ERR_INVALID_ARGUMENT && strstr(tensor_last_error(), "memory location") != NULL &&
            strstr(tensor_last_error(), "too large") == NULL && !fc.huge) {
            /* a refused overlap must be a real one */
            bool any = false, decided = true;
            const tensor_t *ins[MAXOPS];
            for (int j = 0; j < fc.nin; j++) {
                ins[j] = fc.ops[fc.nout + j].t;
                decided &= ins[j] == NULL || tensor_numel(ins[j]) <= WALK_LIMIT;
            }
            for (int i = 0; i < fc.nout && !any; i++) {
                if (fc.ops[i].t == NULL) continue;
                if (tensor_numel(fc.ops[i].t) > WALK_LIMIT) decided = false;
                else any = overlaps(fc.ops[i].t, ins, fc.nin);
            }
            if (decided && !any) fz_fail("an overlap was refused where there is none");
        }
    } else {
        if (fc.first_error != TENSOR_OK) fz_fail("built although a config call failed (%s)", fc.first_msg);
        dump_iter = it;
        check_iterator(&fc, it, (unsigned char)walk_choice, grain_choice, limit_choice);
        if ((fc.flags & TENSOR_ITER_CHECK_OVERLAP) && !fc.huge) {
            const tensor_t *ins[MAXOPS];
            bool small = true;
            for (int j = 0; j < fc.nin; j++) {
                ins[j] = fc.ops[fc.nout + j].t;
                small &= tensor_numel(ins[j]) <= WALK_LIMIT;
            }
            for (int i = 0; i < fc.nout && small; i++)
                if (fc.ops[i].t != NULL && tensor_numel(fc.ops[i].t) <= WALK_LIMIT && overlaps(fc.ops[i].t, ins, fc.nin))
                    fz_fail("output %d overlaps, yet the build with overlap checks succeeded", i);
        }
        dump_iter = NULL;
        tensor_iter_free(it);
    }
cleanup:
    for (int a = 0; a < fc.nout + fc.nin; a++) tensor_release(fc.ops[a].t);
    tensor_release(base);
    return 0;
}
