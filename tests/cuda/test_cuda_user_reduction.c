/* User reductions and tensor_vecdot on CUDA tensors: the fused vecdot kernel equals the CPU's
 * fused vecdot on every layout path and dtype; a registered reduction refuses a CUDA tensor
 * cleanly. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <unistd.h>

#include "test_main.h"
#include "cuda_test_util.h"
#include "ops/reduction_kit.h"
#if TENSOR_HAVE_CUDA
#include "cuda/jit.h"
#endif

TENSOR_TEST_NEEDS_GPU()

static float zero(void) { return 0.0f; }
static float first(const float *x) { return x[0]; }
static float add(float a, float b) { return a + b; }
static float done(float a, int64_t n) { return (void)n, a; }
TENSOR_REDUCTION_FNS(sum_fns, 1, float, float, zero, first, add, add, done)

/* A tensor and the same values in the same layout on the GPU (views are taken of both). */
typedef struct {
    tensor_t *c, *g;
} pair_t;

static pair_t pair_of(tensor_t *cpu) {
    assert_non_null(cpu);
    pair_t p = {cpu, ct_to_gpu(cpu)};
    return p;
}
static void pair_release(pair_t p) {
    tensor_release(p.c);
    tensor_release(p.g);
}
static pair_t pair_narrow(pair_t p, int dim, int64_t start, int64_t len) {
    pair_t r = {tensor_narrow(p.c, dim, start, len), tensor_narrow(p.g, dim, start, len)};
    assert_non_null(r.c);
    assert_non_null(r.g);
    pair_release(p);
    return r;
}
static pair_t pair_transpose(pair_t p) {
    pair_t r = {tensor_transpose(p.c, 0, 1), tensor_transpose(p.g, 0, 1)};
    assert_non_null(r.c);
    assert_non_null(r.g);
    pair_release(p);
    return r;
}

/* GPU vecdot (the fused kernel) against the CPU's fused vecdot: integers exactly, floats to a
 * tolerance (the two sum in different orders); the GPU result bitwise the same on a rerun. */
static void check_vecdot_views(pair_t a, pair_t b, int dim, const char *what) {
    tensor_t *c = tensor_vecdot(a.c, b.c, dim);
    if (c == NULL) fail_msg("%s: CPU vecdot: %s", what, tensor_last_error());
    tensor_t *g = tensor_vecdot(a.g, b.g, dim);
    if (g == NULL) fail_msg("%s: CUDA vecdot: %s", what, tensor_last_error());
    ct_assert_same_shape(g, c, what);
    const tensor_dtype dt = tensor_get_dtype(c);
    const int64_t n = tensor_numel(c);
    tensor_t *gd = tensor_to_dtype(g, TENSOR_FLOAT64), *cd = tensor_to_dtype(c, TENSOR_FLOAT64);
    assert_non_null(gd);
    assert_non_null(cd);
    double *x = ct_download(gd), *y = ct_download(cd);
    const double tol = dt == TENSOR_FLOAT64 ? 1e-12 : dt == TENSOR_FLOAT32 ? 1e-5 : 1e-2;
    /* the reduced length of the broadcast shape (either input may be the one of length 1) */
    const int nda = tensor_ndim(a.c), ndb = tensor_ndim(b.c), da = dim < 0 ? dim + nda : dim, db = da - nda + ndb;
    int64_t len = tensor_size(a.c, da);
    if (db >= 0 && db < ndb && tensor_size(b.c, db) > len) len = tensor_size(b.c, db);
    for (int64_t i = 0; i < n; i++) {
        bool ok = tensor_dtype_is_floating(dt) ? fabs(x[i] - y[i]) <= tol * (1.0 + sqrt((double)len) + fabs(y[i]))
                                               : x[i] == y[i];
        if (!ok) fail_msg("%s: element %lld: CUDA %.9g, CPU %.9g", what, (long long)i, x[i], y[i]);
    }
    tensor_t *g2 = tensor_vecdot(a.g, b.g, dim);
    assert_non_null(g2);
    void *r1 = ct_download(g), *r2 = ct_download(g2);
    if (memcmp(r1, r2, ct_nbytes(g)) != 0) fail_msg("%s: two runs differ", what);
    free(r1);
    free(r2);
    free(x);
    free(y);
    tensor_release(g2);
    tensor_release(gd);
    tensor_release(cd);
    tensor_release(c);
    tensor_release(g);
}

static tensor_t *rnd(int nd, const int64_t *sizes, tensor_dtype dt, uint64_t seed) {
    return ct_random_cpu(nd, sizes, dt, seed, ct_store_uniform, 0);
}

/* Every layout path of the engine with two inputs: row vectors (aligned, with a head, with
 * rows the kernel cannot cut alike), strided rows, output vectors (outer reductions), short
 * rows, a broadcast input on either kind of dim (along rows, one element a row beside the
 * other input's vectors; along the outputs, one element for a vector of outputs), several
 * kept dims, a global reduce. */
static void test_vecdot_layouts(void **state) {
    (void)state;
    const bool q = ct_quick();
    struct {
        int nd;
        int64_t sa[3], sb[3];
        int dim;
        int narrow_a, narrow_b; /* 1: drop the first element of the last dim; 2 (a): the last four of both */
        int transpose_a;        /* 1: a is the transpose of a contiguous tensor; 2: b is */
        const char *what;
    } cases[] = {
        {2, {300, 1000}, {1, 1000}, 1, 0, 0, 0, "b broadcast over rows"},
        {2, {257, 4099}, {257, 4099}, 1, 0, 0, 0, "rows, tail"},
        {2, {64, 4097}, {64, 4097}, -1, 1, 1, 0, "rows, both with a head"},
        {2, {64, 4097}, {64, 4097}, 1, 1, 0, 0, "rows cut differently"},
        {2, {1024, 300}, {1024, 300}, 0, 0, 0, 0, "columns, output vectors"},
        {2, {1000, 33}, {1000, 33}, 0, 0, 0, 0, "columns, odd width"},
        {2, {1000, 300}, {1, 300}, 0, 0, 0, 0, "columns, b broadcast along the reduced dim"},
        {2, {1000, 300}, {1000, 1}, 0, 0, 0, 0, "columns, b broadcast along the kept dim"},
        /* an input constant along the outputs: one element of it serves a vector's outputs */
        {2, {1000, 1}, {1000, 300}, 0, 0, 0, 0, "columns, a broadcast along the kept dim"},
        {3, {8, 64, 52}, {8, 64, 1}, 1, 0, 0, 0, "middle dim, b one element an output vector"},
        {3, {8, 64, 50}, {8, 64, 1}, 1, 1, 0, 0, "middle dim, a with a head, b broadcast along it"},
        {2, {1 << 16, 8}, {1 << 16, 1}, 0, 0, 0, 0, "long columns, global reduce, b one element a vector"},
        {2, {20000, 32}, {20000, 32}, 1, 0, 0, 0, "short rows, vectors"},
        {2, {20000, 7}, {20000, 7}, 1, 0, 0, 0, "short rows, elements"},
        {2, {20000, 32}, {1, 32}, 1, 0, 0, 0, "short rows, b broadcast"},
        {2, {500, 700}, {500, 700}, 1, 0, 0, 1, "a transposed"},
        /* two layouts: lanes on the outputs, chunks of b's rows (16-byte loads when aligned, a
         * partial last chunk when the row is no whole number of chunks), over either dim,
         * with a global reduce */
        {2, {512, 1024}, {512, 1024}, 1, 0, 0, 1, "a transposed, b in aligned runs"},
        {2, {256, 1028}, {256, 1028}, 1, 0, 0, 2, "b transposed, a in aligned runs with a partial chunk"},
        {2, {1024, 300}, {1024, 300}, 0, 0, 0, 1, "a transposed, over dim 0"},
        {2, {48, 70001}, {48, 70001}, 1, 0, 0, 1, "a transposed, long rows, global reduce"},
        {2, {333, 1029}, {333, 1030}, -1, 0, 1, 1, "a transposed, b with a head"},
        {3, {8, 64, 50}, {8, 64, 50}, 1, 0, 0, 0, "middle dim"},
        /* rows past one round of loads for 256 threads: the dense-rows path at 512 */
        {2, {100, 8195}, {100, 8195}, 1, 1, 1, 0, "long rows, both with a head and a tail"},
        {2, {300, 9000}, {1, 9000}, 1, 0, 0, 0, "long rows, b broadcast over rows"},
        {3, {6, 40, 4500}, {6, 1, 4500}, 2, 0, 0, 0, "long rows, outputs over two dims"},
        /* rows of whole 16-byte vectors: the aligned-rows kernel (padded rows: a row stride of
         * 8196 elements over rows of 8192) */
        {2, {400, 8192}, {400, 8192}, 1, 0, 0, 0, "aligned rows"},
        {2, {400, 8196}, {1, 8196}, 1, 2, 0, 0, "aligned padded rows, b broadcast"},
        /* many rows of up to 512 elements: a warp a row (the last CTA's spare warps idle),
         * aligned and through the offsets; rows of 1024: 64-thread CTAs */
        {2, {5001, 512}, {5001, 512}, 1, 0, 0, 0, "warp rows, aligned"},
        {2, {3001, 401}, {3001, 401}, 1, 1, 0, 0, "warp rows, a with a head"},
        {2, {5001, 1024}, {1, 1024}, 1, 0, 0, 0, "rows of two warps, b broadcast"},
        /* an input constant along the row (stride 0 on the reduced dim): one element a row,
         * repeated in every vector of the other input's loads */
        {2, {300, 4000}, {300, 1}, 1, 0, 0, 0, "rows, b one element a row"},
        {2, {300, 1}, {300, 4003}, 1, 0, 0, 0, "rows with a tail, a one element a row"},
        {2, {64, 4097}, {64, 1}, 1, 1, 0, 0, "rows with a head, b one element a row"},
        {2, {5001, 300}, {5001, 1}, 1, 0, 0, 0, "warp rows, b one element a row"},
        {1, {100003}, {1}, 0, 0, 0, 0, "one output, b one element"},
        {2, {2, 1 << 21}, {2, 1 << 21}, 1, 0, 0, 0, "long rows, global reduce"},
        {2, {1 << 18, 4}, {1 << 18, 4}, 0, 0, 0, 0, "long columns, global reduce"},
        {2, {3, 1 << 21}, {3, 1}, 1, 0, 0, 0, "long rows, global reduce, b one element a row"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (q && i >= 35) break;
        pair_t a = pair_of(rnd(cases[i].nd, cases[i].sa, TENSOR_FLOAT32, 100 + i));
        pair_t b = pair_of(rnd(cases[i].nd, cases[i].sb, TENSOR_FLOAT32, 200 + i));
        const int last = cases[i].nd - 1;
        if (cases[i].narrow_a == 2) {
            a = pair_narrow(a, last, 0, cases[i].sa[last] - 4);
            b = pair_narrow(b, last, 0, cases[i].sb[last] - 4);
        } else {
            if (cases[i].narrow_a) a = pair_narrow(a, last, 1, cases[i].sa[last] - 1);
            if (cases[i].narrow_b) b = pair_narrow(b, last, 1, cases[i].sb[last] - 1);
            else if (cases[i].narrow_a && cases[i].sb[last] > 1) b = pair_narrow(b, last, 0, cases[i].sb[last] - 1);
        }
        if (cases[i].transpose_a == 1) {
            const int64_t st[2] = {cases[i].sa[1], cases[i].sa[0]};
            pair_release(a);
            a = pair_transpose(pair_of(rnd(2, st, TENSOR_FLOAT32, 300 + i)));
        } else if (cases[i].transpose_a == 2) {
            const int64_t st[2] = {cases[i].sb[1], cases[i].sb[0]};
            pair_release(b);
            b = pair_transpose(pair_of(rnd(2, st, TENSOR_FLOAT32, 400 + i)));
        }
        check_vecdot_views(a, b, cases[i].dim, cases[i].what);
        pair_release(a);
        pair_release(b);
    }
}

/* Every dtype the kernels are compiled for, on rows and on columns. */
static void test_vecdot_dtypes(void **state) {
    (void)state;
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_INT64,
                                TENSOR_INT32,   TENSOR_INT16,   TENSOR_INT8,    TENSOR_UINT8};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        for (int dim = 0; dim < 2; dim++) {
            const int64_t s[2] = {517, 1030};
            pair_t a = pair_of(rnd(2, s, dts[k], 7 + k)), b = pair_of(rnd(2, s, dts[k], 70 + k));
            char what[64];
            snprintf(what, sizeof what, "%s over dim %d", tensor_dtype_name(dts[k]), dim);
            check_vecdot_views(a, b, dim, what);
            pair_release(a);
            pair_release(b);
        }
    }
}

/* One output (1-D dots): the flat plan with one CTA and with many (a global reduce, over the
 * shortened column of CTAs), both inputs with a head of one element (cut alike: still flat),
 * an odd tail, b one element; and a with a head beside an aligned b (not congruent: the
 * general path's element loads). Every floating dtype and two integer ones. */
static void test_vecdot_one_output(void **state) {
    (void)state;
    const bool q = ct_quick();
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_BFLOAT16, TENSOR_FLOAT16, TENSOR_FLOAT64, TENSOR_INT32, TENSOR_INT8};
    const int64_t lens[] = {4099, 1 << 20, 3000001, 4194304 + 5};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
            if (q && l >= 3) break;
            for (int form = 0; form < 4; form++) {
                const int64_t n = lens[l], one = 1;
                pair_t a = pair_of(rnd(1, &n, dts[k], 500 + k * 10 + l));
                pair_t b = pair_of(rnd(1, form == 3 ? &one : &n, dts[k], 600 + k * 10 + l));
                if (form == 1) { /* both with a head of one element: cut alike */
                    a = pair_narrow(a, 0, 1, n - 1);
                    b = pair_narrow(b, 0, 1, n - 1);
                } else if (form == 2) { /* a with a head, b aligned: not congruent */
                    a = pair_narrow(a, 0, 1, n - 1);
                    b = pair_narrow(b, 0, 0, n - 1);
                }
                char what[96];
                snprintf(what, sizeof what, "%s, one output of %lld, form %d", tensor_dtype_name(dts[k]), (long long)n,
                         form);
                check_vecdot_views(a, b, 0, what);
                pair_release(a);
                pair_release(b);
            }
        }
    }
    /* a few long rows, each over a column of CTAs (rows of 2^20 + 5: rows 1 and 2 start with a
     * head); cut one element later; b one element a row */
    const int64_t sa[2] = {3, (1 << 20) + 5}, sb1[2] = {3, 1};
    for (int form = 0; form < 3; form++) {
        pair_t a = pair_of(rnd(2, sa, TENSOR_FLOAT32, 700 + form));
        pair_t b = pair_of(rnd(2, form == 2 ? sb1 : sa, TENSOR_FLOAT32, 710 + form));
        if (form == 1) {
            a = pair_narrow(a, 1, 1, sa[1] - 1);
            b = pair_narrow(b, 1, 1, sa[1] - 1);
        }
        check_vecdot_views(a, b, 1, form == 0 ? "three long rows" : form == 1 ? "three long rows, cut one later"
                                                                            : "three long rows, b one element a row");
        pair_release(a);
        pair_release(b);
    }
    /* rows of one CTA each (blocks {128, 2} and {64, 4}), and nine rows over CTAs of {32, 8}, one
     * with b one element a row */
    const struct {
        int64_t rows, cols, bcols;
    } more[] = {{3, 4099, 4099}, {5, 20000, 20000}, {9, 300001, 300001}, {9, 300000, 1}};
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
        const int64_t s1[2] = {more[i].rows, more[i].cols}, s2[2] = {more[i].rows, more[i].bcols};
        pair_t a = pair_of(rnd(2, s1, TENSOR_FLOAT32, 720 + i)), b = pair_of(rnd(2, s2, TENSOR_FLOAT32, 730 + i));
        char what[64];
        snprintf(what, sizeof what, "[%lld, %lld] x [%lld, %lld] rows", (long long)more[i].rows,
                 (long long)more[i].cols, (long long)more[i].rows, (long long)more[i].bcols);
        check_vecdot_views(a, b, 1, what);
        pair_release(a);
        pair_release(b);
    }
}

/* Rows of the lean rows kernel and around it: one full round (float32 rows of 1024 to 4096,
 * 16-bit rows of 2048 and 4096, b one element a row), a partial round on CTAs of whole warps
 * that are not a power of two (3000: 384 threads), one and a half rounds (float32 6000), the
 * wide round of 16-bit rows (6000 and 8192, b broadcast along the outputs too), rows that are
 * not whole vectors (3001) or start with a head (4097 cut by one: the unaligned path), and
 * rows past it (4104 in 16 bits, 8192 in float32: the general kernel), in each dtype that has
 * the kernel (the integer ones: products into int64, a vector's into one accumulator). The
 * host tests check which plan each takes. */
static void test_vecdot_lean_rows(void **state) {
    (void)state;
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_INT16,
                                TENSOR_INT8,    TENSOR_UINT8,   TENSOR_INT32};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        const struct {
            int64_t rows, cols, brows, bcols;
            int head; /* 1: both cut by their first element */
        } cases[] = {
            {700, 1024, 700, 1024, 0}, {300, 2048, 300, 2048, 0}, {301, 4096, 301, 4096, 0},
            {257, 4096, 257, 1, 0},    {130, 4097, 130, 4097, 1}, {129, 4104, 129, 4104, 0},
            {150, 3000, 150, 3000, 0}, {140, 6000, 140, 6000, 0}, {131, 8192, 131, 8192, 0},
            {97, 8192, 1, 8192, 0},    {133, 3001, 133, 3001, 0}, {99, 6000, 1, 6000, 0},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            const int64_t s1[2] = {cases[i].rows, cases[i].cols}, s2[2] = {cases[i].brows, cases[i].bcols};
            pair_t a = pair_of(rnd(2, s1, dts[k], 900 + 20 * k + i)), b = pair_of(rnd(2, s2, dts[k], 950 + 20 * k + i));
            if (cases[i].head) {
                a = pair_narrow(a, 1, 1, cases[i].cols - 1);
                b = pair_narrow(b, 1, 1, cases[i].bcols - 1);
            }
            char what[96];
            snprintf(what, sizeof what, "%s [%lld, %lld] x [%lld, %lld]%s", tensor_dtype_name(dts[k]),
                     (long long)cases[i].rows, (long long)cases[i].cols, (long long)cases[i].brows,
                     (long long)cases[i].bcols, cases[i].head ? ", cut by one" : "");
            check_vecdot_views(a, b, 1, what);
            pair_release(a);
            pair_release(b);
        }
    }
}

/* Two inputs whose rows do not start alike modulo a vector: one keeps its vector loads and the
 * other is read element by element within them (elem_inputs): a broadcast row of odd length on
 * either side (CTA rows, warp rows, long rows split over CTAs), rows shifted by an element, a
 * 1-D dot of shifted vectors; in every dtype (16 loads a vector for bytes). */
static void test_vecdot_elem_inputs(void **state) {
    (void)state;
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_FLOAT64, TENSOR_INT8,
                                TENSOR_UINT8,   TENSOR_INT16,   TENSOR_INT32,    TENSOR_INT64};
    const struct {
        int nd;
        int64_t sa[2], sb[2];
        int shift; /* 1: a drops its first element of the last dim, b its last */
        const char *what;
    } cases[] = {
        {2, {300, 5001}, {1, 5001}, 0, "b an odd broadcast row"},
        {2, {1, 5001}, {300, 5001}, 0, "a an odd broadcast row"},
        {2, {2001, 301}, {1, 301}, 0, "warp rows, b an odd broadcast row"},
        {2, {3, 300001}, {1, 300001}, 0, "long rows, b an odd broadcast row"},
        {2, {130, 4097}, {130, 4097}, 1, "rows shifted by an element"},
        {1, {100003}, {100003}, 1, "a 1-D dot of shifted vectors"},
    };
    const size_t ndt = ct_quick() ? 3 : sizeof dts / sizeof dts[0];
    for (size_t k = 0; k < ndt; k++) {
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            pair_t a = pair_of(rnd(cases[i].nd, cases[i].sa, dts[k], 1100 + 10 * k + i));
            pair_t b = pair_of(rnd(cases[i].nd, cases[i].sb, dts[k], 1200 + 10 * k + i));
            const int last = cases[i].nd - 1;
            if (cases[i].shift) {
                a = pair_narrow(a, last, 1, cases[i].sa[last] - 1);
                b = pair_narrow(b, last, 0, cases[i].sb[last] - 1);
            }
            char what[128];
            snprintf(what, sizeof what, "%s, %s", tensor_dtype_name(dts[k]), cases[i].what);
            check_vecdot_views(a, b, -1, what);
            pair_release(a);
            pair_release(b);
        }
    }
}

/* Outer reductions (over dim 0) whose outputs are fewer vectors than a warp and not a power of
 * two ([100000, 100]: 25 vectors of 4): CTAs exactly that many lanes wide, the rows split over
 * CTAs; one dtype per accumulator width. Then two-layout plans of as few outputs. */
static void test_vecdot_outer_exact_width(void **state) {
    (void)state;
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_INT32, TENSOR_FLOAT64};
    const int64_t shapes[][2] = {{100000, 100}, {40000, 60}, {30001, 44}};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            pair_t a = pair_of(rnd(2, shapes[i], dts[k], 1200 + 10 * k + i));
            pair_t b = pair_of(rnd(2, shapes[i], dts[k], 1300 + 10 * k + i));
            char what[64];
            snprintf(what, sizeof what, "%s [%lld, %lld] over dim 0", tensor_dtype_name(dts[k]),
                     (long long)shapes[i][0], (long long)shapes[i][1]);
            check_vecdot_views(a, b, 0, what);
            pair_release(a);
            pair_release(b);
        }
    /* a.t() x b with 25 and 12 outputs: two-layout plans, which keep the power of two below */
    for (int64_t m = 12; m <= 25; m += 13) {
        const int64_t sa[2] = {100003, m}, sb[2] = {m, 100003};
        pair_t a = pair_transpose(pair_of(rnd(2, sa, TENSOR_FLOAT32, 1400 + m))), b = pair_of(rnd(2, sb, TENSOR_FLOAT32, 1500 + m));
        char what[64];
        snprintf(what, sizeof what, "float32 a.t() x b, %lld outputs", (long long)m);
        check_vecdot_views(a, b, 1, what);
        pair_release(a);
        pair_release(b);
    }
}

/* Inputs of two layouts (a transposed beside a contiguous b) in every dtype: the chunked plan
 * with 16-byte runs of b (rows of 1040 elements) and with element loads (1037). */
static void test_vecdot_two_layouts_dtypes(void **state) {
    (void)state;
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT16, TENSOR_BFLOAT16,
                                TENSOR_INT32,   TENSOR_INT16,   TENSOR_INT8};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        for (int w = 1037; w <= 1040; w += 3) {
            const int64_t sa[2] = {w, 601}, sb[2] = {601, w};
            pair_t a = pair_transpose(pair_of(rnd(2, sa, dts[k], 11 + k))), b = pair_of(rnd(2, sb, dts[k], 110 + k));
            char what[64];
            snprintf(what, sizeof what, "%s, a transposed, rows of %d", tensor_dtype_name(dts[k]), w);
            check_vecdot_views(a, b, 1, what);
            pair_release(a);
            pair_release(b);
        }
    }
}

/* Inputs of two layouts with few outputs: the tile plan (the reduced dim cut into chunks, one
 * input staged in shared memory), in either input order, outputs not a multiple of a CTA's 32,
 * chunks and tiles with tails, every dtype family (16-bit and byte inputs keep the outer plan);
 * and two layouts through 32-bit pieces (test_jit_matches_cpu checks that explain names the
 * tile plan). */
static void test_vecdot_tiles(void **state) {
    (void)state;
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_BFLOAT16, TENSOR_INT32, TENSOR_INT8};
    const int64_t shapes[][2] = {{1, 5000}, {12, 70001}, {32, 64}, {33, 1000}, {100, 33333}, {300, 4097}};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            const int64_t m = shapes[i][0], n = shapes[i][1], st[2] = {n, m}, sb[2] = {m, n};
            pair_t a = pair_transpose(pair_of(rnd(2, st, dts[k], 1600 + 10 * k + i)));
            pair_t b = pair_of(rnd(2, sb, dts[k], 1700 + 10 * k + i));
            char what[80];
            snprintf(what, sizeof what, "%s a.t() x b, [%lld, %lld]", tensor_dtype_name(dts[k]), (long long)m, (long long)n);
            check_vecdot_views(a, b, 1, what);
            snprintf(what, sizeof what, "%s b x a.t(), [%lld, %lld]", tensor_dtype_name(dts[k]), (long long)m, (long long)n);
            check_vecdot_views(b, a, 1, what);
            pair_release(a);
            pair_release(b);
        }
    /* b transposed, reduced over dim 0: [n, m] x [m, n].t() */
    {
        const int64_t sa[2] = {50000, 40}, sb[2] = {40, 50000};
        pair_t a = pair_of(rnd(2, sa, TENSOR_FLOAT32, 1800)), b = pair_transpose(pair_of(rnd(2, sb, TENSOR_FLOAT32, 1801)));
        check_vecdot_views(a, b, 0, "float32 a x b.t() over dim 0");
        pair_release(a);
        pair_release(b);
    }
#if TENSOR_HAVE_CUDA
    /* 32-bit pieces of two layouts: partials of earlier pieces combined into the output or a
     * buffer. 20 outputs: every piece takes the outer plan, not tiles (tiles through pieces are
     * not tested on a GPU yet). */
    const int64_t saved = tensor_cuda_reduce_index_limit;
    tensor_cuda_reduce_index_limit = 1 << 14;
    const int64_t st[2] = {3000, 20}, sb[2] = {20, 3000};
    for (int h = 0; h < 2; h++) {
        const tensor_dtype dt = h ? TENSOR_FLOAT16 : TENSOR_FLOAT32;
        pair_t a = pair_transpose(pair_of(rnd(2, st, dt, 1900 + h))), b = pair_of(rnd(2, sb, dt, 1910 + h));
        check_vecdot_views(a, b, 1, h ? "split two layouts, float16" : "split two layouts, float32");
        pair_release(a);
        pair_release(b);
    }
    tensor_cuda_reduce_index_limit = saved;
#endif
}

/* Whether two 16-bit results are the same bits, any NaN matching any NaN. */
static bool same16(uint16_t x, uint16_t y, tensor_dtype dt) {
    const uint16_t e = dt == TENSOR_FLOAT16 ? 0x7c00 : 0x7f80, m = dt == TENSOR_FLOAT16 ? 0x03ff : 0x007f;
    const bool nx = (x & e) == e && (x & m) != 0, ny = (y & e) == e && (y & m) != 0;
    return nx == ny && (nx || x == y);
}

/* The rounded 16-bit product alone (vecdot over a dim of length 1), bit for bit against the
 * CPU's for every float16 / bfloat16 pattern times a spread of others (subnormals, infinities,
 * NaN, signed zeros, overflow): the kernel multiplies the stored values with one 16-bit
 * instruction, which must round as the float product rounded to 16 bits does. */
static void test_vecdot_16bit_products(void **state) {
    (void)state;
    const tensor_dtype dts[] = {TENSOR_FLOAT16, TENSOR_BFLOAT16};
    const uint16_t others[] = {0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3555, 0x7bff, 0x7c00,
                               0xfc00, 0x7e00, 0x5640, 0x1234, 0x8765, 0x0080, 0x3f80, 0x7f7f, 0x7f80, 0xc2f7};
    const int64_t n = 65536, m = (int64_t)(sizeof others / sizeof others[0]);
    for (size_t k = 0; k < 2; k++) {
        const int64_t s[2] = {n * m, 1};
        tensor_t *ca = tensor_empty(2, s, dts[k], tensor_cpu()), *cb = tensor_empty(2, s, dts[k], tensor_cpu());
        assert_non_null(ca);
        assert_non_null(cb);
        uint16_t *pa = tensor_data(ca), *pb = tensor_data(cb);
        for (int64_t j = 0; j < m; j++)
            for (int64_t i = 0; i < n; i++) {
                pa[j * n + i] = (uint16_t)i;
                pb[j * n + i] = others[j];
            }
        pair_t a = pair_of(ca), b = pair_of(cb);
        tensor_t *c = tensor_vecdot(a.c, b.c, 1), *g = tensor_vecdot(a.g, b.g, 1);
        assert_non_null(c);
        if (g == NULL) fail_msg("CUDA vecdot: %s", tensor_last_error());
        tensor_t *gc = tensor_to_device(g, tensor_cpu());
        assert_non_null(gc);
        const uint16_t *rc = tensor_data(c), *rg = tensor_data(gc);
        for (int64_t i = 0; i < n * m; i++) {
            if (!same16(rc[i], rg[i], dts[k]))
                fail_msg("%s: 0x%04x * 0x%04x: CPU 0x%04x, CUDA 0x%04x", tensor_dtype_name(dts[k]), pa[i], pb[i],
                         rc[i], rg[i]);
        }
        tensor_release(c);
        tensor_release(g);
        tensor_release(gc);
        pair_release(a);
        pair_release(b);
    }
}

/* The rounded 16-bit product through each row loop, which takes two neighbouring elements of
 * each input at once: rows of `len` whose one nonzero pair (a pattern of a times a value of b)
 * sits at position r % len, every other element +0, so each row's dot is that one rounded
 * product whatever the order of the adds. Against the product alone (vecdot over a dim of one,
 * bit for bit against the CPU in test_vecdot_16bit_products), on the CPU and on CUDA. Rows of
 * 8 (the short-rows kernel), of 1024 (lean rows), and of 1024 with a starting one element into
 * its buffer (the element-read kernel); every element position of a vector, low and high half
 * of each word. */
static void test_vecdot_16bit_products_rows(void **state) {
    (void)state;
    const tensor_dtype dts[] = {TENSOR_FLOAT16, TENSOR_BFLOAT16};
    const uint16_t others[] = {0x8000, 0x0001, 0x3c00, 0xbc00, 0x3555, 0x7bff, 0x7c00, 0x5640, 0x1234,
                               0x8765, 0x0080, 0x3f80, 0x7f7f, 0xc2f7};
    const int64_t m = (int64_t)(sizeof others / sizeof others[0]);
    const struct {
        int64_t len, patterns; /* patterns of a: every one, or one in 64 with its low bits moving */
        int shift;             /* 1: a starts one element into its buffer */
    } forms[] = {{8, 65536, 0}, {1024, 1024, 0}, {1024, 1024, 1}};
    for (size_t k = 0; k < 2; k++)
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
            const int64_t len = forms[f].len, np = forms[f].patterns, rows = np * m, sh = forms[f].shift;
            const int64_t sa[2] = {rows, len + sh}, sb[2] = {rows, len}, s1[2] = {rows, 1};
            tensor_t *ca = tensor_empty(2, sa, dts[k], tensor_cpu()), *cb = tensor_empty(2, sb, dts[k], tensor_cpu());
            tensor_t *a1 = tensor_empty(2, s1, dts[k], tensor_cpu()), *b1 = tensor_empty(2, s1, dts[k], tensor_cpu());
            assert_true(ca != NULL && cb != NULL && a1 != NULL && b1 != NULL);
            uint16_t *pa = tensor_data(ca), *pb = tensor_data(cb), *qa = tensor_data(a1), *qb = tensor_data(b1);
            memset(pa, 0, (size_t)(rows * (len + sh)) * 2);
            memset(pb, 0, (size_t)(rows * len) * 2);
            for (int64_t r = 0; r < rows; r++) {
                const int64_t i = r % np, j = r / np, at = r % len;
                const int64_t step = 65536 / np;
                qa[r] = (uint16_t)(i * step + (i + j) % step);
                qb[r] = others[j];
                pa[r * (len + sh) + sh + at] = qa[r];
                pb[r * len + at] = qb[r];
            }
            tensor_t *want = tensor_vecdot(a1, b1, 1);
            assert_non_null(want);
            pair_t a = pair_of(ca), b = pair_of(cb);
            if (sh) a = pair_narrow(a, 1, 1, len);
            tensor_t *c = tensor_vecdot(a.c, b.c, 1), *g = tensor_vecdot(a.g, b.g, 1);
            assert_non_null(c);
            if (g == NULL) fail_msg("CUDA vecdot: %s", tensor_last_error());
            tensor_t *gc = tensor_to_device(g, tensor_cpu());
            assert_non_null(gc);
            const uint16_t *rw = tensor_data(want), *rc = tensor_data(c), *rg = tensor_data(gc);
            for (int64_t r = 0; r < rows; r++) {
                if (!same16(rw[r], rc[r], dts[k]) || !same16(rw[r], rg[r], dts[k]))
                    fail_msg("%s, rows of %lld%s, row %lld: 0x%04x * 0x%04x at %lld: product 0x%04x, CPU 0x%04x, "
                             "CUDA 0x%04x",
                             tensor_dtype_name(dts[k]), (long long)len, sh ? ", a shifted" : "", (long long)r, qa[r],
                             qb[r], (long long)(r % len), rw[r], rc[r], rg[r]);
            }
            tensor_release(want);
            tensor_release(c);
            tensor_release(g);
            tensor_release(gc);
            pair_release(a);
            pair_release(b);
            tensor_release(a1);
            tensor_release(b1);
        }
}

/* Iterators past 32-bit offsets run in pieces: the test lowers the limit so that small
 * tensors take that path. */
static void test_vecdot_split(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    const int64_t saved = tensor_cuda_reduce_index_limit;
    tensor_cuda_reduce_index_limit = 1 << 14;
    const int64_t s[2] = {96, 3000};
    pair_t a = pair_of(rnd(2, s, TENSOR_FLOAT32, 11)), b = pair_of(rnd(2, s, TENSOR_FLOAT32, 12));
    pair_t h = pair_of(rnd(2, s, TENSOR_FLOAT16, 13)), h2 = pair_of(rnd(2, s, TENSOR_FLOAT16, 14));
    check_vecdot_views(a, b, 1, "split, rows");
    check_vecdot_views(a, b, 0, "split, columns");
    check_vecdot_views(h, h2, 1, "split, float16 rows (accumulator buffer)");
    tensor_cuda_reduce_index_limit = saved;
    pair_release(a);
    pair_release(b);
    pair_release(h);
    pair_release(h2);
#endif
}

static void test_vecdot_errors(void **state) {
    (void)state;
    const int64_t s[1] = {16};
    tensor_t *g = tensor_ones(1, s, TENSOR_FLOAT32, tensor_cuda(0)), *gh = tensor_ones(1, s, TENSOR_FLOAT16, tensor_cuda(0));
    tensor_t *c = tensor_ones(1, s, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *gb = tensor_ones(1, s, TENSOR_BOOL, tensor_cuda(0));
    assert_null(tensor_vecdot(g, c, 0));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_DEVICE);
    assert_null(tensor_vecdot(g, gh, 0));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_DTYPE);
    assert_null(tensor_vecdot(gb, gb, 0));
    assert_null(tensor_vecdot(g, g, 2));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_INDEX);
    tensor_release(g);
    tensor_release(gh);
    tensor_release(c);
    tensor_release(gb);
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

/* ---- user reductions compiled at run time: one source for the CPU and the GPU ---- */
#if TENSOR_HAVE_CUDA
#define TT_STR_(...) #__VA_ARGS__
#define TT_STR(...) TT_STR_(__VA_ARGS__)

/* Compiled here for the CPU, and as a string for the GPU (no macros inside: the string is the
 * text after the host's macro expansion). */
#define JIT_FUNCTORS                                                                               \
    typedef struct { float m, s; } jd_acc;                                                         \
    static float js_zero(void) { return 0.0f; }                                                    \
    static float js_first(const float *x) { return x[0]; }                                         \
    static float js_abs(const float *x) { return fabsf(x[0]); }                                    \
    static float js_wprod(const float *x) { return x[0] * x[1]; }                                  \
    static float js_add(float a, float b) { return a + b; }                                        \
    static float js_done(float a, int64_t n) { return (void)n, a; }                                \
    static float js_mean(float a, int64_t n) { return a / (float)n; }                              \
    static jd_acc jd_id(void) { jd_acc a = {-1.0f / 0.0f, 0.0f}; return a; }                      \
    static jd_acc jd_red(jd_acc a, float v) {                                                      \
        if (v > a.m) { a.s = a.s * expf(a.m - v) + 1.0f; a.m = v; } else a.s += expf(v - a.m);     \
        return a;                                                                                  \
    }                                                                                              \
    static jd_acc jd_comb(jd_acc a, jd_acc b) {                                                    \
        if (b.m > a.m) { jd_acc t = a; a = b; b = t; }                                             \
        if (b.s != 0.0f) a.s += b.s * expf(b.m - a.m);                                             \
        return a;                                                                                  \
    }                                                                                              \
    static float jd_proj(jd_acc a, int64_t n) { return (void)n, a.s; }
JIT_FUNCTORS
static const char jit_src[] = TT_STR(JIT_FUNCTORS);
TENSOR_REDUCTION_FNS_SOURCE(jsum_fns, 1, float, float, js_zero, js_first, js_add, js_add, js_done, jit_src)
TENSOR_REDUCTION_FNS_SOURCE(jabs_fns, 1, float, float, js_zero, js_abs, js_add, js_add, js_done, jit_src)
TENSOR_REDUCTION_FNS_SOURCE(jmean_fns, 1, float, float, js_zero, js_first, js_add, js_add, js_mean, jit_src)
TENSOR_REDUCTION_FNS_SOURCE(jwsum_fns, 2, float, float, js_zero, js_wprod, js_add, js_add, js_done, jit_src)
TENSOR_REDUCTION_FNS_SOURCE(jden_fns, 1, float, jd_acc, jd_id, js_first, jd_red, jd_comb, jd_proj, jit_src)

static tensor_reduction *jit_def(const char *name, int nin, size_t acc, tensor_reduction_fns fns,
                                 tensor_reduction_dtype_rule rule) {
    tensor_reduction_def d = {name, nin, acc, rule, true, {{0}}, NULL};
    d.fns[TENSOR_REDUCTION_F32] = fns;
    tensor_reduction *r = tensor_reduction_register(&d);
    if (r == NULL) fail_msg("register %s: %s", name, tensor_last_error());
    return r;
}

#endif

static char jit_dir[64];

static int jit_setup(void **state) {
    (void)state;
    snprintf(jit_dir, sizeof jit_dir, "/tmp/tt_jit_test_XXXXXX");
    if (mkdtemp(jit_dir) == NULL) return -1;
    return tensor_jit_set_cache_dir(jit_dir) == TENSOR_OK ? 0 : -1;
}

#if TENSOR_HAVE_CUDA
/* A user reduction on CUDA equals the same reduction on the CPU (different summation order:
 * floats to a tolerance), on rows, columns, all dims, a 16-bit input and two inputs with
 * broadcasting. */
static void check_jit(tensor_reduction *r, pair_t *in, int nin, const int *dims, int ndims, const char *what) {
    const tensor_t *c_in[3], *g_in[3];
    for (int k = 0; k < nin; k++) {
        c_in[k] = in[k].c;
        g_in[k] = in[k].g;
    }
    tensor_t *c = tensor_reduce(r, c_in, nin, dims, ndims, false, TENSOR_DTYPE_DEFAULT);
    if (c == NULL) fail_msg("%s: CPU: %s", what, tensor_last_error());
    tensor_t *g = tensor_reduce(r, g_in, nin, dims, ndims, false, TENSOR_DTYPE_DEFAULT);
    if (g == NULL) fail_msg("%s: CUDA: %s", what, tensor_last_error());
    ct_assert_same_shape(g, c, what);
    tensor_t *gd = tensor_to_dtype(g, TENSOR_FLOAT64), *cd = tensor_to_dtype(c, TENSOR_FLOAT64);
    double *x = ct_download(gd), *y = ct_download(cd);
    const double tol = tensor_get_dtype(c) == TENSOR_FLOAT32 ? 1e-4 : 1e-2;
    for (int64_t i = 0; i < tensor_numel(c); i++)
        if (!(fabs(x[i] - y[i]) <= tol * (1.0 + fabs(y[i]))))
            fail_msg("%s: element %lld: CUDA %.9g, CPU %.9g", what, (long long)i, x[i], y[i]);
    free(x);
    free(y);
    tensor_release(gd);
    tensor_release(cd);
    tensor_release(c);
    tensor_release(g);
}
#endif

static void test_jit_matches_cpu(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    if (tt_jit_nvrtc_available("test") != TENSOR_OK) {
        print_message("no NVRTC on this machine: %s\n", tensor_last_error());
        return;
    }
    tensor_reduction *sum = jit_def("jit_sum", 1, sizeof(float), jsum_fns, TENSOR_REDUCTION_DTYPE_SUM);
    tensor_reduction *abss = jit_def("jit_abs_sum", 1, sizeof(float), jabs_fns, TENSOR_REDUCTION_DTYPE_FLOAT);
    tensor_reduction *mean = jit_def("jit_mean", 1, sizeof(float), jmean_fns, TENSOR_REDUCTION_DTYPE_FLOAT);
    tensor_reduction *den = jit_def("jit_softmax_den", 1, 2 * sizeof(float), jden_fns, TENSOR_REDUCTION_DTYPE_FLOAT);
    tensor_reduction *wsum = jit_def("jit_wsum", 2, sizeof(float), jwsum_fns, TENSOR_REDUCTION_DTYPE_FLOAT);
    const int64_t s[2] = {300, 2000};
    pair_t x = pair_of(rnd(2, s, TENSOR_FLOAT32, 5)), h = pair_of(rnd(2, s, TENSOR_FLOAT16, 6));
    const int d0 = 0, d1 = 1;
    check_jit(sum, &x, 1, &d1, 1, "sum rows");
    check_jit(sum, &x, 1, &d0, 1, "sum columns");
    check_jit(sum, &x, 1, NULL, 0, "sum all");
    check_jit(abss, &h, 1, &d1, 1, "abs-sum float16 rows");
    check_jit(mean, &x, 1, &d0, 1, "mean columns");
    check_jit(den, &x, 1, &d1, 1, "softmax denominator rows");
    check_jit(den, &x, 1, NULL, 0, "softmax denominator all");
    const int64_t sw[2] = {1, 2000};
    pair_t two[2] = {x, pair_of(rnd(2, sw, TENSOR_FLOAT32, 7))};
    check_jit(wsum, two, 2, &d1, 1, "weighted sum, weights broadcast");
    pair_release(two[1]);
    /* weights constant along the reduced row (one element a row of the vector loads), and
     * along the outputs of an outer reduction (one element a vector of outputs) */
    const int64_t sc[2] = {300, 1};
    two[1] = pair_of(rnd(2, sc, TENSOR_FLOAT32, 8));
    check_jit(wsum, two, 2, &d1, 1, "weighted sum, a weight a row");
    check_jit(wsum, two, 2, &d0, 1, "weighted sum over columns, a weight a row");
    const tensor_t *gw[2] = {two[0].g, two[1].g};
    char text[2048];
    assert_true(tensor_reduction_explain(wsum, gw, 2, &d1, 1, false, TENSOR_DTYPE_DEFAULT, text, sizeof text) > 0);
    if (strstr(text, "one element a row of inputs 0x2") == NULL) fail_msg("rows: %s", text);
    assert_true(tensor_reduction_explain(wsum, gw, 2, &d0, 1, false, TENSOR_DTYPE_DEFAULT, text, sizeof text) > 0);
    if (strstr(text, "one element an output vector of inputs 0x2") == NULL) fail_msg("columns: %s", text);
    pair_release(two[1]);
    /* rows of 4096 floats: the lean rows kernel, compiled at run time as its own variant */
    {
        const int64_t sl[2] = {96, 4096};
        pair_t lean[2] = {pair_of(rnd(2, sl, TENSOR_FLOAT32, 9)), pair_of(rnd(2, sl, TENSOR_FLOAT32, 10))};
        check_jit(wsum, lean, 2, &d1, 1, "weighted sum, rows of one lean round");
        const tensor_t *gl[2] = {lean[0].g, lean[1].g};
        assert_true(tensor_reduction_explain(wsum, gl, 2, &d1, 1, false, TENSOR_DTYPE_DEFAULT, text, sizeof text) > 0);
        if (strstr(text, "dense rows, lean") == NULL) fail_msg("lean rows: %s", text);
        pair_release(lean[0]);
        pair_release(lean[1]);
    }
    /* rows that do not start alike modulo a vector (a broadcast row of odd length): the built-ins
     * read one input by elements within the other's vectors; a compiled set has no such path
     * and reads both by elements */
    {
        const int64_t so[2] = {300, 2001}, sb[2] = {1, 2001};
        pair_t odd[2] = {pair_of(rnd(2, so, TENSOR_FLOAT32, 13)), pair_of(rnd(2, sb, TENSOR_FLOAT32, 14))};
        check_jit(wsum, odd, 2, &d1, 1, "weighted sum, a broadcast row of odd length");
        const tensor_t *go[2] = {odd[0].g, odd[1].g};
        assert_true(tensor_reduction_explain(wsum, go, 2, &d1, 1, false, TENSOR_DTYPE_DEFAULT, text, sizeof text) > 0);
        if (strstr(text, "read by elements") != NULL) fail_msg("odd rows: %s", text);
        pair_release(odd[0]);
        pair_release(odd[1]);
    }
    /* inputs of two layouts with few outputs: the tile plan, compiled at run time */
    {
        const int64_t st[2] = {20000, 40}, sb[2] = {40, 20000};
        pair_t tl[2] = {pair_transpose(pair_of(rnd(2, st, TENSOR_FLOAT32, 11))), pair_of(rnd(2, sb, TENSOR_FLOAT32, 12))};
        check_jit(wsum, tl, 2, &d1, 1, "weighted sum, a transposed, 40 outputs");
        const tensor_t *gt[2] = {tl[0].g, tl[1].g};
        assert_true(tensor_reduction_explain(wsum, gt, 2, &d1, 1, false, TENSOR_DTYPE_DEFAULT, text, sizeof text) > 0);
        if (strstr(text, "two-layout tiles") == NULL) fail_msg("tiles: %s", text);
        pair_release(tl[0]);
        pair_release(tl[1]);
    }
    /* The split path (32-bit pieces with an accumulation buffer). */
    const int64_t saved = tensor_cuda_reduce_index_limit;
    tensor_cuda_reduce_index_limit = 1 << 14;
    check_jit(sum, &x, 1, &d1, 1, "sum rows, split");
    check_jit(den, &x, 1, &d0, 1, "softmax denominator columns, split");
    tensor_cuda_reduce_index_limit = saved;
    pair_release(x);
    pair_release(h);
    tensor_reduction *all[] = {sum, abss, mean, den, wsum};
    for (int i = 0; i < 5; i++) assert_int_equal(tensor_reduction_release(all[i]), TENSOR_OK);
#endif
}

/* The run-time compiled engine is the precompiled one: a user sum gives tensor_sum's bytes on
 * every layout path (same plan, same order of additions). */
static void test_jit_bitwise_builtin(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    if (tt_jit_nvrtc_available("test") != TENSOR_OK) return;
    tensor_reduction *sum = jit_def("jit_sum_bitwise", 1, sizeof(float), jsum_fns, TENSOR_REDUCTION_DTYPE_SUM);
    const int64_t s[2] = {300, 2000}, sh[2] = {4099, 24};
    const tensor_dtype dts[2] = {TENSOR_FLOAT32, TENSOR_FLOAT16};
    const int d0 = 0, d1 = 1;
    for (int k = 0; k < 2; k++) {
        for (int shape = 0; shape < 2; shape++) {
            tensor_t *c = tensor_rand(2, shape ? sh : s, (uint64_t)(40 + k), dts[k], tensor_cpu());
            assert_non_null(c);
            tensor_t *g = ct_to_gpu(c);
            const tensor_t *in[1] = {g};
            const int *dims[3] = {&d0, &d1, NULL};
            for (int m = 0; m < 3; m++) {
                const int nd = dims[m] ? 1 : 0;
                tensor_t *u = tensor_reduce(sum, in, 1, dims[m], nd, false, TENSOR_DTYPE_DEFAULT);
                tensor_t *b = tensor_sum_dims(g, dims[m], nd, false, TENSOR_DTYPE_DEFAULT);
                if (u == NULL || b == NULL) fail_msg("%s", tensor_last_error());
                assert_int_equal(tensor_get_dtype(u), tensor_get_dtype(b));
                assert_int_equal(tensor_numel(u), tensor_numel(b));
                void *hu = ct_download(u), *hb = ct_download(b);
                if (memcmp(hu, hb, ct_nbytes(u)) != 0)
                    fail_msg("user sum differs from tensor_sum: %s [%lld, %lld], dims case %d",
                             tensor_dtype_name(dts[k]), (long long)(shape ? sh : s)[0], (long long)(shape ? sh : s)[1], m);
                free(hu);
                free(hb);
                tensor_release(u);
                tensor_release(b);
            }
            tensor_release(g);
            tensor_release(c);
        }
    }
    assert_int_equal(tensor_reduction_release(sum), TENSOR_OK);
#endif
}

/* Compiled once per process (memory), then from disk in a "new process" (the loaded sets
 * forgotten), and explain says which. */
static void test_jit_caches(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    if (tt_jit_nvrtc_available("test") != TENSOR_OK) return;
    tensor_reduction *r = jit_def("jit_cache_sum", 1, sizeof(float), jsum_fns, TENSOR_REDUCTION_DTYPE_SUM);
    const int64_t s[2] = {64, 100};
    tensor_t *x = tensor_ones(2, s, TENSOR_FLOAT64, tensor_cuda(0)); /* a dtype pair no other test compiled */
    tensor_t *x32 = tensor_to_dtype(x, TENSOR_BFLOAT16);
    const tensor_t *in[1] = {x32};
    int dim = 1;
    char buf[2048];
    const int before = tt_jit_compile_count();
    assert_true(tensor_reduction_explain(r, in, 1, &dim, 1, false, TENSOR_DTYPE_DEFAULT, buf, sizeof buf) > 0);
    assert_non_null(strstr(buf, "cuda jit: compiled now"));
    assert_non_null(strstr(buf, "cuda launch: block"));
    assert_int_equal(tt_jit_compile_count(), before + 1);
    tensor_t *y = tensor_reduce(r, in, 1, &dim, 1, false, TENSOR_DTYPE_DEFAULT);
    assert_non_null(y);
    assert_int_equal(tt_jit_compile_count(), before + 1);
    assert_true(tensor_reduction_explain(r, in, 1, &dim, 1, false, TENSOR_DTYPE_DEFAULT, buf, sizeof buf) > 0);
    assert_non_null(strstr(buf, "cuda jit: in memory"));
    tt_jit_forget();
    assert_true(tensor_reduction_explain(r, in, 1, &dim, 1, false, TENSOR_DTYPE_DEFAULT, buf, sizeof buf) > 0);
    assert_non_null(strstr(buf, "cuda jit: loaded from the disk cache"));
    assert_int_equal(tt_jit_compile_count(), before + 1);
    assert_int_equal(tensor_get_dtype(y), TENSOR_BFLOAT16); /* sum's rule keeps a float dtype */
    tensor_t *yf = tensor_to_dtype(y, TENSOR_FLOAT32);
    float *v = ct_download(yf);
    for (int i = 0; i < 64; i++) assert_true(v[i] == 100.0f);
    free(v);
    tensor_release(yf);
    tensor_release(y);
    tensor_release(x);
    tensor_release(x32);
    assert_int_equal(tensor_reduction_release(r), TENSOR_OK);
#endif
}

#if TENSOR_HAVE_CUDA
typedef struct {
    tensor_reduction *r;
    const tensor_t *x;
    int ok;
} race_arg;
static void *race(void *p) {
    race_arg *a = p;
    const tensor_t *in[1] = {a->x};
    tensor_t *y = tensor_reduce(a->r, in, 1, NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    a->ok = y != NULL;
    tensor_release(y);
    return NULL;
}
#endif

/* Two threads on a first call: one compile. */
static void test_jit_race(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    if (tt_jit_nvrtc_available("test") != TENSOR_OK) return;
    tensor_reduction *r = jit_def("jit_race_mean", 1, sizeof(float), jmean_fns, TENSOR_REDUCTION_DTYPE_FLOAT);
    tensor_t *x = tensor_ones(1, (int64_t[]){1000}, TENSOR_FLOAT32, tensor_cuda(0));
    tensor_jit_set_cache_dir(""); /* no disk: both would compile if the lock did not hold */
    const int before = tt_jit_compile_count();
    race_arg a[2] = {{r, x, 0}, {r, x, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&t[i], NULL, race, &a[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    assert_true(a[0].ok && a[1].ok);
    assert_int_equal(tt_jit_compile_count(), before + 1);
    tensor_jit_set_cache_dir(jit_dir);
    tensor_release(x);
    assert_int_equal(tensor_reduction_release(r), TENSOR_OK);
#endif
}

/* A functor that does not compile: a clean error with NVRTC's log; host callbacks only: not
 * implemented for CUDA. */
static void test_jit_errors(void **state) {
    (void)state;
#if TENSOR_HAVE_CUDA
    if (tt_jit_nvrtc_available("test") != TENSOR_OK) return;
    static const tensor_reduction_source broken = {"static float bz(void) { return not_declared; }", "float", "bz",
                                                   "js_first", "js_add", "js_add", "js_done"};
    tensor_reduction_fns f = jsum_fns;
    f.source = &broken;
    tensor_reduction *r = jit_def("jit_broken", 1, sizeof(float), f, TENSOR_REDUCTION_DTYPE_SUM);
    tensor_t *x = tensor_ones(1, (int64_t[]){10}, TENSOR_FLOAT32, tensor_cuda(0));
    const tensor_t *in[1] = {x};
    assert_null(tensor_reduce(r, in, 1, NULL, 0, false, TENSOR_DTYPE_DEFAULT));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(tensor_last_error(), "NVRTC could not compile"));
    assert_non_null(strstr(tensor_last_error(), "not_declared"));
    tensor_release(x);
    assert_int_equal(tensor_reduction_release(r), TENSOR_OK);
#endif
}

/* The caching allocator's segments go back to the device, so memcheck's leak check sees only
 * real leaks. */
static int release_cached(void **state) {
    (void)state;
    return ct_release_cached() == TENSOR_OK ? 0 : -1;
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_vecdot_layouts),
    cmocka_unit_test(test_vecdot_one_output),
    cmocka_unit_test(test_vecdot_lean_rows),
    cmocka_unit_test(test_vecdot_elem_inputs),
    cmocka_unit_test(test_vecdot_outer_exact_width),
    cmocka_unit_test(test_vecdot_two_layouts_dtypes),
    cmocka_unit_test(test_vecdot_tiles),
    cmocka_unit_test(test_vecdot_dtypes),
    cmocka_unit_test(test_vecdot_16bit_products),
    cmocka_unit_test(test_vecdot_16bit_products_rows),
    cmocka_unit_test(test_vecdot_split),
    cmocka_unit_test(test_vecdot_errors),
    cmocka_unit_test(test_user_reduction_refuses_cuda),
    cmocka_unit_test(test_jit_matches_cpu),
    cmocka_unit_test(test_jit_bitwise_builtin),
    cmocka_unit_test(test_jit_caches),
    cmocka_unit_test(test_jit_race),
    cmocka_unit_test(test_jit_errors),
};

static int teardown(void **state) {
    tensor_jit_set_cache_dir(NULL);
    return release_cached(state);
}

TENSOR_TEST_GROUP(cuda_user_reduction, tests, jit_setup, teardown)
