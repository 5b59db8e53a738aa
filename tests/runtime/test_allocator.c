/* The host allocator hook (runtime/allocator.h): CPU storages come from the user's allocator
 * once set, each is freed by the allocator that made it (also after a switch), the alignment
 * holds, a failing user allocator is a clean OUT_OF_MEMORY, and NULL restores the default.
 * And the device allocator hook's setter, in every build. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "tinytensor.h"

typedef struct counting {
    int allocs, frees, fail;
    size_t live_bytes;
} counting;

static void *c_alloc(void *ctx, size_t n, size_t alignment) {
    counting *c = ctx;
    if (c->fail) return NULL;
    void *p = aligned_alloc(alignment, n);
    if (p != NULL) {
        c->allocs++;
        c->live_bytes += n;
    }
    return p;
}

static void c_free(void *ctx, void *p, size_t n) {
    counting *c = ctx;
    c->frees++;
    c->live_bytes -= n;
    free(p);
}

/* returns memory off by 16 bytes from a 64-byte boundary */
static void *misaligned_alloc(void *ctx, size_t n, size_t alignment) {
    (void)ctx;
    char *p = aligned_alloc(alignment, n + alignment);
    return p != NULL ? p + 16 : NULL;
}
static void misaligned_free(void *ctx, void *p, size_t n) {
    (void)ctx;
    (void)n;
    free((char *)p - 16);
}

static void test_storages_come_from_the_hook(void **state) {
    (void)state;
    tensor_t *before = tensor_ones(1, (int64_t[]){100}, TENSOR_FLOAT32, tensor_cpu()); /* default allocator */
    counting c = {0};
    tensor_allocator a = {c_alloc, c_free, &c};
    assert_int_equal(tensor_set_host_allocator(&a), TENSOR_OK);
    assert_ptr_equal(tensor_get_host_allocator().ctx, &c);
    tensor_t *x = tensor_rand(2, (int64_t[]){30, 40}, 1, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *s = tensor_sum(x, 1, false);
    tensor_t *y = tensor_add(x, x, tensor_scalar_int(1));
    assert_true(x != NULL && s != NULL && y != NULL);
    assert_int_equal(c.allocs, 3);
    assert_true(((uintptr_t)tensor_data(x) & 63) == 0);
    assert_true(c.live_bytes >= 2 * 30 * 40 * 4 + 30 * 4);
    /* growing a storage: the new block from the hook, the old one back to it */
    tensor_t *r = tensor_zeros(1, (int64_t[]){4}, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_resize_(r, 1, (int64_t[]){100000}), TENSOR_OK);
    assert_int_equal(c.allocs, 5);
    assert_int_equal(c.frees, 1);
    tensor_release(r);
    /* a storage made before the switch goes back to the default allocator */
    tensor_release(before);
    assert_int_equal(c.frees, 2);
    /* back to the default: storages made by the hook are still freed by it */
    assert_int_equal(tensor_set_host_allocator(NULL), TENSOR_OK);
    assert_null(tensor_get_host_allocator().ctx);
    tensor_t *z = tensor_ones(1, (int64_t[]){10}, TENSOR_INT64, tensor_cpu());
    assert_int_equal(c.allocs, 5);
    tensor_release(x);
    tensor_release(s);
    tensor_release(y);
    tensor_release(z);
    assert_int_equal(c.frees, c.allocs);
    assert_int_equal(c.live_bytes, 0);
}

static void test_failing_and_bad_allocators(void **state) {
    (void)state;
    counting c = {0, 0, 1, 0};
    tensor_allocator a = {c_alloc, c_free, &c};
    assert_int_equal(tensor_set_host_allocator(&a), TENSOR_OK);
    tensor_t *x = tensor_empty(1, (int64_t[]){1000}, TENSOR_FLOAT32, tensor_cpu());
    assert_null(x);
    assert_error(TENSOR_ERR_OUT_OF_MEMORY, "tensor_empty");
    /* memory the kernels could not use (not 64-byte aligned) is given back and refused */
    tensor_allocator m = {misaligned_alloc, misaligned_free, NULL};
    assert_int_equal(tensor_set_host_allocator(&m), TENSOR_OK);
    assert_null(tensor_ones(1, (int64_t[]){10}, TENSOR_FLOAT32, tensor_cpu()));
    assert_error(TENSOR_ERR_OUT_OF_MEMORY, "tensor_ones");
    tensor_allocator bad = {c_alloc, NULL, &c};
    assert_int_equal(tensor_set_host_allocator(&bad), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_set_host_allocator: argument 'a' has a NULL free");
    assert_ptr_equal(tensor_get_host_allocator().alloc, misaligned_alloc); /* unchanged */
    assert_int_equal(tensor_set_host_allocator(NULL), TENSOR_OK);
    tensor_t *ok = tensor_ones(1, (int64_t[]){10}, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(ok);
    tensor_release(ok);
}

/* ---- the device allocator hook: what can be checked without a GPU (tests/cuda/
 * test_cuda_allocator.c runs it on one; tests/runtime/test_block_cache.c its bookkeeping) ---- */

static void *d_alloc(void *ctx, int device, size_t n, size_t alignment, void *stream) {
    (void)device;
    (void)stream;
    counting *c = ctx;
    c->allocs++;
    return aligned_alloc(alignment, n);
}
static void d_free(void *ctx, int device, void *p, size_t n, void *stream) {
    (void)device;
    (void)n;
    (void)stream;
    counting *c = ctx;
    c->frees++;
    free(p);
}

static void test_device_allocator_setter(void **state) {
    (void)state;
    counting c = {0, 0, 0, 0};
    /* the default is the caching allocator, shown as all NULL */
    tensor_device_allocator def = tensor_get_device_allocator();
    assert_null(def.alloc);
    assert_null(def.free);
    /* half an allocator is refused whatever the build, and changes nothing */
    tensor_device_allocator half = {d_alloc, NULL, &c};
    assert_int_equal(tensor_set_device_allocator(&half), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_set_device_allocator: argument 'a' has a NULL free");
    half = (tensor_device_allocator){NULL, d_free, &c};
    assert_int_equal(tensor_set_device_allocator(&half), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_set_device_allocator: argument 'a' has a NULL alloc");
    assert_null(tensor_get_device_allocator().alloc);
    tensor_device_allocator mine = {d_alloc, d_free, &c};
#if TENSOR_HAVE_CUDA
    assert_int_equal(tensor_set_device_allocator(&mine), TENSOR_OK);
    tensor_device_allocator got = tensor_get_device_allocator();
    assert_ptr_equal(got.alloc, d_alloc);
    assert_ptr_equal(got.free, d_free);
    assert_ptr_equal(got.ctx, &c);
    if (tensor_cuda_device_count() == 0) {
        /* no device: the allocation is refused before the user's allocator is asked */
        assert_null(tensor_empty(1, (int64_t[]){4}, TENSOR_FLOAT32, tensor_cuda(0)));
        assert_error(TENSOR_ERR_DEVICE, "tensor_empty");
        assert_int_equal(c.allocs, 0);
    }
    /* the saved default (all NULL) restores the caching allocator */
    assert_int_equal(tensor_set_device_allocator(&def), TENSOR_OK);
    assert_null(tensor_get_device_allocator().alloc);
#else
    /* no CUDA, no device memory: a user allocator is refused rather than silently unused */
    assert_int_equal(tensor_set_device_allocator(&mine), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "tensor_set_device_allocator: tinytensor was built without CUDA");
    assert_null(tensor_get_device_allocator().alloc);
    /* restoring the default always works, so cleanup code need not know the build */
    assert_int_equal(tensor_set_device_allocator(&def), TENSOR_OK);
#endif
    assert_int_equal(tensor_set_device_allocator(NULL), TENSOR_OK);
    assert_null(tensor_get_device_allocator().alloc);
    /* CPU tensors never touch it */
    tensor_t *x = tensor_ones(1, (int64_t[]){10}, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(x);
    tensor_release(x);
    assert_int_equal(c.allocs, 0);
    assert_int_equal(c.frees, 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_storages_come_from_the_hook),
    cmocka_unit_test(test_failing_and_bad_allocators),
    cmocka_unit_test(test_device_allocator_setter),
};

TENSOR_TEST_GROUP(allocator, tests, NULL, NULL)
