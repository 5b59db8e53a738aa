/* Internal to ops/: build the reduction iterator and run the kernel registered for the device. */
#ifndef TENSOR_REDUCE_LAUNCH_H
#define TENSOR_REDUCE_LAUNCH_H

#include "ops/dispatch.h"
#include "ops/reduce_plan.h"

/* outs: nout outputs viewed with the input's rank (tensor_reduce_keepdim_view); in: the input.
 * in and outs share a device; the input has numel > 0 and every output numel > 0. */
tensor_status tensor_reduce_launch(tensor_op op, tensor_t *const *outs, int nout, const tensor_t *in,
                                   const tensor_kernel_params *params, const char *func);

#endif
