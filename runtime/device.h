/* Devices: the CPU and CUDA GPUs by index. */
#ifndef TENSOR_DEVICE_H
#define TENSOR_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tinytensor/runtime/export.h"
#include "tinytensor/runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tensor_device_type {
    TENSOR_DEVICE_CPU = 0,
    TENSOR_DEVICE_CUDA = 1,
    TENSOR_NUM_DEVICE_TYPES
} tensor_device_type;

/* A device is a value: pass and compare it by value. The CPU always has index 0. */
typedef struct tensor_device {
    tensor_device_type type;
    int index;
} tensor_device;

static inline tensor_device tensor_cpu(void) {
    tensor_device d = {TENSOR_DEVICE_CPU, 0};
    return d;
}
static inline tensor_device tensor_cuda(int index) {
    tensor_device d = {TENSOR_DEVICE_CUDA, index};
    return d;
}
static inline bool tensor_device_equal(tensor_device a, tensor_device b) {
    return a.type == b.type && a.index == b.index;
}

/* Number of usable CUDA devices: 0, without error, when the library was built without CUDA,
 * there is no driver or there is no GPU. */
TENSOR_API int tensor_cuda_device_count(void);
/* true when the library was built with CUDA support (whether or not a GPU is present). */
TENSOR_API bool tensor_cuda_is_built(void);
/* TENSOR_OK if `device` is a known type with a valid index and is present; otherwise
 * TENSOR_ERR_DEVICE with a message naming `func`. */
TENSOR_API tensor_status tensor_device_check(tensor_device device, const char *func);
/* Writes "cpu" or "cuda:N" into buf (always NUL-terminated when size > 0). Returns buf. */
TENSOR_API char *tensor_device_format(tensor_device device, char *buf, size_t size);

/* Statistics of the CUDA memory of one device, in bytes: the caching allocator's and a user
 * device allocator's (runtime/allocator.h; its blocks count as both allocated and reserved). */
typedef struct tensor_cuda_memory_stats {
    uint64_t allocated;      /* bytes handed out to live storages now (rounded up to 512-byte blocks) */
    uint64_t reserved;       /* bytes obtained from cudaMalloc or a user allocator and not yet freed */
    uint64_t peak_allocated; /* high-water mark of `allocated` since start or reset */
    uint64_t num_device_mallocs; /* cudaMalloc and user alloc calls so far (a cache hit makes none) */
    uint64_t num_device_frees;   /* cudaFree and user free calls so far */
} tensor_cuda_memory_stats;

/* Fills *stats for CUDA device `index`. TENSOR_ERR_DEVICE without CUDA or a bad index. */
TENSOR_API tensor_status tensor_cuda_memory_get_stats(int index, tensor_cuda_memory_stats *stats);
/* Resets peak_allocated to the current allocated. */
TENSOR_API tensor_status tensor_cuda_memory_reset_peak(int index);
/* Returns every cached, unused block of every device to the driver (cudaFree), after waiting
 * for the device's queued work. Blocks in use are untouched, and so is the free space of a
 * cudaMalloc'd segment that still holds a block in use (a segment goes back whole or not at
 * all). A no-op without CUDA. */
TENSOR_API tensor_status tensor_cuda_empty_cache(void);
/* Waits for all work on the current device (cudaDeviceSynchronize). A no-op without CUDA. */
TENSOR_API tensor_status tensor_cuda_synchronize(void);

/* The "current stream" of CUDA device `device`: the cudaStream_t (passed as void *) on which
 * tinytensor queues its work and its allocations for that device. NULL, the default, is the
 * legacy default stream. The setting is process-wide, not per thread: the reduction engine's
 * grid counters are per device and rely on one stream ordering the library's work on a device.
 * Before switching a device to another stream, synchronize the old one.
 * Ordering with the caller's own work: tinytensor's work on the stream is ordered after what the
 * caller queued on it before the call and before what it queues after (stream order); to order
 * against another stream, record a cudaEvent on one and cudaStreamWaitEvent on the other.
 * Results read back to host memory (tensor_to_buffer, copies to the CPU) synchronize the stream.
 * Ownership: the library BORROWS the stream and never destroys it. The caller keeps it alive
 * while tensors allocated on it live and while work queued on it may run, and synchronizes it
 * before destroying it (memory freed on a stream is reused only on the same stream, which
 * orders the reuse after the work queued before the free).
 * TENSOR_ERR_DEVICE for a bad index or a build without CUDA. */
TENSOR_API tensor_status tensor_cuda_set_stream(int device, void *stream);
/* The current stream of `device` (NULL: the legacy default stream, a bad index or no CUDA). */
TENSOR_API void *tensor_cuda_get_stream(int device);
/* Sets the current stream of `device` to `stream` and writes the one it replaces to *previous,
 * so that a scope can restore it:
 *     void *prev; tensor_cuda_exchange_stream(0, mine, &prev); ...; tensor_cuda_set_stream(0, prev);
 * Errors as tensor_cuda_set_stream, and a NULL previous (TENSOR_ERR_INVALID_ARGUMENT); on error
 * nothing changes. */
TENSOR_API tensor_status tensor_cuda_exchange_stream(int device, void *stream, void **previous);

#ifdef __cplusplus
}
#endif
#endif
