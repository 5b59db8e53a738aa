// CUDA reduction ops: the functors of ops/functors/*.h instantiated over the kernel template
// of reduce_kernel.cuh, per (input dtype, output dtype), behind extern "C" kernel entries for
// the dispatch table (cuda/register.c).
//
// A combination that is not instantiated here fails with TENSOR_ERR_NOT_IMPLEMENTED (never a
// wrong result). Iterators beyond 32-bit offsets are split (run() below).
#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include "cuda/cuda_backend.h"
#include "cuda/device_internal.h"
#include "cuda/reduce_kernel.cuh"
#include "cuda/reduce_ops.h"
#include "iterator/iterator.h"
#include "ops/dispatch.h"
#include "ops/functors/amax.h"
#include "ops/functors/mean.h"
#include "ops/functors/nansum.h"
#include "ops/functors/prod.h"
#include "ops/functors/sum.h"
#include "runtime/dtype.h"
#include "runtime/dtype_convert.h"
#include "runtime/error.h"

namespace {

// ---- storage types: how an element sits in memory, and its conversions ----
struct Half { uint16_t bits; };
struct BFloat16 { uint16_t bits; };
struct E4M3 { uint8_t bits; };
struct E5M2 { uint8_t bits; };
struct Bool { uint8_t bits; };

// Loading: storage -> value type of the functor (float, double or int64), converting in
// registers (design.md §6: never materialise a converted copy).
template <typename V> __device__ __forceinline__ V load_as(float x) { return (V)x; }
template <typename V> __device__ __forceinline__ V load_as(double x) { return (V)x; }
template <typename V> __device__ __forceinline__ V load_as(Half x) { return (V)tensor_f16_to_f32(x.bits); }
template <typename V> __device__ __forceinline__ V load_as(BFloat16 x) { return (V)tensor_bf16_to_f32(x.bits); }
template <typename V> __device__ __forceinline__ V load_as(E4M3 x) { return (V)tensor_e4m3fn_to_f32(x.bits); }
template <typename V> __device__ __forceinline__ V load_as(E5M2 x) { return (V)tensor_e5m2_to_f32(x.bits); }
template <typename V> __device__ __forceinline__ V load_as(Bool x) { return (V)(x.bits != 0); }
template <typename V> __device__ __forceinline__ V load_as(uint8_t x) { return (V)x; }
template <typename V> __device__ __forceinline__ V load_as(int8_t x) { return (V)x; }
template <typename V> __device__ __forceinline__ V load_as(int16_t x) { return (V)x; }
template <typename V> __device__ __forceinline__ V load_as(int32_t x) { return (V)x; }
template <typename V> __device__ __forceinline__ V load_as(int64_t x) { return (V)x; }

// Storing: the projected value -> the output dtype (round to nearest even for narrow floats).
__device__ __forceinline__ void store_to(char *p, float v, float *) { *reinterpret_cast<float *>(p) = v; }
__device__ __forceinline__ void store_to(char *p, double v, double *) { *reinterpret_cast<double *>(p) = v; }
__device__ __forceinline__ void store_to(char *p, float v, Half *) {
    *reinterpret_cast<uint16_t *>(p) = tensor_f32_to_f16(v);
}
__device__ __forceinline__ void store_to(char *p, float v, BFloat16 *) {
    *reinterpret_cast<uint16_t *>(p) = tensor_f32_to_bf16(v);
}
__device__ __forceinline__ void store_to(char *p, float v, E4M3 *) {
    *reinterpret_cast<uint8_t *>(p) = tensor_f32_to_e4m3fn(v);
}
__device__ __forceinline__ void store_to(char *p, float v, E5M2 *) {
    *reinterpret_cast<uint8_t *>(p) = tensor_f32_to_e5m2(v);
}
// Integers: amax/amin store a value that came from the input, so the narrowing is exact.
__device__ __forceinline__ void store_to(char *p, int64_t v, int64_t *) { *reinterpret_cast<int64_t *>(p) = v; }
__device__ __forceinline__ void store_to(char *p, int64_t v, int32_t *) { *reinterpret_cast<int32_t *>(p) = (int32_t)v; }
__device__ __forceinline__ void store_to(char *p, int64_t v, int16_t *) { *reinterpret_cast<int16_t *>(p) = (int16_t)v; }
__device__ __forceinline__ void store_to(char *p, int64_t v, int8_t *) { *reinterpret_cast<int8_t *>(p) = (int8_t)v; }
__device__ __forceinline__ void store_to(char *p, int64_t v, uint8_t *) { *reinterpret_cast<uint8_t *>(p) = (uint8_t)v; }
__device__ __forceinline__ void store_to(char *p, int64_t v, Bool *) { *reinterpret_cast<uint8_t *>(p) = (uint8_t)(v != 0); }

// ---- functor families: the C functions of ops/functors/*.h under one C++ name ----
#define TT_FAMILY(NAME, OP, SFX, T)                                                            \
    struct NAME {                                                                              \
        using acc_t = T;                                                                       \
        static __device__ __forceinline__ T identity() { return tensor_##OP##_##SFX##_identity(); } \
        static __device__ __forceinline__ T reduce(T a, T x, int64_t i) {                      \
            return tensor_##OP##_##SFX##_reduce(a, x, i);                                      \
        }                                                                                      \
        static __device__ __forceinline__ T combine(T a, T b) { return tensor_##OP##_##SFX##_combine(a, b); } \
        static __device__ __forceinline__ T project(T a, int64_t) { return tensor_##OP##_##SFX##_project(a); } \
    };
// Families whose project needs the number of reduced elements (mean).
#define TT_FAMILY_COUNT(NAME, OP, SFX, T)                                                      \
    struct NAME {                                                                              \
        using acc_t = T;                                                                       \
        static __device__ __forceinline__ T identity() { return tensor_##OP##_##SFX##_identity(); } \
        static __device__ __forceinline__ T reduce(T a, T x, int64_t i) {                      \
            return tensor_##OP##_##SFX##_reduce(a, x, i);                                      \
        }                                                                                      \
        static __device__ __forceinline__ T combine(T a, T b) { return tensor_##OP##_##SFX##_combine(a, b); } \
        static __device__ __forceinline__ T project(T a, int64_t n) { return tensor_##OP##_##SFX##_project(a, n); } \
    };
TT_FAMILY(SumF32, sum, f32, float)
TT_FAMILY(SumF64, sum, f64, double)
TT_FAMILY(SumI64, sum, i64, int64_t)
TT_FAMILY(NansumF32, nansum, f32, float)
TT_FAMILY(NansumF64, nansum, f64, double)
TT_FAMILY(NansumI64, nansum, i64, int64_t)
TT_FAMILY(ProdF32, prod, f32, float)
TT_FAMILY(ProdF64, prod, f64, double)
TT_FAMILY(ProdI64, prod, i64, int64_t)
TT_FAMILY(AmaxF32, amax, f32, float)
TT_FAMILY(AmaxF64, amax, f64, double)
TT_FAMILY(AmaxI64, amax, i64, int64_t)
TT_FAMILY(AminF32, amin, f32, float)
TT_FAMILY(AminF64, amin, f64, double)
TT_FAMILY(AminI64, amin, i64, int64_t)
TT_FAMILY_COUNT(MeanF32, mean, f32, float)
TT_FAMILY_COUNT(MeanF64, mean, f64, double)
#undef TT_FAMILY
#undef TT_FAMILY_COUNT

// The Op struct of reduce_kernel.cuh: a family + an input storage type + an output type.
template <class F, typename In, typename Out>
struct Op {
    using scalar_t = In;
    using out_t = Out;
    using acc_t = typename F::acc_t;
    static __device__ __forceinline__ acc_t load(In x) { return load_as<acc_t>(x); }
    static __device__ __forceinline__ acc_t identity() { return F::identity(); }
    static __device__ __forceinline__ acc_t reduce(acc_t a, acc_t x, int64_t i) { return F::reduce(a, x, i); }
    static __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return F::combine(a, b); }
    static __device__ __forceinline__ void store(char *p, acc_t v, int64_t count) {
        store_to(p, F::project(v, count), static_cast<Out *>(nullptr));
    }
};

// Plans (host C) and launches one 32-bit iterator on the device's current stream; gives the
// staging block back right after the launch: the cache hands it out again only on the same
// stream, i.e. to work queued after this kernel.
template <class O>
tensor_status launch_piece(const tensor_iter_t *iter, char *acc_buf, int64_t reduce_count, const char *func) {
    tensor_cuda_reduce_kind kind = {(int)sizeof(typename O::scalar_t), (int)sizeof(typename O::acc_t)};
    tensor_cuda_reduce_plan plan;
    void *staging = nullptr;
    tensor_status st = tensor_cuda_reduce_plan_make(iter, kind, &plan, &staging, func);
    plan.acc_buf = acc_buf;
    plan.reduce_count = reduce_count;
    if (st == TENSOR_OK) st = tensor_cuda_error(tt_reduce::launch<O>(plan, tensor_cuda_stream_of(iter->device.index)), func);
    tensor_cuda_free(staging);
    return st;
}

// Runs an iterator: one launch when it fits 32-bit offsets, else one launch per piece of the
// iterator's splitter (in order on one stream, which the accumulate/final_output protocol
// relies on), with an accumulation buffer when the output cannot hold partials.
template <class O>
tensor_status run(tensor_iter_t *iter, const char *func) {
    using acc_t = typename O::acc_t;
    using out_t = typename O::out_t;
    int saved;
    if (tensor_cuda_device_enter(iter->device.index, &saved, func) != TENSOR_OK) return tensor_last_status();
    tensor_status st = TENSOR_OK;
    const int64_t count = tensor_iter_numel(iter) / tensor_iter_num_output_elements(iter);
    if (tensor_iter_fits_index_limit(iter, tensor_cuda_reduce_index_limit)) {
        st = launch_piece<O>(iter, nullptr, count, func);
        tensor_cuda_device_restore(saved);
        return st;
    }
    // Accumulators of every output, indexed like the output's elements (dense or not: the
    // buffer spans the output's byte extent, one accumulator per output-element slot).
    void *acc_handle = nullptr;
    char *acc_base = nullptr;
    const bool in_output = std::is_same<acc_t, out_t>::value;
    const char *out0 = iter->operands[0].data;
    if (!in_output) {
        int64_t extent = 0;
        for (int d = 0; d < iter->ndim; d++) extent += (iter->shape[d] - 1) * iter->operands[0].strides[d];
        size_t bytes = (size_t)(extent / (int64_t)sizeof(out_t) + 1) * sizeof(acc_t);
        void *ptr = nullptr;
        st = tensor_cuda_alloc(iter->device.index, bytes, &ptr, &acc_handle, func);
        acc_base = static_cast<char *>(ptr);
    }
    tensor_iter_splitter *sp = st == TENSOR_OK ? tensor_iter_splitter_new(iter, tensor_cuda_reduce_index_limit) : nullptr;
    if (st == TENSOR_OK && sp == nullptr) st = tensor_last_status();
    while (st == TENSOR_OK) {
        const tensor_iter_t *piece = nullptr;
        st = tensor_iter_splitter_next(sp, &piece);
        if (st != TENSOR_OK || piece == nullptr) break;
        char *acc = nullptr;
        if (!in_output)
            acc = acc_base + (size_t)((piece->operands[0].data - out0) / (ptrdiff_t)sizeof(out_t)) * sizeof(acc_t);
        st = launch_piece<O>(piece, acc, count, func);
    }
    tensor_iter_splitter_free(sp);
    tensor_cuda_free(acc_handle); // stream-ordered: reused only by work queued after the pieces
    tensor_cuda_device_restore(saved);
    return st;
}

tensor_status check_iter(const tensor_iter_t *iter, const char *func) {
    if (iter == nullptr) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'iter' is NULL", func);
    if (!tensor_iter_is_reduction(iter) || iter->num_outputs != 1 || tensor_iter_ninputs(iter) != 1)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: expected a reduction iterator with one output and one input",
                            func);
    return TENSOR_OK;
}

tensor_status not_instantiated(const tensor_iter_t *iter, const char *op, const char *func) {
    return tensor_error(TENSOR_ERR_NOT_IMPLEMENTED, "%s: %s from %s to %s is not implemented for CUDA", func, op,
                        tensor_dtype_name(iter->operands[1].dtype), tensor_dtype_name(iter->operands[0].dtype));
}

}  // namespace

namespace {

// Sum-like ops (sum, nansum, prod): float32/float64 in their own type; float16/bfloat16
// accumulate in float32 and store in their own type; float8 accumulate and store float32;
// integers and bool in int64 (ops/ decides these output dtypes; others are not instantiated).
template <class F32, class F64, class I64>
tensor_status sum_like(tensor_iter_t *iter, const char *op, const char *func) {
    tensor_status st = check_iter(iter, func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK; /* ops/ handles empty reductions */
    const tensor_dtype in = iter->operands[1].dtype, out = iter->operands[0].dtype;
    if (out == TENSOR_INT64) {
        switch (in) {
        case TENSOR_BOOL: return run<Op<I64, Bool, int64_t>>(iter, func);
        case TENSOR_UINT8: return run<Op<I64, uint8_t, int64_t>>(iter, func);
        case TENSOR_INT8: return run<Op<I64, int8_t, int64_t>>(iter, func);
        case TENSOR_INT16: return run<Op<I64, int16_t, int64_t>>(iter, func);
        case TENSOR_INT32: return run<Op<I64, int32_t, int64_t>>(iter, func);
        case TENSOR_INT64: return run<Op<I64, int64_t, int64_t>>(iter, func);
        default: break;
        }
    } else if (out == TENSOR_FLOAT32) {
        switch (in) {
        case TENSOR_FLOAT32: return run<Op<F32, float, float>>(iter, func);
        case TENSOR_FLOAT8_E4M3FN: return run<Op<F32, E4M3, float>>(iter, func);
        case TENSOR_FLOAT8_E5M2: return run<Op<F32, E5M2, float>>(iter, func);
        default: break;
        }
    } else if (out == TENSOR_FLOAT64 && in == TENSOR_FLOAT64) {
        return run<Op<F64, double, double>>(iter, func);
    } else if (out == TENSOR_FLOAT16 && in == TENSOR_FLOAT16) {
        return run<Op<F32, Half, Half>>(iter, func);
    } else if (out == TENSOR_BFLOAT16 && in == TENSOR_BFLOAT16) {
        return run<Op<F32, BFloat16, BFloat16>>(iter, func);
    }
    return not_instantiated(iter, op, func);
}

// amax/amin: the output has the input's dtype; values are compared in the functor's value
// type (exact for every dtype: float16/bfloat16/float8 widen to float exactly).
template <class F32, class F64, class I64>
tensor_status minmax_like(tensor_iter_t *iter, const char *op, const char *func) {
    tensor_status st = check_iter(iter, func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    const tensor_dtype in = iter->operands[1].dtype, out = iter->operands[0].dtype;
    if (in != out) return not_instantiated(iter, op, func);
    switch (in) {
    case TENSOR_BOOL: return run<Op<I64, Bool, Bool>>(iter, func);
    case TENSOR_UINT8: return run<Op<I64, uint8_t, uint8_t>>(iter, func);
    case TENSOR_INT8: return run<Op<I64, int8_t, int8_t>>(iter, func);
    case TENSOR_INT16: return run<Op<I64, int16_t, int16_t>>(iter, func);
    case TENSOR_INT32: return run<Op<I64, int32_t, int32_t>>(iter, func);
    case TENSOR_INT64: return run<Op<I64, int64_t, int64_t>>(iter, func);
    case TENSOR_FLOAT32: return run<Op<F32, float, float>>(iter, func);
    case TENSOR_FLOAT64: return run<Op<F64, double, double>>(iter, func);
    case TENSOR_FLOAT16: return run<Op<F32, Half, Half>>(iter, func);
    case TENSOR_BFLOAT16: return run<Op<F32, BFloat16, BFloat16>>(iter, func);
    case TENSOR_FLOAT8_E4M3FN: return run<Op<F32, E4M3, E4M3>>(iter, func);
    case TENSOR_FLOAT8_E5M2: return run<Op<F32, E5M2, E5M2>>(iter, func);
    default: return not_instantiated(iter, op, func);
    }
}

// mean: float inputs only (ops/ rejects integers or asks for a float dtype, which is not
// instantiated here); float16/bfloat16 divide the float32 sum, then round once; float8 gives
// float32.
tensor_status mean_kernel(tensor_iter_t *iter, const char *func) {
    tensor_status st = check_iter(iter, func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    const tensor_dtype in = iter->operands[1].dtype, out = iter->operands[0].dtype;
    if (out == TENSOR_FLOAT32 && in == TENSOR_FLOAT32) return run<Op<MeanF32, float, float>>(iter, func);
    if (out == TENSOR_FLOAT32 && in == TENSOR_FLOAT8_E4M3FN) return run<Op<MeanF32, E4M3, float>>(iter, func);
    if (out == TENSOR_FLOAT32 && in == TENSOR_FLOAT8_E5M2) return run<Op<MeanF32, E5M2, float>>(iter, func);
    if (out == TENSOR_FLOAT64 && in == TENSOR_FLOAT64) return run<Op<MeanF64, double, double>>(iter, func);
    if (out == TENSOR_FLOAT16 && in == TENSOR_FLOAT16) return run<Op<MeanF32, Half, Half>>(iter, func);
    if (out == TENSOR_BFLOAT16 && in == TENSOR_BFLOAT16) return run<Op<MeanF32, BFloat16, BFloat16>>(iter, func);
    return not_instantiated(iter, "mean", func);
}

}  // namespace

extern "C" tensor_status tensor_cuda_mean_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    (void)params;
    return mean_kernel(iter, "tensor_mean (CUDA)");
}
extern "C" tensor_status tensor_cuda_sum_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    (void)params;
    return sum_like<SumF32, SumF64, SumI64>(iter, "sum", "tensor_sum (CUDA)");
}
extern "C" tensor_status tensor_cuda_nansum_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    (void)params;
    return sum_like<NansumF32, NansumF64, NansumI64>(iter, "nansum", "tensor_nansum (CUDA)");
}
extern "C" tensor_status tensor_cuda_prod_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    (void)params;
    return sum_like<ProdF32, ProdF64, ProdI64>(iter, "prod", "tensor_prod (CUDA)");
}
extern "C" tensor_status tensor_cuda_amax_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    (void)params;
    return minmax_like<AmaxF32, AmaxF64, AmaxI64>(iter, "amax", "tensor_amax (CUDA)");
}
extern "C" tensor_status tensor_cuda_amin_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    (void)params;
    return minmax_like<AminF32, AminF64, AminI64>(iter, "amin", "tensor_amin (CUDA)");
}
