/* The runtime module's interface: statuses, dtypes, devices, tensors and views. */
#ifndef TENSOR_RUNTIME_H
#define TENSOR_RUNTIME_H

#include "runtime/status.h"
#include "runtime/dtype.h"
#include "runtime/device.h"
#include "runtime/allocator.h"
#include "runtime/tensor.h"

#endif
