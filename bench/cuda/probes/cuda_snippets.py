"""CUDA source shared by the NVRTC probes of this folder (each probe's kernel is one string)."""

# pol(last): a 64-bit L2 cache policy for a load's cache_hint operand: evict-last for an input
# read again (a broadcast row), else evict-first (read once)
L2_POLICY = r"""
__device__ __forceinline__ unsigned long long pol(bool last) {
    unsigned long long p;
    if (last) asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
    else asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
    return p;
}
"""

# block_sum(v, sh): the CTA's sum of v, in thread 0 (P_T threads; sh holds P_T / 32 floats):
# shuffles in each warp first, then the first warp folds the warps' partials (one barrier)
BLOCK_SUM_SHFL = r"""
__device__ __forceinline__ float block_sum(float v, float *sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < P_T / 32 ? sh[lane] : 0.f;
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    }
    return v;
}
"""
