// Strided device copies on the elementwise engine (cuda/loops.cuh): CUDA -> CUDA with any
// strides, broadcast (stride 0) sources and any dtype pair, so tensor_contiguous, tensor_clone,
// tensor_to (dtype) work for every CUDA tensor. Same-dtype copies move raw words of the
// element's size (one instantiation per size, not per dtype); dtype changes are in
// cuda/copy_cast.cu.
#include <cuda_runtime.h>

#include "cuda/copy_ops.h"
#include "cuda/cuda_backend.h"
#include "cuda/loops.cuh"
#include "iterator/iterator.h"
#include "runtime/error.h"
#include "runtime/tensor.h"

namespace {

template <typename T> struct Identity {
    using arg_t = T;
    using res_t = T;
    static constexpr int nin = 1;
    __device__ __forceinline__ T operator()(T x) const { return x; }
};

template <typename W> tensor_status copy_words(tensor_iter_t *iter, const char *func) {
    return tt_loops::gpu_kernel<W, W>(iter, Identity<W>{}, func, /*raw_bits=*/true);
}

}  // namespace

extern "C" tensor_status tensor_cuda_copy_iter(tensor_iter_t *iter, const char *func) {
    if (iter == nullptr) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'iter' is NULL", func);
    if (iter->num_outputs != 1 || iter->num_operands != 2)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: a copy needs 1 output and 1 input", func);
    const tensor_dtype dt = iter->operands[0].dtype, st = iter->operands[1].dtype;
    if (dt != st) return tensor_cuda_copy_cast_iter(iter, func);
    switch (tensor_dtype_size(dt)) {
    case 1: return copy_words<uint8_t>(iter, func);
    case 2: return copy_words<uint16_t>(iter, func);
    case 4: return copy_words<uint32_t>(iter, func);
    case 8: return copy_words<uint64_t>(iter, func);
    default: return tensor_error(TENSOR_ERR_DTYPE, "%s: unknown dtype %d", func, (int)dt);
    }
}

// runtime/copy.c's entry (cuda/cuda_backend.h): dst and src have the same shape and sit on the
// same CUDA device; src may be any view (strided, expanded, offset).
extern "C" tensor_status tensor_cuda_copy(tensor_t *dst, const tensor_t *src, const char *func) {
    tensor_iter_config *cfg = tensor_iter_config_new(func);
    if (cfg == nullptr) return tensor_last_status();
    // A copy converts: dst keeps its dtype whatever src's is (no promotion, no cast check).
    tensor_iter_config_disable(cfg, TENSOR_ITER_SAME_DTYPE);
    tensor_iter_config_add_output(cfg, dst);
    tensor_iter_config_add_input(cfg, src);
    tensor_iter_t *iter = tensor_iter_build(cfg);
    tensor_iter_config_free(cfg);
    if (iter == nullptr) return tensor_last_status();
    tensor_status st = tensor_cuda_copy_iter(iter, func);
    tensor_iter_free(iter);
    return st;
}
