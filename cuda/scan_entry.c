/* The dispatch table's entry for scans on CUDA: reads the iterator over the lines' starts
 * (contract/dispatch.h, TENSOR_OP_SCAN) into a job and hands it to the kernels of its family.
 * Plain C: no kernel lives here. */
#include <string.h>

#include "cuda/device_internal.h"
#include "cuda/scan.h"
#include "iterator/iterator.h"
#include "runtime/error.h"

tensor_status tensor_cuda_scan_kernel(struct tensor_iter *iter, const tensor_kernel_params *params) {
    static const char func[] = "scan (CUDA)";
    if (iter == NULL || params == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func,
                            iter == NULL ? "iter" : "params");
    const int nout = tensor_iter_noutputs(iter), nargs = tensor_iter_ntensors(iter);
    const int kind = params->scan_kind;
    const int extreme = kind == TENSOR_SCAN_CUMMAX || kind == TENSOR_SCAN_CUMMIN;
    if (kind < TENSOR_SCAN_CUMSUM || kind > TENSOR_SCAN_CUMMIN || nout != (extreme ? 2 : 1) || nargs != nout + 1)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: scan %d with %d outputs and %d operands", func, kind, nout,
                            nargs);
    for (int a = 0; a < nargs; a++)
        if (tensor_iter_data(iter, a) == NULL && tensor_iter_numel(iter) > 0)
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: operand %d has no data", func, a);
    if (tensor_iter_numel(iter) == 0 || params->scan_len == 0) return TENSOR_OK;
    tt_scan_job job;
    memset(&job, 0, sizeof job);
    job.kind = kind;
    job.func = func;
    job.in_arg = nout;
    job.in_dtype = tensor_iter_dtype(iter, nout);
    job.out_dtype = tensor_iter_dtype(iter, 0);
    job.in = tensor_iter_data(iter, nout);
    job.out = tensor_iter_data(iter, 0);
    job.idx = extreme ? tensor_iter_data(iter, 1) : NULL;
    job.nlines = tensor_iter_numel(iter);
    job.len = params->scan_len;
    job.s_out = params->scan_strides[0];
    job.s_idx = extreme ? params->scan_strides[1] : 0;
    job.s_in = params->scan_strides[nout];
    if (extreme && tensor_iter_dtype(iter, 1) != TENSOR_INT64)
        return tensor_error(TENSOR_ERR_DTYPE, "%s: indices must be int64", func);
    job.dense = job.s_in == (int64_t)tensor_dtype_size(job.in_dtype) &&
                job.s_out == (int64_t)tensor_dtype_size(job.out_dtype) && (!extreme || job.s_idx == 8);
    if (job.s_in < 0 || job.s_out < 0 || job.s_idx < 0)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: negative strides along the line", func);
    const int ndim = tensor_iter_ndim(iter);
    const int64_t *strides[3];
    for (int a = 0; a < nargs; a++) strides[a] = tensor_iter_strides(iter, a);
    if (tensor_offset_calc_make64(ndim, tensor_iter_shape(iter), nargs, strides, &job.calc) != TENSOR_OK)
        return tensor_last_status();
    job.device = tensor_iter_device(iter).index;
    int saved;
    if (tensor_cuda_device_enter(job.device, &saved, func) != TENSOR_OK) return tensor_last_status();
    job.stream = (void *)tensor_cuda_stream_of(job.device);
    tensor_status st;
    if (extreme) st = tt_cuda_scan_extreme(&job);
    else if (kind == TENSOR_SCAN_LOGCUMSUMEXP) st = tt_cuda_scan_logcumsumexp(&job);
    else st = tt_cuda_scan_arith(&job);
    tensor_cuda_device_restore(saved);
    return st;
}
