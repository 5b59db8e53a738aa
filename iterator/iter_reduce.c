/* Reduction queries on a built iterator: which computation dims are reduced, how many
 * outputs there are, and where a (split) piece starts in the reduced index space. */
#include "iterator/iter_impl.h"
#include "iterator/iter_internal.h"

bool tensor_iter_is_reduction(const tensor_iter_t *iter) { return iter ? iter->is_reduction : false; }

int tensor_iter_num_reduce_dims(const tensor_iter_t *iter) {
    if (iter == NULL || !iter->is_reduction || iter->num_outputs == 0) return 0;
    /* Reduced dims are a prefix by construction (reorder puts them first). */
    int n = 0;
    while (n < iter->ndim && iter->operands[0].strides[n] == 0) n++;
    return n;
}

bool tensor_iter_is_dim_reduced(const tensor_iter_t *iter, int dim) {
    if (iter == NULL || !iter->is_reduction || dim < 0 || dim >= iter->ndim || iter->shape[dim] <= 1) return false;
    for (int a = 0; a < iter->num_outputs; a++)
        if (iter->operands[a].strides[dim] == 0) return true;
    return false;
}

int64_t tensor_iter_num_output_elements(const tensor_iter_t *iter) {
    if (iter == NULL) return 0;
    int64_t n = 1;
    for (int d = 0; d < iter->ndim; d++)
        if (!iter->is_reduction || iter->num_outputs == 0 || iter->operands[0].strides[d] != 0 || iter->shape[d] == 0)
            n *= iter->shape[d];
    return n;
}

bool tensor_iter_accumulate(const tensor_iter_t *iter) { return iter ? iter->accumulate : false; }
bool tensor_iter_final_output(const tensor_iter_t *iter) { return iter ? iter->final_output : true; }
const int64_t *tensor_iter_view_offsets(const tensor_iter_t *iter) { return iter ? iter->view_offsets : NULL; }

int64_t tensor_iter_reduce_index_base(const tensor_iter_t *iter) {
    if (iter == NULL) return 0;
    int r = tensor_iter_num_reduce_dims(iter);
    int64_t base = 0, scale = 1;
    for (int d = 0; d < r; d++) {
        base += iter->view_offsets[d] * scale;
        scale *= iter->base_shape[d];
    }
    return base;
}
