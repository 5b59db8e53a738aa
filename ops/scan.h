/* Scans along one dim, PyTorch's torch.cumsum / cumprod / logcumsumexp / cummax / cummin.
 * The result has the input's shape; `dim` may be negative; a 0-d input scans as one element
 * (dim 0 or -1). Inputs are borrowed; results are new tensors (release them) or NULL with the
 * error set. Each line is scanned in index order, so results are bitwise the same for any
 * thread count. Devices: CPU (CUDA: TENSOR_ERR_NOT_IMPLEMENTED for now).
 *
 * Accumulation follows PyTorch's CPU kernels: float16 / bfloat16 in float32, float32 and
 * float64 in float64, integers and bool in int64 (wrapping). */
#ifndef TENSOR_OPS_SCAN_H
#define TENSOR_OPS_SCAN_H

#include "tinytensor/runtime/export.h"
#include "tinytensor/runtime/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Running sum / product. dtype: the result dtype, or TENSOR_DTYPE_DEFAULT for sum's rule
 * (integers and bool give int64, float8 gives float32, other floats keep theirs); with dtype,
 * each element is converted to it first. */
TENSOR_API tensor_t *tensor_cumsum(const tensor_t *t, int dim, tensor_dtype dtype);
TENSOR_API tensor_t *tensor_cumprod(const tensor_t *t, int dim, tensor_dtype dtype);
/* log(cumsum(exp(t))) without overflow; floating inputs only (float8 gives float32). */
TENSOR_API tensor_t *tensor_logcumsumexp(const tensor_t *t, int dim);
/* Running max / min and the index (int64, along dim) where it was found: on ties the later
 * index; a NaN is the max (and the min) from where it occurs. *values and *indices receive new
 * tensors (both NULL on error). */
TENSOR_API tensor_status tensor_cummax(const tensor_t *t, int dim, tensor_t **values, tensor_t **indices);
TENSOR_API tensor_status tensor_cummin(const tensor_t *t, int dim, tensor_t **values, tensor_t **indices);

/* out= forms: the result is computed, then written into out (borrowed; resized to the input's
 * shape when it differs and does not share memory with the input; its dtype must be the
 * result dtype: dtype if given, else out's own for cumsum/cumprod). */
TENSOR_API tensor_status tensor_cumsum_out(tensor_t *out, const tensor_t *t, int dim, tensor_dtype dtype);
TENSOR_API tensor_status tensor_cumprod_out(tensor_t *out, const tensor_t *t, int dim, tensor_dtype dtype);
TENSOR_API tensor_status tensor_logcumsumexp_out(tensor_t *out, const tensor_t *t, int dim);
TENSOR_API tensor_status tensor_cummax_out(tensor_t *values, tensor_t *indices, const tensor_t *t, int dim);
TENSOR_API tensor_status tensor_cummin_out(tensor_t *values, tensor_t *indices, const tensor_t *t, int dim);

#ifdef __cplusplus
}
#endif
#endif
