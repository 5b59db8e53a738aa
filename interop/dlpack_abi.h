/* The DLPack ABI (version 1.1): the structs two libraries pass to share a tensor without a copy.
 *
 * Declared here from the published specification because the packaged dlpack.h of common
 * distributions (Debian's libdlpack-dev is 0.6) predates the versioned struct. The include
 * guard is the official header's own, so exactly one definition exists in a program: whichever
 * of the two is included first wins, and both describe the same layout (checked below). An
 * official header older than 1.0 included first is an error here, since it lacks
 * DLManagedTensorVersioned.
 *
 * Only the names below are declared; the spec's later additions (the C exchange API of newer
 * minor versions) are not needed to pass tensors and are left to the official header. */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 1

#ifdef __cplusplus
#define DLPACK_EXTERN_C extern "C"
#else
#define DLPACK_EXTERN_C
#endif
#ifndef DLPACK_DLL
#define DLPACK_DLL
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A major version change means the layout of DLManagedTensorVersioned changed (only its first
 * fields up to `flags` stay put, so that the deleter can always be found); a minor one adds
 * enum values only. */
typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

/* 32 bits in both languages: C++ needs the fixed underlying type to match C's int-sized enum. */
#ifdef __cplusplus
typedef enum : int32_t {
#else
typedef enum {
#endif
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3, /* page-locked host memory (cudaMallocHost) */
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13, /* unified memory (cudaMallocManaged) */
    kDLOneAPI = 14,
    kDLWebGPU = 15,
    kDLHexagon = 16,
    kDLMAIA = 17,
    kDLTrn = 18,
} DLDeviceType;

typedef struct {
    DLDeviceType device_type;
    int32_t device_id; /* 0 for host, pinned and managed memory */
} DLDevice;

typedef enum {
    kDLInt = 0U,
    kDLUInt = 1U,
    kDLFloat = 2U,
    kDLOpaqueHandle = 3U,
    kDLBfloat = 4U,
    kDLComplex = 5U,
    kDLBool = 6U, /* one byte per element */
    kDLFloat8_e3m4 = 7U,
    kDLFloat8_e4m3 = 8U,
    kDLFloat8_e4m3b11fnuz = 9U,
    kDLFloat8_e4m3fn = 10U,
    kDLFloat8_e4m3fnuz = 11U,
    kDLFloat8_e5m2 = 12U,
    kDLFloat8_e5m2fnuz = 13U,
    kDLFloat8_e8m0fnu = 14U,
    kDLFloat6_e2m3fn = 15U,
    kDLFloat6_e3m2fn = 16U,
    kDLFloat4_e2m1fn = 17U,
} DLDataTypeCode;

/* code is a DLDataTypeCode kept in one byte; lanes > 1 are vector types. Elements are in the
 * host's byte order. */
typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

/* A view of memory the struct does not own. Element [i0, i1, ...] is at
 * (char *)data + byte_offset + (i0 * strides[0] + i1 * strides[1] + ...) * bits / 8.
 * strides are in elements; NULL means compact row-major (older producers). A tensor without
 * elements should have a NULL data pointer. */
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides;
    uint64_t byte_offset;
} DLTensor;

/* The pre-1.0 exchange struct, without version or flags. The consumer calls deleter(self)
 * once when it no longer needs the memory; deleter may be NULL. */
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

/* Bits of DLManagedTensorVersioned.flags. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)  /* the consumer must not write the memory */
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)  /* the producer made a copy the consumer owns alone */
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL) /* sub-byte types padded, not packed */

/* The exchange struct of DLPack 1.x. If version.major differs from the consumer's, only the
 * deleter may be touched (call it); every other field may have moved. */
typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

#ifdef __cplusplus
}
#endif

#endif /* DLPACK_DLPACK_H_ */

/* Outside the guard, so they also check an official header that was included first. */
#if !defined(DLPACK_MAJOR_VERSION) || DLPACK_MAJOR_VERSION < 1
#error "tinytensor needs DLPack 1.x declarations; an older dlpack.h (without DLManagedTensorVersioned) was included first"
#endif

#ifndef TENSOR_DLPACK_ABI_CHECKED
#define TENSOR_DLPACK_ABI_CHECKED
#ifdef __cplusplus
#define TENSOR_DLPACK_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define TENSOR_DLPACK_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif
TENSOR_DLPACK_STATIC_ASSERT(sizeof(DLPackVersion) == 8, "DLPackVersion layout");
TENSOR_DLPACK_STATIC_ASSERT(sizeof(DLDevice) == 8, "DLDevice layout");
TENSOR_DLPACK_STATIC_ASSERT(sizeof(DLDataType) == 4, "DLDataType layout");
TENSOR_DLPACK_STATIC_ASSERT(offsetof(DLTensor, device) == sizeof(void *), "DLTensor layout");
TENSOR_DLPACK_STATIC_ASSERT(offsetof(DLTensor, ndim) == sizeof(void *) + 8, "DLTensor layout");
TENSOR_DLPACK_STATIC_ASSERT(offsetof(DLTensor, dtype) == sizeof(void *) + 12, "DLTensor layout");
TENSOR_DLPACK_STATIC_ASSERT(offsetof(DLTensor, shape) == sizeof(void *) + 16, "DLTensor layout");
TENSOR_DLPACK_STATIC_ASSERT(offsetof(DLManagedTensor, manager_ctx) == sizeof(DLTensor), "DLManagedTensor layout");
TENSOR_DLPACK_STATIC_ASSERT(offsetof(DLManagedTensorVersioned, manager_ctx) == 8, "DLManagedTensorVersioned layout");
TENSOR_DLPACK_STATIC_ASSERT(offsetof(DLManagedTensorVersioned, flags) == 8 + 2 * sizeof(void *),
                            "DLManagedTensorVersioned layout");
TENSOR_DLPACK_STATIC_ASSERT(offsetof(DLManagedTensorVersioned, dl_tensor) == 16 + 2 * sizeof(void *),
                            "DLManagedTensorVersioned layout");
#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
TENSOR_DLPACK_STATIC_ASSERT(sizeof(DLTensor) == 48, "DLTensor layout (64-bit)");
TENSOR_DLPACK_STATIC_ASSERT(sizeof(DLManagedTensor) == 64, "DLManagedTensor layout (64-bit)");
TENSOR_DLPACK_STATIC_ASSERT(sizeof(DLManagedTensorVersioned) == 80, "DLManagedTensorVersioned layout (64-bit)");
#endif
#undef TENSOR_DLPACK_STATIC_ASSERT
#endif
