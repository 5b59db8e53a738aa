/* Shared by host C11 and CUDA C++: lets one inline function serve both backends. */
#ifndef TENSOR_HOSTDEVICE_H
#define TENSOR_HOSTDEVICE_H

#if defined(__CUDACC__)
#define TENSOR_HOST_DEVICE __host__ __device__
#define TENSOR_INLINE __host__ __device__ __forceinline__
#else
#define TENSOR_HOST_DEVICE
#define TENSOR_INLINE static inline
#endif

#endif
