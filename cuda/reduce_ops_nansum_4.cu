// nansum on CUDA, the outputs of group 4 (reduce_ops_impl.cuh's
// TT_OUT_GROUP4) with every input dtype. One small translation unit per group so that nvcc
// compiles the instantiations in parallel.
#include "cuda/reduce_ops_impl.cuh"

TT_DEFINE_PART(nansum, 4, NansumF32, NansumF64, NansumI64)
