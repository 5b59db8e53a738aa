// Launches one scan kernel of cuda/scan_kernel.cuh for a job (cuda/scan.h): plans it
// (cuda/scan_config.h), takes the look-back state from the caching allocator, zeroes its
// counter and flags on the job's stream, launches, and gives the state back (stream-ordered:
// the next user of the block runs after this kernel).
#pragma once

#include <cuda_runtime.h>

#include "cuda/cuda_backend.h"
#include "cuda/device_internal.h"
#include "cuda/scan.h"
#include "cuda/scan_kernel.cuh"
#include "runtime/error.h"

namespace tt_scan {

template <class Op, typename InS, typename OutS> tensor_status run(const tt_scan_job *job, const Op &op) {
    using A = typename Op::acc_t;
    tt_scan_config cfg;
    if (tt_scan_config_make(job->nlines, job->len, job->dense, sizeof(A), item_size<Op>(), LookBackOf<Op>::kPacked, &cfg,
                            job->func) != TENSOR_OK)
        return tensor_last_status();
    ScanArgs a;
    memset(&a, 0, sizeof a);
    a.in = job->in;
    a.out = job->out;
    a.idx = job->idx;
    a.calc = job->calc;
    a.in_arg = job->in_arg;
    a.lookback = cfg.lookback;
    a.lane_per_line = cfg.lane_per_line;
    a.tx = cfg.tx;
    a.ty = cfg.ty;
    a.ch = cfg.ch;
    a.nlines = cfg.nlines;
    a.len = cfg.len;
    a.ntiles = cfg.ntiles;
    a.tiles_per_line = cfg.tiles_per_line;
    a.ngroups = cfg.ngroups;
    a.s_in = job->s_in;
    a.s_out = job->s_out;
    a.s_idx = job->s_idx;
    cudaStream_t stream = (cudaStream_t)job->stream;
    LookBackOf<Op> st = {nullptr, nullptr, nullptr, nullptr, nullptr};
    void *state = nullptr, *handle = nullptr;
    if (cfg.lookback) {
        if (tensor_cuda_alloc(job->device, cfg.state_bytes, &state, &handle, job->func) != TENSOR_OK)
            return tensor_last_status();
        char *base = static_cast<char *>(state);
        st.counter = reinterpret_cast<unsigned long long *>(base);
        st.flags = reinterpret_cast<unsigned *>(base + cfg.flags_offset);
        st.agg = reinterpret_cast<A *>(base + cfg.agg_offset);
        st.incl = reinterpret_cast<A *>(base + cfg.incl_offset);
        st.packed = reinterpret_cast<unsigned long long *>(base + cfg.flags_offset);
        cudaError_t e = cudaMemsetAsync(state, 0, cfg.zero_bytes, stream);
        if (e != cudaSuccess) {
            tensor_cuda_free(handle);
            return tensor_cuda_error(e, job->func);
        }
    }
    if (cfg.variant == TT_SCAN_CONTIG)
        scan_contig_kernel<Op, InS, OutS><<<cfg.grid, TT_SCAN_BLOCK, 0, stream>>>(a, op, st);
    else
        scan_strided_kernel<Op, InS, OutS><<<cfg.grid, TT_SCAN_BLOCK, 0, stream>>>(a, op, st);
    const cudaError_t e = cudaGetLastError();
    tensor_cuda_free(handle);
    return tensor_cuda_error(e, job->func);
}

inline tensor_status unsupported(const tt_scan_job *job, const char *what) {
    return tensor_error(TENSOR_ERR_DTYPE, "%s: no CUDA %s kernel from %s to %s", job->func, what,
                        tensor_dtype_name(job->in_dtype), tensor_dtype_name(job->out_dtype));
}

} // namespace tt_scan

// The storage type of each dtype, for the dispatch switches of the units.
#define TT_SCAN_FOR_EACH_DTYPE(X)                                                                                      \
    X(TENSOR_BOOL, tt_cvt::Bool)                                                                                       \
    X(TENSOR_UINT8, uint8_t)                                                                                           \
    X(TENSOR_INT8, int8_t)                                                                                             \
    X(TENSOR_INT16, int16_t)                                                                                           \
    X(TENSOR_INT32, int32_t)                                                                                           \
    X(TENSOR_INT64, int64_t)                                                                                           \
    X(TENSOR_FLOAT16, tt_cvt::Half)                                                                                    \
    X(TENSOR_BFLOAT16, tt_cvt::BFloat16)                                                                               \
    X(TENSOR_FLOAT32, float)                                                                                           \
    X(TENSOR_FLOAT64, double)                                                                                          \
    X(TENSOR_FLOAT8_E4M3FN, tt_cvt::E4M3)                                                                              \
    X(TENSOR_FLOAT8_E5M2, tt_cvt::E5M2)
