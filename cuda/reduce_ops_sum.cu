// tensor_sum on CUDA: every (input, output) dtype pair ops/ can ask for (reduce_ops_impl.cuh's
// by_output). One file per op so that nvcc compiles the instantiations in parallel.
#include "cuda/reduce_ops_impl.cuh"

TT_CUDA_ENTRIES(sum, "sum", "tensor_sum (CUDA)", 0.0, (by_output<SumF32, SumF64, SumI64>(iter, a)))
