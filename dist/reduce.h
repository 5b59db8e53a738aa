/* Reductions over sharded tensors, with the call shape of ops/ops.h: the same arguments in the
 * same order, a tensor_dtensor_t * in and out instead of a tensor_t *. Dtypes, result shapes,
 * NaN rules and errors are those of the local op (PyTorch's).
 *
 * Two cases, decided by the reduced dims:
 *  - They include the sharded dim (dims NULL or empty: all dims, which do): each rank reduces its
 *    shard with the library's own op to a small partial, the partials of all ranks are
 *    all-gathered (NCCL), and every rank folds them in rank order with the library's ops into
 *    the same result: a replicated dtensor. Sum, mean and prod partials are kept in the
 *    accumulation dtype (float32 for 16-bit and float8 inputs, int64 for integers) and rounded
 *    once at the end (norm, logsumexp and var partials of 16-bit floats are the local op's
 *    16-bit results, widened for the fold: rounded twice): sum, mean and
 *    prod fold sums and products of partials; amax/amin the extremes; norm the partial norms
 *    (p = 0: their sum); logsumexp the partial logsumexps; var and std the Welford partials
 *    (count, mean, sum of squared deviations) with Chan's formula, in float64, shifted by rank
 *    0's mean; argmax/argmin pairs of (value, global index): the extreme value, and among the
 *    ranks holding it (or a NaN) the smallest global index, so ties and NaN resolve as in the
 *    unsharded op whatever the order of the slices.
 *  - They do not: each rank reduces its shard and nothing moves. The result is sharded along the
 *    same dim (renumbered when keepdim is false and reduced dims come before it).
 * A replicated input always takes the second path.
 *
 * Reproducibility: for a fixed communicator size, tiling and input, results are bitwise the same
 * run to run and on every rank (every rank folds the same gathered bytes with the same ops on
 * the same kind of GPU). Integer sums and products, amax/amin and argmax/argmin equal the
 * unsharded op's exactly; float results agree with it within rounding, not bitwise, because
 * the sharded sum adds the slices' partial sums. A different rank count or tiling regroups the
 * additions, so float results may change in the last bits (never integer ones).
 *
 * Collective when the reduced dims include the sharded dim: every rank calls the same reduction
 * in the same order. Work is queued on each device's current stream; the host does not wait.
 * Ownership: x is BORROWED; the result is a new reference (NULL with the error set: errors of
 * the local op are reported with this function's name first). */
#ifndef TENSOR_DIST_REDUCE_H
#define TENSOR_DIST_REDUCE_H

#include <stdbool.h>

#include "tinytensor/dist/dtensor.h"
#include "tinytensor/runtime/dtype.h"
#include "tinytensor/runtime/export.h"

#ifdef __cplusplus
extern "C" {
#endif

TENSOR_API tensor_dtensor_t *tensor_dist_sum(const tensor_dtensor_t *x, const int *dims, int ndims, bool keepdim,
                                             tensor_dtype dtype);
TENSOR_API tensor_dtensor_t *tensor_dist_mean(const tensor_dtensor_t *x, const int *dims, int ndims, bool keepdim,
                                              tensor_dtype dtype);
/* One dim or none (NULL: all), as tensor_prod. */
TENSOR_API tensor_dtensor_t *tensor_dist_prod(const tensor_dtensor_t *x, const int *dim, bool keepdim,
                                              tensor_dtype dtype);
TENSOR_API tensor_dtensor_t *tensor_dist_amax(const tensor_dtensor_t *x, const int *dims, int ndims, bool keepdim);
TENSOR_API tensor_dtensor_t *tensor_dist_amin(const tensor_dtensor_t *x, const int *dims, int ndims, bool keepdim);
TENSOR_API tensor_dtensor_t *tensor_dist_var(const tensor_dtensor_t *x, double correction, const int *dims, int ndims,
                                             bool keepdim);
TENSOR_API tensor_dtensor_t *tensor_dist_std(const tensor_dtensor_t *x, double correction, const int *dims, int ndims,
                                             bool keepdim);
TENSOR_API tensor_dtensor_t *tensor_dist_norm(const tensor_dtensor_t *x, double p, const int *dims, int ndims,
                                              bool keepdim);
TENSOR_API tensor_dtensor_t *tensor_dist_logsumexp(const tensor_dtensor_t *x, const int *dims, int ndims,
                                                   bool keepdim);
/* One dim or none (NULL: the index into the flattened logical tensor), as tensor_argmax. */
TENSOR_API tensor_dtensor_t *tensor_dist_argmax(const tensor_dtensor_t *x, const int *dim, bool keepdim);
TENSOR_API tensor_dtensor_t *tensor_dist_argmin(const tensor_dtensor_t *x, const int *dim, bool keepdim);

#ifdef __cplusplus
}
#endif
#endif
