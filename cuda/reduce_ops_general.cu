// The entries of the general forms, sum / nansum / prod (any output dtype) and mean / nanmean
// (any float output dtype): by_output picks the part (reduce_ops_<op>_<k>.cu) of the output
// dtype; the parts instantiate every input for their outputs.
#include "cuda/reduce_ops_impl.cuh"

namespace {
const part_fn sum_parts[6] = {tt_ops::sum_part0, tt_ops::sum_part1, tt_ops::sum_part2,
                              tt_ops::sum_part3, tt_ops::sum_part4, tt_ops::sum_part5};
const part_fn nansum_parts[6] = {tt_ops::nansum_part0, tt_ops::nansum_part1, tt_ops::nansum_part2,
                                 tt_ops::nansum_part3, tt_ops::nansum_part4, tt_ops::nansum_part5};
const part_fn prod_parts[6] = {tt_ops::prod_part0, tt_ops::prod_part1, tt_ops::prod_part2,
                               tt_ops::prod_part3, tt_ops::prod_part4, tt_ops::prod_part5};
// mean / nanmean: float outputs only (groups 0 and 1; ops/ turns a float8 dtype= into float32).
const part_fn mean_parts[6] = {tt_ops::mean_part0, tt_ops::mean_part1, nullptr, nullptr, nullptr, nullptr};
const part_fn nanmean_parts[6] = {tt_ops::nanmean_part0, tt_ops::nanmean_part1, nullptr, nullptr, nullptr, nullptr};
}  // namespace

TT_CUDA_ENTRIES(sum, "sum", "tensor_sum (CUDA)", 0.0, (by_output(iter, a, sum_parts)))
TT_CUDA_ENTRIES(nansum, "nansum", "tensor_nansum (CUDA)", 0.0, (by_output(iter, a, nansum_parts)))
TT_CUDA_ENTRIES(prod, "prod", "tensor_prod (CUDA)", 0.0, (by_output(iter, a, prod_parts)))
TT_CUDA_ENTRIES(mean, "mean", "tensor_mean (CUDA)", 0.0, (by_output(iter, a, mean_parts)))
TT_CUDA_ENTRIES(nanmean, "nanmean", "tensor_nanmean (CUDA)", 0.0, (by_output(iter, a, nanmean_parts)))
