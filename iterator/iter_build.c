/* tensor_iter_build: runs the stages (shape, output views, device, dtypes, overlap), then
 * byte strides -> reorder -> allocate undefined outputs -> coalesce, and fills the iterator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/alloc.h"
#include "iterator/iter_build_impl.h"
#include "iterator/iter_local.h"
#include "runtime/error.h"
#include "iterator/iter_internal.h"

/* Byte strides per logical dim, right-aligned: 0 for missing leading dims and broadcast dims
 * (size 1 against a larger size). */
static tensor_status compute_strides(iter_build *b, iter_build_op *op) {
    int64_t es = (int64_t)tensor_dtype_size(op->dtype);
    int lead = b->ndim - op->vndim;
    for (int i = 0; i < b->ndim; i++) {
        int od = i - lead;
        if (od < 0 || (op->vsizes[od] == 1 && b->shape[i] != 1)) {
            op->bstrides[i] = 0;
            continue;
        }
        int64_t s;
        if (__builtin_mul_overflow(op->vstrides[od], es, &s)) {
            /* A size-1 dim may carry any stride; it is never stepped along, so drop it. */
            if (b->shape[i] <= 1) {
                s = 0;
            } else {
                return tensor_error(TENSOR_ERR_OVERFLOW, "%s: the byte stride of dim %d overflows int64", b->name, i);
            }
        }
        op->bstrides[i] = s;
    }
    return TENSOR_OK;
}

/* PyTorch's reorder_dimensions comparator on logical dims d0 (currently before) and d1:
 * 1 = d1 must move before d0, -1 = keep, 0 = no operand has an opinion. */
static int should_swap(const iter_build *b, int d0, int d1, bool reduced_first_only) {
    for (int a = 0; a < b->nops; a++) {
        const iter_build_op *op = &b->ops[a];
        if (op->will_alloc) {
            /* Its layout is decided by the others, but an undefined reduction output still
             * knows which dims it reduces: they go first, as for a defined one. */
            if (b->reduction && b->has_mask && b->mask[d0] != b->mask[d1]) return b->mask[d1] ? 1 : -1;
            continue;
        }
        int64_t s0 = op->bstrides[d0], s1 = op->bstrides[d1];
        /* Reduced dims (output stride 0) go first, and outputs are consulted first. */
        if (b->reduction && op->is_output && ((s0 == 0) != (s1 == 0))) return s1 == 0 ? 1 : -1;
        if (reduced_first_only || s0 == 0 || s1 == 0) continue; /* broadcast: this operand cannot tell */
        if (s0 < s1) return -1;
        if (s0 > s1) return 1;
        /* Equal strides: the smaller dim goes first; otherwise ask the next operand. */
        if (b->shape[d0] > b->shape[d1]) return 1;
    }
    return 0;
}

static void reorder_dimensions(iter_build *b) {
    /* Start from the reversal: a C-contiguous tensor then needs no swaps (dim 0 = last). */
    for (int i = 0; i < b->ndim; i++) b->perm[i] = b->ndim - 1 - i;
    /* LINEAR keeps C order, except that a reduction still needs its reduced dims first (a
     * stable partition: C order within reduced and within kept dims). */
    bool linear = (b->flags & TENSOR_ITER_LINEAR) != 0;
    if (linear && !b->reduction) return;
    /* Insertion sort that steps over "no opinion" (0) pairs and stops only on a firm keep:
     * that lets broadcast dims float without disturbing the order of the others. */
    for (int i = 1; i < b->ndim; i++) {
        int dim1 = i;
        for (int dim0 = i - 1; dim0 >= 0; dim0--) {
            int c = should_swap(b, b->perm[dim0], b->perm[dim1], linear);
            if (c > 0) {
                int t = b->perm[dim0];
                b->perm[dim0] = b->perm[dim1];
                b->perm[dim1] = t;
                dim1 = dim0;
            } else if (c < 0) {
                break;
            }
        }
    }
}

/* An undefined output gets dense strides in computation order (so it follows the inputs'
 * memory layout), then a tensor with the logical shape and those strides. */
static tensor_status allocate_output(iter_build *b, iter_build_op *op) {
    int64_t strides[TENSOR_MAX_DIMS], running = 1;
    for (int p = 0; p < b->ndim; p++) {
        int d = b->perm[p];
        strides[d] = running;
        int64_t sz = op->vsizes[d] > 1 ? op->vsizes[d] : 1;
        if (__builtin_mul_overflow(running, sz, &running))
            return tensor_error(TENSOR_ERR_OVERFLOW, "%s: the output's size overflows int64", b->name);
    }
    int64_t numel = 1;
    for (int d = 0; d < b->ndim; d++) numel *= op->vsizes[d];
    int64_t nbytes;
    if (__builtin_mul_overflow(numel, (int64_t)tensor_dtype_size(op->dtype), &nbytes))
        return tensor_error(TENSOR_ERR_OVERFLOW, "%s: the output's byte count overflows int64", b->name);
    /* The logical tensor: without keepdim a reduction's reduced dims disappear. */
    int64_t lsizes[TENSOR_MAX_DIMS], lstrides[TENSOR_MAX_DIMS];
    int lndim = 0;
    bool squeeze = b->reduction && b->has_mask && !b->keepdim;
    for (int d = 0; d < b->ndim; d++) {
        if (squeeze && b->mask[d]) continue;
        lsizes[lndim] = op->vsizes[d];
        lstrides[lndim++] = strides[d];
    }
    tensor_storage *s = tensor_storage_new((size_t)nbytes, op->device, b->name);
    if (s == NULL) return tensor_last_status();
    tensor_t *t = tensor_make(s, 0, lndim, lsizes, lstrides, op->dtype, b->name);
    tensor_storage_release(s);
    if (t == NULL) return tensor_last_status();
    op->t = t; /* owned from here: tensor_iter_build hands it to the iterator */
    for (int d = 0; d < b->ndim; d++) op->vstrides[d] = b->reduction && b->has_mask && b->mask[d] ? 0 : strides[d];
    op->vndim = b->ndim;
    return compute_strides(b, op);
}

/* Merges adjacent computation dims wherever every operand allows it (PyTorch's
 * coalesce_dimensions); records which permuted positions each merged dim covers. */
static void coalesce(tensor_iter_t *it) {
    int n = it->ndim;
    for (int d = 0; d <= n; d++) it->perm_groups[d] = d;
    if (n <= 1) return;
    int prev = 0;
    for (int d = 1; d < n; d++) {
        bool merge = it->shape[prev] == 1 || it->shape[d] == 1;
        if (!merge) {
            merge = true;
            for (int a = 0; a < it->num_operands && merge; a++) {
                const int64_t *s = it->operands[a].strides;
                /* a huge stride of a broadcast dim can carry the product past int64: no merge */
                int64_t span;
                if (__builtin_mul_overflow(it->shape[prev], s[prev], &span) || span != s[d]) merge = false;
                /* Belt and braces: a reduced dim never joins a kept one, even through a
                 * size-0 dim whose product is 0. */
                if (it->is_reduction && it->operands[a].is_output && ((s[prev] == 0) != (s[d] == 0))) merge = false;
            }
        }
        if (merge) {
            if (it->shape[prev] == 1)
                for (int a = 0; a < it->num_operands; a++) it->operands[a].strides[prev] = it->operands[a].strides[d];
            it->shape[prev] *= it->shape[d]; /* fits: the shape's element count does (iter_shape.c) */
        } else {
            prev++;
            it->perm_groups[prev] = d;
            if (prev != d) {
                for (int a = 0; a < it->num_operands; a++) it->operands[a].strides[prev] = it->operands[a].strides[d];
                it->shape[prev] = it->shape[d];
            }
        }
    }
    it->ndim = prev + 1;
    it->perm_groups[it->ndim] = n;
    for (int d = it->ndim; d < n; d++) {
        it->shape[d] = 0;
        for (int a = 0; a < it->num_operands; a++) it->operands[a].strides[d] = 0;
    }
}

static void fill_iterator(const iter_build *b, tensor_iter_t *it) {
    iter_copy_name(it->name, sizeof it->name, b->name);
    it->num_operands = b->nops;
    it->num_outputs = b->nout;
    it->common_dtype = b->common_dtype;
    it->device = b->device;
    it->is_reduction = b->reduction;
    it->accumulate = false;
    it->final_output = true;
    it->logical_ndim = b->ndim;
    it->ndim = b->ndim;
    for (int p = 0; p < b->ndim; p++) {
        it->logical_shape[p] = b->shape[p];
        it->perm[p] = b->perm[p];
        it->shape[p] = b->shape[b->perm[p]];
    }
    for (int a = 0; a < b->nops; a++) {
        const iter_build_op *op = &b->ops[a];
        tensor_iter_operand *o = &it->operands[a];
        o->tensor = op->t; /* the reference moves in tensor_iter_build */
        o->data = (char *)tensor_data(op->t);
        o->dtype = op->dtype;
        o->device = op->device;
        o->is_output = op->is_output;
        o->is_allocated = op->is_output && op->will_alloc;
        for (int p = 0; p < b->ndim; p++) o->strides[p] = op->bstrides[b->perm[p]];
    }
    /* In place: an output that is the same elements as an input. */
    for (int i = 0; i < b->nout; i++)
        for (int j = b->nout; j < b->nops && !it->operands[i].is_allocated; j++)
            if (tt_iter_same_elements(b->ops[i].t, b->ops[j].t)) it->operands[i].is_read_write = true;
    coalesce(it);
    for (int d = 0; d < it->ndim; d++) it->base_shape[d] = it->shape[d];
}

static void release_allocated(iter_build *b) {
    for (int i = 0; i < b->nout; i++)
        if (b->ops[i].will_alloc) {
            tensor_release(b->ops[i].t);
            b->ops[i].t = NULL;
        }
}

tensor_status tt_iter_build_into(const tensor_iter_config *cfg, tensor_iter_t *it) {
    memset(it, 0, sizeof *it);
    TENSOR_CHECK_NOT_NULL(cfg, "tensor_iter_build", "cfg");
    if (cfg->error != TENSOR_OK) return tensor_error(cfg->error, "%s", cfg->error_msg);
    /* On the stack (3.6 KB): a heap block of that size was a large-bin request, and glibc
     * consolidated its fast bins on every call (a tenth of a tiny reduction's time). */
    iter_build build;
    memset(&build, 0, sizeof build);
    iter_build *b = &build;
    b->cfg = cfg;
    b->name = cfg->name;
    b->flags = cfg->flags;
    b->reduction = (cfg->flags & TENSOR_ITER_REDUCTION) != 0;
    b->has_mask = b->reduction && cfg->has_reduce_dims;
    b->keepdim = cfg->keepdim;
    b->nout = cfg->num_outputs;
    b->nops = cfg->num_outputs + cfg->num_inputs;
    for (int a = 0; a < b->nops; a++) {
        iter_build_op *op = &b->ops[a];
        op->is_output = a < b->nout;
        op->t = op->is_output ? cfg->outputs[a] : cfg->inputs[a - b->nout];
        op->will_alloc = op->t == NULL;
        op->declared_dtype = op->is_output && cfg->out_dtype_declared[a];
        op->dtype = op->t ? op->t->dtype : cfg->out_dtypes[a];
        op->device = op->t ? tensor_get_device(op->t) : tensor_cpu();
        if (!op->is_output) {
            op->vndim = op->t->ndim;
            memcpy(op->vsizes, op->t->sizes, sizeof(int64_t) * (size_t)op->vndim);
            memcpy(op->vstrides, op->t->strides, sizeof(int64_t) * (size_t)op->vndim);
        }
    }
    tensor_status st = TENSOR_OK;
    if (b->nops == 0)
        st = tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: the iterator has no operands", b->name);
    if (st == TENSOR_OK) st = tt_iter_compute_shape(b);
    if (st == TENSOR_OK) st = tt_iter_compute_output_views(b);
    if (st == TENSOR_OK) st = tt_iter_compute_device(b);
    if (st == TENSOR_OK) st = tt_iter_compute_types(b);
    if (st == TENSOR_OK && (b->flags & TENSOR_ITER_CHECK_OVERLAP)) st = tt_iter_check_overlap(b);
    for (int a = 0; a < b->nops && st == TENSOR_OK; a++)
        if (!b->ops[a].will_alloc) st = compute_strides(b, &b->ops[a]);
    if (st == TENSOR_OK) reorder_dimensions(b);
    /* From here undefined outputs own a new tensor each (released on failure). */
    bool allocated_any = false;
    for (int a = 0; a < b->nout && st == TENSOR_OK; a++) {
        if (!b->ops[a].will_alloc) continue;
        b->ops[a].t = NULL;
        st = allocate_output(b, &b->ops[a]);
        allocated_any = true;
    }
    if (st != TENSOR_OK) {
        if (allocated_any) release_allocated(b);
        return st;
    }
    /* The iterator owns one reference per operand: retain the borrowed ones, adopt the
     * allocated ones. */
    for (int a = 0; a < b->nops; a++)
        if (!b->ops[a].will_alloc) tensor_retain(b->ops[a].t);
    fill_iterator(b, it);
    return TENSOR_OK;
}

tensor_iter_t *tensor_iter_build(const tensor_iter_config *cfg) {
    TENSOR_CHECK_NOT_NULL_P(cfg, "tensor_iter_build", "cfg");
    tensor_iter_t *it = tt_malloc(sizeof *it);
    if (it == NULL) return tensor_error_null(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory", cfg->name);
    if (tt_iter_build_into(cfg, it) != TENSOR_OK) {
        free(it);
        return NULL;
    }
    return it;
}
