/* Internal: the CUDA scans (TENSOR_OP_SCAN). The entry (cuda/scan_entry.c) reads the
 * iterator into a job; each family's unit (cuda/scan_arith.cu, scan_logcumsumexp.cu,
 * scan_extreme.cu) picks its kernels by dtype and launches them (cuda/scan_run.cuh). */
#ifndef TENSOR_CUDA_SCAN_H
#define TENSOR_CUDA_SCAN_H

#include <stdint.h>

#include "contract/dispatch.h"
#include "iterator/offset_calc.h"
#include "runtime/dtype.h"
#include "runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tt_scan_job {
    int kind; /* a tensor_scan_kind */
    tensor_dtype in_dtype, out_dtype;
    const char *in;
    char *out, *idx;           /* idx: cummax / cummin only */
    tensor_offset_calc64 calc; /* line index -> byte offsets: values, [indices,] input */
    int in_arg;
    int64_t nlines, len;
    int64_t s_in, s_out, s_idx; /* bytes between the elements of a line */
    int dense;                  /* every operand's line elements adjacent */
    int device;
    void *stream;               /* cudaStream_t */
    const char *func;
} tt_scan_job;

/* cumsum / cumprod: (in, out) = (d, d) for every dtype, an integer or bool into int64, or a
 * 16-bit float into float32. */
tensor_status tt_cuda_scan_arith(const tt_scan_job *job);
/* logcumsumexp: floating dtypes, out = in. */
tensor_status tt_cuda_scan_logcumsumexp(const tt_scan_job *job);
/* cummax / cummin: every dtype, out = in, plus int64 indices. */
tensor_status tt_cuda_scan_extreme(const tt_scan_job *job);

/* The dispatch table's entry for TENSOR_OP_SCAN on CUDA. */
tensor_status tensor_cuda_scan_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);

#ifdef __cplusplus
}
#endif
#endif
