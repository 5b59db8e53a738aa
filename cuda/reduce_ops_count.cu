// count_nonzero (int64 output, every input) and sum_of_squares (sum's default dtypes) on CUDA.
#include "cuda/reduce_ops_impl.cuh"

TT_CUDA_ENTRIES(count_nonzero, "count_nonzero", "tensor_count_nonzero (CUDA)", 0.0,
                (to_int64<CountNzF32, CountNzF64, CountNzI64>(iter, a)))
TT_CUDA_ENTRIES(sum_of_squares, "sum_of_squares", "tensor_sum_of_squares (CUDA)", 0.0,
                (sum_like<SumSqF32, SumSqF64, SumSqI64>(iter, a)))
