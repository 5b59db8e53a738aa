// The CUDA elementwise engine (PyTorch's Loops.cuh / CUDALoops.cuh): runs a
// functor over a built tensor_iter_t, one output and NIN inputs.
//
//   gpu_kernel<OutS, InS>(iter, op, func)
//     OutS, InS   storage types (cuda/convert.cuh) the kernel is compiled for: the output's
//                 and every input's. Operands of other dtypes take the dynamic-casting path.
//     op          a functor: res_t operator()(arg_t, ..., arg_t) const (NIN arguments), with
//                 member types arg_t / res_t (compute types) and `static constexpr int nin`,
//                 and the conversions of the dynamic-casting path (the op's semantics decide
//                 them, e.g. "round to the common dtype first"):
//                   __host__ __device__ arg_t load(int i, const char *p, tensor_dtype dt) const;
//                   __device__ void store(char *p, tensor_dtype dt, res_t r) const;
//                 Passed to the kernel by value, so it may carry scalar parameters.
//                 The typed paths use cvt<arg_t>(InS) and cvt<OutS>(res_t): callers pick
//                 InS/OutS so that these equal load/store for operands of those dtypes.
//
// Kernels, picked on the host per launch (docs/cuda_elementwise.md has the decision table):
//   vec_kernel<VEC, CONTIG=true>   every operand dense and 1-D: VEC-wide aligned accesses
//                                  (16 bytes for the widest operand where alignment allows).
//   vec_kernel<VEC, CONTIG=false>  dim 0 dense or broadcast (stride 0) for every operand, any
//                                  outer dims: still VEC-wide accesses, one offset computation
//                                  per vector (a row vector + a matrix runs near copy speed).
//   transpose_kernel               unary, 2-D, output dense along dim 0 and input along dim 1
//                                  (x.t().contiguous()): a shared-memory tile, both sides coalesced.
//   unrolled_kernel<DYN>           anything else (transposed, sliced with odd strides), and
//                                  every operand dtype mismatch (DYN: convert while loading and
//                                  storing, by a run-time switch): per-element offsets.
//                                  DYN does not depend on OutS/InS: one instantiation per op.
// Inputs that are 0-d CPU tensors are read once on the host and passed by value (mode VALUE).
// Iterators whose offsets do not fit 32 bits are split (tensor_iter_splitter) and each piece
// launched with 32-bit indexing, as PyTorch's gpu_kernel.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <utility>

#include "cuda/device_internal.h"
#include "cuda/convert.cuh"
#include "iterator/iterator.h"
#include "iterator/offset_calc.h"
#include "runtime/error.h"
#include "iterator/iter_internal.h"

namespace tt_loops {

using namespace tt_cvt; // storage types and conversions, shared with the reduction engine

constexpr int kThreads = 128; // PyTorch's choice; 16 blocks fill an SM's 2048 threads

// How a kernel reads input i.
enum InMode : uint8_t {
    IN_LOAD = 0,   // from memory at its offset (dense along dim 0 in vec_kernel)
    IN_BCAST0 = 1, // vec_kernel only: stride 0 along dim 0, so one element serves a vector
    IN_VALUE = 2,  // a 0-d CPU tensor, passed by value
};

template <int NIN, typename A> struct Inputs {
    static constexpr int N = NIN > 0 ? NIN : 1; // arrays of size 0 are not C++
    const char *ptr[N];
    A value[N];
    uint8_t mode[N];
    tensor_dtype dtype[N]; // read by the dynamic-casting path only
};

// load/store of the dynamic-casting path for ops that convert straight between the operand's
// dtype and the compute type A (cvt's rules: runtime/copy.c's). Ops with other rules
// (elementwise: through the common dtype) define their own.
template <typename A, typename R = A> struct DirectCasts {
    __host__ __device__ __forceinline__ A load(int, const char *p, tensor_dtype dt) const { return load_dyn<A>(p, dt); }
    __device__ __forceinline__ void store(char *p, tensor_dtype dt, R r) const { store_dyn(p, dt, r); }
};

// VEC elements moved by one access; the alignment makes the compiler emit one LDG/STG.128/64.
template <typename S, int VEC> struct alignas(sizeof(S) * VEC) Vec { S v[VEC]; };

// op(a[0], ..., a[NIN-1]) from an array, unrolled at compile time.
template <class Op, typename A, size_t... I>
__device__ __forceinline__ typename Op::res_t apply_(const Op &op, const A *a, std::index_sequence<I...>) {
    return op(a[I]...);
}
template <class Op, typename A> __device__ __forceinline__ typename Op::res_t apply(const Op &op, const A *a) {
    return apply_(op, a, std::make_index_sequence<Op::nin>{});
}

// Vectors per thread: 8 elements per thread, so each thread has 16-32 bytes of independent
// loads per input in flight before the first use (~16-19 KB per SM must be
// in flight to stream at full HBM rate; 2048 threads x 16 B = 32 KB). 16 elements for 16-bit
// types (PyTorch's choice) doubled these kernels' code and compile time for no measured gain.
template <int VEC, typename OutS, typename InS> constexpr int vecs_per_thread() {
    constexpr int elems = 8;
    return elems / VEC > 0 ? elems / VEC : 1;
}

// ---- (a)+(b) vectorized: dense (CONTIG) or dense-or-broadcast along dim 0 (!CONTIG) ----
// Vector index v covers elements [v*VEC, v*VEC+VEC) of dim 0's row. CONTIG: offsets are v times
// the vector's bytes (no division); else calc (built over {shape[0]/VEC, shape[1..]}) gives the
// byte offsets of the vector's first element, one divmod chain per VEC elements. CONTIG also
// handles a ragged tail of < VEC elements in the last block.
template <int VEC, bool CONTIG, class Op, typename OutS, typename InS>
__global__ void __launch_bounds__(kThreads)
vec_kernel(uint32_t nvec, uint32_t tail, Op op, tensor_offset_calc calc, char *out,
           Inputs<Op::nin, typename Op::arg_t> in) {
    using A = typename Op::arg_t;
    constexpr int NIN = Op::nin, VPT = vecs_per_thread<VEC, OutS, InS>();
    const uint32_t first = blockIdx.x * (uint32_t)(kThreads * VPT) + threadIdx.x;
    A args[VPT][VEC][Inputs<NIN, A>::N];
    uint32_t out_off[VPT];
    // Phase 1: issue every load of the thread before using any (independent, in flight together).
#pragma unroll
    for (int j = 0; j < VPT; j++) {
        const uint32_t v = first + j * kThreads; // consecutive threads: consecutive vectors (coalesced)
        if (v >= nvec) break;
        uint32_t off[TENSOR_OFFSET_CALC_MAX_ARGS];
        if (CONTIG) {
            off[0] = v * (uint32_t)(VEC * sizeof(OutS));
#pragma unroll
            for (int i = 0; i < NIN; i++) off[i + 1] = v * (uint32_t)(VEC * sizeof(InS));
        } else {
            tensor_offset_calc_get(&calc, v, off);
        }
        out_off[j] = off[0];
#pragma unroll
        for (int i = 0; i < NIN; i++) {
            if (in.mode[i] == IN_LOAD) {
                const Vec<InS, VEC> x = *reinterpret_cast<const Vec<InS, VEC> *>(in.ptr[i] + off[i + 1]);
#pragma unroll
                for (int k = 0; k < VEC; k++) args[j][k][i] = cvt<A>(x.v[k]);
            } else {
                const A s = in.mode[i] == IN_VALUE ? in.value[i] : cvt<A>(*reinterpret_cast<const InS *>(in.ptr[i] + off[i + 1]));
#pragma unroll
                for (int k = 0; k < VEC; k++) args[j][k][i] = s;
            }
        }
    }
    // Phase 2: compute and store whole vectors.
#pragma unroll
    for (int j = 0; j < VPT; j++) {
        if (first + j * kThreads >= nvec) break;
        Vec<OutS, VEC> y;
#pragma unroll
        for (int k = 0; k < VEC; k++) y.v[k] = cvt<OutS>(apply(op, args[j][k]));
        *reinterpret_cast<Vec<OutS, VEC> *>(out + out_off[j]) = y;
    }
    // The ragged tail (CONTIG only): elements nvec*VEC .. +tail-1, one per thread of the last block.
    if (CONTIG && tail != 0 && blockIdx.x == gridDim.x - 1 && threadIdx.x < tail) {
        const uint32_t e = nvec * VEC + threadIdx.x;
        A a[Inputs<NIN, A>::N];
#pragma unroll
        for (int i = 0; i < NIN; i++)
            a[i] = in.mode[i] == IN_VALUE ? in.value[i] : cvt<A>(reinterpret_cast<const InS *>(in.ptr[i])[e]);
        reinterpret_cast<OutS *>(out)[e] = cvt<OutS>(apply(op, a));
    }
}

// ---- (b)+(c) unrolled: any strides, optionally converting by run-time dtype (DYN) ----
// Thread t of block b handles elements b*kThreads*U + t + u*kThreads (coalesced where memory is),
// loads of all U elements first. Offsets come from the 32-bit OffsetCalculator (magic-number
// division, iterator/int_divider.h), one divmod per dim per element.
template <bool DYN, class Op, typename OutS, typename InS>
__global__ void __launch_bounds__(kThreads)
unrolled_kernel(uint32_t n, Op op, tensor_offset_calc calc, char *out, tensor_dtype out_dtype,
                Inputs<Op::nin, typename Op::arg_t> in) {
    using A = typename Op::arg_t;
    constexpr int NIN = Op::nin, U = 4;
    const uint32_t first = blockIdx.x * (uint32_t)(kThreads * U) + threadIdx.x;
    A args[U][Inputs<NIN, A>::N];
    uint32_t out_off[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
        const uint32_t e = first + u * kThreads;
        if (e >= n) break;
        uint32_t off[TENSOR_OFFSET_CALC_MAX_ARGS];
        tensor_offset_calc_get(&calc, e, off);
        out_off[u] = off[0];
#pragma unroll
        for (int i = 0; i < NIN; i++) {
            const char *p = in.ptr[i] + off[i + 1];
            if (in.mode[i] == IN_VALUE) args[u][i] = in.value[i];
            else if constexpr (DYN) args[u][i] = op.load(i, p, in.dtype[i]); // run-time dtype switch
            else args[u][i] = cvt<A>(*reinterpret_cast<const InS *>(p));
        }
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
        if (first + u * kThreads >= n) break;
        const typename Op::res_t r = apply(op, args[u]);
        if constexpr (DYN) op.store(out + out_off[u], out_dtype, r);
        else *reinterpret_cast<OutS *>(out + out_off[u]) = cvt<OutS>(r);
    }
}

// ---- transposing unary ops (x.t().contiguous()): a 32 x 32 tile through shared memory ----
// The output is dense along dim 0 and the input along dim 1, so no one thread-to-element mapping
// is coalesced for both (the unrolled kernel's reads would use 4 bytes of each 32-byte sector).
// Each block reads a tile along the input's rows, converts and computes, transposes it in shared
// memory (rows padded by one element: column writes hit 32 different banks) and writes it along
// the output's rows.
constexpr int kTile = 32, kTileRows = 8; // 256 threads, 4 elements each
template <class Op, typename OutS, typename InS>
__global__ void __launch_bounds__(kTile *kTileRows)
transpose_kernel(uint32_t n0, uint32_t n1, uint32_t out_s1, uint32_t in_s0, Op op, char *out,
                 Inputs<1, typename Op::arg_t> in) {
    using A = typename Op::arg_t;
    __shared__ OutS tile[kTile][kTile + 1]; // tile[dim-1 index][dim-0 index]
    const uint32_t b0 = blockIdx.x * kTile, b1 = blockIdx.y * kTile;
#pragma unroll
    for (int r = threadIdx.y; r < kTile; r += kTileRows) {
        const uint32_t i0 = b0 + r, i1 = b1 + threadIdx.x; // consecutive threads: consecutive input elements
        if (i0 < n0 && i1 < n1) {
            const A a = cvt<A>(*reinterpret_cast<const InS *>(in.ptr[0] + i0 * in_s0 + i1 * (uint32_t)sizeof(InS)));
            tile[threadIdx.x][r] = cvt<OutS>(op(a));
        }
    }
    __syncthreads();
#pragma unroll
    for (int r = threadIdx.y; r < kTile; r += kTileRows) {
        const uint32_t i1 = b1 + r, i0 = b0 + threadIdx.x; // consecutive threads: consecutive output elements
        if (i0 < n0 && i1 < n1)
            *reinterpret_cast<OutS *>(out + i1 * out_s1 + i0 * (uint32_t)sizeof(OutS)) = tile[r][threadIdx.x];
    }
}

// ======================= host side: pick a kernel, launch, split =======================

inline uint32_t blocks_for(uint64_t work, uint64_t per_block) {
    return (uint32_t)((work + per_block - 1) / per_block);
}

// Widest VEC in {8, 4, 2} (accesses <= 16 bytes) such that every dense operand's accesses are
// VEC-aligned: base pointers, and (not CONTIG) dim 0 divisible by VEC and outer strides
// multiples of the vector's bytes. 1 when none fits.
template <typename OutS, typename InS, int NIN, typename A>
int pick_vec(const tensor_iter_t *it, const Inputs<NIN, A> &in, bool contig) {
    const int big = (int)(sizeof(OutS) > sizeof(InS) ? sizeof(OutS) : sizeof(InS));
    for (int vec = 16 / big < 8 ? 16 / big : 8; vec >= 2; vec /= 2) {
        bool ok = contig || it->shape[0] % vec == 0;
        for (int a = 0; a <= NIN && ok; a++) {
            // By-value and broadcast-along-dim-0 inputs are read one element at a time.
            if (a > 0 && in.mode[a - 1] != IN_LOAD) continue;
            const tensor_iter_operand &o = it->operands[a];
            const uint64_t vb = (uint64_t)vec * (a == 0 ? sizeof(OutS) : sizeof(InS));
            ok = (uintptr_t)o.data % vb == 0;
            for (int d = 1; d < it->ndim && ok && !contig; d++)
                ok = it->shape[d] <= 1 || (uint64_t)o.strides[d] % vb == 0;
        }
        if (ok) return vec;
    }
    return 1;
}

template <int VEC, bool CONTIG, class Op, typename OutS, typename InS>
void launch_vec(uint32_t nvec, uint32_t tail, const Op &op, const tensor_offset_calc &calc, char *out,
                const Inputs<Op::nin, typename Op::arg_t> &in, cudaStream_t stream) {
    constexpr int VPT = vecs_per_thread<VEC, OutS, InS>();
    uint32_t grid = blocks_for(nvec, (uint64_t)kThreads * VPT);
    if (grid == 0) grid = 1; // only a tail
    vec_kernel<VEC, CONTIG, Op, OutS, InS><<<grid, kThreads, 0, stream>>>(nvec, tail, op, calc, out, in);
}

template <bool CONTIG, class Op, typename OutS, typename InS>
void launch_vec_any(int vec, uint32_t nvec, uint32_t tail, const Op &op, const tensor_offset_calc &calc, char *out,
                    const Inputs<Op::nin, typename Op::arg_t> &in, cudaStream_t stream) {
    constexpr int big = sizeof(OutS) > sizeof(InS) ? sizeof(OutS) : sizeof(InS);
    // Only widths with accesses <= 16 bytes are instantiated.
    if constexpr (big <= 2) if (vec == 8) return launch_vec<8, CONTIG, Op, OutS, InS>(nvec, tail, op, calc, out, in, stream);
    if constexpr (big <= 4) if (vec == 4) return launch_vec<4, CONTIG, Op, OutS, InS>(nvec, tail, op, calc, out, in, stream);
    if (vec == 2) return launch_vec<2, CONTIG, Op, OutS, InS>(nvec, tail, op, calc, out, in, stream);
    if constexpr (CONTIG) launch_vec<1, CONTIG, Op, OutS, InS>(nvec, tail, op, calc, out, in, stream); // unaligned
}

// One piece that fits 32-bit offsets (numel >= 1).
// A 2-D unary op whose output is dense along dim 0 and whose input is dense along dim 1 (and not
// along dim 0): the tiled transpose. Tiles of dim 1 go in gridDim.y (<= 65535).
template <typename OutS, typename InS, int NIN, typename A>
bool transposing(const tensor_iter_t *it, const Inputs<NIN, A> &in) {
    if (NIN != 1 || it->ndim != 2 || in.mode[0] != IN_LOAD || it->shape[0] < kTile || it->shape[1] < 2) return false;
    const tensor_iter_operand &o = it->operands[0], &i = it->operands[1];
    return o.strides[0] == (int64_t)sizeof(OutS) && i.strides[1] == (int64_t)sizeof(InS) &&
           i.strides[0] != (int64_t)sizeof(InS) && (it->shape[1] + kTile - 1) / kTile <= 65535;
}

// raw_bits: OutS/InS are unsigned words standing for any dtype of their size (bitwise copies);
// operands then match by size, not by dtype.
template <typename S> bool matches(tensor_dtype dt, bool raw_bits) {
    if (raw_bits) return tensor_dtype_size(dt) == sizeof(S);
    return dt == dtype_of<S>::value;
}

template <typename OutS, typename InS, class Op>
tensor_status launch_piece(const tensor_iter_t *it, const Op &op, bool raw_bits, const char *func) {
    using A = typename Op::arg_t;
    constexpr int NIN = Op::nin;
    Inputs<NIN, A> in{};
    bool dyn = !matches<OutS>(it->operands[0].dtype, raw_bits);
    bool contig = it->ndim <= 1, rows = true; // rows: dim 0 dense or stride 0 for all
    for (int a = 0; a <= NIN; a++) {
        const tensor_iter_operand &o = it->operands[a];
        const int64_t es = (int64_t)tensor_dtype_size(o.dtype);
        if (a > 0) {
            in.ptr[a - 1] = o.data;
            in.dtype[a - 1] = o.dtype;
            if (o.device.type == TENSOR_DEVICE_CPU) { // a 0-d CPU tensor: by value
                in.mode[a - 1] = IN_VALUE;
                if (raw_bits) {
                    InS w;
                    memcpy(&w, o.data, sizeof w);
                    in.value[a - 1] = cvt<A>(w);
                } else {
                    in.value[a - 1] = op.load(a - 1, o.data, o.dtype); // host memory: read here
                }
                in.ptr[a - 1] = nullptr;
                continue;
            }
            dyn = dyn || !matches<InS>(o.dtype, raw_bits);
        }
        const int64_t s0 = it->ndim >= 1 && it->shape[0] > 1 ? o.strides[0] : es;
        contig = contig && s0 == es;
        rows = rows && (s0 == es || s0 == 0);
        if (a > 0) in.mode[a - 1] = s0 == 0 ? IN_BCAST0 : IN_LOAD;
    }
    const uint64_t n = (uint64_t)tensor_iter_numel(it);
    cudaStream_t stream = tensor_cuda_stream_of(it->device.index);
    tensor_offset_calc calc;
    int64_t shape[TENSOR_MAX_DIMS];
    int64_t strides[TENSOR_OFFSET_CALC_MAX_ARGS][TENSOR_MAX_DIMS];
    const int64_t *sp[TENSOR_OFFSET_CALC_MAX_ARGS];
    const int ndim = it->ndim;
    for (int d = 0; d < ndim; d++) shape[d] = it->shape[d];
    for (int a = 0; a <= NIN; a++) {
        for (int d = 0; d < ndim; d++) strides[a][d] = it->operands[a].strides[d];
        if (a > 0 && in.mode[a - 1] == IN_VALUE)
            for (int d = 0; d < ndim; d++) strides[a][d] = 0;
        sp[a] = strides[a];
    }
    if (dyn && raw_bits)
        return tensor_error(TENSOR_ERR_INTERNAL, "%s: bitwise copy between dtypes of different sizes", func);
    const int vec = dyn ? 1 : pick_vec<OutS, InS>(it, in, contig);
    if (!dyn && contig) {
        tensor_offset_calc_make(0, shape, NIN + 1, sp, &calc); // unused: trivial offsets
        launch_vec_any<true, Op, OutS, InS>(vec, (uint32_t)(n / vec), (uint32_t)(n % vec), op, calc,
                                           it->operands[0].data, in, stream);
    } else if (!dyn && rows && vec > 1) {
        // Vector index space: dim 0 shrinks by VEC and its dense strides grow by VEC.
        shape[0] /= vec;
        for (int a = 0; a <= NIN; a++) strides[a][0] *= vec;
        if (tensor_offset_calc_make(ndim, shape, NIN + 1, sp, &calc) != TENSOR_OK) return tensor_last_status();
        launch_vec_any<false, Op, OutS, InS>(vec, (uint32_t)(n / vec), 0, op, calc, it->operands[0].data, in, stream);
    } else if (!dyn && transposing<OutS, InS, NIN>(it, in)) {
        if constexpr (NIN == 1) {
            const dim3 grid((unsigned)((it->shape[0] + kTile - 1) / kTile), (unsigned)((it->shape[1] + kTile - 1) / kTile));
            transpose_kernel<Op, OutS, InS><<<grid, dim3(kTile, kTileRows), 0, stream>>>(
                (uint32_t)it->shape[0], (uint32_t)it->shape[1], (uint32_t)it->operands[0].strides[1],
                (uint32_t)it->operands[1].strides[0], op, it->operands[0].data, in);
        }
    } else {
        for (int i = 0; i < NIN; i++)
            if (in.mode[i] == IN_BCAST0) in.mode[i] = IN_LOAD; // per-element offsets handle stride 0
        if (tensor_offset_calc_make(ndim, shape, NIN + 1, sp, &calc) != TENSOR_OK) return tensor_last_status();
        const uint32_t grid = blocks_for(n, (uint64_t)kThreads * 4);
        if (dyn) // char, char: the dynamic kernel reads no storage type, so ops share it
            unrolled_kernel<true, Op, char, char><<<grid, kThreads, 0, stream>>>((uint32_t)n, op, calc,
                                                                             it->operands[0].data, it->operands[0].dtype, in);
        else
            unrolled_kernel<false, Op, OutS, InS><<<grid, kThreads, 0, stream>>>((uint32_t)n, op, calc,
                                                                              it->operands[0].data, it->operands[0].dtype, in);
    }
    return tensor_cuda_error(cudaGetLastError(), func);
}

// The entry: checks the iterator's arity, runs it whole or split into 32-bit pieces, on the
// current stream of the iterator's device (asynchronous: errors of the kernel itself surface at
// the next synchronisation). numel 0: nothing is launched.
template <typename OutS, typename InS, class Op>
tensor_status gpu_kernel(const tensor_iter_t *iter, const Op &op, const char *func, bool raw_bits = false) {
    if (iter == nullptr) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'iter' is NULL", func);
    if (iter->num_outputs != 1 || iter->num_operands != Op::nin + 1)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: expected 1 output and %d inputs, got %d and %d", func,
                            Op::nin, iter->num_outputs, iter->num_operands - iter->num_outputs);
    if (iter->device.type != TENSOR_DEVICE_CUDA || iter->operands[0].device.type != TENSOR_DEVICE_CUDA)
        return tensor_error(TENSOR_ERR_DEVICE, "%s: the output is not on a CUDA device", func);
    for (int a = 1; a < iter->num_operands; a++) {
        const tensor_iter_operand &o = iter->operands[a];
        if (o.device.type == TENSOR_DEVICE_CPU && tensor_iter_numel(iter) > 0 &&
            (o.tensor == nullptr || tensor_ndim(o.tensor) != 0))
            return tensor_error(TENSOR_ERR_DEVICE, "%s: input %d is on the CPU and is not 0-d (only 0-d CPU tensors "
                                "may be inputs of a CUDA op)", func, a - 1);
    }
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK;
    int saved;
    if (tensor_cuda_device_enter(iter->device.index, &saved, func) != TENSOR_OK) return tensor_last_status();
    tensor_status st = TENSOR_OK;
    if (tensor_iter_can_use_32bit_indexing(iter)) {
        st = launch_piece<OutS, InS>(iter, op, raw_bits, func);
    } else {
        tensor_iter_splitter *sp = tensor_iter_splitter_new(iter, TENSOR_ITER_INDEX32_LIMIT);
        if (sp == nullptr) st = tensor_last_status();
        while (st == TENSOR_OK) {
            const tensor_iter_t *piece = nullptr;
            st = tensor_iter_splitter_next(sp, &piece);
            if (st != TENSOR_OK || piece == nullptr) break;
            st = launch_piece<OutS, InS>(piece, op, raw_bits, func);
        }
        tensor_iter_splitter_free(sp);
    }
    tensor_cuda_device_restore(saved);
    return st;
}

}  // namespace tt_loops
