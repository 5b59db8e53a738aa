// CUDA reduction ops: the functors of ops/functors/*.h instantiated over the kernel template
// of reduce_kernel.cuh, per (input dtype, output dtype), behind extern "C" kernel entries for
// the dispatch table (cuda/register.c).
//
// A combination that is not instantiated here fails with TENSOR_ERR_NOT_IMPLEMENTED (never a
// wrong result). Iterators beyond 32-bit offsets are split (run() below).
#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <type_traits>

#include "cuda/cuda_backend.h"
#include "cuda/device_internal.h"
#include "cuda/reduce_kernel.cuh"
#include "cuda/reduce_ops.h"
#include "iterator/iterator.h"
#include "ops/dispatch.h"
#include "ops/functors/all.h"
#include "ops/functors/amax.h"
#include "ops/functors/any.h"
#include "ops/functors/argmax.h"
#include "ops/functors/count_nonzero.h"
#include "ops/functors/logsumexp.h"
#include "ops/functors/mean.h"
#include "ops/functors/nansum.h"
#include "ops/functors/norm.h"
#include "ops/functors/prod.h"
#include "ops/functors/sum.h"
#include "ops/functors/sum_of_squares.h"
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
// all / any: a bool result, stored as bool or (uint8 input) as uint8 0/1.
__device__ __forceinline__ void store_to(char *p, bool v, Bool *) { *reinterpret_cast<uint8_t *>(p) = (uint8_t)v; }
__device__ __forceinline__ void store_to(char *p, bool v, uint8_t *) { *reinterpret_cast<uint8_t *>(p) = (uint8_t)v; }

// ---- functor families: the C functions of ops/functors/*.h under one C++ name ----
// val_t: the element's value type (what load gives); acc_t: the accumulator. reduce and
// project take the op's scalar parameter (norm's p) and project the element count (mean);
// families that need neither ignore them.
#define TT_FAMILY_VA(NAME, OP, SFX, VAL, ACC)                                                   \
    struct NAME {                                                                              \
        using val_t = VAL;                                                                     \
        using acc_t = ACC;                                                                     \
        static __device__ __forceinline__ ACC identity() { return tensor_##OP##_##SFX##_identity(); } \
        static __device__ __forceinline__ ACC reduce(ACC a, VAL x, int64_t i, double) {        \
            return tensor_##OP##_##SFX##_reduce(a, x, i);                                      \
        }                                                                                      \
        static __device__ __forceinline__ ACC combine(ACC a, ACC b) { return tensor_##OP##_##SFX##_combine(a, b); } \
        static __device__ __forceinline__ auto project(ACC a, int64_t, double) {               \
            return tensor_##OP##_##SFX##_project(a);                                           \
        }                                                                                      \
    };
#define TT_FAMILY(NAME, OP, SFX, T) TT_FAMILY_VA(NAME, OP, SFX, T, T)
// Families whose project needs the number of reduced elements (mean).
#define TT_FAMILY_COUNT(NAME, OP, SFX, T)                                                      \
    struct NAME {                                                                              \
        using val_t = T;                                                                       \
        using acc_t = T;                                                                       \
        static __device__ __forceinline__ T identity() { return tensor_##OP##_##SFX##_identity(); } \
        static __device__ __forceinline__ T reduce(T a, T x, int64_t i, double) {              \
            return tensor_##OP##_##SFX##_reduce(a, x, i);                                      \
        }                                                                                      \
        static __device__ __forceinline__ T combine(T a, T b) { return tensor_##OP##_##SFX##_combine(a, b); } \
        static __device__ __forceinline__ T project(T a, int64_t n, double) { return tensor_##OP##_##SFX##_project(a, n); } \
    };
// norm with a general p: p in the value type, as the CPU backend (cpu/reduce_ops.c).
#define TT_FAMILY_NORMP(NAME, SFX, T)                                                          \
    struct NAME {                                                                              \
        using val_t = T;                                                                       \
        using acc_t = T;                                                                       \
        static __device__ __forceinline__ T identity() { return tensor_normp_##SFX##_identity(); } \
        static __device__ __forceinline__ T reduce(T a, T x, int64_t i, double p) {            \
            return tensor_normp_##SFX##_reduce(a, x, i, (T)p);                                 \
        }                                                                                      \
        static __device__ __forceinline__ T combine(T a, T b) { return tensor_normp_##SFX##_combine(a, b); } \
        static __device__ __forceinline__ T project(T a, int64_t, double p) { return tensor_normp_##SFX##_project(a, (T)p); } \
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
TT_FAMILY(SumSqF32, sum_of_squares, f32, float)
TT_FAMILY(SumSqF64, sum_of_squares, f64, double)
TT_FAMILY(SumSqI64, sum_of_squares, i64, int64_t)
TT_FAMILY_VA(ArgmaxF32, argmax, f32, float, tensor_validx_f32)
TT_FAMILY_VA(ArgmaxF64, argmax, f64, double, tensor_validx_f64)
TT_FAMILY_VA(ArgmaxI64, argmax, i64, int64_t, tensor_validx_i64)
TT_FAMILY_VA(ArgminF32, argmin, f32, float, tensor_validx_f32)
TT_FAMILY_VA(ArgminF64, argmin, f64, double, tensor_validx_f64)
TT_FAMILY_VA(ArgminI64, argmin, i64, int64_t, tensor_validx_i64)
TT_FAMILY_VA(CountNzF32, count_nonzero, f32, float, int64_t)
TT_FAMILY_VA(CountNzF64, count_nonzero, f64, double, int64_t)
TT_FAMILY_VA(CountNzI64, count_nonzero, i64, int64_t, int64_t)
TT_FAMILY_VA(AllF32, all, f32, float, bool)
TT_FAMILY_VA(AllF64, all, f64, double, bool)
TT_FAMILY_VA(AllI64, all, i64, int64_t, bool)
TT_FAMILY_VA(AnyF32, any, f32, float, bool)
TT_FAMILY_VA(AnyF64, any, f64, double, bool)
TT_FAMILY_VA(AnyI64, any, i64, int64_t, bool)
TT_FAMILY_VA(LseF32, logsumexp, f32, float, tensor_logsumexp_f32)
TT_FAMILY_VA(LseF64, logsumexp, f64, double, tensor_logsumexp_f64)
TT_FAMILY(Norm0F32, norm0, f32, float)
TT_FAMILY(Norm0F64, norm0, f64, double)
TT_FAMILY(Norm1F32, norm1, f32, float)
TT_FAMILY(Norm1F64, norm1, f64, double)
TT_FAMILY(Norm2F32, norm2, f32, float)
TT_FAMILY(Norm2F64, norm2, f64, double)
TT_FAMILY(NormInfF32, norminf, f32, float)
TT_FAMILY(NormInfF64, norminf, f64, double)
TT_FAMILY(NormNinfF32, normninf, f32, float)
TT_FAMILY(NormNinfF64, normninf, f64, double)
TT_FAMILY_NORMP(NormPF32, f32, float)
TT_FAMILY_NORMP(NormPF64, f64, double)
#undef TT_FAMILY
#undef TT_FAMILY_VA
#undef TT_FAMILY_COUNT
#undef TT_FAMILY_NORMP

// nanmean: the sum of the non-NaN elements and their count (the CPU's cpu_nanmean_acc, less
// its compensation); project divides (0 / 0 = NaN for an all-NaN row).
template <typename T>
struct NanmeanAcc {
    T sum;
    int64_t n;
};
template <typename T>
struct Nanmean {
    using val_t = T;
    using acc_t = NanmeanAcc<T>;
    static __device__ __forceinline__ acc_t identity() { return acc_t{(T)0, 0}; }
    static __device__ __forceinline__ acc_t reduce(acc_t a, T x, int64_t, double) {
        return x != x ? a : acc_t{a.sum + x, a.n + 1};
    }
    static __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return acc_t{a.sum + b.sum, a.n + b.n}; }
    static __device__ __forceinline__ T project(acc_t a, int64_t, double) { return a.sum / (T)a.n; }
};
using NanmeanF32 = Nanmean<float>;
using NanmeanF64 = Nanmean<double>;

// The Op struct of reduce_kernel.cuh: a family + an input storage type + an output type.
template <class F, typename In, typename Out>
struct Op {
    using scalar_t = In;
    using out_t = Out;
    using acc_t = typename F::acc_t;
    using val_t = typename F::val_t;
    static __device__ __forceinline__ val_t load(In x) { return load_as<val_t>(x); }
    static __device__ __forceinline__ acc_t identity() { return F::identity(); }
    static __device__ __forceinline__ acc_t reduce(acc_t a, val_t x, int64_t i, double prm) {
        return F::reduce(a, x, i, prm);
    }
    static __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return F::combine(a, b); }
    static __device__ __forceinline__ void store(char *p, acc_t v, int64_t count, double prm) {
        store_to(p, F::project(v, count, prm), static_cast<Out *>(nullptr));
    }
};

// Plans (host C) and launches one 32-bit iterator on the device's current stream; gives the
// staging block back right after the launch: the cache hands it out again only on the same
// stream, i.e. to work queued after this kernel.
template <class O>
tensor_status launch_piece(const tensor_iter_t *iter, char *acc_buf, int64_t reduce_count, double param,
                           const char *func) {
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
tensor_status run(tensor_iter_t *iter, const char *func, double param = 0.0) {
    using acc_t = typename O::acc_t;
    using out_t = typename O::out_t;
    int saved;
    if (tensor_cuda_device_enter(iter->device.index, &saved, func) != TENSOR_OK) return tensor_last_status();
    tensor_status st = TENSOR_OK;
    const int64_t count = tensor_iter_numel(iter) / tensor_iter_num_output_elements(iter);
    if (tensor_iter_fits_index_limit(iter, tensor_cuda_reduce_index_limit)) {
        st = launch_piece<O>(iter, nullptr, count, param, func);
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
        st = launch_piece<O>(piece, acc, count, param, func);
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

// mean-like ops (mean, nanmean, norm): float inputs only (ops/ rejects integers or asks for
// a float dtype, which is not instantiated here); float16/bfloat16 accumulate in float32 and
// round once; float8 gives float32.
template <class F32, class F64>
tensor_status float_like(tensor_iter_t *iter, const char *op, const char *func, double param = 0.0) {
    tensor_status st = check_iter(iter, func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    const tensor_dtype in = iter->operands[1].dtype, out = iter->operands[0].dtype;
    if (out == TENSOR_FLOAT32 && in == TENSOR_FLOAT32) return run<Op<F32, float, float>>(iter, func, param);
    if (out == TENSOR_FLOAT32 && in == TENSOR_FLOAT8_E4M3FN) return run<Op<F32, E4M3, float>>(iter, func, param);
    if (out == TENSOR_FLOAT32 && in == TENSOR_FLOAT8_E5M2) return run<Op<F32, E5M2, float>>(iter, func, param);
    if (out == TENSOR_FLOAT64 && in == TENSOR_FLOAT64) return run<Op<F64, double, double>>(iter, func, param);
    if (out == TENSOR_FLOAT16 && in == TENSOR_FLOAT16) return run<Op<F32, Half, Half>>(iter, func, param);
    if (out == TENSOR_BFLOAT16 && in == TENSOR_BFLOAT16) return run<Op<F32, BFloat16, BFloat16>>(iter, func, param);
    return not_instantiated(iter, op, func);
}

// logsumexp: as float_like, plus integer and bool inputs converted to float32 (as PyTorch).
tensor_status logsumexp_kernel(tensor_iter_t *iter, const char *func) {
    tensor_status st = check_iter(iter, func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    const tensor_dtype in = iter->operands[1].dtype, out = iter->operands[0].dtype;
    if (out == TENSOR_FLOAT32) {
        switch (in) {
        case TENSOR_BOOL: return run<Op<LseF32, Bool, float>>(iter, func);
        case TENSOR_UINT8: return run<Op<LseF32, uint8_t, float>>(iter, func);
        case TENSOR_INT8: return run<Op<LseF32, int8_t, float>>(iter, func);
        case TENSOR_INT16: return run<Op<LseF32, int16_t, float>>(iter, func);
        case TENSOR_INT32: return run<Op<LseF32, int32_t, float>>(iter, func);
        case TENSOR_INT64: return run<Op<LseF32, int64_t, float>>(iter, func);
        default: break;
        }
    }
    return float_like<LseF32, LseF64>(iter, "logsumexp", func);
}

// Ops with a fixed output dtype whose value type follows the input (count_nonzero, argmax,
// argmin: int64; all/any: bool, or uint8 for a uint8 input): every input dtype, compared
// exactly in float (16-bit and 8-bit floats widen exactly), double or int64.
template <class F32, class F64, class I64, typename Out>
tensor_status by_input(tensor_iter_t *iter, const char *op, const char *func) {
    const tensor_dtype in = iter->operands[1].dtype;
    switch (in) {
    case TENSOR_BOOL: return run<Op<I64, Bool, Out>>(iter, func);
    case TENSOR_UINT8: return run<Op<I64, uint8_t, Out>>(iter, func);
    case TENSOR_INT8: return run<Op<I64, int8_t, Out>>(iter, func);
    case TENSOR_INT16: return run<Op<I64, int16_t, Out>>(iter, func);
    case TENSOR_INT32: return run<Op<I64, int32_t, Out>>(iter, func);
    case TENSOR_INT64: return run<Op<I64, int64_t, Out>>(iter, func);
    case TENSOR_FLOAT32: return run<Op<F32, float, Out>>(iter, func);
    case TENSOR_FLOAT64: return run<Op<F64, double, Out>>(iter, func);
    case TENSOR_FLOAT16: return run<Op<F32, Half, Out>>(iter, func);
    case TENSOR_BFLOAT16: return run<Op<F32, BFloat16, Out>>(iter, func);
    case TENSOR_FLOAT8_E4M3FN: return run<Op<F32, E4M3, Out>>(iter, func);
    case TENSOR_FLOAT8_E5M2: return run<Op<F32, E5M2, Out>>(iter, func);
    default: return not_instantiated(iter, op, func);
    }
}

template <class F32, class F64, class I64>
tensor_status to_int64(tensor_iter_t *iter, const char *op, const char *func) {
    tensor_status st = check_iter(iter, func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    if (iter->operands[0].dtype != TENSOR_INT64) return not_instantiated(iter, op, func);
    return by_input<F32, F64, I64, int64_t>(iter, op, func);
}

template <class F32, class F64, class I64>
tensor_status all_any(tensor_iter_t *iter, const char *op, const char *func) {
    tensor_status st = check_iter(iter, func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    const tensor_dtype out = iter->operands[0].dtype;
    if (out == TENSOR_BOOL) return by_input<F32, F64, I64, Bool>(iter, op, func);
    if (out == TENSOR_UINT8) return by_input<F32, F64, I64, uint8_t>(iter, op, func);
    return not_instantiated(iter, op, func);
}

}  // namespace

extern "C" tensor_status tensor_cuda_nanmean_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    (void)params;
    return float_like<NanmeanF32, NanmeanF64>(iter, "nanmean", "tensor_nanmean (CUDA)");
}
extern "C" tensor_status tensor_cuda_sum_of_squares_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    (void)params;
    return sum_like<SumSqF32, SumSqF64, SumSqI64>(iter, "sum_of_squares", "tensor_sum_of_squares (CUDA)");
}
extern "C" tensor_status tensor_cuda_argmax_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    (void)params;
    return to_int64<ArgmaxF32, ArgmaxF64, ArgmaxI64>(iter, "argmax", "tensor_argmax (CUDA)");
}
extern "C" tensor_status tensor_cuda_argmin_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    (void)params;
    return to_int64<ArgminF32, ArgminF64, ArgminI64>(iter, "argmin", "tensor_argmin (CUDA)");
}
extern "C" tensor_status tensor_cuda_count_nonzero_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    (void)params;
    return to_int64<CountNzF32, CountNzF64, CountNzI64>(iter, "count_nonzero", "tensor_count_nonzero (CUDA)");
}
extern "C" tensor_status tensor_cuda_all_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    (void)params;
    return all_any<AllF32, AllF64, AllI64>(iter, "all", "tensor_all (CUDA)");
}
extern "C" tensor_status tensor_cuda_any_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    (void)params;
    return all_any<AnyF32, AnyF64, AnyI64>(iter, "any", "tensor_any (CUDA)");
}
extern "C" tensor_status tensor_cuda_logsumexp_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    (void)params;
    return logsumexp_kernel(iter, "tensor_logsumexp (CUDA)");
}
// norm: the functor picked from p once per call, as the CPU backend (cpu/reduce_ops.c).
extern "C" tensor_status tensor_cuda_norm_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    const char *func = "tensor_norm (CUDA)";
    const double p = params ? params->p : 2.0;
    if (p == 0.0) return float_like<Norm0F32, Norm0F64>(iter, "norm", func);
    if (p == 1.0) return float_like<Norm1F32, Norm1F64>(iter, "norm", func);
    if (p == 2.0) return float_like<Norm2F32, Norm2F64>(iter, "norm", func);
    if (p == INFINITY) return float_like<NormInfF32, NormInfF64>(iter, "norm", func);
    if (p == -INFINITY) return float_like<NormNinfF32, NormNinfF64>(iter, "norm", func);
    return float_like<NormPF32, NormPF64>(iter, "norm", func, p);
}
extern "C" tensor_status tensor_cuda_mean_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    (void)params;
    return float_like<MeanF32, MeanF64>(iter, "mean", "tensor_mean (CUDA)");
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
