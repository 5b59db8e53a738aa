/* tensor_sum_of_squares: the public function of docs/functors.md's worked example. The
 * checks, the output dtype and shape, empty inputs and the kernel call are the reduction
 * frontend's (ops/reduce.c); this file only says which op it is and what its identity is. */
#include "ops/ops.h"
#include "ops/reduce_internal.h"

tensor_t *tensor_sum_of_squares(const tensor_t *t, const int *dims, int ndims, bool keepdim) {
    /* {name in messages, PyTorch-style prefix, stub-table slot, has an identity, the identity
     *  (what an empty reduction gives), dims = [] reduces all dims} */
    static const reduce_desc d = {"tensor_sum_of_squares", "sum_of_squares():", TENSOR_OP_SUM_OF_SQUARES, true, 0.0,
                                  true};
    if (tensor_reduce_check_input(t, d.func) != TENSOR_OK) return NULL;
    return tensor_reduce_single(&d, t, dims, ndims, keepdim, tensor_reduce_sum_dtype(t->dtype, TENSOR_DTYPE_DEFAULT),
                                NULL);
}
