/* The collectives' semantics over the loopback transport (1 to 3 ranks on the CPU): the same
 * checks run over NCCL in tests/dist_nccl and tests/dist/mp. */
#include "test_main.h"
#define dc_fail(...) fail_msg(__VA_ARGS__)
#include "dist_check.h"
#include "dist/dist_internal.h"

static void test_collectives(void **state) {
    (void)state;
    for (int n = 1; n <= 3; n++) {
        tensor_comm_t *c = NULL;
        assert_int_equal(tt_comm_loopback(n, tensor_cpu(), &c), TENSOR_OK);
        dc_check_collectives(c, false);
        tensor_comm_release(c);
    }
}

/* Empty tensors move nothing and succeed. */
static void test_empty(void **state) {
    (void)state;
    tensor_comm_t *c = NULL;
    assert_int_equal(tt_comm_loopback(2, tensor_cpu(), &c), TENSOR_OK);
    int64_t zero = 0;
    tensor_t *a = tensor_empty(1, &zero, TENSOR_FLOAT32, tensor_cpu()), *b = tensor_empty(1, &zero, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *ab[2] = {a, b};
    assert_int_equal(tensor_dist_all_reduce(c, ab, TENSOR_DIST_SUM), TENSOR_OK);
    assert_int_equal(tensor_dist_broadcast(c, ab, 0), TENSOR_OK);
    assert_int_equal(tensor_dist_all_gather(c, ab, (const tensor_t *const *)ab), TENSOR_OK);
    assert_int_equal(tensor_dist_reduce_scatter(c, ab, (const tensor_t *const *)ab, TENSOR_DIST_MAX), TENSOR_OK);
    tensor_release(a);
    tensor_release(b);
    tensor_comm_release(c);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_collectives),
    cmocka_unit_test(test_empty),
};

TENSOR_TEST_GROUP(collectives, tests, NULL, NULL)
