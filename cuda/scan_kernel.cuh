// The CUDA scans: two kernels over the lines planned by cuda/scan_config.h, and decoupled
// look-back between the tiles of a line.
//
// Look-back. A tile publishes its aggregate as soon as it has it, then reads its
// predecessors' records a warp-wide window (32 tiles) at a time until it meets one that has
// published its inclusive prefix; then it publishes its own. Chained scans that wait for the
// immediate predecessor serialise the GPU on the flag latency; this lets tiles run ahead.
//
// Determinism. With floating-point sums the usual look-back is not reproducible: which
// predecessors are inclusive when a tile looks depends on timing, and so does the order of the
// additions. Here the prefix of tile k is always the left fold of the aggregates of tiles
// 0..k-1: a tile folds, in order, the inclusive prefix it met (itself that left fold, by
// induction) and the aggregates after it. Whatever the timing, the same additions happen in the
// same order, so results are bitwise the same run to run. Inside a tile the order is fixed by
// the thread layout.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cuda/scan_config.h"
#include "cuda/scan_op.cuh"
#include "iterator/offset_calc.h"

namespace tt_scan {

// Look-back statistics for bench/cuda/probes/scan_probe.cu (-DTT_SCAN_STATS; never in the
// library): [0] look-backs, [1] aggregates folded, [2] windows read, [3] polls that waited.
#ifdef TT_SCAN_STATS
__device__ unsigned long long tt_scan_stats[4];
#define TT_SCAN_STAT(i, v) atomicAdd(&tt_scan_stats[i], (unsigned long long)(v))
#else
#define TT_SCAN_STAT(i, v) ((void)0)
#endif

constexpr int kWarps = TT_SCAN_BLOCK / 32;
enum : unsigned { kNone = 0, kAggregate = 1, kInclusive = 2 };

// What a kernel reads: the operands (byte pointers, each line's start from the offset
// calculator over the line index: 0 values, 1 indices if any, then the input) and the plan.
struct ScanArgs {
    const char *in;
    char *out;
    char *idx;
    tensor_offset_calc64 calc;
    int in_arg;
    int lookback, lane_per_line;
    int tx, ty, ch;
    int64_t nlines, len, ntiles, tiles_per_line, ngroups;
    int64_t s_in, s_out, s_idx; // bytes between elements of a line (strided kernel)
};

// The records of the look-back (cuda/scan_config.h has the layout). 4-byte accumulators are
// packed with their flag into one 64-bit word: one load sees both, with no fence between. So are
// int64 ones whose values fit 62 bits (W62: a small-integer cumsum's prefixes, below
// 2^15 x 2^47 in magnitude), as (value << 2) | flag. Others publish the value, then the flag
// with release semantics; readers acquire the flag.
template <typename A, bool W62 = false> struct LookBack {
    static_assert(!W62 || std::is_same<A, int64_t>::value, "62-bit records hold int64 values");
    static constexpr bool kPacked = sizeof(A) == 4 || W62;
    static constexpr bool kW62 = W62;
    unsigned long long *counter;
    unsigned *flags;            // unpacked
    A *agg;                     // unpacked
    A *incl;                    // unpacked
    unsigned long long *packed; // packed: (flag << 32) | value bits, or (value << 2) | flag
};
// An Op whose int64 prefixes fit 62 bits says so (Op::prefix_fits_62).
template <class Op, class = void> struct fits62 : std::false_type {};
template <class Op> struct fits62<Op, std::void_t<decltype(Op::prefix_fits_62)>> : std::bool_constant<Op::prefix_fits_62> {};
template <class Op> using LookBackOf = LookBack<typename Op::acc_t, fits62<Op>::value>;

template <typename S, int N> struct alignas(sizeof(S) * N) Pack { S v[N]; };

__device__ __forceinline__ unsigned ld_acquire(const unsigned *p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void st_release(unsigned *p, unsigned v) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// A record's value, read from L2 (another SM wrote it; the flag's acquire came first).
template <typename A> __device__ __forceinline__ A ld_record(const A *p) {
    static_assert(sizeof(A) == 4 || sizeof(A) == 8 || sizeof(A) == 16, "record size");
    A r;
    if constexpr (sizeof(A) == 4) {
        unsigned w = __ldcg(reinterpret_cast<const unsigned *>(p));
        memcpy(&r, &w, 4);
    } else if constexpr (sizeof(A) == 8) {
        unsigned long long w = __ldcg(reinterpret_cast<const unsigned long long *>(p));
        memcpy(&r, &w, 8);
    } else {
        uint4 w = __ldcg(reinterpret_cast<const uint4 *>(p));
        memcpy(&r, &w, 16);
    }
    return r;
}

template <typename A, bool W> __device__ __forceinline__ void publish(const LookBack<A, W> &st, int64_t rec, A v, bool inclusive) {
    const unsigned flag = inclusive ? kInclusive : kAggregate;
    if constexpr (W) {
        const unsigned long long w = (unsigned long long)v << 2 | flag;
        asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(st.packed + rec), "l"(w) : "memory");
    } else if constexpr (LookBack<A, W>::kPacked) {
        unsigned bits;
        memcpy(&bits, &v, 4);
        const unsigned long long w = (unsigned long long)flag << 32 | bits;
        asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(st.packed + rec), "l"(w) : "memory");
    } else {
        (inclusive ? st.incl : st.agg)[rec] = v;
        st_release(st.flags + rec, flag);
    }
}

// Reads record rec once: its flag and, once published, the value that goes with it (the
// aggregate, or the inclusive prefix).
template <typename A, bool W> __device__ __forceinline__ unsigned peek_record(const LookBack<A, W> &st, int64_t rec, A &v) {
    if constexpr (W) {
        unsigned long long w;
        asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(st.packed + rec) : "memory");
        v = (int64_t)w >> 2; // arithmetic shift: the sign comes back
        return (unsigned)(w & 3u);
    } else if constexpr (LookBack<A, W>::kPacked) {
        unsigned long long w;
        asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(st.packed + rec) : "memory");
        const unsigned bits = (unsigned)w;
        memcpy(&v, &bits, 4);
        return (unsigned)(w >> 32);
    } else {
        const unsigned f = ld_acquire(st.flags + rec);
        if (f != kNone) v = ld_record(f == kInclusive ? st.incl + rec : st.agg + rec);
        return f;
    }
}

// Waits until record rec is published. The tile was handed to a block that already runs: it
// publishes in time.
template <typename A, bool W> __device__ __forceinline__ unsigned await_record(const LookBack<A, W> &st, int64_t rec, A &v) {
    unsigned f = peek_record(st, rec, v);
    while (f == kNone) {
        TT_SCAN_STAT(3, 1);
        f = peek_record(st, rec, v);
    }
    return f;
}

// A warp shuffle of any accumulator, 32-bit word by word: UP moves lane - arg's value to each
// lane (shfl_up), else every lane takes lane arg's (shfl).
template <bool UP, typename A> __device__ __forceinline__ A shfl_words(A x, unsigned arg) {
    static_assert(sizeof(A) % 4 == 0, "shuffled by 32-bit words");
    unsigned w[sizeof(A) / 4];
    memcpy(w, &x, sizeof x);
#pragma unroll
    for (int i = 0; i < (int)(sizeof(A) / 4); i++)
        w[i] = UP ? __shfl_up_sync(0xffffffffu, w[i], arg) : __shfl_sync(0xffffffffu, w[i], (int)arg);
    memcpy(&x, w, sizeof x);
    return x;
}
template <typename A> __device__ __forceinline__ A shfl_up(A x, unsigned d) { return shfl_words<true>(x, d); }
template <typename A> __device__ __forceinline__ A shfl_idx(A x, int src) { return shfl_words<false>(x, (unsigned)src); }

// Records a warp's look-back holds: two windows of 32 * P, plus room for the last, partial one.
template <int P> constexpr int hold_of() { return 3 * 32 * P; }

// Warp-collective (all 32 lanes): the exclusive prefix of tile k >= 1 of a line whose tile j
// has record rec0 + j * rstride, as the left fold of the aggregates of tiles 0..k-1 (see the
// top of the file). A window is 32 * P predecessors, lane l reading the P at distances
// l*P .. l*P+P-1 (so the lowest lane with an inclusive prefix has the nearest one). buf: this
// warp's hold_of<P>() + 1 shared slots. Every lane gets the result.
template <int P, class Op>
__device__ typename Op::acc_t look_back(const Op &op, const LookBackOf<Op> &st, int64_t rec0,
                                        int64_t rstride, int64_t k, typename Op::acc_t *buf) {
    using A = typename Op::acc_t;
    constexpr int kW = 32 * P, kH = hold_of<P>();
    const int lane = threadIdx.x & 31;
    int held = 0;         // aggregates in buf, newest first
    int64_t top = k - 1;  // the newest tile of the window
    for (;;) {
        if (lane == 0) TT_SCAN_STAT(2, 1);
        unsigned f[P];
        A v[P];
        // All P reads in flight at once, then a wait on those not yet published.
#pragma unroll
        for (int q = 0; q < P; q++) {
            const int64_t j = top - lane * P - q;
            f[q] = kInclusive; // before the line's start: nothing to add
            v[q] = op.identity();
            if (j >= 0) f[q] = peek_record(st, rec0 + j * rstride, v[q]);
        }
#pragma unroll
        for (int q = 0; q < P; q++)
            if (f[q] == kNone) f[q] = await_record(st, rec0 + (top - lane * P - q) * rstride, v[q]);
        int first_q = P; // my nearest inclusive record
#pragma unroll
        for (int q = P - 1; q >= 0; q--)
            if (f[q] == kInclusive) first_q = q;
        const unsigned incl = __ballot_sync(0xffffffffu, first_q < P);
        if (incl != 0) {
            const int first = __ffs(incl) - 1;
            const int nq = lane < first ? P : lane == first ? first_q : 0;
#pragma unroll
            for (int q = 0; q < P; q++) {
                if (q < nq) buf[held + lane * P + q] = v[q];
                if (lane == first && q == first_q) buf[kH] = v[q];
            }
            held += first * P + __shfl_sync(0xffffffffu, first_q, first);
            break;
        }
        if (held + 2 * kW <= kH) { // keep this window's aggregates and look further back
#pragma unroll
            for (int q = 0; q < P; q++) buf[held + lane * P + q] = v[q];
            held += kW;
            top -= kW;
        } // else read the same window again: its tiles turn inclusive in time
    }
    __syncwarp();
    if (lane == 0) {
        TT_SCAN_STAT(0, 1);
        TT_SCAN_STAT(1, held);
    }
    if (lane == 0) {
        A p = buf[kH];
        for (int i = held - 1; i >= 0; i--) p = op.combine(p, buf[i]);
        buf[kH] = p;
    }
    __syncwarp();
    const A p = buf[kH];
    __syncwarp(); // buf is reused by the warp's next look-back
    return p;
}

// One thread's look-back for its own line (the strided kernel when a line's tiles are far apart
// in launch order): the same left fold, walking one predecessor at a time and holding up to
// kLaneHold aggregates in registers before it waits for an inclusive prefix.
constexpr int kLaneHold = 8;
template <class Op>
__device__ typename Op::acc_t look_back_lane(const Op &op, const LookBackOf<Op> &st, int64_t rec0,
                                             int64_t rstride, int64_t k) {
    using A = typename Op::acc_t;
    A held[kLaneHold];
    int n = 0;
    int64_t j = k - 1;
    A p;
    for (;;) {
        A v;
        unsigned f = await_record(st, rec0 + j * rstride, v);
        if (f == kInclusive) {
            p = v;
            break;
        }
        if (n < kLaneHold) {
#pragma unroll
            for (int i = 0; i < kLaneHold; i++) // a register array: no dynamic index
                if (i == n) held[i] = v;
            n++;
            j--;
        } else {
            // wait until this one turns inclusive (tile 0 always is)
            while (f != kInclusive) f = await_record(st, rec0 + j * rstride, v);
            p = v;
            break;
        }
    }
#pragma unroll
    for (int i = kLaneHold - 1; i >= 0; i--)
        if (i < n) p = op.combine(p, held[i]);
    return p;
}

// Byte offsets of a line's start; one dim (the common case) needs no division.
__device__ __forceinline__ void line_offsets(const tensor_offset_calc64 &calc, int64_t line,
                                             int64_t off[TENSOR_OFFSET_CALC_MAX_ARGS]) {
    if (calc.ndim <= 1) {
#pragma unroll
        for (int a = 0; a < TENSOR_OFFSET_CALC_MAX_ARGS; a++) off[a] = calc.ndim == 1 ? line * calc.strides[0][a] : 0;
    } else {
        tensor_offset_calc_get64(&calc, line, off);
    }
}

// Takes the next tile: from the counter when tiles wait on each other (numbers in the order
// blocks start), else the block's own stride. Uniform across the block.
template <typename A, bool W>
__device__ __forceinline__ unsigned long long next_tile(const ScanArgs &a, const LookBack<A, W> &st,
                                                         unsigned long long iter, unsigned long long *slot) {
    if (threadIdx.x == 0) *slot = a.lookback ? atomicAdd(st.counter, 1ull) : iter;
    __syncthreads();
    return *slot;
}

template <typename InS, typename OutS> constexpr int vec_width() {
    constexpr int big = sizeof(InS) > sizeof(OutS) ? (int)sizeof(InS) : (int)sizeof(OutS);
    return 16 / big;
}

__device__ __forceinline__ bool aligned(const void *p, int bytes) {
    return ((uintptr_t)p & (uintptr_t)(bytes - 1)) == 0;
}

// Dense lines: a tile of TT_SCAN_TILE(sizeof(acc)) elements per block. Warp w holds the w-th
// stretch of 32 * ITEMS elements; in step s, lane l holds VEC adjacent elements (one vector
// access, the warp's accesses adjacent). A step is scanned inside each lane, then across the
// warp by shuffles, and carried into the next step.
// Four blocks per SM for 4-byte accumulators (64 registers): while some blocks wait on their
// look-back, the others keep loads in flight.
#ifndef TT_SCAN_MIN_BLOCKS /* overridable for tuning probes (bench/cuda/probes/scan_probe.cu) */
#define TT_SCAN_MIN_BLOCKS(acc_size) ((acc_size) <= 4 ? 4 : 1)
#endif
// Each block prefetches into L2 the input of the tile this many tiles ahead on its line, one
// a block will claim a few microseconds later: its loads then find their data on the way, and
// DRAM keeps reading while blocks scan, look back and store. The tiles' stores stream
// (store_streaming), so prefetched lines stay in L2 that long (distances tried:
// docs/perf_log.md). 0: none.
#ifndef TT_SCAN_PREFETCH_TILES /* overridable for tuning probes */
#define TT_SCAN_PREFETCH_TILES 96
#endif
#ifndef TT_SCAN_P_PACKED /* look-back reads per lane for packed records; overridable likewise */
#define TT_SCAN_P_PACKED 4
#endif
// What the contiguous kernel keeps per element: the Op's accumulator, or a narrower item type
// when the Op has one (Op::item_t, item_identity, item_load, item_combine, widen): sums of
// small integers into int64 are exact in int32 within a tile, and 4-byte items make the tile
// as large as float32's (half the registers of int64 items, twice the elements per tile: the
// look-back's cost is paid per tile). Tile aggregates and prefixes stay in acc_t.
template <class Op, class = void> struct Items {
    using I = typename Op::acc_t;
    static __device__ __forceinline__ I identity(const Op &op) { return op.identity(); }
    template <typename InS> static __device__ __forceinline__ I load(const Op &op, InS x, int64_t i) {
        return op.load(x, i);
    }
    static __device__ __forceinline__ I combine(const Op &op, I a, I b) { return op.combine(a, b); }
    static __device__ __forceinline__ typename Op::acc_t widen(const Op &, I x) { return x; }
};
template <class Op> struct Items<Op, std::void_t<typename Op::item_t>> {
    using I = typename Op::item_t;
    static __device__ __forceinline__ I identity(const Op &op) { return op.item_identity(); }
    template <typename InS> static __device__ __forceinline__ I load(const Op &op, InS x, int64_t i) {
        return op.item_load(x, i);
    }
    static __device__ __forceinline__ I combine(const Op &op, I a, I b) { return op.item_combine(a, b); }
    static __device__ __forceinline__ typename Op::acc_t widen(const Op &op, I x) { return op.widen(x); }
};
template <class Op> constexpr size_t item_size() { return sizeof(typename Items<Op>::I); }

// A 16-byte store of the contiguous kernel's tile, streaming (st.global.cs): the lines are
// written back and evicted first, so a long scan's output does not hold L2 lines the input
// prefetch and the look-back records need; other sizes store plainly.
template <class P> __device__ __forceinline__ void store_streaming(P *ptr, const P &v) {
    if constexpr (sizeof(P) == 16) {
        uint4 w;
        memcpy(&w, &v, 16);
        __stcs(reinterpret_cast<uint4 *>(ptr), w);
    } else {
        *ptr = v;
    }
}

template <class Op, typename InS, typename OutS>
__global__ void __launch_bounds__(TT_SCAN_BLOCK, TT_SCAN_MIN_BLOCKS(item_size<Op>())) scan_contig_kernel(ScanArgs a, Op op, LookBackOf<Op> st) {
    using A = typename Op::acc_t;
    using It = Items<Op>;
    using I = typename It::I;
    constexpr int ITEMS = TT_SCAN_ITEMS(sizeof(I)), TILE = TT_SCAN_TILE(sizeof(I));
    constexpr int VEC = vec_width<InS, OutS>();
    constexpr int STEPS = ITEMS / VEC;
    // The look-back window: 128 tiles where a record is one 32-bit value's load (packed), 64
    // for 62-bit ones (their 8-byte values: registers), else 32 (a record costs an acquire and
    // a dependent load, and four per lane serialise them).
#ifndef TT_SCAN_P_W62 /* overridable for tuning probes */
#define TT_SCAN_P_W62 2
#endif
    constexpr int P = !LookBackOf<Op>::kPacked ? 1 : LookBackOf<Op>::kW62 ? TT_SCAN_P_W62 : TT_SCAN_P_PACKED;
    __shared__ I s_warp[kWarps];
    __shared__ A s_buf[hold_of<P>() + 1];
    __shared__ A s_tile_pre;
    __shared__ unsigned long long s_tile;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int wbase = warp * 32 * ITEMS;
    for (unsigned long long iter = blockIdx.x;; iter += gridDim.x) {
        const unsigned long long tile = next_tile(a, st, iter, &s_tile);
        if (tile >= (unsigned long long)a.ntiles) return;
        const int64_t line = (int64_t)(tile / (unsigned long long)a.tiles_per_line);
        const int64_t k = (int64_t)(tile % (unsigned long long)a.tiles_per_line);
        int64_t off[TENSOR_OFFSET_CALC_MAX_ARGS];
        line_offsets(a.calc, line, off);
        const int64_t e0 = k * TILE;
        const int64_t nvalid = a.len - e0 < TILE ? a.len - e0 : TILE;
        const InS *in = reinterpret_cast<const InS *>(a.in + (a.in_arg == 1 ? off[1] : off[2])) + e0;
        OutS *out = reinterpret_cast<OutS *>(a.out + off[0]) + e0;
        int64_t *idx = Op::has_index ? reinterpret_cast<int64_t *>(a.idx + off[1]) + e0 : nullptr;
#if TT_SCAN_PREFETCH_TILES > 0
        { // one 128-byte line a thread, within the line's elements
            const int64_t ahead = e0 + (int64_t)TT_SCAN_PREFETCH_TILES * TILE;
            constexpr int kLine = 128 / (int)sizeof(InS);
            for (int64_t e = ahead + (int64_t)threadIdx.x * kLine; e < ahead + TILE && e < a.len; e += TT_SCAN_BLOCK * kLine)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(in - e0 + e));
        }
#endif
        const bool vec = nvalid == TILE && aligned(in, VEC * sizeof(InS)) &&
                         aligned(out, VEC * sizeof(OutS)) && (!Op::has_index || aligned(idx, 16));

        I x[ITEMS];
#pragma unroll
        for (int s = 0; s < STEPS; s++) {
            const int e = wbase + s * 32 * VEC + lane * VEC;
            if (vec) {
                const Pack<InS, VEC> p = *reinterpret_cast<const Pack<InS, VEC> *>(in + e);
#pragma unroll
                for (int v = 0; v < VEC; v++) x[s * VEC + v] = It::load(op, p.v[v], e0 + e + v);
            } else {
#pragma unroll
                for (int v = 0; v < VEC; v++)
                    x[s * VEC + v] = e + v < nvalid ? It::load(op, in[e + v], e0 + e + v) : It::identity(op);
            }
        }
        I carry;
#pragma unroll
        for (int s = 0; s < STEPS; s++) {
#pragma unroll
            for (int v = 1; v < VEC; v++) x[s * VEC + v] = It::combine(op, x[s * VEC + v - 1], x[s * VEC + v]);
            I t = x[s * VEC + VEC - 1];
#pragma unroll
            for (unsigned d = 1; d < 32; d *= 2) {
                const I y = shfl_up(t, d);
                if (lane >= (int)d) t = It::combine(op, y, t);
            }
            const I ex = shfl_up(t, 1);
            const I total = shfl_idx(t, 31);
            if (s == 0) {
                if (lane > 0)
#pragma unroll
                    for (int v = 0; v < VEC; v++) x[v] = It::combine(op, ex, x[v]);
                carry = total;
            } else {
                const I pre = lane > 0 ? It::combine(op, carry, ex) : carry;
#pragma unroll
                for (int v = 0; v < VEC; v++) x[s * VEC + v] = It::combine(op, pre, x[s * VEC + v]);
                carry = It::combine(op, carry, total);
            }
        }
        if (lane == 0) s_warp[warp] = carry;
        __syncthreads();
        if (a.lookback && warp == 0) {
            I tile_sum = s_warp[0];
#pragma unroll
            for (int w = 1; w < kWarps; w++) tile_sum = It::combine(op, tile_sum, s_warp[w]);
            const A agg = It::widen(op, tile_sum);
            const int64_t rec0 = line * a.tiles_per_line;
            if (lane == 0) publish(st, rec0 + k, agg, k == 0);
            if (k > 0) {
                const A pre = look_back<P>(op, st, rec0, 1, k, s_buf);
                if (lane == 0) {
                    publish(st, rec0 + k, op.combine(pre, agg), true);
                    s_tile_pre = pre;
                }
            }
        }
        __syncthreads();
        // This warp's prefix: the tile's (k > 0), then the tile's earlier warps.
        bool has = a.lookback && k > 0;
        A pre = has ? s_tile_pre : op.identity();
        if constexpr (std::is_same<I, A>::value) {
            for (int w = 0; w < warp; w++) {
                pre = has ? op.combine(pre, s_warp[w]) : s_warp[w];
                has = true;
            }
        } else if (warp > 0) { // exact items: any grouping
            I w_pre = s_warp[0];
            for (int w = 1; w < warp; w++) w_pre = It::combine(op, w_pre, s_warp[w]);
            pre = has ? op.combine(pre, It::widen(op, w_pre)) : It::widen(op, w_pre);
            has = true;
        }
#pragma unroll
        for (int s = 0; s < STEPS; s++) {
            const int e = wbase + s * 32 * VEC + lane * VEC;
            A r[VEC];
#pragma unroll
            for (int v = 0; v < VEC; v++) {
                const A xv = It::widen(op, x[s * VEC + v]);
                r[v] = has ? op.combine(pre, xv) : xv;
            }
            if (vec) {
                Pack<OutS, VEC> q;
                int64_t ib[VEC];
#pragma unroll
                for (int v = 0; v < VEC; v++) op.store(r[v], &q.v[v], &ib[v]);
                store_streaming(reinterpret_cast<Pack<OutS, VEC> *>(out + e), q);
                if constexpr (Op::has_index) {
                    if constexpr (VEC >= 2) {
#pragma unroll
                        for (int v = 0; v < VEC; v += 2)
                            store_streaming(reinterpret_cast<Pack<int64_t, 2> *>(idx + e + v), Pack<int64_t, 2>{{ib[v], ib[v + 1]}});
                    } else {
                        idx[e] = ib[0];
                    }
                }
            } else {
#pragma unroll
                for (int v = 0; v < VEC; v++)
                    if (e + v < nvalid) op.store(r[v], out + e + v, Op::has_index ? idx + e + v : nullptr);
            }
        }
        __syncthreads(); // s_tile and s_warp are the next tile's
    }
}

// Any layout: a block is tx lines x ty chunks of ch elements (a slab of ty * ch elements of
// each line); thread (x, y) scans chunk y of line x in order, the chunks of a slab are chained
// by one thread per line, and the slabs of a line by look-back (a warp per line).
template <class Op, typename InS, typename OutS>
__global__ void __launch_bounds__(TT_SCAN_BLOCK) scan_strided_kernel(ScanArgs a, Op op, LookBackOf<Op> st) {
    using A = typename Op::acc_t;
    __shared__ A s_chunk[TT_SCAN_BLOCK]; // chunk totals, then each chunk's prefix within the slab
    __shared__ A s_slab[TT_SCAN_BLOCK];  // per line: the slab's aggregate, then its prefix
    __shared__ A s_buf[kWarps][hold_of<1>() + 1];
    __shared__ unsigned long long s_tile;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int tx = a.tx, ty = a.ty, ch = a.ch;
    const int x = threadIdx.x % tx, y = threadIdx.x / tx;
    const bool in_block = y < ty;
    for (unsigned long long iter = blockIdx.x;; iter += gridDim.x) {
        const unsigned long long tile = next_tile(a, st, iter, &s_tile);
        if (tile >= (unsigned long long)a.ntiles) return;
        const int64_t slab = (int64_t)(tile / (unsigned long long)a.ngroups);
        const int64_t group = (int64_t)(tile % (unsigned long long)a.ngroups);
        const int64_t line = group * tx + x;
        const bool live = in_block && line < a.nlines;
        int64_t off[TENSOR_OFFSET_CALC_MAX_ARGS] = {0};
        if (live) line_offsets(a.calc, line, off);
        const int64_t e0 = slab * ((int64_t)ty * ch) + (int64_t)y * ch;
        const char *in = a.in + (a.in_arg == 1 ? off[1] : off[2]);

        A v[TT_SCAN_MAX_CH];
        A total = op.identity();
#pragma unroll
        for (int i = 0; i < TT_SCAN_MAX_CH; i++) {
            if (i < ch) {
                const int64_t e = e0 + i;
                v[i] = live && e < a.len ? op.load(*reinterpret_cast<const InS *>(in + e * a.s_in), e) : op.identity();
                if (i > 0) v[i] = op.combine(v[i - 1], v[i]);
                total = v[i];
            }
        }
        if (in_block) s_chunk[threadIdx.x] = total;
        __syncthreads();
        if (y == 0) { // one thread per line: the chunks' prefixes, the slab's aggregate
            A run = s_chunk[x];
            for (int yy = 1; yy < ty; yy++) {
                const A t = s_chunk[yy * tx + x];
                s_chunk[yy * tx + x] = run;
                run = op.combine(run, t);
            }
            s_slab[x] = run;
            if (a.lookback && line < a.nlines) publish(st, slab * a.nlines + line, run, slab == 0);
        }
        __syncthreads();
        if (a.lookback && slab > 0) {
            if (a.lane_per_line) {
                if (y == 0 && line < a.nlines) {
                    const A pre = look_back_lane(op, st, line, a.nlines, slab);
                    publish(st, slab * a.nlines + line, op.combine(pre, s_slab[x]), true);
                    s_slab[x] = pre;
                }
            } else {
                for (int xx = warp; xx < tx; xx += kWarps) {
                    const int64_t ln = group * tx + xx;
                    if (ln >= a.nlines) break;
                    const A pre = look_back<1>(op, st, ln, a.nlines, slab, s_buf[warp]);
                    if (lane == 0) {
                        publish(st, slab * a.nlines + ln, op.combine(pre, s_slab[xx]), true);
                        s_slab[xx] = pre;
                    }
                }
            }
        }
        __syncthreads();
        if (live) {
            bool has = a.lookback && slab > 0;
            A pre = has ? s_slab[x] : op.identity();
            if (y > 0) {
                pre = has ? op.combine(pre, s_chunk[threadIdx.x]) : s_chunk[threadIdx.x];
                has = true;
            }
            char *out = a.out + off[0];
            char *idx = Op::has_index ? a.idx + off[1] : nullptr;
#pragma unroll
            for (int i = 0; i < TT_SCAN_MAX_CH; i++) {
                const int64_t e = e0 + i;
                if (i < ch && e < a.len)
                    op.store(has ? op.combine(pre, v[i]) : v[i], reinterpret_cast<OutS *>(out + e * a.s_out),
                             Op::has_index ? reinterpret_cast<int64_t *>(idx + e * a.s_idx) : nullptr);
            }
        }
        __syncthreads(); // s_tile, s_chunk and s_slab are the next tile's
    }
}

} // namespace tt_scan
