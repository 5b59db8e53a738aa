/* Internal to iterator/: the state of one tensor_iter_build call, shared by its stages
 * (iter_shape.c, iter_types.c, iter_build.c). Not installed. */
#ifndef TENSOR_ITER_BUILD_IMPL_H
#define TENSOR_ITER_BUILD_IMPL_H

#include "iterator/iter_impl.h"

typedef struct iter_build_op {
    tensor_t *t; /* borrowed from the config; NULL for an undefined output until allocated */
    bool is_output;
    bool will_alloc;     /* undefined output: build allocates it */
    bool declared_dtype; /* output dtype fixed by add_output_dtype */
    tensor_dtype dtype;  /* the tensor's dtype, or the dtype to allocate */
    tensor_device device;
    /* The geometry iterated, in elements, right-aligned against the shape: the tensor's own,
     * or for reduction outputs the keepdim view with stride 0 on reduced dims. */
    int vndim;
    int64_t vsizes[TENSOR_MAX_DIMS];
    int64_t vstrides[TENSOR_MAX_DIMS];
    /* Byte strides per logical dim of the shape (after compute_strides). */
    int64_t bstrides[TENSOR_MAX_DIMS];
} iter_build_op;

typedef struct iter_build {
    const tensor_iter_config *cfg;
    const char *name;
    unsigned flags;
    bool reduction;
    int nops;
    int nout;
    iter_build_op ops[TENSOR_ITER_MAX_OPERANDS];
    int ndim; /* the broadcast (logical) shape */
    int64_t shape[TENSOR_MAX_DIMS];
    bool has_mask; /* reduction dims given through reduce_dims */
    bool mask[TENSOR_MAX_DIMS];
    bool keepdim;
    tensor_dtype common_dtype; /* TENSOR_NUM_DTYPES: undefined */
    tensor_device device;
    int perm[TENSOR_MAX_DIMS];
} iter_build;

/* Stages, in order; each returns TENSOR_OK or records an error naming b->name. */
tensor_status tt_iter_compute_shape(iter_build *b);
tensor_status tt_iter_compute_output_views(iter_build *b);
tensor_status tt_iter_compute_device(iter_build *b);
tensor_status tt_iter_compute_types(iter_build *b);
tensor_status tt_iter_check_overlap(iter_build *b);
/* true when a and b are the same elements (same storage, offset, dtype size, sizes, strides). */
bool tt_iter_same_elements(const tensor_t *a, const tensor_t *b);

#endif
