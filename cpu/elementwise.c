/* The CPU elementwise kernels: one per dispatch slot (TENSOR_OP_EW_UNARY, _BINARY, _TERNARY,
 * _COPY, _FILL), following docs/elementwise.md §3 and §5.
 *
 * Each runs a 2-D loop through tensor_iter_for_each (OpenMP over linear ranges for large
 * tensors). Per row of the block:
 *  - fast path: every operand already has the compute type (float32, float64 or int64; bool
 *    output for predicates) and unit stride: the compute loop (cpu/elementwise_compute.c) runs
 *    on the tensors' memory;
 *  - otherwise the row goes in tiles of EW_TILE elements: inputs are converted while loading
 *    into stack buffers of the compute type (tt_cpu_converter, plus a wrap into the common
 *    integer dtype), the compute loop runs on the buffers, and the results are converted
 *    while storing.
 * Every element is computed by the same function on either path, so results do not depend on
 * the thread count or the path. */
#include <stdatomic.h>
#include <string.h>

#include "cpu/cpu_reduce.h"
#include "cpu/elementwise_compute.h"
#include "iterator/iterator.h"
#include "contract/dispatch.h"
#include "ops/functors/ew_common.h"
#include "runtime/error.h"
#include "iterator/iter_internal.h"

#define EW_TILE 256

typedef struct ew_ctx {
    tensor_ew_op op;
    tensor_ew_compute kind;
    tensor_dtype via;             /* the common dtype (COPY: the output's) */
    tensor_dtype out_dtype;
    int nin;
    tensor_dtype in_dtype[3];
    cpu_cvt_fn cvt[3];            /* input k -> compute type through via */
    bool wrap[3];                 /* input k needs a wrap into the integer dtype via */
    bool predicate;               /* bool results */
    bool fast;                    /* dtypes allow the fast path (strides decide per row) */
    int64_t in_size[3], out_size;
    unsigned char fill[8];        /* FILL: the value as one output element */
    cpu_ew_args args;             /* alphas; zero_divisor is per tile, reported via flag */
    atomic_int zero_divisor;
    atomic_int bad_op;
} ew_ctx;

/* ---- tile stores: compute values -> output dtype (switch outside the loop) ---- */

/* float -> float16 bits, round to nearest even, written with selects only so that gcc
 * vectorises loops over it (runtime/dtype_convert.h's portable form is the reference; the
 * tests compare the two over a dense sample of all float bit patterns). Values below the
 * smallest float16 normal are rounded by one float addition of 0.5f, which aligns the
 * float16 subnormal quantum (2^-24) with the float's last mantissa bit; |x| < 2^-14 is a
 * normal float there (or a float subnormal, which rounds to zero either way). */
static inline uint16_t ew_f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t a = x & 0x7FFFFFFFu;
    /* normal range: rebias, add the rounding bias (0xFFF + the kept lsb), shift */
    const uint32_t normal = (a + 0xC8000FFFu + ((a >> 13) & 1u)) >> 13; /* 0xC8000000 = (15 - 127) << 23 */
    float af;
    memcpy(&af, &a, sizeof af);
    float t = af + 0.5f;
    uint32_t tb;
    memcpy(&tb, &t, sizeof tb);
    const uint32_t sub = tb - 0x3F000000u;
    /* selects as masks, not ?: , so that gcc if-converts and vectorises */
    const uint32_t is_sub = 0u - (uint32_t)(a < 0x38800000u);
    const uint32_t is_inf = 0u - (uint32_t)(a >= 0x477FF000u); /* rounds to 65536 or more */
    const uint32_t is_nan = 0u - (uint32_t)(a > 0x7F800000u);
    uint32_t r = (sub & is_sub) | (normal & ~is_sub);
    r = (0x7C00u & is_inf) | (r & ~is_inf);
    r = (0x7E00u & is_nan) | (r & ~is_nan);
    return (uint16_t)(r | sign);
}

static void store_f32(tensor_dtype d, char *dst, int64_t stride, const float *v, int64_t n) {
    switch (d) {
    case TENSOR_FLOAT32:
        if (stride == 4) { memcpy(dst, v, (size_t)n * 4); return; }
        for (int64_t i = 0; i < n; i++) *(float *)(dst + i * stride) = v[i];
        return;
    case TENSOR_FLOAT16:
        if (stride == 2) { /* unit stride: a plain array loop, which gcc vectorises */
            uint16_t *o = (uint16_t *)dst;
            for (int64_t i = 0; i < n; i++) o[i] = ew_f32_to_f16(v[i]);
            return;
        }
        for (int64_t i = 0; i < n; i++) *(uint16_t *)(dst + i * stride) = ew_f32_to_f16(v[i]);
        return;
    case TENSOR_BFLOAT16:
        if (stride == 2) {
            uint16_t *o = (uint16_t *)dst;
            for (int64_t i = 0; i < n; i++) o[i] = tensor_f32_to_bf16(v[i]);
            return;
        }
        for (int64_t i = 0; i < n; i++) *(uint16_t *)(dst + i * stride) = tensor_f32_to_bf16(v[i]);
        return;
    default:
        for (int64_t i = 0; i < n; i++) tensor_ew_store_f32(d, dst + i * stride, v[i]);
        return;
    }
}

static void store_f64(tensor_dtype d, char *dst, int64_t stride, const double *v, int64_t n) {
    if (d == TENSOR_FLOAT64) {
        for (int64_t i = 0; i < n; i++) *(double *)(dst + i * stride) = v[i];
        return;
    }
    for (int64_t i = 0; i < n; i++) tensor_ew_store_f64(d, dst + i * stride, v[i]);
}

static void store_i64(tensor_dtype d, char *dst, int64_t stride, const int64_t *v, int64_t n) {
    switch (d) {
    case TENSOR_INT64:
        for (int64_t i = 0; i < n; i++) *(int64_t *)(dst + i * stride) = v[i];
        return;
    case TENSOR_INT32:
        if (stride == 4) {
            int32_t *o = (int32_t *)dst;
            for (int64_t i = 0; i < n; i++) o[i] = (int32_t)(uint32_t)(uint64_t)v[i];
            return;
        }
        for (int64_t i = 0; i < n; i++) *(int32_t *)(dst + i * stride) = (int32_t)(uint32_t)(uint64_t)v[i];
        return;
    case TENSOR_INT16:
        for (int64_t i = 0; i < n; i++) *(int16_t *)(dst + i * stride) = (int16_t)(uint16_t)(uint64_t)v[i];
        return;
    case TENSOR_INT8:
        for (int64_t i = 0; i < n; i++) *(int8_t *)(dst + i * stride) = (int8_t)(uint8_t)(uint64_t)v[i];
        return;
    case TENSOR_UINT8:
        for (int64_t i = 0; i < n; i++) *(uint8_t *)(dst + i * stride) = (uint8_t)(uint64_t)v[i];
        return;
    case TENSOR_BOOL:
        for (int64_t i = 0; i < n; i++) *(uint8_t *)(dst + i * stride) = v[i] != 0;
        return;
    default:
        for (int64_t i = 0; i < n; i++) tensor_ew_store_i64(d, dst + i * stride, v[i]);
        return;
    }
}

static void store_bool(tensor_dtype d, char *dst, int64_t stride, const uint8_t *v, int64_t n) {
    if (d == TENSOR_BOOL || d == TENSOR_UINT8 || d == TENSOR_INT8) {
        if (stride == 1) { memcpy(dst, v, (size_t)n); return; }
        for (int64_t i = 0; i < n; i++) *(uint8_t *)(dst + i * stride) = v[i];
        return;
    }
    for (int64_t i = 0; i < n; i++) tensor_ew_store_i64(d, dst + i * stride, v[i]);
}

/* ---- tile loads ---- */

/* Input k's n elements at src (byte stride) into buf as the compute type, through via. */
static void load(const ew_ctx *c, int k, void *buf, const char *src, int64_t stride, int64_t n) {
    c->cvt[k](buf, src, stride, n);
    if (c->wrap[k]) {
        int64_t *v = (int64_t *)buf;
        for (int64_t i = 0; i < n; i++) v[i] = tensor_ew_wrap_i64(c->via, v[i]);
    }
}

static void load_cond(uint8_t *buf, const char *src, int64_t stride, int64_t n) {
    for (int64_t i = 0; i < n; i++) buf[i] = *(const uint8_t *)(src + i * stride) != 0;
}

/* ---- one row: n elements, operand k at p[k] with byte stride s[k] (0 = output) ---- */

typedef union ew_tile {
    float f32[EW_TILE];
    double f64[EW_TILE];
    int64_t i64[EW_TILE];
} ew_tile;

static bool compute(ew_ctx *c, void *const in[3], const uint8_t *cond, void *o, uint8_t *ob, int64_t n) {
    cpu_ew_args *args = &c->args;
    cpu_ew_args local = *args; /* zero_divisor per call: threads share c */
    local.zero_divisor = 0;
    bool ok = false;
    const int arity = c->op == TENSOR_EW_WHERE || c->op == TENSOR_EW_CLAMP ? 3 : c->nin;
    switch (c->kind) {
    case TENSOR_EW_COMPUTE_F32:
        if (arity == 1) ok = tt_cpu_ew_unary_f32(c->op, in[0], o, ob, n);
        else if (arity == 2) ok = tt_cpu_ew_binary_f32(c->op, in[0], in[1], o, ob, n, &local);
        else ok = tt_cpu_ew_ternary_f32(c->op, cond, in[0], in[1], in[2], o, n);
        break;
    case TENSOR_EW_COMPUTE_F64:
        if (arity == 1) ok = tt_cpu_ew_unary_f64(c->op, in[0], o, ob, n);
        else if (arity == 2) ok = tt_cpu_ew_binary_f64(c->op, in[0], in[1], o, ob, n, &local);
        else ok = tt_cpu_ew_ternary_f64(c->op, cond, in[0], in[1], in[2], o, n);
        break;
    case TENSOR_EW_COMPUTE_I64:
        if (arity == 1) ok = tt_cpu_ew_unary_i64(c->op, in[0], o, ob, n);
        else if (arity == 2) ok = tt_cpu_ew_binary_i64(c->op, in[0], in[1], o, ob, n, &local);
        else ok = tt_cpu_ew_ternary_i64(c->op, cond, in[0], in[1], in[2], o, n);
        break;
    }
    if (local.zero_divisor) atomic_store_explicit(&c->zero_divisor, 1, memory_order_relaxed);
    if (!ok) atomic_store_explicit(&c->bad_op, 1, memory_order_relaxed);
    return ok;
}

/* The fast path when some inputs have stride 0 (a 0-d operand or a broadcast row): those are
 * replicated once into a tile, the others are read in place, in tiles of EW_TILE. */
static void fast_row_with_scalars(ew_ctx *c, char *const p[4], const int64_t s[4], int64_t n) {
    const bool where = c->op == TENSOR_EW_WHERE;
    ew_tile rep[3];
    uint8_t crep[EW_TILE];
    for (int k = 0; k < c->nin; k++) {
        if (s[1 + k] != 0) continue;
        if (where && k == 0) { memset(crep, *(const uint8_t *)p[1] != 0, sizeof crep); continue; }
        const int64_t es = c->in_size[k];
        for (int64_t i = 0; i < EW_TILE; i++) memcpy((char *)&rep[k] + i * es, p[1 + k], (size_t)es);
    }
    for (int64_t off = 0; off < n; off += EW_TILE) {
        const int64_t m = n - off < EW_TILE ? n - off : EW_TILE;
        void *q[3] = {NULL, NULL, NULL};
        for (int k = 0; k < c->nin; k++) q[k] = s[1 + k] == 0 ? (void *)&rep[k] : (void *)(p[1 + k] + off * s[1 + k]);
        const uint8_t *cond = NULL;
        void *in[3] = {q[0], q[1], q[2]};
        if (where) { /* cond is input 0: a, b go to the ternary's slots 1, 2 */
            cond = s[1] == 0 ? crep : (const uint8_t *)q[0];
            in[0] = NULL;
        }
        char *o = p[0] + off * s[0];
        if (!compute(c, in, cond, c->predicate ? NULL : o, c->predicate ? (uint8_t *)o : NULL, m)) return;
    }
}

static void row(ew_ctx *c, char *const p[4], const int64_t s[4], int64_t n) {
    const bool where = c->op == TENSOR_EW_WHERE;
    if (c->fast) {
        bool unit = s[0] == c->out_size, any_zero = false;
        for (int k = 0; k < c->nin; k++) {
            unit &= s[1 + k] == c->in_size[k] || s[1 + k] == 0;
            any_zero |= s[1 + k] == 0;
        }
        if (unit && any_zero && n > 1) {
            fast_row_with_scalars(c, p, s, n);
            return;
        }
        if (unit) {
            void *in[3] = {NULL, NULL, NULL};
            for (int k = 0; k < c->nin; k++) in[k] = p[1 + k];
            if (where) { /* cond is input 0: shift a, b into the ternary's slots 1, 2 */
                in[1] = p[2];
                in[2] = p[3];
                in[0] = NULL;
            }
            compute(c, in, where ? (const uint8_t *)p[1] : NULL, c->predicate ? NULL : p[0],
                    c->predicate ? (uint8_t *)p[0] : NULL, n);
            return;
        }
    }
    ew_tile bufs[3], out;
    uint8_t cbuf[EW_TILE], obuf[EW_TILE];
    for (int64_t off = 0; off < n; off += EW_TILE) {
        const int64_t m = n - off < EW_TILE ? n - off : EW_TILE;
        void *in[3] = {NULL, NULL, NULL};
        for (int k = 0; k < c->nin; k++) {
            const char *src = p[1 + k] + off * s[1 + k];
            if (where && k == 0) {
                load_cond(cbuf, src, s[1], m);
                continue;
            }
            load(c, k, &bufs[k], src, s[1 + k], m);
            in[k] = &bufs[k];
        }
        if (!compute(c, in, cbuf, &out, obuf, m)) return;
        /* PyTorch computes in the common dtype and only then casts into an out= or self of
         * another dtype (int8 100 + 100 into int64 is -56; float16 1 / 3 into float32 is the
         * float16 third): the compute type's result takes the common dtype's values first. */
        if (!c->predicate && c->out_dtype != c->via) {
            if (c->kind == TENSOR_EW_COMPUTE_F32 && c->via != TENSOR_FLOAT32)
                for (int64_t i = 0; i < m; i++) out.f32[i] = tensor_ew_round_to_f32(c->via, out.f32[i]);
            else if (c->kind == TENSOR_EW_COMPUTE_I64 && c->via != TENSOR_INT64)
                for (int64_t i = 0; i < m; i++) out.i64[i] = tensor_ew_wrap_i64(c->via, out.i64[i]);
        }
        char *dst = p[0] + off * s[0];
        if (c->predicate) store_bool(c->out_dtype, dst, s[0], obuf, m);
        else if (c->kind == TENSOR_EW_COMPUTE_F32) store_f32(c->out_dtype, dst, s[0], out.f32, m);
        else if (c->kind == TENSOR_EW_COMPUTE_F64) store_f64(c->out_dtype, dst, s[0], out.f64, m);
        else store_i64(c->out_dtype, dst, s[0], out.i64, m);
    }
}

/* the tensor_iter_loop2d_fn: walks the size1 rows of a block */
static void loop2d(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *vctx) {
    ew_ctx *c = vctx;
    const int nt = 1 + c->nin;
    char *p[4];
    int64_t s[4];
    for (int k = 0; k < nt; k++) s[k] = strides[k];
    for (int64_t j = 0; j < size1; j++) {
        for (int k = 0; k < nt; k++) p[k] = data[k] + j * strides[nt + k];
        row(c, p, s, size0);
    }
}

/* ---- setup shared by the slots ---- */

static tensor_status setup(ew_ctx *c, tensor_iter_t *iter, const tensor_kernel_params *params, int nin,
                           const char *slot) {
    memset(c, 0, sizeof *c);
    if (iter == NULL || params == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "cpu elementwise %s: NULL iterator or params", slot);
    if (tensor_iter_noutputs(iter) != 1 || tensor_iter_ninputs(iter) != nin)
        return tensor_error(TENSOR_ERR_INTERNAL, "%s: the %s kernel expects 1 output and %d inputs, got %d and %d",
                            iter->name, slot, nin, tensor_iter_noutputs(iter), tensor_iter_ninputs(iter));
    c->op = (tensor_ew_op)params->ew_op;
    c->via = (tensor_dtype)params->ew_dtype;
    if (!tensor_dtype_is_valid(c->via))
        return tensor_error(TENSOR_ERR_INTERNAL, "%s: bad ew_dtype %d", iter->name, params->ew_dtype);
    c->kind = tensor_ew_compute_kind(c->via);
    c->out_dtype = tensor_iter_dtype(iter, 0);
    c->out_size = (int64_t)tensor_dtype_size(c->out_dtype);
    c->nin = nin;
    c->predicate = tt_cpu_ew_is_predicate(c->op);
    c->args.alpha_f32 = (float)params->scalar;
    c->args.alpha_f64 = params->scalar;
    c->args.alpha_i64 = params->scalar_i;
    const cpu_val_kind val = c->kind == TENSOR_EW_COMPUTE_F32 ? CPU_VAL_F32
                             : c->kind == TENSOR_EW_COMPUTE_F64 ? CPU_VAL_F64 : CPU_VAL_I64;
    const tensor_dtype native = c->kind == TENSOR_EW_COMPUTE_F32 ? TENSOR_FLOAT32
                                : c->kind == TENSOR_EW_COMPUTE_F64 ? TENSOR_FLOAT64 : TENSOR_INT64;
    c->fast = c->via == native && c->out_dtype == (c->predicate ? TENSOR_BOOL : native);
    for (int k = 0; k < nin; k++) {
        const tensor_dtype d = tensor_iter_dtype(iter, 1 + k);
        c->in_dtype[k] = d;
        c->in_size[k] = (int64_t)tensor_dtype_size(d);
        if (c->op == TENSOR_EW_WHERE && k == 0) {
            c->fast &= d == TENSOR_BOOL;
            continue;
        }
        /* COPY converts once, when storing: rounding or wrapping into the output's value set
         * while loading too would be idempotent work (bool outputs still need x != 0) */
        /* An opmath scalar (params->ew_opmath_inputs, a float32 0-d input of a float16/bfloat16
         * op) is loaded as it is: ops/ already rounded it once, to the compute type. */
        const bool opmath = c->kind == TENSOR_EW_COMPUTE_F32 && ((params->ew_opmath_inputs >> k) & 1u);
        const tensor_dtype load_via = (c->op == TENSOR_EW_COPY && c->via != TENSOR_BOOL) || opmath ? d : c->via;
        c->cvt[k] = tt_cpu_converter(d, val, load_via);
        if (c->cvt[k] == NULL) return tensor_error(TENSOR_ERR_INTERNAL, "%s: no converter for input %d", iter->name, k);
        c->wrap[k] = val == CPU_VAL_I64 && d != load_via && d != TENSOR_BOOL && load_via != TENSOR_BOOL &&
                     load_via != TENSOR_INT64;
        c->fast &= d == native;
    }
    return TENSOR_OK;
}

static tensor_status run(ew_ctx *c, tensor_iter_t *iter) {
    tensor_status st = tensor_iter_for_each(iter, loop2d, c, 0);
    if (st != TENSOR_OK) return st;
    if (atomic_load(&c->bad_op))
        return tensor_error(TENSOR_ERR_INTERNAL, "%s: the CPU kernel has no %s for dtype %s", iter->name,
                            tensor_ew_op_name(c->op), tensor_dtype_name(c->via));
    if (atomic_load(&c->zero_divisor)) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: ZeroDivisionError", iter->name);
    return TENSOR_OK;
}

tensor_status tt_cpu_ew_unary_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    ew_ctx c;
    if (setup(&c, iter, params, 1, "unary") != TENSOR_OK) return tensor_last_status();
    return run(&c, iter);
}

tensor_status tt_cpu_ew_binary_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    ew_ctx c;
    if (setup(&c, iter, params, 2, "binary") != TENSOR_OK) return tensor_last_status();
    return run(&c, iter);
}

tensor_status tt_cpu_ew_ternary_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    ew_ctx c;
    if (setup(&c, iter, params, 3, "ternary") != TENSOR_OK) return tensor_last_status();
    return run(&c, iter);
}

/* ---- COPY: same dtype is a byte copy per element (memcpy for unit strides); otherwise the
 * unary path with the identity op, computing in the output dtype's compute type ---- */

static void copy_loop2d(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *vctx) {
    const ew_ctx *c = vctx;
    const int64_t es = c->out_size;
    for (int64_t j = 0; j < size1; j++) {
        char *d = data[0] + j * strides[2];
        const char *s = data[1] + j * strides[3];
        if (strides[0] == es && strides[1] == es) {
            memmove(d, s, (size_t)(size0 * es));
            continue;
        }
        switch (es) {
        case 1: for (int64_t i = 0; i < size0; i++) *(uint8_t *)(d + i * strides[0]) = *(const uint8_t *)(s + i * strides[1]); break;
        case 2: for (int64_t i = 0; i < size0; i++) *(uint16_t *)(d + i * strides[0]) = *(const uint16_t *)(s + i * strides[1]); break;
        case 4: for (int64_t i = 0; i < size0; i++) *(uint32_t *)(d + i * strides[0]) = *(const uint32_t *)(s + i * strides[1]); break;
        default: for (int64_t i = 0; i < size0; i++) *(uint64_t *)(d + i * strides[0]) = *(const uint64_t *)(s + i * strides[1]); break;
        }
    }
}

tensor_status tt_cpu_ew_copy_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    ew_ctx c;
    if (setup(&c, iter, params, 1, "copy") != TENSOR_OK) return tensor_last_status();
    c.op = TENSOR_EW_COPY;
    c.predicate = false;
    /* COPY computes in the output dtype (ops/ passes it as ew_dtype; make sure) */
    if (c.via != c.out_dtype) return tensor_error(TENSOR_ERR_INTERNAL, "%s: copy with ew_dtype != output dtype", iter->name);
    if (c.in_dtype[0] == c.out_dtype) return tensor_iter_for_each(iter, copy_loop2d, &c, 0);
    return run(&c, iter);
}

/* ---- FILL: the value is stored once as an output element, then replicated ---- */

static void fill_loop2d(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *vctx) {
    const ew_ctx *c = vctx;
    const int64_t es = c->out_size;
    for (int64_t j = 0; j < size1; j++) {
        char *d = data[0] + j * strides[1];
        const int64_t st = strides[0];
        if (st == es) { /* unit stride: array stores, vectorised */
            switch (es) {
            case 1: { uint8_t v, *o = (uint8_t *)d; memcpy(&v, c->fill, 1); for (int64_t i = 0; i < size0; i++) o[i] = v; continue; }
            case 2: { uint16_t v, *o = (uint16_t *)d; memcpy(&v, c->fill, 2); for (int64_t i = 0; i < size0; i++) o[i] = v; continue; }
            case 4: { uint32_t v, *o = (uint32_t *)d; memcpy(&v, c->fill, 4); for (int64_t i = 0; i < size0; i++) o[i] = v; continue; }
            default: { uint64_t v, *o = (uint64_t *)d; memcpy(&v, c->fill, 8); for (int64_t i = 0; i < size0; i++) o[i] = v; continue; }
            }
        }
        switch (es) {
        case 1: { uint8_t v; memcpy(&v, c->fill, 1); for (int64_t i = 0; i < size0; i++) *(uint8_t *)(d + i * st) = v; break; }
        case 2: { uint16_t v; memcpy(&v, c->fill, 2); for (int64_t i = 0; i < size0; i++) *(uint16_t *)(d + i * st) = v; break; }
        case 4: { uint32_t v; memcpy(&v, c->fill, 4); for (int64_t i = 0; i < size0; i++) *(uint32_t *)(d + i * st) = v; break; }
        default: { uint64_t v; memcpy(&v, c->fill, 8); for (int64_t i = 0; i < size0; i++) *(uint64_t *)(d + i * st) = v; break; }
        }
    }
}

tensor_status tt_cpu_ew_fill_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    if (iter == NULL || params == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "cpu elementwise fill: NULL iterator or params");
    if (tensor_iter_noutputs(iter) != 1 || tensor_iter_ninputs(iter) != 0)
        return tensor_error(TENSOR_ERR_INTERNAL, "%s: the fill kernel expects 1 output and no input", iter->name);
    ew_ctx c;
    memset(&c, 0, sizeof c);
    c.out_dtype = tensor_iter_dtype(iter, 0);
    c.out_size = (int64_t)tensor_dtype_size(c.out_dtype);
    _Alignas(8) unsigned char v[8] = {0};
    if (tensor_ew_is_floating(c.out_dtype)) tensor_ew_store_f64(c.out_dtype, v, params->scalar);
    else tensor_ew_store_i64(c.out_dtype, v, params->scalar_i);
    memcpy(c.fill, v, sizeof v);
    return tensor_iter_for_each(iter, fill_loop2d, &c, 0);
}
