// Internal to cuda/reduce_ops*.cu: the storage types, loads and stores, the functor families
// (ops/functors/*.h under C++ names), the Op struct of reduce_kernel.cuh, the 32-bit splitting
// driver and the per-dtype dispatchers shared by the translation units of the CUDA reduction
// ops. Split in several .cu files only so that nvcc compiles the (many) instantiations in
// parallel; everything here has internal linkage (one copy per translation unit).
//
// Every dispatcher picks an Op (functor family x input storage type x output type) from the
// iterator's dtypes and hands it to an Act: the kernel entry's Act launches it (run<O>), the
// explain entry's Act prints the launch plan of exactly that Op (describe<O>), so the two
// cannot disagree. A combination not instantiated fails with TENSOR_ERR_NOT_IMPLEMENTED (never
// a wrong result).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
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
#include "ops/functors/max.h"
#include "ops/functors/mean.h"
#include "ops/functors/nansum.h"
#include "ops/functors/norm.h"
#include "ops/functors/prod.h"
#include "ops/functors/sum.h"
#include "ops/functors/sum_of_squares.h"
#include "ops/functors/welford.h"
#include "runtime/dtype.h"
#include "runtime/dtype_convert.h"
#include "runtime/error.h"

namespace tt_ops {

// What a dispatcher does with the Op it picked: launch it, or describe its launch. (Named
// namespace: the by_output parts below take it across translation units.)
struct Act {
    const char *func;     // for messages: "tensor_sum (CUDA)"
    const char *op;       // "sum"
    const tensor_kernel_params *params;
    double param;         // the kernel's scalar (norm's p)
    bool explain;
    char *buf;            // explain's text (snprintf contract over len)
    size_t size;
    int64_t len;
};

inline Act kernel_act(const char *func, const char *op, const tensor_kernel_params *params, double param = 0.0) {
    Act a = {func, op, params, param, false, nullptr, 0, 0};
    return a;
}
inline Act explain_act(const char *func, const char *op, const tensor_kernel_params *params, char *buf, size_t size,
                       double param = 0.0) {
    Act a = {func, op, params, param, true, buf, size, 0};
    return a;
}

// The general forms (sum, nansum, prod, mean, nanmean) instantiate every input for every output
// dtype: 36 kernels per output dtype. Each (op, pair of output dtypes) lives in its own
// translation unit, cuda/reduce_ops_<op>_<k>.cu (three lines each), so that nvcc compiles them in parallel; part k handles the outputs TT_OUT_GROUP k lists and answers
// "not implemented" for the others.
#define TT_PART_DECL(OP) \
    tensor_status OP##_part0(tensor_iter_t *, Act &); \
    tensor_status OP##_part1(tensor_iter_t *, Act &); \
    tensor_status OP##_part2(tensor_iter_t *, Act &); \
    tensor_status OP##_part3(tensor_iter_t *, Act &); \
    tensor_status OP##_part4(tensor_iter_t *, Act &); \
    tensor_status OP##_part5(tensor_iter_t *, Act &);
TT_PART_DECL(sum)
TT_PART_DECL(nansum)
TT_PART_DECL(prod)
TT_PART_DECL(mean)
TT_PART_DECL(nanmean)
#undef TT_PART_DECL

}  // namespace tt_ops

namespace {

// ---- storage types: how an element sits in memory, and its conversions ----
struct Half { uint16_t bits; };
struct BFloat16 { uint16_t bits; };
struct E4M3 { uint8_t bits; };
struct E5M2 { uint8_t bits; };
struct Bool { uint8_t bits; };

// float -> int64 as the CPU backend (cpu_f64_to_i64): truncation toward zero; NaN and values
// out of int64's range give INT64_MIN (x86's answer), never C++'s undefined behaviour.
__device__ __forceinline__ int64_t f2i64(double x) {
    return (x > -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}
template <typename V> __device__ __forceinline__ V from_float(float x) { return (V)x; }
template <> __device__ __forceinline__ int64_t from_float<int64_t>(float x) { return f2i64((double)x); }
template <typename V> __device__ __forceinline__ V from_double(double x) { return (V)x; }
template <> __device__ __forceinline__ int64_t from_double<int64_t>(double x) { return f2i64(x); }

// Loading: storage -> value type of the functor (float, double or int64), converting in
// registers (design.md §6: never materialise a converted copy).
template <typename V> __device__ __forceinline__ V load_as(float x) { return from_float<V>(x); }
template <typename V> __device__ __forceinline__ V load_as(double x) { return from_double<V>(x); }
template <typename V> __device__ __forceinline__ V load_as(Half x) { return from_float<V>(tensor_f16_to_f32(x.bits)); }
template <typename V> __device__ __forceinline__ V load_as(BFloat16 x) { return from_float<V>(tensor_bf16_to_f32(x.bits)); }
template <typename V> __device__ __forceinline__ V load_as(E4M3 x) { return from_float<V>(tensor_e4m3fn_to_f32(x.bits)); }
template <typename V> __device__ __forceinline__ V load_as(E5M2 x) { return from_float<V>(tensor_e5m2_to_f32(x.bits)); }
template <typename V> __device__ __forceinline__ V load_as(Bool x) { return (V)(x.bits != 0); }
template <typename V> __device__ __forceinline__ V load_as(uint8_t x) { return (V)x; }
template <typename V> __device__ __forceinline__ V load_as(int8_t x) { return (V)x; }
template <typename V> __device__ __forceinline__ V load_as(int16_t x) { return (V)x; }
template <typename V> __device__ __forceinline__ V load_as(int32_t x) { return (V)x; }
template <typename V> __device__ __forceinline__ V load_as(int64_t x) { return (V)x; }

// PyTorch's "cast to dtype=, then reduce" (and the CPU backend's converters, cpu_convert.c):
// when the output dtype is narrower than the value type, each element goes through the
// output's value set first: a float value rounds through float16 / bfloat16 / float8, an
// int64 value becomes x != 0 for a bool output. Nothing happens when the input already has
// the output's dtype, or the output is float32 / float64 / a wider integer.
template <typename Out> __device__ __forceinline__ float via(float v) { return v; }
template <> __device__ __forceinline__ float via<Half>(float v) { return tensor_f16_to_f32(tensor_f32_to_f16(v)); }
template <> __device__ __forceinline__ float via<BFloat16>(float v) {
    return tensor_bf16_to_f32(tensor_f32_to_bf16(v));
}
template <> __device__ __forceinline__ float via<E4M3>(float v) { return tensor_e4m3fn_to_f32(tensor_f32_to_e4m3fn(v)); }
template <> __device__ __forceinline__ float via<E5M2>(float v) { return tensor_e5m2_to_f32(tensor_f32_to_e5m2(v)); }
template <typename Out> __device__ __forceinline__ double via(double v) { return v; }
template <typename Out> __device__ __forceinline__ int64_t via(int64_t v) { return v; }
template <> __device__ __forceinline__ int64_t via<Bool>(int64_t v) { return (int64_t)(v != 0); }
// The value loaded for an element of In reduced into an Out output.
template <typename V, typename In, typename Out> __device__ __forceinline__ V load_for(In x) {
    if constexpr (std::is_same<In, Out>::value) return load_as<V>(x);
    // To bool: x != 0 on the element as it is (0.5 is true), not on its truncation.
    else if constexpr (std::is_same<Out, Bool>::value && std::is_same<V, int64_t>::value)
        return (int64_t)(load_as<double>(x) != 0.0);
    else if constexpr (std::is_same<V, float>::value || std::is_same<V, int64_t>::value) return via<Out>(load_as<V>(x));
    else return load_as<V>(x);
}

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

// max_dim / min_dim: (value, index) accumulators of max.h, two outputs: the value in the
// input's dtype, the index as int64. No dtype parameter: the value type is the input's own.
#define TT_FAMILY_VALIDX2(NAME, OP, SFX, T)                                                     \
    struct NAME {                                                                              \
        using val_t = T;                                                                       \
        using acc_t = tensor_validx_##SFX;                                                     \
        static constexpr bool two_outputs = true;                                              \
        static __device__ __forceinline__ acc_t identity() { return tensor_##OP##_##SFX##_identity(); } \
        static __device__ __forceinline__ acc_t reduce(acc_t a, T x, int64_t i, double) {      \
            return tensor_##OP##_##SFX##_reduce(a, x, i);                                      \
        }                                                                                      \
        static __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return tensor_##OP##_##SFX##_combine(a, b); } \
        static __device__ __forceinline__ T project(acc_t a, const tensor_cuda_reduce_plan &) { \
            return tensor_##OP##_##SFX##_project_value(a);                                     \
        }                                                                                      \
        static __device__ __forceinline__ int64_t project2(acc_t a, const tensor_cuda_reduce_plan &) { \
            return tensor_##OP##_##SFX##_project_index(a);                                     \
        }                                                                                      \
    };
TT_FAMILY_VALIDX2(MaxDimF32, max, f32, float)
TT_FAMILY_VALIDX2(MaxDimF64, max, f64, double)
TT_FAMILY_VALIDX2(MaxDimI64, max, i64, int64_t)
TT_FAMILY_VALIDX2(MinDimF32, min, f32, float)
TT_FAMILY_VALIDX2(MinDimF64, min, f64, double)
TT_FAMILY_VALIDX2(MinDimI64, min, i64, int64_t)
#undef TT_FAMILY_VALIDX2

// var / std / var_mean / std_mean: Welford (welford.h), two outputs: var or std (the plan's
// correction and take_sqrt) and the mean, both in the output dtype. float32 for 16-bit,
// float8 and float32 inputs (as PyTorch's CUDA Welford: var(1e7 + arange(10)) = 9.1666670),
// double for float64. The CPU backend runs every dtype in double: results agree within
// float32 rounding, not bitwise.
#define TT_FAMILY_WELFORD(NAME, SFX, T)                                                         \
    struct NAME {                                                                              \
        using val_t = T;                                                                       \
        using acc_t = tensor_welford_##SFX;                                                    \
        static constexpr bool two_outputs = true;                                              \
        static __device__ __forceinline__ acc_t identity() { return tensor_welford_##SFX##_identity(); } \
        static __device__ __forceinline__ acc_t reduce(acc_t a, T x, int64_t i, double) {      \
            return tensor_welford_##SFX##_reduce(a, x, i);                                     \
        }                                                                                      \
        static __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return tensor_welford_##SFX##_combine(a, b); } \
        static __device__ __forceinline__ T project(acc_t a, const tensor_cuda_reduce_plan &p) { \
            return tensor_welford_##SFX##_project_var(a, p.correction, p.take_sqrt != 0);      \
        }                                                                                      \
        static __device__ __forceinline__ T project2(acc_t a, const tensor_cuda_reduce_plan &) { \
            return tensor_welford_##SFX##_project_mean(a);                                     \
        }                                                                                      \
    };
TT_FAMILY_WELFORD(WelfordF32, f32, float)
TT_FAMILY_WELFORD(WelfordF64, f64, double)
#undef TT_FAMILY_WELFORD

// Families that return an input element (amax/amin, argmax/argmin, max/min with indices):
// their float16 loads keep a NaN's sign (tensor_f16_to_f32's fix-up after the cvt). Every
// other family only computes with the value, and a PTX add/mul/fma turns any NaN operand into
// the canonical NaN anyway, so its loads take the bare cvt: 2 instructions per float16
// element instead of ~11 (a float16 row sum of 4096^2 ran 12.6 instructions per element
// against torch's 4.5 on an H100, 0.94x its speed).
template <class F> struct keeps_values : std::false_type {};
#define TT_KEEPS_VALUES(F) template <> struct keeps_values<F> : std::true_type {};
TT_KEEPS_VALUES(AmaxF32)
TT_KEEPS_VALUES(AmaxF64)
TT_KEEPS_VALUES(AminF32)
TT_KEEPS_VALUES(AminF64)
TT_KEEPS_VALUES(ArgmaxF32)
TT_KEEPS_VALUES(ArgmaxF64)
TT_KEEPS_VALUES(ArgminF32)
TT_KEEPS_VALUES(ArgminF64)
TT_KEEPS_VALUES(MaxDimF32)
TT_KEEPS_VALUES(MaxDimF64)
TT_KEEPS_VALUES(MinDimF32)
TT_KEEPS_VALUES(MinDimF64)
#undef TT_KEEPS_VALUES

__device__ __forceinline__ float f16_bare(uint16_t h) {
    float r;
    asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h));
    return r;
}

// Whether a family has a second output (project2); one-output families say nothing.
template <class F, class = void> struct has_two : std::false_type {};
template <class F> struct has_two<F, std::void_t<decltype(F::two_outputs)>> : std::bool_constant<F::two_outputs> {};

// The sums with 8-byte accumulators: they fit the full-occupancy register cap of
// reduce_kernel.cuh's Bounds (ptxas: 32 registers, no spill stores, for the float64 sum and
// the int64 sums of int8 / int32 / int64); the other 8-byte families keep 64 (the p-norm
// spilled 440 bytes under 32, the 0-norm 4). Not every input type of these families fits
// under 32 (int8 / uint8 into float64: 88 / 28 bytes of spills; float32 nansum into
// float64 and float8_e5m2 into int64: 4): Op::fits_32_registers leaves those at 64.
template <class F>
struct is_sum64 : std::bool_constant<std::is_same<F, SumF64>::value || std::is_same<F, SumI64>::value ||
                                     std::is_same<F, NansumF64>::value || std::is_same<F, NansumI64>::value ||
                                     std::is_same<F, MeanF64>::value || std::is_same<F, SumSqF64>::value ||
                                     std::is_same<F, SumSqI64>::value> {};

// The Op struct of reduce_kernel.cuh: a family + an input storage type + an output type.
template <class F, typename In, typename Out>
struct Op {
    using scalar_t = In;
    using out_t = Out;
    using acc_t = typename F::acc_t;
    using val_t = typename F::val_t;
    // int8 / uint8 summed into int64 (any integer output but bool, whose loads are x != 0):
    // the kernel's input-vectorised path sums them with __dp4a (reduce_kernel.cuh).
    static constexpr bool byte_sum = std::is_same<F, SumI64>::value && !std::is_same<Out, Bool>::value &&
                                     (std::is_same<In, int8_t>::value || std::is_same<In, uint8_t>::value);
    // 8-byte accumulators that fit 32 registers. Inputs of one byte other than the __dp4a byte
    // sums (int8 / uint8 into float64, float8, bool) spilled under 32 registers (ptxas: up to
    // 88 bytes), as did float32 into a float64 nansum (4 bytes); they keep 64.
    static constexpr bool fits_32_registers =
        is_sum64<F>::value && (byte_sum || sizeof(In) >= 2) &&
        !(std::is_same<F, NansumF64>::value && std::is_same<In, float>::value);
    static __device__ __forceinline__ val_t load(In x) {
        if constexpr (std::is_same<In, Half>::value && !keeps_values<F>::value &&
                      (std::is_same<Out, Half>::value || std::is_same<Out, float>::value ||
                       std::is_same<Out, double>::value))
            return load_as<val_t>(f16_bare(x.bits));
        else
            return load_for<val_t, In, Out>(x);
    }
    static __device__ __forceinline__ acc_t identity() { return F::identity(); }
    static __device__ __forceinline__ acc_t reduce(acc_t a, val_t x, int64_t i, double prm) {
        return F::reduce(a, x, i, prm);
    }
    static __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return F::combine(a, b); }
    static __device__ __forceinline__ void store(char *p, char *p2, acc_t v, const tensor_cuda_reduce_plan &plan) {
        if constexpr (has_two<F>::value) {
            store_to(p, F::project(v, plan), static_cast<Out *>(nullptr));
            // max_dim's indices are int64; var_mean's mean has the first output's dtype.
            if constexpr (std::is_same<decltype(F::project2(v, plan)), int64_t>::value)
                store_to(p2, F::project2(v, plan), static_cast<int64_t *>(nullptr));
            else
                store_to(p2, F::project2(v, plan), static_cast<Out *>(nullptr));
        } else {
            (void)p2;
            store_to(p, F::project(v, plan.reduce_count, plan.op_param), static_cast<Out *>(nullptr));
        }
    }
};

using tt_ops::Act;
using tt_ops::explain_act;
using tt_ops::kernel_act;

// Plans (host C) and launches one 32-bit iterator on the device's current stream; gives the
// staging block back right after the launch: the cache hands it out again only on the same
// stream, i.e. to work queued after this kernel.
template <class O>
tensor_status launch_piece(const tensor_iter_t *iter, char *acc_buf, int64_t reduce_count, const Act &a) {
    tensor_cuda_reduce_kind kind = {(int)sizeof(typename O::scalar_t), (int)sizeof(typename O::acc_t)};
    tensor_cuda_reduce_plan plan;
    void *staging = nullptr;
    tensor_status st = tensor_cuda_reduce_plan_make(iter, kind, &plan, &staging, a.func);
    plan.acc_buf = acc_buf;
    plan.reduce_count = reduce_count;
    plan.op_param = a.param;
    if (a.params != nullptr) {
        plan.correction = a.params->correction;
        plan.take_sqrt = a.params->take_sqrt;
    }
    if (st == TENSOR_OK)
        st = tensor_cuda_error(tt_reduce::launch<O>(plan, tensor_cuda_stream_of(iter->device.index)), a.func);
    tensor_cuda_free(staging);
    return st;
}

// Runs an iterator: one launch when it fits 32-bit offsets, else one launch per piece of the
// iterator's splitter (in order on one stream, which the accumulate/final_output protocol
// relies on), with an accumulation buffer when the output cannot hold partials.
template <class O>
tensor_status run(tensor_iter_t *iter, const Act &a) {
    using acc_t = typename O::acc_t;
    using out_t = typename O::out_t;
    const char *func = a.func;
    int saved;
    if (tensor_cuda_device_enter(iter->device.index, &saved, func) != TENSOR_OK) return tensor_last_status();
    tensor_status st = TENSOR_OK;
    const int64_t count = tensor_iter_numel(iter) / tensor_iter_num_output_elements(iter);
    if (tensor_iter_fits_index_limit(iter, tensor_cuda_reduce_index_limit)) {
        st = launch_piece<O>(iter, nullptr, count, a);
        tensor_cuda_device_restore(saved);
        return st;
    }
    // Accumulators of every output, indexed like the (first) output's elements (dense or not:
    // the buffer spans the output's byte extent, one accumulator per output-element slot).
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
        st = launch_piece<O>(piece, acc, count, a);
    }
    tensor_iter_splitter_free(sp);
    tensor_cuda_free(acc_handle); // stream-ordered: reused only by work queued after the pieces
    tensor_cuda_device_restore(saved);
    return st;
}

// Explain: the plan of the Op's launch (or of each launch of a split iterator, the first few
// shown), through tensor_cuda_reduce_explain: the planning call the launch makes.
template <class O>
tensor_status describe(const tensor_iter_t *iter, Act &a) {
    tensor_cuda_reduce_kind kind = {(int)sizeof(typename O::scalar_t), (int)sizeof(typename O::acc_t)};
    tensor_cuda_props props;
    tensor_status st = tensor_cuda_reduce_device_props(iter->device.index, &props, a.func);
    if (st != TENSOR_OK) return st;
    char what[160];
    snprintf(what, sizeof what, "%s, %s -> %s%s%s", a.op, tensor_dtype_name(iter->operands[iter->num_outputs].dtype),
             tensor_dtype_name(iter->operands[0].dtype), iter->num_outputs == 2 ? " + " : "",
             iter->num_outputs == 2 ? tensor_dtype_name(iter->operands[1].dtype) : "");
    auto put = [&](const tensor_iter_t *it) -> tensor_status {
        size_t off = (size_t)a.len;
        char *dst = a.buf != nullptr && off < a.size ? a.buf + off : nullptr;
        int64_t n = tensor_cuda_reduce_explain(it, &props, kind, what, dst, dst != nullptr ? a.size - off : 0);
        if (n < 0) return tensor_last_status();
        a.len += n;
        return TENSOR_OK;
    };
    if (tensor_iter_fits_index_limit(iter, tensor_cuda_reduce_index_limit)) return put(iter);
    tensor_iter_splitter *sp = tensor_iter_splitter_new(iter, tensor_cuda_reduce_index_limit);
    if (sp == nullptr) return tensor_last_status();
    int64_t n = 0;
    const int shown = 4;
    while (st == TENSOR_OK) {
        const tensor_iter_t *piece = nullptr;
        st = tensor_iter_splitter_next(sp, &piece);
        if (st != TENSOR_OK || piece == nullptr) break;
        if (n < shown) st = put(piece);
        n++;
    }
    tensor_iter_splitter_free(sp);
    if (st == TENSOR_OK && n > shown) {
        size_t off = (size_t)a.len;
        char *dst = a.buf != nullptr && off < a.size ? a.buf + off : nullptr;
        int k = snprintf(dst, dst != nullptr ? a.size - off : 0, "  ... %lld launches in all (32-bit pieces)\n",
                         (long long)n);
        if (k > 0) a.len += k;
    }
    return st;
}

template <class O>
tensor_status act(tensor_iter_t *iter, Act &a) {
    return a.explain ? describe<O>(iter, a) : run<O>(iter, a);
}

inline tensor_status check_iter(const tensor_iter_t *iter, int nout, const char *func) {
    if (iter == nullptr) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'iter' is NULL", func);
    if (!tensor_iter_is_reduction(iter) || iter->num_outputs != nout || tensor_iter_ninputs(iter) != 1)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: expected a reduction iterator with %d output%s and one input",
                            func, nout, nout == 1 ? "" : "s");
    return TENSOR_OK;
}

inline tensor_status not_instantiated(const tensor_iter_t *iter, const Act &a) {
    return tensor_error(TENSOR_ERR_NOT_IMPLEMENTED, "%s: %s from %s to %s is not implemented for CUDA", a.func, a.op,
                        tensor_dtype_name(iter->operands[iter->num_outputs].dtype),
                        tensor_dtype_name(iter->operands[0].dtype));
}

// Every input storage type, for a family F and output type Out (F32 / F64 / I64 picked by the
// caller). The value type follows F: integer inputs of a float family convert to float (one
// rounding), float inputs of the int64 family truncate (as the CPU backend).
template <class F, typename Out>
tensor_status every_input(tensor_iter_t *iter, Act &a) {
    switch (iter->operands[iter->num_outputs].dtype) {
    case TENSOR_BOOL: return act<Op<F, Bool, Out>>(iter, a);
    case TENSOR_UINT8: return act<Op<F, uint8_t, Out>>(iter, a);
    case TENSOR_INT8: return act<Op<F, int8_t, Out>>(iter, a);
    case TENSOR_INT16: return act<Op<F, int16_t, Out>>(iter, a);
    case TENSOR_INT32: return act<Op<F, int32_t, Out>>(iter, a);
    case TENSOR_INT64: return act<Op<F, int64_t, Out>>(iter, a);
    case TENSOR_FLOAT32: return act<Op<F, float, Out>>(iter, a);
    case TENSOR_FLOAT64: return act<Op<F, double, Out>>(iter, a);
    case TENSOR_FLOAT16: return act<Op<F, Half, Out>>(iter, a);
    case TENSOR_BFLOAT16: return act<Op<F, BFloat16, Out>>(iter, a);
    case TENSOR_FLOAT8_E4M3FN: return act<Op<F, E4M3, Out>>(iter, a);
    case TENSOR_FLOAT8_E5M2: return act<Op<F, E5M2, Out>>(iter, a);
    default: return not_instantiated(iter, a);
    }
}

// The general forms of sum / nansum / prod (and mean / nanmean): the value type comes from the
// OUTPUT dtype (float32 for every float output but float64, double for float64, int64 for
// integer and bool outputs) and every input dtype is cast to it while loading, through the
// output's value set (PyTorch: sum(x, dtype=d) == sum(x.to(d))): sum(float16 -> float32),
// sum(int32 -> float64), sum(float32 -> int8), ... as ops/ asks. The instantiations live in
// the parts (see tt_ops above); this picks the part of the output dtype.
typedef tensor_status (*part_fn)(tensor_iter_t *, Act &);
inline tensor_status by_output(tensor_iter_t *iter, Act &a, const part_fn parts[6]) {
    tensor_status st = check_iter(iter, 1, a.func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK; /* ops/ handles empty reductions */
    switch (iter->operands[0].dtype) {
    case TENSOR_FLOAT32:
    case TENSOR_FLOAT16: return parts[0](iter, a);
    case TENSOR_BFLOAT16:
    case TENSOR_FLOAT64: return parts[1](iter, a);
    case TENSOR_FLOAT8_E4M3FN:
    case TENSOR_FLOAT8_E5M2: return parts[2] ? parts[2](iter, a) : not_instantiated(iter, a);
    case TENSOR_INT64:
    case TENSOR_INT32: return parts[3] ? parts[3](iter, a) : not_instantiated(iter, a);
    case TENSOR_INT16:
    case TENSOR_INT8: return parts[4] ? parts[4](iter, a) : not_instantiated(iter, a);
    case TENSOR_UINT8:
    case TENSOR_BOOL: return parts[5] ? parts[5](iter, a) : not_instantiated(iter, a);
    default: return not_instantiated(iter, a);
    }
}

// The body of a part: the outputs of group K, each with every input.
#define TT_OUT_CASE(FAM, DT, OUT) \
    case DT: return every_input<FAM, OUT>(iter, a);
#define TT_OUT_GROUP0(F32, F64, I64) TT_OUT_CASE(F32, TENSOR_FLOAT32, float) TT_OUT_CASE(F32, TENSOR_FLOAT16, Half)
#define TT_OUT_GROUP1(F32, F64, I64) TT_OUT_CASE(F32, TENSOR_BFLOAT16, BFloat16) TT_OUT_CASE(F64, TENSOR_FLOAT64, double)
#define TT_OUT_GROUP2(F32, F64, I64) TT_OUT_CASE(F32, TENSOR_FLOAT8_E4M3FN, E4M3) TT_OUT_CASE(F32, TENSOR_FLOAT8_E5M2, E5M2)
#define TT_OUT_GROUP3(F32, F64, I64) TT_OUT_CASE(I64, TENSOR_INT64, int64_t) TT_OUT_CASE(I64, TENSOR_INT32, int32_t)
#define TT_OUT_GROUP4(F32, F64, I64) TT_OUT_CASE(I64, TENSOR_INT16, int16_t) TT_OUT_CASE(I64, TENSOR_INT8, int8_t)
#define TT_OUT_GROUP5(F32, F64, I64) TT_OUT_CASE(I64, TENSOR_UINT8, uint8_t) TT_OUT_CASE(I64, TENSOR_BOOL, Bool)
#define TT_DEFINE_PART(OP, K, F32, F64, I64)                                                    \
    namespace tt_ops {                                                                         \
    tensor_status OP##_part##K(tensor_iter_t *iter, Act &a) {                                  \
        switch (iter->operands[0].dtype) {                                                     \
            TT_OUT_GROUP##K(F32, F64, I64)                                                     \
        default: return not_instantiated(iter, a);                                             \
        }                                                                                      \
    }                                                                                          \
    }

// ---- dispatchers of the ops whose output dtype ops/ fixes from the input ----

// sum_of_squares (no dtype= parameter): float32/float64 in their own type; float16/bfloat16
// accumulate in float32 and store in their own type; float8 accumulate and store float32;
// integers and bool in int64.
template <class F32, class F64, class I64>
tensor_status sum_like(tensor_iter_t *iter, Act &a) {
    tensor_status st = check_iter(iter, 1, a.func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK; /* ops/ handles empty reductions */
    const tensor_dtype in = iter->operands[1].dtype, out = iter->operands[0].dtype;
    if (out == TENSOR_INT64) {
        switch (in) {
        case TENSOR_BOOL: return act<Op<I64, Bool, int64_t>>(iter, a);
        case TENSOR_UINT8: return act<Op<I64, uint8_t, int64_t>>(iter, a);
        case TENSOR_INT8: return act<Op<I64, int8_t, int64_t>>(iter, a);
        case TENSOR_INT16: return act<Op<I64, int16_t, int64_t>>(iter, a);
        case TENSOR_INT32: return act<Op<I64, int32_t, int64_t>>(iter, a);
        case TENSOR_INT64: return act<Op<I64, int64_t, int64_t>>(iter, a);
        default: break;
        }
    } else if (out == TENSOR_FLOAT32) {
        switch (in) {
        case TENSOR_FLOAT32: return act<Op<F32, float, float>>(iter, a);
        case TENSOR_FLOAT8_E4M3FN: return act<Op<F32, E4M3, float>>(iter, a);
        case TENSOR_FLOAT8_E5M2: return act<Op<F32, E5M2, float>>(iter, a);
        default: break;
        }
    } else if (out == TENSOR_FLOAT64 && in == TENSOR_FLOAT64) {
        return act<Op<F64, double, double>>(iter, a);
    } else if (out == TENSOR_FLOAT16 && in == TENSOR_FLOAT16) {
        return act<Op<F32, Half, Half>>(iter, a);
    } else if (out == TENSOR_BFLOAT16 && in == TENSOR_BFLOAT16) {
        return act<Op<F32, BFloat16, BFloat16>>(iter, a);
    }
    return not_instantiated(iter, a);
}

// The extremes (amax/amin here, max_dim/min_dim in reduce_ops_two.cu): every input dtype,
// the values output in it, compared in the functor's value type: I64 for integers and bool,
// F64 for float64, F32 for the other floats (exact for every dtype: float16/bfloat16/float8
// widen to float exactly). One switch for both, so that they instantiate the same kernels.
template <class F32, class F64, class I64>
tensor_status extreme_by_dtype(tensor_iter_t *iter, Act &a, tensor_dtype in) {
    switch (in) {
    case TENSOR_BOOL: return act<Op<I64, Bool, Bool>>(iter, a);
    case TENSOR_UINT8: return act<Op<I64, uint8_t, uint8_t>>(iter, a);
    case TENSOR_INT8: return act<Op<I64, int8_t, int8_t>>(iter, a);
    case TENSOR_INT16: return act<Op<I64, int16_t, int16_t>>(iter, a);
    case TENSOR_INT32: return act<Op<I64, int32_t, int32_t>>(iter, a);
    case TENSOR_INT64: return act<Op<I64, int64_t, int64_t>>(iter, a);
    case TENSOR_FLOAT32: return act<Op<F32, float, float>>(iter, a);
    case TENSOR_FLOAT64: return act<Op<F64, double, double>>(iter, a);
    case TENSOR_FLOAT16: return act<Op<F32, Half, Half>>(iter, a);
    case TENSOR_BFLOAT16: return act<Op<F32, BFloat16, BFloat16>>(iter, a);
    case TENSOR_FLOAT8_E4M3FN: return act<Op<F32, E4M3, E4M3>>(iter, a);
    case TENSOR_FLOAT8_E5M2: return act<Op<F32, E5M2, E5M2>>(iter, a);
    default: return not_instantiated(iter, a);
    }
}

// amax/amin: the output has the input's dtype (extreme_by_dtype).
template <class F32, class F64, class I64>
tensor_status minmax_like(tensor_iter_t *iter, Act &a) {
    tensor_status st = check_iter(iter, 1, a.func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    const tensor_dtype in = iter->operands[1].dtype, out = iter->operands[0].dtype;
    if (in != out) return not_instantiated(iter, a);
    return extreme_by_dtype<F32, F64, I64>(iter, a, in);
}

// norm (float inputs only, ops/ rejects the others): float16/bfloat16 accumulate in float32
// and round once; float8 gives float32.
template <class F32, class F64>
tensor_status float_like(tensor_iter_t *iter, Act &a) {
    tensor_status st = check_iter(iter, 1, a.func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    const tensor_dtype in = iter->operands[1].dtype, out = iter->operands[0].dtype;
    if (out == TENSOR_FLOAT32 && in == TENSOR_FLOAT32) return act<Op<F32, float, float>>(iter, a);
    if (out == TENSOR_FLOAT32 && in == TENSOR_FLOAT8_E4M3FN) return act<Op<F32, E4M3, float>>(iter, a);
    if (out == TENSOR_FLOAT32 && in == TENSOR_FLOAT8_E5M2) return act<Op<F32, E5M2, float>>(iter, a);
    if (out == TENSOR_FLOAT64 && in == TENSOR_FLOAT64) return act<Op<F64, double, double>>(iter, a);
    if (out == TENSOR_FLOAT16 && in == TENSOR_FLOAT16) return act<Op<F32, Half, Half>>(iter, a);
    if (out == TENSOR_BFLOAT16 && in == TENSOR_BFLOAT16) return act<Op<F32, BFloat16, BFloat16>>(iter, a);
    return not_instantiated(iter, a);
}

// logsumexp: as float_like, plus integer and bool inputs converted to float32 (as PyTorch).
inline tensor_status logsumexp_impl(tensor_iter_t *iter, Act &a) {
    tensor_status st = check_iter(iter, 1, a.func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    const tensor_dtype in = iter->operands[1].dtype, out = iter->operands[0].dtype;
    if (out == TENSOR_FLOAT32) {
        switch (in) {
        case TENSOR_BOOL: return act<Op<LseF32, Bool, float>>(iter, a);
        case TENSOR_UINT8: return act<Op<LseF32, uint8_t, float>>(iter, a);
        case TENSOR_INT8: return act<Op<LseF32, int8_t, float>>(iter, a);
        case TENSOR_INT16: return act<Op<LseF32, int16_t, float>>(iter, a);
        case TENSOR_INT32: return act<Op<LseF32, int32_t, float>>(iter, a);
        case TENSOR_INT64: return act<Op<LseF32, int64_t, float>>(iter, a);
        default: break;
        }
    }
    return float_like<LseF32, LseF64>(iter, a);
}

// Ops with a fixed output dtype whose value type follows the input (count_nonzero, argmax,
// argmin: int64; all/any: bool, or uint8 for a uint8 input): every input dtype, compared
// exactly in float (16-bit and 8-bit floats widen exactly), double or int64.
template <class F32, class F64, class I64, typename Out>
tensor_status by_input(tensor_iter_t *iter, Act &a) {
    switch (iter->operands[1].dtype) {
    case TENSOR_BOOL: return act<Op<I64, Bool, Out>>(iter, a);
    case TENSOR_UINT8: return act<Op<I64, uint8_t, Out>>(iter, a);
    case TENSOR_INT8: return act<Op<I64, int8_t, Out>>(iter, a);
    case TENSOR_INT16: return act<Op<I64, int16_t, Out>>(iter, a);
    case TENSOR_INT32: return act<Op<I64, int32_t, Out>>(iter, a);
    case TENSOR_INT64: return act<Op<I64, int64_t, Out>>(iter, a);
    case TENSOR_FLOAT32: return act<Op<F32, float, Out>>(iter, a);
    case TENSOR_FLOAT64: return act<Op<F64, double, Out>>(iter, a);
    case TENSOR_FLOAT16: return act<Op<F32, Half, Out>>(iter, a);
    case TENSOR_BFLOAT16: return act<Op<F32, BFloat16, Out>>(iter, a);
    case TENSOR_FLOAT8_E4M3FN: return act<Op<F32, E4M3, Out>>(iter, a);
    case TENSOR_FLOAT8_E5M2: return act<Op<F32, E5M2, Out>>(iter, a);
    default: return not_instantiated(iter, a);
    }
}

template <class F32, class F64, class I64>
tensor_status to_int64(tensor_iter_t *iter, Act &a) {
    tensor_status st = check_iter(iter, 1, a.func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    if (iter->operands[0].dtype != TENSOR_INT64) return not_instantiated(iter, a);
    return by_input<F32, F64, I64, int64_t>(iter, a);
}

template <class F32, class F64, class I64>
tensor_status all_any(tensor_iter_t *iter, Act &a) {
    tensor_status st = check_iter(iter, 1, a.func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    const tensor_dtype out = iter->operands[0].dtype;
    if (out == TENSOR_BOOL) return by_input<F32, F64, I64, Bool>(iter, a);
    if (out == TENSOR_UINT8) return by_input<F32, F64, I64, uint8_t>(iter, a);
    return not_instantiated(iter, a);
}

// norm: the functor picked from p once per call, as the CPU backend (cpu/reduce_ops.c); the
// general p reaches the kernel as the plan's op_param (Act::param).
inline tensor_status norm_impl(tensor_iter_t *iter, Act &a) {
    const double p = a.param;
    if (p == 0.0) return float_like<Norm0F32, Norm0F64>(iter, a);
    if (p == 1.0) return float_like<Norm1F32, Norm1F64>(iter, a);
    if (p == 2.0) return float_like<Norm2F32, Norm2F64>(iter, a);
    if (p == INFINITY) return float_like<NormInfF32, NormInfF64>(iter, a);
    if (p == -INFINITY) return float_like<NormNinfF32, NormNinfF64>(iter, a);
    return float_like<NormPF32, NormPF64>(iter, a);
}

}  // namespace

// The two extern "C" entries of an op: the kernel (ops/dispatch.h's tensor_kernel_fn) and its
// explain (tensor_kernel_explain_fn), both through the same dispatcher BODY (an expression of
// iter and the Act a), so explain describes the Op that the kernel entry launches.
#define TT_CUDA_ENTRIES(NAME, OPNAME, FUNC, PARAM, BODY)                                          \
    extern "C" tensor_status tensor_cuda_##NAME##_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) { \
        Act a = kernel_act(FUNC, OPNAME, params, PARAM);                                          \
        return BODY;                                                                              \
    }                                                                                             \
    extern "C" int64_t tensor_cuda_##NAME##_explain(tensor_iter_t *iter, const tensor_kernel_params *params, \
                                                    char *buf, size_t size) {                     \
        if (buf == nullptr && size != 0) {                                                        \
            tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'buf' is NULL with size %zu", FUNC, size); \
            return -1;                                                                            \
        }                                                                                         \
        if (buf != nullptr && size > 0) buf[0] = '\0';                                            \
        Act a = explain_act(FUNC, OPNAME, params, buf, size, PARAM);                              \
        tensor_status st = BODY;                                                                  \
        return st == TENSOR_OK ? a.len : -1;                                                      \
    }
