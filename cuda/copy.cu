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

template <typename T> struct Identity : tt_loops::DirectCasts<T> {
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

// ---- the elementwise API's copy and fill (TENSOR_OP_EW_COPY / TENSOR_OP_EW_FILL) ----

#include "cuda/elementwise_ops.cuh"
#include "cuda/elementwise_ops.h"
#include "iterator/iter_internal.h"

namespace {
using tt_ew::EwCasts;
using tt_ew::Family;

// COPY's per-element rule (docs/elementwise.md): load through the output dtype's value set in
// its compute type, store. Used for pairs whose result could differ from cvt's (int64 ->
// float32 rounds once here, through double in runtime/copy.c).
TT_EW_OP1(EwCopyF32, , float, float)
TT_EW_OP1(EwCopyF64, , double, double)
TT_EW_OP1(EwCopyI64, , int64_t, int64_t)
using EwCopy = Family<EwCopyF32, EwCopyF64, EwCopyI64>;

bool float_family(tensor_dtype d) {
    return d == TENSOR_FLOAT16 || d == TENSOR_BFLOAT16 || d == TENSOR_FLOAT32 || d == TENSOR_FLOAT64;
}

// Writes a fixed word: FILL's value, converted on the host once.
template <typename W> struct FillWord : tt_loops::DirectCasts<W> {
    using arg_t = W;
    using res_t = W;
    static constexpr int nin = 0;
    W w;
    __device__ __forceinline__ W operator()() const { return w; }
};

template <typename W> tensor_status fill_words(tensor_iter_t *iter, const void *bits, const char *func) {
    FillWord<W> op{};
    memcpy(&op.w, bits, sizeof(W));
    return tt_loops::gpu_kernel<W, W>(iter, op, func, /*raw_bits=*/true);
}

}  // namespace

extern "C" tensor_status tensor_cuda_ew_copy_kernel(tensor_iter_t *iter, const tensor_kernel_params *p) {
    const char *func = "tensor_copy_ (CUDA)";
    if (iter == nullptr || p == nullptr)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func, iter ? "params" : "iter");
    if (iter->num_operands != 2)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: a copy needs 1 output and 1 input", func);
    const tensor_dtype d = iter->operands[0].dtype, s = iter->operands[1].dtype;
    // Same dtype: the bits (PyTorch's copy_ keeps NaN payloads). Float pairs: cvt's rules are
    // COPY's there (cuda/convert.cuh), and copy_cast has typed, vectorised kernels for them.
    if (d == s || (float_family(d) && float_family(s) && iter->operands[1].device.type == TENSOR_DEVICE_CUDA))
        return tensor_cuda_copy_iter(iter, func);
    tensor_kernel_params q = *p;
    q.ew_dtype = (int)d; // COPY's common dtype is the output's
    return tt_ew::run<EwCopy>(iter, &q, -1, func);
}

extern "C" tensor_status tensor_cuda_ew_fill_kernel(tensor_iter_t *iter, const tensor_kernel_params *p) {
    const char *func = "tensor_fill_ (CUDA)";
    if (iter == nullptr || p == nullptr)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func, iter ? "params" : "iter");
    if (iter->num_operands != 1)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: a fill needs 1 output and no input", func);
    const tensor_dtype d = iter->operands[0].dtype;
    uint64_t bits = 0; // the element, as the CPU backend would store it
    if (tensor_dtype_is_floating(d)) tensor_ew_store_f64(d, &bits, p->scalar);
    else tensor_ew_store_i64(d, &bits, p->scalar_i);
    switch (tensor_dtype_size(d)) {
    case 1: return fill_words<uint8_t>(iter, &bits, func);
    case 2: return fill_words<uint16_t>(iter, &bits, func);
    case 4: return fill_words<uint32_t>(iter, &bits, func);
    case 8: return fill_words<uint64_t>(iter, &bits, func);
    default: return tensor_error(TENSOR_ERR_DTYPE, "%s: unknown dtype %d", func, (int)d);
    }
}
