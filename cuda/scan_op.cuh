// The scans' operators for cuda/scan_kernel.cuh. Each is an associative combine over an
// accumulator with the earlier operand first:
//   using acc_t;                        the accumulator
//   static constexpr bool has_index;    cummax/cummin: the kernel also writes int64 indices
//   identity()                          a value that changes nothing (padding past a line's end)
//   load<InS>(x, idx)                   element x at index idx of its line, as an accumulator
//   combine(a, b)                       a holds earlier elements than b
//   store<OutS>(acc, out, idx_out)      writes a result
// Accumulators follow PyTorch's CUDA scans: 16-bit and 8-bit floats and float32 in float,
// float64 in double, integers and bool in int64 (wrapping).
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuda/convert.cuh"

namespace tt_scan {

using namespace tt_cvt;

template <typename S> struct acc_of { using type = int64_t; };
template <> struct acc_of<float> { using type = float; };
template <> struct acc_of<Half> { using type = float; };
template <> struct acc_of<BFloat16> { using type = float; };
template <> struct acc_of<E4M3> { using type = float; };
template <> struct acc_of<E5M2> { using type = float; };
template <> struct acc_of<double> { using type = double; };

template <typename A> __device__ __forceinline__ bool is_nan(A x) {
    if constexpr (std::is_floating_point<A>::value) return x != x;
    else return false;
}

// cumsum and cumprod (MUL). Integers wrap: the arithmetic is done unsigned.
template <typename OutS, bool MUL> struct ArithOp {
    using acc_t = typename acc_of<OutS>::type;
    static constexpr bool has_index = false;
    __device__ __forceinline__ acc_t identity() const { return acc_t(MUL ? 1 : 0); }
    template <typename InS> __device__ __forceinline__ acc_t load(InS x, int64_t) const { return cvt<acc_t>(x); }
    __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const {
        if constexpr (std::is_integral<acc_t>::value)
            return (acc_t)(MUL ? (uint64_t)a * (uint64_t)b : (uint64_t)a + (uint64_t)b);
        else
            return MUL ? a * b : a + b;
    }
    __device__ __forceinline__ void store(acc_t a, OutS *out, int64_t *) const { *out = cvt<OutS>(a); }
};

// cumsum of bool and integers of at most 16 bits into int64: ArithOp's result, with the
// contiguous kernel's per-element work in int32 (Items in scan_kernel.cuh). A tile's sum of
// TT_SCAN_TILE(4) such elements is below 2^31 in magnitude, so the int32 partial sums are exact
// and widen to the same int64 values.
template <typename InS> struct NarrowSumOp : ArithOp<int64_t, false> {
    static_assert(sizeof(InS) <= 2, "int32 tile sums of 16-bit elements at most");
    using item_t = int32_t;
    // |prefix| <= 2^15 x the line's length < 2^62: the look-back packs records in 64 bits.
    static constexpr bool prefix_fits_62 = true;
    __device__ __forceinline__ item_t item_identity() const { return 0; }
    template <typename S> __device__ __forceinline__ item_t item_load(S x, int64_t) const { return cvt<int32_t>(x); }
    __device__ __forceinline__ item_t item_combine(item_t a, item_t b) const { return a + b; }
    __device__ __forceinline__ int64_t widen(item_t x) const { return x; }
};

// logcumsumexp: log(exp(a) + exp(b)). A NaN on either side gives NaN; two infinities of one
// sign give that infinity (PyTorch's rule).
template <typename OutS> struct LogAddExpOp {
    using acc_t = typename acc_of<OutS>::type;
    static constexpr bool has_index = false;
    __device__ __forceinline__ acc_t identity() const { return -INFINITY; }
    template <typename InS> __device__ __forceinline__ acc_t load(InS x, int64_t) const { return cvt<acc_t>(x); }
    __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const {
        if (is_nan(a) || is_nan(b)) return a + b;
        const acc_t mn = b < a ? b : a, mx = b < a ? a : b;
        if (mn != mx || isfinite(mn)) return mx + log1p(exp(mn - mx));
        return a;
    }
    __device__ __forceinline__ void store(acc_t a, OutS *out, int64_t *) const { *out = cvt<OutS>(a); }
};

// cummax / cummin: the latest NaN, else the latest of the equal extremes (PyTorch's CPU and
// CUDA kernels agree on this). Index -1 marks the identity, which loses to everything.
template <typename V> struct ValIdx {
    V v;
    int64_t i;
};

template <typename OutS> struct ExtremeOp {
    using V = typename acc_of<OutS>::type;
    using acc_t = ValIdx<V>;
    static constexpr bool has_index = true;
    bool is_max;
    __device__ __forceinline__ acc_t identity() const { return acc_t{V(0), -1}; }
    template <typename InS> __device__ __forceinline__ acc_t load(InS x, int64_t idx) const {
        return acc_t{cvt<V>(x), idx};
    }
    __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) const {
        if (a.i < 0) return b;
        if (b.i < 0) return a;
        const bool later = is_nan(b.v) || (!is_nan(a.v) && (is_max ? b.v >= a.v : b.v <= a.v));
        return later ? b : a;
    }
    __device__ __forceinline__ void store(acc_t a, OutS *out, int64_t *idx) const {
        *out = cvt<OutS>(a.v);
        *idx = a.i;
    }
};

} // namespace tt_scan
