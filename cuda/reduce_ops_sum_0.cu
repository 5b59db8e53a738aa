// sum on CUDA, the outputs of group 0 (reduce_ops_impl.cuh's
// TT_OUT_GROUP0) with every input dtype. One small translation unit per group so that nvcc
// compiles the instantiations in parallel.
#include "cuda/reduce_ops_impl.cuh"

TT_DEFINE_PART(sum, 0, SumF32, SumF64, SumI64)
