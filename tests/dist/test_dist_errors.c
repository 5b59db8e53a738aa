/* Every error path of the dist module: NULL and bad arguments of each entry point, a build
 * without NCCL, collectives and dtensors that do not fit, and host allocations failing one at a
 * time (nothing leaks: the asan preset's LeakSanitizer watches these too). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#define dc_fail(...) fail_msg(__VA_ARGS__)
#include "dist_check.h"
#include "dist/dist_internal.h"
#include "runtime/alloc.h"

static tensor_comm_t *loopback(int n) {
    tensor_comm_t *c = NULL;
    if (tt_comm_loopback(n, tensor_cpu(), &c) != TENSOR_OK) fail_msg("loopback: %s", tensor_last_error());
    return c;
}

static tensor_t *vec(int64_t n, tensor_dtype dt) {
    tensor_t *t = tensor_zeros(1, &n, dt, tensor_cpu());
    assert_non_null(t);
    return t;
}

/* ---- a build without NCCL ---- */

static void test_without_nccl(void **state) {
    (void)state;
    if (tensor_nccl_is_built()) skip();
    tensor_comm_t *c = (tensor_comm_t *)&c;
    int v = 7;
    assert_int_equal(tensor_nccl_version(&v), TENSOR_ERR_NOT_IMPLEMENTED);
    assert_error(TENSOR_ERR_NOT_IMPLEMENTED, "tensor_nccl_version: tinytensor was built without NCCL");
    assert_int_equal(v, 0);
    assert_int_equal(tensor_comm_init_all(1, NULL, &c), TENSOR_ERR_NOT_IMPLEMENTED);
    assert_error(TENSOR_ERR_NOT_IMPLEMENTED, "tensor_comm_init_all: tinytensor was built without NCCL");
    assert_null(c);
    tensor_nccl_id id;
    assert_int_equal(tensor_nccl_get_unique_id(&id), TENSOR_ERR_NOT_IMPLEMENTED);
    assert_error(TENSOR_ERR_NOT_IMPLEMENTED, "tensor_nccl_get_unique_id: tinytensor was built without NCCL");
    memset(&id, 0, sizeof id);
    assert_int_equal(tensor_comm_init_rank(&id, 2, 0, 0, &c), TENSOR_ERR_NOT_IMPLEMENTED);
    assert_error(TENSOR_ERR_NOT_IMPLEMENTED, "tensor_comm_init_rank: tinytensor was built without NCCL");
    void *fake = &id;
    assert_int_equal(tensor_comm_from_nccl(1, &fake, &c), TENSOR_ERR_NOT_IMPLEMENTED);
    assert_error(TENSOR_ERR_NOT_IMPLEMENTED, "tensor_comm_from_nccl: tinytensor was built without NCCL");
    setenv("TENSOR_DIST_RANK", "0", 1);
    setenv("TENSOR_DIST_NRANKS", "1", 1);
    setenv("TENSOR_DIST_ID_FILE", "/nonexistent/id", 1);
    assert_int_equal(tensor_comm_init_env(&c), TENSOR_ERR_NOT_IMPLEMENTED);
    assert_error(TENSOR_ERR_NOT_IMPLEMENTED, "tensor_comm_init_env: tinytensor was built without NCCL");
    unsetenv("TENSOR_DIST_RANK");
    unsetenv("TENSOR_DIST_NRANKS");
    unsetenv("TENSOR_DIST_ID_FILE");
}

/* ---- communicators ---- */

static void test_comm_arguments(void **state) {
    (void)state;
    tensor_comm_t *c = NULL;
    assert_int_equal(tensor_comm_init_all(1, NULL, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_comm_init_all: argument 'out' is NULL");
    assert_int_equal(tensor_comm_init_all(0, NULL, &c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_comm_init_all: argument 'ndevices' is 0");
    assert_int_equal(tensor_nccl_version(NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_nccl_version: argument 'version' is NULL");
    assert_int_equal(tensor_nccl_get_unique_id(NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_nccl_get_unique_id: argument 'id' is NULL");
    tensor_nccl_id id;
    memset(&id, 0, sizeof id);
    assert_int_equal(tensor_comm_init_rank(NULL, 2, 0, 0, &c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_comm_init_rank: argument 'id' is NULL");
    assert_int_equal(tensor_comm_init_rank(&id, 2, 0, 0, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_comm_init_rank: argument 'out' is NULL");
    assert_int_equal(tensor_comm_init_rank(&id, 0, 0, 0, &c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_comm_init_rank: argument 'nranks' is 0");
    assert_int_equal(tensor_comm_init_rank(&id, 2, 2, 0, &c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_comm_init_rank: argument 'rank' is 2, outside [0, 2)");
    assert_int_equal(tensor_comm_init_rank(&id, 2, -1, 0, &c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_null(c);
    assert_int_equal(tensor_comm_from_nccl(1, NULL, &c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_comm_from_nccl: argument 'nccl_comms' is NULL");
    void *none[2] = {&id, NULL};
    assert_int_equal(tensor_comm_from_nccl(0, none, &c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_comm_from_nccl: argument 'ncomms' is 0");
    assert_int_equal(tensor_comm_from_nccl(2, none, &c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_comm_from_nccl: nccl_comms[1] is NULL");
    assert_int_equal(tensor_comm_from_nccl(1, none, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_comm_init_env(NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_comm_init_env: argument 'out' is NULL");
    tensor_comm_release(NULL);
    assert_null(tensor_comm_retain(NULL));
}

static void test_comm_env(void **state) {
    (void)state;
    tensor_comm_t *c = NULL;
    unsetenv("TENSOR_DIST_RANK");
    assert_int_equal(tensor_comm_init_env(&c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_comm_init_env: environment variable TENSOR_DIST_RANK is not set");
    setenv("TENSOR_DIST_RANK", "x1", 1);
    assert_int_equal(tensor_comm_init_env(&c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "TENSOR_DIST_RANK is \"x1\", not a count");
    setenv("TENSOR_DIST_RANK", "1", 1);
    setenv("TENSOR_DIST_NRANKS", "1", 1);
    assert_int_equal(tensor_comm_init_env(&c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "TENSOR_DIST_ID_FILE is not set");
    setenv("TENSOR_DIST_ID_FILE", "/nonexistent/id", 1);
    assert_int_equal(tensor_comm_init_env(&c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "TENSOR_DIST_RANK 1 is outside [0, TENSOR_DIST_NRANKS 1)");
    setenv("TENSOR_DIST_TIMEOUT", "-3", 1);
    assert_int_equal(tensor_comm_init_env(&c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "TENSOR_DIST_TIMEOUT is \"-3\"");
    assert_null(c);
    unsetenv("TENSOR_DIST_RANK");
    unsetenv("TENSOR_DIST_NRANKS");
    unsetenv("TENSOR_DIST_ID_FILE");
    unsetenv("TENSOR_DIST_TIMEOUT");
}

static void test_comm_accessors(void **state) {
    (void)state;
    tensor_comm_t *c = loopback(3);
    assert_int_equal(tensor_comm_size(c), 3);
    assert_int_equal(tensor_comm_local_count(c), 3);
    assert_int_equal(tensor_comm_rank(c, 2), 2);
    assert_int_equal(tensor_comm_rank(c, 3), -1);
    assert_error(TENSOR_ERR_INDEX, "tensor_comm_rank: local rank 3 is outside [0, 3)");
    assert_int_equal(tensor_comm_device(c, -1), -1);
    assert_error(TENSOR_ERR_INDEX, "tensor_comm_device: local rank -1 is outside [0, 3)");
    assert_null(tensor_comm_nccl(c, 0));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_comm_nccl: the communicator has no NCCL handle (loopback");
    assert_int_equal(tensor_comm_size(NULL), -1);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_comm_size: argument 'comm' is NULL");
    assert_int_equal(tensor_comm_local_count(NULL), -1);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_comm_local_count: argument 'comm' is NULL");
    assert_int_equal(tensor_comm_rank(NULL, 0), -1);
    assert_null(tensor_comm_nccl(NULL, 0));
    assert_ptr_equal(tensor_comm_retain(c), c);
    tensor_comm_release(c);
    tensor_comm_release(c);
    assert_int_equal(tt_comm_loopback(0, tensor_cpu(), &c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tt_comm_loopback(65, tensor_cpu(), &c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tt_comm_loopback(2, tensor_cuda(0), &c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tt_comm_loopback(1, tensor_cpu(), NULL), TENSOR_ERR_INVALID_ARGUMENT);
}

/* ---- collectives ---- */

static void test_collective_arguments(void **state) {
    (void)state;
    tensor_comm_t *c = loopback(2);
    tensor_t *a = vec(4, TENSOR_FLOAT32), *b = vec(4, TENSOR_FLOAT32), *i32 = vec(4, TENSOR_INT32),
             *short3 = vec(3, TENSOR_FLOAT32), *big = vec(8, TENSOR_FLOAT32), *big2 = vec(8, TENSOR_FLOAT32),
             *i16 = vec(4, TENSOR_INT16), *i16b = vec(4, TENSOR_INT16), *ib = vec(4, TENSOR_INT32);
    int64_t two[2] = {2, 2};
    tensor_t *sq = tensor_zeros(2, two, TENSOR_FLOAT32, tensor_cpu()), *tr = tensor_transpose(sq, 0, 1);
    tensor_t *pair[2] = {a, b};
    assert_int_equal(tensor_dist_all_reduce(NULL, pair, TENSOR_DIST_SUM), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dist_all_reduce: argument 'comm' is NULL");
    assert_int_equal(tensor_dist_all_reduce(c, NULL, TENSOR_DIST_SUM), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dist_all_reduce: argument 'tensors' is NULL");
    tensor_t *holes[2] = {a, NULL};
    assert_int_equal(tensor_dist_all_reduce(c, holes, TENSOR_DIST_SUM), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dist_all_reduce: tensors[1] is NULL");
    tensor_t *mixed[2] = {a, i32};
    assert_int_equal(tensor_dist_all_reduce(c, mixed, TENSOR_DIST_SUM), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "tensor_dist_all_reduce: tensors[1] is int32, tensors[0] is float32");
    tensor_t *uneven[2] = {a, short3};
    assert_int_equal(tensor_dist_all_reduce(c, uneven, TENSOR_DIST_SUM), TENSOR_ERR_SHAPE);
    assert_error(TENSOR_ERR_SHAPE, "tensor_dist_all_reduce: tensors[1] has 3 elements, tensors[0] 4");
    tensor_t *strided[2] = {tr, b};
    assert_int_equal(tensor_dist_all_reduce(c, strided, TENSOR_DIST_SUM), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dist_all_reduce: tensors[0] is not contiguous");
    assert_int_equal(tensor_dist_all_reduce(c, pair, (tensor_dist_op)9), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dist_all_reduce: argument 'op' is 9");
    tensor_t *ints[2] = {i32, ib};
    assert_int_equal(tensor_dist_all_reduce(c, ints, TENSOR_DIST_AVG), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "tensor_dist_all_reduce: TENSOR_DIST_AVG needs a floating dtype, got int32");
    tensor_t *shorts[2] = {i16, i16b};
    assert_int_equal(tensor_dist_all_reduce(c, shorts, TENSOR_DIST_SUM), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "cannot reduce int16");
    assert_int_equal(tensor_dist_broadcast(c, shorts, 2), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dist_broadcast: argument 'root' is 2, outside [0, 2)");
    assert_int_equal(tensor_dist_broadcast(NULL, shorts, 0), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_dist_broadcast(c, shorts, 1), TENSOR_OK); /* bytes: any dtype */

    tensor_t *outs[2] = {big, big2};
    const tensor_t *ins[2] = {a, b};
    assert_int_equal(tensor_dist_all_gather(NULL, outs, ins), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_dist_all_gather(c, NULL, ins), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dist_all_gather: argument 'outs' is NULL");
    assert_int_equal(tensor_dist_all_gather(c, outs, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dist_all_gather: argument 'ins' is NULL");
    tensor_t *small_outs[2] = {a, b};
    assert_int_equal(tensor_dist_all_gather(c, small_outs, ins), TENSOR_ERR_SHAPE);
    assert_error(TENSOR_ERR_SHAPE, "tensor_dist_all_gather: outs[0] has 4 elements, expected 2 ranks x 4");
    const tensor_t *int_ins[2] = {i32, ib};
    assert_int_equal(tensor_dist_all_gather(c, outs, int_ins), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "tensor_dist_all_gather: outs are float32, ins are int32");
    /* Overlap: rank 1's input at the start of its own output is not the in-place layout. */
    tensor_t *head = tensor_narrow(big2, 0, 0, 4), *tail = tensor_narrow(big2, 0, 4, 4);
    const tensor_t *bad_ins[2] = {a, head};
    assert_int_equal(tensor_dist_all_gather(c, outs, bad_ins), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "local rank 1's input and output overlap other than in place");
    const tensor_t *inplace_ins[2] = {a, tail};
    assert_int_equal(tensor_dist_all_gather(c, outs, inplace_ins), TENSOR_OK);
    assert_int_equal(tensor_dist_reduce_scatter(c, pair, (const tensor_t *const *)outs, TENSOR_DIST_SUM), TENSOR_OK);
    assert_int_equal(tensor_dist_reduce_scatter(c, pair, ins, TENSOR_DIST_SUM), TENSOR_ERR_SHAPE);
    assert_error(TENSOR_ERR_SHAPE, "tensor_dist_reduce_scatter: ins[0] has 4 elements, expected 2 ranks x 4");
    assert_int_equal(tensor_dist_reduce_scatter(c, pair, (const tensor_t *const *)outs, (tensor_dist_op)-1),
                     TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_dist_reduce_scatter(NULL, pair, ins, TENSOR_DIST_SUM), TENSOR_ERR_INVALID_ARGUMENT);

    tensor_release(head), tensor_release(tail);
    tensor_release(a), tensor_release(b), tensor_release(i32), tensor_release(short3), tensor_release(big);
    tensor_release(big2), tensor_release(i16), tensor_release(i16b), tensor_release(ib), tensor_release(sq);
    tensor_release(tr);
    tensor_comm_release(c);
}

/* ---- dtensors ---- */

static void test_dtensor_arguments(void **state) {
    (void)state;
    tensor_comm_t *c = loopback(2);
    int64_t s43[2] = {4, 3}, s33[2] = {3, 3}, s42[2] = {4, 2};
    tensor_t *a = tensor_zeros(2, s43, TENSOR_FLOAT32, tensor_cpu()), *b = tensor_zeros(2, s33, TENSOR_FLOAT32, tensor_cpu()),
             *i = tensor_zeros(2, s43, TENSOR_INT32, tensor_cpu()), *n = tensor_zeros(2, s42, TENSOR_FLOAT32, tensor_cpu()),
             *z = tensor_zeros(0, NULL, TENSOR_FLOAT32, tensor_cpu());
    tensor_dtensor_t *x = (tensor_dtensor_t *)&x;
    tensor_t *ab[2] = {a, b};
    assert_int_equal(tensor_dtensor_new(c, ab, 0, NULL, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dtensor_new: argument 'out' is NULL");
    assert_int_equal(tensor_dtensor_new(NULL, ab, 0, NULL, &x), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dtensor_new: argument 'comm' is NULL");
    assert_null(x);
    assert_int_equal(tensor_dtensor_new(c, NULL, 0, NULL, &x), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dtensor_new: argument 'locals' is NULL");
    tensor_t *hole[2] = {a, NULL};
    assert_int_equal(tensor_dtensor_new(c, hole, 0, NULL, &x), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dtensor_new: locals[1] is NULL");
    assert_int_equal(tensor_dtensor_new(c, ab, 2, NULL, &x), TENSOR_ERR_INDEX);
    assert_error(TENSOR_ERR_INDEX, "tensor_dtensor_new: argument 'dim' is 2, out of range for a tensor of 2 dims");
    tensor_t *scalars[2] = {z, z};
    assert_int_equal(tensor_dtensor_new(c, scalars, 0, NULL, &x), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dtensor_new: locals[0] is 0-d: nothing to shard");
    tensor_t *ai[2] = {a, i};
    assert_int_equal(tensor_dtensor_new(c, ai, 0, NULL, &x), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "tensor_dtensor_new: rank 1's shard is int32, rank 0's float32");
    tensor_t *an[2] = {a, n};
    assert_int_equal(tensor_dtensor_new(c, an, 0, NULL, &x), TENSOR_ERR_SHAPE);
    assert_error(TENSOR_ERR_SHAPE, "tensor_dtensor_new: rank 1's shard has size 2 on dim 1, rank 0's 3");
    assert_int_equal(tensor_dtensor_replicated(c, ab, &x), TENSOR_ERR_SHAPE);
    assert_error(TENSOR_ERR_SHAPE, "tensor_dtensor_replicated: rank 1's shard has size 3 on dim 0, rank 0's 4");
    /* Tilings: a gap, an overlap, a slice not at 0. */
    int64_t gap[2] = {0, 5}, overlap[2] = {0, 2}, late[2] = {3, 7}, good[2] = {3, 0};
    assert_int_equal(tensor_dtensor_new(c, ab, 0, gap, &x), TENSOR_ERR_SHAPE);
    assert_error(TENSOR_ERR_SHAPE, "tensor_dtensor_new: no rank's slice starts at 4 of dim 0: the slices must tile it");
    assert_int_equal(tensor_dtensor_new(c, ab, 0, overlap, &x), TENSOR_ERR_SHAPE);
    assert_int_equal(tensor_dtensor_new(c, ab, 0, late, &x), TENSOR_ERR_SHAPE);
    assert_error(TENSOR_ERR_SHAPE, "no rank's slice starts at 0 of dim 0");
    assert_null(x);
    tensor_t *empty = tensor_narrow(a, 0, 0, 0);
    tensor_t *ae[2] = {a, empty};
    assert_int_equal(tensor_dtensor_new(c, ae, 0, NULL, &x), TENSOR_ERR_SHAPE);
    assert_error(TENSOR_ERR_SHAPE, "tensor_dtensor_new: rank 1's slice of dim 0 is empty");
    assert_int_equal(tensor_dtensor_new(c, ab, 0, good, &x), TENSOR_OK);
    assert_int_equal(tensor_dtensor_offset(x, 0), 3);
    assert_int_equal(tensor_dtensor_sizes(x)[0], 7);

    /* Accessors. */
    assert_null(tensor_dtensor_local(x, 2));
    assert_error(TENSOR_ERR_INDEX, "tensor_dtensor_local: local rank 2 is outside [0, 2)");
    assert_int_equal(tensor_dtensor_offset(x, 2), -1);
    assert_error(TENSOR_ERR_INDEX, "tensor_dtensor_offset: rank 2 is outside [0, 2)");
    assert_int_equal(tensor_dtensor_length(x, -1), -1);
    assert_null(tensor_dtensor_local(NULL, 0));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dtensor_local: argument 'x' is NULL");
    assert_null(tensor_dtensor_comm(NULL));
    assert_int_equal(tensor_dtensor_dim(NULL), -1);
    assert_int_equal(tensor_dtensor_ndim(NULL), -1);
    assert_null(tensor_dtensor_sizes(NULL));
    assert_null(tensor_dtensor_retain(NULL));
    tensor_dtensor_release(NULL);
    tensor_dtensor_t *g = (tensor_dtensor_t *)&g;
    assert_int_equal(tensor_dtensor_gather(NULL, &g), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dtensor_gather: argument 'x' is NULL");
    assert_null(g);
    assert_int_equal(tensor_dtensor_gather(x, NULL), TENSOR_ERR_INVALID_ARGUMENT);

    /* Reductions: dims, var's correction, argmax on bool, mean on integers, the local op's errors. */
    int bad = 2, dup[2] = {1, -1}, d0 = 0;
    assert_null(tensor_dist_sum(NULL, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dist_sum: argument 'x' is NULL");
    assert_null(tensor_dist_sum(x, &bad, 1, false, TENSOR_DTYPE_DEFAULT));
    assert_error(TENSOR_ERR_INDEX, "tensor_dist_sum: Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    assert_null(tensor_dist_amax(x, dup, 2, false));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dist_amax: dim 1 appears multiple times in the list of dims");
    assert_null(tensor_dist_sum(x, &d0, 1, false, (tensor_dtype)99));
    assert_error(TENSOR_ERR_DTYPE, "tensor_dist_sum: unknown dtype 99");
    assert_null(tensor_dist_var(x, NAN, &d0, 1, false));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dist_var: correction must be finite, got nan");
    assert_null(tensor_dist_mean(x, &d0, 1, false, TENSOR_INT32));
    assert_error(TENSOR_ERR_DTYPE, "tensor_dist_mean: mean(): could not infer output dtype. Optional dtype must be");
    tensor_dtensor_release(x);

    tensor_t *ii[2] = {i, i};
    assert_int_equal(tensor_dtensor_new(c, ii, 0, NULL, &x), TENSOR_OK);
    assert_null(tensor_dist_mean(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_error(TENSOR_ERR_DTYPE, "tensor_dist_mean: mean(): could not infer output dtype. Input dtype must be");
    assert_null(tensor_dist_norm(x, 2.0, NULL, 0, false));
    assert_error(TENSOR_ERR_DTYPE, "tensor_dist_norm: tensor_norm:");
    assert_null(tensor_dist_var(x, 1.0, &d0, 1, false));
    assert_error(TENSOR_ERR_DTYPE, "tensor_dist_var: tensor_var_mean: std and var only support floating point");
    int d1 = 1;
    assert_null(tensor_dist_std(x, 1.0, &d1, 1, false)); /* the local path: the local op's own error */
    assert_error(TENSOR_ERR_DTYPE, "tensor_dist_std: tensor_std: std and var only support floating point");
    tensor_dtensor_release(x);
    tensor_t *bools[2] = {tensor_to_dtype(a, TENSOR_BOOL), NULL};
    bools[1] = bools[0];
    assert_int_equal(tensor_dtensor_new(c, bools, 1, NULL, &x), TENSOR_OK);
    assert_int_equal(tensor_dtensor_sizes(x)[1], 6);
    assert_null(tensor_dist_argmax(x, NULL, false));
    assert_error(TENSOR_ERR_DTYPE, "tensor_dist_argmax: argmax(): does not support bool input");
    assert_null(tensor_dist_argmin(x, &d1, true));
    assert_error(TENSOR_ERR_DTYPE, "tensor_dist_argmin: argmin(): does not support bool input");
    assert_null(tensor_dist_argmin(x, &d0, true)); /* local path */
    assert_error(TENSOR_ERR_DTYPE, "tensor_dist_argmin: tensor_argmin:");
    tensor_dtensor_release(x);
    tensor_release(bools[0]);

    tensor_release(empty);
    tensor_release(a), tensor_release(b), tensor_release(i), tensor_release(n), tensor_release(z);
    tensor_comm_release(c);
}

/* A rank whose own arguments are bad still takes part in the creation exchange, so every rank
 * fails: here local rank 1's shard is on another rank's slice table. */
static void test_dtensor_bad_rank_fails_all(void **state) {
    (void)state;
    tensor_comm_t *c = loopback(3);
    int64_t s[1] = {2};
    tensor_t *a = tensor_zeros(1, s, TENSOR_FLOAT32, tensor_cpu()), *z = tensor_zeros(0, NULL, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *locals[3] = {a, z, a};
    tensor_dtensor_t *x = NULL;
    assert_int_equal(tensor_dtensor_new(c, locals, 0, NULL, &x), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "locals[1] is 0-d");
    assert_null(x);
    tensor_release(a);
    tensor_release(z);
    tensor_comm_release(c);
}

/* The logical tensor must be a shape the library can hold: slices whose lengths add up past
 * int64 (expanded shards cost no memory), or whose logical element count overflows, are
 * refused on every rank instead of wrapping. */
static void test_dtensor_overflow(void **state) {
    (void)state;
    tensor_comm_t *c = loopback(2);
    int64_t one = 1, big = (int64_t)1 << 62;
    tensor_t *s = tensor_zeros(1, &one, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *e = tensor_expand(s, 1, &big);
    assert_non_null(e);
    tensor_t *ee[2] = {e, e};
    tensor_dtensor_t *x = (tensor_dtensor_t *)&x;
    assert_int_equal(tensor_dtensor_new(c, ee, 0, NULL, &x), TENSOR_ERR_OVERFLOW);
    assert_error(TENSOR_ERR_OVERFLOW, "tensor_dtensor_new: ");
    assert_null(x);
    int64_t offs[2] = {big, 0};
    assert_int_equal(tensor_dtensor_new(c, ee, 0, offs, &x), TENSOR_ERR_OVERFLOW);
    assert_null(x);
    /* Each shard [2^31, 2^31] fits; four of them along dim 0 make 2^64 elements. */
    tensor_comm_t *c4 = loopback(4);
    int64_t s11[2] = {1, 1}, b2[2] = {(int64_t)1 << 31, (int64_t)1 << 31};
    tensor_t *q = tensor_zeros(2, s11, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *e2 = tensor_expand(q, 2, b2);
    assert_non_null(e2);
    tensor_t *e4[4] = {e2, e2, e2, e2};
    assert_int_equal(tensor_dtensor_new(c4, e4, 0, NULL, &x), TENSOR_ERR_OVERFLOW);
    assert_error(TENSOR_ERR_OVERFLOW, "tensor_dtensor_new: ");
    assert_null(x);
    tensor_release(e2);
    tensor_release(q);
    tensor_release(e);
    tensor_release(s);
    tensor_comm_release(c4);
    tensor_comm_release(c);
}

/* Offsets are where the slices start: a negative one is an error, not "in rank order". */
static void test_dtensor_negative_offset(void **state) {
    (void)state;
    tensor_comm_t *c = loopback(2);
    int64_t s3 = 3, s4 = 4;
    tensor_t *a = tensor_zeros(1, &s3, TENSOR_FLOAT32, tensor_cpu()), *b = tensor_zeros(1, &s4, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *ab[2] = {a, b};
    tensor_dtensor_t *x = (tensor_dtensor_t *)&x;
    int64_t neg[2] = {-1, 3};
    assert_int_equal(tensor_dtensor_new(c, ab, 0, neg, &x), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dtensor_new: offsets[0] is -1");
    assert_null(x);
    int64_t neg1[2] = {0, -5};
    assert_int_equal(tensor_dtensor_new(c, ab, 0, neg1, &x), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dtensor_new: offsets[1] is -5");
    assert_null(x);
    tensor_release(a);
    tensor_release(b);
    tensor_comm_release(c);
}

/* ---- host allocations failing, one at a time ---- */

static tensor_status scenario(int64_t fail_at, bool *reached) {
    const int64_t sizes[3] = {5, 3, 2};
    tensor_t *g = dc_global(3, sizes, TENSOR_FLOAT32, 1);
    tensor_comm_t *c = loopback(2);
    tensor_t *shards[2] = {tensor_narrow(g, 1, 0, 1), tensor_narrow(g, 1, 1, 2)};
    assert_non_null(shards[0]);
    assert_non_null(shards[1]);
    tensor_dtensor_t *x = NULL, *y = NULL, *gathered = NULL;
    tt_fault_fail_nth_host_alloc(fail_at);
    int d1 = 1;
    tensor_status st = tensor_dtensor_new(c, shards, 1, NULL, &x);
    if (st == TENSOR_OK && (y = tensor_dist_sum(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT)) == NULL) st = tensor_last_status();
    tensor_dtensor_release(y);
    if (st == TENSOR_OK && (y = tensor_dist_var(x, 1.0, &d1, 1, true)) == NULL) st = tensor_last_status();
    tensor_dtensor_release(y);
    if (st == TENSOR_OK && (y = tensor_dist_argmax(x, NULL, false)) == NULL) st = tensor_last_status();
    tensor_dtensor_release(y);
    if (st == TENSOR_OK && (y = tensor_dist_mean(x, &d1, 1, false, TENSOR_DTYPE_DEFAULT)) == NULL) st = tensor_last_status();
    tensor_dtensor_release(y);
    if (st == TENSOR_OK) st = tensor_dtensor_gather(x, &gathered);
    *reached = tt_fault_host_allocs() >= fail_at;
    tt_fault_fail_nth_host_alloc(0);
    tensor_dtensor_release(gathered);
    tensor_dtensor_release(x);
    tensor_release(shards[0]);
    tensor_release(shards[1]);
    tensor_comm_release(c);
    tensor_release(g);
    return st;
}

static void test_alloc_faults(void **state) {
    (void)state;
    int64_t n = 1;
    for (;; n++) {
        bool reached = false;
        tensor_status st = scenario(n, &reached);
        if (st == TENSOR_OK) {
            assert_false(reached);
            break;
        }
        if (st != TENSOR_ERR_OUT_OF_MEMORY)
            fail_msg("allocation %lld failing gave %s (%s)", (long long)n, tensor_status_name(st), tensor_last_error());
        assert_true(tensor_last_error()[0] != '\0');
        assert_true(n < 100000);
    }
    assert_true(n > 20); /* the scenario allocates: the loop went through its failure points */
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_without_nccl),         cmocka_unit_test(test_comm_arguments),
    cmocka_unit_test(test_comm_env),             cmocka_unit_test(test_comm_accessors),
    cmocka_unit_test(test_collective_arguments), cmocka_unit_test(test_dtensor_arguments),
    cmocka_unit_test(test_dtensor_bad_rank_fails_all), cmocka_unit_test(test_dtensor_overflow),
    cmocka_unit_test(test_dtensor_negative_offset),    cmocka_unit_test(test_alloc_faults),
};

TENSOR_TEST_GROUP(errors, tests, NULL, NULL)
