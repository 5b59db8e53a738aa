/* libFuzzer target: user reductions of one to four inputs through tensor_reduce. Each
 * reduction is sum(x0 * x1 * ... ) over dims, registered with each dtype rule (PROMOTED, SUM,
 * FLOAT) and with empty reductions allowed or not, with float, double and int64 forms made by
 * the kit. The inputs are strided views of buffers of their own (misaligned offsets, strides
 * including 0, ranks that differ, shapes that broadcast or not), each of any dtype, 0-d ones
 * included; the dims list may be empty, negative, out of range or repeated, keepdim either way,
 * and dtype= the default or any dtype, or the out= form into a new tensor of any dtype and
 * shape (its dtype is then the result's, its shape resized). The reference is written here from the documented
 * contract: the inputs' dtype by torch.result_type (0-d operands rank below dimensioned ones),
 * the result dtype by the rule or dtype=, each element through the result dtype's value set,
 * the products summed in the result's value type (float, double or wrapping int64), the total
 * stored in the result dtype (integers wrap to their width). Values are integers in [-4, 4],
 * so products and sums are exact in every value type. The first error the contract orders
 * (dtypes that do not promote, shapes that do not broadcast, a dim out of range or repeated,
 * an empty reduced dim of a reduction that refuses one) must be the status. Anything else is a
 * finding. */
#include <math.h>

#include "fuzz_common.h"
#include "ops/reduction_kit.h"

#define UR_MAX_NUMEL 4096 /* of the broadcast shape: the reference walks every element */

/* sum of products: the three value types' callbacks for each input count */
#define UR_FORMS(T, S)                                                                                  \
    static T ur_zero_##S(void) { return 0; }                                                            \
    static T ur_add_##S(T a, T b) { return a + b; }                                                     \
    static T ur_done_##S(T a, int64_t count) {                                                          \
        (void)count;                                                                                    \
        return a;                                                                                       \
    }                                                                                                   \
    static T ur_map1_##S(const T *x) { return x[0]; }                                                   \
    static T ur_map2_##S(const T *x) { return x[0] * x[1]; }                                            \
    static T ur_map3_##S(const T *x) { return x[0] * x[1] * x[2]; }                                     \
    static T ur_map4_##S(const T *x) { return x[0] * x[1] * x[2] * x[3]; }                              \
    TENSOR_REDUCTION_FNS(ur_fns1_##S, 1, T, T, ur_zero_##S, ur_map1_##S, ur_add_##S, ur_add_##S, ur_done_##S) \
    TENSOR_REDUCTION_FNS(ur_fns2_##S, 2, T, T, ur_zero_##S, ur_map2_##S, ur_add_##S, ur_add_##S, ur_done_##S) \
    TENSOR_REDUCTION_FNS(ur_fns3_##S, 3, T, T, ur_zero_##S, ur_map3_##S, ur_add_##S, ur_add_##S, ur_done_##S) \
    TENSOR_REDUCTION_FNS(ur_fns4_##S, 4, T, T, ur_zero_##S, ur_map4_##S, ur_add_##S, ur_add_##S, ur_done_##S)
UR_FORMS(float, f)
UR_FORMS(double, d)
UR_FORMS(int64_t, i)

static const tensor_reduction_dtype_rule ur_rules[3] = {TENSOR_REDUCTION_DTYPE_PROMOTED, TENSOR_REDUCTION_DTYPE_SUM,
                                                        TENSOR_REDUCTION_DTYPE_FLOAT};
/* [inputs - 1][rule][empty_ok] */
static tensor_reduction *ur_registered[4][3][2];

static void ur_register(void) {
    const tensor_reduction_fns f[4] = {ur_fns1_f, ur_fns2_f, ur_fns3_f, ur_fns4_f};
    const tensor_reduction_fns d[4] = {ur_fns1_d, ur_fns2_d, ur_fns3_d, ur_fns4_d};
    const tensor_reduction_fns i[4] = {ur_fns1_i, ur_fns2_i, ur_fns3_i, ur_fns4_i};
    for (int n = 0; n < 4; n++)
        for (int rule = 0; rule < 3; rule++)
            for (int e = 0; e < 2; e++) {
                char name[32];
                snprintf(name, sizeof name, "fuzz_prod%d_%d_%d", n + 1, rule, e);
                tensor_reduction_def def = {name, n + 1, sizeof(double), ur_rules[rule], e == 1, {{0}}, NULL};
                def.fns[TENSOR_REDUCTION_F32] = f[n];
                def.fns[TENSOR_REDUCTION_F64] = d[n];
                def.fns[TENSOR_REDUCTION_I64] = i[n];
                ur_registered[n][rule][e] = tensor_reduction_register(&def);
                if (ur_registered[n][rule][e] == NULL) fz_fail("tensor_reduction_register(%s)", name);
            }
}

/* The result dtype of a rule over the inputs' promoted dtype: PROMOTED keeps it; SUM and FLOAT
 * take float8 to float32, and integers and bool to int64 (SUM) or float32 (FLOAT). */
static tensor_dtype ur_rule_dtype(int rule, tensor_dtype p) {
    if (rule == 0) return p;
    if (fz_is_float8(p)) return TENSOR_FLOAT32;
    if (fz_is_float(p)) return p;
    return rule == 1 ? TENSOR_INT64 : TENSOR_FLOAT32;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static bool registered;
    if (!registered) {
        ur_register();
        registered = true;
    }
    fz_reader r = {data, size};
    const int nin = 1 + (int)fz_below(&r, 4), rule = (int)fz_below(&r, 3), empty_ok = (int)fz_below(&r, 2);
    const int nfull = 1 + (int)fz_below(&r, 4);
    int64_t full[4];
    for (int d = 0; d < nfull; d++) full[d] = fz_dim_size(&r);
    while (fz_numel(nfull, full) > UR_MAX_NUMEL)
        for (int d = 0; d < nfull; d++) full[d] = full[d] > 1 ? full[d] / 2 : full[d];
    tensor_dtype dts[4];
    dts[0] = fz_dtypes[fz_below(&r, FZ_NUM_DTYPES)];
    for (int k = 1; k < nin; k++) dts[k] = fz_below(&r, 2) == 0 ? dts[0] : fz_dtypes[fz_below(&r, FZ_NUM_DTYPES)];
    const tensor_dtype dtype_arg = fz_below(&r, 4) == 0 ? fz_dtypes[fz_below(&r, FZ_NUM_DTYPES)] : TENSOR_DTYPE_DEFAULT;
    const bool keepdim = fz_below(&r, 2) == 1;
    int dims[5];
    const int ndims = (int)fz_below(&r, (unsigned)nfull + 2);
    for (int i = 0; i < ndims; i++) dims[i] = (int)fz_below(&r, 2u * (unsigned)nfull + 3) - (nfull + 1);

    fz_view in[4] = {{0}};
    for (int k = 0; k < nin; k++)
        if (!fz_view_make(&r, &in[k], nfull, full, dts[k], 4, UR_MAX_NUMEL)) {
            for (int j = 0; j < k; j++) fz_view_free(&in[j]);
            return 0;
        }
    /* Sometimes the out= form, into a new tensor of any dtype (then the result dtype) and any
     * small shape (resized to the result's). Read last, so that short inputs call tensor_reduce. */
    const bool use_out = fz_below(&r, 4) == 3;
    const tensor_dtype out_dt = fz_dtypes[fz_below(&r, FZ_NUM_DTYPES)];
    int64_t out_sizes[4];
    const int out_nd = (int)fz_below(&r, 5);
    for (int d = 0; d < out_nd; d++) out_sizes[d] = fz_below(&r, 4);
    tensor_t *out = use_out ? tensor_empty(out_nd, out_sizes, out_dt, tensor_cpu()) : NULL;
    if (use_out && out == NULL) fz_fail("tensor_empty");

    /* what the call must do: the first error in the contract's order, else a result */
    fz_operand_type ops[4];
    for (int k = 0; k < nin; k++) ops[k] = (fz_operand_type){in[k].nd == 0 ? FZ_ZERO_DIM : FZ_DIMENSIONED, dts[k]};
    bool promote_err = false;
    const tensor_dtype promoted = fz_result_type(ops, nin, &promote_err);
    int n = in[0].nd;
    int64_t shape[4];
    memcpy(shape, in[0].sizes, sizeof shape);
    bool bcast = true;
    for (int k = 1; k < nin && bcast; k++) {
        int64_t s2[4];
        int n2;
        bcast = fz_broadcast(n, shape, in[k].nd, in[k].sizes, &n2, s2);
        if (bcast) {
            n = n2;
            memcpy(shape, s2, sizeof shape);
        }
    }
    bool red[4] = {false, false, false, false};
    tensor_status want_st = TENSOR_OK;
    if (promote_err) want_st = TENSOR_ERR_DTYPE;
    else if (!bcast) want_st = TENSOR_ERR_SHAPE;
    else if (ndims == 0) {
        for (int d = 0; d < n; d++) red[d] = true;
    } else {
        bool seen_scalar = false; /* a 0-d shape takes dims 0 and -1, and stays 0-d */
        const int wrap = n == 0 ? 1 : n;
        for (int i = 0; i < ndims && want_st == TENSOR_OK; i++) {
            if (dims[i] < -wrap || dims[i] >= wrap) {
                want_st = TENSOR_ERR_INDEX;
                break;
            }
            bool *slot = n == 0 ? &seen_scalar : &red[dims[i] < 0 ? dims[i] + n : dims[i]];
            if (*slot) want_st = TENSOR_ERR_INVALID_ARGUMENT;
            *slot = true;
        }
    }
    if (want_st == TENSOR_OK && !empty_ok)
        for (int d = 0; d < n; d++)
            if (red[d] && shape[d] == 0) want_st = TENSOR_ERR_INDEX;
    const bool too_big = want_st == TENSOR_OK && fz_numel(n, shape) > 4 * UR_MAX_NUMEL;

    const tensor_t *args[4];
    for (int k = 0; k < nin; k++) args[k] = in[k].t;
    const tensor_reduction *red_fn = ur_registered[nin - 1][rule][empty_ok];
    tensor_t *res = NULL;
    if (too_big) goto done; /* too large to check: not called */
    if (!use_out) res = tensor_reduce(red_fn, args, nin, ndims ? dims : NULL, ndims, keepdim, dtype_arg);
    else if (tensor_reduce_out(out, red_fn, args, nin, ndims ? dims : NULL, ndims, keepdim) == TENSOR_OK)
        res = tensor_retain(out);
    if (want_st != TENSOR_OK) {
        if (res != NULL) fz_fail("tensor_reduce accepted a call that must fail with %s", tensor_status_name(want_st));
        fz_check_error_reported("tensor_reduce");
        if (tensor_last_status() != want_st)
            fz_fail("tensor_reduce: status %s, want %s", tensor_status_name(tensor_last_status()), tensor_status_name(want_st));
        goto done;
    }
    if (res == NULL) {
        char what[160] = "";
        for (int k = 0; k < nin; k++)
            snprintf(what + strlen(what), sizeof what - strlen(what), " %s/%dd", tensor_dtype_name(dts[k]), in[k].nd);
        fz_fail("tensor_reduce refused a valid call:%s", what);
    }

    const tensor_dtype odt = use_out                            ? out_dt
                             : dtype_arg != TENSOR_DTYPE_DEFAULT ? dtype_arg
                                                                 : ur_rule_dtype(rule, promoted);
    if (tensor_get_dtype(res) != odt)
        fz_fail("result dtype %s, want %s", tensor_dtype_name(tensor_get_dtype(res)), tensor_dtype_name(odt));
    int64_t want_shape[4];
    int nw = 0;
    for (int d = 0; d < n; d++)
        if (!red[d]) want_shape[nw++] = shape[d];
        else if (keepdim) want_shape[nw++] = 1;
    if (tensor_ndim(res) != nw) fz_fail("result rank %d, want %d", tensor_ndim(res), nw);
    for (int d = 0; d < nw; d++)
        if (tensor_sizes(res)[d] != want_shape[d])
            fz_fail("result dim %d is %lld, want %lld", d, (long long)tensor_sizes(res)[d], (long long)want_shape[d]);

    const int64_t outn = fz_numel(nw, want_shape);
    double *ref = calloc((size_t)(outn > 0 ? outn : 1), sizeof(double));
    double *got = malloc((size_t)(outn > 0 ? outn : 1) * sizeof(double));
    if (ref == NULL || got == NULL) abort();
    int64_t idx[4] = {0, 0, 0, 0};
    if (fz_numel(n, shape) > 0) {
        do {
            int64_t o = 0;
            for (int d = 0; d < n; d++)
                if (!red[d]) o = o * shape[d] + idx[d];
            double p = 1;
            for (int k = 0; k < nin; k++) {
                const size_t es = tensor_dtype_size(dts[k]);
                const double x = tensor_dtype_load_double(
                    dts[k], in[k].base + (size_t)fz_bcast_offset(n, idx, in[k].nd, in[k].sizes, in[k].strides) * es);
                p *= fz_through(odt, x);
            }
            ref[o] += p;
        } while (fz_next_index(n, shape, idx));
    }
    tensor_t *resd = tensor_to_dtype(res, TENSOR_FLOAT64);
    if (resd == NULL || tensor_to_buffer(resd, got, (size_t)outn * sizeof(double)) != TENSOR_OK) fz_fail("reading the result");
    for (int64_t o = 0; o < outn; o++) {
        const double want = fz_through(odt, ref[o]);
        if (!(got[o] == want || (isnan(got[o]) && isnan(want))))
            fz_fail("%d inputs (%s ...), rule %d, result %s, output %lld: got %.17g, want %.17g", nin,
                    tensor_dtype_name(dts[0]), rule, tensor_dtype_name(odt), (long long)o, got[o], want);
    }
    free(ref);
    free(got);
    tensor_release(resd);
done:
    tensor_release(res);
    tensor_release(out);
    for (int k = 0; k < nin; k++) fz_view_free(&in[k]);
    return 0;
}
