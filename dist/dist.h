/* The dist module's interface: communicators over NCCL, collectives on tensors, sharded tensors
 * and reductions over them. docs/dist.md.
 * dist/comm.h: communicators (wrapping or creating ncclComm_t).
 * dist/collectives.h: all-reduce, reduce-scatter, all-gather, broadcast.
 * dist/dtensor.h: sharded and replicated tensors.
 * dist/reduce.h: sum, mean, prod, amax, amin, var, std, norm, logsumexp, argmax, argmin. */
#ifndef TENSOR_DIST_H
#define TENSOR_DIST_H

#include "tinytensor/dist/comm.h"
#include "tinytensor/dist/collectives.h"
#include "tinytensor/dist/dtensor.h"
#include "tinytensor/dist/reduce.h"

#endif
