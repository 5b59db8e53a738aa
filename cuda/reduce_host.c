/* Host half of the CUDA reduction engine (see reduce_host.h): plan = config + offset
 * calculators + pointers + scratch. Plain C over the CUDA runtime's C API. */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/cuda_backend.h"
#include "cuda/device_internal.h"
#include "cuda/reduce_host.h"
#include "runtime/alloc.h"
#include "runtime/dtype.h"
#include "runtime/error.h"
#include "iterator/iter_internal.h"

/* ---- semaphores: one buffer per (device, stream), zeroed once ----
 * The last CTA of each output column sets its counter back to 0 (reduce_kernel.cuh), so a
 * buffer stays zero between launches and a reduction needs no memset. Launches on one stream
 * run in order, so they never share a counter at the same time; launches on two streams may
 * overlap, so each stream has its own buffer (current streams are per thread). A buffer is
 * sized for the largest grid a global reduce can have on its device (grid.x <= SMs x threads
 * per SM), about 1 MiB on an H100, and lives until tensor_cuda_reduce_release_scratch
 * (tensor_cuda_empty_cache calls it).
 * A first use inside a stream capture works: the buffer is allocated with the thread's capture
 * mode relaxed and zeroed on a private stream, so nothing is recorded into the graph. */
#define SEMA_MAX_DEVICES 64
typedef struct sema_entry {
    int device;
    cudaStream_t stream;
    uint32_t *buf;
    size_t bytes;
} sema_entry;
static pthread_mutex_t sema_lock = PTHREAD_MUTEX_INITIALIZER;
static sema_entry *sema_table;
static size_t sema_count, sema_cap;

/* A zeroed device buffer of `bytes`, made without touching any user stream. */
static tensor_status sema_alloc(size_t bytes, uint32_t **out, const char *func) {
    *out = NULL;
    if (tt_fault_device_alloc_injected())
        return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: CUDA out of memory allocating %zu bytes of semaphores "
                            "(injected failure)", func, bytes);
    void *p = NULL;
    const enum cudaStreamCaptureMode mode = tensor_cuda_capture_relax();
    tensor_status st = tensor_cuda_error(cudaMalloc(&p, bytes), "cudaMalloc");
    cudaStream_t side = NULL;
    if (st == TENSOR_OK)
        st = tensor_cuda_error(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    if (st == TENSOR_OK) st = tensor_cuda_error(cudaMemsetAsync(p, 0, bytes, side), "cudaMemsetAsync");
    if (st == TENSOR_OK) st = tensor_cuda_error(cudaStreamSynchronize(side), "cudaStreamSynchronize");
    if (side != NULL) (void)cudaStreamDestroy(side);
    if (st != TENSOR_OK && p != NULL) (void)cudaFree(p);
    tensor_cuda_capture_restore(mode);
    if (st != TENSOR_OK) {
        char why[256];
        snprintf(why, sizeof why, "%s", tensor_last_error());
        return tensor_error(st, "%s: making the reduction engine's grid counters: %s", func, why);
    }
    *out = (uint32_t *)p;
    return TENSOR_OK;
}

static tensor_status get_semaphores(int device, cudaStream_t stream, const tensor_cuda_props *props, size_t need,
                                    uint32_t **out, const char *func) {
    *out = NULL;
    tensor_status st = TENSOR_OK;
    pthread_mutex_lock(&sema_lock);
    sema_entry *e = NULL;
    for (size_t i = 0; i < sema_count; i++)
        if (sema_table[i].device == device && sema_table[i].stream == stream) e = &sema_table[i];
    if (e != NULL && e->bytes >= need) {
        *out = e->buf;
        pthread_mutex_unlock(&sema_lock);
        return TENSOR_OK;
    }
    size_t bytes = (size_t)props->num_sms * (size_t)props->max_threads_per_sm * sizeof(uint32_t);
    if (bytes < need) bytes = need;
    if (e != NULL) {
        /* Larger than any grid the planner makes, so not expected; the old buffer may still be
         * in use by this stream's queued work. */
        st = tensor_cuda_error(cudaStreamSynchronize(stream), func);
        if (st == TENSOR_OK) {
            (void)tensor_cuda_free_uncaptured(e->buf);
            e->buf = NULL;
            e->bytes = 0;
        }
    } else if (sema_count == sema_cap) {
        size_t cap = sema_cap ? 2 * sema_cap : 8;
        sema_entry *t = tt_realloc(sema_table, cap * sizeof *t);
        if (t == NULL) {
            st = tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory for the semaphore table", func);
        } else {
            sema_table = t;
            sema_cap = cap;
        }
    }
    uint32_t *buf = NULL;
    if (st == TENSOR_OK) st = sema_alloc(bytes, &buf, func);
    if (st == TENSOR_OK) {
        if (e == NULL) {
            e = &sema_table[sema_count++];
            e->device = device;
            e->stream = stream;
        }
        e->buf = buf;
        e->bytes = bytes;
        *out = buf;
    }
    pthread_mutex_unlock(&sema_lock);
    return st;
}

void tensor_cuda_reduce_release_scratch(void) {
    pthread_mutex_lock(&sema_lock);
    for (size_t i = 0; i < sema_count; i++) {
        int saved;
        if (tensor_cuda_device_enter(sema_table[i].device, &saved, "tensor_cuda_reduce_release_scratch") == TENSOR_OK) {
            (void)cudaDeviceSynchronize();
            (void)cudaFree(sema_table[i].buf);
            tensor_cuda_device_restore(saved);
        }
    }
    free(sema_table);
    sema_table = NULL;
    sema_count = sema_cap = 0;
    pthread_mutex_unlock(&sema_lock);
}

int64_t tensor_cuda_reduce_index_limit = TENSOR_ITER_INDEX32_LIMIT;

/* ---- the plan ---- */

/* The device properties a plan needs, asked once per device (they cannot change while the
 * process runs): three cudaDeviceGetAttribute calls per reduction were host time on every
 * call. Filled under sema_lock; readers see an entry only after its release store. */
static tensor_cuda_props props_cache[SEMA_MAX_DEVICES];
static _Atomic int props_ready[SEMA_MAX_DEVICES];

tensor_status tensor_cuda_reduce_device_props(int device, tensor_cuda_props *props, const char *func) {
    if (device < 0 || device >= SEMA_MAX_DEVICES)
        return tensor_error(TENSOR_ERR_DEVICE, "%s: device %d is beyond the reduction engine's %d", func, device,
                            SEMA_MAX_DEVICES);
    if (atomic_load_explicit(&props_ready[device], memory_order_acquire)) {
        *props = props_cache[device];
        return TENSOR_OK;
    }
    tensor_cuda_props p;
    pthread_mutex_lock(&sema_lock);
    cudaError_t err = cudaSuccess;
    if (atomic_load_explicit(&props_ready[device], memory_order_relaxed)) {
        p = props_cache[device];
    } else {
        err = cudaDeviceGetAttribute(&p.num_sms, cudaDevAttrMultiProcessorCount, device);
        if (err == cudaSuccess)
            err = cudaDeviceGetAttribute(&p.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
        if (err == cudaSuccess) err = cudaDeviceGetAttribute(&p.warp_size, cudaDevAttrWarpSize, device);
        if (err == cudaSuccess) {
            props_cache[device] = p;
            atomic_store_explicit(&props_ready[device], 1, memory_order_release);
        }
    }
    pthread_mutex_unlock(&sema_lock);
    if (err != cudaSuccess) return tensor_cuda_error(err, func);
    *props = p;
    return TENSOR_OK;
}

tensor_status tensor_cuda_reduce_plan_make(const tensor_iter_t *iter, tensor_cuda_reduce_kind kind,
                                           tensor_cuda_reduce_plan *plan, void **staging_handle, const char *func) {
    memset(plan, 0, sizeof *plan);
    *staging_handle = NULL;
    int device = iter->device.index;
    tensor_cuda_props props;
    tensor_status st = tensor_cuda_reduce_device_props(device, &props, func);
    if (st != TENSOR_OK) return st;
    st = tensor_cuda_reduce_plan_config(iter, &props, kind, &plan->cfg);
    if (st != TENSOR_OK) return st;

    const int out_arg = 0, in_arg = iter->num_outputs, nin = tensor_iter_ninputs(iter);
    const int nred = tensor_iter_num_reduce_dims(iter);
    const int nkept = iter->ndim - nred;
    const int two = iter->num_outputs == 2;
    if (nin < 1 || nin > TENSOR_CUDA_REDUCE_MAX_INPUTS || (two && nin != 1))
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: a reduction kernel takes 1 to %d inputs (one with two "
                            "outputs), not %d", func, TENSOR_CUDA_REDUCE_MAX_INPUTS, nin);
    for (int q = 1; q < nin; q++)
        if (iter->operands[in_arg + q].dtype != iter->operands[in_arg].dtype)
            return tensor_error(TENSOR_ERR_DTYPE, "%s: input %d is %s, input 0 %s: a reduction kernel's inputs share one "
                                "dtype", func, q, tensor_dtype_name(iter->operands[in_arg + q].dtype),
                                tensor_dtype_name(iter->operands[in_arg].dtype));
    /* Operands of the output calculator: (output, inputs[, output 2]), so that o[0] and o[1]
     * mean the same for every op. */
    const int64_t *oc_strides[TENSOR_OFFSET_CALC_MAX_ARGS];
    const int64_t *ic_strides[TENSOR_CUDA_REDUCE_MAX_INPUTS];
    int noc = 0;
    oc_strides[noc++] = iter->operands[out_arg].strides + nred;
    for (int q = 0; q < nin; q++) {
        oc_strides[noc++] = iter->operands[in_arg + q].strides + nred;
        ic_strides[q] = iter->operands[in_arg + q].strides;
    }
    if (two) oc_strides[noc++] = iter->operands[1].strides + nred;
    st = tensor_offset_calc_make(nkept, iter->shape + nred, noc, oc_strides, &plan->out_calc);
    if (st != TENSOR_OK) return st;
    st = tensor_offset_calc_make(nred, iter->shape, nin, ic_strides, &plan->in_calc);
    if (st != TENSOR_OK) return st;
    plan->in_mode = nred <= 1 ? TENSOR_CUDA_IN_STRIDED : TENSOR_CUDA_IN_CALC;
    plan->ninputs = nin;
    for (int q = 0; q < nin; q++) {
        plan->in_stride0[q] = nred == 1 ? (uint32_t)iter->operands[in_arg + q].strides[0] : 0u;
        plan->src[q] = iter->operands[in_arg + q].data;
    }
    tensor_reduce_config_cache_hints(iter, &plan->evict_first, &plan->evict_last);
    const int64_t row_vecs = tensor_reduce_config_row_vectors(&plan->cfg, iter);
    if (row_vecs > 0) { /* a piece fits 32-bit byte offsets, so do its rows' strides */
        plan->row_vecs = (uint32_t)row_vecs;
        for (int q = 0; q < nin && nkept == 1; q++) plan->row_stride[q] = (uint32_t)iter->operands[in_arg + q].strides[nred];
        plan->out_row_stride = nkept == 1 ? (uint32_t)iter->operands[out_arg].strides[nred] : 0u;
    }
    plan->num_inputs = (uint32_t)plan->cfg.num_inputs;
    plan->num_outputs = (uint32_t)plan->cfg.num_outputs;
    plan->dst = iter->operands[out_arg].data;
    plan->dst2 = two ? iter->operands[1].data : NULL;
    plan->in_dtype = (int)iter->operands[in_arg].dtype;
    plan->out_dtype = (int)iter->operands[out_arg].dtype;
    plan->out_size = (uint32_t)tensor_dtype_size(iter->operands[out_arg].dtype);
    /* A piece of a split arg-reduction numbers its elements from where it starts. */
    plan->index_base = tensor_iter_reduce_index_base(iter);
    plan->accumulate = iter->accumulate;
    plan->final_output = iter->final_output;

    if (plan->cfg.staging_bytes > 0) {
        st = get_semaphores(device, tensor_cuda_stream_of(device), &props, (size_t)plan->cfg.semaphore_bytes,
                             &plan->semaphores, func);
        if (st != TENSOR_OK) return st;
        st = tensor_cuda_alloc(device, (size_t)plan->cfg.staging_bytes, &plan->staging, staging_handle, func);
        if (st != TENSOR_OK) return st;
    }
    return TENSOR_OK;
}

tensor_status tensor_cuda_reduce_split_run(tensor_iter_t *iter, size_t acc_size, tensor_cuda_reduce_launch_fn launch,
                                           void *ctx, const char *func) {
    const int64_t count = tensor_iter_numel(iter) / tensor_iter_num_output_elements(iter);
    if (tensor_iter_fits_index_limit(iter, tensor_cuda_reduce_index_limit)) return launch(iter, NULL, count, ctx);
    const int64_t out_size = (int64_t)tensor_dtype_size(iter->operands[0].dtype);
    const char *out0 = iter->operands[0].data;
    void *acc_handle = NULL, *acc_base = NULL;
    tensor_status st = TENSOR_OK;
    if (acc_size > 0) {
        int64_t extent = 0;
        for (int d = 0; d < iter->ndim; d++) extent += (iter->shape[d] - 1) * iter->operands[0].strides[d];
        st = tensor_cuda_alloc(iter->device.index, (size_t)(extent / out_size + 1) * acc_size, &acc_base, &acc_handle,
                               func);
    }
    tensor_iter_splitter *sp = st == TENSOR_OK ? tensor_iter_splitter_new(iter, tensor_cuda_reduce_index_limit) : NULL;
    if (st == TENSOR_OK && sp == NULL) st = tensor_last_status();
    while (st == TENSOR_OK) {
        const tensor_iter_t *piece = NULL;
        st = tensor_iter_splitter_next(sp, &piece);
        if (st != TENSOR_OK || piece == NULL) break;
        char *acc = NULL;
        if (acc_size > 0)
            acc = (char *)acc_base + (size_t)((piece->operands[0].data - out0) / (ptrdiff_t)out_size) * acc_size;
        st = launch(piece, acc, count, ctx);
    }
    tensor_iter_splitter_free(sp);
    tensor_cuda_free(acc_handle); /* stream-ordered: reused only by work queued after the pieces */
    return st;
}
