/* DLPack refusals and errors: every foreign tensor we cannot represent is refused with a
 * message naming the field, and its deleter has run by the time the call returns; export
 * errors leave nothing allocated. */
#include <stdint.h>

#include "dlpack_test_util.h"

/* Imports f (versioned or legacy) expecting a refusal with `status` and `needle`, and checks
 * the deleter ran exactly once. */
static void expect_refused(foreign *f, bool legacy, tensor_status status, const char *needle) {
    int *deletes = f->deletes;
    const int before = *deletes;
    tensor_clear_error();
    tensor_t *t = legacy ? tensor_from_dlpack(&f->legacy) : tensor_from_dlpack_versioned(&f->v);
    if (t != NULL) fail_msg("expected a refusal (%s), got a tensor", needle);
    assert_error(status, needle);
    assert_non_null(strstr(tensor_last_error(), legacy ? "tensor_from_dlpack:" : "tensor_from_dlpack_versioned:"));
    assert_int_equal(*deletes, before + 1);
}

static float cells[64];

static foreign *good(int *deletes) {
    return foreign_new(cells, 2, (const int64_t[]){4, 4}, (const int64_t[]){4, 1}, dl_dtype(kDLFloat, 32, 1), dl_cpu(),
                       deletes);
}

static void test_refusals_run_the_deleter(void **state) {
    (void)state;
    int deletes = 0;
    for (int legacy = 0; legacy < 2; legacy++) {
        foreign *f;

        f = good(&deletes);
        f->v.dl_tensor.device.device_type = f->legacy.dl_tensor.device.device_type = kDLOpenCL;
        expect_refused(f, legacy, TENSOR_ERR_DEVICE, "kDLCPU (1) and kDLCUDA (2)");

        f = good(&deletes);
        f->v.dl_tensor.device.device_type = f->legacy.dl_tensor.device.device_type = kDLCUDAHost;
        expect_refused(f, legacy, TENSOR_ERR_DEVICE, "type 3");

        f = good(&deletes);
        f->v.dl_tensor.device.device_type = f->legacy.dl_tensor.device.device_type = (DLDeviceType)999;
        expect_refused(f, legacy, TENSOR_ERR_DEVICE, "type 999");

        /* A GPU that is not there (in a CPU-only build: any GPU). */
        f = good(&deletes);
        f->v.dl_tensor.device.device_type = f->legacy.dl_tensor.device.device_type = kDLCUDA;
        f->v.dl_tensor.device.device_id = f->legacy.dl_tensor.device.device_id = 99;
        expect_refused(f, legacy, TENSOR_ERR_DEVICE, "cuda:99");

        f = good(&deletes);
        f->v.dl_tensor.dtype = f->legacy.dl_tensor.dtype = dl_dtype(kDLFloat, 32, 4);
        expect_refused(f, legacy, TENSOR_ERR_DTYPE, "lanes != 1");

        f = good(&deletes);
        f->v.dl_tensor.dtype = f->legacy.dl_tensor.dtype = dl_dtype(kDLComplex, 64, 1);
        expect_refused(f, legacy, TENSOR_ERR_DTYPE, "complex");

        f = good(&deletes);
        f->v.dl_tensor.dtype = f->legacy.dl_tensor.dtype = dl_dtype(kDLUInt, 32, 1);
        expect_refused(f, legacy, TENSOR_ERR_DTYPE, "no tinytensor dtype");

        f = good(&deletes);
        f->v.dl_tensor.ndim = f->legacy.dl_tensor.ndim = TENSOR_MAX_DIMS + 1;
        expect_refused(f, legacy, TENSOR_ERR_INVALID_ARGUMENT, "ndim 17");

        f = good(&deletes);
        f->v.dl_tensor.ndim = f->legacy.dl_tensor.ndim = -1;
        expect_refused(f, legacy, TENSOR_ERR_INVALID_ARGUMENT, "ndim -1");

        f = good(&deletes);
        f->v.dl_tensor.shape = f->legacy.dl_tensor.shape = NULL;
        expect_refused(f, legacy, TENSOR_ERR_INVALID_ARGUMENT, "shape is NULL");

        f = good(&deletes);
        f->shape[1] = -4;
        expect_refused(f, legacy, TENSOR_ERR_INVALID_ARGUMENT, "negative size");

        f = good(&deletes);
        f->strides[0] = -4;
        expect_refused(f, legacy, TENSOR_ERR_INVALID_ARGUMENT, "strides[0] is -4");

        f = good(&deletes);
        f->v.dl_tensor.data = f->legacy.dl_tensor.data = NULL;
        expect_refused(f, legacy, TENSOR_ERR_INVALID_ARGUMENT, "data is NULL");

        f = good(&deletes);
        f->v.dl_tensor.byte_offset = f->legacy.dl_tensor.byte_offset = 2;
        expect_refused(f, legacy, TENSOR_ERR_INVALID_ARGUMENT, "not aligned");

        f = good(&deletes);
        f->v.dl_tensor.data = f->legacy.dl_tensor.data = (char *)cells + 1;
        expect_refused(f, legacy, TENSOR_ERR_INVALID_ARGUMENT, "4-byte elements of float32");

        f = good(&deletes);
        f->shape[0] = INT64_C(1) << 40;
        f->strides[0] = INT64_C(1) << 40;
        expect_refused(f, legacy, TENSOR_ERR_OVERFLOW, "overflow int64");

        f = good(&deletes);
        f->shape[0] = INT64_C(1) << 61; /* 2^61 elements fit int64, their 2^63 bytes do not */
        f->shape[1] = 1;
        f->strides[0] = 1;
        expect_refused(f, legacy, TENSOR_ERR_OVERFLOW, "byte extent");

        f = good(&deletes);
        f->shape[0] = INT64_C(1) << 62;
        f->shape[1] = INT64_C(1) << 62;
        expect_refused(f, legacy, TENSOR_ERR_OVERFLOW, "product of sizes");

        f = good(&deletes);
        f->v.dl_tensor.byte_offset = f->legacy.dl_tensor.byte_offset = UINT64_MAX - 3;
        expect_refused(f, legacy, TENSOR_ERR_OVERFLOW, "address space");
    }
    assert_int_equal(deletes, 2 * 19);
}

/* Another major version: refused, and nothing but the deleter is read (the rest is garbage). */
static void test_refuses_other_major_versions(void **state) {
    (void)state;
    int deletes = 0;
    foreign *f = good(&deletes);
    f->v.version.major = 2;
    memset(&f->v.dl_tensor, 0xA5, sizeof f->v.dl_tensor);
    expect_refused(f, false, TENSOR_ERR_NOT_IMPLEMENTED, "version 2.1");
    f = good(&deletes);
    f->v.version.major = 0;
    expect_refused(f, false, TENSOR_ERR_NOT_IMPLEMENTED, "major version 1");
    /* A NULL deleter on a refused struct is allowed by the specification. */
    f = good(&deletes);
    f->v.version.major = 7;
    f->v.deleter = NULL;
    assert_null(tensor_from_dlpack_versioned(&f->v));
    assert_error(TENSOR_ERR_NOT_IMPLEMENTED, "7.1");
    free(f);
    assert_int_equal(deletes, 2);
}

static void test_null_arguments(void **state) {
    (void)state;
    assert_null(tensor_from_dlpack_versioned(NULL));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_from_dlpack_versioned: argument 'm' is NULL");
    assert_null(tensor_from_dlpack(NULL));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_from_dlpack: argument 'm' is NULL");

    tensor_t *t = tensor_zeros(1, (const int64_t[]){3}, TENSOR_FLOAT32, tensor_cpu());
    DLManagedTensorVersioned *m = (DLManagedTensorVersioned *)&m;
    DLManagedTensor *lm = (DLManagedTensor *)&lm;
    assert_int_equal(tensor_to_dlpack_versioned(NULL, 0, -1, &m), TENSOR_ERR_INVALID_ARGUMENT);
    assert_null(m);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "argument 't' is NULL");
    assert_int_equal(tensor_to_dlpack_versioned(t, 0, -1, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "argument 'out' is NULL");
    assert_int_equal(tensor_to_dlpack(NULL, -1, &lm), TENSOR_ERR_INVALID_ARGUMENT);
    assert_null(lm);
    assert_int_equal(tensor_to_dlpack(t, -1, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    tensor_release(t);
}

static void test_export_errors(void **state) {
    (void)state;
    tensor_t *t = tensor_zeros(2, (const int64_t[]){2, 3}, TENSOR_INT64, tensor_cpu());
    DLManagedTensorVersioned *m = NULL;
    DLManagedTensor *lm = NULL;
    assert_int_equal(tensor_to_dlpack_versioned(t, DLPACK_FLAG_BITMASK_IS_COPIED, -1, &m), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "flags 0x2");
    assert_null(m);
    assert_int_equal(tensor_to_dlpack_versioned(t, UINT64_C(1) << 63, -1, &m), TENSOR_ERR_INVALID_ARGUMENT);
    /* A CPU tensor has no stream: only "none" (0 or -1). */
    intptr_t bad_streams[] = {1, 2, 12345, -2};
    for (size_t i = 0; i < sizeof bad_streams / sizeof bad_streams[0]; i++) {
        assert_int_equal(tensor_to_dlpack_versioned(t, 0, bad_streams[i], &m), TENSOR_ERR_INVALID_ARGUMENT);
        assert_error(TENSOR_ERR_INVALID_ARGUMENT, "CPU tensor");
        assert_null(m);
        assert_int_equal(tensor_to_dlpack(t, bad_streams[i], &lm), TENSOR_ERR_INVALID_ARGUMENT);
        assert_null(lm);
    }
    /* the failed calls left no reference behind: the storage can still grow */
    assert_int_equal(tensor_resize_(t, 1, (const int64_t[]){100}), TENSOR_OK);
    tensor_release(t);
}

#if !TENSOR_HAVE_CUDA
#include "cuda/cuda_backend.h"

/* Without CUDA the stream handoff is a clear error, never reached for CPU tensors. */
static void test_cuda_handoff_without_cuda(void **state) {
    (void)state;
    assert_int_equal(tt_cuda_stream_handoff(0, 0, "probe"), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "built without CUDA");
    tt_cuda_device_sync_quiet(0); /* a no-op */
}
#endif

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_refusals_run_the_deleter),
    cmocka_unit_test(test_refuses_other_major_versions),
    cmocka_unit_test(test_null_arguments),
    cmocka_unit_test(test_export_errors),
#if !TENSOR_HAVE_CUDA
    cmocka_unit_test(test_cuda_handoff_without_cuda),
#endif
};

TENSOR_TEST_GROUP(dlpack_errors, tests, NULL, NULL)
