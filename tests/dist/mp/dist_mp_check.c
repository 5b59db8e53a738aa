/* The dist module with one rank per process: run it through scripts/dist-launch.sh, which
 * starts one process per GPU with the environment tensor_comm_init_env reads. Each rank runs the
 * checks of tests/dist/dist_check.h (every collective, every sharded reduction against the
 * unsharded op on its own GPU), then checks that every replicated result is the same bytes on
 * every rank. Exit 0 when this rank passed, 77 when there is no GPU or no NCCL (unless
 * TENSOR_TEST_REQUIRE_NCCL=1), 1 on the first failure (the launcher stops the other ranks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tinytensor.h"

static int my_rank = -1;
#define dc_fail(...)                                                                               \
    do {                                                                                           \
        fprintf(stderr, "rank %d: FAIL: ", my_rank);                                               \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fprintf(stderr, "\n");                                                                     \
        exit(1);                                                                                   \
    } while (0)
#include "../dist_check.h"

/* Every rank's copy of the replicated result y, all-gathered as bytes, must equal this rank's. */
static void same_on_every_rank(tensor_comm_t *c, const tensor_dtensor_t *y, const char *what) {
    tensor_t *mine = tensor_dtensor_local(y, 0);
    int64_t nbytes = tensor_numel(mine) * (int64_t)tensor_dtype_size(tensor_get_dtype(mine));
    tensor_t *flat = tensor_contiguous(mine);
    tensor_t *bytes = tensor_from_blob(tensor_data(flat), 1, &nbytes, NULL, TENSOR_UINT8, tensor_get_device(flat), NULL, NULL);
    int64_t all_n = nbytes * tensor_comm_size(c);
    tensor_t *all = tensor_empty(1, &all_n, TENSOR_UINT8, tensor_get_device(flat));
    const tensor_t *ins[1] = {bytes};
    if (bytes == NULL || all == NULL || tensor_dist_all_gather(c, &all, ins) != TENSOR_OK)
        dc_fail("%s: all_gather: %s", what, tensor_last_error());
    size_t n;
    unsigned char *host = dc_bytes(all, &n);
    for (int r = 1; r < tensor_comm_size(c); r++)
        if (memcmp(host, host + (size_t)r * (size_t)nbytes, (size_t)nbytes) != 0)
            dc_fail("%s: rank %d's result differs from rank 0's", what, r);
    free(host);
    tensor_release(all);
    tensor_release(bytes);
    tensor_release(flat);
}

int main(void) {
    const char *req = getenv("TENSOR_TEST_REQUIRE_NCCL");
    bool require = req != NULL && req[0] == '1';
    if (tensor_cuda_device_count() == 0) {
        printf("dist_mp_check: no GPU: skipped\n");
        return 77;
    }
    int version = 0;
    if (tensor_nccl_version(&version) != TENSOR_OK) {
        printf("dist_mp_check: %s\n", tensor_last_error());
        return require ? 1 : 77;
    }
    tensor_comm_t *c = NULL;
    if (tensor_comm_init_env(&c) != TENSOR_OK) {
        fprintf(stderr, "dist_mp_check: %s\n", tensor_last_error());
        return 1;
    }
    my_rank = tensor_comm_rank(c, 0);
    int nranks = tensor_comm_size(c);
    printf("rank %d of %d on cuda:%d, NCCL %d\n", my_rank, nranks, tensor_comm_device(c, 0), version);

    dc_check_collectives(c, true);
    const tensor_dtype floats[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT16, TENSOR_BFLOAT16};
    const tensor_dtype ints[] = {TENSOR_INT64, TENSOR_INT32, TENSOR_UINT8, TENSOR_BOOL};
    dc_sweep(c, floats, 4, true);
    dc_sweep(c, ints, 4, true);

    /* Larger float32 data (multi-block local kernels), uneven slices out of rank order. */
    const int64_t sizes[2] = {4099 * nranks + 1, 129};
    tensor_t *g = tensor_randn(2, sizes, 42, TENSOR_FLOAT32, tensor_cpu());
    dc_tiling tl = dc_tile(sizes[0], nranks, true);
    tensor_t *full[1];
    tensor_dtensor_t *x = dc_shard(c, g, 0, &tl, full, true);
    const dc_red reds[] = {{DC_SUM, 0, {0}, false, 0},  {DC_MEAN, 1, {0}, false, 0},   {DC_VAR, 0, {0}, false, 1},
                           {DC_STD, 1, {0}, true, 1},   {DC_ARGMAX, 0, {0}, false, 0}, {DC_ARGMIN, 1, {0}, false, 0},
                           {DC_NORM, 0, {0}, false, 2}, {DC_LSE, 1, {0}, false, 0},    {DC_PROD, 1, {0}, false, 0}};
    for (size_t k = 0; k < sizeof reds / sizeof reds[0]; k++) {
        dc_check_one(&reds[k], x, full);
        tensor_dtensor_t *y = dc_dist(&reds[k], x);
        if (y == NULL) dc_fail("%s: %s", dc_op_names[reds[k].op], tensor_last_error());
        same_on_every_rank(c, y, dc_op_names[reds[k].op]);
        tensor_dtensor_release(y);
    }
    tensor_dtensor_t *whole = NULL;
    if (tensor_dtensor_gather(x, &whole) != TENSOR_OK) dc_fail("gather: %s", tensor_last_error());
    dc_compare(tensor_dtensor_local(whole, 0), g, true, "gather");
    tensor_dtensor_release(whole);
    tensor_dtensor_release(x);
    tensor_release(full[0]);
    tensor_release(g);

    if (tensor_cuda_synchronize() != TENSOR_OK) dc_fail("synchronize: %s", tensor_last_error());
    tensor_comm_release(c);
    printf("rank %d: PASS\n", my_rank);
    return 0;
}
