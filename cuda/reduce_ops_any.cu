// any on CUDA: bool output (uint8 for a uint8 input), every input.
#include "cuda/reduce_ops_impl.cuh"

TT_CUDA_ENTRIES(any, "any", "tensor_any (CUDA)", 0.0, (all_any<AnyF32, AnyF64, AnyI64>(iter, a)))
