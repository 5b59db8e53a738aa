// Storage types and conversions of the CUDA engines: the elementwise engine (cuda/loops.cuh)
// and the reduction engine (cuda/reduce_op.cuh) convert with the functions below, one
// vocabulary for both.
//
// A "storage type" is how one element of a dtype sits in memory (Half = 16 raw bits); a
// "compute type" is what a functor computes in (float for every 16/8-bit float, as PyTorch).
// cvt<To>(x) converts between any two of them, in registers (never a converted
// copy), with the rules of the CPU backend (runtime/dtype.c) so that CPU and CUDA agree bit
// for bit:
//   - integer/bool -> integer/bool: through int64, two's-complement wrap; to bool: x != 0;
//   - float (<= 32 bits) -> float (<= 32 bits): through float (exact: the float64 route of the
//     CPU gives the same bits, since a float value survives the double round trip);
//   - everything else through double; narrow floats are rounded from (float)double as c10
//     does; float -> integer truncates toward zero, NaN / out of int64 range gives INT64_MIN
//     (what x86 gives, and cpu/), then wraps. float -> bool: x != 0 (NaN is true).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/dtype.h"
#include "runtime/dtype_convert.h"

namespace tt_cvt {

struct Half { uint16_t bits; };
struct BFloat16 { uint16_t bits; };
struct E4M3 { uint8_t bits; };
struct E5M2 { uint8_t bits; };
struct Bool { uint8_t bits; };

// dtype of a storage type (the dynamic-casting path compares these with the operands').
template <typename S> struct dtype_of;
#define TT_DTYPE_OF(S, D) template <> struct dtype_of<S> { static constexpr tensor_dtype value = D; };
TT_DTYPE_OF(Bool, TENSOR_BOOL)
TT_DTYPE_OF(uint8_t, TENSOR_UINT8)
TT_DTYPE_OF(int8_t, TENSOR_INT8)
TT_DTYPE_OF(int16_t, TENSOR_INT16)
TT_DTYPE_OF(int32_t, TENSOR_INT32)
TT_DTYPE_OF(int64_t, TENSOR_INT64)
TT_DTYPE_OF(Half, TENSOR_FLOAT16)
TT_DTYPE_OF(BFloat16, TENSOR_BFLOAT16)
TT_DTYPE_OF(float, TENSOR_FLOAT32)
TT_DTYPE_OF(double, TENSOR_FLOAT64)
TT_DTYPE_OF(E4M3, TENSOR_FLOAT8_E4M3FN)
TT_DTYPE_OF(E5M2, TENSOR_FLOAT8_E5M2)
// Raw words of bitwise copies stand for every dtype of their size (gpu_kernel's raw_bits).
TT_DTYPE_OF(uint16_t, TENSOR_NUM_DTYPES)
TT_DTYPE_OF(uint32_t, TENSOR_NUM_DTYPES)
TT_DTYPE_OF(uint64_t, TENSOR_NUM_DTYPES)
#undef TT_DTYPE_OF

// 0: integer or bool (hub int64), 1: a float of <= 32 bits (hub float), 2: double.
template <typename T> struct kind_of { static constexpr int value = 0; };
template <> struct kind_of<float> { static constexpr int value = 1; };
template <> struct kind_of<Half> { static constexpr int value = 1; };
template <> struct kind_of<BFloat16> { static constexpr int value = 1; };
template <> struct kind_of<E4M3> { static constexpr int value = 1; };
template <> struct kind_of<E5M2> { static constexpr int value = 1; };
template <> struct kind_of<double> { static constexpr int value = 2; };

// ---- to the hubs ----
__host__ __device__ __forceinline__ float f32_of(float x) { return x; }
__host__ __device__ __forceinline__ float f32_of(Half x) { return tensor_f16_to_f32(x.bits); }
__host__ __device__ __forceinline__ float f32_of(BFloat16 x) { return tensor_bf16_to_f32(x.bits); }
__host__ __device__ __forceinline__ float f32_of(E4M3 x) { return tensor_e4m3fn_to_f32(x.bits); }
__host__ __device__ __forceinline__ float f32_of(E5M2 x) { return tensor_e5m2_to_f32(x.bits); }

__host__ __device__ __forceinline__ int64_t i64_of(Bool x) { return x.bits != 0; }
__host__ __device__ __forceinline__ int64_t i64_of(bool x) { return x; }
__host__ __device__ __forceinline__ int64_t i64_of(uint8_t x) { return x; }
__host__ __device__ __forceinline__ int64_t i64_of(int8_t x) { return x; }
__host__ __device__ __forceinline__ int64_t i64_of(int16_t x) { return x; }
__host__ __device__ __forceinline__ int64_t i64_of(int32_t x) { return x; }
__host__ __device__ __forceinline__ int64_t i64_of(int64_t x) { return x; }
__host__ __device__ __forceinline__ int64_t i64_of(uint16_t x) { return x; }
__host__ __device__ __forceinline__ int64_t i64_of(uint32_t x) { return x; }
__host__ __device__ __forceinline__ int64_t i64_of(uint64_t x) { return (int64_t)x; }

template <typename T> __host__ __device__ __forceinline__ double f64_of(T x) {
    if constexpr (kind_of<T>::value == 2) return x;
    else if constexpr (kind_of<T>::value == 1) return (double)f32_of(x);
    else return (double)i64_of(x);
}

// C's (int64_t)x is undefined out of range and CUDA's cvt saturates; the CPU gives INT64_MIN.
__host__ __device__ __forceinline__ int64_t trunc_i64(double x) {
    return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}

// ---- from the hubs ----
template <typename T> __host__ __device__ __forceinline__ T from_f32(float v) {
    if constexpr (std::is_same<T, float>::value) return v;
    else if constexpr (std::is_same<T, Half>::value) return Half{tensor_f32_to_f16(v)};
    else if constexpr (std::is_same<T, BFloat16>::value) return BFloat16{tensor_f32_to_bf16(v)};
    else if constexpr (std::is_same<T, E4M3>::value) return E4M3{tensor_f32_to_e4m3fn(v)};
    else return E5M2{tensor_f32_to_e5m2(v)};
}

template <typename T> __host__ __device__ __forceinline__ T from_i64(int64_t v) {
    if constexpr (std::is_same<T, Bool>::value) return Bool{(uint8_t)(v != 0)};
    else if constexpr (std::is_same<T, bool>::value) return v != 0;
    else if constexpr (kind_of<T>::value == 0) return (T)(typename std::make_unsigned<T>::type)(uint64_t)v; // wrap
    else if constexpr (kind_of<T>::value == 2) return (double)v;
    else return from_f32<T>((float)(double)v); // the CPU copy's route: (float)(double)
}

template <typename T> __host__ __device__ __forceinline__ T from_f64(double v) {
    if constexpr (kind_of<T>::value == 2) return v;
    else if constexpr (kind_of<T>::value == 1) return from_f32<T>((float)v);
    else if constexpr (std::is_same<T, Bool>::value) return Bool{(uint8_t)(v != 0)};
    else if constexpr (std::is_same<T, bool>::value) return v != 0;
    else return from_i64<T>(trunc_i64(v));
}

// ---- any -> any ----
template <typename To, typename From> __host__ __device__ __forceinline__ To cvt(From x) {
    if constexpr (std::is_same<To, From>::value) return x;
    else if constexpr (kind_of<To>::value == 0 && kind_of<From>::value == 0) return from_i64<To>(i64_of(x));
    else if constexpr (kind_of<To>::value == 1 && kind_of<From>::value == 1) return from_f32<To>(f32_of(x));
    else return from_f64<To>(f64_of(x));
}

// Loads one element of run-time dtype `dt` at p as A (the dynamic-casting path; on the host, a
// 0-d CPU operand). The switch is on a kernel argument: every thread of a warp takes one branch.
template <typename A> __host__ __device__ __forceinline__ A load_dyn(const char *p, tensor_dtype dt) {
    switch (dt) {
    case TENSOR_BOOL: return cvt<A>(*reinterpret_cast<const Bool *>(p));
    case TENSOR_UINT8: return cvt<A>(*reinterpret_cast<const uint8_t *>(p));
    case TENSOR_INT8: return cvt<A>(*reinterpret_cast<const int8_t *>(p));
    case TENSOR_INT16: return cvt<A>(*reinterpret_cast<const int16_t *>(p));
    case TENSOR_INT32: return cvt<A>(*reinterpret_cast<const int32_t *>(p));
    case TENSOR_INT64: return cvt<A>(*reinterpret_cast<const int64_t *>(p));
    case TENSOR_FLOAT16: return cvt<A>(*reinterpret_cast<const Half *>(p));
    case TENSOR_BFLOAT16: return cvt<A>(*reinterpret_cast<const BFloat16 *>(p));
    case TENSOR_FLOAT32: return cvt<A>(*reinterpret_cast<const float *>(p));
    case TENSOR_FLOAT64: return cvt<A>(*reinterpret_cast<const double *>(p));
    case TENSOR_FLOAT8_E4M3FN: return cvt<A>(*reinterpret_cast<const E4M3 *>(p));
    default: return cvt<A>(*reinterpret_cast<const E5M2 *>(p));
    }
}

template <typename R> __device__ __forceinline__ void store_dyn(char *p, tensor_dtype dt, R v) {
    switch (dt) {
    case TENSOR_BOOL: *reinterpret_cast<Bool *>(p) = cvt<Bool>(v); break;
    case TENSOR_UINT8: *reinterpret_cast<uint8_t *>(p) = cvt<uint8_t>(v); break;
    case TENSOR_INT8: *reinterpret_cast<int8_t *>(p) = cvt<int8_t>(v); break;
    case TENSOR_INT16: *reinterpret_cast<int16_t *>(p) = cvt<int16_t>(v); break;
    case TENSOR_INT32: *reinterpret_cast<int32_t *>(p) = cvt<int32_t>(v); break;
    case TENSOR_INT64: *reinterpret_cast<int64_t *>(p) = cvt<int64_t>(v); break;
    case TENSOR_FLOAT16: *reinterpret_cast<Half *>(p) = cvt<Half>(v); break;
    case TENSOR_BFLOAT16: *reinterpret_cast<BFloat16 *>(p) = cvt<BFloat16>(v); break;
    case TENSOR_FLOAT32: *reinterpret_cast<float *>(p) = cvt<float>(v); break;
    case TENSOR_FLOAT64: *reinterpret_cast<double *>(p) = cvt<double>(v); break;
    case TENSOR_FLOAT8_E4M3FN: *reinterpret_cast<E4M3 *>(p) = cvt<E4M3>(v); break;
    default: *reinterpret_cast<E5M2 *>(p) = cvt<E5M2>(v); break;
    }
}

// ---- the reduction engine's loads ----
// A reduction loads an element straight into its functor's value type V (float, double or
// int64), with the CPU reductions' rules (cpu/cpu_convert.c): cvt's, except that an integer
// becomes a float32 value in ONE rounding ((float)int64, not cvt's (float)(double)int64, which
// is the copy's rule).
template <typename V, typename S> __host__ __device__ __forceinline__ V load_value(S x) {
    if constexpr (std::is_same<V, float>::value && kind_of<S>::value == 0) return (float)i64_of(x);
    else return cvt<V>(x);
}

// PyTorch's "cast to dtype=, then reduce": when the output dtype is narrower than the value
// type, each element goes through the output's value set first: a float value rounds through
// float16 / bfloat16 / float8, an int64 value becomes x != 0 for a bool output. Nothing
// happens for float32 / float64 / integer outputs. The output dtype is known at compile time
// (via<Out>) or at run time (via_dyn).
template <typename Out> __device__ __forceinline__ float via(float v) {
    if constexpr (kind_of<Out>::value == 1 && !std::is_same<Out, float>::value) return f32_of(from_f32<Out>(v));
    else return v;
}
template <typename Out> __device__ __forceinline__ double via(double v) { return v; }
template <typename Out> __device__ __forceinline__ int64_t via(int64_t v) {
    if constexpr (std::is_same<Out, Bool>::value) return (int64_t)(v != 0);
    else return v;
}
__device__ __forceinline__ float via_dyn(float v, tensor_dtype out) {
    switch (out) {
    case TENSOR_FLOAT16: return via<Half>(v);
    case TENSOR_BFLOAT16: return via<BFloat16>(v);
    case TENSOR_FLOAT8_E4M3FN: return via<E4M3>(v);
    case TENSOR_FLOAT8_E5M2: return via<E5M2>(v);
    default: return v;
    }
}
__device__ __forceinline__ double via_dyn(double v, tensor_dtype) { return v; }
__device__ __forceinline__ int64_t via_dyn(int64_t v, tensor_dtype out) { return out == TENSOR_BOOL ? (int64_t)(v != 0) : v; }

// The value an element of storage type In gives when it is reduced into an output whose dtype
// is `out` (== In's own dtype when `same`): to bool, x != 0 on the element as it is (0.5 is
// true), not on its truncation; float and int64 values go through the output's value set.
template <typename V, typename In> __device__ __forceinline__ V load_for_dyn(In x, tensor_dtype out, bool same) {
    if (same) return load_value<V>(x);
    if constexpr (std::is_same<V, int64_t>::value) {
        if (out == TENSOR_BOOL) return (int64_t)(load_value<double>(x) != 0.0);
    }
    if constexpr (std::is_same<V, double>::value) return load_value<V>(x);
    else return via_dyn(load_value<V>(x), out);
}
template <typename V, typename In, typename Out> __device__ __forceinline__ V load_for(In x) {
    return load_for_dyn<V>(x, dtype_of<Out>::value, std::is_same<In, Out>::value);
}

// Raw words of 1, 2, 4 and 8 bytes: how the dynamic-cast reductions hold an element whose
// dtype is known only at run time.
template <int N> struct raw_word;
template <> struct raw_word<1> { using type = uint8_t; };
template <> struct raw_word<2> { using type = uint16_t; };
template <> struct raw_word<4> { using type = uint32_t; };
template <> struct raw_word<8> { using type = uint64_t; };

template <typename S, typename W> __device__ __forceinline__ S bits_as(W w) {
    static_assert(sizeof(S) == sizeof(W), "a word of the element's size");
    S s;
    memcpy(&s, &w, sizeof s);
    return s;
}

// An element of run-time dtype `in` (N bytes, as the word w) reduced into an `out` output.
template <typename V, typename W>
__device__ __forceinline__ V load_raw_for(W w, tensor_dtype in, tensor_dtype out) {
    const bool same = in == out;
#define TT_AS(S) return load_for_dyn<V>(bits_as<S>(w), out, same)
    if constexpr (sizeof(W) == 1) {
        switch (in) {
        case TENSOR_BOOL: TT_AS(Bool);
        case TENSOR_UINT8: TT_AS(uint8_t);
        case TENSOR_INT8: TT_AS(int8_t);
        case TENSOR_FLOAT8_E4M3FN: TT_AS(E4M3);
        default: TT_AS(E5M2);
        }
    } else if constexpr (sizeof(W) == 2) {
        switch (in) {
        case TENSOR_INT16: TT_AS(int16_t);
        case TENSOR_FLOAT16: TT_AS(Half);
        default: TT_AS(BFloat16);
        }
    } else if constexpr (sizeof(W) == 4) {
        if (in == TENSOR_INT32) TT_AS(int32_t);
        TT_AS(float);
    } else {
        if (in == TENSOR_INT64) TT_AS(int64_t);
        TT_AS(double);
    }
#undef TT_AS
}

}  // namespace tt_cvt
