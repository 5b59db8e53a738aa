/* Narrowing and 32-bit splitting (PyTorch's narrow, get_dim_to_split, split and
 * SplitUntil32Bit), with the index limit as a parameter so that tests can
 * split small tensors. */
#include <stdlib.h>

#include "runtime/alloc.h"
#include "iterator/iter_impl.h"
#include "runtime/error.h"
#include "iterator/iter_internal.h"

tensor_status tensor_iter_narrow(tensor_iter_t *iter, int dim, int64_t start, int64_t size) {
    TENSOR_CHECK_NOT_NULL(iter, "tensor_iter_narrow", "iter");
    if (dim < 0 || dim >= iter->ndim)
        return tensor_error(TENSOR_ERR_INDEX, "tensor_iter_narrow: dim %d is outside [0, %d)", dim, iter->ndim);
    if (start < 0 || size < 0 || start > iter->shape[dim] - size)
        return tensor_error(TENSOR_ERR_INDEX, "tensor_iter_narrow: [%lld, %lld + %lld) is outside dim %d of size %lld",
                            (long long)start, (long long)start, (long long)size, dim, (long long)iter->shape[dim]);
    iter->shape[dim] = size;
    iter->view_offsets[dim] += start;
    for (int a = 0; a < iter->num_operands; a++)
        if (iter->operands[a].data != NULL) iter->operands[a].data += iter->operands[a].strides[dim] * start;
    return TENSOR_OK;
}

bool tensor_iter_fits_index_limit(const tensor_iter_t *iter, int64_t limit) {
    if (iter == NULL) return false;
    int64_t numel = tensor_iter_numel(iter);
    if (numel > limit) return false;
    if (numel == 0) return true;
    for (int a = 0; a < iter->num_operands; a++) {
        /* 1 + the largest byte offset, computed so that it cannot overflow. */
        int64_t extent = 1;
        for (int d = 0; d < iter->ndim; d++) {
            int64_t s = iter->operands[a].strides[d], n = iter->shape[d] - 1;
            if (n <= 0 || s == 0) continue;
            if (s > (limit - extent) / n) return false;
            extent += n * s;
        }
    }
    return true;
}

bool tensor_iter_can_use_32bit_indexing(const tensor_iter_t *iter) {
    return tensor_iter_fits_index_limit(iter, TENSOR_ITER_INDEX32_LIMIT);
}

int tensor_iter_dim_to_split(const tensor_iter_t *iter) {
    if (iter == NULL) return -1;
    /* PyTorch: the largest (size-1)*|stride|, ties to the outer dim. Dims of size < 2 are
     * skipped so that a split always makes progress (PyTorch could pick a size-1 dim when
     * every extent is 0, e.g. a huge broadcast). */
    int best = -1;
    int64_t best_extent = -1;
    for (int d = iter->ndim - 1; d >= 0; d--) {
        if (iter->shape[d] < 2) continue;
        for (int a = 0; a < iter->num_operands; a++) {
            int64_t s = iter->operands[a].strides[d];
            int64_t e = (iter->shape[d] - 1) > INT64_MAX / (s > 0 ? s : 1) ? INT64_MAX : (iter->shape[d] - 1) * s;
            if (e > best_extent) {
                best_extent = e;
                best = d;
            }
        }
    }
    return best;
}

tensor_iter_t *tensor_iter_split(tensor_iter_t *iter, int dim) {
    TENSOR_CHECK_NOT_NULL_P(iter, "tensor_iter_split", "iter");
    if (dim < 0 || dim >= iter->ndim || iter->shape[dim] < 2)
        return tensor_error_null(TENSOR_ERR_INDEX, "tensor_iter_split: dim %d cannot be split (ndim %d, size %lld)", dim,
                                 iter->ndim, dim >= 0 && dim < iter->ndim ? (long long)iter->shape[dim] : -1LL);
    tensor_iter_t *first = tensor_iter_copy(iter);
    if (first == NULL) return NULL;
    bool reduced = tensor_iter_is_dim_reduced(iter, dim);
    int64_t size = iter->shape[dim], half = size / 2;
    /* Ranges were checked above, so neither narrow can fail. */
    tensor_iter_narrow(first, dim, 0, half);
    tensor_iter_narrow(iter, dim, half, size - half);
    if (reduced) {
        /* The first half leaves partials behind; the second combines with them. */
        first->final_output = false;
        iter->accumulate = true;
    }
    return first;
}

/* ---- the splitter: an explicit stack, depth first, first half first ---- */

struct tensor_iter_splitter {
    int64_t limit;
    int count;
    int cap;
    tensor_iter_t **stack;
    tensor_iter_t *current; /* the piece handed out last (owned) */
};

void tensor_iter_splitter_free(tensor_iter_splitter *s) {
    if (s == NULL) return;
    for (int i = 0; i < s->count; i++) tensor_iter_free(s->stack[i]);
    tensor_iter_free(s->current);
    free(s->stack);
    free(s);
}

static tensor_status push(tensor_iter_splitter *s, tensor_iter_t *it) {
    if (s->count == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        tensor_iter_t **st = tt_realloc(s->stack, sizeof *st * (size_t)cap);
        if (st == NULL) return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "tensor_iter_splitter: out of host memory");
        s->stack = st;
        s->cap = cap;
    }
    s->stack[s->count++] = it;
    return TENSOR_OK;
}

tensor_iter_splitter *tensor_iter_splitter_new(const tensor_iter_t *iter, int64_t limit) {
    TENSOR_CHECK_NOT_NULL_P(iter, "tensor_iter_splitter_new", "iter");
    if (limit < 1)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "tensor_iter_splitter_new: limit %lld must be >= 1",
                                 (long long)limit);
    tensor_iter_splitter *s = tt_calloc(1, sizeof *s);
    if (s == NULL) return tensor_error_null(TENSOR_ERR_OUT_OF_MEMORY, "tensor_iter_splitter_new: out of host memory");
    s->limit = limit;
    tensor_iter_t *c = tensor_iter_copy(iter);
    if (c == NULL || push(s, c) != TENSOR_OK) {
        tensor_iter_free(c);
        tensor_iter_splitter_free(s);
        return NULL;
    }
    return s;
}

tensor_status tensor_iter_splitter_next(tensor_iter_splitter *s, const tensor_iter_t **piece) {
    TENSOR_CHECK_NOT_NULL(piece, "tensor_iter_splitter_next", "piece");
    *piece = NULL;
    TENSOR_CHECK_NOT_NULL(s, "tensor_iter_splitter_next", "s");
    tensor_iter_free(s->current);
    s->current = NULL;
    while (s->count > 0) {
        tensor_iter_t *top = s->stack[s->count - 1];
        int dim;
        if (tensor_iter_numel(top) == 0 || tensor_iter_fits_index_limit(top, s->limit) ||
            (dim = tensor_iter_dim_to_split(top)) < 0) {
            s->count--;
            s->current = top;
            *piece = top;
            return TENSOR_OK;
        }
        /* top keeps the second half and stays below the first half, which goes on top. */
        tensor_iter_t *first = tensor_iter_split(top, dim);
        if (first == NULL) return tensor_last_status();
        if (push(s, first) != TENSOR_OK) {
            tensor_iter_free(first);
            return TENSOR_ERR_OUT_OF_MEMORY;
        }
    }
    return TENSOR_OK;
}

int64_t tensor_iter_count_pieces(const tensor_iter_t *iter, int64_t limit) {
    tensor_iter_splitter *s = tensor_iter_splitter_new(iter, limit);
    if (s == NULL) return -1;
    int64_t n = 0;
    const tensor_iter_t *p;
    for (;;) {
        if (tensor_iter_splitter_next(s, &p) != TENSOR_OK) {
            n = -1;
            break;
        }
        if (p == NULL) break;
        n++;
    }
    tensor_iter_splitter_free(s);
    return n;
}
