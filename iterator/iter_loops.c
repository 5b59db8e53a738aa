/* CPU loop drivers: the serial 2-D block walker (PyTorch's DimCounter + serial_for_each,
 * ATen's loop shape) and the parallel for_each. */
#include <string.h>

#include "iterator/iter_impl.h"
#include "runtime/error.h"
#include "iterator/iter_internal.h"

#if TENSOR_HAVE_OPENMP
#include <omp.h>
#endif

void tt_iter_view_from_iter(iter_view *v, const tensor_iter_t *iter) {
    v->ndim = iter->ndim;
    v->nops = iter->num_operands;
    for (int d = 0; d < iter->ndim; d++) v->shape[d] = iter->shape[d];
    for (int a = 0; a < iter->num_operands; a++) {
        v->data[a] = iter->operands[a].data;
        memcpy(v->strides[a], iter->operands[a].strides, sizeof(int64_t) * TENSOR_MAX_DIMS);
    }
}

void tt_iter_view_narrow(iter_view *v, int dim, int64_t start, int64_t size) {
    v->shape[dim] = size;
    for (int a = 0; a < v->nops; a++)
        if (v->data[a] != NULL) v->data[a] += v->strides[a][dim] * start;
}

int64_t tt_iter_view_numel(const iter_view *v) {
    int64_t n = 1;
    for (int d = 0; d < v->ndim; d++) n *= v->shape[d];
    return n;
}

int tt_iter_find_split_dim(const int64_t *shape, int first, int ndim, int64_t n) {
    if (first >= ndim) return -1;
    /* The outermost dim that alone gives every thread work, else the largest (outer on ties). */
    int best = ndim - 1;
    for (int d = ndim - 1; d >= first; d--) {
        if (shape[d] >= n) return d;
        if (shape[d] > shape[best]) best = d;
    }
    return best;
}

void tt_iter_view_run(const iter_view *v, int64_t begin, int64_t end, iter_block_fn fn, void *ctx) {
    int64_t numel = tt_iter_view_numel(v);
    if (end > numel) end = numel;
    if (begin < 0) begin = 0;
    if (begin >= end) return;
    const int n = v->nops;
    int64_t strides[2 * TENSOR_ITER_VIEW_MAX_OPS];
    for (int a = 0; a < n; a++) {
        strides[a] = v->ndim >= 1 ? v->strides[a][0] : 0;
        strides[n + a] = v->ndim >= 2 ? v->strides[a][1] : 0;
    }
    char *ptrs[TENSOR_ITER_VIEW_MAX_OPS];
    int64_t counter[TENSOR_MAX_DIMS] = {0};
    if (v->ndim <= 1) {
        counter[0] = begin;
        for (int a = 0; a < n; a++) ptrs[a] = v->data[a] ? v->data[a] + begin * strides[a] : NULL;
        fn(ptrs, strides, end - begin, 1, counter, ctx);
        return;
    }
    /* Position of `begin`, dim 0 fastest. */
    int64_t rem = begin;
    for (int d = 0; d < v->ndim; d++) {
        counter[d] = rem % v->shape[d];
        rem /= v->shape[d];
    }
    int64_t offset = begin;
    while (offset < end) {
        for (int a = 0; a < n; a++) {
            if (v->data[a] == NULL) {
                ptrs[a] = NULL;
                continue;
            }
            char *p = v->data[a];
            for (int d = 0; d < v->ndim; d++) p += counter[d] * v->strides[a][d];
            ptrs[a] = p;
        }
        /* Only whole rows can be stacked into a 2-D block; a partial row goes alone. */
        int64_t step0 = v->shape[0] - counter[0];
        if (step0 > end - offset) step0 = end - offset;
        int64_t step1 = 1;
        if (counter[0] == 0 && step0 == v->shape[0]) {
            step1 = v->shape[1] - counter[1];
            int64_t rows = (end - offset) / v->shape[0];
            if (step1 > rows) step1 = rows;
        }
        fn(ptrs, strides, step0, step1, counter, ctx);
        offset += step0 * step1;
        /* Advance the counter with carries. */
        int64_t carry;
        counter[0] += step0;
        if (counter[0] >= v->shape[0]) {
            counter[0] = 0;
            carry = step1;
        } else {
            carry = 0;
        }
        for (int d = 1; d < v->ndim && carry; d++) {
            counter[d] += carry;
            if (counter[d] >= v->shape[d]) {
                counter[d] -= v->shape[d];
                carry = 1;
            } else {
                carry = 0;
            }
        }
    }
}

void tt_iter_view_run_parallel(const iter_view *v, int64_t grain, iter_block_fn fn, void *ctx) {
    int64_t numel = tt_iter_view_numel(v);
    if (numel == 0) return;
    int64_t tasks = (numel + grain - 1) / grain;
    int nthreads = tensor_get_num_threads();
    if (tasks > nthreads) tasks = nthreads;
    if (tasks <= 1 || tt_iter_in_parallel()) {
        tt_iter_view_run(v, 0, numel, fn, ctx);
        return;
    }
    /* Contiguous linear ranges, one per thread (PyTorch's parallel_for). */
#if TENSOR_HAVE_OPENMP
#pragma omp parallel for schedule(static) num_threads((int)tasks)
#endif
    for (int64_t t = 0; t < tasks; t++)
        tt_iter_view_run(v, iter_part_begin(numel, tasks, t), iter_part_begin(numel, tasks, t + 1), fn, ctx);
}

/* ---- the public drivers ---- */

typedef struct {
    tensor_iter_loop2d_fn loop;
    void *ctx;
} loop_adapter;

static void call_loop2d(char **data, const int64_t *strides, int64_t size0, int64_t size1, const int64_t *counter,
                        void *ctx) {
    (void)counter;
    loop_adapter *ad = ctx;
    ad->loop(data, strides, size0, size1, ad->ctx);
}

static tensor_status check_cpu(const tensor_iter_t *iter, const char *func) {
    for (int a = 0; a < iter->num_operands; a++)
        if (iter->operands[a].device.type != TENSOR_DEVICE_CPU) {
            char d[32];
            return tensor_error(TENSOR_ERR_DEVICE, "%s: operand %d is on %s; CPU loops need CPU tensors (%s)", func, a,
                                tensor_device_format(iter->operands[a].device, d, sizeof d), iter->name);
        }
    return TENSOR_OK;
}

tensor_status tensor_iter_serial_for_each(const tensor_iter_t *iter, tensor_iter_loop2d_fn loop, void *ctx,
                                          int64_t begin, int64_t end) {
    TENSOR_CHECK_NOT_NULL(iter, "tensor_iter_serial_for_each", "iter");
    TENSOR_CHECK_NOT_NULL(loop, "tensor_iter_serial_for_each", "loop");
    if (begin < 0 || end < begin)
        return tensor_error(TENSOR_ERR_INDEX, "tensor_iter_serial_for_each: bad range [%lld, %lld)", (long long)begin,
                            (long long)end);
    if (check_cpu(iter, "tensor_iter_serial_for_each") != TENSOR_OK) return TENSOR_ERR_DEVICE;
    iter_view v;
    tt_iter_view_from_iter(&v, iter);
    loop_adapter ad = {loop, ctx};
    tt_iter_view_run(&v, begin, end, call_loop2d, &ad);
    return TENSOR_OK;
}

tensor_status tensor_iter_for_each(const tensor_iter_t *iter, tensor_iter_loop2d_fn loop, void *ctx,
                                   int64_t grain_size) {
    const char *func = "tensor_iter_for_each";
    TENSOR_CHECK_NOT_NULL(iter, func, "iter");
    TENSOR_CHECK_NOT_NULL(loop, func, "loop");
    if (check_cpu(iter, func) != TENSOR_OK) return TENSOR_ERR_DEVICE;
    if (grain_size <= 0) grain_size = TENSOR_ITER_GRAIN_SIZE;
    int64_t numel = tensor_iter_numel(iter);
    if (numel == 0) return TENSOR_OK;
    iter_view v;
    tt_iter_view_from_iter(&v, iter);
    loop_adapter ad = {loop, ctx};
    int nthreads = tensor_get_num_threads();
    int64_t tasks = (numel + grain_size - 1) / grain_size;
    if (tasks > nthreads) tasks = nthreads;
    if (tasks <= 1 || tt_iter_in_parallel()) {
        tt_iter_view_run(&v, 0, numel, call_loop2d, &ad);
        return TENSOR_OK;
    }
    int r = tensor_iter_num_reduce_dims(iter);
    if (iter->is_reduction && r > 0) {
        /* Each thread its own outputs: cut along a kept dim only. */
        int dk = tt_iter_find_split_dim(iter->shape, r, iter->ndim, tasks);
        if (dk < 0 || iter->shape[dk] < 2) {
            tt_iter_view_run(&v, 0, numel, call_loop2d, &ad);
            return TENSOR_OK;
        }
        int64_t groups = iter->shape[dk] < tasks ? iter->shape[dk] : tasks;
#if TENSOR_HAVE_OPENMP
#pragma omp parallel for schedule(static) num_threads((int)groups)
#endif
        for (int64_t g = 0; g < groups; g++) {
            iter_view part = v;
            int64_t b0 = iter_part_begin(iter->shape[dk], groups, g), b1 = iter_part_begin(iter->shape[dk], groups, g + 1);
            tt_iter_view_narrow(&part, dk, b0, b1 - b0);
            tt_iter_view_run(&part, 0, tt_iter_view_numel(&part), call_loop2d, &ad);
        }
        return TENSOR_OK;
    }
    tt_iter_view_run_parallel(&v, grain_size, call_loop2d, &ad);
    return TENSOR_OK;
}
