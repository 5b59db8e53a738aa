// argmax / argmin on CUDA: (value, index) accumulators, int64 output, every input but bool;
// the index is the kernel's local index plus the plan's index_base (split pieces).
#include "cuda/reduce_ops_impl.cuh"

TT_CUDA_ENTRIES(argmax, "argmax", "tensor_argmax (CUDA)", 0.0, (to_int64<ArgmaxF32, ArgmaxF64, ArgmaxI64>(iter, a)))
TT_CUDA_ENTRIES(argmin, "argmin", "tensor_argmin (CUDA)", 0.0, (to_int64<ArgminF32, ArgminF64, ArgminI64>(iter, a)))
