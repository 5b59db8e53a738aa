/* Internal to ops/: build the reduction iterator and run the kernel registered for the device. */
#ifndef TENSOR_REDUCE_LAUNCH_H
#define TENSOR_REDUCE_LAUNCH_H

#include "contract/dispatch.h"
#include <stddef.h>
#include <stdint.h>

#include "ops/reduce_plan.h"

/* outs: nout outputs viewed with the input's rank (tensor_reduce_keepdim_view); in: the input.
 * in and outs share a device; the input has numel > 0 and every output numel > 0. */
tensor_status tensor_reduce_launch(tensor_op op, tensor_t *const *outs, int nout, const tensor_t *in,
                                   const tensor_kernel_params *params, const char *func);

/* The text of what tensor_reduce_launch would do with the same arguments, nothing run: the
 * iterator's plan (tensor_iter_explain), then the backend's explain of the kernel (on CUDA:
 * the launch configuration). snprintf contract: the full length, or -1 with the error set. */
int64_t tensor_reduce_explain_launch(tensor_op op, tensor_t *const *outs, int nout, const tensor_t *in,
                                     const tensor_kernel_params *params, const char *func, char *buf, size_t size);

/* The explain text of a built iterator and of the kernel (op, dev) would run on it: the
 * iterator's plan, then the backend's explain if it has one. snprintf contract as above. */
int64_t tensor_explain_iter_kernel(struct tensor_iter *iter, tensor_op op, tensor_device_type dev,
                                   const tensor_kernel_params *params, char *buf, size_t size);

#endif
