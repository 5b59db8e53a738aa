/* The public ops: reductions (this file's first family) with PyTorch's semantics
 * (PyTorch 2.x, as docs/api.md states them). Argument checks, output dtypes and shapes live in ops/;
 * the work is done by the backend registered for the input's device (contract/dispatch.h).
 *
 * Conventions for every function here:
 *  - Inputs are BORROWED. A tensor_t * result is a NEW reference (release it), or NULL with the
 *    last error set. *_out forms write into a caller's tensor and return a status.
 *  - dims/ndims: a list of dims to reduce; negative dims wrap; duplicates are an error
 *    ("dim 0 appears multiple times in the list of dims"). dims == NULL or ndims == 0 means ALL
 *    dims (PyTorch's quirk for sum/mean/...: dim=[] reduces everything). A 0-d tensor accepts dim
 *    0 and -1 and always gives a 0-d result.
 *  - keepdim: reduced dims stay as size 1 instead of being removed.
 *  - dtype: TENSOR_DTYPE_DEFAULT for PyTorch's default output dtype; otherwise the input is cast to
 *    dtype first and reduced in it (sum(int8 [100,100], dtype=int8) == -56).
 *  - Results are bitwise reproducible for a given input, device and build, whatever the number of
 *    threads. float16/bfloat16 accumulate in float32, float32 in float32 (cascade summation),
 *    float64 in double, integers and bool in int64 (wrapping). */
#ifndef TENSOR_OPS_H
#define TENSOR_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tinytensor/runtime/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sum family ---- */
/* torch.sum(t, dim, keepdim): ints and bool give int64, floats keep their dtype. */
TENSOR_API tensor_t *tensor_sum(const tensor_t *t, int dim, bool keepdim);
TENSOR_API tensor_t *tensor_sum_dims(const tensor_t *t, const int *dims, int ndims, bool keepdim, tensor_dtype dtype);
/* out (borrowed) gets the result; its dtype is the result dtype (dtype==DEFAULT: out's dtype).
 * An out of another shape is resized to the result's as tensor_resize_ does (PyTorch's out=;
 * tensor_last_warning() says so when it had elements), unless it shares the input's storage
 * (TENSOR_ERR_SHAPE); a failing call leaves it unchanged. */
TENSOR_API tensor_status tensor_sum_out(tensor_t *out, const tensor_t *t, const int *dims, int ndims, bool keepdim,
                                        tensor_dtype dtype);
/* sum treating NaN as zero. */
TENSOR_API tensor_t *tensor_nansum(const tensor_t *t, const int *dims, int ndims, bool keepdim, tensor_dtype dtype);
/* Floating (or dtype given floating) only; empty reductions give NaN. */
TENSOR_API tensor_t *tensor_mean(const tensor_t *t, const int *dims, int ndims, bool keepdim, tensor_dtype dtype);
TENSOR_API tensor_t *tensor_nanmean(const tensor_t *t, const int *dims, int ndims, bool keepdim, tensor_dtype dtype);
/* torch.prod takes one dim or none: dim == NULL reduces all dims. */
TENSOR_API tensor_t *tensor_prod(const tensor_t *t, const int *dim, bool keepdim, tensor_dtype dtype);

/* ---- extremes ---- */
/* amax/amin: same dtype as input; NaN propagates; a zero-size reduced dim is an error. */
TENSOR_API tensor_t *tensor_amax(const tensor_t *t, const int *dims, int ndims, bool keepdim);
TENSOR_API tensor_t *tensor_amin(const tensor_t *t, const int *dims, int ndims, bool keepdim);
/* torch.max(t, dim, keepdim) -> (values, indices int64): first index on ties, first NaN wins.
 * Both results are new references written to *values and *indices (both NULL on error). */
TENSOR_API tensor_status tensor_max_dim(const tensor_t *t, int dim, bool keepdim, tensor_t **values, tensor_t **indices);
TENSOR_API tensor_status tensor_min_dim(const tensor_t *t, int dim, bool keepdim, tensor_t **values, tensor_t **indices);
/* torch.aminmax: the smallest and the largest value over dims in one pass, both in the input's
 * dtype, with amin's and amax's rules (NaN propagates, a zero-size reduced dim is an error).
 * ndims == 0 reduces every dim. Both results are new references written to *min and *max
 * (both NULL on error). */
TENSOR_API tensor_status tensor_aminmax(const tensor_t *t, const int *dims, int ndims, bool keepdim, tensor_t **min,
                                        tensor_t **max);
/* argmax/argmin: dim == NULL flattens (keepdim then gives all-ones shape); int64 result. */
TENSOR_API tensor_t *tensor_argmax(const tensor_t *t, const int *dim, bool keepdim);
TENSOR_API tensor_t *tensor_argmin(const tensor_t *t, const int *dim, bool keepdim);

/* ---- moments ---- */
/* var = sum((x - mean)^2) / max(0, N - correction) (Welford). Floating dtypes only. */
TENSOR_API tensor_t *tensor_var(const tensor_t *t, double correction, const int *dims, int ndims, bool keepdim);
TENSOR_API tensor_t *tensor_std(const tensor_t *t, double correction, const int *dims, int ndims, bool keepdim);
/* Both results as new references. */
TENSOR_API tensor_status tensor_var_mean(const tensor_t *t, double correction, const int *dims, int ndims, bool keepdim,
                                         tensor_t **var, tensor_t **mean);
TENSOR_API tensor_status tensor_std_mean(const tensor_t *t, double correction, const int *dims, int ndims, bool keepdim,
                                         tensor_t **std, tensor_t **mean);

/* ---- norms and friends ---- */
/* torch.linalg.vector_norm: p = 0 (count of non-zeros), 1, 2, INFINITY, -INFINITY or any real p.
 * Floating dtypes only; no scaling (overflow gives inf, as PyTorch). */
TENSOR_API tensor_t *tensor_norm(const tensor_t *t, double p, const int *dims, int ndims, bool keepdim);
/* log(sum(exp(x))) computed stably; ints/bool give float32; empty gives -inf. */
TENSOR_API tensor_t *tensor_logsumexp(const tensor_t *t, const int *dims, int ndims, bool keepdim);
/* int64 count of non-zero elements. */
TENSOR_API tensor_t *tensor_count_nonzero(const tensor_t *t, const int *dims, int ndims);
/* bool results (uint8 input gives uint8, as PyTorch); empty gives true for all, false for any. */
TENSOR_API tensor_t *tensor_all(const tensor_t *t, const int *dims, int ndims, bool keepdim);
TENSOR_API tensor_t *tensor_any(const tensor_t *t, const int *dims, int ndims, bool keepdim);

/* ---- the worked example of docs/functors.md ---- */
/* sum(x * x) over dims: the output dtype is sum's (integers and bool give int64, wrapping;
 * floats keep theirs, float16/bfloat16 accumulate in float32); empty reductions give 0. */
TENSOR_API tensor_t *tensor_sum_of_squares(const tensor_t *t, const int *dims, int ndims, bool keepdim);

/* ---- out= forms ----
 * tensor_X_out(out, <X's arguments>): X's result into out (borrowed). out's dtype must be X's
 * result dtype, or for the forms with a dtype= argument, TENSOR_DTYPE_DEFAULT means out's
 * dtype (as tensor_sum_out). An out of another shape is resized (as tensor_sum_out), unless it
 * shares the input's storage (TENSOR_ERR_SHAPE). out may be the input or alias it: the result
 * is computed first, then copied in. A failing call leaves out's values unchanged. Max and min
 * with indices write both outputs or neither. */
TENSOR_API tensor_status tensor_nansum_out(tensor_t *out, const tensor_t *t, const int *dims, int ndims, bool keepdim,
                                           tensor_dtype dtype);
TENSOR_API tensor_status tensor_mean_out(tensor_t *out, const tensor_t *t, const int *dims, int ndims, bool keepdim,
                                         tensor_dtype dtype);
TENSOR_API tensor_status tensor_nanmean_out(tensor_t *out, const tensor_t *t, const int *dims, int ndims, bool keepdim,
                                            tensor_dtype dtype);
TENSOR_API tensor_status tensor_prod_out(tensor_t *out, const tensor_t *t, const int *dim, bool keepdim,
                                         tensor_dtype dtype);
TENSOR_API tensor_status tensor_amax_out(tensor_t *out, const tensor_t *t, const int *dims, int ndims, bool keepdim);
TENSOR_API tensor_status tensor_amin_out(tensor_t *out, const tensor_t *t, const int *dims, int ndims, bool keepdim);
TENSOR_API tensor_status tensor_max_dim_out(tensor_t *values, tensor_t *indices, const tensor_t *t, int dim,
                                            bool keepdim);
TENSOR_API tensor_status tensor_min_dim_out(tensor_t *values, tensor_t *indices, const tensor_t *t, int dim,
                                            bool keepdim);
TENSOR_API tensor_status tensor_aminmax_out(tensor_t *min, tensor_t *max, const tensor_t *t, const int *dims,
                                            int ndims, bool keepdim);
TENSOR_API tensor_status tensor_argmax_out(tensor_t *out, const tensor_t *t, const int *dim, bool keepdim);
TENSOR_API tensor_status tensor_argmin_out(tensor_t *out, const tensor_t *t, const int *dim, bool keepdim);
TENSOR_API tensor_status tensor_var_out(tensor_t *out, const tensor_t *t, double correction, const int *dims, int ndims,
                                        bool keepdim);
TENSOR_API tensor_status tensor_std_out(tensor_t *out, const tensor_t *t, double correction, const int *dims, int ndims,
                                        bool keepdim);
TENSOR_API tensor_status tensor_norm_out(tensor_t *out, const tensor_t *t, double p, const int *dims, int ndims,
                                         bool keepdim);
TENSOR_API tensor_status tensor_logsumexp_out(tensor_t *out, const tensor_t *t, const int *dims, int ndims,
                                              bool keepdim);
TENSOR_API tensor_status tensor_count_nonzero_out(tensor_t *out, const tensor_t *t, const int *dims, int ndims);
TENSOR_API tensor_status tensor_all_out(tensor_t *out, const tensor_t *t, const int *dims, int ndims, bool keepdim);
TENSOR_API tensor_status tensor_any_out(tensor_t *out, const tensor_t *t, const int *dims, int ndims, bool keepdim);
TENSOR_API tensor_status tensor_sum_of_squares_out(tensor_t *out, const tensor_t *t, const int *dims, int ndims,
                                                   bool keepdim);

/* ---- any built-in reduction by name ----
 * The one-output reduction named `op` ("sum", "nansum", "prod", "mean", "nanmean", "amax",
 * "amin", "argmax", "argmin", "norm" (p = 2), "logsumexp", "count_nonzero", "all", "any",
 * "sum_of_squares", and every reduction added as a row of contract/reductions.h) of t over
 * dims, exactly as its own function computes it: the same output dtype rule (dtype= for the
 * ops that take one; any other dtype than TENSOR_DTYPE_DEFAULT is an error for the others),
 * empty-input rule, errors and
 * results. argmax, argmin and prod reduce one dim (ndims <= 1; none: every dim). t is
 * BORROWED; returns a new tensor or NULL with the error set (also for an unknown name and for
 * the two-output reductions "max", "min", "aminmax", "var_mean", which have functions of their
 * own). */
TENSOR_API tensor_t *tensor_reduce_named(const char *op, const tensor_t *t, const int *dims, int ndims, bool keepdim,
                                         tensor_dtype dtype);
/* The same into out (borrowed; resized as the other out= forms). out's dtype is the result
 * dtype: asked for when the op takes a dtype, else it must be the op's. */
TENSOR_API tensor_status tensor_reduce_named_out(tensor_t *out, const char *op, const tensor_t *t, const int *dims,
                                                 int ndims, bool keepdim);

/* ---- explain ---- */
/* How the reduction `op` ("sum", "nansum", "prod", "mean", "nanmean", "amax", "amin", "max",
 * "min", "aminmax", "argmax", "argmin", "var", "std", "var_mean", "std_mean", "norm" (p = 2),
 * "logsumexp", "count_nonzero", "all", "any", "sum_of_squares") of t over dims would run,
 * as text; nothing runs and t is BORROWED. The text is the iterator's plan
 * (tensor_iter_explain) and, for a CUDA tensor, the kernel that would launch (op, dtypes,
 * element and accumulator sizes) and its launch configuration (block, grid, input_mult,
 * output_mult, vectorisation, vt0, ctas_per_output, shared/staging/semaphore bytes), computed
 * by the same planning call as the launch. dims/ndims/keepdim/dtype as tensor_sum_dims (dtype
 * is used by the ops that take one). snprintf contract: writes at most size bytes (NUL
 * terminated when size > 0) and returns the full length, or -1 with the error set (NULL t,
 * unknown op, the op's own argument errors, "not implemented" on the device). */
TENSOR_API int64_t tensor_reduce_explain(const char *op, const tensor_t *t, const int *dims, int ndims, bool keepdim,
                                         tensor_dtype dtype, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
