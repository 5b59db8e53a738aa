/* DLPack: sharing tensors with other libraries (numpy, PyTorch, CuPy, JAX, ...) without a copy.
 *
 * Export hands another library a DLManagedTensorVersioned (DLPack 1.x) or a legacy
 * DLManagedTensor that points into our memory; import wraps the memory another library hands
 * us in a tensor. Neither copies an element. The DLPack structs come from
 * interop/dlpack_abi.h (or from the official dlpack.h, version 1.x, if that was included first).
 *
 * Dtypes, both ways: bool {kDLBool, 8}, uint8 {kDLUInt, 8}, int8/16/32/64 {kDLInt, n},
 * float16/32/64 {kDLFloat, n}, bfloat16 {kDLBfloat, 16}, float8_e4m3fn {kDLFloat8_e4m3fn, 8},
 * float8_e5m2 {kDLFloat8_e5m2, 8}, all with lanes 1. Devices: kDLCPU and kDLCUDA.
 *
 * Lifetime, both ways: the memory stays valid until the last reference on either side is gone,
 * and the deleter of a DLPack struct runs exactly once.
 *  - Export: the struct holds a reference to the tensor's storage (not to the handle: the
 *    handle may be released at once). The consumer calls struct->deleter(struct) once when done;
 *    that drops the reference. While an export lives, the storage cannot grow
 *    (tensor_resize_ refuses), since the consumer keeps its address.
 *  - Import: the tensor (and every view of it) shares one storage whose release calls the
 *    producer's deleter. For CUDA memory it first waits for the work queued on that device
 *    (cudaDeviceSynchronize), so the producer never reuses memory our kernels still use.
 *
 * CUDA streams (the stream argument of Python's __dlpack__): an export of a CUDA tensor takes
 * the stream on which the consumer will use the memory, and orders it after the work queued so
 * far on the calling thread's current stream of that device (tensor_cuda_set_stream): an event
 * is recorded on ours and the consumer's stream waits for it, so the host does not block.
 * Values:
 *    TENSOR_DLPACK_STREAM_NONE (-1)   no synchronisation: the consumer orders it itself
 *    0                                the legacy default stream (our NULL stream)
 *    TENSOR_DLPACK_STREAM_LEGACY (1)  the legacy default stream (cudaStreamLegacy)
 *    TENSOR_DLPACK_STREAM_PER_THREAD (2)  the calling thread's per-thread default stream
 *    any other value                  a cudaStream_t of the tensor's device, cast to intptr_t
 * Nothing is recorded when the consumer's stream is ours. For a CPU tensor the stream must be
 * 0 or -1. When the consumer is done it calls the deleter; if it used the memory on another
 * stream, its work there must be finished or ordered before our later work on ours (PyTorch's
 * and CuPy's exports ask the same), because the block returns to our caching allocator. */
#ifndef TENSOR_INTEROP_DLPACK_H
#define TENSOR_INTEROP_DLPACK_H

#include <stdint.h>

#include "tinytensor/interop/dlpack_abi.h"
#include "tinytensor/runtime/export.h"
#include "tinytensor/runtime/status.h"
#include "tinytensor/runtime/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Special values of consumer_stream; see the top of this header. */
#define TENSOR_DLPACK_STREAM_NONE ((intptr_t)-1)
#define TENSOR_DLPACK_STREAM_LEGACY ((intptr_t)1)
#define TENSOR_DLPACK_STREAM_PER_THREAD ((intptr_t)2)

/* The DLPack version this library writes (and the major version it reads). */
#define TENSOR_DLPACK_MAJOR 1
#define TENSOR_DLPACK_MINOR 1

/* Exports t (borrowed; its handle may be released right after) as a new
 * DLManagedTensorVersioned in *out, version 1.1. `flags` is 0 or DLPACK_FLAG_BITMASK_READ_ONLY
 * (a promise the consumer is asked to keep; our own views stay writable). The struct owns
 * shape and strides arrays of t's ndim entries (strides always set, in elements, never
 * negative; expanded dims have stride 0); data points at t's first element and byte_offset is 0
 * (data is NULL when t has no elements). The caller owns *out and passes it on to the consumer,
 * which calls (*out)->deleter(*out) exactly once. consumer_stream: see above.
 * Errors (nothing allocated, *out set to NULL when out is not NULL): NULL t or out, unknown
 * flags or a bad stream (TENSOR_ERR_INVALID_ARGUMENT), host memory (TENSOR_ERR_OUT_OF_MEMORY),
 * the CUDA runtime refusing the event (TENSOR_ERR_CUDA). */
TENSOR_API tensor_status tensor_to_dlpack_versioned(const tensor_t *t, uint64_t flags, intptr_t consumer_stream,
                                                    DLManagedTensorVersioned **out);

/* The same as a legacy DLManagedTensor (no version, no flags), for consumers older than
 * DLPack 1.0. */
TENSOR_API tensor_status tensor_to_dlpack(const tensor_t *t, intptr_t consumer_stream, DLManagedTensor **out);

/* Wraps the memory of `m` in a new tensor without copying. TAKES OWNERSHIP of m in every case:
 * on success the tensor's storage calls m->deleter(m) when its last view is released; on any
 * error m->deleter(m) has been called before this returns (and m must not be used again).
 * The tensor's shape, strides and dtype are m's; its device is cpu for kDLCPU and cuda:N for
 * {kDLCUDA, N}; its data starts at m->dl_tensor.data + byte_offset. A NULL strides pointer
 * means row-major. Strides of dims of size 1 (and of tensors without elements) do not matter
 * and are accepted whatever their sign.
 * The READ_ONLY flag is not enforced (tinytensor has no read-only tensors): a caller that must
 * honour it reads m->flags before the call and does not write the result.
 * An export of this library comes back as a view of the original storage (no extra layer).
 * Refused (NULL and a message naming the field): NULL m (nothing to delete), a major version
 * other than 1 (TENSOR_ERR_NOT_IMPLEMENTED; only the deleter is touched), a dtype we do not
 * have or lanes != 1 (TENSOR_ERR_DTYPE), a device type other than kDLCPU/kDLCUDA, or a CUDA
 * device this build or machine does not have (TENSOR_ERR_DEVICE), ndim outside
 * [0, TENSOR_MAX_DIMS], a negative size, a NULL shape with ndim > 0, a negative stride on a
 * dim of size > 1, NULL data with elements, or data + byte_offset not aligned to the element
 * size (TENSOR_ERR_INVALID_ARGUMENT), sizes and strides whose extent overflows
 * (TENSOR_ERR_OVERFLOW), host memory (TENSOR_ERR_OUT_OF_MEMORY). */
TENSOR_API tensor_t *tensor_from_dlpack_versioned(DLManagedTensorVersioned *m);

/* The same for a legacy DLManagedTensor (its deleter may be NULL: nothing is called then). */
TENSOR_API tensor_t *tensor_from_dlpack(DLManagedTensor *m);

/* The DLPack dtype of a tinytensor dtype: TENSOR_OK and *out set, or TENSOR_ERR_DTYPE for an
 * unknown dtype. */
TENSOR_API tensor_status tensor_dtype_to_dlpack(tensor_dtype dtype, DLDataType *out);
/* The tinytensor dtype of a DLPack dtype: TENSOR_OK and *out set, or TENSOR_ERR_DTYPE (with the
 * code, bits and lanes in the message) for one we do not have. */
TENSOR_API tensor_status tensor_dtype_from_dlpack(DLDataType dt, tensor_dtype *out);

#ifdef __cplusplus
}
#endif
#endif
