/* The public CUDA device API where no GPU can be used: a build without CUDA (runtime/no_cuda.c)
 * or a CUDA build on a machine without a GPU, such as CI. On a machine with a GPU these
 * tests skip themselves; tests/cuda covers that case. */
#include <string.h>

#include "test_main.h"

static void test_is_built(void **state) {
    (void)state;
    assert_int_equal(tensor_cuda_is_built(), TENSOR_HAVE_CUDA ? true : false);
    assert_true(tensor_cuda_device_count() >= 0);
    /* Asked twice: the count is stable and the first call left no error behind. */
    tensor_clear_error();
    assert_int_equal(tensor_cuda_device_count(), tensor_cuda_device_count());
    assert_int_equal(tensor_last_status(), TENSOR_OK);
}

static void test_without_gpu(void **state) {
    (void)state;
    if (tensor_cuda_device_count() > 0) skip();
#if TENSOR_HAVE_CUDA
    const char *why = "(0 CUDA devices)";
#else
    const char *why = "tinytensor was built without CUDA";
#endif
    tensor_cuda_memory_stats stats;
    assert_int_equal(tensor_cuda_memory_get_stats(0, &stats), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "tensor_cuda_memory_get_stats: device cuda:0");
    assert_error(TENSOR_ERR_DEVICE, why);
    assert_int_equal(tensor_cuda_memory_reset_peak(0), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "tensor_cuda_memory_reset_peak");
    assert_int_equal(tensor_cuda_set_stream(0, NULL), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "tensor_cuda_set_stream");
    assert_null(tensor_cuda_get_stream(0));
    void *prev = (void *)1;
    assert_int_equal(tensor_cuda_exchange_stream(0, NULL, &prev), TENSOR_ERR_DEVICE);
    assert_null(prev);
    assert_int_equal(tensor_cuda_exchange_stream(0, NULL, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_cuda_wait_stream(0, NULL), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "tensor_cuda_wait_stream: device cuda:0");
    assert_int_equal(tensor_cuda_stream_wait_ours(0, NULL), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "tensor_cuda_stream_wait_ours: device cuda:0");
    /* Portable programs may call these unconditionally. */
    tensor_clear_error();
    assert_int_equal(tensor_cuda_empty_cache(), TENSOR_OK);
    assert_int_equal(tensor_cuda_synchronize(), TENSOR_OK);
    assert_int_equal(tensor_last_status(), TENSOR_OK);

    int64_t sizes[2] = {2, 3};
    assert_null(tensor_empty(2, sizes, TENSOR_FLOAT32, tensor_cuda(0)));
    assert_error(TENSOR_ERR_DEVICE, "tensor_empty: device cuda:0");
    assert_null(tensor_zeros(2, sizes, TENSOR_FLOAT32, tensor_cuda(0)));
    assert_error(TENSOR_ERR_DEVICE, "tensor_zeros");

    tensor_t *cpu = tensor_ones(2, sizes, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(cpu);
    assert_null(tensor_to_device(cpu, tensor_cuda(0)));
    assert_error(TENSOR_ERR_DEVICE, "tensor_to_device");
    tensor_release(cpu);
}

static void test_bad_indices(void **state) {
    (void)state;
    assert_int_equal(tensor_cuda_set_stream(-1, NULL), TENSOR_ERR_DEVICE);
    assert_null(tensor_cuda_get_stream(-1));
    assert_null(tensor_cuda_get_stream(1 << 20));
    tensor_cuda_memory_stats stats;
    assert_int_equal(tensor_cuda_memory_get_stats(-1, &stats), TENSOR_ERR_DEVICE);
    assert_int_equal(tensor_cuda_memory_get_stats(1 << 20, &stats), TENSOR_ERR_DEVICE);
    assert_int_equal(tensor_cuda_memory_reset_peak(-7), TENSOR_ERR_DEVICE);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_is_built),
    cmocka_unit_test(test_without_gpu),
    cmocka_unit_test(test_bad_indices),
};

TENSOR_TEST_GROUP(cuda_api, tests, NULL, NULL)
