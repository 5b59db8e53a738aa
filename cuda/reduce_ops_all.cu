// all on CUDA: bool output (uint8 for a uint8 input), every input.
#include "cuda/reduce_ops_impl.cuh"

TT_CUDA_ENTRIES(all, "all", "tensor_all (CUDA)", 0.0, (all_any<AllF32, AllF64, AllI64>(iter, a)))
