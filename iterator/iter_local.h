/* Library-internal: an iterator and its config in the caller's storage.
 *
 * The ops (ops/reduce_launch.c, ops/elementwise*.c) build one iterator per call and drop it
 * before returning. On the heap the iterator (2 KB) was a large-bin request, and glibc
 * consolidated its fast bins on every call: with the config, a fifth of the instructions of a
 * tiny CPU sum went to malloc and free (callgrind). On the stack they cost nothing.
 *
 * Users keep the opaque heap objects of iterator.h: these layouts are not part of the ABI. */
#ifndef TENSOR_ITER_LOCAL_H
#define TENSOR_ITER_LOCAL_H

#include "iterator/iter_impl.h"

/* cfg: caller storage, any contents; after it, the same state as tensor_iter_config_new's. */
void tt_iter_config_init(tensor_iter_config *cfg, const char *name);
/* Drops the references the config's adds took; the storage stays the caller's. */
void tt_iter_config_clear(tensor_iter_config *cfg);

/* tensor_iter_build into caller storage. TENSOR_OK: *it holds a reference to each operand
 * (tt_iter_clear drops them). Otherwise *it holds none and the error is recorded. */
tensor_status tt_iter_build_into(const tensor_iter_config *cfg, tensor_iter_t *it);
/* Drops the operand references of an iterator built by tt_iter_build_into, or of one whose
 * num_operands was set to 0 (a caller that may bail out before building it). */
void tt_iter_clear(tensor_iter_t *it);

/* NumPy broadcasting of `sizes` (n dims) into the running shape (*ndim, shape) (PyTorch's
 * infer_size: dims counted in the padded result). TENSOR_ERR_SHAPE names func and the operand
 * ("<what> <index>"); shape is unchanged then. */
tensor_status tt_iter_broadcast_into(int *ndim, int64_t *shape, int n, const int64_t *sizes, const char *func,
                                     const char *what, int index);

#endif
