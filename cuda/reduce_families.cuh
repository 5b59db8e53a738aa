// The reduction functor families: the C functors of ops/functors/*.h under one C++ name each,
// with the interface the kernel's Op (cuda/reduce_op.cuh) expects:
//   val_t (what a load gives: float, double or int64), acc_t, identity(), reduce(acc, x,
//   index, param), combine(a, b), project(acc, count, param) -- or, for two-output families,
//   project(acc, plan) and project2(acc, plan).
// Types only: nothing here is a kernel or instantiates one.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuda/convert.cuh"
#include "cuda/reduce_host.h"
#include "ops/functors/all.h"
#include "ops/functors/amax.h"
#include "ops/functors/aminmax.h"
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
#include "ops/functors/welford.h"

namespace tt_reduce {

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
// TT_FAMILY stays defined: cuda/reduce_functor.cuh makes the FUNCTOR rows' families with it.
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
        static constexpr bool second_is_index = true;                                          \
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

// aminmax: (min, max) of aminmax.h, two outputs in the input's dtype.
#define TT_FAMILY_MINMAX(NAME, SFX, T)                                                          \
    struct NAME {                                                                              \
        using val_t = T;                                                                       \
        using acc_t = tensor_minmax_##SFX;                                                     \
        static constexpr bool two_outputs = true;                                              \
        static __device__ __forceinline__ acc_t identity() { return tensor_aminmax_##SFX##_identity(); } \
        static __device__ __forceinline__ acc_t reduce(acc_t a, T x, int64_t i, double) {      \
            return tensor_aminmax_##SFX##_reduce(a, x, i);                                     \
        }                                                                                      \
        static __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return tensor_aminmax_##SFX##_combine(a, b); } \
        static __device__ __forceinline__ T project(acc_t a, const tensor_cuda_reduce_plan &) { \
            return tensor_aminmax_##SFX##_project_min(a);                                      \
        }                                                                                      \
        static __device__ __forceinline__ T project2(acc_t a, const tensor_cuda_reduce_plan &) { \
            return tensor_aminmax_##SFX##_project_max(a);                                      \
        }                                                                                      \
    };
TT_FAMILY_MINMAX(MinMaxF32, f32, float)
TT_FAMILY_MINMAX(MinMaxF64, f64, double)
TT_FAMILY_MINMAX(MinMaxI64, i64, int64_t)
#undef TT_FAMILY_MINMAX

// var / std / var_mean / std_mean: Welford (welford.h), two outputs: var or std (the plan's
// correction and take_sqrt) and the mean, both in the output dtype. float32 for 16-bit,
// float8 and float32 inputs (as PyTorch's CUDA Welford), double for float64; each accumulator
// runs on data shifted by its first element, so a large mean with a small spread keeps its
// variance. The CPU backend runs every dtype in double: results agree within float32
// rounding, not bitwise.
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
TT_FAMILY_WELFORD(WelfordF32Base, f32, float)
TT_FAMILY_WELFORD(WelfordF64, f64, double)
#undef TT_FAMILY_WELFORD

// The float Welford, N elements at a time into one accumulator (the kernel hands it the N
// values of a vector load, or the VT0 loads of one output in flight): the chunk's own mean and
// sum of squared deviations, from the accumulator's shift, then Chan's combine with one
// reciprocal. Per-element Welford divides by the count at every element and kept one
// accumulator per lane of the vector (4 x 16 bytes a thread, 16 x 16 for four outputs); var was
// bound by that latency and those registers, not by memory. A chunk with a non-finite
// difference takes the per-element functor, whose rules for inf and NaN it keeps.
struct WelfordF32 : WelfordF32Base {
    static constexpr bool reduces_chunk = true;
    template <int N>
    static __device__ __forceinline__ void reduce_chunk(acc_t &a, const float (&x)[N]) {
        static_assert(N >= 2 && (N & (N - 1)) == 0, "chunks of a power of two: 1/N is exact");
        const float shift = a.n == 0.0f ? x[0] : a.shift;
        float d[N], check = 0.0f;
#pragma unroll
        for (int k = 0; k < N; k++) {
            d[k] = x[k] - shift;
            check += d[k] - d[k]; // 0 when every d is finite, else NaN
        }
        if (check != 0.0f) {
#pragma unroll
            for (int k = 0; k < N; k++) a = tensor_welford_f32_reduce(a, x[k], 0);
            return;
        }
        // Pairwise: the chunk's sum and squares in log2(N) dependent steps.
        float s[N];
#pragma unroll
        for (int k = 0; k < N; k++) s[k] = d[k];
#pragma unroll
        for (int w = N / 2; w >= 1; w /= 2)
#pragma unroll
            for (int k = 0; k < w; k++) s[k] += s[k + w];
        const float mb = s[0] * (1.0f / N);
#pragma unroll
        for (int k = 0; k < N; k++) {
            const float e = d[k] - mb;
            s[k] = e * e;
        }
#pragma unroll
        for (int w = N / 2; w >= 1; w /= 2)
#pragma unroll
            for (int k = 0; k < w; k++) s[k] += s[k + w];
        const float na = a.n, n = na + (float)N;
        const float nb_over_n = __fdividef((float)N, n);
        const float delta = mb - a.mean;
        a.shift = shift;
        a.n = n;
        a.mean += delta * nb_over_n;
        a.m2 += s[0] + delta * delta * na * nb_over_n;
    }
};

// Whether a family folds a chunk of N elements into one accumulator at once (reduces_chunk,
// reduce_chunk<N>).
template <class F, class = void> struct family_reduces_chunk : std::false_type {};
template <class F>
struct family_reduces_chunk<F, std::void_t<decltype(F::reduces_chunk)>> : std::bool_constant<F::reduces_chunk> {};

// Families that return an input element (amax/amin, argmax/argmin, max/min with indices):
// their float16 loads keep a NaN's sign (tensor_f16_to_f32's fix-up after the cvt). Every
// other family only computes with the value, and a PTX add/mul/fma turns any NaN operand into
// the canonical NaN anyway, so its loads take the bare cvt: 2 instructions per float16
// element instead of ~11, which made float16 row sums issue-bound (docs/perf_log.md).
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

// Whether a family has a second output (project2); one-output families say nothing.
template <class F, class = void> struct has_two : std::false_type {};
template <class F> struct has_two<F, std::void_t<decltype(F::two_outputs)>> : std::bool_constant<F::two_outputs> {};
// Whether that second output is an int64 index (max_dim) rather than a value of the first
// output's dtype (var_mean's mean, aminmax's max: an int64 max is still a value).
template <class F, class = void> struct second_is_index : std::false_type {};
template <class F>
struct second_is_index<F, std::void_t<decltype(F::second_is_index)>> : std::bool_constant<F::second_is_index> {};

// The sums with 8-byte accumulators: they fit the full-occupancy register cap of
// reduce_kernel.cuh's Bounds (ptxas: 32 registers, no spill stores, for the float64 sum and
// the int64 sums of int8 / int32 / int64); the other 8-byte families keep 64 (the p-norm
// spilled 440 bytes under 32, the 0-norm 4). Not every input type of these families fits
// under 32 (int8 / uint8 into float64: 88 / 28 bytes of spills; float32 nansum into
// float64 and float8_e5m2 into int64: 4): Op::fits_32_registers leaves those at 64.
template <class F>
struct is_sum64 : std::bool_constant<std::is_same<F, SumF64>::value || std::is_same<F, SumI64>::value ||
                                     std::is_same<F, NansumF64>::value || std::is_same<F, NansumI64>::value ||
                                     std::is_same<F, MeanF64>::value> {};

// ---- fused map-reduce families: several inputs, one value per position ----
// Dot<S>: S's sum of the products of two inputs (vecdot). The product is rounded through the
// inputs' storage type In before the sum takes it, as PyTorch's eager a * b writes it to
// memory first: a float16 product rounds to float16, an int32 one wraps to 32 bits. The
// multiply is __fmul_rn / __dmul_rn so that nvcc cannot contract it with the sum into an FMA
// (that would skip the rounding the eager product has).
// A float rounded to float16 / bfloat16 and back, by the hardware conversions alone (a NaN
// stays a NaN; the store canonicalises it).
__device__ __forceinline__ float round_f16(float v) {
    unsigned short h;
    float r;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v));
    asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h));
    return r;
}
__device__ __forceinline__ float round_bf16(float v) {
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(v));
    return __uint_as_float((unsigned)h << 16);
}

template <class S>
struct Dot : S {
    using typename S::val_t;
    static constexpr int nin = 2;
    static constexpr bool maps = true;
    template <typename In>
    static __device__ __forceinline__ val_t map(const val_t (&v)[2]) {
        val_t prod;
        if constexpr (std::is_same<val_t, float>::value) prod = __fmul_rn(v[0], v[1]);
        else if constexpr (std::is_same<val_t, double>::value) prod = __dmul_rn(v[0], v[1]);
        else prod = (val_t)((uint64_t)v[0] * (uint64_t)v[1]); // wraps, as the integer product does
        if constexpr (std::is_same<In, val_t>::value) return prod;
        else if constexpr (std::is_same<In, tt_cvt::Half>::value) return round_f16(prod);
        else if constexpr (std::is_same<In, tt_cvt::BFloat16>::value) return round_bf16(prod);
        else return tt_cvt::cvt<val_t>(tt_cvt::cvt<In>(prod));
    }
};
// A 16-bit product in one instruction: mul.rn.f16 / mul.rn.bf16 round the exact product once,
// and so does round_f16 / round_bf16 of the float product (two 16-bit significands multiply
// exactly in float), so both give the same bits. Taken when the loads would convert each
// element first: 2 instructions per element instead of 5 (float16 rows were issue-bound
// against Inductor's packed half multiply).
template <class S, typename In>
struct stored_product : std::bool_constant<std::is_same<typename S::val_t, float>::value &&
                                           (std::is_same<In, tt_cvt::Half>::value
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
                                            || std::is_same<In, tt_cvt::BFloat16>::value
#endif
                                            )> {};
template <class S>
struct DotStored : Dot<S> {
    template <typename In> static constexpr bool maps_stored = stored_product<S, In>::value;
    template <typename In>
    static __device__ __forceinline__ float map_stored(const In (&x)[2]) {
        unsigned short p;
        float r;
        if constexpr (std::is_same<In, tt_cvt::Half>::value) {
            asm("mul.rn.f16 %0, %1, %2;" : "=h"(p) : "h"(x[0].bits), "h"(x[1].bits));
            asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(p));
        } else {
            asm("mul.rn.bf16 %0, %1, %2;" : "=h"(p) : "h"(x[0].bits), "h"(x[1].bits));
            r = __uint_as_float((unsigned)p << 16);
        }
        return r;
    }
    // Two neighbouring elements of each input as the word that holds them (the lower address
    // in the low half): one packed multiply gives both products, rounded as map_stored rounds
    // each. A bfloat16 product becomes a float by a shift (low half) or a mask (high half);
    // element by element the high one took two instructions, an extract and a shift, and the
    // bfloat16 rows ran more instructions than the float16 ones (docs/perf_log.md).
    template <typename In> static constexpr bool maps_stored_pairs = stored_product<S, In>::value;
    template <typename In>
    static __device__ __forceinline__ void map_stored_pair(const uint32_t (&w)[2], float &lo, float &hi) {
        uint32_t p;
        if constexpr (std::is_same<In, tt_cvt::Half>::value) {
            asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(p) : "r"(w[0]), "r"(w[1]));
            asm("{.reg .f16 l, h;\n\tmov.b32 {l, h}, %2;\n\tcvt.f32.f16 %0, l;\n\tcvt.f32.f16 %1, h;}"
                : "=f"(lo), "=f"(hi)
                : "r"(p));
        } else {
            asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(p) : "r"(w[0]), "r"(w[1]));
            lo = __uint_as_float(p << 16);
            hi = __uint_as_float(p & 0xffff0000u);
        }
    }
};
using DotF32 = DotStored<SumF32>;
using DotF64 = Dot<SumF64>;
// Integer products wrap to the inputs' type, so for inputs of at most 4 bytes the low 32 bits of
// the product are all that is kept: one 32-bit multiply of the stored values, then the wrap and
// the widening to int64, instead of widening both first and multiplying in 64 bits (several
// instructions per element). Same bits as Dot's map.
struct DotI64 : Dot<SumI64> {
    template <typename In>
    static constexpr bool maps_stored = std::is_same<In, int8_t>::value || std::is_same<In, uint8_t>::value ||
                                        std::is_same<In, int16_t>::value || std::is_same<In, int32_t>::value;
    template <typename In> static __device__ __forceinline__ int64_t map_stored(const In (&x)[2]) {
        return (int64_t)(In)((uint32_t)x[0] * (uint32_t)x[1]);
    }
    // A vector's products into one accumulator: integer sums are exact in any order, so the
    // result is the same bits, and one 8-byte accumulator a thread instead of one a lane is what
    // fits the int8 and int32 dots' lean rows kernel in 32 registers (TENSOR_REDUCE_LEAN_ROWS_FIT).
    static constexpr bool reduces_chunk = true;
    template <int N> static __device__ __forceinline__ void reduce_chunk(int64_t &a, const int64_t (&x)[N]) {
#pragma unroll
        for (int k = 0; k < N; k++) a += x[k];
    }
};

// How many inputs a family folds (1 unless it declares nin), and whether it maps them first
// (declares `maps = true` and map<In>(values); a family of several inputs must).
template <class F, class = void> struct family_inputs : std::integral_constant<int, 1> {};
template <class F> struct family_inputs<F, std::void_t<decltype(F::nin)>> : std::integral_constant<int, F::nin> {};
// Whether a map-reduce family maps In's stored elements itself (maps_stored<In>, map_stored).
template <class F, typename In, class = void> struct family_maps_stored : std::false_type {};
template <class F, typename In>
struct family_maps_stored<F, In, std::void_t<decltype(F::template maps_stored<In>)>>
    : std::bool_constant<F::template maps_stored<In>> {};
// Whether it also maps a packed pair of each input's elements at once (maps_stored_pairs<In>,
// map_stored_pair: two-input families of 16-bit inputs).
template <class F, typename In, class = void> struct family_maps_stored_pairs : std::false_type {};
template <class F, typename In>
struct family_maps_stored_pairs<F, In, std::void_t<decltype(F::template maps_stored_pairs<In>)>>
    : std::bool_constant<F::template maps_stored_pairs<In>> {};
template <class F, class = void> struct family_maps : std::false_type {};
template <class F> struct family_maps<F, std::void_t<decltype(F::maps)>> : std::bool_constant<F::maps> {};

}  // namespace tt_reduce
