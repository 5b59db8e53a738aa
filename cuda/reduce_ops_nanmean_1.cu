// nanmean on CUDA, the outputs of group 1 (reduce_ops_impl.cuh's
// TT_OUT_GROUP1) with every input dtype. One small translation unit per group so that nvcc
// compiles the instantiations in parallel.
#include "cuda/reduce_ops_impl.cuh"

TT_DEFINE_PART(nanmean, 1, NanmeanF32, NanmeanF64, NanmeanF64)
