/* The dist module over NCCL, one process driving every local GPU (ncclCommInitAll): with one
 * GPU a one-rank communicator (every path but the transfer), with two or more the real exchange.
 * The same checks as tests/dist's loopback run, against the unsharded op on each GPU. Needs a
 * GPU (exit 77 without one) and NCCL at run time (exit 77 with the loader's reason, unless
 * TENSOR_TEST_REQUIRE_NCCL=1 makes that a failure). */
#include <stdio.h>
#include <stdlib.h>

#include "test_main.h"

TENSOR_TEST_NEEDS_GPU()

/* A build without NCCL has no GPU either: the executable exits 77 before any group runs. */
#if TENSOR_HAVE_NCCL

#include <cuda_runtime_api.h>

#define dc_fail(...) fail_msg(__VA_ARGS__)
#include "../dist/dist_check.h"
#include "dist/dist_internal.h"
#include "cuda/reduce_host.h"

static tensor_comm_t *comm;

static int setup(void **state) {
    (void)state;
    int version = 0;
    if (tensor_nccl_version(&version) != TENSOR_OK) {
        const char *req = getenv("TENSOR_TEST_REQUIRE_NCCL");
        printf("test_dist_nccl: %s\n", tensor_last_error());
        if (req == NULL || req[0] != '1') exit(77);
        return -1;
    }
    int n = tensor_cuda_device_count();
    if (tensor_comm_init_all(n, NULL, &comm) != TENSOR_OK) {
        printf("test_dist_nccl: %s\n", tensor_last_error());
        return -1;
    }
    printf("test_dist_nccl: NCCL %d, %d GPU%s, one process\n", version, n, n == 1 ? "" : "s");
    return 0;
}

static int teardown(void **state) {
    (void)state;
    tensor_cuda_synchronize();
    tensor_comm_release(comm);
    comm = NULL;
    /* Our cached blocks and the reduction engine's scratch go back too, so that
     * compute-sanitizer's leak check at exit sees only what nobody freed. */
    tensor_cuda_reduce_release_scratch();
    tensor_cuda_empty_cache();
    return 0;
}

static const tensor_dtype float_dtypes[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT16, TENSOR_BFLOAT16};
static const tensor_dtype int_dtypes[] = {TENSOR_INT64, TENSOR_INT32, TENSOR_UINT8, TENSOR_BOOL};

static void test_comm(void **state) {
    (void)state;
    int n = tensor_cuda_device_count();
    assert_int_equal(tensor_comm_size(comm), n);
    assert_int_equal(tensor_comm_local_count(comm), n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(tensor_comm_rank(comm, i), i);
        assert_int_equal(tensor_comm_device(comm, i), i);
        assert_non_null(tensor_comm_nccl(comm, i));
    }
}

static void test_reductions_float(void **state) {
    (void)state;
    dc_sweep(comm, float_dtypes, 4, true);
}

static void test_reductions_int(void **state) {
    (void)state;
    dc_sweep(comm, int_dtypes, 4, true);
}

static void test_collectives(void **state) {
    (void)state;
    dc_check_collectives(comm, true);
}

/* Larger shards, so the local reductions take the multi-block paths of the CUDA engine. */
static void test_large(void **state) {
    (void)state;
    int n = tensor_comm_size(comm);
    const int64_t sizes[3] = {1024 * n + 3, 33, 40};
    for (int dim = 0; dim < 3; dim += 2) {
        tensor_t *g = dc_global(3, sizes, TENSOR_FLOAT32, 77 + (uint64_t)dim);
        dc_tiling tl = dc_tile(sizes[dim], n, dim == 2);
        tensor_t *full[64];
        tensor_dtensor_t *x = dc_shard(comm, g, dim, &tl, full, true);
        const dc_red reds[] = {{DC_SUM, 0, {0}, false, 0},    {DC_MEAN, 1, {dim}, true, 0}, {DC_VAR, 0, {0}, false, 1},
                               {DC_STD, 2, {dim, 1}, false, 0}, {DC_ARGMAX, 0, {0}, false, 0}, {DC_ARGMIN, 1, {dim}, false, 0},
                               {DC_NORM, 0, {0}, false, 2},   {DC_LSE, 1, {dim}, false, 0},  {DC_AMAX, 0, {0}, true, 0}};
        for (size_t k = 0; k < sizeof reds / sizeof reds[0]; k++) dc_check_one(&reds[k], x, full);
        tensor_dtensor_t *y = NULL;
        assert_int_equal(tensor_dtensor_gather(x, &y), TENSOR_OK);
        for (int i = 0; i < n; i++) dc_compare(tensor_dtensor_local(y, i), g, true, "gather");
        tensor_dtensor_release(y);
        tensor_dtensor_release(x);
        for (int i = 0; i < n; i++) tensor_release(full[i]);
        tensor_release(g);
    }
}

/* The caller's streams: the exchange is queued on each device's current stream. */
static void test_streams(void **state) {
    (void)state;
    int n = tensor_comm_size(comm);
    cudaStream_t streams[64];
    void *prev[64];
    for (int i = 0; i < n; i++) {
        assert_int_equal(cudaSetDevice(i), cudaSuccess);
        assert_int_equal(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking), cudaSuccess);
        assert_int_equal(tensor_cuda_exchange_stream(i, streams[i], &prev[i]), TENSOR_OK);
    }
    assert_int_equal(cudaSetDevice(0), cudaSuccess);
    dc_check_collectives(comm, true);
    const int64_t sizes[3] = {8 * n, 5, 4};
    tensor_t *g = dc_global(3, sizes, TENSOR_FLOAT32, 3);
    dc_tiling tl = dc_tile(sizes[0], n, false);
    tensor_t *full[64];
    tensor_dtensor_t *x = dc_shard(comm, g, 0, &tl, full, true);
    dc_check_all(x, full);
    tensor_dtensor_release(x);
    for (int i = 0; i < n; i++) {
        tensor_release(full[i]);
        assert_int_equal(cudaStreamSynchronize(streams[i]), cudaSuccess);
        assert_int_equal(tensor_cuda_set_stream(i, prev[i]), TENSOR_OK);
        assert_int_equal(cudaStreamDestroy(streams[i]), cudaSuccess);
    }
    tensor_release(g);
}

/* The caller's own ncclComm_t, wrapped (borrowed: the owner destroys it). */
static void test_from_nccl(void **state) {
    (void)state;
    int n = tensor_comm_size(comm);
    void *handles[64];
    for (int i = 0; i < n; i++) handles[i] = tensor_comm_nccl(comm, i);
    tensor_comm_t *w = NULL;
    assert_int_equal(tensor_comm_from_nccl(n, handles, &w), TENSOR_OK);
    assert_int_equal(tensor_comm_size(w), n);
    assert_ptr_equal(tensor_comm_nccl(w, n - 1), handles[n - 1]);
    const tensor_dtype dts[] = {TENSOR_FLOAT32};
    dc_sweep(w, dts, 1, true);
    tensor_comm_release(w);
    if (n > 1) {
        void *twice[2] = {handles[0], handles[0]};
        assert_int_equal(tensor_comm_from_nccl(2, twice, &w), TENSOR_ERR_INVALID_ARGUMENT);
        assert_error(TENSOR_ERR_INVALID_ARGUMENT, "are both rank 0");
    }
}

/* A shard on another rank's GPU, and a collective tensor on the wrong device. */
static void test_devices(void **state) {
    (void)state;
    int n = tensor_comm_size(comm);
    int64_t four = 4;
    tensor_t *cpu = tensor_zeros(1, &four, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *ts[64];
    for (int i = 0; i < n; i++) ts[i] = cpu;
    assert_int_equal(tensor_dist_all_reduce(comm, ts, TENSOR_DIST_SUM), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "tensor_dist_all_reduce: tensors[0] is on cpu, local rank 0's device is cuda:0");
    tensor_dtensor_t *x = NULL;
    assert_int_equal(tensor_dtensor_new(comm, ts, 0, NULL, &x), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "tensor_dtensor_new: locals[0] is on cpu");
    assert_null(x);
    tensor_release(cpu);
    int bad[2] = {0, 0};
    tensor_comm_t *c = NULL;
    assert_int_equal(tensor_comm_init_all(2, bad, &c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_comm_init_all: device cuda:0 appears twice in 'devices'");
    int missing = n;
    assert_int_equal(tensor_comm_init_all(1, &missing, &c), TENSOR_ERR_DEVICE);
    assert_null(c);
}

/* A one-rank loopback on a GPU: the transport's device copies. */
static void test_cuda_loopback(void **state) {
    (void)state;
    tensor_comm_t *c = NULL;
    assert_int_equal(tt_comm_loopback(1, tensor_cuda(0), &c), TENSOR_OK);
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_INT32};
    dc_sweep(c, dts, 2, true);
    tensor_comm_release(c);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_comm),        cmocka_unit_test(test_reductions_float), cmocka_unit_test(test_reductions_int),
    cmocka_unit_test(test_collectives), cmocka_unit_test(test_large),            cmocka_unit_test(test_streams),
    cmocka_unit_test(test_from_nccl),   cmocka_unit_test(test_devices),          cmocka_unit_test(test_cuda_loopback),
};

TENSOR_TEST_GROUP(nccl, tests, setup, teardown)

#endif
