/* libFuzzer target: elementwise ops (add, sub, mul, the three divisions, comparisons, where and
 * a few unary ops) in their functional, out= and in-place forms, over operands of random
 * shapes (that may or may not broadcast), layouts, dtypes and kinds (tensors, 0-d tensors, host
 * scalars), against a reference written here:
 *   - the result dtype from PyTorch's promotion (fuzz_common.h) and each op's dtype rules;
 *   - which error a call must give, in the order the checks happen (dtypes, alpha, the cast
 *     to out/self, shapes, integer division by zero);
 *   - the result shape by broadcasting, and out='s resize;
 *   - every value, computed per element in double / wrapping int64 from the inputs converted to
 *     the common dtype, rounded (or wrapped) to the common dtype, then stored as the output's
 *     dtype: PyTorch computes in the common dtype and only then casts into out= or self.
 * Float inputs are multiples of 1/4 (plus NaN, +-inf and -0 now and then), so every sum and
 * product is exact before rounding and a quotient is rounded once whatever the precision. */
#include <math.h>

#include "fuzz_common.h"

typedef enum {
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_DIV_FLOOR, OP_DIV_TRUNC, OP_EQ, OP_LT, OP_GE, OP_WHERE,
    OP_NEG, OP_ABS, OP_LOGICAL_NOT, OP_FLOOR, NUM_OPS
} fop;

static const tensor_ew_op ew_code[NUM_OPS] = {
    TENSOR_EW_ADD, TENSOR_EW_SUB, TENSOR_EW_MUL, TENSOR_EW_DIV, TENSOR_EW_DIV_FLOOR, TENSOR_EW_DIV_TRUNC,
    TENSOR_EW_EQ,  TENSOR_EW_LT,  TENSOR_EW_GE,  TENSOR_EW_WHERE, TENSOR_EW_NEG, TENSOR_EW_ABS,
    TENSOR_EW_LOGICAL_NOT, TENSOR_EW_FLOOR};

static int arity(fop op) { return op == OP_WHERE ? 3 : op >= OP_NEG ? 1 : 2; }
static bool is_predicate(fop op) { return op == OP_EQ || op == OP_LT || op == OP_GE || op == OP_LOGICAL_NOT; }

#define MAXD 4

typedef struct operand {
    fz_kind kind;
    tensor_dtype dt;
    int ndim;
    int64_t sizes[MAXD], strides[MAXD];
    unsigned char *buf; /* the storage; the tensor starts `offset` elements in */
    int64_t offset;
    size_t nbuf; /* elements */
    tensor_t *t;
    tensor_scalar s;
} operand;

/* A value of dtype dt drawn from the input: small, or anywhere in a wide range. */
static void draw_value(fz_reader *r, tensor_dtype dt, bool wide, void *dst) {
    const unsigned b = fz_byte(r);
    switch (dt) {
    case TENSOR_BOOL: tensor_dtype_store_int64(dt, dst, b & 1); return;
    case TENSOR_UINT8: tensor_dtype_store_int64(dt, dst, wide ? (int64_t)b : (int64_t)(b % 9)); return;
    case TENSOR_INT8:
    case TENSOR_INT16:
    case TENSOR_INT32:
    case TENSOR_INT64:
        if (!wide) {
            tensor_dtype_store_int64(dt, dst, (int64_t)(b % 17) - 8);
        } else {
            /* up to the dtype's range (int64: +-2^40, so that reference products stay exact) */
            const uint64_t u = (uint64_t)b << 32 | (uint64_t)fz_byte(r) << 24 | (uint64_t)fz_byte(r) << 16 |
                               (uint64_t)fz_byte(r) << 8 | fz_byte(r);
            const int bits = dt == TENSOR_INT8 ? 8 : dt == TENSOR_INT16 ? 16 : dt == TENSOR_INT32 ? 32 : 41;
            const int64_t v = (int64_t)(u & ((UINT64_C(1) << bits) - 1)) - ((int64_t)1 << (bits - 1));
            tensor_dtype_store_int64(dt, dst, v);
        }
        return;
    default: {
        double v = (double)((int)(b % 129) - 64) / 4.0;
        if (wide && b % 16 == 0) {
            static const double special[4] = {NAN, INFINITY, -INFINITY, -0.0};
            v = special[(b >> 4) & 3];
        }
        tensor_dtype_store_double(dt, dst, v);
        return;
    }
    }
}

/* Builds a tensor operand over its own buffer: dims stored in a drawn order with gaps, size-1
 * dims with any stride, now and then a broadcast (stride 0) dim when allow_expand. */
static void make_tensor(fz_reader *r, operand *o, bool allow_expand) {
    const size_t es = fz_size(o->dt);
    int order[MAXD];
    for (int d = 0; d < o->ndim; d++) order[d] = d;
    for (int d = o->ndim - 1; d > 0; d--) {
        const int k = (int)fz_below(r, (unsigned)d + 1), t = order[d];
        order[d] = order[k];
        order[k] = t;
    }
    int64_t running = 1;
    for (int k = 0; k < o->ndim; k++) {
        const int d = order[k];
        const unsigned c = fz_byte(r);
        if (o->sizes[d] == 1 && (c & 1)) {
            o->strides[d] = (c >> 1) % 5;
        } else if (allow_expand && c % 11 == 3) {
            o->strides[d] = 0;
        } else {
            o->strides[d] = running * (1 + (c >> 4) % 2);
            running = o->strides[d] * (o->sizes[d] > 1 ? o->sizes[d] : 1) + (c >> 6) % 2;
        }
    }
    o->offset = fz_below(r, 3);
    int64_t extent = 1;
    for (int d = 0; d < o->ndim; d++)
        if (o->sizes[d] > 0) extent += (o->sizes[d] - 1) * o->strides[d];
    o->nbuf = (size_t)(o->offset + extent);
    o->buf = calloc(o->nbuf, es);
    if (o->buf == NULL) abort();
    const bool wide = fz_byte(r) & 1;
    for (size_t i = 0; i < o->nbuf; i++) draw_value(r, o->dt, wide, o->buf + i * es);
    o->t = tensor_from_blob(o->buf + o->offset * (int64_t)es, o->ndim, o->sizes, o->strides, o->dt, tensor_cpu(),
                            NULL, NULL);
    if (o->t == NULL) fz_fail("tensor_from_blob refused a valid view");
}

static void draw_scalar(fz_reader *r, operand *o) {
    const unsigned c = fz_byte(r), v = fz_byte(r);
    switch (c % 3) {
    case 0:
        o->s = tensor_scalar_bool(v & 1);
        o->dt = TENSOR_BOOL;
        break;
    case 1:
        o->s = tensor_scalar_int((c & 8) ? (int64_t)(v * 3) - 384 : (int64_t)(v % 17) - 8);
        o->dt = TENSOR_INT64;
        break;
    default:
        o->s = tensor_scalar_float((double)((int)(v % 33) - 16) / 2.0);
        o->dt = TENSOR_FLOAT64;
        break;
    }
}

/* ---- the reference ---- */

/* An operand's element at broadcast index idx, as a double and as an int64 (exact for ints). */
typedef struct value {
    double f;
    int64_t i;
} value;

static value read_operand(const operand *o, int nshape, const int64_t *idx) {
    value v;
    if (o->kind == FZ_SCALAR) {
        v.f = o->s.type == TENSOR_SCALAR_FLOAT ? o->s.f : (double)o->s.i;
        v.i = o->s.i;
        return v;
    }
    const size_t es = fz_size(o->dt);
    const int64_t off = o->offset + fz_bcast_offset(nshape, idx, o->ndim, o->sizes, o->strides);
    const unsigned char *p = o->buf + (size_t)off * es;
    v.f = tensor_dtype_load_double(o->dt, p);
    v.i = fz_is_float(o->dt) ? 0 : tensor_dtype_load_int64(o->dt, p);
    return v;
}

static double round_to(tensor_dtype d, double v) {
    if (d == TENSOR_FLOAT64) return v;
    unsigned char b[8];
    tensor_dtype_store_double(d, b, v);
    return tensor_dtype_load_double(d, b);
}

static int64_t wrap_to(tensor_dtype d, int64_t v) {
    if (d == TENSOR_BOOL) return v != 0;
    unsigned char b[8];
    tensor_dtype_store_int64(d, b, v);
    return tensor_dtype_load_int64(d, b);
}

/* Python's floor division of floats, as PyTorch's div_floor_floating computes it, in double
 * and in float (the compute type of float32, float16 and bfloat16). */
static double floor_div(double a, double b) {
    if (b == 0) return a / b;
    const double mod = fmod(a, b);
    double div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0;
    if (div == 0) return copysign(0.0, a / b);
    double fl = floor(div);
    if (div - fl > 0.5) fl += 1.0;
    return fl;
}

static float floor_div_f(float a, float b) {
    if (b == 0) return a / b;
    const float mod = fmodf(a, b);
    float div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1.0f;
    if (div == 0) return copysignf(0.0f, a / b);
    float fl = floorf(div);
    if (div - fl > 0.5f) fl += 1.0f;
    return fl;
}

typedef struct call {
    fop op;
    int nin;
    operand in[3];
    int mode; /* 0: functional, 1: out=, 2: in place (self = in[0]) */
    tensor_scalar alpha;
    tensor_dtype out_dt; /* out='s dtype */
} call;

/* The expected status of the call, and the common / result dtypes when it gets that far. */
static tensor_status expect_types(const call *c, tensor_dtype *common, tensor_dtype *result) {
    const fop op = c->op;
    fz_operand_type kinds[3];
    int first = 0;
    if (op == OP_WHERE) {
        if (c->in[0].dt != TENSOR_BOOL) return TENSOR_ERR_DTYPE;
        first = 1;
    }
    for (int k = first; k < c->nin; k++) {
        kinds[k - first].kind = c->in[k].kind;
        kinds[k - first].dtype = c->in[k].dt;
    }
    bool err = false;
    tensor_dtype ct = fz_result_type(kinds, c->nin - first, &err);
    if (err) return TENSOR_ERR_DTYPE;
    if (fz_is_float8(ct) && op != OP_WHERE) return TENSOR_ERR_DTYPE;
    tensor_dtype rt = ct;
    const bool is_bool = ct == TENSOR_BOOL;
    switch (op) {
    case OP_NEG:
    case OP_ABS:
    case OP_FLOOR:
    case OP_DIV_FLOOR:
    case OP_DIV_TRUNC:
        if (is_bool) return TENSOR_ERR_DTYPE;
        break;
    case OP_SUB:
        for (int k = 0; k < c->nin; k++)
            if (c->in[k].dt == TENSOR_BOOL) return TENSOR_ERR_DTYPE;
        break;
    case OP_DIV:
        if (!fz_is_float(ct)) ct = rt = TENSOR_FLOAT32;
        break;
    default: break;
    }
    if (is_predicate(op)) rt = TENSOR_BOOL;
    *common = ct;
    *result = rt;
    if (op == OP_ADD || op == OP_SUB) {
        if (c->alpha.type == TENSOR_SCALAR_BOOL && rt != TENSOR_BOOL) return TENSOR_ERR_INVALID_ARGUMENT;
        if (c->alpha.type == TENSOR_SCALAR_FLOAT && !fz_is_float(rt)) return TENSOR_ERR_INVALID_ARGUMENT;
    }
    if (c->mode != 0) {
        const tensor_dtype to = c->mode == 2 ? c->in[0].dt : c->out_dt;
        if (fz_is_float(rt) && !fz_is_float(to)) return TENSOR_ERR_DTYPE;
        if (rt != TENSOR_BOOL && to == TENSOR_BOOL) return TENSOR_ERR_DTYPE;
    }
    return TENSOR_OK;
}

/* Input k converted to the common dtype's values (PyTorch casts inputs to it first); a host
 * scalar of the float16/bfloat16 opmath cases keeps its own value. */
static value load_as(const call *c, int k, value v, tensor_dtype ct) {
    const operand *o = &c->in[k];
    if (fz_is_float(ct)) {
        const bool opmath = o->kind == FZ_SCALAR && (ct == TENSOR_FLOAT16 || ct == TENSOR_BFLOAT16) &&
                            (c->op == OP_ADD || c->op == OP_SUB || c->op == OP_MUL ||
                             ((c->op == OP_DIV || c->op == OP_DIV_FLOOR || c->op == OP_DIV_TRUNC) && k == 1));
        /* int -> float: one rounding, into the compute type */
        if (!fz_is_float(o->dt)) v.f = ct == TENSOR_FLOAT64 ? (double)v.i : (double)(float)v.i;
        v.f = opmath ? (double)(float)v.f : round_to(ct, v.f);
    } else {
        v.i = wrap_to(ct, v.i);
    }
    return v;
}

/* One element of the result, in the common dtype's values; *zero_div on an integer division
 * by zero. Predicates give 0/1 in v.i. */
static value compute(const call *c, const value *x, tensor_dtype ct, bool *zero_div) {
    value r = {0, 0};
    const bool fl = fz_is_float(ct), f32 = fl && ct != TENSOR_FLOAT64;
    const double a = x[0].f, b = c->nin > 1 ? x[1].f : 0;
    const uint64_t ia = (uint64_t)x[0].i, ib = c->nin > 1 ? (uint64_t)x[1].i : 0;
    switch (c->op) {
    case OP_ADD:
    case OP_SUB: {
        const double al = c->alpha.type == TENSOR_SCALAR_FLOAT ? c->alpha.f : (double)c->alpha.i;
        if (fl && f32) {
            /* float arithmetic: the product and the sum are rounded one after the other */
            const float p = (float)al * (float)b;
            r.f = c->op == OP_ADD ? (double)((float)a + p) : (double)((float)a - p);
        } else if (fl) {
            r.f = c->op == OP_ADD ? a + al * b : a - al * b;
        } else {
            /* PyTorch casts alpha to the common dtype: for bool that is alpha != 0 */
            const uint64_t ial = ct == TENSOR_BOOL ? (uint64_t)(c->alpha.i != 0) : (uint64_t)c->alpha.i;
            r.i = (int64_t)(c->op == OP_ADD ? ia + ial * ib : ia - ial * ib);
        }
        break;
    }
    case OP_MUL:
        if (fl && f32) r.f = (double)((float)a * (float)b);
        else if (fl) r.f = a * b;
        else r.i = (int64_t)(ia * ib);
        break;
    case OP_DIV: r.f = f32 ? (double)((float)a / (float)b) : a / b; break;
    case OP_DIV_FLOOR:
    case OP_DIV_TRUNC:
        if (fl && f32) {
            r.f = c->op == OP_DIV_FLOOR ? (double)floor_div_f((float)a, (float)b) : (double)truncf((float)a / (float)b);
        } else if (fl) {
            r.f = c->op == OP_DIV_FLOOR ? floor_div(a, b) : trunc(a / b);
        } else if (x[1].i == 0) {
            *zero_div = true;
        } else {
            const int64_t p = x[0].i, q = x[1].i;
            int64_t d = p / q;
            if (c->op == OP_DIV_FLOOR && p % q != 0 && ((p < 0) != (q < 0))) d -= 1;
            r.i = d;
        }
        break;
    case OP_EQ: r.i = fl ? a == b : x[0].i == x[1].i; break;
    case OP_LT: r.i = fl ? a < b : x[0].i < x[1].i; break;
    case OP_GE: r.i = fl ? a >= b : x[0].i >= x[1].i; break;
    case OP_WHERE:
        if (fl) r.f = x[0].i != 0 ? x[1].f : x[2].f;
        else r.i = x[0].i != 0 ? x[1].i : x[2].i;
        break;
    case OP_NEG:
        if (fl) r.f = -a;
        else r.i = (int64_t)(0 - ia);
        break;
    case OP_ABS:
        if (fl) r.f = fabs(a);
        else r.i = x[0].i < 0 ? (int64_t)(0 - ia) : x[0].i;
        break;
    case OP_LOGICAL_NOT: r.i = fl ? !(a != 0) : x[0].i == 0; break;
    case OP_FLOOR:
        if (fl) r.f = floor(a);
        else r.i = x[0].i;
        break;
    default: break;
    }
    if (is_predicate(c->op)) return r;
    if (fl) r.f = round_to(ct, r.f);
    else r.i = wrap_to(ct, r.i);
    return r;
}

/* Stores a result of the common dtype ct (predicates: bool) as one element of dtype `to`. */
static void store_as(tensor_dtype to, void *dst, value v, tensor_dtype ct, bool predicate) {
    if (predicate || !fz_is_float(ct)) {
        const int64_t i = predicate ? v.i : v.i;
        if (!fz_is_float(to)) tensor_dtype_store_int64(to, dst, i);
        else if (to == TENSOR_FLOAT64) tensor_dtype_store_double(to, dst, (double)i);
        else tensor_dtype_store_double(to, dst, (double)(float)i); /* int -> float: one rounding */
    } else {
        tensor_dtype_store_double(to, dst, v.f);
    }
}

static bool same_element(tensor_dtype d, const unsigned char *x, const unsigned char *y) {
    if (fz_is_float(d)) {
        const double a = tensor_dtype_load_double(d, x), b = tensor_dtype_load_double(d, y);
        return a == b || (isnan(a) && isnan(b));
    }
    return tensor_dtype_load_int64(d, x) == tensor_dtype_load_int64(d, y);
}

/* What the call was, on stderr, before a finding aborts. */
static void dump_call(const call *c) {
    fprintf(stderr, "op %s, mode %d, alpha %s %g\n", tensor_ew_op_name(ew_code[c->op]), c->mode,
            c->alpha.type == TENSOR_SCALAR_FLOAT ? "float" : c->alpha.type == TENSOR_SCALAR_INT ? "int" : "bool",
            c->alpha.type == TENSOR_SCALAR_FLOAT ? c->alpha.f : (double)c->alpha.i);
    for (int k = 0; k < c->nin; k++) {
        const operand *o = &c->in[k];
        if (o->kind == FZ_SCALAR) {
            fprintf(stderr, "  in %d: scalar %s %g\n", k, tensor_dtype_name(o->dt),
                    o->s.type == TENSOR_SCALAR_FLOAT ? o->s.f : (double)o->s.i);
            continue;
        }
        fprintf(stderr, "  in %d: %s, sizes", k, tensor_dtype_name(o->dt));
        for (int d = 0; d < o->ndim; d++) fprintf(stderr, " %lld", (long long)o->sizes[d]);
        fprintf(stderr, ", strides");
        for (int d = 0; d < o->ndim; d++) fprintf(stderr, " %lld", (long long)o->strides[d]);
        fprintf(stderr, ", offset %lld, storage:", (long long)o->offset);
        for (size_t i = 0; i < o->nbuf && i < 16; i++)
            fprintf(stderr, " %.17g", tensor_dtype_load_double(o->dt, o->buf + i * fz_size(o->dt)));
        fprintf(stderr, "\n");
    }
}

static void draw_shape(fz_reader *r, const int64_t *base, int *ndim, int64_t *sizes) {
    const unsigned c = fz_byte(r);
    *ndim = (int)(c % (MAXD + 1));
    for (int d = 0; d < *ndim; d++) {
        const unsigned k = fz_byte(r);
        /* mostly the base shape's size or 1 (they broadcast), sometimes anything in 0..3 */
        const int64_t bs = base[d + MAXD - *ndim];
        sizes[d] = k % 8 < 4 ? bs : k % 8 < 6 ? 1 : (int64_t)(k % 4);
    }
}

static void release_operand(operand *o) {
    tensor_release(o->t);
    free(o->buf);
}

static const char *mode_name[3] = {"functional", "out=", "in-place"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_reader r = {data, size};
    call c;
    memset(&c, 0, sizeof c);
    c.op = (fop)fz_below(&r, NUM_OPS);
    c.nin = arity(c.op);
    c.mode = (int)fz_below(&r, 3);
    int64_t base[MAXD];
    for (int d = 0; d < MAXD; d++) {
        const unsigned b = fz_byte(&r);
        base[d] = b % 8 == 0 ? 0 : 1 + (int64_t)((b >> 3) % 3);
    }
    /* operands: in[0] is always a tensor; for binary ops in[1] may be a host scalar */
    for (int k = 0; k < c.nin; k++) {
        operand *o = &c.in[k];
        const unsigned kk = fz_byte(&r);
        o->kind = k == 1 && c.nin == 2 && kk % 4 == 0 ? FZ_SCALAR : kk % 4 == 1 ? FZ_ZERO_DIM : FZ_DIMENSIONED;
        if (o->kind == FZ_SCALAR) {
            draw_scalar(&r, o);
            continue;
        }
        o->dt = c.op == OP_WHERE && k == 0 && (fz_byte(&r) % 8 != 0) ? TENSOR_BOOL : fz_dtypes[fz_below(&r, FZ_NUM_DTYPES)];
        if (o->kind == FZ_ZERO_DIM) o->ndim = 0;
        else draw_shape(&r, base, &o->ndim, o->sizes);
        if (o->kind == FZ_DIMENSIONED && o->ndim == 0) o->kind = FZ_ZERO_DIM;
        /* self must not overlap itself */
        make_tensor(&r, o, !(c.mode == 2 && k == 0));
    }
    if (c.mode == 2 && c.op == OP_WHERE) c.mode = 0; /* where has no in-place form */
    if (c.mode == 1 && c.nin == 2 && c.in[1].kind == FZ_SCALAR) c.mode = 0; /* nor a scalar out= form */
    {
        const unsigned a = fz_byte(&r);
        static const int64_t ints[6] = {1, 2, 3, -1, -2, 0};
        static const double floats[3] = {0.5, 1.5, -2.5};
        c.alpha = a % 8 < 6 ? tensor_scalar_int(ints[a % 6]) : a % 8 == 6 ? tensor_scalar_float(floats[(a >> 3) % 3])
                                                                         : tensor_scalar_bool((a >> 3) & 1);
    }
    /* out=: a fresh tensor of any dtype, the right shape or any other; or a strided view */
    tensor_t *out = NULL;
    unsigned char *out_buf = NULL;
    int out_ndim0 = 0;
    int64_t out_sizes0[MAXD] = {0};
    bool out_strided = false;

    /* reference dtypes, shape and error */
    tensor_dtype ct = FZ_UNDEFINED, rt = FZ_UNDEFINED;
    int nshape = 0;
    int64_t shape[TENSOR_MAX_DIMS];
    bool bcast_ok = true;
    for (int k = 0; k < c.nin; k++) {
        const operand *o = &c.in[k];
        const int n = o->kind == FZ_SCALAR ? 0 : o->ndim;
        if (bcast_ok) bcast_ok = fz_broadcast(nshape, shape, n, o->sizes, &nshape, shape);
    }
    if (c.mode == 1) {
        const unsigned od = fz_byte(&r);
        c.out_dt = fz_dtypes[od % FZ_NUM_DTYPES];
        if (bcast_ok && (od & 0x30) == 0x10) {
            /* a strided view of exactly the result's shape: no resize */
            operand o;
            memset(&o, 0, sizeof o);
            o.kind = FZ_DIMENSIONED;
            o.dt = c.out_dt;
            o.ndim = nshape;
            memcpy(o.sizes, shape, sizeof(int64_t) * (size_t)nshape);
            make_tensor(&r, &o, false);
            out = o.t;
            out_buf = o.buf;
            out_strided = true;
        } else {
            if (bcast_ok && (od & 0x30) == 0x20) {
                out_ndim0 = nshape;
                memcpy(out_sizes0, shape, sizeof(int64_t) * (size_t)nshape);
            } else {
                draw_shape(&r, base, &out_ndim0, out_sizes0);
            }
            out = tensor_zeros(out_ndim0, out_sizes0, c.out_dt, tensor_cpu());
            if (out == NULL) fz_fail("tensor_zeros failed");
        }
        out_ndim0 = tensor_ndim(out);
        memcpy(out_sizes0, tensor_sizes(out), sizeof(int64_t) * (size_t)out_ndim0);
    }
    tensor_status want = expect_types(&c, &ct, &rt);
    if (want == TENSOR_OK && !bcast_ok) want = TENSOR_ERR_SHAPE;
    if (want == TENSOR_OK && c.mode == 2) {
        /* self keeps its shape: the others must broadcast into it */
        bool same = nshape == c.in[0].ndim;
        for (int d = 0; same && d < nshape; d++) same = shape[d] == c.in[0].sizes[d];
        if (!same) want = TENSOR_ERR_SHAPE;
    }
    const int64_t numel = fz_numel(nshape, shape);
    /* the values, and integer division by zero */
    const tensor_dtype to = c.mode == 0 ? rt : c.mode == 1 ? c.out_dt : c.in[0].dt;
    unsigned char *ref = NULL;
    if (want == TENSOR_OK) {
        const size_t es = fz_size(to);
        ref = calloc((size_t)(numel > 0 ? numel : 1), es);
        if (ref == NULL) abort();
        int64_t idx[TENSOR_MAX_DIMS] = {0};
        bool zero_div = false;
        for (int64_t e = 0; e < numel; e++) {
            value x[3];
            for (int k = 0; k < c.nin; k++) {
                x[k] = read_operand(&c.in[k], nshape, idx);
                if (c.op == OP_WHERE && k == 0) {
                    x[k].i = x[k].f != 0; /* the condition, as bool */
                    continue;
                }
                x[k] = load_as(&c, k, x[k], ct);
            }
            const value v = compute(&c, x, ct, &zero_div);
            store_as(to, ref + (size_t)e * es, v, ct, is_predicate(c.op));
            fz_next_index(nshape, shape, idx);
        }
        if (zero_div) want = TENSOR_ERR_INVALID_ARGUMENT;
    }

    /* keep the inputs' bytes: no call may change an input (self only on success) */
    unsigned char *saved[3] = {NULL, NULL, NULL};
    for (int k = 0; k < c.nin; k++) {
        const operand *o = &c.in[k];
        if (o->kind == FZ_SCALAR) continue;
        saved[k] = malloc(o->nbuf * fz_size(o->dt));
        if (saved[k] == NULL) abort();
        memcpy(saved[k], o->buf, o->nbuf * fz_size(o->dt));
    }

    /* the call */
    const tensor_ew_op code = ew_code[c.op];
    tensor_t *A = c.in[0].t, *B = c.nin > 1 ? c.in[1].t : NULL, *C3 = c.nin > 2 ? c.in[2].t : NULL;
    const bool scalar = c.nin == 2 && c.in[1].kind == FZ_SCALAR;
    const tensor_scalar s = c.in[1].s;
    tensor_t *res = NULL;
    tensor_status st = TENSOR_OK;
    tensor_clear_error();
    tensor_clear_warning();
    if (c.mode == 0) {
        if (c.nin == 1) res = tensor_unary(code, A);
        else if (c.op == OP_WHERE) res = tensor_where(A, B, C3);
        else if (c.op == OP_ADD) res = scalar ? tensor_add_scalar(A, s, c.alpha) : tensor_add(A, B, c.alpha);
        else if (c.op == OP_SUB) res = scalar ? tensor_sub_scalar(A, s, c.alpha) : tensor_sub(A, B, c.alpha);
        else res = scalar ? tensor_binary_scalar(code, A, s) : tensor_binary(code, A, B);
        st = res != NULL ? TENSOR_OK : tensor_last_status();
    } else if (c.mode == 1) {
        if (c.nin == 1) st = tensor_unary_out(code, out, A);
        else if (c.op == OP_WHERE) st = tensor_where_out(out, A, B, C3);
        else if (c.op == OP_ADD) st = tensor_add_out(out, A, B, c.alpha);
        else if (c.op == OP_SUB) st = tensor_sub_out(out, A, B, c.alpha);
        else st = tensor_binary_out(code, out, A, B);
        if (st == TENSOR_OK) res = tensor_retain(out);
    } else {
        if (c.nin == 1) st = tensor_unary_(code, A);
        else if (c.op == OP_ADD) st = scalar ? tensor_add_scalar_(A, s, c.alpha) : tensor_add_(A, B, c.alpha);
        else if (c.op == OP_SUB) st = scalar ? tensor_sub_scalar_(A, s, c.alpha) : tensor_sub_(A, B, c.alpha);
        else st = scalar ? tensor_binary_scalar_(code, A, s) : tensor_binary_(code, A, B);
        if (st == TENSOR_OK) res = tensor_retain(A);
    }

    const char *opname = tensor_ew_op_name(code);
    if (st != want) {
        dump_call(&c);
        fz_fail("%s (%s): status %s, expected %s (dtypes %s %s %s, common %s)", opname, mode_name[c.mode],
                tensor_status_name(st), tensor_status_name(want), tensor_dtype_name(c.in[0].dt),
                c.nin > 1 ? tensor_dtype_name(c.in[1].dt) : "-", c.nin > 2 ? tensor_dtype_name(c.in[2].dt) : "-",
                ct == FZ_UNDEFINED ? "-" : tensor_dtype_name(ct));
    }
    if (st != TENSOR_OK) {
        fz_check_error_reported(opname);
        /* nothing changed: inputs, self (a zero division may have written part of it), out='s shape */
        for (int k = 0; k < c.nin; k++) {
            const operand *o = &c.in[k];
            if (o->kind == FZ_SCALAR || (k == 0 && c.mode == 2 && st == TENSOR_ERR_INVALID_ARGUMENT)) continue;
            if (memcmp(saved[k], o->buf, o->nbuf * fz_size(o->dt)) != 0) fz_fail("%s: a failed call changed input %d", opname, k);
        }
        if (out != NULL) {
            bool same = tensor_ndim(out) == out_ndim0;
            for (int d = 0; same && d < out_ndim0; d++) same = tensor_size(out, d) == out_sizes0[d];
            if (!same) fz_fail("%s: a failed out= call changed out's shape", opname);
        }
    } else {
        for (int k = 0; k < c.nin; k++) {
            const operand *o = &c.in[k];
            if (o->kind == FZ_SCALAR || (k == 0 && c.mode == 2)) continue;
            if (memcmp(saved[k], o->buf, o->nbuf * fz_size(o->dt)) != 0) fz_fail("%s: the call changed input %d", opname, k);
        }
        /* dtype and shape */
        if (tensor_get_dtype(res) != to)
            fz_fail("%s (%s): result dtype %s, expected %s", opname, mode_name[c.mode],
                    tensor_dtype_name(tensor_get_dtype(res)), tensor_dtype_name(to));
        bool same = tensor_ndim(res) == nshape;
        for (int d = 0; same && d < nshape; d++) same = tensor_size(res, d) == shape[d];
        if (!same) fz_fail("%s (%s): result shape differs from the broadcast shape", opname, mode_name[c.mode]);
        if (c.mode == 1 && !out_strided) {
            /* resized (with a warning when it had elements) exactly when the shape differed */
            bool had = out_ndim0 == nshape;
            for (int d = 0; had && d < nshape; d++) had = out_sizes0[d] == shape[d];
            const bool warned = tensor_last_warning()[0] != '\0';
            if (warned != (!had && fz_numel(out_ndim0, out_sizes0) > 0))
                fz_fail("%s: out= resize warning %s", opname, warned ? "given without a resize of a non-empty out" : "missing");
        }
        /* values */
        const size_t es = fz_size(to);
        unsigned char *got = malloc((size_t)(numel > 0 ? numel : 1) * es);
        if (got == NULL) abort();
        if (tensor_to_buffer(res, got, (size_t)numel * es) != TENSOR_OK) fz_fail("tensor_to_buffer failed");
        for (int64_t e = 0; e < numel; e++)
            if (!same_element(to, got + (size_t)e * es, ref + (size_t)e * es)) {
                dump_call(&c);
                fz_fail("%s (%s): element %lld is %.17g, expected %.17g (dtypes %s %s %s, common %s, out %s)", opname,
                        mode_name[c.mode], (long long)e, tensor_dtype_load_double(to, got + (size_t)e * es),
                        tensor_dtype_load_double(to, ref + (size_t)e * es), tensor_dtype_name(c.in[0].dt),
                        c.nin > 1 ? tensor_dtype_name(c.in[1].dt) : "-",
                        c.nin > 2 ? tensor_dtype_name(c.in[2].dt) : "-", tensor_dtype_name(ct), tensor_dtype_name(to));
            }
        free(got);
    }
    tensor_release(res);
    tensor_release(out);
    free(out_buf);
    free(ref);
    for (int k = 0; k < c.nin; k++) {
        free(saved[k]);
        if (c.in[k].kind != FZ_SCALAR) release_operand(&c.in[k]);
    }
    return 0;
}
