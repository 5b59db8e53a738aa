// norm (p = 0, 1, 2, inf, -inf, any real p; p reaches the kernel as the plan's op_param) and
// logsumexp on CUDA.
#include "cuda/reduce_ops_impl.cuh"

TT_CUDA_ENTRIES(norm, "norm", "tensor_norm (CUDA)", (params ? params->p : 2.0), (norm_impl(iter, a)))
TT_CUDA_ENTRIES(logsumexp, "logsumexp", "tensor_logsumexp (CUDA)", 0.0, (logsumexp_impl(iter, a)))
