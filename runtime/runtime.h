/* The runtime module's interface: statuses, dtypes, devices, tensors and views. */
#ifndef TENSOR_RUNTIME_H
#define TENSOR_RUNTIME_H

#include "tinytensor/runtime/status.h"
#include "tinytensor/runtime/dtype.h"
#include "tinytensor/runtime/device.h"
#include "tinytensor/runtime/allocator.h"
#include "tinytensor/runtime/tensor.h"

#endif
