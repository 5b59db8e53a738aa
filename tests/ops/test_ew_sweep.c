/* Every elementwise op x every dtype x every layout (contiguous, transposed, broadcast,
 * sliced with an odd offset and a step, 0-size, 0-d, and a large tensor that takes the
 * threaded path) against a reference computed here: in double from the inputs' values as
 * converted to the common dtype (floating results), or in exact wrapping int64 (integer and
 * bool results). Combinations that PyTorch rejects (bool subtraction, bitwise on floats, ...)
 * must fail with TENSOR_ERR_DTYPE, with the function's name in the message.
 *
 * Integer and bool results must match exactly; floating results within 2 ulps of the output
 * dtype (relative) or a small absolute error near zero: the kernels compute float32 ops in
 * float, the reference in double. Each op group is one CMocka test that reports the first
 * few mismatches in full, then fails with the count. */
#include "ew_test_util.h"

/* ---- layouts ---- */
typedef enum layout { L_CONTIG, L_TRANSPOSED, L_BROADCAST, L_SLICED, L_EMPTY, L_0D, L_LARGE, L_NUM } layout;
static const char *const layout_names[L_NUM] = {"contiguous", "transposed", "broadcast", "sliced", "0-size", "0-d",
                                                "large"};

static const tensor_dtype all_dtypes[] = {TENSOR_BOOL,    TENSOR_UINT8,   TENSOR_INT8,     TENSOR_INT16,
                                          TENSOR_INT32,   TENSOR_INT64,   TENSOR_FLOAT16, TENSOR_BFLOAT16,
                                          TENSOR_FLOAT32, TENSOR_FLOAT64};
/* the sweep of single-dtype ops also checks that float8 is rejected (only where accepts it) */
static const tensor_dtype sweep_dtypes[] = {TENSOR_BOOL,    TENSOR_UINT8,   TENSOR_INT8,     TENSOR_INT16,
                                            TENSOR_INT32,   TENSOR_INT64,   TENSOR_FLOAT16, TENSOR_BFLOAT16,
                                            TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT8_E4M3FN, TENSOR_FLOAT8_E5M2};

static bool is_float(tensor_dtype d) { return tensor_dtype_is_floating(d); }

/* Deterministic test values: element i of input `which`. Floats include negatives, zeros
 * of both signs, halves (round to even) and values past 1 for log/sqrt domains. */
static double gen_value(tensor_dtype d, int which, int64_t i, bool nonzero, bool small_nonneg) {
    static const double fv[] = {-3.5, -2.0, -1.25, -0.5, -0.0, 0.0, 0.5, 1.0, 1.5, 2.5, 3.0, 7.75, -6.5, 0.25};
    static const int64_t iv[] = {-7, -3, -2, -1, 0, 1, 2, 3, 5, 7, 100, -100, 6, -5};
    const int64_t k = (i * 7 + which * 5 + (i / 14) * 3) % 14;
    if (d == TENSOR_BOOL) return nonzero ? 1.0 : (double)(((i + which) % 3) != 0);
    if (small_nonneg) return (double)((i + which) % 5);
    if (is_float(d)) {
        double v = fv[k];
        if (nonzero && v == 0.0) v = 1.75;
        return v;
    }
    int64_t v = iv[k];
    if (d == TENSOR_UINT8 && v < 0) v = -v;
    if (nonzero && v == 0) v = 4;
    return (double)v;
}

/* A [rows, cols] tensor of dtype in the given layout, values from gen_value in logical order.
 * L_BROADCAST: input 0 is [rows, 1], input 1 is [cols], input 2 is [rows, cols]. */
static tensor_t *make_input(tensor_dtype d, layout l, int which, int64_t rows, int64_t cols, bool nonzero,
                            bool small_nonneg) {
    int64_t sz[2] = {rows, cols};
    if (l == L_0D) {
        double v = gen_value(d, which, which, nonzero, small_nonneg);
        return ew_tensor(d, 0, NULL, &v, 1);
    }
    if (l == L_BROADCAST && which < 2) {
        int64_t n = which == 0 ? rows : cols;
        double *v = malloc(sizeof(double) * (size_t)n);
        for (int64_t i = 0; i < n; i++) v[i] = gen_value(d, which, i, nonzero, small_nonneg);
        int64_t s0[2] = {rows, 1};
        tensor_t *t = which == 0 ? ew_tensor(d, 2, s0, v, n) : ew_tensor(d, 1, &cols, v, n);
        free(v);
        return t;
    }
    int64_t n = rows * cols;
    double *v = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++) v[i] = gen_value(d, which, i, nonzero, small_nonneg);
    tensor_t *t = NULL;
    if (l == L_TRANSPOSED) {
        /* storage is [cols, rows]; the logical [rows, cols] view is its transpose */
        double *vt = malloc(sizeof(double) * (size_t)n);
        for (int64_t r = 0; r < rows; r++)
            for (int64_t c = 0; c < cols; c++) vt[c * rows + r] = v[r * cols + c];
        int64_t st[2] = {cols, rows};
        tensor_t *base = ew_tensor(d, 2, st, vt, n);
        t = tensor_transpose(base, 0, 1);
        tensor_release(base);
        free(vt);
    } else if (l == L_SLICED) {
        /* [rows, 2 * cols + 1], columns 1, 3, 5, ...: odd element offset, step 2 */
        int64_t wide = 2 * cols + 1, nb = rows * wide;
        double *vb = calloc((size_t)nb, sizeof(double));
        for (int64_t r = 0; r < rows; r++)
            for (int64_t c = 0; c < cols; c++) vb[r * wide + 1 + 2 * c] = v[r * cols + c];
        int64_t sb[2] = {rows, wide};
        tensor_t *base = ew_tensor(d, 2, sb, vb, nb);
        t = tensor_slice(base, 1, 1, wide, 2);
        tensor_release(base);
        free(vb);
    } else {
        t = ew_tensor(d, 2, sz, v, n);
    }
    free(v);
    return t;
}

/* ---- the reference ---- */

static bool op_int_to_float(tensor_ew_op op) {
    return (op >= TENSOR_EW_EXP && op <= TENSOR_EW_RECIPROCAL) || op == TENSOR_EW_DIV;
}
static bool op_predicate(tensor_ew_op op) {
    return (op >= TENSOR_EW_EQ && op <= TENSOR_EW_LOGICAL_XOR) || (op >= TENSOR_EW_ISNAN && op <= TENSOR_EW_LOGICAL_NOT);
}

/* Does PyTorch reject op on common dtype c (docs/api.md)? */
static bool op_rejects(tensor_ew_op op, tensor_dtype c) {
    if (c == TENSOR_FLOAT8_E4M3FN || c == TENSOR_FLOAT8_E5M2) return op != TENSOR_EW_WHERE;
    const bool fl = is_float(c), b = c == TENSOR_BOOL;
    switch (op) {
    case TENSOR_EW_NEG: case TENSOR_EW_ABS: case TENSOR_EW_RELU: case TENSOR_EW_FLOOR: case TENSOR_EW_CEIL:
    case TENSOR_EW_ROUND: case TENSOR_EW_TRUNC: case TENSOR_EW_DIV_FLOOR: case TENSOR_EW_DIV_TRUNC:
    case TENSOR_EW_REMAINDER: case TENSOR_EW_POW: case TENSOR_EW_SUB: case TENSOR_EW_CLAMP:
        return b;
    case TENSOR_EW_GELU: case TENSOR_EW_GELU_TANH: case TENSOR_EW_SILU: return !fl;
    case TENSOR_EW_BITWISE_AND: case TENSOR_EW_BITWISE_OR: case TENSOR_EW_BITWISE_XOR: case TENSOR_EW_BITWISE_NOT:
        return fl;
    default: return false;
    }
}

static double py_floor_div(double a, double b) {
    if (b == 0) return a / b;
    double m = fmod(a, b), dv = (a - m) / b;
    if (m != 0 && ((b < 0) != (m < 0))) dv -= 1;
    if (dv == 0) return copysign(0.0, a / b);
    double fl = floor(dv);
    if (dv - fl > 0.5) fl += 1;
    return fl;
}

static double ref_float(tensor_ew_op op, double a, double b, double c) {
    switch (op) {
    case TENSOR_EW_NEG: return -a;
    case TENSOR_EW_ABS: return fabs(a);
    case TENSOR_EW_SIGN: return (double)((0 < a) - (a < 0));
    case TENSOR_EW_EXP: return exp(a);
    case TENSOR_EW_EXP2: return exp2(a);
    case TENSOR_EW_LOG: return log(a);
    case TENSOR_EW_LOG2: return log2(a);
    case TENSOR_EW_LOG1P: return log1p(a);
    case TENSOR_EW_EXPM1: return expm1(a);
    case TENSOR_EW_SQRT: return sqrt(a);
    case TENSOR_EW_RSQRT: return 1 / sqrt(a);
    case TENSOR_EW_SIN: return sin(a);
    case TENSOR_EW_COS: return cos(a);
    case TENSOR_EW_TAN: return tan(a);
    case TENSOR_EW_TANH: return tanh(a);
    case TENSOR_EW_SIGMOID: return 1 / (1 + exp(-a));
    case TENSOR_EW_ERF: return erf(a);
    case TENSOR_EW_RECIPROCAL: return 1 / a;
    case TENSOR_EW_RELU: return isnan(a) ? a : (a > 0 ? a : 0);
    case TENSOR_EW_GELU: return a * 0.5 * (1 + erf(a / sqrt(2.0)));
    case TENSOR_EW_GELU_TANH: return 0.5 * a * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (a + 0.044715 * a * a * a)));
    case TENSOR_EW_SILU: return a / (1 + exp(-a));
    case TENSOR_EW_FLOOR: return floor(a);
    case TENSOR_EW_CEIL: return ceil(a);
    case TENSOR_EW_ROUND: return nearbyint(a);
    case TENSOR_EW_TRUNC: return trunc(a);
    case TENSOR_EW_ISNAN: return isnan(a);
    case TENSOR_EW_ISINF: return isinf(a);
    case TENSOR_EW_ISFINITE: return isfinite(a);
    case TENSOR_EW_LOGICAL_NOT: return !(a != 0);
    case TENSOR_EW_ADD: return a + b;
    case TENSOR_EW_SUB: return a - b;
    case TENSOR_EW_MUL: return a * b;
    case TENSOR_EW_DIV: return a / b;
    case TENSOR_EW_DIV_FLOOR: return py_floor_div(a, b);
    case TENSOR_EW_DIV_TRUNC: return trunc(a / b);
    case TENSOR_EW_REMAINDER: { double m = fmod(a, b); if (m != 0 && ((b < 0) != (m < 0))) m += b; return m; }
    case TENSOR_EW_POW: return pow(a, b);
    case TENSOR_EW_MAXIMUM: return (isnan(a) || isnan(b)) ? NAN : (a < b ? b : a);
    case TENSOR_EW_MINIMUM: return (isnan(a) || isnan(b)) ? NAN : (b < a ? b : a);
    case TENSOR_EW_FMAX: return fmax(a, b);
    case TENSOR_EW_FMIN: return fmin(a, b);
    case TENSOR_EW_EQ: return a == b;
    case TENSOR_EW_NE: return a != b;
    case TENSOR_EW_LT: return a < b;
    case TENSOR_EW_LE: return a <= b;
    case TENSOR_EW_GT: return a > b;
    case TENSOR_EW_GE: return a >= b;
    case TENSOR_EW_LOGICAL_AND: return (a != 0) && (b != 0);
    case TENSOR_EW_LOGICAL_OR: return (a != 0) || (b != 0);
    case TENSOR_EW_LOGICAL_XOR: return (a != 0) != (b != 0);
    case TENSOR_EW_WHERE: return a != 0 ? b : c;
    case TENSOR_EW_CLAMP: {
        if (isnan(a) || isnan(b) || isnan(c)) return NAN;
        double t = a < b ? b : a;
        return c < t ? c : t;
    }
    default: return NAN;
    }
}

static int64_t wrap_add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t wrap_mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

static int64_t ref_int(tensor_ew_op op, int64_t a, int64_t b, int64_t c) {
    switch (op) {
    case TENSOR_EW_NEG: return wrap_mul(a, -1);
    case TENSOR_EW_ABS: return a < 0 ? wrap_mul(a, -1) : a;
    case TENSOR_EW_SIGN: return (0 < a) - (a < 0);
    case TENSOR_EW_RELU: return a > 0 ? a : 0;
    case TENSOR_EW_FLOOR: case TENSOR_EW_CEIL: case TENSOR_EW_ROUND: case TENSOR_EW_TRUNC: return a;
    case TENSOR_EW_ISNAN: case TENSOR_EW_ISINF: return 0;
    case TENSOR_EW_ISFINITE: return 1;
    case TENSOR_EW_LOGICAL_NOT: return a == 0;
    case TENSOR_EW_BITWISE_NOT: return ~a;
    case TENSOR_EW_ADD: return wrap_add(a, b);
    case TENSOR_EW_SUB: return wrap_add(a, wrap_mul(b, -1));
    case TENSOR_EW_MUL: return wrap_mul(a, b);
    case TENSOR_EW_DIV_TRUNC: return a / b;
    case TENSOR_EW_DIV_FLOOR: { int64_t q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
    case TENSOR_EW_REMAINDER: { int64_t r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
    case TENSOR_EW_POW: { int64_t r = 1; for (int64_t k = 0; k < b; k++) r = wrap_mul(r, a); return r; }
    case TENSOR_EW_MAXIMUM: case TENSOR_EW_FMAX: return a > b ? a : b;
    case TENSOR_EW_MINIMUM: case TENSOR_EW_FMIN: return a < b ? a : b;
    case TENSOR_EW_EQ: return a == b;
    case TENSOR_EW_NE: return a != b;
    case TENSOR_EW_LT: return a < b;
    case TENSOR_EW_LE: return a <= b;
    case TENSOR_EW_GT: return a > b;
    case TENSOR_EW_GE: return a >= b;
    case TENSOR_EW_LOGICAL_AND: return a && b;
    case TENSOR_EW_LOGICAL_OR: return a || b;
    case TENSOR_EW_LOGICAL_XOR: return (a != 0) != (b != 0);
    case TENSOR_EW_BITWISE_AND: return a & b;
    case TENSOR_EW_BITWISE_OR: return a | b;
    case TENSOR_EW_BITWISE_XOR: return a ^ b;
    case TENSOR_EW_WHERE: return a ? b : c;
    case TENSOR_EW_CLAMP: { int64_t t = a < b ? b : a; return c < t ? c : t; }
    default: return 0;
    }
}

/* 2 ulps of dtype's precision, relative */
static double rel_tol(tensor_dtype d) {
    switch (d) {
    case TENSOR_FLOAT16: return 0x1p-9;
    case TENSOR_BFLOAT16: return 0x1p-6;
    case TENSOR_FLOAT32: return 0x1p-22;
    default: return 0x1p-50;
    }
}
static double abs_tol(tensor_dtype d) { return d == TENSOR_FLOAT64 ? 1e-15 : d == TENSOR_FLOAT32 ? 1e-6 : 1e-3; }

/* value x rounded into dtype d's value set (as a store then load) */
static double through(tensor_dtype d, double x) {
    unsigned char b[8];
    tensor_dtype_store_double(d, b, x);
    return tensor_dtype_load_double(d, b);
}
static int64_t through_i(tensor_dtype d, int64_t x) {
    unsigned char b[8];
    tensor_dtype_store_int64(d, b, x);
    return tensor_dtype_load_int64(d, b);
}

/* ---- one case ---- */

typedef struct sweep_stats {
    int cases, failures;
} sweep_stats;

#define REPORT(st, ...)                                                                            \
    do {                                                                                           \
        if ((st)->failures++ < 6) { printf("  mismatch: "); printf(__VA_ARGS__); printf("\n"); }  \
    } while (0)

static int arity_of(tensor_ew_op op) {
    if (op <= TENSOR_EW_BITWISE_NOT) return 1;
    if (op <= TENSOR_EW_BITWISE_XOR) return 2;
    return 3;
}

static tensor_t *call(tensor_ew_op op, tensor_t *const in[3]) {
    switch (arity_of(op)) {
    case 1: return tensor_unary(op, in[0]);
    case 2: return tensor_binary(op, in[0], in[1]);
    default: return op == TENSOR_EW_WHERE ? tensor_where(in[0], in[1], in[2]) : tensor_clamp(in[0], in[1], in[2]);
    }
}

static void run_case(tensor_ew_op op, tensor_dtype d, layout l, sweep_stats *st) {
    const int ar = arity_of(op);
    const int64_t rows = l == L_EMPTY ? 0 : l == L_LARGE ? 300 : 5;
    const int64_t cols = l == L_LARGE ? 257 : 7;
    const bool divisor_nonzero = !is_float(d) && (op == TENSOR_EW_DIV_FLOOR || op == TENSOR_EW_DIV_TRUNC ||
                                                  op == TENSOR_EW_REMAINDER);
    tensor_t *in[3] = {NULL, NULL, NULL};
    for (int k = 0; k < ar; k++) {
        tensor_dtype dk = (op == TENSOR_EW_WHERE && k == 0) ? TENSOR_BOOL : d;
        in[k] = make_input(dk, l, k, rows, cols, k == 1 && divisor_nonzero,
                           k == 1 && op == TENSOR_EW_POW && !is_float(d));
        assert_non_null(in[k]);
        if (ar == 1 && l == L_BROADCAST) { /* a unary op reads the [rows, 1] input expanded (stride 0) */
            int64_t sz[2] = {rows, cols};
            tensor_t *e = tensor_expand(in[k], 2, sz);
            tensor_release(in[k]);
            in[k] = e;
        }
    }
    st->cases++;
    const tensor_dtype common = (op_int_to_float(op) && !is_float(d)) ? TENSOR_FLOAT32 : d;
    const tensor_dtype want_dtype = op_predicate(op) ? TENSOR_BOOL : common;
    tensor_clear_error();
    tensor_t *out = call(op, in);
    if (op_rejects(op, d)) {
        if (out != NULL || tensor_last_status() != TENSOR_ERR_DTYPE)
            REPORT(st, "%s %s %s: expected a dtype error, got %s", tensor_ew_op_name(op), tensor_dtype_name(d),
                   layout_names[l], out ? "a result" : tensor_last_error());
        goto done;
    }
    if (out == NULL) {
        REPORT(st, "%s %s %s: failed: %s", tensor_ew_op_name(op), tensor_dtype_name(d), layout_names[l],
               tensor_last_error());
        goto done;
    }
    if (tensor_get_dtype(out) != want_dtype) {
        REPORT(st, "%s %s %s: dtype %s, want %s", tensor_ew_op_name(op), tensor_dtype_name(d), layout_names[l],
               tensor_dtype_name(tensor_get_dtype(out)), tensor_dtype_name(want_dtype));
        goto done;
    }
    /* expected shape: [] for 0-d, else [rows, cols] */
    const int want_ndim = l == L_0D ? 0 : 2;
    if (tensor_ndim(out) != want_ndim || (want_ndim == 2 && (tensor_size(out, 0) != rows || tensor_size(out, 1) != cols))) {
        REPORT(st, "%s %s %s: wrong shape (ndim %d)", tensor_ew_op_name(op), tensor_dtype_name(d), layout_names[l],
               tensor_ndim(out));
        goto done;
    }
    {
        /* inputs expanded to the output shape, read in logical order */
        const int64_t n = tensor_numel(out);
        double *vf[3] = {NULL, NULL, NULL};
        int64_t *vi[3] = {NULL, NULL, NULL};
        for (int k = 0; k < ar; k++) {
            tensor_t *e = tensor_expand(in[k], tensor_ndim(out), tensor_sizes(out));
            assert_non_null(e);
            vf[k] = ew_values(e);
            vi[k] = ew_ivalues(e);
            tensor_release(e);
        }
        double *gf = ew_values(out);
        int64_t *gi = ew_ivalues(out);
        for (int64_t i = 0; i < n; i++) {
            double a[3] = {0, 0, 0};
            int64_t ai[3] = {0, 0, 0};
            for (int k = 0; k < ar; k++) {
                a[k] = vf[k][i];
                ai[k] = vi[k][i];
                if (!(op == TENSOR_EW_WHERE && k == 0)) {
                    a[k] = through(common, a[k]);
                    ai[k] = is_float(common) ? 0 : through_i(common, ai[k]);
                }
            }
            if (is_float(common)) {
                double want = through(want_dtype, ref_float(op, a[0], a[1], a[2]));
                double got = gf[i];
                bool ok = (isnan(want) && isnan(got)) || got == want ||
                          (!op_predicate(op) && fabs(got - want) <= rel_tol(want_dtype) * fabs(want) + abs_tol(want_dtype));
                if (!ok) {
                    REPORT(st, "%s %s %s [%lld]: inputs %g %g %g: got %.9g want %.9g", tensor_ew_op_name(op),
                           tensor_dtype_name(d), layout_names[l], (long long)i, a[0], a[1], a[2], got, want);
                    break;
                }
            } else {
                /* ~True is False: bitwise_not of bool is logical_not */
                const tensor_ew_op rop = op == TENSOR_EW_BITWISE_NOT && common == TENSOR_BOOL ? TENSOR_EW_LOGICAL_NOT : op;
                int64_t want = through_i(want_dtype, ref_int(rop, ai[0], ai[1], ai[2]));
                if (gi[i] != want) {
                    REPORT(st, "%s %s %s [%lld]: inputs %lld %lld %lld: got %lld want %lld", tensor_ew_op_name(op),
                           tensor_dtype_name(d), layout_names[l], (long long)i, (long long)ai[0], (long long)ai[1],
                           (long long)ai[2], (long long)gi[i], (long long)want);
                    break;
                }
            }
        }
        for (int k = 0; k < 3; k++) {
            free(vf[k]);
            free(vi[k]);
        }
        free(gf);
        free(gi);
    }
done:
    tensor_release(out);
    for (int k = 0; k < 3; k++) tensor_release(in[k]);
}

static void sweep_ops(tensor_ew_op first, tensor_ew_op last) {
    sweep_stats st = {0, 0};
    for (int op = (int)first; op <= (int)last; op++)
        for (size_t di = 0; di < sizeof sweep_dtypes / sizeof sweep_dtypes[0]; di++)
            for (int l = 0; l < L_NUM; l++) run_case((tensor_ew_op)op, sweep_dtypes[di], (layout)l, &st);
    printf("  %d cases\n", st.cases);
    if (st.failures) fail_msg("%d of %d cases failed", st.failures, st.cases);
}

/* One test per range of ops (in the order of tensor_ew_op): a failure names its range. */
#define SWEEP_TEST(name, first, last)                                                            \
    static void name(void **state) {                                                             \
        (void)state;                                                                             \
        sweep_ops(first, last);                                                                  \
    }
SWEEP_TEST(test_sweep_unary_math, TENSOR_EW_NEG, TENSOR_EW_SILU)
SWEEP_TEST(test_sweep_unary_rounding_predicates, TENSOR_EW_FLOOR, TENSOR_EW_BITWISE_NOT)
SWEEP_TEST(test_sweep_arith, TENSOR_EW_ADD, TENSOR_EW_POW)
SWEEP_TEST(test_sweep_minmax_compare, TENSOR_EW_MAXIMUM, TENSOR_EW_GE)
SWEEP_TEST(test_sweep_logical_bitwise, TENSOR_EW_LOGICAL_AND, TENSOR_EW_BITWISE_XOR)
SWEEP_TEST(test_sweep_where_clamp, TENSOR_EW_WHERE, TENSOR_EW_CLAMP)
#undef SWEEP_TEST

/* Mixed dtypes: every pair of input dtypes for a few ops, result dtype from
 * tensor_result_type and values through the common dtype. */
static void test_sweep_mixed_pairs(void **state) {
    (void)state;
    static const tensor_ew_op ops[] = {TENSOR_EW_ADD, TENSOR_EW_MUL, TENSOR_EW_DIV, TENSOR_EW_MAXIMUM, TENSOR_EW_LT,
                                       TENSOR_EW_REMAINDER};
    sweep_stats st = {0, 0};
    const size_t nd = sizeof all_dtypes / sizeof all_dtypes[0];
    for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++)
        for (size_t i = 0; i < nd; i++)
            for (size_t j = 0; j < nd; j++)
                for (int zero_d = 0; zero_d < 2; zero_d++) {
                    const tensor_ew_op op = ops[oi];
                    const tensor_dtype da = all_dtypes[i], db = all_dtypes[j];
                    tensor_result_type_operand rt[2] = {{da, TENSOR_OPERAND_DIMENSIONED},
                                                        {db, zero_d ? TENSOR_OPERAND_ZERO_DIM : TENSOR_OPERAND_DIMENSIONED}};
                    tensor_dtype c;
                    assert_int_equal(tensor_result_type(rt, 2, &c), TENSOR_OK);
                    if (op_int_to_float(op) && !is_float(c)) c = TENSOR_FLOAT32;
                    const bool rejects = op_rejects(op, c) || (op == TENSOR_EW_SUB && (da == TENSOR_BOOL || db == TENSOR_BOOL));
                    tensor_t *a = make_input(da, L_CONTIG, 0, 3, 5, false, false);
                    tensor_t *b = make_input(db, zero_d ? L_0D : L_CONTIG, 1, 3, 5,
                                             !is_float(c) && op == TENSOR_EW_REMAINDER, false);
                    st.cases++;
                    tensor_t *out = tensor_binary(op, a, b);
                    if (rejects) {
                        if (out != NULL) REPORT(&st, "%s %s %s: expected an error", tensor_ew_op_name(op),
                                                tensor_dtype_name(da), tensor_dtype_name(db));
                    } else if (out == NULL) {
                        REPORT(&st, "%s %s %s: %s", tensor_ew_op_name(op), tensor_dtype_name(da), tensor_dtype_name(db),
                               tensor_last_error());
                    } else {
                        const tensor_dtype want_dtype = op_predicate(op) ? TENSOR_BOOL : c;
                        if (tensor_get_dtype(out) != want_dtype) {
                            REPORT(&st, "%s %s %s%s: dtype %s want %s", tensor_ew_op_name(op), tensor_dtype_name(da),
                                   tensor_dtype_name(db), zero_d ? " (0-d)" : "", tensor_dtype_name(tensor_get_dtype(out)),
                                   tensor_dtype_name(want_dtype));
                        } else {
                            tensor_t *be = tensor_expand(b, 2, tensor_sizes(a));
                            double *va = ew_values(a), *vb = ew_values(be), *g = ew_values(out);
                            int64_t *ia = ew_ivalues(a), *ib = ew_ivalues(be), *gi = ew_ivalues(out);
                            for (int64_t k = 0; k < 15; k++) {
                                bool ok;
                                if (is_float(c)) {
                                    double w = through(want_dtype, ref_float(op, through(c, va[k]), through(c, vb[k]), 0));
                                    ok = (isnan(w) && isnan(g[k])) || g[k] == w ||
                                         fabs(g[k] - w) <= rel_tol(want_dtype) * fabs(w) + abs_tol(want_dtype);
                                    if (!ok) REPORT(&st, "%s %s %s [%lld]: got %g want %g", tensor_ew_op_name(op),
                                                    tensor_dtype_name(da), tensor_dtype_name(db), (long long)k, g[k], w);
                                } else {
                                    int64_t w = through_i(want_dtype, ref_int(op, through_i(c, ia[k]), through_i(c, ib[k]), 0));
                                    ok = gi[k] == w;
                                    if (!ok) REPORT(&st, "%s %s %s [%lld]: got %lld want %lld", tensor_ew_op_name(op),
                                                    tensor_dtype_name(da), tensor_dtype_name(db), (long long)k,
                                                    (long long)gi[k], (long long)w);
                                }
                                if (!ok) break;
                            }
                            free(va); free(vb); free(g); free(ia); free(ib); free(gi);
                            tensor_release(be);
                        }
                    }
                    tensor_release(out);
                    tensor_release(a);
                    tensor_release(b);
                }
    printf("  %d cases\n", st.cases);
    if (st.failures) fail_msg("%d of %d cases failed", st.failures, st.cases);
}

/* In-place and out= forms give bitwise the results of the plain form, on transposed
 * targets too. */
static void test_sweep_inplace_out(void **state) {
    (void)state;
    static const tensor_ew_op ops[] = {TENSOR_EW_ADD, TENSOR_EW_MUL, TENSOR_EW_MAXIMUM, TENSOR_EW_POW,
                                       TENSOR_EW_FMIN, TENSOR_EW_DIV_FLOOR};
    static const tensor_dtype dts[] = {TENSOR_INT8, TENSOR_INT32, TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_FLOAT32,
                                       TENSOR_FLOAT64};
    for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++)
        for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
            const tensor_dtype d = dts[di];
            tensor_t *a = make_input(d, L_TRANSPOSED, 0, 6, 9, false, false);
            tensor_t *b = make_input(d, L_BROADCAST, 1, 6, 9, !is_float(d), ops[oi] == TENSOR_EW_POW && !is_float(d));
            tensor_t *ref = tensor_binary(ops[oi], a, b);
            assert_non_null(ref);
            /* out=: a transposed output */
            int64_t ts[2] = {9, 6};
            tensor_t *ob = tensor_zeros(2, ts, d, tensor_cpu());
            tensor_t *o = tensor_transpose(ob, 0, 1);
            assert_int_equal(tensor_binary_out(ops[oi], o, a, b), TENSOR_OK);
            int64_t *r1 = ew_ivalues(ref), *r2 = ew_ivalues(o);
            double *f1 = ew_values(ref), *f2 = ew_values(o);
            for (int k = 0; k < 54; k++) {
                assert_true(r1[k] == r2[k] || (isnan(f1[k]) && isnan(f2[k])) || f1[k] == f2[k]);
            }
            free(r2); free(f2);
            /* in place on the transposed a */
            assert_int_equal(tensor_binary_(ops[oi], a, b), TENSOR_OK);
            r2 = ew_ivalues(a);
            f2 = ew_values(a);
            for (int k = 0; k < 54; k++) assert_true(r1[k] == r2[k] || (isnan(f1[k]) && isnan(f2[k])) || f1[k] == f2[k]);
            free(r1); free(r2); free(f1); free(f2);
            tensor_release(ref); tensor_release(o); tensor_release(ob); tensor_release(a); tensor_release(b);
        }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sweep_unary_math),
    cmocka_unit_test(test_sweep_unary_rounding_predicates),
    cmocka_unit_test(test_sweep_arith),
    cmocka_unit_test(test_sweep_minmax_compare),
    cmocka_unit_test(test_sweep_logical_bitwise),
    cmocka_unit_test(test_sweep_where_clamp),
    cmocka_unit_test(test_sweep_mixed_pairs),
    cmocka_unit_test(test_sweep_inplace_out),
};

TENSOR_TEST_GROUP(ew_sweep, tests, NULL, NULL)
