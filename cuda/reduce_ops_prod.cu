// tensor_prod on CUDA: every (input, output) dtype pair (reduce_ops_impl.cuh's by_output).
#include "cuda/reduce_ops_impl.cuh"

TT_CUDA_ENTRIES(prod, "prod", "tensor_prod (CUDA)", 0.0, (by_output<ProdF32, ProdF64, ProdI64>(iter, a)))
