// The host side of one reduction instance: plan, launch (whole or in 32-bit pieces, with an
// accumulation buffer when the output cannot hold partials) and explain, for one Op of
// cuda/reduce_op.cuh. Templates only; an instance (cuda/reduce_table.h) instantiates them with
// its Op in exactly one generated unit.
//
// Act says what the caller wants of the instance: launch it (run<O>), or describe its launch
// (describe<O>), so that explain prints the plan of exactly the kernel a call launches.
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <type_traits>

#include "cuda/cuda_backend.h"
#include "cuda/device_internal.h"
#include "cuda/reduce_kernel.cuh"
#include "cuda/reduce_op.cuh"
#include "iterator/iterator.h"
#include "contract/dispatch.h"
#include "runtime/dtype.h"
#include "runtime/error.h"
#include "iterator/iter_internal.h"

namespace tt_reduce {

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

// One instance: runs or explains the iterator with its Op. Each row of cuda/reduce_table.h is
// one such function, named as below (in namespace tt_reduce).
typedef tensor_status (*instance_fn)(tensor_iter_t *iter, Act &a);
#define TT_REDUCE_TYPED_NAME(T, F, IN, OUT) inst_##T##_##IN##_##OUT
#define TT_REDUCE_DYN_NAME(T, F, N) inst_##T##_##F##_dyn##N


// How many CTAs of the general kernel for `ovs` outputs per load fit on an SM at `threads`
// threads (the planner sizes global-reduce grids by it). Per Op, ovs and block size, asked of
// the occupancy calculator once (the first device's answer: every kernel is built for one
// architecture).
template <class O, int OVS> int resident_of(int threads, size_t smem) {
    static std::atomic<int> cache[TENSOR_REDUCE_RESIDENT_SLOTS]; // 0: not asked yet, -1: unknown
    const int i = tensor_reduce_resident_slot(threads);
    int n = i >= 0 ? cache[i].load(std::memory_order_relaxed) : 0;
    if (n == 0) {
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, reduce_kernel<O, OVS>, threads, smem) != cudaSuccess) {
            (void)cudaGetLastError();
            n = -1;
        }
        if (i >= 0) cache[i].store(n, std::memory_order_relaxed);
    }
    return n > 0 ? n : 0;
}
template <class O> int resident_blocks(const void *, int ovs, int threads, size_t smem) {
    return ovs == 1 ? resident_of<O, 1>(threads, smem)
           : ovs == 2 ? resident_of<O, 2>(threads, smem)
                      : resident_of<O, 4>(threads, smem);
}
template <class O> tensor_cuda_reduce_kind kind_of() {
    return {(int)sizeof(typename O::scalar_t), (int)sizeof(typename O::acc_t), resident_blocks<O>, nullptr,
            lean_wide_fits<O>::value ? 2 : lean_rows_fits<O>::value ? 1 : 0, TENSOR_REDUCE_ELEM_ROWS};
}

// Plans (host C) and launches one 32-bit iterator on the device's current stream; gives the
// staging block back right after the launch: the cache hands it out again only on the same
// stream, i.e. to work queued after this kernel.
template <class O>
tensor_status launch_piece(const tensor_iter_t *iter, char *acc_buf, int64_t reduce_count, const Act &a) {
    const tensor_cuda_reduce_kind kind = kind_of<O>();
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

// Runs an iterator through the shared split driver (tensor_cuda_reduce_split_run): partials
// live in the output when it holds the accumulator's type (never for DynOp), else in an
// accumulation buffer.
template <class O> tensor_status launch_piece_fn(const tensor_iter_t *piece, char *acc_buf, int64_t count, void *ctx) {
    return launch_piece<O>(piece, acc_buf, count, *static_cast<const Act *>(ctx));
}

template <class O>
tensor_status run(tensor_iter_t *iter, const Act &a) {
    int saved;
    if (tensor_cuda_device_enter(iter->device.index, &saved, a.func) != TENSOR_OK) return tensor_last_status();
    const bool in_output = std::is_same<typename O::acc_t, typename O::out_t>::value;
    const tensor_status st = tensor_cuda_reduce_split_run(iter, in_output ? 0 : sizeof(typename O::acc_t),
                                                          launch_piece_fn<O>, const_cast<Act *>(&a), a.func);
    tensor_cuda_device_restore(saved);
    return st;
}

// Explain: the plan of the Op's launch (or of each launch of a split iterator, the first few
// shown), through tensor_cuda_reduce_explain: the planning call the launch makes.
template <class O>
tensor_status describe(const tensor_iter_t *iter, Act &a) {
    const tensor_cuda_reduce_kind kind = kind_of<O>();
    tensor_cuda_props props;
    tensor_status st = tensor_cuda_reduce_device_props(iter->device.index, &props, a.func);
    if (st != TENSOR_OK) return st;
    char what[160];
    snprintf(what, sizeof what, "%s, %s -> %s%s%s%s", a.op, tensor_dtype_name(iter->operands[iter->num_outputs].dtype),
             tensor_dtype_name(iter->operands[0].dtype), iter->num_outputs == 2 ? " + " : "",
             iter->num_outputs == 2 ? tensor_dtype_name(iter->operands[1].dtype) : "",
             is_dynamic_op<O>::value ? " (dynamic cast)" : "");
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

}  // namespace tt_reduce
