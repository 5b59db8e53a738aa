/* Where the first call of a JIT user reduction spends its time in a new process with a warm
 * disk cache: NVRTC's dlopen (made here first, RTLD_NOW or RTLD_LAZY, or left to the library),
 * then the first call (key, cache file, cuModuleLoadData, launch) and a second call.
 * usage: jit_first_call none|now|lazy   (TENSOR_JIT_CACHE_DIR shared between runs) */
#define _POSIX_C_SOURCE 199309L
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "tinytensor.h"
#include "../user_functors.h"

static double ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "none";
    tensor_reduction_def d = {"probe_sum", 1, sizeof(float), TENSOR_REDUCTION_DTYPE_FLOAT, true, {{0}}, NULL};
    d.fns[TENSOR_REDUCTION_F32] = sum_fns;
    tensor_reduction *sum = tensor_reduction_register(&d);
    int64_t shape[2] = {1024, 1024};
    tensor_t *c = tensor_rand(2, shape, 1, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *x = tensor_to_device(c, tensor_cuda(0));
    tensor_t *w = tensor_sum(x, 1, false); /* the runtime and a built-in kernel warm */
    cudaDeviceSynchronize();
    tensor_release(w);
    double t0 = ms();
    if (strcmp(mode, "none") != 0)
        if (dlopen("libnvrtc.so.13", strcmp(mode, "now") == 0 ? RTLD_NOW | RTLD_LOCAL : RTLD_LAZY | RTLD_LOCAL) == NULL)
            printf("dlopen failed: %s\n", dlerror());
    double t1 = ms();
    const tensor_t *in[1] = {x};
    int dim = 1;
    tensor_t *y = tensor_reduce(sum, in, 1, &dim, 1, false, TENSOR_DTYPE_DEFAULT);
    cudaDeviceSynchronize();
    double t2 = ms();
    tensor_t *y2 = tensor_reduce(sum, in, 1, &dim, 1, false, TENSOR_DTYPE_DEFAULT);
    cudaDeviceSynchronize();
    double t3 = ms();
    printf("%-5s dlopen %.2f ms, first call %.2f ms, second %.3f ms%s\n", mode, t1 - t0, t2 - t1, t3 - t2,
           y && y2 ? "" : " (a call failed)");
    tensor_release(y);
    tensor_release(y2);
    tensor_release(x);
    tensor_release(c);
    return 0;
}
