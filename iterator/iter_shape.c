/* Build stage 1: the broadcast shape, and the geometry each output is iterated with
 * (its own, or for reductions the keepdim view with stride 0 on reduced dims). */
#include <stdio.h>
#include <string.h>

#include "iterator/iter_build_impl.h"
#include "runtime/error.h"

char *tt_iter_format_shape(char *buf, size_t size, int ndim, const int64_t *sizes) {
    if (buf == NULL || size == 0) return buf;
    size_t n = 0;
    buf[0] = '\0';
    n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "[");
    for (int d = 0; d < ndim; d++)
        n += (size_t)snprintf(buf + (n < size ? n : size - 1), n < size ? size - n : 0, "%s%lld", d ? ", " : "",
                              (long long)sizes[d]);
    snprintf(buf + (n < size ? n : size - 1), n < size ? size - n : 0, "]");
    return buf;
}

tensor_status tt_iter_broadcast_into(int *ndim, int64_t *shape, int n, const int64_t *sizes, const char *func,
                                     const char *what, int index) {
    int out_ndim = n > *ndim ? n : *ndim;
    int64_t out[TENSOR_MAX_DIMS];
    for (int i = out_ndim - 1; i >= 0; i--) {
        int da = i - (out_ndim - *ndim), db = i - (out_ndim - n);
        int64_t sa = da >= 0 ? shape[da] : 1;
        int64_t sb = db >= 0 ? sizes[db] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return tensor_error(TENSOR_ERR_SHAPE,
                                "%s: The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                                "non-singleton dimension %d (%s %d)",
                                func, (long long)sa, (long long)sb, i, what, index);
        out[i] = sa == 1 ? sb : sa;
    }
    *ndim = out_ndim;
    memcpy(shape, out, sizeof(int64_t) * (size_t)out_ndim);
    return TENSOR_OK;
}

static tensor_status broadcast_into(iter_build *b, int ndim, const int64_t *sizes, const char *what, int index) {
    return tt_iter_broadcast_into(&b->ndim, b->shape, ndim, sizes, b->name, what, index);
}

/* Whether `sizes` broadcasts to the declared shape without changing it. */
static tensor_status check_broadcasts_to(iter_build *b, const tensor_t *t, const char *what, int index) {
    char s1[256], s2[256];
    bool ok = t->ndim <= b->ndim;
    for (int i = 0; ok && i < t->ndim; i++) {
        int64_t sz = t->sizes[i], target = b->shape[i + b->ndim - t->ndim];
        ok = sz == target || sz == 1;
    }
    if (!ok)
        return tensor_error(TENSOR_ERR_SHAPE, "%s: %s %d with shape %s cannot be broadcast to the declared shape %s",
                            b->name, what, index, tt_iter_format_shape(s1, sizeof s1, t->ndim, t->sizes),
                            tt_iter_format_shape(s2, sizeof s2, b->ndim, b->shape));
    return TENSOR_OK;
}

/* The product of the shape's non-zero sizes must fit int64: every count the iterator and its
 * walkers take (numel, a coalesced dim, a piece's extent) is a product of some of them, even in
 * an empty iterator, where a size-0 dim sits beside broadcast dims of any size. */
static tensor_status check_element_count(const iter_build *b) {
    int64_t n = 1;
    for (int d = 0; d < b->ndim; d++) {
        if (b->shape[d] > 0 && __builtin_mul_overflow(n, b->shape[d], &n)) {
            char s[256];
            return tensor_error(TENSOR_ERR_OVERFLOW, "%s: the shape %s has more elements than int64 holds", b->name,
                                tt_iter_format_shape(s, sizeof s, b->ndim, b->shape));
        }
    }
    return TENSOR_OK;
}

static tensor_status compute_shape(iter_build *b);

tensor_status tt_iter_compute_shape(iter_build *b) {
    const tensor_status st = compute_shape(b);
    return st != TENSOR_OK ? st : check_element_count(b);
}

static tensor_status compute_shape(iter_build *b) {
    const tensor_iter_config *cfg = b->cfg;
    b->ndim = 0;
    if (cfg->has_static_shape) {
        b->ndim = cfg->static_ndim;
        memcpy(b->shape, cfg->static_shape, sizeof(int64_t) * (size_t)b->ndim);
        for (int i = 0; i < cfg->num_inputs; i++)
            if (check_broadcasts_to(b, cfg->inputs[i], "input", i) != TENSOR_OK) return TENSOR_ERR_SHAPE;
        return TENSOR_OK;
    }
    /* A reduction's pre-viewed outputs take part (they broadcast against the input), as
     * PyTorch's resize_outputs(false); otherwise outputs follow the inputs' shape. With no
     * inputs the defined outputs give the shape. */
    bool outputs_count = (b->reduction && !b->has_mask) || cfg->num_inputs == 0;
    bool any = false;
    for (int i = 0; i < cfg->num_inputs; i++) {
        if (broadcast_into(b, cfg->inputs[i]->ndim, cfg->inputs[i]->sizes, "input", i) != TENSOR_OK)
            return TENSOR_ERR_SHAPE;
        any = true;
    }
    if (outputs_count) {
        for (int i = 0; i < cfg->num_outputs; i++) {
            if (cfg->outputs[i] == NULL) continue;
            if (broadcast_into(b, cfg->outputs[i]->ndim, cfg->outputs[i]->sizes, "output", i) != TENSOR_OK)
                return TENSOR_ERR_SHAPE;
            any = true;
        }
    }
    if (!any)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                            "%s: cannot infer the shape: no inputs and no defined outputs (declare a static shape)",
                            b->name);
    return TENSOR_OK;
}

/* Wraps and checks the reduction dims against the shape's rank and fills b->mask. */
static tensor_status compute_mask(iter_build *b) {
    const tensor_iter_config *cfg = b->cfg;
    for (int d = 0; d < TENSOR_MAX_DIMS; d++) b->mask[d] = false;
    if (cfg->reduce_ndims == 0) {
        for (int d = 0; d < b->ndim; d++) b->mask[d] = true;
        return TENSOR_OK;
    }
    /* A 0-d tensor counts as rank 1 (dims 0 and -1 are valid and reduce nothing). */
    bool seen[TENSOR_MAX_DIMS + 1] = {false};
    for (int i = 0; i < cfg->reduce_ndims; i++) {
        int d;
        if (tensor_wrap_dim(cfg->reduce_dims[i], b->ndim, true, &d, b->name) != TENSOR_OK) return TENSOR_ERR_INDEX;
        if (seen[d])
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: dim %d appears multiple times in the list of dims",
                                b->name, d);
        seen[d] = true;
        if (d < b->ndim) b->mask[d] = true;
    }
    return TENSOR_OK;
}

static bool sizes_equal(int n, const int64_t *a, int m, const int64_t *c) {
    if (n != m) return false;
    for (int i = 0; i < n; i++)
        if (a[i] != c[i]) return false;
    return true;
}

/* A defined output of a reduction with known dims: accept the keepdim shape, or without
 * keepdim the squeezed shape, and view it with size 1 / stride 0 on the reduced dims. */
static tensor_status view_reduction_output(iter_build *b, iter_build_op *op, int index) {
    int64_t keep[TENSOR_MAX_DIMS], squeezed[TENSOR_MAX_DIMS];
    int nsq = 0;
    for (int d = 0; d < b->ndim; d++) {
        keep[d] = b->mask[d] ? 1 : b->shape[d];
        if (!b->mask[d]) squeezed[nsq++] = b->shape[d];
    }
    op->vndim = b->ndim;
    const tensor_t *t = op->t;
    if (t == NULL) {
        for (int d = 0; d < b->ndim; d++) op->vsizes[d] = keep[d];
        return TENSOR_OK;
    }
    if (sizes_equal(t->ndim, t->sizes, b->ndim, keep)) {
        for (int d = 0; d < b->ndim; d++) {
            op->vsizes[d] = keep[d];
            op->vstrides[d] = b->mask[d] ? 0 : t->strides[d];
        }
        return TENSOR_OK;
    }
    if (!b->keepdim && sizes_equal(t->ndim, t->sizes, nsq, squeezed)) {
        for (int d = 0, k = 0; d < b->ndim; d++) {
            op->vsizes[d] = keep[d];
            op->vstrides[d] = b->mask[d] ? 0 : t->strides[k++];
        }
        return TENSOR_OK;
    }
    char want[256], keepbuf[256], got[256];
    tt_iter_format_shape(want, sizeof want, b->keepdim ? b->ndim : nsq, b->keepdim ? keep : squeezed);
    tt_iter_format_shape(keepbuf, sizeof keepbuf, b->ndim, keep);
    tt_iter_format_shape(got, sizeof got, t->ndim, t->sizes);
    if (b->keepdim)
        return tensor_error(TENSOR_ERR_SHAPE, "%s: expected output %d to have shape %s but got %s", b->name, index,
                            want, got);
    return tensor_error(TENSOR_ERR_SHAPE, "%s: expected output %d to have shape %s (or the keepdim shape %s) but got %s",
                        b->name, index, want, keepbuf, got);
}

tensor_status tt_iter_compute_output_views(iter_build *b) {
    char s1[256], s2[256];
    if (b->reduction && b->has_mask && compute_mask(b) != TENSOR_OK) return tensor_last_status();
    for (int i = 0; i < b->nout; i++) {
        iter_build_op *op = &b->ops[i];
        if (b->reduction && b->has_mask) {
            if (view_reduction_output(b, op, i) != TENSOR_OK) return TENSOR_ERR_SHAPE;
            continue;
        }
        if (op->t == NULL) {
            if (b->reduction)
                return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                    "%s: output %d is undefined: a reduction allocates outputs only when its dims "
                                    "are given (tensor_iter_config_reduce_dims)",
                                    b->name, i);
            op->vndim = b->ndim;
            memcpy(op->vsizes, b->shape, sizeof(int64_t) * (size_t)b->ndim);
            continue;
        }
        op->vndim = op->t->ndim;
        memcpy(op->vsizes, op->t->sizes, sizeof(int64_t) * (size_t)op->vndim);
        memcpy(op->vstrides, op->t->strides, sizeof(int64_t) * (size_t)op->vndim);
        /* Outputs of elementwise iterators are not resized: they must have the shape. */
        if (!b->reduction && !sizes_equal(op->vndim, op->vsizes, b->ndim, b->shape))
            return tensor_error(TENSOR_ERR_SHAPE, "%s: output %d with shape %s doesn't match the broadcast shape %s",
                                b->name, i, tt_iter_format_shape(s1, sizeof s1, op->vndim, op->vsizes),
                                tt_iter_format_shape(s2, sizeof s2, b->ndim, b->shape));
        /* A pre-viewed reduction output has the shape's size or 1 on each dim. Without a declared
         * shape it took part in broadcasting, which ensures that; a declared shape must be
         * checked here, or a smaller output would be walked past its end. */
        bool fits = b->reduction && op->vndim == b->ndim;
        for (int d = 0; fits && d < b->ndim; d++) fits = op->vsizes[d] == b->shape[d] || op->vsizes[d] == 1;
        if (b->reduction && !fits)
            return tensor_error(TENSOR_ERR_SHAPE,
                                "%s: output %d with shape %s does not fit the shape %s (a reduction output has its "
                                "rank, and on each dim its size or 1 if reduced)",
                                b->name, i, tt_iter_format_shape(s1, sizeof s1, op->vndim, op->vsizes),
                                tt_iter_format_shape(s2, sizeof s2, b->ndim, b->shape));
    }
    /* Values and indices: one shape for all outputs of a reduction. */
    if (b->reduction) {
        const tensor_t *first = NULL;
        int first_index = 0;
        for (int i = 0; i < b->nout; i++) {
            const tensor_t *t = b->ops[i].t;
            if (t == NULL) continue;
            if (first == NULL) {
                first = t;
                first_index = i;
            } else if (!sizes_equal(first->ndim, first->sizes, t->ndim, t->sizes)) {
                return tensor_error(TENSOR_ERR_SHAPE,
                                    "%s: expected all outputs to have the same shape, but output %d has %s and output "
                                    "%d has %s",
                                    b->name, first_index, tt_iter_format_shape(s1, sizeof s1, first->ndim, first->sizes), i,
                                    tt_iter_format_shape(s2, sizeof s2, t->ndim, t->sizes));
            }
        }
    }
    return TENSOR_OK;
}
