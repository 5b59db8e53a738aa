/* The composition root (backends/backends.h): the backends this build compiled. */
#include "backends/backends.h"
#include "cpu/cpu_reduce.h"
#if TENSOR_HAVE_CUDA
#include "cuda/reduce_ops.h"
#endif

void tt_backends_install(void) {
    tt_cpu_register_kernels();
#if TENSOR_HAVE_CUDA
    tt_cuda_register_kernels();
#endif
}
