/* Host-only half of the CUDA reduction planning (see reduce_host.h): the kernel traits of a
 * kind, THE planning call that both a launch (reduce_host.c) and explain use, and explain's
 * text. No CUDA runtime here: it is built without a GPU and tested in tests/cuda_host. */
#include <stdio.h>

#include "cuda/reduce_host.h"
#include "runtime/error.h"

tensor_reduce_kernel_traits tensor_cuda_reduce_traits(tensor_cuda_reduce_kind kind) {
    tensor_reduce_kernel_traits t;
    /* 16-byte input vectors (4 floats, 8 halves, 16 int8): one LDG.128 per lane. vt0 must be
     * >= input_vec_size for reduce_config to vectorise; the kernel keeps 4 accumulators in the
     * vector path whatever the width (lane i of a vector goes to accumulator i % 4). */
    t.input_size = kind.input_size;
    t.acc_size = kind.acc_size;
    t.input_vec_size = kind.input_size > 0 ? 16 / kind.input_size : 0;
    if (t.input_vec_size > 16) t.input_vec_size = 16;
    t.vt0 = t.input_vec_size > 4 ? t.input_vec_size : 4;
    /* 4 outputs per load, as PyTorch, for every dtype. 16-bit inputs had 8 (one 16-byte load):
     * measured slower than 4 with the wide outer CTAs (twice the accumulators per thread, 72
     * registers, a third of the warps resident; docs/cuda_reduce.md item 3). */
    t.max_output_vec = TENSOR_REDUCE_MAX_OUTPUT_VEC;
    /* At most 32 bytes of output accumulators per load: 16-byte ones (var's Welford) take 2
     * outputs. At 4 their kernel needed more registers per output than at 2, and var over
     * columns ran slower (docs/perf_log.md). */
    while (t.max_output_vec > 1 && t.max_output_vec * kind.acc_size > 32) t.max_output_vec /= 2;
    t.max_threads = 512;
    t.tuned = 1; /* our measured deviations from setReduceConfig (reduce_config.h) */
    t.resident_blocks = kind.resident_blocks;
    t.resident_ctx = kind.resident_ctx;
    t.lean_rows = kind.lean_rows;
    t.elem_rows = kind.elem_rows;
    return t;
}

tensor_status tensor_cuda_reduce_plan_config(const tensor_iter_t *iter, const tensor_cuda_props *props,
                                             tensor_cuda_reduce_kind kind, tensor_reduce_config *cfg) {
    tensor_reduce_kernel_traits tr = tensor_cuda_reduce_traits(kind);
    return tensor_reduce_config_make(iter, props, &tr, cfg);
}

int64_t tensor_cuda_reduce_explain(const tensor_iter_t *iter, const tensor_cuda_props *props,
                                   tensor_cuda_reduce_kind kind, const char *what, char *buf, size_t size) {
    static const char func[] = "tensor_cuda_reduce_explain";
    if (buf == NULL && size != 0) {
        tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'buf' is NULL with size %zu", func, size);
        return -1;
    }
    tensor_reduce_config cfg;
    if (tensor_cuda_reduce_plan_config(iter, props, kind, &cfg) != TENSOR_OK) return -1;
    char launch[1024];
    tensor_reduce_config_format(&cfg, launch, sizeof launch);
    char rows[64] = "";
    const int64_t row_vecs = tensor_reduce_config_row_vectors(&cfg, iter);
    if (row_vecs > 0) snprintf(rows, sizeof rows, ", aligned rows of %lld vectors", (long long)row_vecs);
    int n = snprintf(buf, size, "  cuda kernel: %s, input element %d B, accumulator %d B\n  cuda launch: %s%s\n",
                     what != NULL ? what : "reduction", kind.input_size, kind.acc_size, launch, rows);
    return n < 0 ? -1 : (int64_t)n;
}
