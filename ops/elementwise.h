/* Elementwise ops with PyTorch's semantics (PyTorch 2.x, as docs/api.md states them): broadcasting,
 * type promotion (0-d tensors and host scalars are weak), the op-specific dtype rules and the
 * errors PyTorch gives. ops/ decides shapes and dtypes; the backend registered for the operands' device
 * does the work (contract/dispatch.h, TENSOR_OP_EW_*; docs/elementwise.md is the backend contract).
 *
 * Ownership and conventions, for every function in this header:
 *  - tensor_t * arguments are BORROWED (never kept, never released).
 *  - A function returning tensor_t * returns a NEW reference (the caller releases it), or NULL
 *    with the last error set (tensor_last_error()). Results are allocated by the iterator in the
 *    operands' memory order (a permuted input gives a permuted result).
 *  - *_out(out, ...) writes into the caller's `out` (borrowed); the result dtype must be
 *    castable to out's dtype (no float -> integer, no non-bool -> bool), as PyTorch's out=.
 *    An out of another shape than the broadcast result is RESIZED to it as tensor_resize_
 *    does (runtime/tensor.h: row-major strides, dtype/device/offset kept, its storage grown
 *    for every view sharing it when too small), with a warning (tensor_last_warning) when it
 *    had elements: PyTorch's resize_output. Refused (out unchanged): an out that would need
 *    resizing and shares storage with an input (TENSOR_ERR_SHAPE), or whose caller-memory
 *    storage (tensor_from_blob) is too small (TENSOR_ERR_INVALID_ARGUMENT). Any failing call leaves out's
 *    shape as it was (its values may be partly written by a kernel error such as
 *    ZeroDivisionError). Returns a status.
 *  - *_(self, ...) is the in-place form: self (borrowed) is both the first input and the
 *    output; the other operands must broadcast to self's shape and the result dtype must be
 *    castable to self's dtype ("result type Float can't be cast to the desired output type
 *    Int"). Returns a status.
 *  - *_scalar forms take a host scalar (tensor_scalar, by value) as the second operand. A host
 *    scalar is the weakest operand in promotion: int32[2] + 5 is int32, int32[2] + 5.0 is
 *    float32, bool[2] + 1 is int64. An integer scalar out of the result's range wraps
 *    (uint8 1 + 300 == 45). The scalar is converted to the common dtype before the op, except
 *    PyTorch's opmath cases: for a float16/bfloat16 common dtype, add, sub and mul (scalar on
 *    either side, alpha too) and div with any rounding mode (scalar divisor) compute in
 *    float32 with the scalar's original value and round once (f16 [1] + 0.1 is
 *    fp16(1.0f + 0.1f)). docs/elementwise.md §6 lists where PyTorch's backends differ.
 *  - Operands must be on one device (a 0-d CPU tensor may join CUDA operands); 0-size operands
 *    give 0-size results; nothing crashes or leaks on any error path.
 *  - float16/bfloat16 compute in float32 and round each result once; float32 in float32,
 *    float64 in double; integers and bool in int64, wrapping in the result dtype (int8
 *    100 * 3 == 44). float8 dtypes are accepted only by copy, cast and fill (PyTorch has no
 *    arithmetic on them).
 *  - Results are bitwise reproducible for given inputs, whatever the thread count. */
#ifndef TENSOR_ELEMENTWISE_H
#define TENSOR_ELEMENTWISE_H

#include <stdbool.h>
#include <stdint.h>

#include "tinytensor/runtime/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================================
 * Host scalars
 * ====================================================================================== */

/* Which Python type a host scalar stands for: it decides the promotion category. */
typedef enum tensor_scalar_type {
    TENSOR_SCALAR_BOOL = 0,
    TENSOR_SCALAR_INT = 1,
    TENSOR_SCALAR_FLOAT = 2
} tensor_scalar_type;

/* A host scalar: `i` holds BOOL (0/1) and INT values, `f` FLOAT values. Build it with the
 * helpers below. */
typedef struct tensor_scalar {
    tensor_scalar_type type;
    int64_t i;
    double f;
} tensor_scalar;

static inline tensor_scalar tensor_scalar_int(int64_t v) {
    tensor_scalar s;
    s.type = TENSOR_SCALAR_INT;
    s.i = v;
    s.f = (double)v;
    return s;
}
static inline tensor_scalar tensor_scalar_float(double v) {
    tensor_scalar s;
    s.type = TENSOR_SCALAR_FLOAT;
    s.i = 0;
    s.f = v;
    return s;
}
static inline tensor_scalar tensor_scalar_bool(bool v) {
    tensor_scalar s;
    s.type = TENSOR_SCALAR_BOOL;
    s.i = v ? 1 : 0;
    s.f = v ? 1.0 : 0.0;
    return s;
}

/* ======================================================================================
 * Op codes (also the `ew_op` of tensor_kernel_params). Values may change between versions.
 * ====================================================================================== */
typedef enum tensor_ew_op {
    /* ---- unary (TENSOR_OP_EW_UNARY) ---- */
    TENSOR_EW_NEG = 0,   /* same dtype; bool is an error */
    TENSOR_EW_ABS,       /* same dtype */
    TENSOR_EW_SIGN,      /* same dtype; sign(NaN) = 0, sign(-0.0) = 0 */
    TENSOR_EW_EXP,       /* EXP .. RECIPROCAL below: ints and bool give float32 */
    TENSOR_EW_EXP2,
    TENSOR_EW_LOG,
    TENSOR_EW_LOG2,
    TENSOR_EW_LOG1P,
    TENSOR_EW_EXPM1,
    TENSOR_EW_SQRT,
    TENSOR_EW_RSQRT,
    TENSOR_EW_SIN,
    TENSOR_EW_COS,
    TENSOR_EW_TAN,
    TENSOR_EW_TANH,
    TENSOR_EW_SIGMOID,
    TENSOR_EW_ERF,
    TENSOR_EW_RECIPROCAL,
    TENSOR_EW_RELU,      /* same dtype; bool is an error; relu(NaN) = NaN */
    TENSOR_EW_GELU,      /* floating only; the exact (erf) form, approximate='none' */
    TENSOR_EW_GELU_TANH, /* floating only; the tanh form, approximate='tanh' */
    TENSOR_EW_SILU,      /* floating only */
    TENSOR_EW_FLOOR,     /* FLOOR .. TRUNC: same dtype, identity on ints; bool is an error */
    TENSOR_EW_CEIL,
    TENSOR_EW_ROUND,     /* half to even */
    TENSOR_EW_TRUNC,
    TENSOR_EW_ISNAN,     /* ISNAN .. ISFINITE, LOGICAL_NOT: bool result */
    TENSOR_EW_ISINF,
    TENSOR_EW_ISFINITE,
    TENSOR_EW_LOGICAL_NOT,
    TENSOR_EW_BITWISE_NOT, /* ints and bool only (bool: logical not) */
    /* ---- binary (TENSOR_OP_EW_BINARY) ---- */
    TENSOR_EW_ADD,       /* a + alpha * b */
    TENSOR_EW_SUB,       /* a - alpha * b; bool - bool is an error */
    TENSOR_EW_MUL,
    TENSOR_EW_DIV,       /* true division: ints and bool give float32 */
    TENSOR_EW_DIV_FLOOR, /* floor(a / b), result dtype; integer division by zero: an error on
                          * the CPU, 0 on CUDA (no check; PyTorch's CUDA gives garbage) */
    TENSOR_EW_DIV_TRUNC, /* trunc(a / b), result dtype; integer division by zero as DIV_FLOOR */
    TENSOR_EW_REMAINDER, /* sign of the divisor (Python's %); integer % 0 as DIV_FLOOR */
    TENSOR_EW_POW,       /* ints: exact, wrapping; int ** negative int scalar is an error */
    TENSOR_EW_MAXIMUM,   /* NaN propagates */
    TENSOR_EW_MINIMUM,
    TENSOR_EW_FMAX,      /* NaN ignored (C's fmax) */
    TENSOR_EW_FMIN,
    TENSOR_EW_EQ,        /* EQ .. GE: bool result, compared in the promoted dtype */
    TENSOR_EW_NE,
    TENSOR_EW_LT,
    TENSOR_EW_LE,
    TENSOR_EW_GT,
    TENSOR_EW_GE,
    TENSOR_EW_LOGICAL_AND, /* LOGICAL_*: bool result (x != 0, NaN is true) */
    TENSOR_EW_LOGICAL_OR,
    TENSOR_EW_LOGICAL_XOR,
    TENSOR_EW_BITWISE_AND, /* BITWISE_*: ints and bool only */
    TENSOR_EW_BITWISE_OR,
    TENSOR_EW_BITWISE_XOR,
    /* ---- ternary (TENSOR_OP_EW_TERNARY) ---- */
    TENSOR_EW_WHERE,     /* cond ? a : b; cond is bool (loaded as its own dtype, != 0) */
    TENSOR_EW_CLAMP,     /* min(max(x, lo), hi); NaN in any operand gives NaN; lo > hi gives hi */
    /* ---- copy and fill (TENSOR_OP_EW_COPY, TENSOR_OP_EW_FILL) ---- */
    TENSOR_EW_COPY,
    TENSOR_EW_FILL,
    TENSOR_EW_NUM_OPS
} tensor_ew_op;

/* Rounding of tensor_div. */
typedef enum tensor_rounding_mode {
    TENSOR_ROUNDING_NONE = 0, /* true division */
    TENSOR_ROUNDING_FLOOR = 1,
    TENSOR_ROUNDING_TRUNC = 2
} tensor_rounding_mode;

/* The op's name as PyTorch spells it ("add", "floor_divide", "logical_and"). Never NULL. */
TENSOR_API const char *tensor_ew_op_name(tensor_ew_op op);

/* ======================================================================================
 * Generic forms: any op of the matching arity (TENSOR_ERR_INVALID_ARGUMENT otherwise).
 * ADD/SUB run with alpha = 1.
 * ====================================================================================== */
TENSOR_API tensor_t *tensor_unary(tensor_ew_op op, const tensor_t *a);
TENSOR_API tensor_status tensor_unary_out(tensor_ew_op op, tensor_t *out, const tensor_t *a);
TENSOR_API tensor_status tensor_unary_(tensor_ew_op op, tensor_t *self);

TENSOR_API tensor_t *tensor_binary(tensor_ew_op op, const tensor_t *a, const tensor_t *b);
TENSOR_API tensor_t *tensor_binary_scalar(tensor_ew_op op, const tensor_t *a, tensor_scalar b);
/* Scalar on the left: op(a, b) with a host scalar a (torch.pow(2, t), 1 - t). */
TENSOR_API tensor_t *tensor_binary_scalar_lhs(tensor_ew_op op, tensor_scalar a, const tensor_t *b);
TENSOR_API tensor_status tensor_binary_out(tensor_ew_op op, tensor_t *out, const tensor_t *a, const tensor_t *b);
TENSOR_API tensor_status tensor_binary_(tensor_ew_op op, tensor_t *self, const tensor_t *b);
TENSOR_API tensor_status tensor_binary_scalar_(tensor_ew_op op, tensor_t *self, tensor_scalar b);

/* ======================================================================================
 * add / sub with alpha, div with a rounding mode
 * alpha: an INT or BOOL scalar for integral results ("For integral input tensors, argument
 * alpha must not be a floating point number."); BOOL alpha only for bool results.
 * ====================================================================================== */
TENSOR_API tensor_t *tensor_add(const tensor_t *a, const tensor_t *b, tensor_scalar alpha);
TENSOR_API tensor_t *tensor_add_scalar(const tensor_t *a, tensor_scalar b, tensor_scalar alpha);
TENSOR_API tensor_status tensor_add_(tensor_t *self, const tensor_t *b, tensor_scalar alpha);
TENSOR_API tensor_status tensor_add_scalar_(tensor_t *self, tensor_scalar b, tensor_scalar alpha);
TENSOR_API tensor_status tensor_add_out(tensor_t *out, const tensor_t *a, const tensor_t *b, tensor_scalar alpha);
TENSOR_API tensor_t *tensor_sub(const tensor_t *a, const tensor_t *b, tensor_scalar alpha);
TENSOR_API tensor_t *tensor_sub_scalar(const tensor_t *a, tensor_scalar b, tensor_scalar alpha);
TENSOR_API tensor_status tensor_sub_(tensor_t *self, const tensor_t *b, tensor_scalar alpha);
TENSOR_API tensor_status tensor_sub_scalar_(tensor_t *self, tensor_scalar b, tensor_scalar alpha);
TENSOR_API tensor_status tensor_sub_out(tensor_t *out, const tensor_t *a, const tensor_t *b, tensor_scalar alpha);

TENSOR_API tensor_t *tensor_div(const tensor_t *a, const tensor_t *b, tensor_rounding_mode mode);
TENSOR_API tensor_t *tensor_div_scalar(const tensor_t *a, tensor_scalar b, tensor_rounding_mode mode);
TENSOR_API tensor_status tensor_div_(tensor_t *self, const tensor_t *b, tensor_rounding_mode mode);
TENSOR_API tensor_status tensor_div_out(tensor_t *out, const tensor_t *a, const tensor_t *b, tensor_rounding_mode mode);

/* ======================================================================================
 * Named binary ops. For each NAME below, five functions (ownership as in the file comment):
 *   tensor_t     *tensor_NAME(const tensor_t *a, const tensor_t *b);            new reference
 *   tensor_t     *tensor_NAME_scalar(const tensor_t *a, tensor_scalar b);       new reference
 *   tensor_status tensor_NAME_(tensor_t *self, const tensor_t *b);              in place
 *   tensor_status tensor_NAME_scalar_(tensor_t *self, tensor_scalar b);         in place
 *   tensor_status tensor_NAME_out(tensor_t *out, const tensor_t *a, const tensor_t *b);
 * NAME: mul, remainder, pow, maximum, minimum, fmax, fmin, eq, ne, lt, le, gt, ge,
 * logical_and, logical_or, logical_xor, bitwise_and, bitwise_or, bitwise_xor.
 * ====================================================================================== */
#define TENSOR_EW_DECLARE_BINARY(NAME)                                                              \
    TENSOR_API tensor_t *tensor_##NAME(const tensor_t *a, const tensor_t *b);                        \
    TENSOR_API tensor_t *tensor_##NAME##_scalar(const tensor_t *a, tensor_scalar b);                 \
    TENSOR_API tensor_status tensor_##NAME##_(tensor_t *self, const tensor_t *b);                    \
    TENSOR_API tensor_status tensor_##NAME##_scalar_(tensor_t *self, tensor_scalar b);               \
    TENSOR_API tensor_status tensor_##NAME##_out(tensor_t *out, const tensor_t *a, const tensor_t *b);

TENSOR_EW_DECLARE_BINARY(mul)
TENSOR_EW_DECLARE_BINARY(remainder)
TENSOR_EW_DECLARE_BINARY(pow)
TENSOR_EW_DECLARE_BINARY(maximum)
TENSOR_EW_DECLARE_BINARY(minimum)
TENSOR_EW_DECLARE_BINARY(fmax)
TENSOR_EW_DECLARE_BINARY(fmin)
TENSOR_EW_DECLARE_BINARY(eq)
TENSOR_EW_DECLARE_BINARY(ne)
TENSOR_EW_DECLARE_BINARY(lt)
TENSOR_EW_DECLARE_BINARY(le)
TENSOR_EW_DECLARE_BINARY(gt)
TENSOR_EW_DECLARE_BINARY(ge)
TENSOR_EW_DECLARE_BINARY(logical_and)
TENSOR_EW_DECLARE_BINARY(logical_or)
TENSOR_EW_DECLARE_BINARY(logical_xor)
TENSOR_EW_DECLARE_BINARY(bitwise_and)
TENSOR_EW_DECLARE_BINARY(bitwise_or)
TENSOR_EW_DECLARE_BINARY(bitwise_xor)

/* ======================================================================================
 * Named unary ops. For each NAME below, three functions (ownership as in the file comment):
 *   tensor_t     *tensor_NAME(const tensor_t *a);                    new reference
 *   tensor_status tensor_NAME_(tensor_t *self);                      in place
 *   tensor_status tensor_NAME_out(tensor_t *out, const tensor_t *a);
 * The in-place form of an op whose result is float32 or bool fails on an integer self
 * (the result cannot be cast back), as in PyTorch.
 * ====================================================================================== */
#define TENSOR_EW_DECLARE_UNARY(NAME)                                                               \
    TENSOR_API tensor_t *tensor_##NAME(const tensor_t *a);                                          \
    TENSOR_API tensor_status tensor_##NAME##_(tensor_t *self);                                      \
    TENSOR_API tensor_status tensor_##NAME##_out(tensor_t *out, const tensor_t *a);

TENSOR_EW_DECLARE_UNARY(neg)
TENSOR_EW_DECLARE_UNARY(abs)
TENSOR_EW_DECLARE_UNARY(sign)
TENSOR_EW_DECLARE_UNARY(exp)
TENSOR_EW_DECLARE_UNARY(exp2)
TENSOR_EW_DECLARE_UNARY(log)
TENSOR_EW_DECLARE_UNARY(log2)
TENSOR_EW_DECLARE_UNARY(log1p)
TENSOR_EW_DECLARE_UNARY(expm1)
TENSOR_EW_DECLARE_UNARY(sqrt)
TENSOR_EW_DECLARE_UNARY(rsqrt)
TENSOR_EW_DECLARE_UNARY(sin)
TENSOR_EW_DECLARE_UNARY(cos)
TENSOR_EW_DECLARE_UNARY(tan)
TENSOR_EW_DECLARE_UNARY(tanh)
TENSOR_EW_DECLARE_UNARY(sigmoid)
TENSOR_EW_DECLARE_UNARY(erf)
TENSOR_EW_DECLARE_UNARY(reciprocal)
TENSOR_EW_DECLARE_UNARY(relu)
TENSOR_EW_DECLARE_UNARY(gelu)
/* gelu(x, approximate='tanh'): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), float32 math
 * for float16/bfloat16 (PyTorch's GeluKernel). */
TENSOR_EW_DECLARE_UNARY(gelu_tanh)
TENSOR_EW_DECLARE_UNARY(silu)
TENSOR_EW_DECLARE_UNARY(floor)
TENSOR_EW_DECLARE_UNARY(ceil)
TENSOR_EW_DECLARE_UNARY(round)
TENSOR_EW_DECLARE_UNARY(trunc)
TENSOR_EW_DECLARE_UNARY(isnan)
TENSOR_EW_DECLARE_UNARY(isinf)
TENSOR_EW_DECLARE_UNARY(isfinite)
TENSOR_EW_DECLARE_UNARY(logical_not)
TENSOR_EW_DECLARE_UNARY(bitwise_not)

/* ======================================================================================
 * where, clamp
 * ====================================================================================== */
/* torch.where(cond, a, b): cond must be bool; the result dtype is promote(a, b); all three
 * broadcast together. */
TENSOR_API tensor_t *tensor_where(const tensor_t *cond, const tensor_t *a, const tensor_t *b);
TENSOR_API tensor_status tensor_where_out(tensor_t *out, const tensor_t *cond, const tensor_t *a, const tensor_t *b);
/* torch.clamp(x, min, max) with tensor bounds: either bound may be NULL, not both
 * ("At least one of 'min' or 'max' must not be None"). Result dtype: promote(x, min, max).
 * bool x is an error. */
TENSOR_API tensor_t *tensor_clamp(const tensor_t *x, const tensor_t *min, const tensor_t *max);
TENSOR_API tensor_status tensor_clamp_(tensor_t *self, const tensor_t *min, const tensor_t *max);
TENSOR_API tensor_status tensor_clamp_out(tensor_t *out, const tensor_t *x, const tensor_t *min, const tensor_t *max);
/* Scalar bounds: pointers (borrowed) so that either may be NULL. */
TENSOR_API tensor_t *tensor_clamp_scalar(const tensor_t *x, const tensor_scalar *min, const tensor_scalar *max);
TENSOR_API tensor_status tensor_clamp_scalar_(tensor_t *self, const tensor_scalar *min, const tensor_scalar *max);

/* ======================================================================================
 * copy, cast, fill
 * ====================================================================================== */
/* dst.copy_(src): src broadcasts to dst's shape and is converted to dst's dtype with
 * PyTorch's cast rules (any dtype pair, float8 included: floats round to nearest even,
 * float -> int truncates, int -> narrower int wraps, -> bool is != 0). src may alias dst
 * exactly; a partial overlap is an error. Both on one device. */
TENSOR_API tensor_status tensor_copy_(tensor_t *dst, const tensor_t *src);
/* A NEW tensor with t's values converted to dtype, laid out like t (dense, same memory order),
 * always a copy (tensor_to_dtype returns t itself when the dtype already matches). */
TENSOR_API tensor_t *tensor_cast(const tensor_t *t, tensor_dtype dtype);
/* t.fill_(value): every element of t (borrowed) becomes value cast to t's dtype. */
TENSOR_API tensor_status tensor_fill_(tensor_t *t, tensor_scalar value);

#ifdef __cplusplus
}
#endif
#endif
