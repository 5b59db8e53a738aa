// What a kernel launch costs as a function of the size of its by-value parameter: the
// reduction kernels take their ~1.2 KB plan by value (cuda/reduce_host.h), like PyTorch's
// ReduceOp. Empty kernels with an 8-byte, a 1176-byte and a 1176-byte __grid_constant__
// parameter, launched back to back on the default stream (batches of 256, no sync inside a
// batch): host microseconds per launch, and GPU microseconds per kernel (CUDA events around
// the batch, i.e. the launch throughput of the GPU's front end).
// Build: nvcc -O2 -arch=sm_90 bench/cuda/launch_cost.cu -o launch_cost -lcuda
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <cuda.h>
#include <cuda_runtime.h>

struct P8 {
    long long a;
};
struct P1176 {
    long long a[147];
};

__global__ void k8(P8 p) {
    if (p.a == 42) asm volatile("trap;");
}
__global__ void k1176(P1176 p) {
    if (p.a[0] == 42 && p.a[146] == 7) asm volatile("trap;");
}
__global__ void k1176g(const __grid_constant__ P1176 p) {
    if (p.a[0] == 42 && p.a[146] == 7) asm volatile("trap;");
}

template <class F>
static void measure(const char *what, F launch) {
    const int batch = 256, batches = 100;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    std::vector<double> host, gpu;
    for (int b = -5; b < batches; b++) {
        cudaDeviceSynchronize();
        cudaEventRecord(e0, 0);
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < batch; i++) launch();
        auto t1 = std::chrono::steady_clock::now();
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        float ms = 0;
        cudaEventElapsedTime(&ms, e0, e1);
        if (b >= 0) {
            host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / batch);
            gpu.push_back(ms * 1000.0 / batch);
        }
    }
    std::sort(host.begin(), host.end());
    std::sort(gpu.begin(), gpu.end());
    std::printf("%-32s host %.3f us/launch, GPU %.3f us/kernel (medians)\n", what, host[host.size() / 2],
                gpu[gpu.size() / 2]);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
}

int main() {
    P8 p8{1};
    P1176 p1176{};
    measure("empty kernel, 8 B param", [&] { k8<<<1, 32>>>(p8); });
    measure("empty kernel, 1176 B param", [&] { k1176<<<1, 32>>>(p1176); });
    measure("empty kernel, 1176 B grid_constant", [&] { k1176g<<<1, 32>>>(p1176); });
    // The same launch through the runtime's cudaLaunchKernel (no <<<>>> configuration push /
    // pop) and through the driver's cuLaunchKernel on the kernel's CUfunction: is either
    // cheaper than <<<>>> on this host?
    void *args[] = {&p1176};
    measure("1176 B, cudaLaunchKernel", [&] { cudaLaunchKernel((const void *)k1176g, dim3(1), dim3(32), args, 0, 0); });
    cudaFunction_t fn = nullptr;
    if (cudaGetFuncBySymbol(&fn, (const void *)k1176g) == cudaSuccess) {
        CUfunction cf = (CUfunction)fn;
        measure("1176 B, cuLaunchKernel", [&] { cuLaunchKernel(cf, 1, 1, 1, 32, 1, 1, 0, 0, args, nullptr); });
    }
    int dev = 0;
    measure("cudaGetDevice", [&] { cudaGetDevice(&dev); });
    measure("cudaGetLastError", [&] { (void)cudaGetLastError(); });
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) std::printf("error: %s\n", cudaGetErrorString(err));
    return err != cudaSuccess;
}
