// The CUDA reduction kernel template (PyTorch's Reduce.cuh), one
// kernel per (functor struct, output vector width). The launch plan comes from host C
// (cuda/reduce_config.c via cuda/reduce_host.c) and is passed by value.
//
// A functor struct wraps the C functor functions of ops/functors/*.h:
//   struct Op {
//     using scalar_t = ...;   // how an input element is stored (uint16_t for float16, ...)
//     using acc_t = ...;      // float, double, int64_t, bool or a struct (moved word-wise)
//     static val_t load(scalar_t);       // convert while loading (val_t: float, double, int64_t)
//     // optional, for a fused map-reduce of several inputs (sum(a * b)), all stored as scalar_t:
//     static constexpr int nin = 2;      // 1 .. TENSOR_CUDA_REDUCE_MAX_INPUTS (default 1)
//     static val_t load_n(const scalar_t (&x)[nin]); // one element of each input -> the value
//     static acc_t identity();
//     static acc_t reduce(acc_t, val_t x, int64_t index, double param); // index: in the whole
//                                        // iterator; param: the op's scalar (norm's p)
//     static acc_t combine(acc_t earlier, acc_t later);
//     using out_t = ...;      // how an element of the (first) output is stored
//     static void store(char *dst, char *dst2, acc_t, const tensor_cuda_reduce_plan &);
//                                        // project + convert to the output dtype(s); dst2: the
//                                        // second output's element (two-output ops) or NULL;
//                                        // the plan gives reduce_count, op_param, correction...
//   };
//
// Flow of one thread (index mapping: reduce_config.h; every dimension of the block either
// splits the reduced elements of an output or splits the outputs):
//   1. thread_reduce: fold my share of my output's inputs with independent accumulators;
//   2. block_y_reduce (warps sharing an output, shared memory), block_x_reduce (lanes
//      sharing an output, shuffles);
//   3. global_reduce when several CTAs share an output: partials go to a staging buffer, the
//      last CTA of the column (found with a counter) combines them in a fixed order;
//   4. store: project and convert.
// No floating-point atomics anywhere: the combine order depends only on the plan, so the
// result is bitwise the same run to run on one GPU model.
#pragma once

#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

#include "cuda/reduce_host.h"

namespace tt_reduce {

// A thread's OVS accumulators (one per output of its output vector).
template <typename acc_t, int OVS>
struct AccVec {
    acc_t v[OVS];
};

// Aligned vector of N input elements: one LDG of N * sizeof(T) bytes.
template <typename T, int N>
struct alignas(sizeof(T) * N) LoadVec {
    T v[N];
};

// Reads a partial another CTA wrote, from L2 (.cg): L1 is not coherent across SMs.
__device__ __forceinline__ float load_cg(const float *p) { return __ldcg(p); }
__device__ __forceinline__ double load_cg(const double *p) { return __ldcg(p); }
__device__ __forceinline__ int64_t load_cg(const int64_t *p) {
    return (int64_t)__ldcg(reinterpret_cast<const long long *>(p));
}

__device__ __forceinline__ float shfl_down(float v, int off, unsigned mask) { return __shfl_down_sync(mask, v, off); }
__device__ __forceinline__ double shfl_down(double v, int off, unsigned mask) {
    return __shfl_down_sync(mask, v, off);
}
__device__ __forceinline__ int64_t shfl_down(int64_t v, int off, unsigned mask) {
    return (int64_t)__shfl_down_sync(mask, (long long)v, off);
}

// Struct accumulators (argmax's (value, index), nanmean's (sum, count), logsumexp's (max,
// sum)) and bool: moved as 32-bit words (shuffles) or bytes (L2 loads).
template <typename T>
__device__ __forceinline__ T shfl_down(T v, int off, unsigned mask) {
    constexpr int W = (int)((sizeof(T) + 3) / 4);
    unsigned w[W];
#pragma unroll
    for (int i = 0; i < W; i++) w[i] = 0u;
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int i = 0; i < W; i++) w[i] = __shfl_down_sync(mask, w[i], off);
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
}
template <typename T>
__device__ __forceinline__ T load_cg(const T *p) {
    T r;
    if constexpr (sizeof(T) % 4 == 0 && alignof(T) >= 4) {
        unsigned w[sizeof(T) / 4];
        const unsigned *src = reinterpret_cast<const unsigned *>(p);
#pragma unroll
        for (int i = 0; i < (int)(sizeof(T) / 4); i++) w[i] = __ldcg(src + i);
        memcpy(&r, w, sizeof(T));
    } else {
        unsigned char b[sizeof(T)];
        const unsigned char *src = reinterpret_cast<const unsigned char *>(p);
#pragma unroll
        for (int i = 0; i < (int)sizeof(T); i++) b[i] = __ldcg(src + i);
        memcpy(&r, b, sizeof(T));
    }
    return r;
}

// Shared memory accesses of the engine: element i of `base`, which is smem_raw (16-byte
// aligned) or a row of scalars in it, so an element of 16 / 8 bytes is 16 / 8-byte aligned
// whatever alignof says. Through 32-bit shared-window offsets and PTX of our own, because nvcc
// and NVRTC compile plain accesses differently (nvcc with 32-bit shared addresses, NVRTC with
// 64-bit ones), and ptxas then schedules and allocates the whole kernel differently: a
// run-time compiled kernel would not be the built-in's code. With these, the two compilers
// emit the same instructions.
template <typename T>
__device__ __forceinline__ unsigned shared_offset(const T *base, unsigned i) {
    return (unsigned)__cvta_generic_to_shared(base) + i * (unsigned)sizeof(T);
}
// One access of W = 16, 8 or 4 bytes at shared-window address a, as 32-bit words w.
template <int W> __device__ __forceinline__ void shared_ld_words(unsigned a, unsigned *w) {
    if constexpr (W == 16)
        asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
                     : "r"(a) : "memory");
    else if constexpr (W == 8)
        asm volatile("ld.shared.v2.b32 {%0, %1}, [%2];" : "=r"(w[0]), "=r"(w[1]) : "r"(a) : "memory");
    else
        asm volatile("ld.shared.b32 %0, [%1];" : "=r"(w[0]) : "r"(a) : "memory");
}
template <int W> __device__ __forceinline__ void shared_st_words(unsigned a, const unsigned *w) {
    if constexpr (W == 16)
        asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(a), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3])
                     : "memory");
    else if constexpr (W == 8)
        asm volatile("st.shared.v2.b32 [%0], {%1, %2};" ::"r"(a), "r"(w[0]), "r"(w[1]) : "memory");
    else
        asm volatile("st.shared.b32 [%0], %1;" ::"r"(a), "r"(w[0]) : "memory");
}
// The widest access that divides an element of T (and so meets its alignment, above); 0 for
// elements of 1 or 2 bytes.
template <typename T> constexpr int shared_width() {
    return sizeof(T) % 16 == 0 ? 16 : sizeof(T) % 8 == 0 ? 8 : sizeof(T) % 4 == 0 ? 4 : 0;
}
template <typename T>
__device__ __forceinline__ T shared_load(const T *base, unsigned i) {
    constexpr int W = shared_width<T>();
    T r;
    if constexpr (W != 0) {
        unsigned w[sizeof(T) / 4];
        const unsigned a = shared_offset(base, i);
#pragma unroll
        for (int k = 0; k < (int)(sizeof(T) / W); k++) shared_ld_words<W>(a + W * k, w + W / 4 * k);
        memcpy(&r, w, sizeof(T));
    } else if constexpr (sizeof(T) == 2) {
        unsigned short h;
        asm volatile("ld.shared.b16 %0, [%1];" : "=h"(h) : "r"(shared_offset(base, i)) : "memory");
        memcpy(&r, &h, 2);
    } else if constexpr (sizeof(T) == 1) {
        unsigned w;
        asm volatile("ld.shared.u8 %0, [%1];" : "=r"(w) : "r"(shared_offset(base, i)) : "memory");
        const unsigned char b = (unsigned char)w;
        memcpy(&r, &b, 1);
    } else {
        r = base[i];
    }
    return r;
}
template <typename T>
__device__ __forceinline__ void shared_store(T *base, unsigned i, const T &v) {
    constexpr int W = shared_width<T>();
    if constexpr (W != 0) {
        unsigned w[sizeof(T) / 4];
        memcpy(w, &v, sizeof(T));
        const unsigned a = shared_offset(base, i);
#pragma unroll
        for (int k = 0; k < (int)(sizeof(T) / W); k++) shared_st_words<W>(a + W * k, w + W / 4 * k);
    } else if constexpr (sizeof(T) == 2) {
        unsigned short h;
        memcpy(&h, &v, 2);
        asm volatile("st.shared.b16 [%0], %1;" ::"r"(shared_offset(base, i)), "h"(h) : "memory");
    } else if constexpr (sizeof(T) == 1) {
        unsigned char b;
        memcpy(&b, &v, 1);
        asm volatile("st.shared.u8 [%0], %1;" ::"r"(shared_offset(base, i)), "r"((unsigned)b) : "memory");
    } else {
        base[i] = v;
    }
}

// A 64-bit L2 cache policy for the whole access: evict-first, evict-last or evict-normal.
// All three are made and one selected, so that a CTA's start holds no branch on plan words
// before its first load (alone, this measured no change: docs/perf_log.md).
__device__ __forceinline__ uint64_t l2_policy(bool evict_first, bool evict_last) {
    uint64_t first = 0, last = 0, normal = 0;
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(first));
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(last));
    asm("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(normal));
#endif
    return evict_first ? first : evict_last ? last : normal;
}
// *ptr (a V of 16, 8, 4 or 2 bytes, aligned to its size) read evict-first in L1 and with L2
// policy pol; other sizes, and architectures before sm_80, read plainly.
template <class V> __device__ __forceinline__ V load_with_policy(const V *ptr, uint64_t pol) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    V v;
    if constexpr (sizeof(V) == 16) {
        unsigned w[4];
        asm("ld.global.L1::evict_first.L2::cache_hint.v4.b32 {%0, %1, %2, %3}, [%4], %5;"
            : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "l"(ptr), "l"(pol));
        memcpy(&v, w, 16);
    } else if constexpr (sizeof(V) == 8) {
        unsigned w[2];
        asm("ld.global.L1::evict_first.L2::cache_hint.v2.b32 {%0, %1}, [%2], %3;" : "=r"(w[0]), "=r"(w[1])
            : "l"(ptr), "l"(pol));
        memcpy(&v, w, 8);
    } else if constexpr (sizeof(V) == 4) {
        unsigned w;
        asm("ld.global.L1::evict_first.L2::cache_hint.b32 %0, [%1], %2;" : "=r"(w) : "l"(ptr), "l"(pol));
        memcpy(&v, &w, 4);
    } else if constexpr (sizeof(V) == 2) {
        unsigned short h;
        asm("ld.global.L1::evict_first.L2::cache_hint.b16 %0, [%1], %2;" : "=h"(h) : "l"(ptr), "l"(pol));
        memcpy(&v, &h, 2);
    } else {
        v = *ptr;
    }
    return v;
#else
    (void)pol;
    return *ptr;
#endif
}

// *ptr (a V of 16 bytes, aligned) read with a 256-byte L2 prefetch: the sector asked for and the
// rest of its 256 bytes come from DRAM in one request. For reads that take a sector or two of
// many rows at a time (the two-layout path), where each row's next sectors are read soon after
// by other warps. Other sizes, and architectures before sm_80, read plainly.
template <class V> __device__ __forceinline__ V load_prefetch_256(const V *ptr) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    if constexpr (sizeof(V) == 16) {
        V v;
        unsigned w[4];
        asm("ld.global.L2::256B.v4.b32 {%0, %1, %2, %3}, [%4];" : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
            : "l"(ptr));
        memcpy(&v, w, 16);
        return v;
    }
#endif
    return *ptr;
}

// An unsigned integer of N bytes: an element's raw bits.
template <int N> struct RawBits;
template <> struct RawBits<1> { using type = uint8_t; };
template <> struct RawBits<2> { using type = uint16_t; };
template <> struct RawBits<4> { using type = uint32_t; };
template <> struct RawBits<8> { using type = uint64_t; };

// An Op may declare `static constexpr bool byte_sum = true`: an integer sum of int8 or uint8
// into an int64 accumulator, which the input-vectorised path folds four bytes per __dp4a.
template <class Op, class = void> struct is_byte_sum : std::false_type {};
template <class Op> struct is_byte_sum<Op, std::void_t<decltype(Op::byte_sum)>> : std::bool_constant<Op::byte_sum> {};

// Four bytes of w summed into acc by one dot product with (1,1,1,1); signed for int8.
__device__ __forceinline__ int32_t dp4_sum(uint32_t w, int32_t acc, int8_t *) { return __dp4a((int)w, 0x01010101, acc); }
__device__ __forceinline__ int32_t dp4_sum(uint32_t w, int32_t acc, uint8_t *) {
    return (int32_t)__dp4a(w, 0x01010101u, (uint32_t)acc);
}

// An Op may declare `static constexpr bool dynamic_cast_load = true`: its load takes the plan
// (the input and output dtypes are read at run time), and its out_t is not a type of the
// output (the plan's out_size is the output's element size).
template <class Op, class = void> struct is_dynamic_op : std::false_type {};
template <class Op>
struct is_dynamic_op<Op, std::void_t<decltype(Op::dynamic_cast_load)>> : std::bool_constant<Op::dynamic_cast_load> {};

// An Op may declare `static constexpr int nin` inputs (default 1) and load_n: the kernel then
// reads one element of each input at each position and folds load_n of them.
template <class Op, class = void> struct op_inputs : std::integral_constant<int, 1> {};
template <class Op> struct op_inputs<Op, std::void_t<decltype(Op::nin)>> : std::integral_constant<int, Op::nin> {};
template <class Op, class = void> struct op_maps : std::false_type {};
template <class Op> struct op_maps<Op, std::void_t<decltype(Op::maps)>> : std::bool_constant<Op::maps> {};
template <class Op, class = void> struct op_maps_pairs : std::false_type {};
template <class Op>
struct op_maps_pairs<Op, std::void_t<decltype(Op::maps_pairs)>> : std::bool_constant<Op::maps_pairs> {};

// Whether an Op folds a chunk of elements into one accumulator at once (Op::reduces_chunk;
// the dynamic tier does not). Such an Op ignores the elements' indices.
template <class Op, class = void> struct op_reduces_chunk : std::false_type {};
template <class Op>
struct op_reduces_chunk<Op, std::void_t<decltype(Op::reduces_chunk)>> : std::bool_constant<Op::reduces_chunk> {};

// LEAN: the lean rows kernels' Reducer (dense rows in fewer vectors a round): how many lean
// rounds a round, 1, or 2 for the wide round (16-bit inputs on aligned rows); 0 for the other
// kernels. ELEM_LOOPS: the row loops of an element-read input (cfg.elem_inputs) are compiled
// in; the 32-register lean kernel spilled with them, so of the lean ones only lean_elem_kernel
// has them.
template <class Op, int OVS, int LEAN = 0, bool ELEM_LOOPS = (LEAN == 0)>
struct Reducer {
    using scalar_t = typename Op::scalar_t;
    using acc_t = typename Op::acc_t;
    using vec_t = AccVec<acc_t, OVS>;
    static constexpr int VT0 = TENSOR_REDUCE_VT0;           // independent loads in flight per thread
    static constexpr int IN_VEC = 16 / (int)sizeof(scalar_t) < 16 ? 16 / (int)sizeof(scalar_t) : 16;
    static constexpr int NACC = 4;                          // accumulators of the vectorised path

    static constexpr int NIN = op_inputs<Op>::value;
    static_assert(NIN >= 1 && NIN <= TENSOR_CUDA_REDUCE_MAX_INPUTS, "inputs of a reduction kernel");
    using val_t = typename Op::val_t;

    const tensor_cuda_reduce_plan &p;
    uint64_t policy[NIN]; // several inputs: each input's L2 policy (ld_in)
    __device__ Reducer(const tensor_cuda_reduce_plan &plan) : p(plan) {
        if constexpr (NIN > 1) {
#pragma unroll
            for (int q = 0; q < NIN; q++) policy[q] = l2_policy((p.evict_first >> q) & 1u, (p.evict_last >> q) & 1u);
        }
    }

    // A vector of input q. HINTED (kernels of several inputs whose plan has cache hints,
    // tensor_reduce_config_cache_hints): evict-first in L1, and in L2 the input's policy:
    // evict-first when each element is read once and the call is small, so those lines are
    // replaced before the dirty lines a producer left in L2, whose write-back would otherwise
    // compete with the reads; evict-last for a small input read again (broadcast); else normal.
    // Otherwise a plain load (one input: docs/cuda_reduce.md has that trade). The choice is made
    // once per thread (hinted()), not per load: a branch around each load slowed 16-bit inputs
    // (docs/perf_log.md).
    template <bool HINTED, class V> __device__ __forceinline__ V ld_in(const V *ptr, int q) const {
        if constexpr (HINTED) return load_with_policy(ptr, policy[q]);
        else return *ptr;
    }
    __device__ __forceinline__ bool hinted() const { return NIN > 1 && (p.evict_first | p.evict_last) != 0; }

    // Where one output's elements start: a byte pointer per input. With one input, every loop
    // below over the inputs is one iteration, so the one-input kernels are what they were.
    struct Bases {
        const char *at[NIN];
    };
    // Byte offsets of one reduced position in each input.
    struct Offs {
        uint32_t at[NIN];
    };

    // An element's value: the Op converts by its own types, or (DynOp) by the plan's dtypes.
    __device__ __forceinline__ val_t ld(scalar_t x) const {
        if constexpr (is_dynamic_op<Op>::value) return Op::load(x, p);
        else return Op::load(x);
    }
    // One element of each input -> the value reduced (through the Op's map when it has one).
    __device__ __forceinline__ val_t ldn(const scalar_t (&x)[NIN]) const {
        if constexpr (NIN == 1 && !op_maps<Op>::value) return ld(x[0]);
        else return Op::load_n(x);
    }
    // Element i of one vector load per input.
    template <class V>
    __device__ __forceinline__ val_t ldv(const V (&v)[NIN], int i) const {
        scalar_t x[NIN];
#pragma unroll
        for (int q = 0; q < NIN; q++) x[q] = v[q].v[i];
        return ldn(x);
    }
    // Elements i and i + 1 of one vector load per input (i even) at once, for an Op that maps a
    // packed pair (op_maps_pairs): the same values as ldv of each. Only such Ops take the loops
    // that call it, so the others' code is what it was.
    template <class V>
    __device__ __forceinline__ void ldv2(const V (&v)[NIN], int i, val_t &lo, val_t &hi) const {
        static_assert(op_maps_pairs<Op>::value && sizeof(scalar_t) == 2 && alignof(V) >= 4,
                      "a pair is one aligned word of an Op that maps pairs");
        uint32_t w[NIN];
#pragma unroll
        for (int q = 0; q < NIN; q++) memcpy(&w[q], &v[q].v[i], sizeof(uint32_t));
        Op::load_pair(w, lo, hi);
    }
    // Element i of each input's row; an input in `splat` holds one element a row (its element 0).
    __device__ __forceinline__ val_t ldi(const scalar_t *const (&d)[NIN], uint32_t i, uint32_t splat = 0u) const {
        scalar_t x[NIN];
#pragma unroll
        for (int q = 0; q < NIN; q++) x[q] = d[q][(splat >> q) & 1u ? 0u : i];
        return ldn(x);
    }

    // The functor's reduce with the element's index in the whole iterator (split pieces add
    // their base) and the op's scalar parameter.
    template <typename V>
    __device__ __forceinline__ acc_t red(acc_t a, V x, uint32_t k) const {
        return Op::reduce(a, x, (int64_t)k + p.index_base, p.op_param);
    }
    // Elements i0, i0 + 1, ... of one vector load into N accumulators, element i0 + k into
    // acc[k] (k0 + k * dk: its reduced index); i0 is a multiple of N.
    template <int N, class V>
    __device__ __forceinline__ void red_n(acc_t (&acc)[N], const V (&v)[NIN], int i0, uint32_t k0, uint32_t dk) const {
        if constexpr (N % 2 == 0 && op_maps_pairs<Op>::value) {
#pragma unroll
            for (int k = 0; k < N; k += 2) {
                val_t lo, hi;
                ldv2(v, i0 + k, lo, hi);
                acc[k] = red(acc[k], lo, k0 + k * dk);
                acc[k + 1] = red(acc[k + 1], hi, k0 + (k + 1) * dk);
            }
        } else {
#pragma unroll
            for (int k = 0; k < N; k++) acc[k] = red(acc[k], ldv(v, i0 + k), k0 + k * dk);
        }
    }
    // One vector load of the row path: element i into acc[i % NACC], its reduced index k0 + i;
    // an Op that folds chunks takes the whole vector into acc[0] (the others stay empty).
    template <class V>
    __device__ __forceinline__ void red_vec(acc_t (&acc)[NACC], const V (&v)[NIN], uint32_t k0) const {
        if constexpr (op_reduces_chunk<Op>::value) {
            val_t x[IN_VEC];
#pragma unroll
            for (int i = 0; i < IN_VEC; i++) x[i] = ldv(v, i);
            Op::template reduce_chunk<IN_VEC>(acc[0], x);
        } else if constexpr (IN_VEC % NACC == 0) {
#pragma unroll
            for (int i = 0; i < IN_VEC; i += NACC) red_n(acc, v, i, k0 + i, 1);
        } else {
#pragma unroll
            for (int i = 0; i < IN_VEC; i++) acc[i % NACC] = red(acc[i % NACC], ldv(v, i), k0 + i);
        }
    }

    __device__ bool x_reduce() const { return p.cfg.input_mult[0] != 0; }
    __device__ bool y_reduce() const { return p.cfg.input_mult[1] != 0; }
    __device__ bool g_reduce() const { return p.cfg.input_mult[2] != 0; }

    // Byte offset of the k-th reduced element from the input base of an output: one reduced
    // dim (one multiply), or several through the offset calculator (divisions). Two types, so
    // that run() picks one per thread and the loads of 1b carry no test of p.in_mode: with the
    // test inside, nvcc kept both bodies in the loop, a branch per load (the 16-bit column sums
    // ran 18% more instructions than PyTorch's, which picks its offset function the same way).
    struct StridedOffset {
        uint32_t stride[NIN];
        __device__ __forceinline__ Offs operator()(uint32_t k) const {
            Offs r;
#pragma unroll
            for (int q = 0; q < NIN; q++) r.at[q] = k * stride[q];
            return r;
        }
    };
    struct CalcOffset {
        const tensor_offset_calc *calc;
        __device__ __forceinline__ Offs operator()(uint32_t k) const {
            uint32_t o[TENSOR_OFFSET_CALC_MAX_ARGS];
            tensor_offset_calc_get(calc, k, o);
            Offs r;
#pragma unroll
            for (int q = 0; q < NIN; q++) r.at[q] = o[q];
            return r;
        }
    };

    // The last start index of a run of `span` more elements below n, as a bound in 32 bits:
    // the loops compare idx < bound instead of a 64-bit idx + span < n per round (idx + span
    // can pass 2^32; idx itself stays below n < 2^31, and steps are far below 2^31).
    static __device__ __forceinline__ uint32_t run_bound(uint32_t n, uint64_t span) {
        return span < n ? n - (uint32_t)span : 0u;
    }

    // How 1a and 1a' cut the row at `data` (p.num_inputs elements): `head` elements before the
    // first 16-byte aligned one (at most the whole row), then `nvec` whole vectors of IN_VEC
    // elements, then the tail. One function, so that both paths cut every row the same way.
    struct RowSplit {
        uint32_t head, nvec;
    };
    __device__ __forceinline__ RowSplit split_row(const scalar_t *data) const {
        const uint32_t n = p.num_inputs;
        const uint32_t mis = (uint32_t)(((uintptr_t)data / sizeof(scalar_t)) % IN_VEC);
        uint32_t head = mis == 0 ? 0u : (uint32_t)IN_VEC - mis;
        if (head > n) head = n;
        return {head, (n - head) / IN_VEC};
    }

    // The head into h, then the tail into t (element by element, in index order): the part of
    // the row no vector covers. Only the thread of input_idx 0 calls it.
    __device__ __forceinline__ void fold_head_tail(const scalar_t *const (&data)[NIN], RowSplit s, acc_t &h,
                                                   acc_t &t, uint32_t splat = 0u) const {
        for (uint32_t i = 0; i < s.head; i++) h = red(h, ldi(data, i, splat), i);
        for (uint32_t i = s.head + s.nvec * IN_VEC; i < p.num_inputs; i++) t = red(t, ldi(data, i, splat), i);
    }

    // ---- 1a. thread reduce along a contiguous reduced dim, 16-byte loads ----
    // Lanes stride over the row in vectors. The row need not be 16-byte aligned (a narrowed
    // view, an odd row length): the whole vectors start at the first aligned element; the
    // unaligned head and the tail after the last whole vector are folded by the one thread
    // whose input_idx is 0, so every element is counted exactly once. Several inputs are cut
    // where the first is: the plan vectorises only inputs whose rows are congruent to its rows.
    // Inputs in cfg.splat_inputs (stride 0 along the row: b of [R, N] x [R, 1]) are read once, and
    // their element stands in every vector; the row is cut where the first other input's is.
    // Two inputs get the constant one's index at compile time (SPLAT is the mask), so its
    // vectors take no registers and the other's loads can be twice as many per round.
    static constexpr uint32_t SPLAT_RUNTIME = ~0u; // the mask is read from the plan
    __device__ acc_t vectorized_thread_reduce(const Bases &base, uint32_t input_idx) const {
        if constexpr (is_byte_sum<Op>::value) return byte_sum_thread_reduce(base.at[0], input_idx);
        else if constexpr (NIN == 2) {
            const uint32_t m = (uint32_t)p.cfg.splat_inputs;
            if (m == 1u) return hinted() ? vector_loads_thread_reduce<true, 1u>(base, input_idx)
                                         : vector_loads_thread_reduce<false, 1u>(base, input_idx);
            if (m == 2u) return hinted() ? vector_loads_thread_reduce<true, 2u>(base, input_idx)
                                         : vector_loads_thread_reduce<false, 2u>(base, input_idx);
            // Not in a run-time compiled set either (a compile a second longer; its plans have none).
            if constexpr (ELEM_LOOPS && TENSOR_REDUCE_ELEM_ROWS) {
                const uint32_t e = (uint32_t)p.cfg.elem_inputs;
                if (e == 1u) return hinted() ? vector_loads_thread_reduce<true, 0u, 1u>(base, input_idx)
                                             : vector_loads_thread_reduce<false, 0u, 1u>(base, input_idx);
                if (e == 2u) return hinted() ? vector_loads_thread_reduce<true, 0u, 2u>(base, input_idx)
                                             : vector_loads_thread_reduce<false, 0u, 2u>(base, input_idx);
            }
            return hinted() ? vector_loads_thread_reduce<true>(base, input_idx)
                            : vector_loads_thread_reduce<false>(base, input_idx);
        } else if constexpr (NIN > 2) {
            if (p.cfg.splat_inputs != 0u)
                return hinted() ? vector_loads_thread_reduce<true, SPLAT_RUNTIME>(base, input_idx)
                                : vector_loads_thread_reduce<false, SPLAT_RUNTIME>(base, input_idx);
            return hinted() ? vector_loads_thread_reduce<true>(base, input_idx)
                            : vector_loads_thread_reduce<false>(base, input_idx);
        } else return vector_loads_thread_reduce<false>(base, input_idx);
    }
    // ELEM (two inputs; cfg.elem_inputs): the one input whose rows do not start where the other's
    // do modulo a vector (a broadcast row of odd length beside the rows of a): the row is cut
    // where the other input's is, and each of its vectors stands for IN_VEC element loads of
    // this one (as many bytes, more instructions; the element path loaded both inputs that way).
    template <bool HINTED, uint32_t SPLAT = 0u, uint32_t ELEM = 0u>
    __device__ acc_t vector_loads_thread_reduce(const Bases &base, uint32_t input_idx) const {
        using V = LoadVec<scalar_t, IN_VEC>;
        const scalar_t *data[NIN];
#pragma unroll
        for (int q = 0; q < NIN; q++) data[q] = reinterpret_cast<const scalar_t *>(base.at[q]);
        const uint32_t splat = SPLAT == SPLAT_RUNTIME ? (uint32_t)p.cfg.splat_inputs : SPLAT;
        const scalar_t *cut = data[0];
        V sv[NIN];
        if constexpr (SPLAT != 0u) {
#pragma unroll
            for (int q = NIN - 1; q >= 0; q--) {
                if (!((splat >> q) & 1u)) cut = data[q];
                const scalar_t x = (splat >> q) & 1u ? data[q][0] : scalar_t();
#pragma unroll
                for (int i = 0; i < IN_VEC; i++) sv[q].v[i] = x;
            }
        }
        if constexpr (ELEM != 0u) cut = data[(ELEM & 1u) ? 1 : 0];
        const RowSplit s = split_row(cut);
        const V *vdata[NIN]; // an ELEM input's is not aligned: read through ld_elems only
#pragma unroll
        for (int q = 0; q < NIN; q++) vdata[q] = reinterpret_cast<const V *>(data[q] + s.head);
        acc_t acc[NACC];
        row_vectors<HINTED, SPLAT, ELEM>(acc, vdata, s.nvec, (uint32_t)p.cfg.step_input, input_idx, s.head, sv, splat);
        if (input_idx == 0) fold_head_tail(data, s, acc[0], acc[1], splat);
#pragma unroll
        for (int i = 1; i < NACC; i++) acc[0] = Op::combine(acc[0], acc[i]);
        return acc[0];
    }
    // Vector j of an ELEM input's row at `row` (not aligned): its IN_VEC elements, one load each.
    // The elements are packed into the vector's words as raw bits: assembled element by element
    // as a struct of 16-bit values, the vector took a stack frame in local memory.
    template <bool HINTED, class V> __device__ __forceinline__ V ld_elems(const V *row, uint32_t j, int q) const {
        static_assert(sizeof(V) % 4 == 0 && sizeof(V) == IN_VEC * sizeof(scalar_t), "a vector is whole words");
        using R = typename RawBits<(int)sizeof(scalar_t)>::type;
        constexpr int PER = sizeof(R) >= 4 ? 1 : 4 / (int)sizeof(R); // elements a word
        const R *e = reinterpret_cast<const R *>(row) + (size_t)j * IN_VEC;
        uint32_t w[sizeof(V) / 4];
#pragma unroll
        for (int k = 0; k < (int)(sizeof(V) / 4); k++) w[k] = 0u;
#pragma unroll
        for (int i = 0; i < IN_VEC; i++) {
            const R x = ld_in<HINTED>(e + i, q);
            if constexpr (sizeof(R) == 8) {
                w[2 * i] = (uint32_t)x;
                w[2 * i + 1] = (uint32_t)(x >> 32);
            } else {
                w[i / PER] |= (uint32_t)x << (8 * (int)sizeof(R) * (i % PER));
            }
        }
        V v;
        memcpy(&v, w, sizeof(V));
        return v;
    }
    // Vectors idx, idx + step, ... < nvec of each input's row into acc (set to the identity
    // first); element i of vector j is the row's element head + j * IN_VEC + i.
    // With SPLAT (a mask, or SPLAT_RUNTIME: the mask is `splat`), an input q in the mask takes
    // sv[q] instead of a load; an input in ELEM is read through ld_elems.
    template <bool HINTED, uint32_t SPLAT = 0u, uint32_t ELEM = 0u, class V>
    __device__ __forceinline__ void row_vectors(acc_t (&acc)[NACC], const V *const (&vdata)[NIN], uint32_t nvec,
                                                uint32_t step, uint32_t idx, uint32_t head,
                                                const V *sv = nullptr, uint32_t splat = 0u) const {
#pragma unroll
        for (int i = 0; i < NACC; i++) acc[i] = Op::identity();
        // U vectors per iteration, all loads issued before any is used (ILP). One input: two.
        // Four for 8-byte elements (their vectors hold 2 values, as PyTorch's 32-byte double
        // vectors give 2 loads) measured slower: the float64 and int64 sums then spilled under
        // the 32-register cap (Bounds; docs/perf_log.md). Several inputs: four per input (their
        // kernels have 64 registers): with two, rows of a few thousand elements took two
        // dependent round trips to memory per thread, and a fused sum(a * b) trailed
        // torch.compile's on [1000, 8192] (docs/perf_log.md).
        constexpr int U = LEAN              ? LEAN * TENSOR_REDUCE_LEAN_ROW_UNROLL(NIN, SPLAT != 0u, IN_VEC)
                          : ELEM != 0u      ? TENSOR_REDUCE_ELEM_ROW_UNROLL((int)sizeof(scalar_t))
                          : SPLAT != 0u     ? TENSOR_REDUCE_SPLAT_ROW_UNROLL(NIN)
                                            : TENSOR_REDUCE_ROW_UNROLL(NIN);
        // Vector j of input q: loaded, read by elements (ELEM) or the repeated element (SPLAT).
        auto vec_of = [&](int q, uint32_t j) -> V {
            if ((ELEM >> q) & 1u) return ld_elems<HINTED>(vdata[q], j, q);
            if (SPLAT != 0u && ((splat >> q) & 1u)) return sv[q];
            return ld_in<HINTED>(&vdata[q][j], q);
        };
        // In the lean kernels' last round, and in the general kernel's element-read rows, a lane
        // past the row's end loads its first vector again and folds only the vectors it has, in
        // place of a second loop for the remainder: with one, a warp whose lanes split between
        // the loops ran them one after the other, two trips to memory, and the row's CTA waited
        // for it at the fold (docs/perf_log.md). Tests around the loads instead spilled them, and
        // the one loop spilled the general kernel's other rows (48 registers), which take more
        // rounds. The same vectors in the same order, so the same bits. No sum here wraps: a
        // row's vectors fit 32-bit byte offsets.
        constexpr bool ONE_LOOP = LEAN != 0 || ELEM != 0u;
        const uint32_t bound = ONE_LOOP ? nvec : run_bound(nvec, (uint64_t)(U - 1) * step);
        for (; idx < bound; idx += U * step) {
            // Whether vector u of the round is in the row (always, but in the one loop's last round).
            auto in_row = [&](int u) { return !ONE_LOOP || u == 0 || idx + u * step < nvec; };
            V v[U][NIN];
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int q = 0; q < NIN; q++) v[u][q] = vec_of(q, in_row(u) ? idx + u * step : idx);
#pragma unroll
            for (int u = 0; u < U; u++)
                if (in_row(u)) red_vec(acc, v[u], head + (idx + u * step) * IN_VEC);
        }
        if constexpr (!ONE_LOOP) {
            for (; idx < nvec; idx += step) {
                V a[NIN];
#pragma unroll
                for (int q = 0; q < NIN; q++) a[q] = vec_of(q, idx);
                red_vec(acc, a, head + idx * IN_VEC);
            }
        }
    }

    // ---- 1a'. the same for int8 / uint8 sums (is_byte_sum): 16 bytes per load, summed four
    // at a time by __dp4a into 32-bit partials. The generic loop sign-extends each byte and
    // adds it in 64 bits (~7 instructions per byte), so large int8 sums were issue-bound, not
    // memory-bound (docs/perf_log.md). A partial takes at most 2 x 4 x 255 per iteration;
    // folding into the int64 total every 2^16 iterations keeps it far from 2^31. Same lanes,
    // same head and tail as 1a; integer sums are exact, so the result is unchanged.
    __device__ acc_t byte_sum_thread_reduce(const char *base, uint32_t input_idx) const {
        static_assert(sizeof(scalar_t) == 1 && IN_VEC == 16, "byte sums load 16 bytes");
        const scalar_t *data = reinterpret_cast<const scalar_t *>(base);
        const uint32_t step = (uint32_t)p.cfg.step_input;
        const RowSplit s = split_row(data);
        const uint32_t nvec = s.nvec;
        const uint4 *vdata = reinterpret_cast<const uint4 *>(data + s.head);
        int32_t part[4] = {0, 0, 0, 0};
        acc_t total = Op::identity();
        uint32_t idx = input_idx, since_fold = 0;
        for (const uint32_t bound = run_bound(nvec, step); idx < bound; idx += 2 * step) {
            const uint4 a = vdata[idx], b = vdata[idx + step];
            part[0] = dp4_sum(a.x, part[0], (scalar_t *)nullptr);
            part[1] = dp4_sum(a.y, part[1], (scalar_t *)nullptr);
            part[2] = dp4_sum(a.z, part[2], (scalar_t *)nullptr);
            part[3] = dp4_sum(a.w, part[3], (scalar_t *)nullptr);
            part[0] = dp4_sum(b.x, part[0], (scalar_t *)nullptr);
            part[1] = dp4_sum(b.y, part[1], (scalar_t *)nullptr);
            part[2] = dp4_sum(b.z, part[2], (scalar_t *)nullptr);
            part[3] = dp4_sum(b.w, part[3], (scalar_t *)nullptr);
            if (++since_fold == (1u << 16)) {
                total = Op::combine(total, (acc_t)part[0] + (acc_t)part[1] + (acc_t)part[2] + (acc_t)part[3]);
                part[0] = part[1] = part[2] = part[3] = 0;
                since_fold = 0;
            }
        }
        if (idx < nvec) {
            const uint4 a = vdata[idx];
            part[0] = dp4_sum(a.x, part[0], (scalar_t *)nullptr);
            part[1] = dp4_sum(a.y, part[1], (scalar_t *)nullptr);
            part[2] = dp4_sum(a.z, part[2], (scalar_t *)nullptr);
            part[3] = dp4_sum(a.w, part[3], (scalar_t *)nullptr);
        }
        total = Op::combine(total, (acc_t)part[0] + (acc_t)part[1] + (acc_t)part[2] + (acc_t)part[3]);
        const scalar_t *const rows[NIN] = {data};
        if (input_idx == 0) fold_head_tail(rows, s, total, total);
        return total;
    }

    // ---- 1b. thread reduce, strided or along outputs (OVS neighbouring outputs per load) ----
    // VT0 accumulator sets: VT0 loads are issued before the first reduce, so each thread has
    // VT0 * OVS * sizeof(scalar_t) bytes in flight. SPLAT is cfg.splat_inputs known at compile
    // time (OVS > 1, two inputs, one reduced dim: the plan marks no other): such an input is
    // constant along the outputs (stride 0 on the first kept dim: b of [R, N] x [R, 1] over
    // dim 0), and one element of it stands for all OVS outputs in one register (a mask read at
    // run time kept both kinds of load live, and the float32 kernel spilled).
    template <bool HINTED, uint32_t SPLAT, class V>
    __device__ __forceinline__ V ld_outputs(const char *at, int q) const {
        if ((SPLAT >> q) & 1u) {
            const scalar_t x = ld_in<HINTED>(reinterpret_cast<const scalar_t *>(at), q);
            V v;
#pragma unroll
            for (int i = 0; i < OVS; i++) v.v[i] = x;
            return v;
        }
        return ld_in<HINTED>(reinterpret_cast<const V *>(at), q);
    }
    template <bool HINTED, uint32_t SPLAT, class Offset>
    __device__ vec_t strided_thread_reduce(const Bases &base, uint32_t input_idx, Offset in_offset) const {
        using V = LoadVec<scalar_t, OVS>;
        const uint32_t n = p.num_inputs, step = (uint32_t)p.cfg.step_input;
        acc_t acc[VT0][OVS];
#pragma unroll
        for (int j = 0; j < VT0; j++)
#pragma unroll
            for (int i = 0; i < OVS; i++) acc[j][i] = Op::identity();
        uint32_t idx = input_idx;
        for (const uint32_t bound = run_bound(n, (uint64_t)(VT0 - 1) * step); idx < bound; idx += VT0 * step) {
            V v[VT0][NIN];
#pragma unroll
            for (int j = 0; j < VT0; j++) {
                const Offs o = in_offset(idx + j * step);
#pragma unroll
                for (int q = 0; q < NIN; q++) v[j][q] = ld_outputs<HINTED, SPLAT, V>(base.at[q] + o.at[q], q);
            }
            if constexpr (op_reduces_chunk<Op>::value) { // each output's VT0 elements into acc[0]
#pragma unroll
                for (int i = 0; i < OVS; i++) {
                    val_t x[VT0];
#pragma unroll
                    for (int j = 0; j < VT0; j++) x[j] = ldv(v[j], i);
                    Op::template reduce_chunk<VT0>(acc[0][i], x);
                }
            } else {
#pragma unroll
                for (int j = 0; j < VT0; j++) red_n(acc[j], v[j], 0, idx + j * step, 0);
            }
        }
#pragma unroll
        for (int j = 0; j < VT0; j++) {
            if (idx < n) {
                const Offs o = in_offset(idx);
                V v[NIN];
#pragma unroll
                for (int q = 0; q < NIN; q++) v[q] = ld_outputs<HINTED, SPLAT, V>(base.at[q] + o.at[q], q);
                red_n(acc[j], v, 0, idx, 0);
            }
            idx += step;
        }
        vec_t r;
#pragma unroll
        for (int i = 0; i < OVS; i++) {
            r.v[i] = acc[0][i];
#pragma unroll
            for (int j = 1; j < VT0; j++) r.v[i] = Op::combine(r.v[i], acc[j][i]);
        }
        return r;
    }

    // ---- 1c. inputs of two layouts (cfg.rvec_inputs; OVS 1, one reduced dim) ----
    // Lanes hold neighbouring outputs, so an input contiguous along the outputs (a of a.t() x b)
    // is read a row of lanes at a time; each thread takes RCHUNK consecutive reduced elements per
    // step, so an input contiguous along the reduced dim (b; bit q of RV) is read 32 (or 16)
    // bytes of a row at a time, as 16-byte loads with a 256-byte L2 prefetch (ALIGNED: the
    // warps of the CTA read the row's next chunks next) or element by element. Every
    // other input is read element by element at its reduced stride. Thread starts and the step
    // are multiples of RCHUNK (the plan), so one partial chunk at most ends a thread's range.
    static constexpr int RCHUNK = TENSOR_REDUCE_RVEC_CHUNK((int)sizeof(scalar_t));
    // One chunk of every input at reduced index idx into x.
    template <uint32_t RV, bool ALIGNED>
    __device__ __forceinline__ void ld_chunk(scalar_t (&x)[RCHUNK][NIN], const Bases &base, uint32_t idx,
                                             const StridedOffset &so, uint32_t rv) const {
        using V = LoadVec<scalar_t, IN_VEC>;
        static_assert(RCHUNK % IN_VEC == 0, "a chunk is whole vectors");
#pragma unroll
        for (int q = 0; q < NIN; q++) {
            const char *at = base.at[q] + idx * so.stride[q];
            if (ALIGNED && ((rv >> q) & 1u)) {
#pragma unroll
                for (int u = 0; u < RCHUNK / IN_VEC; u++) {
                    const V v = load_prefetch_256(reinterpret_cast<const V *>(at + u * sizeof(V)));
#pragma unroll
                    for (int i = 0; i < IN_VEC; i++) x[u * IN_VEC + i][q] = v.v[i];
                }
            } else {
#pragma unroll
                for (int k = 0; k < RCHUNK; k++) x[k][q] = *reinterpret_cast<const scalar_t *>(at + k * so.stride[q]);
            }
        }
    }
    template <uint32_t RV, bool ALIGNED>
    __device__ acc_t rvec_thread_reduce(const Bases &base, uint32_t idx, const StridedOffset &so) const {
        const uint32_t n = p.num_inputs, step = (uint32_t)p.cfg.step_input;
        const uint32_t rv = RV == SPLAT_RUNTIME ? (uint32_t)p.cfg.rvec_inputs : RV;
        acc_t acc = Op::identity();
        for (const uint32_t bound = run_bound(n, RCHUNK - 1); idx < bound; idx += step) {
            scalar_t x[RCHUNK][NIN];
            ld_chunk<RV, ALIGNED>(x, base, idx, so, rv);
#pragma unroll
            for (int k = 0; k < RCHUNK; k++) acc = red(acc, ldn(x[k]), idx + k);
        }
        for (const uint32_t end = idx < n && n - idx < RCHUNK ? n : idx; idx < end; idx++) { // a partial chunk
            scalar_t x[NIN];
#pragma unroll
            for (int q = 0; q < NIN; q++) x[q] = *reinterpret_cast<const scalar_t *>(base.at[q] + idx * so.stride[q]);
            acc = red(acc, ldn(x), idx);
        }
        return acc;
    }
    __device__ acc_t rvec(const Bases &base, uint32_t idx, const StridedOffset &so) const {
        if (!p.cfg.rvec_aligned) return rvec_thread_reduce<0u, false>(base, idx, so);
        if constexpr (NIN == 2) {
            if (p.cfg.rvec_inputs == 1u) return rvec_thread_reduce<1u, true>(base, idx, so);
            return rvec_thread_reduce<2u, true>(base, idx, so);
        } else {
            return rvec_thread_reduce<SPLAT_RUNTIME, true>(base, idx, so);
        }
    }

    // ---- 1d. two layouts in tiles (cfg.rvec_tiles; two inputs, one kept dim) ----
    // CTA (x, y) takes outputs m0 = 32 x .. m0 + 31 over the reduced elements of chunk y, a tile
    // of TR at a time. Input A (contiguous along the outputs: a of a.t() x b) is loaded a tile
    // row of 32 outputs per warp load and staged in shared memory; warp w then takes outputs
    // w, w + TW, ..., and lane l the tile's elements l, l + 32, ..., so input D (contiguous along
    // the reduced dim: b) is loaded 32 consecutive elements per warp load. Both are read in
    // whole lines, where the outer plan's lanes read D 32 rows apart. Outputs past the last
    // load the last output's elements (their values are dropped).
    static constexpr int TW = TENSOR_REDUCE_RTILE_WARPS, TO = TENSOR_REDUCE_RTILE_OUTPUTS, TOW = TO / TW;
    static constexpr int TR = TENSOR_REDUCE_RTILE_ROWS((int)sizeof(scalar_t)), TS = TR / 32, TNA = TR / TW;
    static constexpr int TP = TENSOR_REDUCE_RTILE_PITCH;
    // One tile from reduced index kb: loads, staging, fold. TAIL: the chunk ends inside it
    // (kend); loads past it read the chunk's last element and the fold skips them.
    template <int A, int D, bool TAIL>
    __device__ __forceinline__ void tile_step(acc_t (&acc)[TOW], scalar_t (*tile)[TP], const char *pa,
                                              const char *const (&pd)[TOW], uint32_t kb, uint32_t kend) const {
        const uint32_t lane = threadIdx.x, w = threadIdx.y, sa = p.in_stride0[A], sd = p.in_stride0[D];
        scalar_t ra[TNA], rd[TOW][TS];
#pragma unroll
        for (int j = 0; j < TNA; j++) {
            uint32_t k = kb + w + TW * j;
            if (TAIL) k = min(k, kend - 1);
            ra[j] = *reinterpret_cast<const scalar_t *>(pa + k * sa);
        }
#pragma unroll
        for (int i = 0; i < TOW; i++)
#pragma unroll
            for (int s = 0; s < TS; s++) {
                uint32_t k = kb + lane + 32 * s;
                if (TAIL) k = min(k, kend - 1);
                rd[i][s] = *reinterpret_cast<const scalar_t *>(pd[i] + k * sd);
            }
        __syncthreads(); // the previous tile's readers are done
#pragma unroll
        for (int j = 0; j < TNA; j++) tile[w + TW * j][lane] = ra[j];
        __syncthreads();
#pragma unroll
        for (int i = 0; i < TOW; i++)
#pragma unroll
            for (int s = 0; s < TS; s++) {
                const uint32_t r = lane + 32 * s;
                if (TAIL && kb + r >= kend) continue;
                scalar_t x[2];
                x[A] = tile[r][w + TW * i];
                x[D] = rd[i][s];
                acc[i] = red(acc[i], ldn(x), kb + r);
            }
    }
    __device__ void tiles_run() const {
        if constexpr (NIN == 2) {
            if (p.cfg.rvec_inputs == 1u) tiles<0>();
            else tiles<1>();
        }
    }
    template <int D> __device__ void tiles() const {
        constexpr int A = 1 - D;
        extern __shared__ __align__(16) unsigned char smem_raw[];
        scalar_t (*tile)[TP] = reinterpret_cast<scalar_t (*)[TP]>(smem_raw);
        const uint32_t lane = threadIdx.x, w = threadIdx.y, M = p.num_outputs, len = (uint32_t)p.cfg.step_input;
        const uint32_t m0 = blockIdx.x * TO, k0 = blockIdx.y * len, kend = min(k0 + len, p.num_inputs);
        uint32_t o[TENSOR_OFFSET_CALC_MAX_ARGS];
        tensor_offset_calc_get(&p.out_calc, min(m0 + lane, M - 1), o);
        const char *pa = p.src[A] + o[1 + A];
        const char *pd[TOW];
#pragma unroll
        for (int i = 0; i < TOW; i++) {
            tensor_offset_calc_get(&p.out_calc, min(m0 + w + TW * i, M - 1), o);
            pd[i] = p.src[D] + o[1 + D];
        }
        acc_t acc[TOW];
#pragma unroll
        for (int i = 0; i < TOW; i++) acc[i] = Op::identity();
        uint32_t kb = k0;
        for (; kb + TR <= kend; kb += TR) tile_step<A, D, false>(acc, tile, pa, pd, kb, kend);
        if (kb < kend) tile_step<A, D, true>(acc, tile, pa, pd, kb, kend);
#pragma unroll
        for (int i = 0; i < TOW; i++) acc[i] = warp_fold(acc[i]);
        const uint32_t ctas = gridDim.y;
        acc_t *staging = reinterpret_cast<acc_t *>(p.staging);
        if (ctas > 1) {
            if (lane == 0)
#pragma unroll
                for (int i = 0; i < TOW; i++) staging[(size_t)(m0 + w + TW * i) * ctas + blockIdx.y] = acc[i];
            __threadfence(); // release: the partials are visible device-wide before we count
            uint32_t last = 0u;
            __syncthreads();
            if (lane == 0 && w == 0) {
                last = atomicAdd(&p.semaphores[blockIdx.x], 1u) == ctas - 1 ? 1u : 0u;
                if (last) p.semaphores[blockIdx.x] = 0u; // all the column's CTAs counted: ready for the next launch
            }
            if (!__syncthreads_or(last)) return;
            __threadfence(); // acquire: see the other CTAs' partials
            // Lane l folds chunks l, l + 32, ... of each of its warp's outputs, in order, with all
            // TOW x TU loads of a round in flight before the first combine: this fold is latency
            // that no other CTA hides any more (a round trip per round of loads).
            constexpr int TU = sizeof(acc_t) <= 4 ? 4 : sizeof(acc_t) <= 8 ? 2 : 1;
            acc_t f[TOW];
#pragma unroll
            for (int i = 0; i < TOW; i++) f[i] = Op::identity();
            const acc_t *col = staging + (size_t)(m0 + w) * ctas; // output i's partials: i TW ctas further
            for (uint32_t c = lane; c < ctas; c += 32 * TU) {
                acc_t t[TOW][TU];
#pragma unroll
                for (int i = 0; i < TOW; i++)
#pragma unroll
                    for (int u = 0; u < TU; u++)
                        if (c + 32 * u < ctas) t[i][u] = load_cg(col + (size_t)(i * TW) * ctas + c + 32 * u);
#pragma unroll
                for (int i = 0; i < TOW; i++)
#pragma unroll
                    for (int u = 0; u < TU; u++)
                        if (c + 32 * u < ctas) f[i] = Op::combine(f[i], t[i][u]);
            }
#pragma unroll
            for (int i = 0; i < TOW; i++) acc[i] = warp_fold(f[i]);
        }
        if (lane != 0) return;
#pragma unroll
        for (int i = 0; i < TOW; i++) {
            const uint32_t m = m0 + w + TW * i;
            if (m >= M) continue;
            tensor_offset_calc_get(&p.out_calc, m, o);
            store_at(o[0], nullptr, acc[i]);
        }
    }

    template <class Offset> __device__ vec_t strided(const Bases &base, uint32_t input_idx, Offset in_offset) const {
        if constexpr (NIN > 1 && OVS == 1 && std::is_same<Offset, StridedOffset>::value) {
            if (p.cfg.rvec_inputs != 0u) {
                vec_t r;
                r.v[0] = rvec(base, input_idx, in_offset);
                return r;
            }
        }
        if constexpr (NIN == 2 && OVS > 1 && std::is_same<Offset, StridedOffset>::value) { // one reduced dim
            const uint32_t m = (uint32_t)p.cfg.splat_inputs;
            if (m == 1u) return hinted() ? strided_thread_reduce<true, 1u>(base, input_idx, in_offset)
                                         : strided_thread_reduce<false, 1u>(base, input_idx, in_offset);
            if (m == 2u) return hinted() ? strided_thread_reduce<true, 2u>(base, input_idx, in_offset)
                                         : strided_thread_reduce<false, 2u>(base, input_idx, in_offset);
        }
        if constexpr (NIN > 1)
            if (hinted()) return strided_thread_reduce<true, 0u>(base, input_idx, in_offset);
        return strided_thread_reduce<false, 0u>(base, input_idx, in_offset);
    }

    // ---- 2. block reduces (power-of-two trees; block dims are powers of two) ----
    // Warps sharing an output: a tree over y in shared memory, one barrier per level.
    __device__ vec_t block_y_reduce(vec_t value, vec_t *shared) const {
        const int slot = threadIdx.x + threadIdx.y * blockDim.x;
        __syncthreads();  // the previous user of `shared` (if any) is done
        shared_store(shared, slot, value);
        for (int off = blockDim.y / 2; off > 0; off >>= 1) {
            __syncthreads();
            if ((int)threadIdx.y < off) {
                const vec_t other = shared_load(shared, slot + off * blockDim.x);
#pragma unroll
                for (int i = 0; i < OVS; i++) value.v[i] = Op::combine(value.v[i], other.v[i]);
            }
            __syncthreads();  // reads of this level before writes: racecheck-clean
            if ((int)threadIdx.y < off) shared_store(shared, slot, value);
        }
        return value;
    }

    // Lanes sharing an output: across warps in shared memory when the row is wider than a
    // warp, then within the warp by shuffles with increasing offsets (lane 0 ends with the
    // lanes [0, width) combined; other lanes hold partials nobody reads).
    __device__ vec_t block_x_reduce(vec_t value, vec_t *shared) const {
        int dim_x = blockDim.x;
        if (dim_x > warpSize) {
            const int slot = threadIdx.x + threadIdx.y * blockDim.x;
            __syncthreads();
            shared_store(shared, slot, value);
            for (int off = dim_x / 2; off >= warpSize; off >>= 1) {
                __syncthreads();
                if ((int)threadIdx.x < off) {
                    const vec_t other = shared_load(shared, slot + off);
#pragma unroll
                    for (int i = 0; i < OVS; i++) value.v[i] = Op::combine(value.v[i], other.v[i]);
                }
                __syncthreads();
                if ((int)threadIdx.x < off) shared_store(shared, slot, value);
            }
            dim_x = warpSize;
        }
        // A block smaller than a warp has a partial warp: name only the lanes that exist.
        const unsigned nthreads = blockDim.x * blockDim.y;
        const unsigned mask = nthreads >= 32 ? 0xffffffffu : ((1u << nthreads) - 1u);
        for (int off = 1; off < dim_x; off <<= 1) {
#pragma unroll
            for (int i = 0; i < OVS; i++) value.v[i] = Op::combine(value.v[i], shfl_down(value.v[i], off, mask));
        }
        return value;
    }

    // ---- 4. store. An unsplit iterator projects and writes. A 32-bit piece of a larger one
    // may first combine with the partial an earlier piece left (accumulate), and
    // leaves a partial instead of a final value unless it is the last (final_output). Partials
    // live in the output when it has the accumulator's type, else in acc_buf (16-bit outputs
    // never hold a partial sum).
    __device__ void store(uint32_t output_idx, const vec_t &value) const {
#pragma unroll
        for (int i = 0; i < OVS; i++) {
            uint32_t o[TENSOR_OFFSET_CALC_MAX_ARGS];
            tensor_offset_calc_get(&p.out_calc, output_idx + i, o);
            // Two-output ops (one input: max_dim's indices, var_mean's mean): the output
            // calculator's third operand is the second output.
            char *out2 = nullptr;
            if constexpr (NIN == 1) out2 = p.dst2 != nullptr ? p.dst2 + o[2] : nullptr;
            store_at(o[0], out2, value.v[i]);
        }
    }
    // One output whose element is out_off bytes into p.dst (out2: the second output's, or NULL).
    __device__ __forceinline__ void store_at(uint32_t out_off, char *out2, acc_t v) const {
        using out_t = typename Op::out_t;
        char *out = p.dst + out_off;
        uint32_t out_size;
        if constexpr (is_dynamic_op<Op>::value) out_size = p.out_size;
        else out_size = (uint32_t)sizeof(out_t);
        acc_t *partial = p.acc_buf != nullptr
                             ? reinterpret_cast<acc_t *>(p.acc_buf + (size_t)(out_off / out_size) * sizeof(acc_t))
                             : reinterpret_cast<acc_t *>(out);
        if (p.accumulate) v = Op::combine(*partial, v);
        if (p.final_output) Op::store(out, out2, v, p);
        else *partial = v;
    }

    // Partials col[c * mult] for c = first, first + step, ... < n, folded by one thread. U are
    // loaded before any is combined, into U accumulator sets combined in a fixed order at the
    // end (bitwise the same every run): a plain loop is a chain of dependent L2 round trips,
    // 264 per thread for a 1M x 64 column sum planned as PyTorch does.
    __device__ __forceinline__ vec_t fold_partials(const vec_t *col, uint32_t mult, uint32_t first, uint32_t step,
                                                   uint32_t n) const {
        // Accumulators wider than 8 bytes (Welford's, value-and-index pairs) take fewer sets:
        // these sets and their loads are the kernel's largest register demand, which sets the
        // registers, and so the occupancy, of the whole kernel (docs/perf_log.md).
        constexpr int U = sizeof(acc_t) <= 8 ? 4 : OVS == 1 ? 2 : 1;
        vec_t a[U];
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int i = 0; i < OVS; i++) a[u].v[i] = Op::identity();
        uint32_t c = first;
        for (; c + (U - 1) * step < n; c += U * step) {
            acc_t t[U][OVS];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const acc_t *src = reinterpret_cast<const acc_t *>(col + (size_t)(c + u * step) * mult);
#pragma unroll
                for (int i = 0; i < OVS; i++) t[u][i] = load_cg(src + i);
            }
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int i = 0; i < OVS; i++) a[u].v[i] = Op::combine(a[u].v[i], t[u][i]);
        }
#pragma unroll
        for (int u = 0; u < U; u++, c += step) {
            if (c < n) {
                const acc_t *src = reinterpret_cast<const acc_t *>(col + (size_t)c * mult);
#pragma unroll
                for (int i = 0; i < OVS; i++) a[u].v[i] = Op::combine(a[u].v[i], load_cg(src + i));
            }
        }
#pragma unroll
        for (int u = 1; u < U; u++)
#pragma unroll
            for (int i = 0; i < OVS; i++) a[0].v[i] = Op::combine(a[0].v[i], a[u].v[i]);
        return a[0];
    }

    // ---- 3. global reduce: the last CTA of each output column combines the partials ----
    // Returns true in the one CTA that must store (its value is the full result).
    // owns_slot: this thread holds its CTA's partial for its column (after the block trees);
    // lanes whose output is out of range write theirs too, so that every slot the last CTA
    // folds was written (compute-sanitizer initcheck on a fresh staging block).
    __device__ bool global_reduce(vec_t &value, bool owns_slot, vec_t *shared) const {
        vec_t *staging = reinterpret_cast<vec_t *>(p.staging);
        const uint32_t ctas = gridDim.y;
        // Slot of (this CTA, this column[, this lane when lanes own outputs]).
        uint32_t slot = blockIdx.y + blockIdx.x * ctas;
        if (!x_reduce()) slot = threadIdx.x + slot * blockDim.x;
        if (owns_slot) staging[slot] = value;
        __threadfence();  // release: our partial is visible device-wide before we count
        __shared__ bool is_last;
        __syncthreads();
        if (threadIdx.x == 0 && threadIdx.y == 0) {
            const uint32_t prev = atomicAdd(&p.semaphores[blockIdx.x], 1u);
            is_last = prev == ctas - 1;
            // Every other CTA of the column has counted: reset for the next launch, so a
            // reduction never needs a memset.
            if (is_last) p.semaphores[blockIdx.x] = 0;
        }
        __syncthreads();
        if (!is_last) return false;
        __threadfence();  // acquire: see the other CTAs' partials
        vec_t v;
        if (x_reduce()) {
            // All threads of the CTA stride over the column's partials, then the block trees.
            const uint32_t tid = threadIdx.x + threadIdx.y * blockDim.x;
            v = fold_partials(staging + (size_t)blockIdx.x * ctas, 1u, tid, blockDim.x * blockDim.y, ctas);
            v = block_y_reduce(v, shared);
            v = block_x_reduce(v, shared);
        } else {
            // Lanes own outputs: warps stride over the CTAs, then the y tree.
            const vec_t *col = staging + (size_t)blockIdx.x * ctas * blockDim.x + threadIdx.x;
            v = fold_partials(col, blockDim.x, threadIdx.y, blockDim.y, ctas);
            v = block_y_reduce(v, shared);
        }
        value = v;
        return true;
    }

    // The loads and folds of short_rows_run: lane tx of each row's group takes the row's units
    // tx, tx + blockDim.x, ...; the R rows' loads of one unit step are issued before the first
    // add. HINTED as in row_vectors (the plan's cache hints, chosen once per thread).
    template <bool HINTED, int R>
    __device__ __forceinline__ void short_row_loads(acc_t (&acc)[R], const uint32_t (&off)[R][NIN], uint32_t row0,
                                                    uint32_t rows_h) const {
        const uint32_t lanes = blockDim.x, tx = threadIdx.x;
        const uint32_t n = p.num_inputs;
#define TT_ROW_OK(r) (row0 + (uint32_t)(r) * rows_h < p.num_outputs)
        if (p.cfg.short_vec == IN_VEC && IN_VEC > 1) {
            using V = LoadVec<scalar_t, IN_VEC>;
            const uint32_t units = n / IN_VEC;
            for (uint32_t u = tx; u < units; u += lanes) {
                V v[R][NIN];
#pragma unroll
                for (int r = 0; r < R; r++)
                    if (TT_ROW_OK(r))
#pragma unroll
                        for (int q = 0; q < NIN; q++)
                            v[r][q] = ld_in<HINTED>(reinterpret_cast<const V *>(p.src[q] + off[r][q]) + u, q);
#pragma unroll
                for (int r = 0; r < R; r++)
                    if (TT_ROW_OK(r))
                        if constexpr (op_maps_pairs<Op>::value) {
#pragma unroll
                            for (int i = 0; i < IN_VEC; i += 2) {
                                val_t lo, hi;
                                ldv2(v[r], i, lo, hi);
                                acc[r] = red(red(acc[r], lo, u * IN_VEC + i), hi, u * IN_VEC + i + 1);
                            }
                        } else {
#pragma unroll
                            for (int i = 0; i < IN_VEC; i++) acc[r] = red(acc[r], ldv(v[r], i), u * IN_VEC + i);
                        }
            }
        } else {
            for (uint32_t u = tx; u < n; u += lanes) {
                scalar_t v[R][NIN];
#pragma unroll
                for (int r = 0; r < R; r++)
                    if (TT_ROW_OK(r))
#pragma unroll
                        for (int q = 0; q < NIN; q++)
                            v[r][q] = ld_in<HINTED>(reinterpret_cast<const scalar_t *>(p.src[q] + off[r][q]) + u, q);
#pragma unroll
                for (int r = 0; r < R; r++)
                    if (TT_ROW_OK(r)) acc[r] = red(acc[r], ldn(v[r]), u);
            }
        }
#undef TT_ROW_OK
    }

    // ---- short rows (cfg.short_rows, OVS 1): a group of blockDim.x lanes owns a row ----
    // Thread (x, y) of CTA b folds rows b * H * R + r * H + y (r < R = TENSOR_REDUCE_SHORT_ROWS_N,
    // H = blockDim.y): lane x takes the row's units x, x + blockDim.x, ... (a unit is a 16-byte
    // vector when short_vec > 1, else one element). The R loads of one unit step are issued
    // before the first add; then a shuffle tree over the lane group leaves the row in its
    // first lane, which stores it. No shared memory, no barrier.
    __device__ void short_rows_run() const {
        constexpr int R = TENSOR_REDUCE_SHORT_ROWS_N(IN_VEC, NIN);
        const uint32_t lanes = blockDim.x, tx = threadIdx.x, rows_h = blockDim.y;
        const uint32_t row0 = blockIdx.x * rows_h * R + threadIdx.y;
        uint32_t off[R][NIN];  // each input's base of each row (bytes from p.src[q]); valid when row < num_outputs
        acc_t acc[R];
#pragma unroll
        for (int r = 0; r < R; r++) {
            acc[r] = Op::identity();
#pragma unroll
            for (int q = 0; q < NIN; q++) off[r][q] = 0;
            const uint32_t row = row0 + r * rows_h;
            if (row < p.num_outputs) {
                uint32_t o[TENSOR_OFFSET_CALC_MAX_ARGS];
                tensor_offset_calc_get(&p.out_calc, row, o);
#pragma unroll
                for (int q = 0; q < NIN; q++) off[r][q] = o[1 + q];
            }
        }
        if constexpr (NIN > 1) {
            if (hinted()) short_row_loads<true>(acc, off, row0, rows_h);
            else short_row_loads<false>(acc, off, row0, rows_h);
        } else {
            short_row_loads<false>(acc, off, row0, rows_h);
        }
        // Every lane of the warp shuffles (rows past the end hold the identity); offsets stay
        // below the group width, so a group's first lane reads only its own group.
        for (uint32_t s = 1; s < lanes; s <<= 1) {
#pragma unroll
            for (int r = 0; r < R; r++) acc[r] = Op::combine(acc[r], shfl_down(acc[r], (int)s, 0xffffffffu));
        }
        if (tx == 0) {
#pragma unroll
            for (int r = 0; r < R; r++) {
                if (row0 + (uint32_t)r * rows_h < p.num_outputs) {
                    vec_t out;
                    out.v[0] = acc[r];
                    store(row0 + (uint32_t)r * rows_h, out);
                }
            }
        }
    }

    // ---- short rows, tile mode (cfg.short_tile; block {1, 256}) ----
    // The CTA's step_output consecutive dense rows are one contiguous, 16-byte aligned byte
    // range: copy it to shared memory with 16-byte loads (U in flight per thread), then each
    // thread folds whole rows, elements in order, and stores them (consecutive threads,
    // consecutive outputs). One input (the plan gives tiles to one-input reductions only).
    __device__ void short_tile_run() const {
        static_assert(NIN == 1, "tile mode stages one input");
        extern __shared__ __align__(16) unsigned char smem_raw[];
        using V = LoadVec<uint32_t, 4>;
        constexpr uint32_t T = TENSOR_REDUCE_SHORT_THREADS;
        constexpr int U = 4;
        const uint32_t tid = threadIdx.y, n = p.num_inputs;
        const uint32_t tile_rows = (uint32_t)p.cfg.step_output;
        const uint32_t row0 = blockIdx.x * tile_rows;
        const uint32_t rows = p.num_outputs - row0 < tile_rows ? p.num_outputs - row0 : tile_rows;
        uint32_t o[TENSOR_OFFSET_CALC_MAX_ARGS];
        tensor_offset_calc_get(&p.out_calc, row0, o);
        const char *src = p.src[0] + o[1];
        const uint32_t total = rows * n, nv = total * (uint32_t)sizeof(scalar_t) / 16;
        const V *gv = reinterpret_cast<const V *>(src);
        V *sv = reinterpret_cast<V *>(smem_raw);
        uint32_t i = tid;
        for (; i + (U - 1) * T < nv; i += U * T) {
            V t[U];
#pragma unroll
            for (int u = 0; u < U; u++) t[u] = gv[i + u * T];
#pragma unroll
            for (int u = 0; u < U; u++) shared_store(sv, i + u * T, t[u]);
        }
        for (; i < nv; i += T) shared_store(sv, i, gv[i]);
        // The bytes after the last whole vector (the input's last tile only).
        scalar_t *ss = reinterpret_cast<scalar_t *>(smem_raw);
        const scalar_t *gs = reinterpret_cast<const scalar_t *>(src);
        for (uint32_t e = nv * 16 / (uint32_t)sizeof(scalar_t) + tid; e < total; e += T) shared_store(ss, e, gs[e]);
        __syncthreads();
        for (uint32_t r = tid; r < rows; r += T) {
            const scalar_t *row = ss + r * n;
            vec_t out;
            out.v[0] = Op::identity();
            for (uint32_t k = 0; k < n; k++) out.v[0] = red(out.v[0], ld(shared_load(row, k)), k);
            store(row0 + r, out);
        }
    }

    // ---- dense rows (cfg.dense_rows; several inputs, OVS 1): CTA b folds row b, or with
    // cfg.warp_rows warp y of CTA b folds row b * blockDim.y + y ----
    // The general path's thread fold (1a) with the row's bases found directly, then a shuffle
    // tree in each warp and (CTA rows) one over the warps' partials (one barrier). On rows of a
    // few thousand elements a CTA lives a few microseconds and its start and its block fold are
    // latency no other CTA hides well: the general set-up (every index multiplier, the mode
    // tests) and its tree over warps (two barriers a level) showed in the call's time
    // (docs/perf_log.md).
    struct RowPlace {
        uint32_t row, tid, step; // the row, this thread's place among the row's threads, their count
    };
    __device__ __forceinline__ RowPlace row_place() const {
        if (p.cfg.warp_rows) return {blockIdx.x * blockDim.y + threadIdx.y, threadIdx.x, 32u};
        return {blockIdx.x, threadIdx.x + threadIdx.y * blockDim.x, blockDim.x * blockDim.y};
    }
    __device__ void dense_rows_run() const {
        const RowPlace at = row_place();
        if (at.row >= p.num_outputs) return; // warp rows: the last CTA's spare warps (no barrier follows)
        uint32_t o[TENSOR_OFFSET_CALC_MAX_ARGS];
        tensor_offset_calc_get_in_range(&p.out_calc, at.row, o);
        Bases base;
#pragma unroll
        for (int q = 0; q < NIN; q++) base.at[q] = p.src[q] + o[1 + q];
        fold_row_store(vectorized_thread_reduce(base, at.tid), at.tid, o[0]); // the row's output offset, found above
    }
    // Aligned dense rows (p.row_vecs > 0: every row of every input whole 16-byte vectors, the
    // outputs one dim): the row's bases from the leading plan words alone, and no head or tail.
    // The same loads into the same accumulators as dense_rows_run, so the same bits. An input
    // constant along the row (cfg.splat_inputs) is one element at its row's base.
    __device__ void aligned_rows_run() const {
        if constexpr (NIN == 2) {
            if (p.cfg.splat_inputs == 1u) return aligned_rows<1u>();
            if (p.cfg.splat_inputs == 2u) return aligned_rows<2u>();
        } else if (p.cfg.splat_inputs != 0u) return aligned_rows<SPLAT_RUNTIME>();
        aligned_rows<0u>();
    }
    template <uint32_t SPLAT> __device__ void aligned_rows() const {
        using V = LoadVec<scalar_t, IN_VEC>;
        const RowPlace at = row_place();
        if (at.row >= p.num_outputs) return;
        const uint32_t splat = SPLAT == SPLAT_RUNTIME ? (uint32_t)p.cfg.splat_inputs : SPLAT;
        const V *vdata[NIN];
        V sv[NIN];
#pragma unroll
        for (int q = 0; q < NIN; q++) {
            const char *row = p.src[q] + at.row * p.row_stride[q];
            vdata[q] = reinterpret_cast<const V *>(row);
            if (SPLAT != 0u && ((splat >> q) & 1u)) {
                const scalar_t x = *reinterpret_cast<const scalar_t *>(row);
#pragma unroll
                for (int i = 0; i < IN_VEC; i++) sv[q].v[i] = x;
            }
        }
        acc_t acc[NACC];
        if (hinted()) row_vectors<true, SPLAT>(acc, vdata, p.row_vecs, at.step, at.tid, 0u, sv, splat);
        else row_vectors<false, SPLAT>(acc, vdata, p.row_vecs, at.step, at.tid, 0u, sv, splat);
#pragma unroll
        for (int i = 1; i < NACC; i++) acc[0] = Op::combine(acc[0], acc[i]);
        fold_row_store(acc[0], at.tid, at.row * p.out_row_stride);
    }
    // The row's threads' partials: shuffles in each warp; for CTA rows one barrier, then warp 0
    // over the warps' partials (cta_fold). The row's first thread stores the output at out_off.
    __device__ __forceinline__ void fold_row_store(acc_t v, uint32_t tid, uint32_t out_off) const {
        if (p.cfg.warp_rows) {
            const acc_t r = warp_fold(v);
            if (tid == 0) store_at(out_off, nullptr, r);
            return;
        }
        if (cta_fold(v, tid) && tid == 0) store_at(out_off, nullptr, v);
    }
    // The CTA's threads' values (tid = threadIdx.x + threadIdx.y * blockDim.x) folded into v of
    // thread 0: shuffles in each warp, then (several warps) one barrier and warp 0 over the
    // warps' partials. Returns whether the calling thread is in warp 0 (the others are done;
    // no barrier follows for them).
    __device__ __forceinline__ bool cta_fold(acc_t &v, uint32_t tid) const {
        extern __shared__ __align__(16) unsigned char smem_raw[];
        vec_t *shared = reinterpret_cast<vec_t *>(smem_raw);
        const uint32_t warp = tid / 32u, lane = tid % 32u, nwarps = (blockDim.x * blockDim.y) / 32u;
        vec_t value;
        value.v[0] = warp_fold(v);
        if (nwarps > 1) {
            if (lane == 0) shared_store(shared, warp, value);
            __syncthreads();
            if (warp != 0) return false;
            value.v[0] = warp_fold(lane < nwarps ? shared_load(shared, lane).v[0] : Op::identity());
        }
        v = value.v[0];
        return true;
    }
    // Lanes 0..31 of a full warp combined into lane 0, nearer lanes first (block_x_reduce's order).
    static __device__ __forceinline__ acc_t warp_fold(acc_t a) {
#pragma unroll
        for (int off = 1; off < 32; off <<= 1) a = Op::combine(a, shfl_down(a, off, 0xffffffffu));
        return a;
    }

    // ---- flat (cfg.flat_reduce; several inputs, OVS 1): rows split over a column of CTAs ----
    // CTA (x, y) folds part y of row x: its threads (tid = tx + ty * blockDim.x) take the
    // vectors tid + y * threads, ... as the general path's thread fold (1a) does (same head,
    // vectors and tail), then shuffles in each warp and one barrier for warp 0 to fold the
    // warps' partials; warp 0 alone counts the CTA in and, in the row's last CTA, folds the
    // row's partials. These CTAs each take one or a few rounds of loads, so the fold after them
    // is much of a CTA's life: the general path spent a tree over the warps (two barriers a
    // level), in every CTA and again in the last (docs/cuda_reduce.md, "One output").
    __device__ void flat_run() const {
        const uint32_t threads = blockDim.x * blockDim.y, tid = threadIdx.x + threadIdx.y * blockDim.x;
        uint32_t o[TENSOR_OFFSET_CALC_MAX_ARGS];
        tensor_offset_calc_get(&p.out_calc, blockIdx.x, o);
        Bases base;
#pragma unroll
        for (int q = 0; q < NIN; q++) base.at[q] = p.src[q] + o[1 + q];
        acc_t v = vectorized_thread_reduce(base, tid + blockIdx.y * threads);
        if (!cta_fold(v, tid)) return;
        const uint32_t lane = tid % 32u, ctas = gridDim.y;
        if (ctas > 1) {
            vec_t *staging = reinterpret_cast<vec_t *>(p.staging) + (size_t)blockIdx.x * ctas;
            uint32_t last = 0u;
            if (lane == 0) {
                vec_t value;
                value.v[0] = v;
                staging[blockIdx.y] = value;
                __threadfence(); // release: the partial is visible device-wide before we count
                last = atomicAdd(&p.semaphores[blockIdx.x], 1u) == ctas - 1 ? 1u : 0u;
                if (last) p.semaphores[blockIdx.x] = 0u; // all the row's CTAs counted: ready for the next launch
            }
            if (!__shfl_sync(0xffffffffu, last, 0)) return;
            __threadfence(); // acquire: see the other CTAs' partials
            v = warp_fold(fold_partials(staging, 1u, lane, 32u, ctas).v[0]);
        }
        if (lane == 0) store_at(o[0], nullptr, v);
    }

    // The lean rows kernel's paths (cfg.lean_rows: dense CTA rows).
    __device__ void lean_rows_run() const {
        if constexpr (NIN > 1 && OVS == 1) {
            if constexpr (ELEM_LOOPS) dense_rows_run(); // rows with an element-read input: never aligned
            else if (p.row_vecs != 0) aligned_rows_run();
            else if constexpr (LEAN == 1) dense_rows_run(); // the wide round: aligned rows only (launch)
        }
    }

    __device__ __forceinline__ void run() const { // out of line, the Reducer went to local memory
        if constexpr (NIN > 1 && OVS == 1) { // byte sums have one input
            if (p.cfg.flat_reduce) {
                flat_run();
                return;
            }
            if (p.row_vecs != 0) {
                aligned_rows_run();
                return;
            }
            if (p.cfg.dense_rows) {
                dense_rows_run();
                return;
            }
        }
        extern __shared__ __align__(16) unsigned char smem_raw[];
        vec_t *shared = reinterpret_cast<vec_t *>(smem_raw);
        const uint32_t tx = threadIdx.x, ty = threadIdx.y;
        const uint32_t output_idx = (tx * (uint32_t)p.cfg.output_mult[0] + ty * (uint32_t)p.cfg.output_mult[1] +
                                     blockIdx.x * (uint32_t)p.cfg.step_output) * OVS;
        const uint32_t input_idx = tx * (uint32_t)p.cfg.input_mult[0] + ty * (uint32_t)p.cfg.input_mult[1] +
                                   blockIdx.y * (uint32_t)p.cfg.input_mult[2];
        vec_t value;
#pragma unroll
        for (int i = 0; i < OVS; i++) value.v[i] = Op::identity();
        // Threads past the last output or input still take part in the block reduces (with
        // the identity): every barrier and shuffle needs them.
        if (output_idx < p.num_outputs && input_idx < p.num_inputs) {
            uint32_t o[TENSOR_OFFSET_CALC_MAX_ARGS];
            tensor_offset_calc_get(&p.out_calc, output_idx, o);
            Bases base;
#pragma unroll
            for (int q = 0; q < NIN; q++) base.at[q] = p.src[q] + o[1 + q];
            if (OVS == 1 && p.cfg.vectorize_input) {
                if constexpr (OVS == 1) value.v[0] = vectorized_thread_reduce(base, input_idx);
            } else if (p.in_mode == TENSOR_CUDA_IN_STRIDED) {
                StridedOffset so;
#pragma unroll
                for (int q = 0; q < NIN; q++) so.stride[q] = p.in_stride0[q];
                value = strided(base, input_idx, so);
            } else
                value = strided(base, input_idx, CalcOffset{&p.in_calc});
        }
        if (y_reduce()) value = block_y_reduce(value, shared);
        if (x_reduce()) value = block_x_reduce(value, shared);
        const bool owns_slot = (!x_reduce() || tx == 0) && (!y_reduce() || ty == 0);
        const bool should_store = output_idx < p.num_outputs && owns_slot;
        if (g_reduce()) {
            if (!global_reduce(value, owns_slot, shared)) return;
        }
        if (should_store) store(output_idx, value);
    }
};

// Whether an Op's OVS-1 kernel takes the full-occupancy register cap (see Bounds): always
// with accumulators of at most 4 bytes; with wider ones when the Op declares
// `static constexpr bool fits_32_registers = true` (it was checked not to spill).
template <class Op, class = void> struct declares_fit : std::false_type {};
template <class Op>
struct declares_fit<Op, std::void_t<decltype(Op::fits_32_registers)>> : std::bool_constant<Op::fits_32_registers> {};
template <class Op>
struct fits_32_registers : std::bool_constant<(sizeof(typename Op::acc_t) <= 4) || declares_fit<Op>::value> {};

// Threads per CTA at most: PyTorch's 512 / OVS, or the tuned plan's wider outer CTAs
// (TENSOR_REDUCE_WIDE_THREADS). Min blocks per SM, i.e. the register cap: 4 (32 registers at
// 512 threads, full occupancy, which the planner's grid assumes) for OVS 1 when the Op fits
// (4-byte accumulators, and the 8-byte ones that say so), else 2 (64 registers at 512
// threads, 128 at 256, 255 at 128: VT0 x OVS accumulators, 8-byte or struct ones, would spill
// under a tighter cap). Left at 2, the float64 and int64 sums used 39-48 registers, so 2-3
// CTAs of 512 shared an SM: fewer loads in flight and more waves than the grid was sized for
// (docs/perf_log.md has the before and after).
template <class Op, int OVS>
struct Bounds {
    static constexpr int acc = (int)sizeof(typename Op::acc_t);
    static constexpr int wide = TENSOR_REDUCE_WIDE_THREADS(OVS, acc);
    static constexpr int threads = 512 / OVS > wide ? 512 / OVS : wide;
    // The dynamic-cast tier calls its load out of line: it keeps 64 registers for the call.
    // So does a map-reduce of several inputs: a vector load per input is in flight.
    static constexpr int min_blocks =
        (OVS == 1 && fits_32_registers<Op>::value && !is_dynamic_op<Op>::value && op_inputs<Op>::value == 1) ? 4 : 2;
    // A further cap, under min_blocks' (255: none). Two inputs, OVS 1 and 4-byte accumulators:
    // 48 registers (no spills for 16- and 32-bit inputs), so that five CTAs of 256 threads share
    // an SM instead of four: the 1-D dots and rows of several thousand elements, whose CTAs
    // each take one or two rounds of loads, kept more of them in flight (docs/perf_log.md).
    static constexpr int max_regs =
        (OVS == 1 && op_inputs<Op>::value == 2 && acc <= 4 && !is_dynamic_op<Op>::value) ? 48 : 255;
};

// __maxnreg__ came with CUDA 12.4 (nvcc and NVRTC); older compilers get min_blocks' cap alone.
#if defined(__CUDACC_VER_MAJOR__) && (__CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__ >= 1204)
#define TT_REDUCE_MAXNREG(n) __maxnreg__(n)
#else
#define TT_REDUCE_MAXNREG(n)
#endif

template <class Op, int OVS>
__global__ void __launch_bounds__(Bounds<Op, OVS>::threads, Bounds<Op, OVS>::min_blocks)
    TT_REDUCE_MAXNREG((Bounds<Op, OVS>::max_regs)) reduce_kernel(const __grid_constant__ tensor_cuda_reduce_plan plan) {
    // __grid_constant__: the plan stays in the parameter bank even though Reducer keeps a
    // reference to it (without it, taking its address copies 1.2 KB to local memory).
    Reducer<Op, OVS>(plan).run();
}

// Short contiguous rows (cfg.short_rows, lane groups or tile mode): 256 threads, up to 128
// registers (R loads of 16 bytes and R accumulators per thread spilled under 64).
template <class Op>
__global__ void __launch_bounds__(TENSOR_REDUCE_SHORT_THREADS, 2)
    short_rows_kernel(const __grid_constant__ tensor_cuda_reduce_plan plan) {
    if constexpr (op_inputs<Op>::value == 1) {
        if (plan.cfg.short_tile) {
            Reducer<Op, 1>(plan).short_tile_run();
            return;
        }
    }
    Reducer<Op, 1>(plan).short_rows_run();
}

// Dense rows of several inputs (the Ops TENSOR_REDUCE_LEAN_ROWS_FIT admits) under 32 registers:
// 512 threads x 4 CTAs fill an SM (the general kernel's 48-register cap for such Ops leaves 5
// CTAs of 256 or 2 of 512). Rows of a few thousand elements are a round or two of
// loads per thread, so a CTA's life is mostly its start, one memory latency and its fold: more
// resident threads keep more of those overlapped.
template <class Op>
struct lean_rows_fits
    : std::bool_constant<!is_dynamic_op<Op>::value && TENSOR_REDUCE_LEAN_ROWS_FIT(op_inputs<Op>::value,
                                                                                 sizeof(typename Op::acc_t),
                                                                                 sizeof(typename Op::scalar_t),
                                                                                 op_reduces_chunk<Op>::value)> {};
// The sets that also have the wide round (traits lean_rows 2): 16-bit inputs.
template <class Op>
struct lean_wide_fits : std::bool_constant<lean_rows_fits<Op>::value && sizeof(typename Op::scalar_t) == 2> {};
// W = 2 (cfg.lean_wide): twice the vectors a round, for 16-bit inputs on aligned rows.
template <class Op, int W = 1>
__global__ void __launch_bounds__(512, 4) lean_rows_kernel(const __grid_constant__ tensor_cuda_reduce_plan plan) {
    if constexpr (lean_rows_fits<Op>::value) Reducer<Op, 1, W>(plan).lean_rows_run();
}

// The lean plan's rows of two inputs of 4-byte values that do not start alike (cfg.elem_inputs):
// the element-read input's loop needs 40 registers (under 32 it spilled), so 3 CTAs of 512
// share an SM, against the general kernel's 48-register cap.
// 16-bit ones (TENSOR_REDUCE_ELEM_LEAN_KERNEL) take the general kernel's plan and round here: two
// lean rounds of one vector.
template <class Op>
struct lean_elem_fits
    : std::bool_constant<lean_rows_fits<Op>::value && op_inputs<Op>::value == 2 && TENSOR_REDUCE_ELEM_ROWS &&
                         (TENSOR_REDUCE_LEAN_ELEM_FIT((int)sizeof(typename Op::scalar_t)) ||
                          TENSOR_REDUCE_ELEM_LEAN_KERNEL((int)sizeof(typename Op::scalar_t)))> {};
template <class Op>
__global__ void __launch_bounds__(512, 3) lean_elem_kernel(const __grid_constant__ tensor_cuda_reduce_plan plan) {
    if constexpr (lean_elem_fits<Op>::value) {
        constexpr int S = (int)sizeof(typename Op::scalar_t);
        constexpr int L = TENSOR_REDUCE_ELEM_LEAN_KERNEL(S) ? 2 : 1;
        static_assert(!TENSOR_REDUCE_ELEM_LEAN_KERNEL(S) ||
                          L * TENSOR_REDUCE_LEAN_ROW_UNROLL(2, false, 16 / S) == TENSOR_REDUCE_ELEM_ROW_UNROLL(S),
                      "the general plan's round");
        Reducer<Op, 1, L, true>(plan).lean_rows_run();
    }
}

// Inputs of two layouts in tiles (cfg.rvec_tiles, the Ops TENSOR_REDUCE_RTILES_FIT admits): a
// kernel of its own, so that the general kernel's paths keep their code and registers; 256
// threads, 4 CTAs an SM (the plan sizes its grid for that), so up to 64 registers.
template <class Op>
struct rtiles_fits
    : std::bool_constant<TENSOR_REDUCE_RTILES_FIT(op_inputs<Op>::value, (int)sizeof(typename Op::scalar_t))> {};
template <class Op>
__global__ void __launch_bounds__(32 * TENSOR_REDUCE_RTILE_WARPS, 4)
    rtiles_kernel(const __grid_constant__ tensor_cuda_reduce_plan plan) {
    if constexpr (rtiles_fits<Op>::value) Reducer<Op, 1>(plan).tiles_run();
}

// Launches the plan's kernel on `stream`. Returns the launch error (cudaSuccess when queued).
template <class Op>
cudaError_t launch(const tensor_cuda_reduce_plan &plan, cudaStream_t stream) {
    const dim3 grid((unsigned)plan.cfg.grid[0], (unsigned)plan.cfg.grid[1]);
    const dim3 block((unsigned)plan.cfg.block_width, (unsigned)plan.cfg.block_height);
    const size_t smem = (size_t)plan.cfg.shared_memory_bytes;
    if (plan.cfg.short_rows) {
        short_rows_kernel<Op><<<grid, block, smem, stream>>>(plan);
        return cudaGetLastError();
    }
    if constexpr (lean_rows_fits<Op>::value) {
        if (plan.cfg.lean_rows) {
            if constexpr (lean_elem_fits<Op>::value) {
                if (plan.cfg.elem_inputs != 0) {
                    lean_elem_kernel<Op><<<grid, block, smem, stream>>>(plan);
                    return cudaGetLastError();
                }
            }
            if constexpr (lean_wide_fits<Op>::value) {
                if (plan.cfg.lean_wide && plan.row_vecs != 0) { // the wide round runs aligned rows only
                    lean_rows_kernel<Op, 2><<<grid, block, smem, stream>>>(plan);
                    return cudaGetLastError();
                }
            }
            lean_rows_kernel<Op><<<grid, block, smem, stream>>>(plan);
            return cudaGetLastError();
        }
    }
    if constexpr (rtiles_fits<Op>::value) {
        if (plan.cfg.rvec_tiles) {
            rtiles_kernel<Op><<<grid, block, smem, stream>>>(plan);
            return cudaGetLastError();
        }
    }
    switch (plan.cfg.output_vec_size) {
    case 4: reduce_kernel<Op, 4><<<grid, block, smem, stream>>>(plan); break;
    case 2: reduce_kernel<Op, 2><<<grid, block, smem, stream>>>(plan); break;
    default: reduce_kernel<Op, 1><<<grid, block, smem, stream>>>(plan); break;
    }
    return cudaGetLastError();
}

}  // namespace tt_reduce
