// tensor_mean and tensor_nanmean on CUDA: every input dtype into every float output ops/ can
// ask for (float32, float64, float16, bfloat16; a float8 dtype= gives float32): the input is
// cast to the output's value set while loading (reduce_ops_impl.cuh's by_output). mean's
// project divides by the element count of the WHOLE iterator (the plan's reduce_count), so
// split pieces divide once, at the end; nanmean counts its non-NaN elements.
#include "cuda/reduce_ops_impl.cuh"

TT_CUDA_ENTRIES(mean, "mean", "tensor_mean (CUDA)", 0.0, (by_output<MeanF32, MeanF64, MeanF64, true>(iter, a)))
TT_CUDA_ENTRIES(nanmean, "nanmean", "tensor_nanmean (CUDA)", 0.0,
                (by_output<NanmeanF32, NanmeanF64, NanmeanF64, true>(iter, a)))
