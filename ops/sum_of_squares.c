/* tensor_sum_of_squares: the public function of docs/functors.md's worked example. The
 * checks, the output dtype and shape, empty inputs and the kernel call are the reduction
 * frontend's (ops/reduce.c); this file only says which op it is and what its identity is. */
#include "ops/ops.h"
#include "ops/reduce_internal.h"

tensor_t *tensor_sum_of_squares(const tensor_t *t, const int *dims, int ndims, bool keepdim) {
    /* Its identity, empty rule and messages come from its row in contract/reductions.h. */
    const reduce_desc d = tensor_reduce_desc(TENSOR_OP_SUM_OF_SQUARES, "tensor_sum_of_squares");
    if (tensor_reduce_check_input(t, d.func) != TENSOR_OK) return NULL;
    return tensor_reduce_single(&d, t, dims, ndims, keepdim, tensor_reduce_sum_dtype(t->dtype, TENSOR_DTYPE_DEFAULT),
                                NULL);
}
