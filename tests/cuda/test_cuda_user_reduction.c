/* User reductions and tensor_vecdot on CUDA tensors: vecdot (a product then a sum on CUDA for
 * now) equals the CPU's fused one; a registered reduction refuses a CUDA tensor cleanly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "cuda_test_util.h"
#include "ops/reduction_kit.h"

TENSOR_TEST_NEEDS_GPU()

static float zero(void) { return 0.0f; }
static float first(const float *x) { return x[0]; }
static float add(float a, float b) { return a + b; }
static float done(float a, int64_t n) { return (void)n, a; }
TENSOR_REDUCTION_FNS(sum_fns, 1, float, float, zero, first, add, add, done)

static void test_vecdot_matches_cpu(void **state) {
    (void)state;
    const int64_t sa[2] = {300, 1000}, sb[1] = {1000};
    tensor_t *a = tensor_rand(2, sa, 5, TENSOR_FLOAT32, tensor_cpu()), *b = tensor_rand(1, sb, 6, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *ga = ct_to_gpu(a), *gb = ct_to_gpu(b);
    for (int dim = -1; dim <= 1; dim += 2) { /* the last dim, by its negative and positive index */
        tensor_t *c = tensor_vecdot(a, b, dim);
        tensor_t *g = tensor_vecdot(ga, gb, dim);
        if (g == NULL) fail_msg("vecdot on CUDA: %s", tensor_last_error());
        ct_assert_same_shape(g, c, "vecdot");
        float *x = ct_download(g), *y = ct_download(c);
        for (int64_t i = 0; i < tensor_numel(c); i++)
            if (!(fabsf(x[i] - y[i]) <= 1e-4f * (1.0f + fabsf(y[i])))) fail_msg("vecdot %lld: %g vs %g", (long long)i, x[i], y[i]);
        free(x);
        free(y);
        tensor_release(c);
        tensor_release(g);
    }
    tensor_release(ga);
    tensor_release(gb);
    tensor_release(a);
    tensor_release(b);
}

static void test_user_reduction_refuses_cuda(void **state) {
    (void)state;
    tensor_reduction_def d = {"cuda_test_sum", 1, sizeof(float), TENSOR_REDUCTION_DTYPE_SUM, true, {{0}}, NULL};
    d.fns[TENSOR_REDUCTION_F32] = sum_fns;
    tensor_reduction *r = tensor_reduction_register(&d);
    assert_non_null(r);
    tensor_t *g = tensor_ones(1, (int64_t[]){8}, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(g);
    const tensor_t *in[1] = {g};
    assert_null(tensor_reduce(r, in, 1, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_NOT_IMPLEMENTED);
    assert_non_null(strstr(tensor_last_error(), "not implemented for CUDA"));
    tensor_release(g);
    assert_int_equal(tensor_reduction_release(r), TENSOR_OK);
}

/* The caching allocator's segments go back to the device, so memcheck's leak check sees only
 * real leaks. */
static int release_cached(void **state) {
    (void)state;
    return ct_release_cached() == TENSOR_OK ? 0 : -1;
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_vecdot_matches_cpu),
    cmocka_unit_test(test_user_reduction_refuses_cuda),
};

TENSOR_TEST_GROUP(cuda_user_reduction, tests, NULL, release_cached)
