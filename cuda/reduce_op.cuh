// How a functor family (cuda/reduce_families.cuh) meets the reduction kernel
// (cuda/reduce_kernel.cuh): the kernel's Op struct, in two tiers.
//
//   Op<F, In, Out>   typed: In and Out are storage types (cuda/convert.cuh) fixed at compile
//                    time; loads convert in registers with no test. The hot pairs.
//   DynOp<F, N>      dynamic cast: the input is an N-byte word whose dtype, like the output's,
//                    is read from the plan at run time (one switch per element, in a function
//                    shared by the kernel's load sites). One kernel set serves every input
//                    dtype of that size and every output dtype of F's value type. The rare pairs.
//
// Both tiers convert with the same functions (convert.cuh's load_for_dyn), so a pair gives
// the same bits whichever tier runs it. Templates only: the instance table
// (cuda/reduce_table.h) says what is instantiated, once, in a generated unit.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuda/convert.cuh"
#include "cuda/reduce_families.cuh"
#include "cuda/reduce_host.h"

namespace tt_reduce {

using namespace tt_cvt;

__device__ __forceinline__ float f16_bare(uint16_t h) {
    float r;
    asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h));
    return r;
}

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
    // Accumulators wider than 4 bytes that take the 32-register cap. Inputs of one byte other
    // than the __dp4a byte sums (int8 / uint8 into float64, float8, bool) spilled under 32
    // registers (ptxas: up to 88 bytes), as did float32 into a float64 nansum (4 bytes); they
    // keep 64. float32 var spills 32 bytes under the cap, all of it outside the loads' loop
    // (kept at kernel entry, read back in the block and global reduces); at 40 registers it
    // ran 3 CTAs of 512 an SM and a full var was bound by the warps it lacked, not by memory.
    // Its 16-bit and 8-bit inputs spill more (120 bytes and up) and keep 64.
    static constexpr bool fits_32_registers =
        (is_sum64<F>::value && (byte_sum || sizeof(In) >= 2) &&
         !(std::is_same<F, NansumF64>::value && std::is_same<In, float>::value)) ||
        (std::is_same<F, WelfordF32>::value && std::is_same<In, float>::value);
    static __device__ __forceinline__ val_t load(In x) {
        if constexpr (std::is_same<In, Half>::value && !keeps_values<F>::value &&
                      (std::is_same<Out, Half>::value || std::is_same<Out, float>::value ||
                       std::is_same<Out, double>::value))
            return load_value<val_t>(f16_bare(x.bits));
        else
            return load_for<val_t, In, Out>(x);
    }
    // A map-reduce family (family_maps: several inputs, or a user functor's map) folds map of
    // one element of each input.
    static constexpr int nin = family_inputs<F>::value;
    static constexpr bool maps = family_maps<F>::value;
    static_assert(nin == 1 || maps, "a family of several inputs maps them to one value");
    static __device__ __forceinline__ val_t load_n(const In (&x)[nin]) {
        if constexpr (family_maps_stored<F, In>::value) {
            return F::template map_stored<In>(x);
        } else {
            val_t v[nin];
#pragma unroll
            for (int q = 0; q < nin; q++) v[q] = load(x[q]);
            if constexpr (maps) return F::template map<In>(v);
            else return v[0];
        }
    }
    // Elements i and i + 1 of each input at once, from the word that holds them (w[q]): the
    // same values as load_n of each (family_maps_stored_pairs). Called only where maps_pairs.
    static constexpr bool maps_pairs = nin == 2 && sizeof(In) == 2 && family_maps_stored_pairs<F, In>::value;
    static __device__ __forceinline__ void load_pair(const uint32_t (&w)[nin], val_t &lo, val_t &hi) {
        F::template map_stored_pair<In>(w, lo, hi);
    }
    static __device__ __forceinline__ acc_t identity() { return F::identity(); }
    static __device__ __forceinline__ acc_t reduce(acc_t a, val_t x, int64_t i, double prm) {
        return F::reduce(a, x, i, prm);
    }
    static __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return F::combine(a, b); }
    // N elements into one accumulator at once (family_reduces_chunk).
    static constexpr bool reduces_chunk = family_reduces_chunk<F>::value;
    template <int N> static __device__ __forceinline__ void reduce_chunk(acc_t &a, const val_t (&x)[N]) {
        F::template reduce_chunk<N>(a, x);
    }
    template <typename S, typename V> static __device__ __forceinline__ void put(char *p, V v) {
        *reinterpret_cast<S *>(p) = cvt<S>(v);
    }
    static __device__ __forceinline__ void store(char *p, char *p2, acc_t v, const tensor_cuda_reduce_plan &plan) {
        if constexpr (has_two<F>::value) {
            put<Out>(p, F::project(v, plan));
            // max_dim's indices are int64; var_mean's mean and aminmax's max have the first
            // output's dtype.
            if constexpr (second_is_index<F>::value) put<int64_t>(p2, F::project2(v, plan));
            else put<Out>(p2, F::project2(v, plan));
        } else {
            (void)p2;
            put<Out>(p, F::project(v, plan.reduce_count, plan.op_param));
        }
    }
};

// The dynamic-cast load, out of line: the kernel calls it from each of its (unrolled) load
// sites, so the twelve-way conversion is compiled once per kernel, not once per site.
template <typename V, typename W>
__device__ __noinline__ V load_word(W w, int in, int out) {
    return load_raw_for<V>(w, (tensor_dtype)in, (tensor_dtype)out);
}

template <class F, int N>
struct DynOp {
    static_assert(!has_two<F>::value, "the dynamic-cast tier serves one-output families");
    using scalar_t = typename raw_word<N>::type;
    using out_t = void; // any dtype: the plan's out_dtype / out_size
    using acc_t = typename F::acc_t;
    using val_t = typename F::val_t;
    static constexpr bool dynamic_cast_load = true;
    static __device__ __forceinline__ val_t load(scalar_t w, const tensor_cuda_reduce_plan &p) {
        return load_word<val_t>(w, p.in_dtype, p.out_dtype);
    }
    static __device__ __forceinline__ acc_t identity() { return F::identity(); }
    static __device__ __forceinline__ acc_t reduce(acc_t a, val_t x, int64_t i, double prm) {
        return F::reduce(a, x, i, prm);
    }
    static __device__ __forceinline__ acc_t combine(acc_t a, acc_t b) { return F::combine(a, b); }
    static __device__ __forceinline__ void store(char *p, char *, acc_t v, const tensor_cuda_reduce_plan &plan) {
        store_dyn(p, (tensor_dtype)plan.out_dtype, F::project(v, plan.reduce_count, plan.op_param));
    }
};

}  // namespace tt_reduce
