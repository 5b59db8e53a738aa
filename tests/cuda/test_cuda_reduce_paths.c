/* The CUDA reduction paths where our plan departs from PyTorch's (cuda/reduce_config.c,
 * docs/cuda_reduce.md): the short-rows kernel (rows of up to 64 loads, 16-byte vectors when
 * every row is aligned, elements otherwise), the wide outer CTAs with their unrolled last-CTA
 * combine, warps splitting short columns and few moderate rows. Each against the CPU backend on fresh
 * random inputs, plus run-to-run bitwise equality. Needs a GPU (exit 77 without one). */
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

typedef enum { P_SUM, P_AMAX, P_MEAN } path_op;
static const char *const op_names[] = {"sum", "amax", "mean"};

static tensor_t *run_op(path_op op, const tensor_t *t, const int *dims, int ndims) {
    switch (op) {
    case P_AMAX: return tensor_amax(t, dims, ndims, false);
    case P_MEAN: return tensor_mean(t, dims, ndims, false, TENSOR_DTYPE_DEFAULT);
    default: return tensor_sum_dims(t, dims, ndims, false, TENSOR_DTYPE_DEFAULT);
    }
}

/* A view: 0 none, 1 narrow the last dim by one (rows no longer 16-byte aligned), 2 drop the
 * first row (base offset by one row). */
static tensor_t *view_of(const tensor_t *base, int view) {
    int nd = tensor_ndim(base);
    if (view == 1) return tensor_narrow(base, nd - 1, 0, tensor_size(base, nd - 1) - 1);
    if (view == 2) return tensor_narrow(base, 0, 1, tensor_size(base, 0) - 1);
    tensor_t *t = (tensor_t *)base;
    tensor_retain(t);
    return t;
}

/* CPU and CUDA on the same input; floats within eps_acc x terms (+ the output's rounding),
 * integers and extremes exactly. */
static void check(path_op op, int ndim, const int64_t *sizes, tensor_dtype dt, const int *dims, int ndims, int view,
                  uint64_t seed) {
    tensor_t *cb = random_cpu(ndim, sizes, dt, seed);
    tensor_t *gb = ct_to_gpu(cb);
    tensor_t *ci = view_of(cb, view), *gi = view_of(gb, view);
    assert_non_null(ci);
    assert_non_null(gi);
    tensor_t *cr = run_op(op, ci, dims, ndims);
    if (cr == NULL) fail_msg("cpu %s: %s", op_names[op], tensor_last_error());
    tensor_t *gr = run_op(op, gi, dims, ndims);
    if (gr == NULL) fail_msg("cuda %s (%s): %s", op_names[op], tensor_dtype_name(dt), tensor_last_error());
    char what[96];
    snprintf(what, sizeof what, "%s %s [%lld x ...]", tensor_dtype_name(dt), op_names[op], (long long)sizes[0]);
    cr_compare_sum(ci, cr, gr, op == P_AMAX, op == P_MEAN, what);
    tensor_release(cr);
    tensor_release(gr);
    tensor_release(ci);
    tensor_release(gi);
    tensor_release(cb);
    tensor_release(gb);
}

static const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_FLOAT64,
                                   TENSOR_INT8,    TENSOR_INT64,   TENSOR_BOOL,     TENSOR_FLOAT8_E4M3FN};
#define NUM_DTS ((int)(sizeof dts / sizeof dts[0]))

/* Row sums of short rows: every row length class (1 lane, partial lane groups, 16-byte vectors
 * of every dtype width, two passes of 32 lanes), row counts that leave the last CTA partly
 * empty, unaligned rows and bases, and a 3-D input whose kept dims coalesce. */
static void test_short_rows(void **state) {
    (void)state;
    const int d1 = 1, d2 = 2;
    const int64_t lens[] = {1, 2, 3, 7, 8, 16, 24, 32, 33, 64, 100, 128, 256};
    const int64_t rows = ct_quick() ? 515 : 4099;
    for (int k = 0; k < NUM_DTS; k++) {
        if (ct_quick() && k >= 4) break;
        for (int l = 0; l < (int)(sizeof lens / sizeof lens[0]); l++) {
            int64_t s[2] = {rows, lens[l]};
            check(P_SUM, 2, s, dts[k], &d1, 1, 0, 100 + l);
            if (lens[l] > 1) check(P_SUM, 2, s, dts[k], &d1, 1, 1, 200 + l);
            check(P_SUM, 2, s, dts[k], &d1, 1, 2, 300 + l);
        }
        const int64_t s3[3] = {33, 17, 32};
        check(P_SUM, 3, s3, dts[k], &d2, 1, 0, 400 + k);
    }
    /* Other functors through the same kernel. */
    const int64_t s[2] = {2051, 32}, s7[2] = {2051, 7};
    check(P_AMAX, 2, s, TENSOR_FLOAT32, &d1, 1, 0, 501);
    check(P_AMAX, 2, s7, TENSOR_INT8, &d1, 1, 0, 502);
    check(P_MEAN, 2, s, TENSOR_FLOAT16, &d1, 1, 0, 503);
    check(P_MEAN, 2, s7, TENSOR_FLOAT32, &d1, 1, 0, 504);
}

/* Column sums through a global reduce with the wide CTAs: column counts that give every output vector width, and row counts that
 * leave the CTAs' last values partial. */
static void test_outer_wide(void **state) {
    (void)state;
    const int d0 = 0;
    const int64_t cols[] = {3, 8, 12, 64, 136};
    const int64_t rows = ct_quick() ? 20011 : 200003;
    for (int k = 0; k < NUM_DTS; k++) {
        if (ct_quick() && k >= 4) break;
        for (int c = 0; c < (int)(sizeof cols / sizeof cols[0]); c++) {
            int64_t s[2] = {rows, cols[c]};
            check(P_SUM, 2, s, dts[k], &d0, 1, 0, 600 + c);
        }
    }
    const int64_t s[2] = {rows, 64}, sq[2] = {1024, 1024};
    check(P_AMAX, 2, s, TENSOR_FLOAT16, &d0, 1, 0, 701);
    check(P_MEAN, 2, s, TENSOR_BFLOAT16, &d0, 1, 0, 702);
    check(P_SUM, 2, sq, TENSOR_FLOAT16, &d0, 1, 2, 703); /* base one row in: still 16-byte aligned */
}

/* Short outer reductions planned with warps splitting each column (reduce_config.c,
 * split_height): the seed's [8,32,64,128] over dim 1, an odd column length, columns of
 * 4 and 8 (one round of loads per thread), an unaligned base; other functors through it. */
static void test_short_outer(void **state) {
    (void)state;
    const int d1 = 1;
    const int64_t seed[4] = {8, 32, 64, 128}, odd[3] = {16, 9, 8192}, four[3] = {64, 4, 4096}, eight[3] = {32, 8, 4100};
    for (int k = 0; k < NUM_DTS; k++) {
        if (ct_quick() && k >= 2) break;
        check(P_SUM, 4, seed, dts[k], &d1, 1, 0, 800 + k);
        check(P_SUM, 3, odd, dts[k], &d1, 1, 0, 810 + k);
        check(P_SUM, 3, four, dts[k], &d1, 1, 0, 820 + k);
        check(P_SUM, 3, eight, dts[k], &d1, 1, 1, 830 + k); /* rows of 4099: unaligned */
    }
    check(P_AMAX, 4, seed, TENSOR_FLOAT16, &d1, 1, 0, 841);
    check(P_MEAN, 3, odd, TENSOR_BFLOAT16, &d1, 1, 0, 842);
    check(P_AMAX, 3, eight, TENSOR_INT8, &d1, 1, 0, 843);
}

/* Few moderate rows planned with warps splitting each row (reduce_config.c, split_height):
 * 2000 rows of 4096 (2 warps a row), rows no longer 16-byte aligned, an odd row count and
 * length (4 warps a row), every dtype width; other functors through it. */
static void test_inner_split(void **state) {
    (void)state;
    const int d1 = 1;
    const int64_t bench[2] = {2000, 4096}, odd[2] = {257, 4099}, deep[3] = {3, 129, 4096};
    for (int k = 0; k < NUM_DTS; k++) {
        if (ct_quick() && k >= 2) break;
        check(P_SUM, 2, bench, dts[k], &d1, 1, 0, 850 + k);
        check(P_SUM, 2, bench, dts[k], &d1, 1, 1, 860 + k); /* rows of 4095: unaligned */
        check(P_SUM, 2, odd, dts[k], &d1, 1, 0, 870 + k);
    }
    const int d2 = 2;
    check(P_SUM, 3, deep, TENSOR_FLOAT32, &d2, 1, 2, 880);
    check(P_AMAX, 2, bench, TENSOR_FLOAT16, &d1, 1, 0, 881);
    check(P_MEAN, 2, odd, TENSOR_BFLOAT16, &d1, 1, 0, 882);
    check(P_AMAX, 2, bench, TENSOR_INT8, &d1, 1, 1, 883);
}

/* The same bits every run for the new paths too. */
static void test_paths_reproducible(void **state) {
    (void)state;
    const int d0 = 0, d1 = 1;
    const int64_t rows32[2] = {1 << 18, 32}, rows7[2] = {1 << 18, 7}, col64[2] = {1 << 18, 64}, gdb[2] = {32, 1 << 16},
                  rows4k[2] = {2000, 4096};
    const struct {
        const int64_t *s;
        const int *dim;
        tensor_dtype dt;
    } cases[] = {{rows32, &d1, TENSOR_FLOAT32},  {rows7, &d1, TENSOR_FLOAT32},   {col64, &d0, TENSOR_FLOAT32},
                 {col64, &d0, TENSOR_FLOAT16},   {rows32, &d1, TENSOR_BFLOAT16}, {gdb, &d0, TENSOR_FLOAT32},
                 {rows4k, &d1, TENSOR_FLOAT32}};
    for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
        tensor_t *cpu = random_cpu(2, cases[c].s, cases[c].dt, 900 + c);
        tensor_t *g = ct_to_gpu(cpu);
        ct_assert_sum_reproducible(g, cases[c].dim, 1, 4);
        tensor_release(g);
        tensor_release(cpu);
    }
}

/* Last: the semaphores and cached blocks go back, for compute-sanitizer's leak check. */
static void test_paths_release_scratch(void **state) {
    (void)state;
    assert_int_equal(ct_release_cached(), TENSOR_OK);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_short_rows),
    cmocka_unit_test(test_outer_wide),
    cmocka_unit_test(test_short_outer),
    cmocka_unit_test(test_inner_split),
    cmocka_unit_test(test_paths_reproducible),
    cmocka_unit_test(test_paths_release_scratch),
};

TENSOR_TEST_GROUP(cuda_reduce_paths, tests, NULL, NULL)
