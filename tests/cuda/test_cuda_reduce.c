/* CUDA reductions (cuda/reduce_kernel.cuh, cuda/reduce_ops.cu) against the CPU backend: the
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

static bool is_float_dtype(tensor_dtype d) { return tensor_dtype_is_floating(d); }

/* A contiguous CPU tensor with fresh random values: floats uniform in [-1, 1) (rounded to the
 * dtype), integers over their whole range (int64: wrapping sums compare exactly), bool 0/1. */
static tensor_t *random_cpu(int ndim, const int64_t *sizes, tensor_dtype dt, uint64_t seed) {
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= sizes[d];
    size_t es = tensor_dtype_size(dt);
    unsigned char *buf = malloc((size_t)(n > 0 ? n : 1) * es);
    assert_non_null(buf);
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = rng(&seed);
        void *p = buf + (size_t)i * es;
        if (is_float_dtype(dt))
            tensor_dtype_store_double(dt, p, (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0);
        else if (dt == TENSOR_BOOL)
            *(unsigned char *)p = (unsigned char)(r & 1);
        else
            memcpy(p, &r, es); /* little-endian: the low bytes, any value of the type */
    }
    tensor_t *t = tensor_from_buffer(buf, ndim, sizes, dt, tensor_cpu());
    free(buf);
    assert_non_null(t);
    return t;
}

static void *download(const tensor_t *t) {
    size_t n = (size_t)tensor_numel(t) * tensor_dtype_size(tensor_get_dtype(t));
    void *p = malloc(n ? n : 1);
    assert_non_null(p);
    if (tensor_to_buffer(t, p, n) != TENSOR_OK) fail_msg("to_buffer: %s", tensor_last_error());
    return p;
}

/* Relative bound for a float sum of `terms` values of magnitude <= 1 accumulated in the
 * dtype's accumulator, plus the rounding of the result to the output dtype. */
static double float_tol(tensor_dtype out, int64_t terms, double ref) {
    double eps_acc = out == TENSOR_FLOAT64 ? 2.3e-16 : 1.2e-7;
    double eps_out = out == TENSOR_FLOAT16 ? 9.8e-4 : out == TENSOR_BFLOAT16 ? 7.9e-3 : eps_acc;
    return 4.0 * eps_acc * (double)terms + 2.0 * eps_out * fabs(ref) + 1e-30;
}

/* A view of `base` (same storage layout on either device) picked by `view`. */
typedef enum { V_NONE, V_TRANSPOSE, V_NARROW0, V_NARROW_LAST, V_EXPAND0 } view_kind;

static tensor_t *make_view(const tensor_t *base, view_kind v, int64_t expand_to) {
    int nd = tensor_ndim(base);
    switch (v) {
    case V_TRANSPOSE: return tensor_transpose(base, 0, nd - 1);
    case V_NARROW0: return tensor_narrow(base, 0, 1, tensor_size(base, 0) - 1);
    case V_NARROW_LAST: return tensor_narrow(base, nd - 1, 1, tensor_size(base, nd - 1) - 1);
    case V_EXPAND0: {
        int64_t sizes[TENSOR_MAX_DIMS];
        for (int d = 0; d < nd; d++) sizes[d] = tensor_size(base, d);
        sizes[0] = expand_to; /* base has size 1 on dim 0 */
        return tensor_expand(base, nd, sizes);
    }
    default: {
        tensor_t *t = (tensor_t *)base;
        tensor_retain(t);
        return t;
    }
    }
}

typedef enum { OP_SUM, OP_NANSUM, OP_PROD, OP_AMAX, OP_AMIN, OP_MEAN } op_kind;
static const char *const op_names[] = {"sum", "nansum", "prod", "amax", "amin", "mean"};

static tensor_t *run_op(op_kind op, const tensor_t *t, const int *dims, int ndims, bool keepdim) {
    switch (op) {
    case OP_NANSUM: return tensor_nansum(t, dims, ndims, keepdim, TENSOR_DTYPE_DEFAULT);
    case OP_PROD: return tensor_prod(t, ndims ? dims : NULL, keepdim, TENSOR_DTYPE_DEFAULT);
    case OP_AMAX: return tensor_amax(t, dims, ndims, keepdim);
    case OP_AMIN: return tensor_amin(t, dims, ndims, keepdim);
    case OP_MEAN: return tensor_mean(t, dims, ndims, keepdim, TENSOR_DTYPE_DEFAULT);
    default: return tensor_sum_dims(t, dims, ndims, keepdim, TENSOR_DTYPE_DEFAULT);
    }
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
    tensor_t *gpu_base = tensor_to_device(cpu_base, tensor_cuda(0));
    assert_non_null(gpu_base);
    tensor_t *ci = make_view(cpu_base, view, expand_to), *gi = make_view(gpu_base, view, expand_to);
    assert_non_null(ci);
    assert_non_null(gi);
    tensor_t *cr = run_op(op, ci, dims, ndims, keepdim);
    if (cr == NULL) fail_msg("cpu %s: %s", op_names[op], tensor_last_error());
    tensor_t *gr = run_op(op, gi, dims, ndims, keepdim);
    if (gr == NULL) fail_msg("cuda %s (%s): %s", op_names[op], tensor_dtype_name(dt), tensor_last_error());
    tensor_dtype odt = tensor_get_dtype(cr);
    assert_int_equal(odt, tensor_get_dtype(gr));
    assert_int_equal(tensor_numel(cr), tensor_numel(gr));
    int64_t terms = tensor_numel(ci) / (tensor_numel(cr) > 0 ? tensor_numel(cr) : 1);
    void *a = download(cr), *b = download(gr);
    size_t es = tensor_dtype_size(odt);
    for (int64_t i = 0; i < tensor_numel(cr); i++) {
        const char *pa = (const char *)a + (size_t)i * es, *pb = (const char *)b + (size_t)i * es;
        if (!is_float_dtype(odt) || op == OP_AMAX || op == OP_AMIN) {
            /* integers, and extremes of any dtype: exact */
            if (memcmp(pa, pb, es) != 0)
                fail_msg("%s %s, output %lld of %lld (%lld terms): cpu %.17g, cuda %.17g", tensor_dtype_name(dt),
                         op_names[op], (long long)i, (long long)tensor_numel(cr), (long long)terms,
                         tensor_dtype_load_double(odt, pa), tensor_dtype_load_double(odt, pb));
        } else {
            double x = tensor_dtype_load_double(odt, pa), y = tensor_dtype_load_double(odt, pb);
            /* a product of values in [-1, 1) only shrinks: the sum's bound is loose enough */
            /* mean: the sum's error divided by the count, so a tight absolute bound (a wrong
             * divisor is caught) */
            double tol = op == OP_MEAN ? float_tol(odt, 16, x) : float_tol(odt, terms, x);
            if (!(fabs(x - y) <= tol))
                fail_msg("%s %s, output %lld of %lld (%lld terms): cpu %.9g, cuda %.9g", tensor_dtype_name(dt),
                         op_names[op], (long long)i, (long long)tensor_numel(cr), (long long)terms, x, y);
        }
    }
    free(a);
    free(b);
    tensor_release(cr);
    tensor_release(gr);
    tensor_release(ci);
    tensor_release(gi);
    tensor_release(cpu_base);
    tensor_release(gpu_base);
}

static const tensor_dtype sum_dtypes[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT16, TENSOR_BFLOAT16,
                                          TENSOR_FLOAT8_E4M3FN, TENSOR_FLOAT8_E5M2, TENSOR_BOOL, TENSOR_UINT8,
                                          TENSOR_INT8, TENSOR_INT16, TENSOR_INT32, TENSOR_INT64};
#define NUM_SUM_DTYPES ((int)(sizeof sum_dtypes / sizeof sum_dtypes[0]))
/* TENSOR_TEST_QUICK=1 (scripts/device.sh sets it for the compute-sanitizer runs, which are
 * 10-100x slower): four dtypes and smaller shapes. */
static bool quick(void) {
    const char *q = getenv("TENSOR_TEST_QUICK");
    return q != NULL && q[0] == '1';
}
static bool skip_dtype(tensor_dtype dt) {
    return quick() && !(dt == TENSOR_FLOAT32 || dt == TENSOR_FLOAT16 || dt == TENSOR_INT8 || dt == TENSOR_FLOAT64);
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
        for (int e = 0; e < (quick() ? 1 : 2); e++) check_sum(1, &big[e], sum_dtypes[k], NULL, 0, false, V_NONE, 0, 97 + e);
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
                if (edges[a] * edges[b] > (quick() ? (1 << 16) : (1 << 20))) continue; /* keeps the sanitizer runs short */
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
    check_sum(4, s2, TENSOR_FLOAT32, &mid, 1, true, V_NONE, 0, 40); /* design.md §2's example */
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
            tensor_t *g = tensor_to_device(cpu, tensor_cuda(0));
            assert_non_null(g);
            void *first = NULL;
            size_t nb = 0;
            for (int run = 0; run < 5; run++) {
                tensor_t *r = tensor_sum_dims(g, cases[c].dims, cases[c].ndims, false, TENSOR_DTYPE_DEFAULT);
                if (r == NULL) fail_msg("cuda sum: %s", tensor_last_error());
                void *bytes = download(r);
                nb = (size_t)tensor_numel(r) * tensor_dtype_size(tensor_get_dtype(r));
                if (first == NULL) first = bytes;
                else {
                    assert_memory_equal(first, bytes, nb);
                    free(bytes);
                }
                tensor_release(r);
            }
            free(first);
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
            if (op == OP_MEAN && !is_float_dtype(dt)) continue; /* mean of integers is an error */
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
    for (int l = 0; l < (quick() ? 1 : 3); l++) {
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
            if (is_float_dtype(dt)) { /* the divisor is the whole count, not a piece's */
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
    if (quick()) return;
    {
        const int64_t n = (INT64_C(1) << 29) + 5;
        float *buf = malloc((size_t)n * sizeof(float));
        assert_non_null(buf);
        uint64_t seed = 4242;
        double ref = 0, abs_sum = 0;
        for (int64_t i = 0; i < n; i++) {
            float v = (float)((double)(rng(&seed) >> 40) / 16777216.0 * 2.0 - 1.0);
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
            uint64_t r = rng(&seed);
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
    tensor_t *g = tensor_to_device(cpu, tensor_cuda(0));
    assert_non_null(g);
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
#if TENSOR_HAVE_CUDA
    tensor_cuda_reduce_release_scratch();
#endif
    assert_int_equal(tensor_cuda_empty_cache(), TENSOR_OK);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_full_sums),         cmocka_unit_test(test_inner_outer),
    cmocka_unit_test(test_shapes_extreme),    cmocka_unit_test(test_middle_and_multi),
    cmocka_unit_test(test_views),             cmocka_unit_test(test_bitwise_reproducible),
    cmocka_unit_test(test_other_ops),         cmocka_unit_test(test_split_pieces),
    cmocka_unit_test(test_split_large),       cmocka_unit_test(test_not_instantiated),  cmocka_unit_test(test_release_scratch),
};

TENSOR_TEST_GROUP(cuda_reduce, tests, NULL, NULL)
