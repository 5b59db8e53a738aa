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

#include "test_main.h"

#if TENSOR_HAVE_CUDA
#include "cuda/reduce_host.h"
#endif

TENSOR_TEST_NEEDS_GPU()

static uint64_t rng(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Floats uniform in [-1, 1) (rounded to the dtype), integers over their whole range, bool 0/1. */
static tensor_t *random_cpu(int ndim, const int64_t *sizes, tensor_dtype dt, uint64_t seed) {
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= sizes[d];
    size_t es = tensor_dtype_size(dt);
    unsigned char *buf = malloc((size_t)(n > 0 ? n : 1) * es);
    assert_non_null(buf);
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = rng(&seed);
        void *p = buf + (size_t)i * es;
        if (tensor_dtype_is_floating(dt))
            tensor_dtype_store_double(dt, p, (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0);
        else if (dt == TENSOR_BOOL)
            *(unsigned char *)p = (unsigned char)(r & 1);
        else
            memcpy(p, &r, es);
    }
    tensor_t *t = tensor_from_buffer(buf, ndim, sizes, dt, tensor_cpu());
    free(buf);
    assert_non_null(t);
    return t;
}

static void *download(const tensor_t *t, size_t *nbytes) {
    size_t n = (size_t)tensor_numel(t) * tensor_dtype_size(tensor_get_dtype(t));
    void *p = malloc(n ? n : 1);
    assert_non_null(p);
    if (tensor_to_buffer(t, p, n) != TENSOR_OK) fail_msg("to_buffer: %s", tensor_last_error());
    if (nbytes) *nbytes = n;
    return p;
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
    tensor_t *gb = tensor_to_device(cb, tensor_cuda(0));
    assert_non_null(gb);
    tensor_t *ci = view_of(cb, view), *gi = view_of(gb, view);
    assert_non_null(ci);
    assert_non_null(gi);
    tensor_t *cr = run_op(op, ci, dims, ndims);
    if (cr == NULL) fail_msg("cpu %s: %s", op_names[op], tensor_last_error());
    tensor_t *gr = run_op(op, gi, dims, ndims);
    if (gr == NULL) fail_msg("cuda %s (%s): %s", op_names[op], tensor_dtype_name(dt), tensor_last_error());
    tensor_dtype odt = tensor_get_dtype(cr);
    assert_int_equal(odt, tensor_get_dtype(gr));
    assert_int_equal(tensor_numel(cr), tensor_numel(gr));
    int64_t terms = tensor_numel(ci) / (tensor_numel(cr) > 0 ? tensor_numel(cr) : 1);
    void *a = download(cr, NULL), *b = download(gr, NULL);
    size_t es = tensor_dtype_size(odt);
    double eps_acc = odt == TENSOR_FLOAT64 ? 2.3e-16 : 1.2e-7;
    double eps_out = odt == TENSOR_FLOAT16 ? 9.8e-4 : odt == TENSOR_BFLOAT16 ? 7.9e-3 : eps_acc;
    for (int64_t i = 0; i < tensor_numel(cr); i++) {
        const char *pa = (const char *)a + (size_t)i * es, *pb = (const char *)b + (size_t)i * es;
        if (!tensor_dtype_is_floating(odt) || op == P_AMAX) {
            if (memcmp(pa, pb, es) != 0)
                fail_msg("%s %s [%lld x ...], output %lld (%lld terms): cpu %.17g, cuda %.17g", tensor_dtype_name(dt),
                         op_names[op], (long long)sizes[0], (long long)i, (long long)terms,
                         tensor_dtype_load_double(odt, pa), tensor_dtype_load_double(odt, pb));
        } else {
            double x = tensor_dtype_load_double(odt, pa), y = tensor_dtype_load_double(odt, pb);
            double tol = 4.0 * eps_acc * (double)(op == P_MEAN ? 16 : terms) + 2.0 * eps_out * fabs(x) + 1e-30;
            if (!(fabs(x - y) <= tol))
                fail_msg("%s %s [%lld x ...], output %lld (%lld terms): cpu %.9g, cuda %.9g", tensor_dtype_name(dt),
                         op_names[op], (long long)sizes[0], (long long)i, (long long)terms, x, y);
        }
    }
    free(a);
    free(b);
    tensor_release(cr);
    tensor_release(gr);
    tensor_release(ci);
    tensor_release(gi);
    tensor_release(cb);
    tensor_release(gb);
}

static bool quick(void) {
    const char *q = getenv("TENSOR_TEST_QUICK");
    return q != NULL && q[0] == '1';
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
    const int64_t rows = quick() ? 515 : 4099;
    for (int k = 0; k < NUM_DTS; k++) {
        if (quick() && k >= 4) break;
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
    const int64_t rows = quick() ? 20011 : 200003;
    for (int k = 0; k < NUM_DTS; k++) {
        if (quick() && k >= 4) break;
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
        if (quick() && k >= 2) break;
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
 * 1000 rows of 8192 (the benchmark's inner_1000x8192), rows no longer 16-byte aligned (the
 * element path), an odd row count and length, every dtype width; other functors through it. */
static void test_inner_split(void **state) {
    (void)state;
    const int d1 = 1;
    const int64_t bench[2] = {1000, 8192}, odd[2] = {257, 4099}, deep[3] = {3, 129, 4096};
    for (int k = 0; k < NUM_DTS; k++) {
        if (quick() && k >= 2) break;
        check(P_SUM, 2, bench, dts[k], &d1, 1, 0, 850 + k);
        check(P_SUM, 2, bench, dts[k], &d1, 1, 1, 860 + k); /* rows of 8191: unaligned */
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
                  rows8k[2] = {1000, 8192};
    const struct {
        const int64_t *s;
        const int *dim;
        tensor_dtype dt;
    } cases[] = {{rows32, &d1, TENSOR_FLOAT32},  {rows7, &d1, TENSOR_FLOAT32},   {col64, &d0, TENSOR_FLOAT32},
                 {col64, &d0, TENSOR_FLOAT16},   {rows32, &d1, TENSOR_BFLOAT16}, {gdb, &d0, TENSOR_FLOAT32},
                 {rows8k, &d1, TENSOR_FLOAT32}};
    for (int c = 0; c < (int)(sizeof cases / sizeof cases[0]); c++) {
        tensor_t *cpu = random_cpu(2, cases[c].s, cases[c].dt, 900 + c);
        tensor_t *g = tensor_to_device(cpu, tensor_cuda(0));
        assert_non_null(g);
        void *first = NULL;
        size_t n0 = 0;
        for (int run = 0; run < 4; run++) {
            tensor_t *r = tensor_sum_dims(g, cases[c].dim, 1, false, TENSOR_DTYPE_DEFAULT);
            if (r == NULL) fail_msg("cuda sum: %s", tensor_last_error());
            size_t n = 0;
            void *bytes = download(r, &n);
            if (first == NULL) {
                first = bytes;
                n0 = n;
            } else {
                assert_int_equal(n, n0);
                assert_memory_equal(first, bytes, n);
                free(bytes);
            }
            tensor_release(r);
        }
        free(first);
        tensor_release(g);
        tensor_release(cpu);
    }
}

/* Last: the semaphores and cached blocks go back, for compute-sanitizer's leak check. */
static void test_paths_release_scratch(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    tensor_cuda_reduce_release_scratch();
#endif
    assert_int_equal(tensor_cuda_empty_cache(), TENSOR_OK);
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
