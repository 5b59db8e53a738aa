/* Strided device copies (cuda/copy.cu, cuda/copy_cast.cu on the engine of cuda/loops.cuh):
 * tensor_contiguous / tensor_clone / tensor_to_dtype of CUDA views of every layout and every
 * dtype pair, against the same calls on the CPU (runtime/copy.c), bit for bit (NaNs compare as
 * NaNs: a payload may differ). Layouts: contiguous, transposed, narrowed (unaligned start),
 * sliced with a step, expanded (stride 0), 0-size, 0-d; lengths around the vector widths. Also a
 * copy that needs 32-bit splitting and the engine's error paths. Needs a GPU (exits 77). */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_test_util.h"

#if TENSOR_HAVE_CUDA
#include "cuda/cuda_backend.h"
#endif

TENSOR_TEST_NEEDS_GPU()

/* Values that exercise every conversion (a ct_store_fn): floats spread over many magnitudes
 * and signs (some beyond the narrow formats' ranges, some tiny), NaN, +-Inf, -0; integers
 * over the whole range of the type (int64 beyond 2^53 too). */
static void store_spread(tensor_dtype dt, void *p, uint64_t r, int mode) {
    (void)mode;
    if (tensor_dtype_is_floating(dt)) {
        double v;
        switch (r % 16) {
        case 0: v = NAN; break;
        case 1: v = (r & 16) ? INFINITY : -INFINITY; break;
        case 2: v = -0.0; break;
        default: {
            double m = (double)(r >> 11) / 9007199254740992.0 * 2.0 - 1.0;
            int e = (int)((r >> 4) % 48) - 24; /* 2^-24 .. 2^23: overflows float8, not float16 */
            v = ldexp(m, e);
        }
        }
        tensor_dtype_store_double(dt, p, v);
    } else {
        ct_store_uniform(dt, p, r, 0); /* bool 0/1; integers: the low bytes of r */
    }
}

static tensor_t *random_cpu(int ndim, const int64_t *sizes, tensor_dtype dt, uint64_t seed) {
    return ct_random_cpu(ndim, sizes, dt, seed, store_spread, 0);
}

/* Bitwise equal, except that two NaNs of a float dtype are equal whatever their payloads. */
static void assert_same(const tensor_t *cpu, const tensor_t *gpu, const char *what) {
    ct_assert_same_shape(cpu, gpu, what);
    assert_true(tensor_is_contiguous(gpu));
    tensor_dtype dt = tensor_get_dtype(cpu);
    size_t es = tensor_dtype_size(dt);
    unsigned char *a = ct_download(cpu), *b = ct_download(gpu);
    for (int64_t i = 0; i < tensor_numel(cpu); i++) {
        const unsigned char *pa = a + (size_t)i * es, *pb = b + (size_t)i * es;
        if (memcmp(pa, pb, es) == 0) continue;
        if (tensor_dtype_is_floating(dt)) {
            double x = tensor_dtype_load_double(dt, pa), y = tensor_dtype_load_double(dt, pb);
            if (x != x && y != y) continue;
            fail_msg("%s -> %s: element %lld: cpu %.17g, cuda %.17g", what, tensor_dtype_name(dt), (long long)i, x, y);
        }
        fail_msg("%s -> %s: element %lld: cpu %lld, cuda %lld", what, tensor_dtype_name(dt), (long long)i,
                 (long long)tensor_dtype_load_int64(dt, pa), (long long)tensor_dtype_load_int64(dt, pb));
    }
    free(a);
    free(b);
}

typedef enum { L_CONTIG, L_TRANSPOSE, L_NARROW, L_STEP, L_EXPAND_ROW, L_EXPAND_COL, L_EMPTY, L_ZERO_D, L_NUM } layout;
static const char *const layout_names[] = {"contiguous", "transposed", "narrowed", "stepped", "expanded row",
                                           "expanded column", "0-size", "0-d"};

/* A view of `base` ([rows, cols], or as documented) with the layout; the same call on CPU and
 * CUDA gives the same view. */
static tensor_t *make_view(const tensor_t *base, layout l, int64_t rows) {
    switch (l) {
    case L_TRANSPOSE: return tensor_transpose(base, 0, 1);
    case L_NARROW: return tensor_narrow(base, 1, 1, tensor_size(base, 1) - 1); /* rows start unaligned */
    case L_STEP: return tensor_slice(base, 1, 0, tensor_size(base, 1), 2);
    case L_EXPAND_ROW: { /* base [1, cols] -> [rows, cols], stride 0 on dim 0 */
        int64_t s[2] = {rows, tensor_size(base, 1)};
        return tensor_expand(base, 2, s);
    }
    case L_EXPAND_COL: { /* base [rows, 1] -> [rows, 5] */
        int64_t s[2] = {tensor_size(base, 0), 5};
        return tensor_expand(base, 2, s);
    }
    case L_EMPTY: return tensor_narrow(base, 0, 0, 0);
    default: return tensor_retain((tensor_t *)base);
    }
}

static tensor_t *view_of(const tensor_t *base, layout l, int64_t rows) {
    if (l != L_ZERO_D) return make_view(base, l, rows);
    tensor_t *row = tensor_select(base, 0, 0);
    assert_non_null(row);
    tensor_t *v = tensor_select(row, 0, tensor_size(row, 0) - 1);
    tensor_release(row);
    return v;
}

static void base_shape(layout l, int64_t rows, int64_t cols, int64_t s[2]) {
    s[0] = rows;
    s[1] = cols;
    if (l == L_EXPAND_ROW) s[0] = 1;
    if (l == L_EXPAND_COL) s[1] = 1;
}

/* One source dtype, one layout, one destination dtype: to_dtype (or clone when equal) on both
 * backends, compared. */
static void check_copy(tensor_dtype src, tensor_dtype dst, layout l, int64_t rows, int64_t cols, uint64_t seed) {
    int64_t s[2];
    base_shape(l, rows, cols, s);
    tensor_t *cb = random_cpu(2, s, src, seed);
    tensor_t *gb = ct_to_gpu(cb);
    tensor_t *cv = view_of(cb, l, rows), *gv = view_of(gb, l, rows);
    assert_non_null(cv);
    assert_non_null(gv);
    tensor_t *cr = src == dst ? tensor_clone(cv) : tensor_to_dtype(cv, dst);
    if (cr == NULL) fail_msg("cpu: %s", tensor_last_error());
    tensor_t *gr = src == dst ? tensor_clone(gv) : tensor_to_dtype(gv, dst);
    if (gr == NULL)
        fail_msg("cuda %s -> %s (%s): %s", tensor_dtype_name(src), tensor_dtype_name(dst), layout_names[l],
                 tensor_last_error());
    char what[96];
    snprintf(what, sizeof what, "%s %s [%lld, %lld]", tensor_dtype_name(src), layout_names[l], (long long)rows,
             (long long)cols);
    assert_same(cr, gr, what);
    tensor_release(cr);
    tensor_release(gr);
    tensor_release(cv);
    tensor_release(gv);
    tensor_release(cb);
    tensor_release(gb);
}

/* Every dtype pair, every layout, one odd shape (not a multiple of any vector width). */
static void test_all_pairs_all_layouts(void **state) {
    (void)state;
    uint64_t seed = 1;
    for (int a = 0; a < TENSOR_NUM_DTYPES; a++)
        for (int b = 0; b < TENSOR_NUM_DTYPES; b++) {
            if (ct_quick() && a != b && !(a == TENSOR_FLOAT32 && (b == TENSOR_BFLOAT16 || b == TENSOR_INT8))) continue;
            for (int l = 0; l < L_NUM; l++) check_copy((tensor_dtype)a, (tensor_dtype)b, (layout)l, 37, 29, seed++);
        }
}

/* Lengths around the vector widths (1, 2, 4, 8 elements) and the blocks (128 threads x 8-16
 * elements), contiguous and narrowed, for the dtype pairs with typed kernels and one without. */
static void test_edges(void **state) {
    (void)state;
    static const int64_t lens[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 1023, 1024, 1025, 2048, 2049, 4103};
    static const tensor_dtype pairs[][2] = {{TENSOR_FLOAT32, TENSOR_FLOAT32}, {TENSOR_FLOAT16, TENSOR_FLOAT16},
                                            {TENSOR_INT8, TENSOR_INT8},       {TENSOR_FLOAT64, TENSOR_FLOAT64},
                                            {TENSOR_FLOAT32, TENSOR_BFLOAT16}, {TENSOR_BFLOAT16, TENSOR_FLOAT32},
                                            {TENSOR_INT64, TENSOR_FLOAT32},   {TENSOR_UINT8, TENSOR_INT16}};
    uint64_t seed = 1000;
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++)
        for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
            if (ct_quick() && k % 3 != 0) continue;
            check_copy(pairs[p][0], pairs[p][1], L_CONTIG, 3, lens[k], seed++);
            if (lens[k] > 1) check_copy(pairs[p][0], pairs[p][1], L_NARROW, 3, lens[k], seed++);
            check_copy(pairs[p][0], pairs[p][1], L_EXPAND_ROW, 5, lens[k], seed++);
            check_copy(pairs[p][0], pairs[p][1], L_TRANSPOSE, 5, lens[k], seed++);
        }
}

/* contiguous() of a CUDA view gives a contiguous CUDA tensor (a copy), and of a contiguous one
 * the tensor itself; higher-rank permutations. */
static void test_contiguous_permuted(void **state) {
    (void)state;
    int64_t s[4] = {3, 4, 5, 6};
    tensor_t *cb = random_cpu(4, s, TENSOR_FLOAT32, 77);
    tensor_t *gb = ct_to_gpu(cb);
    tensor_t *same = tensor_contiguous(gb);
    assert_ptr_equal(same, gb);
    tensor_release(same);
    const int perm[4] = {2, 0, 3, 1};
    tensor_t *cp = tensor_permute(cb, perm), *gp = tensor_permute(gb, perm);
    tensor_t *cc = tensor_contiguous(cp), *gc = tensor_contiguous(gp);
    assert_non_null(gc);
    assert_true(tensor_get_device(gc).type == TENSOR_DEVICE_CUDA);
    assert_same(cc, gc, "float32 permuted 4-d");
    tensor_t *g16 = tensor_to_dtype(gp, TENSOR_FLOAT16), *c16 = tensor_to_dtype(cp, TENSOR_FLOAT16);
    assert_non_null(g16);
    assert_same(c16, g16, "float32 permuted 4-d");
    tensor_release(g16);
    tensor_release(c16);
    tensor_release(cc);
    tensor_release(gc);
    tensor_release(cp);
    tensor_release(gp);
    tensor_release(cb);
    tensor_release(gb);
}

/* More than 2^31 elements: the engine splits the iterator into 32-bit pieces. A [1, 1024] row
 * expanded to 2^21 + 3 rows (2^31 + 3072 bytes of uint8 output) is cloned; every row must equal
 * the source row. Skipped under TENSOR_TEST_QUICK (the sanitizer would take minutes). */
static void test_split_large(void **state) {
    (void)state;
    if (ct_quick()) return;
    const int64_t cols = 1024, rows = (INT64_C(1) << 21) + 3;
    int64_t s[2] = {1, cols};
    tensor_t *cb = random_cpu(2, s, TENSOR_UINT8, 5);
    tensor_t *gb = ct_to_gpu(cb);
    int64_t e[2] = {rows, cols};
    tensor_t *gx = tensor_expand(gb, 2, e);
    assert_non_null(gx);
    tensor_t *gi = tensor_to_dtype(gx, TENSOR_INT8); /* a dtype change: the engine, not a memcpy */
    if (gi == NULL) fail_msg("to_dtype: %s", tensor_last_error());
    unsigned char *row = ct_download(cb);
    unsigned char *all = ct_download(gi);
    ct_assert_sampled_rows(all, row, rows, cols);
    free(row);
    free(all);
    tensor_release(gi);
    tensor_release(gx);
    tensor_release(gb);
    tensor_release(cb);
}

/* The runtime entry refuses mismatched shapes with the iterator's message, and leaks nothing. */
static void test_errors(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    int64_t a[2] = {2, 3}, b[2] = {3, 2};
    tensor_t *x = tensor_zeros(2, a, TENSOR_FLOAT32, tensor_cuda(0));
    tensor_t *y = tensor_zeros(2, b, TENSOR_FLOAT32, tensor_cuda(0));
    assert_non_null(x);
    assert_non_null(y);
    assert_int_not_equal(tensor_cuda_copy(x, y, "test_copy"), TENSOR_OK);
    assert_error(TENSOR_ERR_SHAPE, "test_copy");
    tensor_release(x);
    tensor_release(y);
#endif
}

static void test_release_cache(void **state) {
    (void)state;
    assert_int_equal(tensor_cuda_synchronize(), TENSOR_OK);
    assert_int_equal(tensor_cuda_empty_cache(), TENSOR_OK);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_all_pairs_all_layouts), cmocka_unit_test(test_edges),
    cmocka_unit_test(test_contiguous_permuted),   cmocka_unit_test(test_split_large),
    cmocka_unit_test(test_errors),                cmocka_unit_test(test_release_cache),
};

TENSOR_TEST_GROUP(cuda_copy, tests, NULL, NULL)
