// tensor_nansum on CUDA: every (input, output) dtype pair (reduce_ops_impl.cuh's by_output);
// integer outputs have no NaN to skip (the int64 family is sum's).
#include "cuda/reduce_ops_impl.cuh"

TT_CUDA_ENTRIES(nansum, "nansum", "tensor_nansum (CUDA)", 0.0, (by_output<NansumF32, NansumF64, NansumI64>(iter, a)))
