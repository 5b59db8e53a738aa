/* Internal: the host half of the CUDA reduction engine. Host C (reduce_host.c) turns a built
 * reduction iterator into a tensor_cuda_reduce_plan: the launch configuration
 * (cuda/reduce_config.h), the two offset calculators, the data pointers, the staging buffer
 * and the semaphores. The kernels (cuda/reduce_kernel.cuh) receive the plan BY VALUE as their
 * only parameter (about 1.2 KB, well under the 4 KB parameter limit), like PyTorch's ReduceOp.
 * Compiles as C11 and as CUDA C++. */
#ifndef TENSOR_CUDA_REDUCE_HOST_H
#define TENSOR_CUDA_REDUCE_HOST_H

#include <stdint.h>

#include "cuda/reduce_config.h"
#include "iterator/offset_calc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How thread_reduce turns the k-th reduced index into a byte offset from the input base. */
enum {
    TENSOR_CUDA_IN_STRIDED = 0, /* at most one reduced dim: k * in_stride0[q] (no division) */
    TENSOR_CUDA_IN_CALC = 1     /* several reduced dims: in_calc.get(k) (one divmod per dim) */
};

/* Inputs of one reduction kernel, at most: the output calculator has one operand per input
 * besides the output, within the offset calculator's TENSOR_OFFSET_CALC_MAX_ARGS. Inputs share
 * one dtype (the caller converts the others first). */
#define TENSOR_CUDA_REDUCE_MAX_INPUTS 3

typedef struct tensor_cuda_reduce_plan {
    /* First, in 52 bytes: all that a CTA of aligned dense rows reads before its first load, so
     * that its start touches one or two lines of the parameter bank, not one per field spread
     * over the plan: on rows whose CTA lives a few microseconds, reads before the first load
     * showed in the call's time (docs/perf_log.md). */
    const char *src[TENSOR_CUDA_REDUCE_MAX_INPUTS];
    /* Kernels of several inputs: bit q loads input q with an evict-first, or an evict-last,
     * L2 policy, and evict-first in L1 either way (tensor_reduce_config_cache_hints). */
    uint32_t evict_first;
    uint32_t evict_last;
    /* Aligned dense rows (tensor_reduce_config_row_vectors > 0): row r of input q is row_vecs
     * 16-byte vectors from src[q] + r * row_stride[q], its output r * out_row_stride bytes into
     * dst. 0 on every other plan. */
    uint32_t row_vecs;
    uint32_t row_stride[TENSOR_CUDA_REDUCE_MAX_INPUTS];
    uint32_t out_row_stride;
    tensor_reduce_config cfg;
    /* Over the kept dims, operands (output, input 0, ..., input n-1[, output 2]): the output's
     * byte offset, each input's base offset, and for two-output ops (one input: max_dim's
     * indices, var_mean's mean) the second output's. */
    tensor_offset_calc out_calc;
    /* Over the reduced dims, one operand per input: offset of the k-th reduced element. */
    tensor_offset_calc in_calc;
    int in_mode;
    int ninputs;              /* 1 .. TENSOR_CUDA_REDUCE_MAX_INPUTS (the kernel's Op fixes it too) */
    /* bytes between consecutive reduced elements of each input (TENSOR_CUDA_IN_STRIDED; 0 for an
     * input broadcast along the reduced dim) */
    uint32_t in_stride0[TENSOR_CUDA_REDUCE_MAX_INPUTS];
    uint32_t num_inputs;      /* cfg.num_inputs, as the kernel's 32-bit type */
    uint32_t num_outputs;
    char *dst;
    char *dst2;               /* the second output (two-output ops), else NULL */
    /* The dtypes of the input and the (first) output, and the output's element size: the
     * dynamic-cast kernels (cuda/reduce_op.cuh) convert by these at run time. */
    int in_dtype;
    int out_dtype;
    uint32_t out_size;
    void *staging;            /* cfg.staging_bytes of partials, or NULL */
    uint32_t *semaphores;     /* grid[0] counters, all 0 between launches, or NULL */
    /* 32-bit pieces of a larger iterator (iterator.h):
     * accumulate = combine with the partial an earlier piece left; final_output = project and
     * write the output (else leave a partial). Partials live in the output when its type is the
     * accumulator's, else in acc_buf: the accumulator of the output at byte offset o (from
     * this piece's dst) is at acc_buf + (o / output size) * acc size. */
    char *acc_buf;
    int accumulate;
    int final_output;
    /* Elements reduced into each output over the WHOLE iterator (not this piece): mean's
     * project divides by it. */
    int64_t reduce_count;
    /* Arg-reductions: index of this piece's first reduced element in the whole iterator
     * (tensor_iter_reduce_index_base; 0 when unsplit), added to the kernel's local index. */
    int64_t index_base;
    /* A per-call scalar of the op (norm's p); unused by the others. */
    double op_param;
    /* var/std (Welford's project): the denominator is max(0, n - correction); take_sqrt gives std. */
    double correction;
    int take_sqrt;
} tensor_cuda_reduce_plan;

/* What the plan's kernel will be: element sizes and unrolling (see reduce_config.h). */
typedef struct tensor_cuda_reduce_kind {
    int input_size; /* bytes of one input element */
    int acc_size;   /* bytes of one accumulator */
    /* Optional: the compiled kernel's residency (tensor_reduce_kernel_traits.resident_blocks). */
    int (*resident_blocks)(const void *ctx, int ovs, int threads, size_t smem);
    const void *resident_ctx;
    int lean_rows; /* the instance has the lean rows kernel (tensor_reduce_kernel_traits.lean_rows) */
    int elem_rows; /* its general kernel has the element-read input (tensor_reduce_kernel_traits.elem_rows) */
} tensor_cuda_reduce_kind;

/* Fills *plan for iter (a built reduction iterator on a CUDA device, numel > 0, one or two
 * outputs, 1 .. TENSOR_CUDA_REDUCE_MAX_INPUTS inputs of one dtype, 32-bit indexable), index_base included (tensor_iter_reduce_index_base); the op's
 * scalars (op_param, correction, take_sqrt) are the caller's to set. Takes the staging buffer from the caching allocator (on the current
 * stream); *staging_handle receives its block (free it with tensor_cuda_free after the launch:
 * the cache reuses it on the same stream only, so after the kernel). Errors name func. */
tensor_status tensor_cuda_reduce_plan_make(const tensor_iter_t *iter, tensor_cuda_reduce_kind kind,
                                           tensor_cuda_reduce_plan *plan, void **staging_handle, const char *func);

#ifndef __CUDACC_RTC__ /* (the run-time compiler sees only the plan's types) */
/* Iterators whose operands exceed this many elements or bytes are split into pieces that
 * fit (TENSOR_ITER_INDEX32_LIMIT). Internal: tests lower it to run the split path on small
 * tensors; set it only while no reduction runs. */
extern int64_t tensor_cuda_reduce_index_limit;
#endif

/* One launch of a reduction over a 32-bit piece: acc_buf is the piece's slots of the
 * accumulation buffer (NULL when the partials stay in the output), count the reduced elements
 * of each output (of the whole iterator). */
typedef tensor_status (*tensor_cuda_reduce_launch_fn)(const tensor_iter_t *piece, char *acc_buf, int64_t count,
                                                     void *ctx);
/* Runs a reduction iterator: one launch when it fits 32-bit offsets (tensor_cuda_reduce_index_limit),
 * else one launch per piece of the iterator's splitter, in order on the current stream (which
 * the accumulate / final_output protocol relies on). acc_size > 0: partials go to an
 * accumulation buffer of acc_size bytes per output-element slot (spanning the first output's
 * byte extent, dense or not), taken from the caching allocator; 0: to the output, which holds
 * the accumulator's type. The built-in instances and the run-time compiled ones both run
 * through here. Errors name func. */
tensor_status tensor_cuda_reduce_split_run(tensor_iter_t *iter, size_t acc_size, tensor_cuda_reduce_launch_fn launch,
                                           void *ctx, const char *func);

/* The device properties the plan depends on (SMs, threads per SM, warp size). */
tensor_status tensor_cuda_reduce_device_props(int device, tensor_cuda_props *props, const char *func);

/* ---- host-only planning (cuda/reduce_explain.c: no CUDA runtime, built and tested without a
 * GPU in tests/cuda_host) ---- */

/* The traits (cuda/reduce_config.h) the kernels are instantiated with for a kind. */
tensor_reduce_kernel_traits tensor_cuda_reduce_traits(tensor_cuda_reduce_kind kind);

/* THE planning call of a launch: traits of `kind`, then tensor_reduce_config_make. The launch
 * (tensor_cuda_reduce_plan_make) and explain (below) both call it, so what explain prints is
 * what launches. */
tensor_status tensor_cuda_reduce_plan_config(const tensor_iter_t *iter, const tensor_cuda_props *props,
                                             tensor_cuda_reduce_kind kind, tensor_reduce_config *cfg);

/* Appends to buf (snprintf contract: returns the full length of the text, or -1 with the error
 * set) two lines describing the kernel that would launch for iter:
 *   "  cuda kernel: <what>, input element <n> B, accumulator <n> B\n"
 *   "  cuda launch: <tensor_reduce_config_format>\n" */
int64_t tensor_cuda_reduce_explain(const tensor_iter_t *iter, const tensor_cuda_props *props,
                                   tensor_cuda_reduce_kind kind, const char *what, char *buf, size_t size);

/* Releases the per-device semaphore buffers (tests call it before checking for leaks; a later
 * reduction allocates them again). Waits for the devices first. */
void tensor_cuda_reduce_release_scratch(void);

#ifdef __cplusplus
}
#endif
#endif
