/* CUDA elementwise ops (cuda/elementwise_*.cu on the engine of cuda/loops.cuh) against the CPU
 * backend: every op x dtype x layout through the public API (ops/elementwise.h) on CPU tensors
 * and on the same values on the GPU; the results must match bit for bit, except the libm
 * functions (exp .. silu, float pow), which may differ by a few ulps between the host's and the
 * device's libm (ops/functors/ew_unary.h) and are compared within a tolerance. Op/dtype pairs
 * that ops/ rejects must fail the same way on both devices.
 * Layouts: contiguous, transposed, row and column broadcast, narrowed (unaligned for vectors),
 * 0-size, 0-d, a 0-d GPU operand, a host scalar, mixed dtypes, a long 1-D run (several blocks
 * and a ragged tail), in-place and out= of another dtype; at the engine level also a 0-d CPU
 * tensor operand (passed by value) and a split (> 2^31 elements) launch. Needs a GPU. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_test_util.h"
#include "iterator/iterator.h"
#include "contract/dispatch.h"
#include "ops/elementwise.h"

TENSOR_TEST_NEEDS_GPU()

/* A ct_store_fn. Floats mostly in [-3, 3) with NaN, +-Inf and -0 sprinkled in; integers in
 * [-50, 50] (uint8 [0, 100]), or in +-[1, 50] when `nonzero` (integer division); bool 0/1. */
static void store_ew_value(tensor_dtype dt, void *p, uint64_t r, int nonzero) {
    if (tensor_dtype_is_floating(dt)) {
        double v = (double)(r >> 11) / 9007199254740992.0 * 6.0 - 3.0;
        if (r % 29 == 0) v = NAN;
        else if (r % 31 == 0) v = (r & 32) ? INFINITY : -INFINITY;
        else if (r % 37 == 0) v = -0.0;
        tensor_dtype_store_double(dt, p, v);
    } else if (dt == TENSOR_BOOL) {
        *(unsigned char *)p = (unsigned char)(r & 1);
    } else {
        int64_t v = (int64_t)(r % 101) - 50;
        if (dt == TENSOR_UINT8) v += 50;
        if (nonzero) v = (int64_t)(r % 50) + 1, v = (r & 64) && dt != TENSOR_UINT8 ? -v : v;
        tensor_dtype_store_int64(dt, p, v);
    }
}

static tensor_t *random_cpu(int ndim, const int64_t *sizes, tensor_dtype dt, uint64_t seed, bool nonzero) {
    return ct_random_cpu(ndim, sizes, dt, seed, store_ew_value, nonzero);
}

/* libm ops: compared within a tolerance (relative, plus a small absolute floor). */
static bool is_approx(tensor_ew_op op, tensor_dtype out) {
    if (!tensor_dtype_is_floating(out)) return false;
    switch (op) {
    case TENSOR_EW_EXP: case TENSOR_EW_EXP2: case TENSOR_EW_LOG: case TENSOR_EW_LOG2: case TENSOR_EW_LOG1P:
    case TENSOR_EW_EXPM1: case TENSOR_EW_SIN: case TENSOR_EW_COS: case TENSOR_EW_TAN: case TENSOR_EW_TANH:
    case TENSOR_EW_SIGMOID: case TENSOR_EW_ERF: case TENSOR_EW_GELU: case TENSOR_EW_GELU_TANH: case TENSOR_EW_SILU: case TENSOR_EW_POW:
        return true;
    default: return false;
    }
}

static void compare(const tensor_t *c, const tensor_t *g, tensor_ew_op op, const char *what) {
    assert_non_null(c);
    if (g == NULL) fail_msg("%s: cuda failed: %s", what, tensor_last_error());
    ct_assert_same_shape(c, g, what);
    tensor_dtype dt = tensor_get_dtype(c);
    assert_true(tensor_get_device(g).type == TENSOR_DEVICE_CUDA);
    size_t es = tensor_dtype_size(dt);
    unsigned char *a = ct_download(c), *b = ct_download(g);
    bool approx = is_approx(op, dt);
    double rel = dt == TENSOR_FLOAT64 ? 1e-13 : dt == TENSOR_FLOAT16 ? 2e-3 : dt == TENSOR_BFLOAT16 ? 1.6e-2 : 1e-5;
    double abs_floor = dt == TENSOR_FLOAT64 ? 1e-14 : 1e-6;
    for (int64_t i = 0; i < tensor_numel(c); i++) {
        const unsigned char *pa = a + (size_t)i * es, *pb = b + (size_t)i * es;
        if (memcmp(pa, pb, es) == 0) continue;
        if (tensor_dtype_is_floating(dt)) {
            double x = tensor_dtype_load_double(dt, pa), y = tensor_dtype_load_double(dt, pb);
            if (x != x && y != y) continue; /* NaN payloads may differ */
            if (approx && (x == y || fabs(x - y) <= rel * fmax(fabs(x), fabs(y)) + abs_floor)) continue;
            fail_msg("%s: element %lld of %lld: cpu %.17g, cuda %.17g", what, (long long)i, (long long)tensor_numel(c), x, y);
        }
        fail_msg("%s: element %lld: cpu %lld, cuda %lld", what, (long long)i, (long long)tensor_dtype_load_int64(dt, pa),
                 (long long)tensor_dtype_load_int64(dt, pb));
    }
    free(a);
    free(b);
}

/* compare, then both results go. */
static void compare_release(tensor_t *c, tensor_t *g, tensor_ew_op op, const char *what) {
    compare(c, g, op, what);
    tensor_release(c);
    tensor_release(g);
}

/* The CPU and CUDA results of one call (cst: the status the CPU call left): where the CPU
 * refused the call, CUDA must refuse it with the same status, else compare. Both results go. */
static void check_results(tensor_t *c, tensor_status cst, tensor_t *g, tensor_ew_op op, const char *what) {
    if (c == NULL) {
        if (g != NULL) fail_msg("%s: the CPU rejects it but CUDA ran it", what);
        assert_int_equal(tensor_last_status(), cst);
    } else {
        compare(c, g, op, what);
    }
    tensor_release(c);
    tensor_release(g);
}

static const tensor_dtype all_dtypes[] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_FLOAT64, TENSOR_INT64,
                                          TENSOR_INT32,   TENSOR_INT8,    TENSOR_UINT8,    TENSOR_BOOL};
#define NUM_DTYPES ((int)(sizeof all_dtypes / sizeof all_dtypes[0]))
static bool skip_dtype(tensor_dtype dt) {
    return ct_quick() && !(dt == TENSOR_FLOAT32 || dt == TENSOR_FLOAT16 || dt == TENSOR_INT32 || dt == TENSOR_BOOL);
}

static bool int_division(tensor_ew_op op) {
    return op == TENSOR_EW_DIV_FLOOR || op == TENSOR_EW_DIV_TRUNC || op == TENSOR_EW_REMAINDER;
}

typedef enum {
    B_CONTIG, B_TRANSPOSED, B_ROW, B_COL, B_NARROW, B_EMPTY, B_ZERO_D, B_GPU_0D, B_MIXED, B_SCALAR, B_LONG, B_NUM
} bin_layout;
static const char *const bin_names[] = {"contiguous", "transposed", "row broadcast", "column broadcast", "narrowed",
                                        "0-size", "0-d", "0-d GPU operand", "mixed dtypes", "host scalar", "long 1-D"};

/* The operands of one layout, on the CPU (a, b); *scalar is set for B_SCALAR. */
static void make_operands(bin_layout l, tensor_dtype dt, uint64_t seed, bool nonzero_b, tensor_t **a, tensor_t **b,
                          tensor_scalar *scalar) {
    const int64_t R = 5, C = 133;
    int64_t s2[2] = {R, C}, st[2] = {C, R}, wide[2] = {R, C + 1}, row[1] = {C}, col[2] = {R, 1}, empty[2] = {0, C};
    int64_t lng[1] = {70001};
    *b = NULL;
    switch (l) {
    case B_TRANSPOSED: {
        tensor_t *base = random_cpu(2, st, dt, seed, false);
        *a = tensor_transpose(base, 0, 1);
        tensor_release(base);
        *b = random_cpu(2, s2, dt, seed + 1, nonzero_b);
        break;
    }
    case B_ROW: *a = random_cpu(2, s2, dt, seed, false); *b = random_cpu(1, row, dt, seed + 1, nonzero_b); break;
    case B_COL: *a = random_cpu(2, s2, dt, seed, false); *b = random_cpu(2, col, dt, seed + 1, nonzero_b); break;
    case B_NARROW: {
        tensor_t *x = random_cpu(2, wide, dt, seed, false), *y = random_cpu(2, wide, dt, seed + 1, nonzero_b);
        *a = tensor_narrow(x, 1, 1, C);
        *b = tensor_narrow(y, 1, 1, C);
        tensor_release(x);
        tensor_release(y);
        break;
    }
    case B_EMPTY: *a = random_cpu(2, empty, dt, seed, false); *b = random_cpu(2, empty, dt, seed + 1, nonzero_b); break;
    case B_ZERO_D: *a = random_cpu(0, NULL, dt, seed, false); *b = random_cpu(0, NULL, dt, seed + 1, nonzero_b); break;
    case B_GPU_0D: *a = random_cpu(2, s2, dt, seed, false); *b = random_cpu(0, NULL, dt, seed + 1, nonzero_b); break;
    case B_MIXED: {
        tensor_dtype other = tensor_dtype_is_floating(dt) ? (dt == TENSOR_FLOAT64 ? TENSOR_FLOAT32 : TENSOR_FLOAT64)
                                                          : (dt == TENSOR_INT64 ? TENSOR_INT8 : TENSOR_INT64);
        *a = random_cpu(2, s2, dt, seed, false);
        *b = random_cpu(2, s2, other, seed + 1, nonzero_b);
        break;
    }
    case B_SCALAR:
        *a = random_cpu(2, s2, dt, seed, false);
        *scalar = tensor_dtype_is_floating(dt) ? tensor_scalar_float(1.75) : dt == TENSOR_BOOL ? tensor_scalar_bool(true)
                                                                                               : tensor_scalar_int(3);
        break;
    case B_LONG: *a = random_cpu(1, lng, dt, seed, false); *b = random_cpu(1, lng, dt, seed + 1, nonzero_b); break;
    default: *a = random_cpu(2, s2, dt, seed, false); *b = random_cpu(2, s2, dt, seed + 1, nonzero_b); break;
    }
}

/* Runs one binary op on both backends and compares; an op/dtype that ops/ rejects must be
 * rejected on CUDA with the same status. */
static void check_binary(tensor_ew_op op, tensor_dtype dt, bin_layout l, uint64_t seed) {
    tensor_t *ca, *cb;
    tensor_scalar sc = tensor_scalar_int(0);
    make_operands(l, dt, seed, int_division(op), &ca, &cb, &sc);
    tensor_t *ga = ct_to_gpu(ca), *gb = cb ? ct_to_gpu(cb) : NULL;
    tensor_t *cr = cb ? tensor_binary(op, ca, cb) : tensor_binary_scalar(op, ca, sc);
    tensor_status cst = tensor_last_status();
    tensor_t *gr = gb ? tensor_binary(op, ga, gb) : tensor_binary_scalar(op, ga, sc);
    char what[128];
    snprintf(what, sizeof what, "%s(%s, %s)", tensor_ew_op_name(op), tensor_dtype_name(dt), bin_names[l]);
    check_results(cr, cst, gr, op, what);
    tensor_release(ca);
    tensor_release(cb);
    tensor_release(ga);
    tensor_release(gb);
}

static const tensor_ew_op binary_ops[] = {
    TENSOR_EW_ADD,     TENSOR_EW_SUB,     TENSOR_EW_MUL,         TENSOR_EW_DIV,        TENSOR_EW_DIV_FLOOR,
    TENSOR_EW_DIV_TRUNC, TENSOR_EW_REMAINDER, TENSOR_EW_POW,     TENSOR_EW_MAXIMUM,    TENSOR_EW_MINIMUM,
    TENSOR_EW_FMAX,    TENSOR_EW_FMIN,    TENSOR_EW_EQ,          TENSOR_EW_NE,         TENSOR_EW_LT,
    TENSOR_EW_LE,      TENSOR_EW_GT,      TENSOR_EW_GE,          TENSOR_EW_LOGICAL_AND, TENSOR_EW_LOGICAL_OR,
    TENSOR_EW_LOGICAL_XOR, TENSOR_EW_BITWISE_AND, TENSOR_EW_BITWISE_OR, TENSOR_EW_BITWISE_XOR};
#define NUM_BINARY ((int)(sizeof binary_ops / sizeof binary_ops[0]))

static void test_binary_ops(void **state) {
    (void)state;
    uint64_t seed = 1;
    for (int o = 0; o < NUM_BINARY; o++)
        for (int d = 0; d < NUM_DTYPES; d++) {
            if (skip_dtype(all_dtypes[d])) continue;
            for (int l = 0; l < B_NUM; l++) {
                if (ct_quick() && l == B_LONG) continue;
                check_binary(binary_ops[o], all_dtypes[d], (bin_layout)l, seed += 2);
            }
        }
}

/* add/sub with alpha != 1 (the device must not fuse a + alpha * b into one FMA), in-place and
 * out= of a wider dtype (the dynamic-casting store). */
static void test_alpha_inplace_out(void **state) {
    (void)state;
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_FLOAT64, TENSOR_INT32, TENSOR_INT8};
    int64_t s[2] = {7, 301};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        tensor_dtype dt = dts[k];
        tensor_t *ca = random_cpu(2, s, dt, 100 + k, false), *cb = random_cpu(2, s, dt, 200 + k, false);
        tensor_t *ga = ct_to_gpu(ca), *gb = ct_to_gpu(cb);
        tensor_scalar alpha = tensor_dtype_is_floating(dt) ? tensor_scalar_float(0.3) : tensor_scalar_int(-3);
        tensor_t *cr = tensor_add(ca, cb, alpha), *gr = tensor_add(ga, gb, alpha);
        compare_release(cr, gr, TENSOR_EW_ADD, "add with alpha");
        cr = tensor_sub(ca, cb, alpha);
        gr = tensor_sub(ga, gb, alpha);
        compare_release(cr, gr, TENSOR_EW_SUB, "sub with alpha");
        /* in place: the output is the first input */
        assert_int_equal(tensor_binary_(TENSOR_EW_MUL, ca, cb), TENSOR_OK);
        if (tensor_binary_(TENSOR_EW_MUL, ga, gb) != TENSOR_OK) fail_msg("mul_: %s", tensor_last_error());
        compare(ca, ga, TENSOR_EW_MUL, "mul_ in place");
        /* out= float64 (or int64): computed in dt, rounded to dt, then widened while storing */
        tensor_dtype wide = tensor_dtype_is_floating(dt) ? TENSOR_FLOAT64 : TENSOR_INT64;
        tensor_t *co = tensor_empty(2, s, wide, tensor_cpu()), *go = tensor_empty(2, s, wide, tensor_cuda(0));
        assert_int_equal(tensor_binary_out(TENSOR_EW_ADD, co, ca, cb), TENSOR_OK);
        if (tensor_binary_out(TENSOR_EW_ADD, go, ga, gb) != TENSOR_OK) fail_msg("add out=: %s", tensor_last_error());
        compare_release(co, go, TENSOR_EW_ADD, "add out= wider dtype");
        tensor_release(ca);
        tensor_release(cb);
        tensor_release(ga);
        tensor_release(gb);
    }
}

static const tensor_ew_op unary_ops[] = {
    TENSOR_EW_NEG,   TENSOR_EW_ABS,   TENSOR_EW_SIGN,    TENSOR_EW_EXP,     TENSOR_EW_EXP2,       TENSOR_EW_LOG,
    TENSOR_EW_LOG2,  TENSOR_EW_LOG1P, TENSOR_EW_EXPM1,   TENSOR_EW_SQRT,    TENSOR_EW_RSQRT,      TENSOR_EW_SIN,
    TENSOR_EW_COS,   TENSOR_EW_TAN,   TENSOR_EW_TANH,    TENSOR_EW_SIGMOID, TENSOR_EW_ERF,        TENSOR_EW_RECIPROCAL,
    TENSOR_EW_RELU,  TENSOR_EW_GELU,  TENSOR_EW_GELU_TANH, TENSOR_EW_SILU,    TENSOR_EW_FLOOR,   TENSOR_EW_CEIL,       TENSOR_EW_ROUND,
    TENSOR_EW_TRUNC, TENSOR_EW_ISNAN, TENSOR_EW_ISINF,   TENSOR_EW_ISFINITE, TENSOR_EW_LOGICAL_NOT, TENSOR_EW_BITWISE_NOT};
#define NUM_UNARY ((int)(sizeof unary_ops / sizeof unary_ops[0]))

typedef enum { U_CONTIG, U_TRANSPOSED, U_NARROW, U_EXPANDED, U_EMPTY, U_ZERO_D, U_LONG, U_NUM } un_layout;
static const char *const un_names[] = {"contiguous", "transposed", "narrowed", "expanded", "0-size", "0-d", "long 1-D"};

static tensor_t *unary_operand(un_layout l, tensor_dtype dt, uint64_t seed) {
    int64_t s2[2] = {5, 133}, st[2] = {133, 5}, wide[2] = {5, 134}, row[2] = {1, 133}, empty[2] = {0, 3}, lng[1] = {70001};
    tensor_t *base, *v;
    switch (l) {
    case U_TRANSPOSED: base = random_cpu(2, st, dt, seed, false); v = tensor_transpose(base, 0, 1); break;
    case U_NARROW: base = random_cpu(2, wide, dt, seed, false); v = tensor_narrow(base, 1, 1, 133); break;
    case U_EXPANDED: base = random_cpu(2, row, dt, seed, false); v = tensor_expand(base, 2, s2); break;
    case U_EMPTY: return random_cpu(2, empty, dt, seed, false);
    case U_ZERO_D: return random_cpu(0, NULL, dt, seed, false);
    case U_LONG: return random_cpu(1, lng, dt, seed, false);
    default: return random_cpu(2, s2, dt, seed, false);
    }
    tensor_release(base);
    return v;
}

static void test_unary_ops(void **state) {
    (void)state;
    uint64_t seed = 5000;
    for (int o = 0; o < NUM_UNARY; o++)
        for (int d = 0; d < NUM_DTYPES; d++) {
            if (skip_dtype(all_dtypes[d])) continue;
            for (int l = 0; l < U_NUM; l++) {
                if (ct_quick() && l == U_LONG) continue;
                tensor_ew_op op = unary_ops[o];
                tensor_t *ca = unary_operand((un_layout)l, all_dtypes[d], seed++);
                tensor_t *ga = ct_to_gpu(ca);
                tensor_t *cr = tensor_unary(op, ca);
                tensor_status cst = tensor_last_status();
                tensor_t *gr = tensor_unary(op, ga);
                char what[128];
                snprintf(what, sizeof what, "%s(%s, %s)", tensor_ew_op_name(op), tensor_dtype_name(all_dtypes[d]), un_names[l]);
                check_results(cr, cst, gr, op, what);
                tensor_release(ca);
                tensor_release(ga);
            }
        }
}

/* where (bool condition, broadcast) and clamp (tensor bounds, one NULL bound, scalar bounds). */
static void test_ternary_ops(void **state) {
    (void)state;
    int64_t s2[2] = {6, 131}, row[1] = {131}, col[2] = {6, 1};
    uint64_t seed = 9000;
    for (int d = 0; d < NUM_DTYPES; d++) {
        tensor_dtype dt = all_dtypes[d];
        if (skip_dtype(dt)) continue;
        tensor_t *cc = random_cpu(2, s2, TENSOR_BOOL, seed++, false), *ca = random_cpu(1, row, dt, seed++, false),
                 *cb = random_cpu(2, col, dt, seed++, false), *cx = random_cpu(2, s2, dt, seed++, false);
        tensor_t *gc = ct_to_gpu(cc), *ga = ct_to_gpu(ca), *gb = ct_to_gpu(cb), *gx = ct_to_gpu(cx);
        tensor_t *cr = tensor_where(cc, ca, cb), *gr = tensor_where(gc, ga, gb);
        compare_release(cr, gr, TENSOR_EW_WHERE, "where broadcast");
        cr = tensor_where(cc, cx, cx);
        gr = tensor_where(gc, gx, gx);
        compare_release(cr, gr, TENSOR_EW_WHERE, "where same layout");
        cr = tensor_clamp(cx, cb, ca);
        tensor_status cst = tensor_last_status();
        gr = tensor_clamp(gx, gb, ga);
        check_results(cr, cst, gr, TENSOR_EW_CLAMP, "clamp tensor bounds");
        cr = tensor_clamp(cx, NULL, ca);
        cst = tensor_last_status();
        gr = tensor_clamp(gx, NULL, ga);
        check_results(cr, cst, gr, TENSOR_EW_CLAMP, "clamp max only");
        tensor_scalar lo = tensor_scalar_int(-1), hi = tensor_scalar_float(1.5);
        cr = tensor_clamp_scalar(cx, &lo, &hi);
        cst = tensor_last_status();
        gr = tensor_clamp_scalar(gx, &lo, &hi);
        check_results(cr, cst, gr, TENSOR_EW_CLAMP, "clamp scalar bounds");
        tensor_release(cc);
        tensor_release(ca);
        tensor_release(cb);
        tensor_release(cx);
        tensor_release(gc);
        tensor_release(ga);
        tensor_release(gb);
        tensor_release(gx);
    }
}

/* copy_ between every dtype pair (float8 too) into a strided destination, cast, fill. */
static void test_copy_cast_fill(void **state) {
    (void)state;
    int64_t s2[2] = {9, 67}, st[2] = {67, 9};
    uint64_t seed = 12000;
    for (int a = 0; a < TENSOR_NUM_DTYPES; a++)
        for (int b = 0; b < TENSOR_NUM_DTYPES; b++) {
            if (ct_quick() && a != b && a != TENSOR_FLOAT32) continue;
            tensor_t *csrc = random_cpu(2, s2, (tensor_dtype)a, seed++, false), *gsrc = ct_to_gpu(csrc);
            /* destination: the transpose of a [67, 9] tensor, so the store is strided */
            tensor_t *cbase = tensor_zeros(2, st, (tensor_dtype)b, tensor_cpu()),
                     *gbase = tensor_zeros(2, st, (tensor_dtype)b, tensor_cuda(0));
            tensor_t *cd = tensor_transpose(cbase, 0, 1), *gd = tensor_transpose(gbase, 0, 1);
            tensor_status cst = tensor_copy_(cd, csrc);
            tensor_status gst = tensor_copy_(gd, gsrc);
            char what[96];
            snprintf(what, sizeof what, "copy_ %s -> %s", tensor_dtype_name((tensor_dtype)a), tensor_dtype_name((tensor_dtype)b));
            assert_int_equal(cst, gst);
            if (cst == TENSOR_OK) compare(cbase, gbase, TENSOR_EW_COPY, what);
            tensor_t *cc = tensor_cast(csrc, (tensor_dtype)b), *gc = tensor_cast(gsrc, (tensor_dtype)b);
            if (cc != NULL) compare(cc, gc, TENSOR_EW_COPY, "cast");
            tensor_release(cc);
            tensor_release(gc);
            tensor_release(cd);
            tensor_release(gd);
            tensor_release(cbase);
            tensor_release(gbase);
            tensor_release(csrc);
            tensor_release(gsrc);
        }
    for (int b = 0; b < TENSOR_NUM_DTYPES; b++) {
        tensor_t *cb = tensor_zeros(2, st, (tensor_dtype)b, tensor_cpu()), *gb = tensor_zeros(2, st, (tensor_dtype)b, tensor_cuda(0));
        tensor_t *cv = tensor_narrow(cb, 1, 1, 7), *gv = tensor_narrow(gb, 1, 1, 7);
        const tensor_scalar vals[] = {tensor_scalar_float(-2.7), tensor_scalar_int(300), tensor_scalar_bool(true)};
        for (int k = 0; k < 3; k++) {
            tensor_status cst = tensor_fill_(cv, vals[k]);
            assert_int_equal(tensor_fill_(gv, vals[k]), cst);
            if (cst == TENSOR_OK) compare(cb, gb, TENSOR_EW_FILL, "fill_ narrowed");
        }
        tensor_release(cv);
        tensor_release(gv);
        tensor_release(cb);
        tensor_release(gb);
    }
}

/* The engine with a 0-d CPU tensor as an operand of a CUDA op (PyTorch's CPU scalars): read on
 * the host, passed to the kernel by value. ops/ does not send these yet (it keeps every operand
 * on one device), so the iterator is built here as ops/ would, minus the same-device rule. */
static tensor_t *run_engine(tensor_ew_op op, tensor_op slot, tensor_dtype out, tensor_dtype common, const tensor_t *a,
                            const tensor_t *b) {
    tensor_iter_config *cfg = tensor_iter_config_new("test_engine");
    assert_non_null(cfg);
    tensor_iter_config_disable(cfg, TENSOR_ITER_SAME_DTYPE | TENSOR_ITER_SAME_DEVICE);
    tensor_iter_config_add_output_dtype(cfg, NULL, out);
    tensor_iter_config_add_input(cfg, a);
    tensor_iter_config_add_input(cfg, b);
    tensor_iter_t *it = tensor_iter_build(cfg);
    tensor_iter_config_free(cfg);
    if (it == NULL) fail_msg("build: %s", tensor_last_error());
    tensor_kernel_params p;
    memset(&p, 0, sizeof p);
    p.ew_op = op;
    p.ew_dtype = common;
    p.scalar = 1.0;
    p.scalar_i = 1;
    tensor_device dev = tensor_get_device(a).type == TENSOR_DEVICE_CUDA ? tensor_get_device(a) : tensor_get_device(b);
    tensor_kernel_fn fn = tensor_dispatch_get(slot, dev.type, "test_engine");
    assert_non_null(fn);
    tensor_t *r = fn(it, &p) == TENSOR_OK ? tensor_iter_output(it, 0) : NULL;
    tensor_iter_free(it);
    return r;
}

static void test_cpu_scalar_operand(void **state) {
    (void)state;
    int64_t s2[2] = {4, 77};
    const tensor_dtype dts[] = {TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_FLOAT64, TENSOR_INT32};
    for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
        tensor_dtype dt = dts[k];
        tensor_t *ca = random_cpu(2, s2, dt, 300 + k, false), *ga = ct_to_gpu(ca);
        /* a float64 0-d CPU operand: rounded to the common dtype first (ew_common.h) */
        tensor_t *s = random_cpu(0, NULL, TENSOR_FLOAT64, 400 + k, false);
        if (!tensor_dtype_is_floating(dt)) {
            tensor_release(s);
            s = random_cpu(0, NULL, TENSOR_INT64, 400 + k, false);
        }
        const tensor_ew_op ops[] = {TENSOR_EW_SUB, TENSOR_EW_MUL, TENSOR_EW_LT};
        for (int o = 0; o < 3; o++) {
            tensor_dtype out = ops[o] == TENSOR_EW_LT ? TENSOR_BOOL : dt;
            tensor_t *cr = run_engine(ops[o], TENSOR_OP_EW_BINARY, out, dt, ca, s);
            tensor_t *gr = run_engine(ops[o], TENSOR_OP_EW_BINARY, out, dt, ga, s);
            compare_release(cr, gr, ops[o], "CPU 0-d operand (right)");
            cr = run_engine(ops[o], TENSOR_OP_EW_BINARY, out, dt, s, ca);
            gr = run_engine(ops[o], TENSOR_OP_EW_BINARY, out, dt, s, ga);
            compare_release(cr, gr, ops[o], "CPU 0-d operand (left)");
        }
        tensor_release(s);
        tensor_release(ca);
        tensor_release(ga);
    }
    /* a CPU operand that is not 0-d is refused (no crash, no leak) */
    int64_t one[1] = {77};
    tensor_t *g = tensor_zeros(2, s2, TENSOR_FLOAT32, tensor_cuda(0)), *c = tensor_zeros(1, one, TENSOR_FLOAT32, tensor_cpu());
    tensor_iter_config *cfg = tensor_iter_config_new("test_engine");
    tensor_iter_config_disable(cfg, TENSOR_ITER_SAME_DTYPE | TENSOR_ITER_SAME_DEVICE);
    tensor_iter_config_add_output_dtype(cfg, NULL, TENSOR_FLOAT32);
    tensor_iter_config_add_input(cfg, g);
    tensor_iter_config_add_input(cfg, c);
    tensor_iter_t *it = tensor_iter_build(cfg);
    tensor_iter_config_free(cfg);
    assert_non_null(it);
    tensor_kernel_params p;
    memset(&p, 0, sizeof p);
    p.ew_op = TENSOR_EW_MUL;
    p.ew_dtype = TENSOR_FLOAT32;
    tensor_kernel_fn fn = tensor_dispatch_get(TENSOR_OP_EW_BINARY, TENSOR_DEVICE_CUDA, "test_engine");
    assert_int_equal(fn(it, &p), TENSOR_ERR_DEVICE);
    assert_error(TENSOR_ERR_DEVICE, "is on the CPU and is not 0-d");
    tensor_iter_free(it);
    tensor_release(g);
    tensor_release(c);
}

/* The same through the public API: tensor_mul(cuda, 0-d cpu) and (0-d cpu, cuda) run on the
 * GPU with the CPU value passed by value; a 1-d CPU operand is a device error. */
static void test_cpu_scalar_public(void **state) {
    (void)state;
    int64_t s2[2] = {4, 77};
    tensor_t *ca = random_cpu(2, s2, TENSOR_FLOAT32, 500, false), *ga = ct_to_gpu(ca);
    tensor_t *s = random_cpu(0, NULL, TENSOR_FLOAT32, 501, false);
    tensor_t *cr = tensor_mul(ca, s), *gr = tensor_mul(ga, s);
    if (gr == NULL) fail_msg("tensor_mul(cuda, 0-d cpu): %s", tensor_last_error());
    assert_int_equal(tensor_get_device(gr).type, TENSOR_DEVICE_CUDA);
    compare_release(cr, gr, TENSOR_EW_MUL, "public API, CPU 0-d right");
    cr = tensor_mul(s, ca);
    gr = tensor_mul(s, ga);
    if (gr == NULL) fail_msg("tensor_mul(0-d cpu, cuda): %s", tensor_last_error());
    assert_int_equal(tensor_get_device(gr).type, TENSOR_DEVICE_CUDA);
    compare_release(cr, gr, TENSOR_EW_MUL, "public API, CPU 0-d left");
    int64_t one[1] = {77};
    tensor_t *c1 = tensor_zeros(1, one, TENSOR_FLOAT32, tensor_cpu());
    assert_null(tensor_mul(ga, c1));
    assert_error(TENSOR_ERR_DEVICE, "same device");
    tensor_release(c1);
    tensor_release(s);
    tensor_release(ca);
    tensor_release(ga);
}

/* float16/bfloat16 with host scalars (docs/elementwise.md §6): the opmath ops (add/sub/mul on
 * either side, alpha, the three divisions by a scalar) and the rounding ones (comparisons,
 * a scalar dividend, clamp's scalar bounds) give the CPU backend's bits, which
 * tests/ops/test_ew_opmath.c checks against float32 references. Values 0.01 .. 19.99 as
 * there, plus the random ones (NaN, inf, -0). */
static void test_opmath_scalars(void **state) {
    (void)state;
    static const tensor_dtype dts[] = {TENSOR_FLOAT16, TENSOR_BFLOAT16};
    const tensor_scalar scalars[] = {tensor_scalar_float(0.1), tensor_scalar_float(1.0 / 3.0), tensor_scalar_int(2049),
                                     tensor_scalar_float(-0.7)};
    const tensor_scalar alpha = tensor_scalar_float(0.1), lo = tensor_scalar_float(0.1), hi = tensor_scalar_float(0.7);
    for (int di = 0; di < 2; di++) {
        const tensor_dtype d = dts[di];
        double v[1999];
        for (int i = 0; i < 1999; i++) v[i] = (i + 1) * 0.01;
        size_t es = tensor_dtype_size(d);
        unsigned char *buf = malloc(1999 * es);
        for (int i = 0; i < 1999; i++) tensor_dtype_store_double(d, buf + (size_t)i * es, v[i]);
        int64_t n = 1999;
        tensor_t *c1 = tensor_from_buffer(buf, 1, &n, d, tensor_cpu());
        free(buf);
        int64_t s2[2] = {3, 257};
        tensor_t *c2 = random_cpu(2, s2, d, 900 + di, false);
        for (int which = 0; which < 2; which++) {
            tensor_t *c = which ? c2 : c1, *g = ct_to_gpu(c);
            for (int si = 0; si < 4; si++) {
                const tensor_scalar s = scalars[si];
#define OPM(CALL_C, CALL_G, OP, WHAT)                                                              \
    do {                                                                                           \
        tensor_t *rc = CALL_C, *rg = CALL_G;                                                       \
        if (rc == NULL) fail_msg("%s cpu: %s", WHAT, tensor_last_error());                         \
        compare_release(rc, rg, OP, WHAT);                                                         \
    } while (0)
                OPM(tensor_add_scalar(c, s, tensor_scalar_int(1)), tensor_add_scalar(g, s, tensor_scalar_int(1)),
                    TENSOR_EW_ADD, "t + s");
                OPM(tensor_add_scalar(c, s, alpha), tensor_add_scalar(g, s, alpha), TENSOR_EW_ADD, "t + 0.1 s");
                OPM(tensor_binary_scalar_lhs(TENSOR_EW_ADD, s, c), tensor_binary_scalar_lhs(TENSOR_EW_ADD, s, g),
                    TENSOR_EW_ADD, "s + t");
                OPM(tensor_sub_scalar(c, s, tensor_scalar_int(1)), tensor_sub_scalar(g, s, tensor_scalar_int(1)),
                    TENSOR_EW_SUB, "t - s");
                OPM(tensor_binary_scalar_lhs(TENSOR_EW_SUB, s, c), tensor_binary_scalar_lhs(TENSOR_EW_SUB, s, g),
                    TENSOR_EW_SUB, "s - t");
                OPM(tensor_mul_scalar(c, s), tensor_mul_scalar(g, s), TENSOR_EW_MUL, "t * s");
                OPM(tensor_binary_scalar_lhs(TENSOR_EW_MUL, s, c), tensor_binary_scalar_lhs(TENSOR_EW_MUL, s, g),
                    TENSOR_EW_MUL, "s * t");
                OPM(tensor_div_scalar(c, s, TENSOR_ROUNDING_NONE), tensor_div_scalar(g, s, TENSOR_ROUNDING_NONE),
                    TENSOR_EW_DIV, "t / s");
                OPM(tensor_div_scalar(c, s, TENSOR_ROUNDING_FLOOR), tensor_div_scalar(g, s, TENSOR_ROUNDING_FLOOR),
                    TENSOR_EW_DIV_FLOOR, "t // s");
                OPM(tensor_div_scalar(c, s, TENSOR_ROUNDING_TRUNC), tensor_div_scalar(g, s, TENSOR_ROUNDING_TRUNC),
                    TENSOR_EW_DIV_TRUNC, "trunc(t / s)");
                OPM(tensor_binary_scalar_lhs(TENSOR_EW_DIV, s, c), tensor_binary_scalar_lhs(TENSOR_EW_DIV, s, g),
                    TENSOR_EW_DIV, "s / t (rounded scalar)");
                OPM(tensor_eq_scalar(c, s), tensor_eq_scalar(g, s), TENSOR_EW_EQ, "t == s (rounded scalar)");
                OPM(tensor_lt_scalar(c, s), tensor_lt_scalar(g, s), TENSOR_EW_LT, "t < s (rounded scalar)");
#undef OPM
            }
            tensor_t *cc = tensor_clamp_scalar(c, &lo, &hi), *gc = tensor_clamp_scalar(g, &lo, &hi);
            compare(cc, gc, TENSOR_EW_CLAMP, "clamp(t, 0.1, 0.7)");
            /* in place: the same bits */
            tensor_t *ci = tensor_clone(c), *gi = tensor_clone(g);
            assert_int_equal(tensor_add_scalar_(ci, tensor_scalar_float(0.1), tensor_scalar_int(1)), TENSOR_OK);
            assert_int_equal(tensor_add_scalar_(gi, tensor_scalar_float(0.1), tensor_scalar_int(1)), TENSOR_OK);
            compare(ci, gi, TENSOR_EW_ADD, "t += 0.1");
            tensor_release(cc); tensor_release(gc); tensor_release(ci); tensor_release(gi);
            tensor_release(g);
        }
        tensor_release(c1);
        tensor_release(c2);
    }
}

/* out= of another shape on CUDA (docs/elementwise.md §7): resized, the storage grown for the
 * views that share it, the CPU's values; a CPU out of CUDA inputs stays as it was. */
static void test_out_resize(void **state) {
    (void)state;
    int64_t s2[2] = {64, 129}, two = 2;
    tensor_t *ca = random_cpu(2, s2, TENSOR_FLOAT32, 910, false), *ga = ct_to_gpu(ca);
    tensor_t *cb = random_cpu(1, s2 + 1, TENSOR_FLOAT16, 911, false), *gb = ct_to_gpu(cb);
    tensor_t *cr = tensor_add(ca, cb, tensor_scalar_int(1));
    tensor_t *small = random_cpu(1, &two, TENSOR_FLOAT32, 912, false), *gout = ct_to_gpu(small);
    tensor_t *view = tensor_narrow(gout, 0, 1, 1);
    float second;
    assert_int_equal(tensor_to_buffer(view, &second, sizeof second), TENSOR_OK);
    tensor_clear_warning();
    assert_int_equal(tensor_add_out(gout, ga, gb, tensor_scalar_int(1)), TENSOR_OK);
    assert_non_null(strstr(tensor_last_warning(), "had shape [2]"));
    assert_true(tensor_is_contiguous(gout));
    compare(cr, gout, TENSOR_EW_ADD, "resized CUDA out");
    float got;
    assert_int_equal(tensor_to_buffer(view, &got, sizeof got), TENSOR_OK); /* element 1 of the grown block */
    float *all = ct_download(cr);
    assert_true(got == all[1]);
    free(all);
    /* an empty CUDA out of another dtype, silently; a unary and a ternary op */
    tensor_t *e = tensor_empty(1, (int64_t[]){0}, TENSOR_FLOAT64, tensor_cuda(0));
    tensor_clear_warning();
    assert_int_equal(tensor_neg_out(e, ga), TENSOR_OK);
    assert_string_equal(tensor_last_warning(), "");
    tensor_t *cn = tensor_neg(ca), *cn64 = tensor_cast(cn, TENSOR_FLOAT64);
    compare(cn64, e, TENSOR_EW_NEG, "resized empty CUDA out, float64");
    const tensor_scalar lo = tensor_scalar_float(-0.5);
    tensor_t *cl = tensor_clamp_scalar(ca, &lo, NULL), *go = tensor_empty(0, NULL, TENSOR_FLOAT32, tensor_cuda(0));
    tensor_t *lo_t = tensor_full(0, NULL, -0.5, TENSOR_FLOAT32, tensor_cpu());
    assert_int_equal(tensor_clamp_out(go, ga, lo_t, NULL), TENSOR_OK); /* a 0-d CPU bound */
    compare(cl, go, TENSOR_EW_MAXIMUM, "resized CUDA clamp out");
    /* a CPU out of CUDA inputs: the device error, not resized */
    tensor_t *cpu_out = tensor_zeros(1, &two, TENSOR_FLOAT32, tensor_cpu());
    assert_int_not_equal(tensor_add_out(cpu_out, ga, gb, tensor_scalar_int(1)), TENSOR_OK);
    assert_int_equal(tensor_ndim(cpu_out), 1);
    assert_int_equal(tensor_size(cpu_out, 0), 2);
    /* a reduction's out= too */
    tensor_t *gs = tensor_empty(1, (int64_t[]){5}, TENSOR_FLOAT32, tensor_cuda(0));
    assert_int_equal(tensor_sum_out(gs, ga, (int[]){1}, 1, false, TENSOR_DTYPE_DEFAULT), TENSOR_OK);
    assert_int_equal(tensor_size(gs, 0), 64);
    tensor_release(ca); tensor_release(ga); tensor_release(cb); tensor_release(gb); tensor_release(cr);
    tensor_release(small); tensor_release(gout); tensor_release(view); tensor_release(e); tensor_release(cn);
    tensor_release(cn64); tensor_release(cl); tensor_release(go); tensor_release(lo_t); tensor_release(cpu_out);
    tensor_release(gs);
}

/* > 2^31 elements: an int8 add over a [2^21 + 3, 1024] broadcast of one row and a host scalar;
 * the engine splits the iterator into 32-bit pieces. Sampled rows checked. Not under QUICK. */
static void test_split_large(void **state) {
    (void)state;
    if (ct_quick()) return;
    const int64_t cols = 1024, rows = (INT64_C(1) << 21) + 3;
    int64_t s[2] = {1, cols}, e[2] = {rows, cols};
    tensor_t *c = random_cpu(2, s, TENSOR_INT8, 77, false), *g = ct_to_gpu(c);
    tensor_t *gx = tensor_expand(g, 2, e);
    tensor_t *gr = tensor_binary_scalar(TENSOR_EW_ADD, gx, tensor_scalar_int(5));
    if (gr == NULL) fail_msg("add: %s", tensor_last_error());
    tensor_t *cr = tensor_binary_scalar(TENSOR_EW_ADD, c, tensor_scalar_int(5));
    int8_t *want = ct_download(cr), *all = ct_download(gr);
    ct_assert_sampled_rows(all, want, rows, cols);
    free(want);
    free(all);
    tensor_release(cr);
    tensor_release(gr);
    tensor_release(gx);
    tensor_release(g);
    tensor_release(c);
}

/* Same inputs, same GPU: bitwise the same result on every run. */
static void test_reproducible(void **state) {
    (void)state;
    int64_t n[1] = {100003};
    tensor_t *c = random_cpu(1, n, TENSOR_FLOAT32, 4242, false), *g = ct_to_gpu(c);
    tensor_t *r1 = tensor_unary(TENSOR_EW_GELU, g), *r2 = tensor_unary(TENSOR_EW_GELU, g);
    assert_non_null(r1);
    assert_non_null(r2);
    void *a = ct_download(r1), *b = ct_download(r2);
    assert_int_equal(memcmp(a, b, (size_t)n[0] * 4), 0);
    free(a);
    free(b);
    tensor_release(r1);
    tensor_release(r2);
    tensor_release(g);
    tensor_release(c);
}

static void test_release_cache(void **state) {
    (void)state;
    assert_int_equal(tensor_cuda_synchronize(), TENSOR_OK);
    assert_int_equal(tensor_cuda_empty_cache(), TENSOR_OK);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_binary_ops),      cmocka_unit_test(test_alpha_inplace_out),
    cmocka_unit_test(test_unary_ops),       cmocka_unit_test(test_ternary_ops),
    cmocka_unit_test(test_copy_cast_fill),  cmocka_unit_test(test_cpu_scalar_operand), cmocka_unit_test(test_cpu_scalar_public),
    cmocka_unit_test(test_opmath_scalars),  cmocka_unit_test(test_out_resize),
    cmocka_unit_test(test_split_large),     cmocka_unit_test(test_reproducible),
    cmocka_unit_test(test_release_cache),
};

TENSOR_TEST_GROUP(cuda_elementwise, tests, NULL, NULL)
