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
 * all). The reduction engine's per-stream counter buffers (about 1 MiB per stream a multi-block
 * reduction ran on) go back too. A no-op without CUDA. */
TENSOR_API tensor_status tensor_cuda_empty_cache(void);
/* Waits for all work on the current device (cudaDeviceSynchronize). A no-op without CUDA. */
TENSOR_API tensor_status tensor_cuda_synchronize(void);

/* The "current stream" of CUDA device `device`: the cudaStream_t (passed as void *) on which
 * tinytensor queues the calling thread's work and allocations for that device. It is PER
 * THREAD, as PyTorch's current stream is: each thread starts on NULL, the legacy default
 * stream, and a setting in one thread does not change another's. Threads may run the library
 * on different streams of one device at the same time (the reduction engine keeps its grid
 * counters per stream).
 * Ordering with the caller's own work: tinytensor's work on the stream is ordered after what the
 * caller queued on it before the call and before what it queues after (stream order). To order
 * against another stream, use tensor_cuda_wait_stream / tensor_cuda_stream_wait_ours below (or
 * a cudaEvent of your own). Results read back to host memory (tensor_to_buffer, copies to the
 * CPU) synchronize the stream.
 * Memory: a block is allocated on the current stream and, once freed, reused only by work on
 * that same stream, which orders the reuse after everything queued there before the free. A
 * tensor used on another stream than the one it was made on must have that use ordered before
 * its release (for example tensor_cuda_stream_wait_ours on the other thread's stream, or a
 * synchronize), as with PyTorch's record_stream.
 * Graph capture: the library's calls on a stream being captured (cudaStreamBeginCapture, any
 * mode) record their kernels and copies and never synchronize; scratch it needs the first time
 * (the caching allocator's segments, the reduction engine's counters) is made outside the
 * capture. Keep the tensors a graph reads and writes alive while the graph may be replayed, and
 * replay it on the stream it was captured from (or ordered with that stream).
 * Ownership: the library BORROWS the stream and never destroys it. The caller keeps it alive
 * while tensors allocated on it live and while work queued on it may run, and synchronizes it
 * before destroying it.
 * TENSOR_ERR_DEVICE for a bad index (or an index of 64 or more) or a build without CUDA. */
TENSOR_API tensor_status tensor_cuda_set_stream(int device, void *stream);
/* The calling thread's current stream of `device` (NULL: the legacy default stream, a bad
 * index or no CUDA). */
TENSOR_API void *tensor_cuda_get_stream(int device);
/* Sets the calling thread's current stream of `device` to `stream` and writes the one it
 * replaces to *previous, so that a scope can restore it:
 *     void *prev; tensor_cuda_exchange_stream(0, mine, &prev); ...; tensor_cuda_set_stream(0, prev);
 * Errors as tensor_cuda_set_stream, and a NULL previous (TENSOR_ERR_INVALID_ARGUMENT); on error
 * nothing changes. */
TENSOR_API tensor_status tensor_cuda_exchange_stream(int device, void *stream, void **previous);
/* Orders the library's later work on the calling thread's current stream of `device` after
 * everything queued on `stream` so far (an event recorded on `stream` and waited for on ours;
 * the host does not wait). `stream` is borrowed; NULL is the legacy default stream. A no-op when
 * it is our current stream. Errors as tensor_cuda_set_stream, or TENSOR_ERR_CUDA. */
TENSOR_API tensor_status tensor_cuda_wait_stream(int device, void *stream);
/* The other direction: work queued on `stream` after this call waits for everything the library
 * has queued so far on the calling thread's current stream of `device` (its results, its
 * frees). Errors as tensor_cuda_wait_stream. */
TENSOR_API tensor_status tensor_cuda_stream_wait_ours(int device, void *stream);

#ifdef __cplusplus
}
#endif
#endif
