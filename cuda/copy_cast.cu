// Copies that change the dtype (cuda/copy.cu handles the others). The common pairs get typed
// kernels, which the engine vectorises (float32 -> bfloat16: 16-byte loads, 8-byte stores);
// every other pair runs the engine's dynamic casting (a run-time switch per element) through
// a hub type: int64 between integers and bool, double otherwise. Both give runtime/copy.c's
// results bit for bit (cuda/convert.cuh explains why the float hub equals the double one).
#include <cuda_runtime.h>

#include "cuda/copy_ops.h"
#include "cuda/loops.cuh"
#include "iterator/iterator.h"
#include "runtime/error.h"
#include "iterator/iter_internal.h"

namespace {

using namespace tt_loops;

template <typename T> struct Identity : tt_loops::DirectCasts<T> {
    using arg_t = T;
    using res_t = T;
    static constexpr int nin = 1;
    __device__ __forceinline__ T operator()(T x) const { return x; }
};

// The kernel loads S, and the engine's store converts to D: cvt<D>(S).
template <typename D, typename S> tensor_status typed(tensor_iter_t *iter, const char *func) {
    return gpu_kernel<D, S>(iter, Identity<S>{}, func);
}

// Floating pairs among float16, bfloat16, float32, float64.
template <typename D> tensor_status from_float_family(tensor_iter_t *iter, tensor_dtype s, const char *func, bool *done) {
    *done = true;
    switch (s) {
    case TENSOR_FLOAT16: return typed<D, Half>(iter, func);
    case TENSOR_BFLOAT16: return typed<D, BFloat16>(iter, func);
    case TENSOR_FLOAT32: return typed<D, float>(iter, func);
    case TENSOR_FLOAT64: return typed<D, double>(iter, func);
    default: *done = false; return TENSOR_OK;
    }
}

bool is_int_or_bool(tensor_dtype d) { return !tensor_dtype_is_floating(d); }
bool in_float_family(tensor_dtype d) {
    return d == TENSOR_FLOAT16 || d == TENSOR_BFLOAT16 || d == TENSOR_FLOAT32 || d == TENSOR_FLOAT64;
}

}  // namespace

extern "C" tensor_status tensor_cuda_copy_cast_iter(tensor_iter_t *iter, const char *func) {
    const tensor_dtype d = iter->operands[0].dtype, s = iter->operands[1].dtype;
    bool done = false;
    tensor_status st = TENSOR_OK;
    if (in_float_family(d) && in_float_family(s) && d != s) {
        switch (d) {
        case TENSOR_FLOAT16: st = from_float_family<Half>(iter, s, func, &done); break;
        case TENSOR_BFLOAT16: st = from_float_family<BFloat16>(iter, s, func, &done); break;
        case TENSOR_FLOAT32: st = from_float_family<float>(iter, s, func, &done); break;
        default: st = from_float_family<double>(iter, s, func, &done); break;
        }
        if (done) return st;
    }
    // A few integer <-> float32 pairs that real programs use (indices, masks, images).
    if (d == TENSOR_FLOAT32 && s == TENSOR_INT64) return typed<float, int64_t>(iter, func);
    if (d == TENSOR_FLOAT32 && s == TENSOR_INT32) return typed<float, int32_t>(iter, func);
    if (d == TENSOR_FLOAT32 && s == TENSOR_UINT8) return typed<float, uint8_t>(iter, func);
    if (d == TENSOR_FLOAT32 && s == TENSOR_BOOL) return typed<float, Bool>(iter, func);
    if (d == TENSOR_INT64 && s == TENSOR_INT32) return typed<int64_t, int32_t>(iter, func);
    if (d == TENSOR_INT32 && s == TENSOR_INT64) return typed<int32_t, int64_t>(iter, func);
    // The rest: dynamic casting through a hub (the engine sees dtypes that differ from the hub's
    // and converts while loading and storing).
    if (is_int_or_bool(d) && is_int_or_bool(s)) return gpu_kernel<int64_t, int64_t>(iter, Identity<int64_t>{}, func);
    return gpu_kernel<double, double>(iter, Identity<double>{}, func);
}
