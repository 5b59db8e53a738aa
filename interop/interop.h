/* The interop module's interface: exchanging tensors with other libraries and files.
 * interop/dlpack.h: DLPack export and import (zero-copy, CPU and CUDA).
 * interop/npy.h: numpy's .npy files. */
#ifndef TENSOR_INTEROP_H
#define TENSOR_INTEROP_H

#include "tinytensor/interop/dlpack.h"
#include "tinytensor/interop/npy.h"

#endif
