/* Internal to iterator/: the config struct and the helpers the iterator's .c files share.
 * Not installed (the *_impl.h suffix keeps it private). */
#ifndef TENSOR_ITER_IMPL_H
#define TENSOR_ITER_IMPL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "iterator/iterator.h"
#include "runtime/tensor_impl.h"

#define TENSOR_ITER_NAME_MAX 48
#define TENSOR_ITER_ERROR_MAX 512

struct tensor_iter_config {
    char name[TENSOR_ITER_NAME_MAX];
    unsigned flags;
    int num_outputs;
    int num_inputs;
    tensor_t *outputs[TENSOR_ITER_MAX_OPERANDS]; /* NULL: undefined; else one reference */
    bool out_dtype_declared[TENSOR_ITER_MAX_OPERANDS];
    tensor_dtype out_dtypes[TENSOR_ITER_MAX_OPERANDS];
    tensor_t *inputs[TENSOR_ITER_MAX_OPERANDS]; /* one reference each */
    bool has_static_shape;
    int static_ndim;
    int64_t static_shape[TENSOR_MAX_DIMS];
    bool has_reduce_dims;
    int reduce_ndims; /* 0: all dims */
    int reduce_dims[TENSOR_MAX_DIMS];
    bool keepdim;
    /* The first error of an add/enable call, re-raised by build. */
    tensor_status error;
    char error_msg[TENSOR_ITER_ERROR_MAX];
};

/* A loop's view of (part of) an iterator: what the serial walker needs, with room for one
 * extra operand (the reduction driver's accumulators). */
#define TENSOR_ITER_VIEW_MAX_OPS (TENSOR_ITER_MAX_OPERANDS + 1)
typedef struct iter_view {
    int ndim;
    int64_t shape[TENSOR_MAX_DIMS];
    int nops;
    char *data[TENSOR_ITER_VIEW_MAX_OPS];
    int64_t strides[TENSOR_ITER_VIEW_MAX_OPS][TENSOR_MAX_DIMS];
} iter_view;

/* Called per 2-D block; counter[d] is the block's position (element (0,0)) in the view. */
typedef void (*iter_block_fn)(char **data, const int64_t *strides, int64_t size0, int64_t size1,
                              const int64_t *counter, void *ctx);

/* All operands of iter, as they are. */
void tt_iter_view_from_iter(iter_view *v, const tensor_iter_t *iter);
/* Restricts dim to [start, start + size) (caller checks the range). */
void tt_iter_view_narrow(iter_view *v, int dim, int64_t start, int64_t size);
int64_t tt_iter_view_numel(const iter_view *v);
/* Walks linear indices [begin, end) of v (dim 0 fastest) in 2-D blocks. */
void tt_iter_view_run(const iter_view *v, int64_t begin, int64_t end, iter_block_fn fn, void *ctx);

/* Walks all of v in contiguous linear ranges, on up to tensor_get_num_threads() threads
 * when numel >= grain (serially inside a parallel region). */
void tt_iter_view_run_parallel(const iter_view *v, int64_t grain, iter_block_fn fn, void *ctx);

/* PyTorch's find_split_dim over dims [first, ndim): the outermost dim with size >= n, else
 * the largest (ties: the outer one); -1 when the range is empty. */
int tt_iter_find_split_dim(const int64_t *shape, int first, int ndim, int64_t n);

/* A name into a fixed buffer, cut to fit and always terminated: what snprintf("%s") did, for
 * a tenth of its cost (two per reduction call, on the host path of every tiny one). */
static inline void iter_copy_name(char *dst, size_t size, const char *src) {
    size_t n = strlen(src);
    if (n >= size) n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Element numbers of the part [part * size / parts, (part + 1) * size / parts). */
static inline int64_t iter_part_begin(int64_t size, int64_t parts, int64_t part) {
    /* size * part can overflow only for absurd sizes; divide first in that case. */
    if (part != 0 && size > INT64_MAX / part) return (size / parts) * part + ((size % parts) * part) / parts;
    return size * part / parts;
}

/* true when the current thread is inside an OpenMP parallel region. */
bool tt_iter_in_parallel(void);

/* Sets the thread-local error for a config and remembers it in cfg (first one wins). */
tensor_status tt_iter_config_fail(tensor_iter_config *cfg, tensor_status status);

/* Formats sizes as "[2, 3]" into buf (always NUL-terminated). Returns buf. */
char *tt_iter_format_shape(char *buf, size_t size, int ndim, const int64_t *sizes);

#endif
