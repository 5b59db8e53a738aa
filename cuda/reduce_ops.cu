// CUDA reduction entries, one small translation unit per op family so that nvcc compiles the
// instantiations in parallel (the machinery: reduce_ops_impl.cuh). Here: amax and amin (the
// input's dtype, compared exactly).
#include "cuda/reduce_ops_impl.cuh"

TT_CUDA_ENTRIES(amax, "amax", "tensor_amax (CUDA)", 0.0, (minmax_like<AmaxF32, AmaxF64, AmaxI64>(iter, a)))
TT_CUDA_ENTRIES(amin, "amin", "tensor_amin (CUDA)", 0.0, (minmax_like<AminF32, AminF64, AminI64>(iter, a)))
