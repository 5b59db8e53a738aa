/* Shared by the CUDA reduction tests (tests/cuda/test_cuda_reduce*.c): every reduction of
 * ops/ops.h run on the same input on the CPU backend and on CUDA, compared: exactly for
 * integer and bool results, indices, extremes and counts; within a bound that follows the
 * accumulator's epsilon for float sums and moments (the two backends add in different orders).
 * NaN equals NaN (the bits of a NaN differ between x86 and the GPU). Errors must agree too:
 * when the CPU refuses a call (amax over an empty dim), CUDA must refuse it with the same
 * status. Random tensors, transfers and views come from cuda_test_util.h (every CUDA test's). */
#ifndef TENSOR_TEST_CUDA_REDUCE_UTIL_H
#define TENSOR_TEST_CUDA_REDUCE_UTIL_H

#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_test_util.h"

static inline bool cr_is_float(tensor_dtype d) { return tensor_dtype_is_floating(d); }

/* How input values are drawn. */
typedef enum {
    M_UNIFORM,  /* floats uniform in [-1, 1); integers over their whole range; bool 0/1 */
    M_SMALLINT, /* -2..2 (ties everywhere, zeros for count_nonzero); bool 0/1 */
    M_SPARSE,   /* 0 but one element in 64 (any) */
    M_DENSE,    /* non-zero but one element in 64 (all) */
    M_NAN,      /* M_UNIFORM with one element in 50 NaN (floats) */
    M_ONES      /* 1 */
} value_mode;

/* A ct_store_fn: `mode` is a value_mode. */
static inline void cr_store_value(tensor_dtype dt, void *p, uint64_t r, int mode) {
    double v;
    switch (mode) {
    case M_SMALLINT: v = (double)(int)(r % 5) - 2.0; break;
    case M_SPARSE: v = (r % 64 == 0) ? (double)(1 + (r >> 8) % 3) : 0.0; break;
    case M_DENSE: v = (r % 64 == 0) ? 0.0 : (double)(1 + (r >> 8) % 3); break;
    case M_ONES: v = 1.0; break;
    case M_NAN:
        if (cr_is_float(dt) && r % 50 == 0) {
            tensor_dtype_store_double(dt, p, NAN);
            return;
        }
        /* fall through */
    default:
        /* Integers: the low bytes of a second word mixed from r, as these tests have always
         * drawn them (the same inputs, so the same cases). */
        if (!cr_is_float(dt) && dt != TENSOR_BOOL) r = ct_rng(&r);
        ct_store_uniform(dt, p, r, 0);
        return;
    }
    if (dt == TENSOR_BOOL) *(unsigned char *)p = (unsigned char)(v != 0.0);
    else tensor_dtype_store_double(dt, p, v);
}

/* A contiguous CPU tensor with fresh values drawn in `mode` (ndim 0: one element). */
static inline tensor_t *cr_random_cpu(int ndim, const int64_t *sizes, tensor_dtype dt, uint64_t seed, value_mode mode) {
    return ct_random_cpu(ndim, sizes, dt, seed, cr_store_value, (int)mode);
}

/* Every reduction of ops/ops.h. */
typedef enum {
    OP_SUM,
    OP_NANSUM,
    OP_PROD,
    OP_AMAX,
    OP_AMIN,
    OP_MEAN,
    OP_NANMEAN,
    OP_ARGMAX,
    OP_ARGMIN,
    OP_COUNT_NONZERO,
    OP_ALL,
    OP_ANY,
    OP_LOGSUMEXP,
    OP_NORM,
    OP_SUMSQ,
    OP_MAX_DIM,
    OP_MIN_DIM,
    OP_VAR,
    OP_STD,
    OP_VAR_MEAN,
    OP_STD_MEAN,
    OP_AMINMAX,
    OP_NUM
} op_kind;
__attribute__((unused)) static const char *const cr_op_names[OP_NUM] = {
    "sum",    "nansum", "prod",      "amax",  "amin",           "mean",    "nanmean", "argmax", "argmin", "count_nonzero",
    "all",    "any",    "logsumexp", "norm",  "sum_of_squares", "max_dim", "min_dim", "var",    "std",    "var_mean",
    "std_mean", "aminmax"};

typedef struct {
    op_kind op;
    double p;          /* norm's order, var's correction */
    tensor_dtype dtype; /* dtype= of sum/nansum/prod/mean/nanmean (0 = default: see cr_dtype_arg) */
} op_spec;

static inline tensor_dtype cr_dtype_arg(const op_spec *s) {
    return s->dtype == (tensor_dtype)0 ? TENSOR_DTYPE_DEFAULT : s->dtype;
}

/* Whether ops/ accepts dt for the op (everything else is an error on both backends). */
static inline bool cr_supports(op_kind op, tensor_dtype dt) {
    switch (op) {
    case OP_MEAN:
    case OP_NANMEAN:
    case OP_NORM:
    case OP_VAR:
    case OP_STD:
    case OP_VAR_MEAN:
    case OP_STD_MEAN: return cr_is_float(dt);
    case OP_ARGMAX:
    case OP_ARGMIN: return dt != TENSOR_BOOL;
    default: return true;
    }
}

/* Ops that take exactly one dim (or none: all dims, for prod and argmax/argmin). */
static inline bool cr_single_dim(op_kind op) {
    return op == OP_PROD || op == OP_ARGMAX || op == OP_ARGMIN || op == OP_MAX_DIM || op == OP_MIN_DIM;
}

/* Runs the op; r[0] (and r[1] for two-output ops) get new references, or r[0] NULL on error. */
static inline void cr_run(const op_spec *s, const tensor_t *t, const int *dims, int ndims, bool keepdim, tensor_t **r) {
    r[0] = r[1] = NULL;
    tensor_dtype dt = cr_dtype_arg(s);
    const int *one = ndims > 0 ? dims : NULL;
    int d0 = dims != NULL && ndims > 0 ? dims[0] : 0;
    switch (s->op) {
    case OP_SUM: r[0] = tensor_sum_dims(t, dims, ndims, keepdim, dt); break;
    case OP_NANSUM: r[0] = tensor_nansum(t, dims, ndims, keepdim, dt); break;
    case OP_PROD: r[0] = tensor_prod(t, one, keepdim, dt); break;
    case OP_AMAX: r[0] = tensor_amax(t, dims, ndims, keepdim); break;
    case OP_AMIN: r[0] = tensor_amin(t, dims, ndims, keepdim); break;
    case OP_MEAN: r[0] = tensor_mean(t, dims, ndims, keepdim, dt); break;
    case OP_NANMEAN: r[0] = tensor_nanmean(t, dims, ndims, keepdim, dt); break;
    case OP_ARGMAX: r[0] = tensor_argmax(t, one, keepdim); break;
    case OP_ARGMIN: r[0] = tensor_argmin(t, one, keepdim); break;
    case OP_COUNT_NONZERO: r[0] = tensor_count_nonzero(t, dims, ndims); break;
    case OP_ALL: r[0] = tensor_all(t, dims, ndims, keepdim); break;
    case OP_ANY: r[0] = tensor_any(t, dims, ndims, keepdim); break;
    case OP_LOGSUMEXP: r[0] = tensor_logsumexp(t, dims, ndims, keepdim); break;
    case OP_NORM: r[0] = tensor_norm(t, s->p, dims, ndims, keepdim); break;
    case OP_SUMSQ: r[0] = tensor_sum_of_squares(t, dims, ndims, keepdim); break;
    case OP_MAX_DIM:
        if (tensor_max_dim(t, d0, keepdim, &r[0], &r[1]) != TENSOR_OK) r[0] = r[1] = NULL;
        break;
    case OP_MIN_DIM:
        if (tensor_min_dim(t, d0, keepdim, &r[0], &r[1]) != TENSOR_OK) r[0] = r[1] = NULL;
        break;
    case OP_VAR: r[0] = tensor_var(t, s->p, dims, ndims, keepdim); break;
    case OP_STD: r[0] = tensor_std(t, s->p, dims, ndims, keepdim); break;
    case OP_VAR_MEAN:
        if (tensor_var_mean(t, s->p, dims, ndims, keepdim, &r[0], &r[1]) != TENSOR_OK) r[0] = r[1] = NULL;
        break;
    case OP_STD_MEAN:
        if (tensor_std_mean(t, s->p, dims, ndims, keepdim, &r[0], &r[1]) != TENSOR_OK) r[0] = r[1] = NULL;
        break;
    case OP_AMINMAX:
        if (tensor_aminmax(t, dims, ndims, keepdim, &r[0], &r[1]) != TENSOR_OK) r[0] = r[1] = NULL;
        break;
    default: fail_msg("bad op %d", (int)s->op);
    }
}

/* How output `which` of the op compares. */
typedef enum { CMP_EXACT, CMP_SUM, CMP_MEAN, CMP_REL, CMP_NORM } cmp_kind;

static inline cmp_kind cr_cmp_kind(const op_spec *s, int which, tensor_dtype odt) {
    if (!cr_is_float(odt)) return CMP_EXACT;
    switch (s->op) {
    case OP_AMAX:
    case OP_AMIN:
    case OP_AMINMAX:
    case OP_MAX_DIM:
    case OP_MIN_DIM: return CMP_EXACT;
    case OP_NORM:
        if (s->p == 0.0 || isinf(s->p)) return CMP_EXACT; /* a count, a max or min of |x| */
        return s->p == 1.0 ? CMP_SUM : CMP_NORM;
    case OP_SUM:
    case OP_NANSUM:
    case OP_PROD:
    case OP_SUMSQ: return CMP_SUM;
    case OP_MEAN:
    case OP_NANMEAN: return CMP_MEAN;
    default: (void)which; return CMP_REL; /* logsumexp, var/std and their mean */
    }
}

static inline double cr_eps_acc(tensor_dtype odt) { return odt == TENSOR_FLOAT64 ? 2.3e-16 : 1.2e-7; }
static inline double cr_eps_out(tensor_dtype odt) {
    return odt == TENSOR_FLOAT16 ? 9.8e-4 : odt == TENSOR_BFLOAT16 ? 7.9e-3 :
           (odt == TENSOR_FLOAT8_E4M3FN) ? 6.3e-2 : (odt == TENSOR_FLOAT8_E5M2) ? 1.3e-1 : cr_eps_acc(odt);
}

/* Bound for |cpu - cuda|: sums of `terms` values of magnitude <= `mag` accumulated in the
 * output's accumulator (random signs: ~eps per term; one sign, e.g. norm 1 or an expanded
 * input: the partial sums grow, ~eps * |sum| * sqrt(terms) for blocked / tree orders), plus
 * the final rounding to the output dtype (twice: both backends). */
static inline double cr_tol(cmp_kind k, tensor_dtype odt, int64_t terms, double ref, double mag, double p) {
    double ea = cr_eps_acc(odt), eo = cr_eps_out(odt), ar = fabs(ref);
    switch (k) {
    /* General p: the sum of |x|^p has one sign, so its rounding error grows with the sum
     * (~eps * sqrt(terms) relative for the blocked and tree orders of both backends), and the
     * root x^(1/p) multiplies a relative error by 1/|p| (p = 0.5 doubles it: float8_e5m2
     * [65, 1001] differed by 5.7e-5 relative on an H100). */
    case CMP_NORM:
        return (fabs(p) < 1.0 ? 1.0 / fabs(p) : 1.0) * (4.0 * ea * sqrt((double)terms) + (odt == TENSOR_FLOAT64 ? 1e-11 : 3e-5)) *
                   (ar + 1.0) + 2.0 * eo * ar;
    case CMP_SUM: return 4.0 * ea * (double)terms * mag + 2.0 * ea * ar * sqrt((double)terms) + 2.0 * eo * ar + 1e-30;
    case CMP_MEAN: return 4.0 * ea * 16.0 * mag + 2.0 * ea * ar * sqrt((double)terms) + 2.0 * eo * ar + 1e-30;
    default: return (odt == TENSOR_FLOAT64 ? 1e-11 : 3e-5) * (ar + 1.0) + 2.0 * eo * ar;
    }
}

static inline bool cr_same_float(double x, double y) { return (x != x && y != y) || x == y; }

/* CR_SOFT=1: a mismatch is printed ("MISMATCH ...") and counted instead of failing the test at
 * once, so that one run lists every mismatch; the group's teardown then fails if any was seen.
 * Without it (the default) the first mismatch fails its test. */
static int cr_soft_mismatches;
static inline bool cr_soft(void) {
    const char *q = getenv("CR_SOFT");
    return q != NULL && q[0] == '1';
}
#define cr_fail(...)                                                                             \
    do {                                                                                         \
        if (cr_soft()) {                                                                         \
            cr_soft_mismatches++;                                                                \
            print_message("MISMATCH ");                                                          \
            print_message(__VA_ARGS__);                                                          \
            print_message("\n");                                                                 \
        } else {                                                                                 \
            fail_msg(__VA_ARGS__);                                                               \
        }                                                                                        \
    } while (0)

/* Compares one output of the op on both backends. */
static inline void cr_compare(const op_spec *s, int which, const tensor_t *cr, const tensor_t *gr, int64_t terms,
                              double mag, const char *what) {
    tensor_dtype odt = tensor_get_dtype(cr);
    ct_assert_same_shape(cr, gr, what);
    int64_t n = tensor_numel(cr);
    void *a = ct_download(cr), *b = ct_download(gr);
    size_t es = tensor_dtype_size(odt);
    cmp_kind k = cr_cmp_kind(s, which, odt);
    for (int64_t i = 0; i < n; i++) {
        const char *pa = (const char *)a + (size_t)i * es, *pb = (const char *)b + (size_t)i * es;
        double x = tensor_dtype_load_double(odt, pa), y = tensor_dtype_load_double(odt, pb);
        bool ok;
        if (k == CMP_EXACT) ok = cr_is_float(odt) ? cr_same_float(x, y) : memcmp(pa, pb, es) == 0;
        else ok = cr_same_float(x, y) || fabs(x - y) <= cr_tol(k, odt, terms, x, mag, s->p);
        if (!ok) {
            cr_fail("%s %s(p=%g) output %d [%s -> %s], element %lld of %lld (%lld terms): cpu %.17g, cuda %.17g",
                    what, cr_op_names[s->op], s->p, which, cr_dtype_arg(s) == TENSOR_DTYPE_DEFAULT ? "default" :
                    tensor_dtype_name(cr_dtype_arg(s)), tensor_dtype_name(odt), (long long)i, (long long)n,
                    (long long)terms, x, y);
            break;
        }
    }
    free(a);
    free(b);
}

/* Runs the op on the CPU input `ci` and the CUDA input `gi` (the same values and layout) and
 * compares everything: results, or errors. */
static inline void cr_check_inputs(const op_spec *s, const tensor_t *ci, const tensor_t *gi, const int *dims, int ndims,
                                   bool keepdim, const char *what) {
    tensor_t *c[2], *g[2];
    cr_run(s, ci, dims, ndims, keepdim, c);
    tensor_status cst = c[0] == NULL ? tensor_last_status() : TENSOR_OK;
    char cmsg[256];
    snprintf(cmsg, sizeof cmsg, "%s", c[0] == NULL ? tensor_last_error() : "");
    cr_run(s, gi, dims, ndims, keepdim, g);
    if (c[0] == NULL) {
        if (g[0] != NULL) {
            cr_fail("%s %s: cpu failed (%s) but cuda succeeded", what, cr_op_names[s->op], cmsg);
            for (int w = 0; w < 2; w++) tensor_release(g[w]);
            return;
        }
        if (tensor_last_status() != cst)
            cr_fail("%s %s: cpu failed (%s), cuda failed differently: %s", what, cr_op_names[s->op], cmsg,
                    tensor_last_error());
        return;
    }
    if (g[0] == NULL) {
        cr_fail("%s %s(p=%g) on %s: cuda failed: %s", what, cr_op_names[s->op], s->p,
                tensor_dtype_name(tensor_get_dtype(gi)), tensor_last_error());
        for (int w = 0; w < 2; w++) tensor_release(c[w]);
        return;
    }
    int64_t nout = tensor_numel(c[0]);
    int64_t terms = nout > 0 ? tensor_numel(ci) / nout : 0;
    /* Largest |x| of the (converted) inputs: 1 for floats, 2 for small ints; integers over
     * their whole range only reach float outputs through logsumexp (relative compare). */
    double mag = 2.0;
    char w2[256];
    snprintf(w2, sizeof w2, "%s (input %s)", what, tensor_dtype_name(tensor_get_dtype(ci)));
    for (int w = 0; w < 2; w++) {
        if (c[w] == NULL) continue;
        cr_compare(s, w, c[w], g[w], terms, mag, w2);
        tensor_release(c[w]);
        tensor_release(g[w]);
    }
}

/* The sum engine's tests (test_cuda_reduce.c, test_cuda_reduce_paths.c) use a simpler bound
 * than cr_tol: their float inputs are uniform in [-1, 1). For a sum of `terms` such values
 * accumulated in the output's accumulator, plus the rounding of the result to the output
 * dtype (a product of them only shrinks: the sum's bound is loose enough for it too). */
static inline double cr_sum_tol(tensor_dtype out, int64_t terms, double ref) {
    double eps_acc = out == TENSOR_FLOAT64 ? 2.3e-16 : 1.2e-7;
    double eps_out = out == TENSOR_FLOAT16 ? 9.8e-4 : out == TENSOR_BFLOAT16 ? 7.9e-3 : eps_acc;
    return 4.0 * eps_acc * (double)terms + 2.0 * eps_out * fabs(ref) + 1e-30;
}

/* Compares the CPU result cr of a reduction of the input ci with the CUDA result gr: bit for
 * bit when `exact` (extremes) or for integer and bool outputs; else within cr_sum_tol of the
 * number of reduced terms, or of 16 terms for a mean (the sum's error divided by the count:
 * a tight absolute bound, so that a wrong divisor is caught). */
static inline void cr_compare_sum(const tensor_t *ci, const tensor_t *cr, const tensor_t *gr, bool exact, bool mean,
                                  const char *what) {
    tensor_dtype odt = tensor_get_dtype(cr);
    assert_int_equal(odt, tensor_get_dtype(gr));
    assert_int_equal(tensor_numel(cr), tensor_numel(gr));
    int64_t n = tensor_numel(cr), terms = tensor_numel(ci) / (n > 0 ? n : 1);
    void *a = ct_download(cr), *b = ct_download(gr);
    size_t es = tensor_dtype_size(odt);
    for (int64_t i = 0; i < n; i++) {
        const char *pa = (const char *)a + (size_t)i * es, *pb = (const char *)b + (size_t)i * es;
        if (!cr_is_float(odt) || exact) {
            if (memcmp(pa, pb, es) != 0)
                fail_msg("%s, output %lld of %lld (%lld terms): cpu %.17g, cuda %.17g", what, (long long)i,
                         (long long)n, (long long)terms, tensor_dtype_load_double(odt, pa),
                         tensor_dtype_load_double(odt, pb));
        } else {
            double x = tensor_dtype_load_double(odt, pa), y = tensor_dtype_load_double(odt, pb);
            if (!(fabs(x - y) <= cr_sum_tol(odt, mean ? 16 : terms, x)))
                fail_msg("%s, output %lld of %lld (%lld terms): cpu %.9g, cuda %.9g", what, (long long)i, (long long)n,
                         (long long)terms, x, y);
        }
    }
    free(a);
    free(b);
}

/* Fresh values of `dt` in `mode`, the same view on both devices, then cr_check_inputs. */
static inline void cr_check(const op_spec *s, int ndim, const int64_t *sizes, tensor_dtype dt, const int *dims,
                            int ndims, bool keepdim, view_kind view, int64_t expand_to, uint64_t seed, value_mode mode,
                            const char *what) {
    tensor_t *cpu_base = cr_random_cpu(ndim, sizes, dt, seed, mode);
    tensor_t *gpu_base = ct_to_gpu(cpu_base);
    tensor_t *ci = ct_make_view(cpu_base, view, expand_to), *gi = ct_make_view(gpu_base, view, expand_to);
    assert_non_null(ci);
    assert_non_null(gi);
    cr_check_inputs(s, ci, gi, dims, ndims, keepdim, what);
    tensor_release(ci);
    tensor_release(gi);
    tensor_release(cpu_base);
    tensor_release(gpu_base);
}

/* The value mode that makes an op's results interesting on random data. */
static inline value_mode cr_default_mode(op_kind op) {
    switch (op) {
    case OP_ALL: return M_DENSE;
    case OP_ANY: return M_SPARSE;
    case OP_COUNT_NONZERO:
    case OP_ARGMAX:
    case OP_ARGMIN:
    case OP_MAX_DIM:
    case OP_MIN_DIM: return M_SMALLINT; /* zeros and ties */
    default: return M_UNIFORM;
    }
}

/* Every op once (norm at each kind of p, var/std with several corrections). */
__attribute__((unused)) static const op_spec cr_all_specs[] = {
    {OP_SUM, 0, 0},       {OP_NANSUM, 0, 0},      {OP_PROD, 0, 0},          {OP_AMAX, 0, 0},
    {OP_AMIN, 0, 0},      {OP_MEAN, 0, 0},        {OP_NANMEAN, 0, 0},       {OP_ARGMAX, 0, 0},
    {OP_ARGMIN, 0, 0},    {OP_COUNT_NONZERO, 0, 0}, {OP_ALL, 0, 0},         {OP_ANY, 0, 0},
    {OP_LOGSUMEXP, 0, 0}, {OP_NORM, 0.0, 0},      {OP_NORM, 1.0, 0},        {OP_NORM, 2.0, 0},
    {OP_NORM, INFINITY, 0}, {OP_NORM, -INFINITY, 0}, {OP_NORM, 3.0, 0},     {OP_NORM, 0.5, 0},
    {OP_NORM, -1.5, 0},   {OP_SUMSQ, 0, 0},       {OP_MAX_DIM, 0, 0},       {OP_MIN_DIM, 0, 0},
    {OP_VAR, 1.0, 0},     {OP_STD, 0.0, 0},       {OP_VAR_MEAN, 2.5, 0},    {OP_STD_MEAN, 1.0, 0},
    {OP_AMINMAX, 0, 0},
};
#define CR_NUM_SPECS ((int)(sizeof cr_all_specs / sizeof cr_all_specs[0]))

__attribute__((unused)) static const tensor_dtype cr_all_dtypes[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT16, TENSOR_BFLOAT16,
                                             TENSOR_FLOAT8_E4M3FN, TENSOR_FLOAT8_E5M2, TENSOR_BOOL, TENSOR_UINT8,
                                             TENSOR_INT8, TENSOR_INT16, TENSOR_INT32, TENSOR_INT64};
#define CR_NUM_DTYPES ((int)(sizeof cr_all_dtypes / sizeof cr_all_dtypes[0]))

/* Group teardown: ct_release_cached, then the CR_SOFT verdict. */
static inline int cr_release_scratch(void **state) {
    (void)state;
    if (ct_release_cached() != TENSOR_OK) return -1;
    if (cr_soft_mismatches > 0) {
        print_message("CR_SOFT: %d mismatch(es) in this group\n", cr_soft_mismatches);
        return -1;
    }
    return 0;
}

#endif
