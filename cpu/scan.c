/* The CPU scans (TENSOR_OP_SCAN): each line in index order on one thread, the lines split
 * between threads, so results are bitwise the same for any thread count. Values accumulate as
 * PyTorch's CPU kernels do (its acc_type): float16 / bfloat16 / float8 in float32, float32 and
 * float64 in float64, integers and bool in int64 (wrapping). */
#include <math.h>
#include <string.h>

#include "contract/dispatch.h"
#include "cpu/cpu_reduce.h"
#include "iterator/iterator.h"
#include "runtime/error.h"

typedef struct scan_ctx {
    int kind;
    int64_t len;
    int64_t s_out, s_in, s_idx; /* byte strides along the line */
    int nout;                   /* 1, or 2 with indices */
    tensor_dtype out_dtype, in_dtype;
    cpu_cvt_fn cvt;             /* input element -> value */
    cpu_val_kind val;
} scan_ctx;

/* log(exp(x) + exp(y)), PyTorch's _log_add_exp_helper: a NaN on either side gives NaN,
 * infinities of one sign stay. */
static double log_add_exp(double x, double y) {
    if (isnan(x) || isnan(y)) return x + y;
    const double mn = y < x ? y : x, mx = x < y ? y : x;
    if (mn != mx || isfinite(mn)) return mx + log1p(exp(mn - mx));
    return x;
}

/* cummax / cummin: a NaN always takes over (the latest NaN's index); otherwise the later of
 * equal values wins (>= / <=), as PyTorch. */
static int takes_over(double x, double best, int max) {
    if (isnan(x)) return 1;
    if (isnan(best)) return 0;
    return max ? x >= best : x <= best;
}

/* Elements converted per converter call (a stack buffer); the converter takes the line's stride. */
#define SCAN_TILE 256

static void scan_line_f(const scan_ctx *c, char *out, char *idx, const char *in) {
    double acc = c->kind == TENSOR_SCAN_CUMPROD ? 1.0 : c->kind == TENSOR_SCAN_LOGCUMSUMEXP ? -INFINITY : 0.0;
    int64_t best_i = 0;
    double vd[SCAN_TILE];
    float vf[SCAN_TILE];
    for (int64_t t = 0; t < c->len; t += SCAN_TILE) {
        const int64_t n = c->len - t < SCAN_TILE ? c->len - t : SCAN_TILE;
        c->cvt(c->val == CPU_VAL_F64 ? (void *)vd : (void *)vf, in + t * c->s_in, c->s_in, n);
        for (int64_t j = 0; j < n; j++) {
            const int64_t k = t + j;
            const double x = c->val == CPU_VAL_F64 ? vd[j] : (double)vf[j];
            switch (c->kind) {
            case TENSOR_SCAN_CUMSUM: acc = c->val == CPU_VAL_F64 ? acc + x : (double)((float)acc + (float)x); break;
            case TENSOR_SCAN_CUMPROD: acc = c->val == CPU_VAL_F64 ? acc * x : (double)((float)acc * (float)x); break;
            case TENSOR_SCAN_LOGCUMSUMEXP:
                acc = c->val == CPU_VAL_F64 ? log_add_exp(x, acc) : (double)(float)log_add_exp(x, acc);
                break;
            default:
                if (k == 0 || takes_over(x, acc, c->kind == TENSOR_SCAN_CUMMAX)) {
                    acc = x;
                    best_i = k;
                }
                memcpy(idx + k * c->s_idx, &best_i, sizeof best_i);
                break;
            }
            if (c->val == CPU_VAL_F64) tt_cpu_store_f64(c->out_dtype, out + k * c->s_out, acc);
            else tt_cpu_store_f32(c->out_dtype, out + k * c->s_out, (float)acc);
        }
    }
}

static void scan_line_i(const scan_ctx *c, char *out, char *idx, const char *in) {
    int64_t acc = c->kind == TENSOR_SCAN_CUMPROD ? 1 : 0, best_i = 0;
    int64_t v[SCAN_TILE];
    for (int64_t t = 0; t < c->len; t += SCAN_TILE) {
        const int64_t n = c->len - t < SCAN_TILE ? c->len - t : SCAN_TILE;
        c->cvt(v, in + t * c->s_in, c->s_in, n);
        for (int64_t j = 0; j < n; j++) {
            const int64_t k = t + j, x = v[j];
            switch (c->kind) {
            case TENSOR_SCAN_CUMSUM: acc = (int64_t)((uint64_t)acc + (uint64_t)x); break;
            case TENSOR_SCAN_CUMPROD: acc = (int64_t)((uint64_t)acc * (uint64_t)x); break;
            default:
                if (k == 0 || (c->kind == TENSOR_SCAN_CUMMAX ? x >= acc : x <= acc)) {
                    acc = x;
                    best_i = k;
                }
                memcpy(idx + k * c->s_idx, &best_i, sizeof best_i);
                break;
            }
            tt_cpu_store_i64(c->out_dtype, out + k * c->s_out, acc);
        }
    }
}

static void scan_loop(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *ctx) {
    const scan_ctx *c = ctx;
    const int n = c->nout + 1, in = c->nout;
    for (int64_t j = 0; j < size1; j++)
        for (int64_t i = 0; i < size0; i++) {
            char *out = data[0] + i * strides[0] + j * strides[n];
            char *idx = c->nout == 2 ? data[1] + i * strides[1] + j * strides[n + 1] : NULL;
            const char *src = data[in] + i * strides[in] + j * strides[n + in];
            if (c->val == CPU_VAL_I64) scan_line_i(c, out, idx, src);
            else scan_line_f(c, out, idx, src);
        }
}

tensor_status tt_cpu_scan_kernel(struct tensor_iter *iter, const tensor_kernel_params *params) {
    static const char func[] = "scan (CPU)";
    if (iter == NULL || params == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func,
                            iter == NULL ? "iter" : "params");
    scan_ctx c;
    memset(&c, 0, sizeof c);
    c.kind = params->scan_kind;
    c.len = params->scan_len;
    c.nout = tensor_iter_noutputs(iter);
    c.s_out = params->scan_strides[0];
    c.s_idx = c.nout == 2 ? params->scan_strides[1] : 0;
    c.s_in = params->scan_strides[c.nout];
    c.out_dtype = tensor_iter_dtype(iter, 0);
    c.in_dtype = tensor_iter_dtype(iter, c.nout);
    /* Values: comparisons (cummax/cummin) look at the input as it is; the others convert it to
     * the output dtype's value set first, as sum does. */
    const tensor_dtype v = c.kind >= TENSOR_SCAN_CUMMAX ? c.in_dtype : c.out_dtype;
    c.val = v == TENSOR_FLOAT64 || v == TENSOR_FLOAT32 ? CPU_VAL_F64
            : tensor_dtype_is_floating(v)              ? CPU_VAL_F32
                                                       : CPU_VAL_I64;
    c.cvt = tt_cpu_converter(c.in_dtype, c.val, c.kind >= TENSOR_SCAN_CUMMAX ? c.in_dtype : c.out_dtype);
    if (c.cvt == NULL) return tensor_error(TENSOR_ERR_DTYPE, "%s: cannot load %s", func, tensor_dtype_name(c.in_dtype));
    return tensor_iter_for_each(iter, scan_loop, &c, 0);
}
