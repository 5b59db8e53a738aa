/* CUDA reductions (cuda/reduce_kernel.cuh, the instances of cuda/reduce_table.h) against the CPU backend: the
 * same random input summed on both, for shapes around vector, warp and block edges, inner /
 * outer / middle / all-dims reductions, transposed, narrowed (unaligned) and expanded inputs,
 * every dtype the CUDA sum instantiates, and run-to-run bitwise equality. Needs a GPU: without
 * one the executable exits 77 (skipped).
 *
 * Floats are compared within a bound that follows the accumulator's epsilon times the number
 * of terms (both backends are "a sum" in a different order); integers exactly. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_reduce_util.h"

TENSOR_TEST_NEEDS_GPU()

/* A contiguous CPU tensor with fresh random values (ct_store_uniform). */
static tensor_t *random_cpu(int ndim, const int64_t *sizes, tensor_dtype dt, uint64_t seed) {
    return ct_random_cpu(ndim, sizes, dt, seed, ct_store_uniform, 0);
}

static void check_op(op_kind op, int ndim, const int64_t *sizes, tensor_dtype dt, const int *dims, int ndims,
                     bool keepdim, view_kind view, int64_t expand_to, uint64_t seed);

/* Sums the same input on CPU and CUDA and compares. dims NULL = all dims. */
static void check_sum(int ndim, const int64_t *sizes, tensor_dtype dt, const int *dims, int ndims, bool keepdim,
                      view_kind view, int64_t expand_to, uint64_t seed) {
    check_op(OP_SUM, ndim, sizes, dt, dims, ndims, keepdim, view, expand_to, seed);
}

static void check_op(op_kind op, int ndim, const int64_t *sizes, tensor_dtype dt, const int *dims, int ndims,
                     bool keepdim, view_kind view, int64_t expand_to, uint64_t seed) {
    tensor_t *cpu_base = random_cpu(ndim, sizes, dt, seed);
    tensor_t *gpu_base = ct_to_gpu(cpu_base);
    tensor_t *ci = ct_make_view(cpu_base, view, expand_to), *gi = ct_make_view(gpu_base, view, expand_to);
    assert_non_null(ci);
    assert_non_null(gi);
    const op_spec spec = {op, 0, 0};
    tensor_t *cr[2], *gr[2];
    cr_run(&spec, ci, dims, ndims, keepdim, cr);
    if (cr[0] == NULL) fail_msg("cpu %s: %s", cr_op_names[op], tensor_last_error());
    cr_run(&spec, gi, dims, ndims, keepdim, gr);
    if (gr[0] == NULL) fail_msg("cuda %s (%s): %s", cr_op_names[op], tensor_dtype_name(dt), tensor_last_error());
    char what[64];
    snprintf(what, sizeof what, "%s %s", tensor_dtype_name(dt), cr_op_names[op]);
    cr_compare_sum(ci, cr[0], gr[0], op == OP_AMAX || op == OP_AMIN, op == OP_MEAN, what);
    tensor_release(cr[0]);
    tensor_release(gr[0]);
    tensor_release(ci);
    tensor_release(gi);
    tensor_release(cpu_base);
    tensor_release(gpu_base);
}

static const tensor_dtype sum_dtypes[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT16, TENSOR_BFLOAT16,
                                          TENSOR_FLOAT8_E4M3FN, TENSOR_FLOAT8_E5M2, TENSOR_BOOL, TENSOR_UINT8,
                                          TENSOR_INT8, TENSOR_INT16, TENSOR_INT32, TENSOR_INT64};
#define NUM_SUM_DTYPES ((int)(sizeof sum_dtypes / sizeof sum_dtypes[0]))
/* Four dtypes under TENSOR_TEST_QUICK (ct_quick). */
static bool skip_dtype(tensor_dtype dt) {
    return ct_quick() && !(dt == TENSOR_FLOAT32 || dt == TENSOR_FLOAT16 || dt == TENSOR_INT8 || dt == TENSOR_FLOAT64);
}

static const int64_t edges[] = {1, 3, 31, 32, 33, 127, 128, 129, 4095, 4097};
#define NUM_EDGES ((int)(sizeof edges / sizeof edges[0]))

/* Full sums of 1-D tensors of every edge length, plus long ones (global reduce). */
static void test_full_sums(void **state) {
    (void)state;
    for (int k = 0; k < NUM_SUM_DTYPES; k++) {
        if (skip_dtype(sum_dtypes[k])) continue;
        for (int e = 0; e < NUM_EDGES; e++) check_sum(1, &edges[e], sum_dtypes[k], NULL, 0, false, V_NONE, 0, 11 + e);
        const int64_t big[] = {(1 << 20) + 3, 3 << 20};
        for (int e = 0; e < (ct_quick() ? 1 : 2); e++) check_sum(1, &big[e], sum_dtypes[k], NULL, 0, false, V_NONE, 0, 97 + e);
    }
}

/* Inner (dim 1) and outer (dim 0) sums of 2-D tensors over edge sizes, and all dims. */
static void test_inner_outer(void **state) {
    (void)state;
    const int d0 = 0, d1 = 1;
    for (int k = 0; k < NUM_SUM_DTYPES; k++) {
        if (skip_dtype(sum_dtypes[k])) continue;
        for (int a = 0; a < NUM_EDGES; a += 2) {
            for (int b = 1; b < NUM_EDGES; b += 2) {
                if (edges[a] * edges[b] > (ct_quick() ? (1 << 16) : (1 << 20))) continue; /* keeps the sanitizer runs short */
                int64_t s[2] = {edges[a], edges[b]};
                check_sum(2, s, sum_dtypes[k], &d1, 1, false, V_NONE, 0, 1000 + a * 16 + b);
                check_sum(2, s, sum_dtypes[k], &d0, 1, true, V_NONE, 0, 2000 + a * 16 + b);
                int64_t t[2] = {edges[b], edges[a]};
                check_sum(2, t, sum_dtypes[k], &d1, 1, false, V_NONE, 0, 3000 + a * 16 + b);
                check_sum(2, t, sum_dtypes[k], &d0, 1, false, V_NONE, 0, 4000 + a * 16 + b);
            }
        }
        int64_t s[2] = {129, 4097};
        check_sum(2, s, sum_dtypes[k], NULL, 0, false, V_NONE, 0, 5000 + k);
    }
}

/* Many outputs with few inputs each, few outputs with many inputs (global reduce), both ways. */
static void test_shapes_extreme(void **state) {
    (void)state;
    const int d0 = 0, d1 = 1;
    const int64_t many_out[2] = {200003, 3}, few_out[2] = {2, 1 << 21}, wide[2] = {1 << 17, 64};
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_INT8, TENSOR_FLOAT64, TENSOR_INT64};
    for (int k = 0; k < 5; k++) {
        check_sum(2, many_out, dts[k], &d1, 1, false, V_NONE, 0, 1 + k);
        check_sum(2, many_out, dts[k], &d0, 1, false, V_NONE, 0, 2 + k);
        check_sum(2, few_out, dts[k], &d1, 1, false, V_NONE, 0, 3 + k);
        check_sum(2, few_out, dts[k], &d0, 1, false, V_NONE, 0, 4 + k);
        check_sum(2, wide, dts[k], &d0, 1, false, V_NONE, 0, 5 + k); /* outer, global reduce */
    }
}

/* 3-D: middle dim, first + last dims (two reduced dims: the input offset calculator). */
static void test_middle_and_multi(void **state) {
    (void)state;
    const int mid = 1, outer2[2] = {0, 2}, inner2[2] = {1, 2};
    const int64_t s[3] = {17, 129, 65}, s2[4] = {16, 128, 64, 128};
    for (int k = 0; k < NUM_SUM_DTYPES; k++) {
        if (skip_dtype(sum_dtypes[k])) continue;
        check_sum(3, s, sum_dtypes[k], &mid, 1, true, V_NONE, 0, 10 + k);
        check_sum(3, s, sum_dtypes[k], outer2, 2, false, V_NONE, 0, 20 + k);
        check_sum(3, s, sum_dtypes[k], inner2, 2, false, V_NONE, 0, 30 + k);
    }
    check_sum(4, s2, TENSOR_FLOAT32, &mid, 1, true, V_NONE, 0, 40); /* the [16, 128, 64, 128] sum over dim 1 */
}

/* Transposed, narrowed by one element (unaligned base: the vector path's head), expanded. */
static void test_views(void **state) {
    (void)state;
    const int d0 = 0, d1 = 1;
    const int64_t sq[2] = {129, 257}, vec1[1] = {4097}, rows[2] = {65, 1001}, bc[2] = {1, 333};
    for (int k = 0; k < NUM_SUM_DTYPES; k++) {
        tensor_dtype dt = sum_dtypes[k];
        if (skip_dtype(dt)) continue;
        check_sum(2, sq, dt, &d0, 1, false, V_TRANSPOSE, 0, 1);
        check_sum(2, sq, dt, &d1, 1, false, V_TRANSPOSE, 0, 2);
        check_sum(1, vec1, dt, NULL, 0, false, V_NARROW0, 0, 3);
        check_sum(2, rows, dt, &d1, 1, false, V_NARROW_LAST, 0, 4);
        check_sum(2, rows, dt, &d0, 1, false, V_NARROW_LAST, 0, 5);
        check_sum(2, rows, dt, &d1, 1, false, V_NARROW0, 0, 6);
        check_sum(2, bc, dt, &d0, 1, false, V_EXPAND0, 500, 7);
        check_sum(2, bc, dt, &d1, 1, false, V_EXPAND0, 500, 8);
        check_sum(2, bc, dt, NULL, 0, false, V_EXPAND0, 4099, 9);
    }
}

/* Same input, same device: the same bits every run (no float atomics; the semaphores reset). */
static void test_bitwise_reproducible(void **state) {
    (void)state;
    const int d0 = 0, d1 = 1;
    const int64_t full[1] = {(1 << 22) + 5}, col[2] = {1 << 16, 96}, row[2] = {3, 1 << 20};
    struct {
        int ndim;
        const int64_t *sizes;
        const int *dims;
        int ndims;
    } cases[] = {{1, full, NULL, 0}, {2, col, &d0, 1}, {2, row, &d1, 1}};
    for (int c = 0; c < 3; c++) {
        for (int k = 0; k < 3; k++) {
            tensor_dtype dt = k == 0 ? TENSOR_FLOAT32 : k == 1 ? TENSOR_BFLOAT16 : TENSOR_FLOAT64;
            tensor_t *cpu = random_cpu(cases[c].ndim, cases[c].sizes, dt, 77 + c);
            tensor_t *g = ct_to_gpu(cpu);
            ct_assert_sum_reproducible(g, cases[c].dims, cases[c].ndims, 5);
            tensor_release(g);
            tensor_release(cpu);
        }
    }
}

/* prod, amax, amin, mean: the same engine with another functor, over a subset of the
 * shapes (inner, outer, strided, multi-dim, unaligned, global reduce) and every dtype. */
static void test_other_ops(void **state) {
    (void)state;
    const int d0 = 0, d1 = 1, outer2[2] = {0, 2};
    const int64_t s2[2] = {129, 4097}, s3[3] = {17, 129, 65}, big[1] = {(1 << 20) + 3}, rows[2] = {65, 1001},
                  col[2] = {1 << 16, 8};
    for (int op = OP_NANSUM; op <= OP_MEAN; op++) {
        for (int k = 0; k < NUM_SUM_DTYPES; k++) {
            tensor_dtype dt = sum_dtypes[k];
            if (skip_dtype(dt)) continue;
            if (op == OP_MEAN && !tensor_dtype_is_floating(dt)) continue; /* mean of integers is an error */
            check_op((op_kind)op, 2, s2, dt, &d1, 1, false, V_NONE, 0, 1);
            check_op((op_kind)op, 2, s2, dt, &d0, 1, false, V_NONE, 0, 2);
            check_op((op_kind)op, 2, s2, dt, &d0, 1, false, V_TRANSPOSE, 0, 3);
            check_op((op_kind)op, 2, rows, dt, &d1, 1, false, V_NARROW_LAST, 0, 4);
            check_op((op_kind)op, 2, col, dt, &d0, 1, false, V_NONE, 0, 5);
            check_op((op_kind)op, 1, big, dt, NULL, 0, false, V_NONE, 0, 6);
            if (op != OP_PROD) check_op((op_kind)op, 3, s3, dt, outer2, 2, false, V_NONE, 0, 7);
        }
    }
}

/* Iterators beyond 32-bit offsets are split into pieces that accumulate (in the output, or in
 * an accumulation buffer for 16-bit and narrow integer outputs). The engine's limit is lowered
 * here so that small tensors take that path: splits along reduced dims (accumulate /
 * final_output), along kept dims, and both. */
static void test_split_pieces(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    const int d0 = 0, d1 = 1, outer2[2] = {0, 2};
    const int64_t s2[2] = {129, 4097}, s3[3] = {17, 129, 65}, big[1] = {(1 << 20) + 3}, col[2] = {1 << 14, 8};
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_INT8, TENSOR_FLOAT64,
                                TENSOR_FLOAT8_E4M3FN, TENSOR_INT32};
    const int64_t limits[] = {1 << 16, 40000, 5000};
    for (int l = 0; l < (ct_quick() ? 1 : 3); l++) {
        tensor_cuda_reduce_index_limit = limits[l];
        for (int k = 0; k < 7; k++) {
            tensor_dtype dt = dts[k];
            if (skip_dtype(dt)) continue;
            check_op(OP_SUM, 2, s2, dt, &d1, 1, false, V_NONE, 0, 1);
            check_op(OP_SUM, 2, s2, dt, &d0, 1, false, V_NONE, 0, 2);
            check_op(OP_SUM, 2, s2, dt, &d0, 1, true, V_TRANSPOSE, 0, 3);
            check_op(OP_SUM, 3, s3, dt, outer2, 2, false, V_NONE, 0, 4);
            check_op(OP_SUM, 1, big, dt, NULL, 0, false, V_NONE, 0, 5);
            check_op(OP_SUM, 2, col, dt, &d0, 1, false, V_NONE, 0, 6);
            check_op(OP_AMAX, 2, s2, dt, &d1, 1, false, V_NONE, 0, 7);
            check_op(OP_AMIN, 2, s2, dt, &d0, 1, false, V_NONE, 0, 8);
            check_op(OP_PROD, 2, s2, dt, &d1, 1, false, V_NONE, 0, 9);
            if (tensor_dtype_is_floating(dt)) { /* the divisor is the whole count, not a piece's */
                check_op(OP_MEAN, 1, big, dt, NULL, 0, false, V_NONE, 0, 10);
                check_op(OP_MEAN, 2, s2, dt, &d1, 1, false, V_NONE, 0, 11);
            }
        }
    }
    tensor_cuda_reduce_index_limit = INT64_C(2147483647);
#endif
}

/* Real > 2^31 cases (skipped in quick mode): 2^29 + 5 float32 (2 GiB + 20 B) and 2^31 + 7
 * int8 elements, summed in full; references accumulated here while generating (double /
 * int64), independent of the CPU backend. */
static void test_split_large(void **state) {
    (void)state;
    if (ct_quick()) return;
    {
        const int64_t n = (INT64_C(1) << 29) + 5;
        float *buf = malloc((size_t)n * sizeof(float));
        assert_non_null(buf);
        uint64_t seed = 4242;
        double ref = 0, abs_sum = 0;
        for (int64_t i = 0; i < n; i++) {
            float v = (float)((double)(ct_rng(&seed) >> 40) / 16777216.0 * 2.0 - 1.0);
            buf[i] = v;
            ref += v;
            abs_sum += fabs(v);
        }
        tensor_t *g = tensor_from_buffer(buf, 1, &n, TENSOR_FLOAT32, tensor_cuda(0));
        free(buf);
        assert_non_null(g);
        tensor_t *r = tensor_sum_dims(g, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        if (r == NULL) fail_msg("cuda sum: %s", tensor_last_error());
        float got;
        assert_int_equal(tensor_to_buffer(r, &got, sizeof got), TENSOR_OK);
        if (!(fabs((double)got - ref) <= 1e-6 * abs_sum)) fail_msg("float32 2^29+5: cuda %.9g, ref %.9g", got, ref);
        tensor_release(r);
        tensor_release(g);
    }
    {
        const int64_t n = (INT64_C(1) << 31) + 7;
        int8_t *buf = malloc((size_t)n);
        assert_non_null(buf);
        uint64_t seed = 99;
        int64_t ref = 0;
        for (int64_t i = 0; i < n; i += 8) {
            uint64_t r = ct_rng(&seed);
            for (int64_t j = 0; j < 8 && i + j < n; j++) {
                buf[i + j] = (int8_t)(uint8_t)(r >> (8 * j));
                ref += buf[i + j];
            }
        }
        tensor_t *g = tensor_from_buffer(buf, 1, &n, TENSOR_INT8, tensor_cuda(0));
        free(buf);
        assert_non_null(g);
        tensor_t *r = tensor_sum_dims(g, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
        if (r == NULL) fail_msg("cuda sum: %s", tensor_last_error());
        int64_t got;
        assert_int_equal(tensor_to_buffer(r, &got, sizeof got), TENSOR_OK);
        assert_int_equal(got, ref);
        tensor_release(r);
        tensor_release(g);
    }
}

/* An output dtype other than the default (sum(float32, dtype=float64)) is instantiated: the
 * input converts while loading (test_cuda_reduce_cast.c covers every pair). */
static void test_not_instantiated(void **state) {
    (void)state;
    const int64_t s[1] = {100};
    tensor_t *cpu = random_cpu(1, s, TENSOR_FLOAT32, 5);
    tensor_t *g = ct_to_gpu(cpu);
    tensor_t *r = tensor_sum_dims(g, NULL, 0, false, TENSOR_FLOAT64);
    if (r == NULL) fail_msg("cuda sum(float32, dtype=float64): %s", tensor_last_error());
    tensor_t *rc = tensor_sum_dims(cpu, NULL, 0, false, TENSOR_FLOAT64);
    assert_non_null(rc);
    double a, b;
    assert_int_equal(tensor_to_buffer(r, &a, sizeof a), TENSOR_OK);
    assert_int_equal(tensor_to_buffer(rc, &b, sizeof b), TENSOR_OK);
    assert_true(fabs(a - b) <= 1e-12);
    tensor_release(r);
    tensor_release(rc);
    tensor_release(g);
    tensor_release(cpu);
}

/* Last: gives back the engine's persistent semaphore buffers and the cached blocks, so that
 * compute-sanitizer's leak check sees nothing left. */
static void test_release_scratch(void **state) {
    (void)state;
    assert_int_equal(ct_release_cached(), TENSOR_OK);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_full_sums),         cmocka_unit_test(test_inner_outer),
    cmocka_unit_test(test_shapes_extreme),    cmocka_unit_test(test_middle_and_multi),
    cmocka_unit_test(test_views),             cmocka_unit_test(test_bitwise_reproducible),
    cmocka_unit_test(test_other_ops),         cmocka_unit_test(test_split_pieces),
    cmocka_unit_test(test_split_large),       cmocka_unit_test(test_not_instantiated),  cmocka_unit_test(test_release_scratch),
};

TENSOR_TEST_GROUP(cuda_reduce, tests, NULL, NULL)
