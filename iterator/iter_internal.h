/* Internal: the iterator's layout, for the library's own modules (the backends read the plan's
 * fields directly to build offset calculators and launch configurations). Not installed:
 * programs see tensor_iter_t as an opaque type and read it through iterator/iterator.h's
 * accessors, so the layout may change without breaking them. */
#ifndef TENSOR_ITER_INTERNAL_H
#define TENSOR_ITER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "iterator/iterator.h"

/* One operand. All arrays are indexed by computation dim (< ndim of the iterator). */
typedef struct tensor_iter_operand {
    /* Address of the element at computation index (0, ..., 0): the tensor's data plus any
     * narrowing. Host or device memory (see `device`). May be NULL when numel is 0. */
    char *data;
    /* Byte strides per computation dim; 0 on broadcast dims, and on reduced dims for
     * outputs. Never negative. */
    int64_t strides[TENSOR_MAX_DIMS];
    tensor_dtype dtype;   /* the operand's own dtype: what a kernel loads or stores */
    tensor_device device;
    bool is_output;
    bool is_allocated;  /* an undefined output that build allocated */
    bool is_read_write; /* an output that is the same tensor as an input (in place) */
    /* The user-visible tensor, one reference owned by the iterator: for outputs, the logical
     * output (keepdim or not), whether given or allocated. Use tensor_iter_output() to get
     * a reference of your own. */
    tensor_t *tensor;
} tensor_iter_operand;

/* The plan. Fields are readable by kernels and backends (the CUDA host code reads them to
 * build offset calculators and launch configs); treat them as read-only and change an
 * iterator only through the functions below. */
struct tensor_iter {
    int ndim;                            /* computation dims (0 for an all-0-d iteration) */
    int64_t shape[TENSOR_MAX_DIMS];      /* computation shape, dim 0 fastest */
    int num_operands;                    /* outputs + inputs */
    int num_outputs;
    tensor_iter_operand operands[TENSOR_ITER_MAX_OPERANDS];
    /* Computation dtype; TENSOR_NUM_DTYPES when undefined (inputs differ, no promotion). */
    tensor_dtype common_dtype;
    tensor_device device;                /* the common device */
    bool is_reduction;
    /* Set by splits of a reduced dim (32-bit indexing), as PyTorch's: accumulate = an
     * earlier piece already holds partials to combine with; final_output = this piece
     * writes final (projected) values. An unsplit iterator has false / true. */
    bool accumulate;
    bool final_output;
    /* Start of this piece along each computation dim, in units of base_shape's dims (all 0
     * for a fresh iterator). Arg-reductions add it to their local index (index base). */
    int64_t view_offsets[TENSOR_MAX_DIMS];
    int64_t base_shape[TENSOR_MAX_DIMS]; /* the computation shape when built */
    /* Before coalescing: the broadcast (logical) shape and the permutation. perm[i] is the
     * logical dim at computation position i (i = 0 fastest); computation dim d of the
     * coalesced shape covers perm[perm_groups[d]] .. perm[perm_groups[d+1] - 1]. */
    int logical_ndim;
    int64_t logical_shape[TENSOR_MAX_DIMS];
    int perm[TENSOR_MAX_DIMS];
    int perm_groups[TENSOR_MAX_DIMS + 1];
    char name[48]; /* function name used in messages */
};

#endif
