/* Element types: names, sizes, categories, PyTorch's promotion rules and scalar casts. */
#include "runtime/dtype.h"

#include <string.h>

#include "runtime/dtype_convert.h"
#include "runtime/error.h"

/* ---- names, sizes, categories ---- */

static const char *const dtype_names[TENSOR_NUM_DTYPES] = {
    [TENSOR_BOOL] = "bool",         [TENSOR_UINT8] = "uint8",
    [TENSOR_INT8] = "int8",         [TENSOR_INT16] = "int16",
    [TENSOR_INT32] = "int32",       [TENSOR_INT64] = "int64",
    [TENSOR_FLOAT16] = "float16",   [TENSOR_BFLOAT16] = "bfloat16",
    [TENSOR_FLOAT32] = "float32",   [TENSOR_FLOAT64] = "float64",
    [TENSOR_FLOAT8_E4M3FN] = "float8_e4m3fn", [TENSOR_FLOAT8_E5M2] = "float8_e5m2",
};

static const unsigned char dtype_sizes[TENSOR_NUM_DTYPES] = {
    [TENSOR_BOOL] = 1,    [TENSOR_UINT8] = 1,    [TENSOR_INT8] = 1,
    [TENSOR_INT16] = 2,   [TENSOR_INT32] = 4,    [TENSOR_INT64] = 8,
    [TENSOR_FLOAT16] = 2, [TENSOR_BFLOAT16] = 2, [TENSOR_FLOAT32] = 4,
    [TENSOR_FLOAT64] = 8, [TENSOR_FLOAT8_E4M3FN] = 1, [TENSOR_FLOAT8_E5M2] = 1,
};

bool tensor_dtype_is_valid(tensor_dtype dtype) {
    /* compared as int: an out-of-range value in the enum variable must not be assumed away */
    return (int)dtype >= 0 && (int)dtype < (int)TENSOR_NUM_DTYPES;
}

const char *tensor_dtype_name(tensor_dtype dtype) {
    return tensor_dtype_is_valid(dtype) ? dtype_names[dtype] : "invalid";
}

size_t tensor_dtype_size(tensor_dtype dtype) {
    return tensor_dtype_is_valid(dtype) ? dtype_sizes[dtype] : 0;
}

bool tensor_dtype_is_floating(tensor_dtype dtype) {
    switch (dtype) {
    case TENSOR_FLOAT16:
    case TENSOR_BFLOAT16:
    case TENSOR_FLOAT32:
    case TENSOR_FLOAT64:
    case TENSOR_FLOAT8_E4M3FN:
    case TENSOR_FLOAT8_E5M2: return true;
    default: return false;
    }
}

bool tensor_dtype_is_integer(tensor_dtype dtype) {
    switch (dtype) {
    case TENSOR_UINT8:
    case TENSOR_INT8:
    case TENSOR_INT16:
    case TENSOR_INT32:
    case TENSOR_INT64: return true;
    default: return false;
    }
}

/* As torch's is_signed: every float type is signed; bool and uint8 are not. */
bool tensor_dtype_is_signed(tensor_dtype dtype) {
    return tensor_dtype_is_floating(dtype) || (tensor_dtype_is_integer(dtype) && dtype != TENSOR_UINT8);
}

/* There is no error channel here; an unknown dtype reports BOOL (the lowest category), so a
 * caller that must tell them apart checks tensor_dtype_is_valid first. */
tensor_dtype_category tensor_dtype_category_of(tensor_dtype dtype) {
    if (tensor_dtype_is_floating(dtype)) return TENSOR_CATEGORY_FLOATING;
    if (tensor_dtype_is_integer(dtype)) return TENSOR_CATEGORY_INTEGER;
    return TENSOR_CATEGORY_BOOL;
}

static bool is_float8(tensor_dtype dtype) {
    return dtype == TENSOR_FLOAT8_E4M3FN || dtype == TENSOR_FLOAT8_E5M2;
}

/* ---- promotion ---- */

/* c10's promoteTypes table, float8 rows excluded: float8 only promotes
 * with itself, handled before the lookup. */
#define b_ TENSOR_BOOL
#define u1 TENSOR_UINT8
#define i1 TENSOR_INT8
#define i2 TENSOR_INT16
#define i4 TENSOR_INT32
#define i8 TENSOR_INT64
#define f2 TENSOR_FLOAT16
#define bf TENSOR_BFLOAT16
#define f4 TENSOR_FLOAT32
#define f8 TENSOR_FLOAT64
static const signed char promote_table[10][10] = {
    /*        b_  u1  i1  i2  i4  i8  f2  bf  f4  f8 */
    /* b_ */ {b_, u1, i1, i2, i4, i8, f2, bf, f4, f8},
    /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8},
    /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8},
    /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8},
    /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8},
    /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8},
    /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8},
    /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8},
    /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8},
    /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
};
#undef b_
#undef u1
#undef i1
#undef i2
#undef i4
#undef i8
#undef f2
#undef bf
#undef f4
#undef f8

/* Both dtypes valid. Records the error under `func`, so that result_type's message names
 * result_type and not this helper. */
static tensor_status promote(const char *func, tensor_dtype a, tensor_dtype b, tensor_dtype *out) {
    if (a == b) {
        *out = a;
        return TENSOR_OK;
    }
    if (is_float8(a) || is_float8(b))
        return tensor_error(TENSOR_ERR_DTYPE,
                            "%s: Promotion for Float8 Types is not supported, attempted to promote %s and %s",
                            func, tensor_dtype_name(a), tensor_dtype_name(b));
    *out = (tensor_dtype)promote_table[a][b];
    return TENSOR_OK;
}

tensor_status tensor_promote_types(tensor_dtype a, tensor_dtype b, tensor_dtype *out) {
    static const char *const fn = "tensor_promote_types";
    TENSOR_CHECK_NOT_NULL(out, fn, "out");
    if (!tensor_dtype_is_valid(a))
        return tensor_error(TENSOR_ERR_DTYPE, "%s: invalid dtype %d (argument 'a')", fn, (int)a);
    if (!tensor_dtype_is_valid(b))
        return tensor_error(TENSOR_ERR_DTYPE, "%s: invalid dtype %d (argument 'b')", fn, (int)b);
    return promote(fn, a, b, out);
}

/* "No dtype yet" while accumulating a tier (c10's ScalarType::Undefined). */
#define NO_DTYPE TENSOR_DTYPE_DEFAULT

static tensor_status promote_skip_none(const char *func, tensor_dtype a, tensor_dtype b, tensor_dtype *out) {
    if (a == NO_DTYPE) {
        *out = b;
        return TENSOR_OK;
    }
    if (b == NO_DTYPE) {
        *out = a;
        return TENSOR_OK;
    }
    return promote(func, a, b, out);
}

/* c10's combine_categories(higher, lower): the stronger tier's dtype stands unless the weaker
 * tier is of a higher category, and then the two are promoted (which lands on the weaker tier's
 * dtype for every pair the lattice allows: int64 + float16 is float16). */
static tensor_status combine_tiers(const char *func, tensor_dtype higher, tensor_dtype lower, tensor_dtype *out) {
    if (tensor_dtype_is_floating(higher)) {
        *out = higher;
        return TENSOR_OK;
    }
    if (higher == TENSOR_BOOL || tensor_dtype_is_floating(lower))
        return promote_skip_none(func, higher, lower, out);
    *out = higher != NO_DTYPE ? higher : lower;
    return TENSOR_OK;
}

/* This is ATen's ResultTypeState (dimensioned, 0-d and scalar tiers, each promoted within, then
 * combined strongest first). It gives exactly the three-step rule of PyTorch
 * (category first, then dimensioned > 0-d > scalar default) for every dtype the lattice
 * covers, and in addition fails where PyTorch fails: a float8 operand that must be promoted
 * across categories (int32[2] + float8 0-d) is an error, not float8. */
tensor_status tensor_result_type(const tensor_result_type_operand *operands, int n, tensor_dtype *out) {
    static const char *const fn = "tensor_result_type";
    TENSOR_CHECK_NOT_NULL(operands, fn, "operands");
    TENSOR_CHECK_NOT_NULL(out, fn, "out");
    if (n < 1) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: n must be >= 1, got %d", fn, n);
    tensor_dtype tier[3] = {NO_DTYPE, NO_DTYPE, NO_DTYPE};
    for (int i = 0; i < n; i++) {
        tensor_dtype d = operands[i].dtype;
        const int kind = (int)operands[i].kind;
        if (!tensor_dtype_is_valid(d))
            return tensor_error(TENSOR_ERR_DTYPE, "%s: operand %d has invalid dtype %d", fn, i, (int)d);
        if (kind < TENSOR_OPERAND_DIMENSIONED || kind > TENSOR_OPERAND_SCALAR)
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: operand %d has invalid kind %d", fn, i, kind);
        /* A host scalar contributes only its category's default: int64, float32 (torch's
         * default dtype), bool. Mapping by category also accepts a scalar tagged int32. */
        if (kind == TENSOR_OPERAND_SCALAR)
            d = tensor_dtype_is_floating(d) ? TENSOR_FLOAT32 : tensor_dtype_is_integer(d) ? TENSOR_INT64 : TENSOR_BOOL;
        tensor_status st = promote_skip_none(fn, tier[kind], d, &tier[kind]);
        if (st != TENSOR_OK) return st;
    }
    tensor_dtype weak;
    tensor_status st = combine_tiers(fn, tier[TENSOR_OPERAND_ZERO_DIM], tier[TENSOR_OPERAND_SCALAR], &weak);
    if (st != TENSOR_OK) return st;
    return combine_tiers(fn, tier[TENSOR_OPERAND_DIMENSIONED], weak, out);
}

/* ---- scalar conversions, out of line ---- */

float tensor_float16_to_float(uint16_t bits) { return tensor_f16_to_f32(bits); }
uint16_t tensor_float_to_float16(float value) { return tensor_f32_to_f16(value); }
float tensor_bfloat16_to_float(uint16_t bits) { return tensor_bf16_to_f32(bits); }
uint16_t tensor_float_to_bfloat16(float value) { return tensor_f32_to_bf16(value); }
float tensor_float8_e4m3fn_to_float(uint8_t bits) { return tensor_e4m3fn_to_f32(bits); }
uint8_t tensor_float_to_float8_e4m3fn(float value) { return tensor_f32_to_e4m3fn(value); }
float tensor_float8_e5m2_to_float(uint8_t bits) { return tensor_e5m2_to_f32(bits); }
uint8_t tensor_float_to_float8_e5m2(float value) { return tensor_f32_to_e5m2(value); }

/* ---- load / store one element ----
 * memcpy for every access: elements of a strided view or a byte buffer need not be aligned.
 * An unknown dtype or a NULL pointer loads 0 and stores nothing (there is no error channel,
 * and this runs once per element). */

/* double -> int64 truncating toward zero. C leaves NaN and out-of-range conversions undefined;
 * here they give INT64_MIN, which is what x86's cvttsd2si (and so PyTorch on CPU) produces,
 * and what cpu/ does. Narrower integer dtypes then wrap it like any int64. */
static int64_t f64_to_i64(double x) {
    return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}

/* One load or store of each width the switches below need, so that each case is one line. */
#define DTYPE_LOAD(name, T)                                                                      \
    static T load_##name(const void *p) {                                                        \
        T v;                                                                                     \
        memcpy(&v, p, sizeof v);                                                                 \
        return v;                                                                                \
    }
#define DTYPE_STORE(name, T) \
    static void store_##name(void *p, T v) { memcpy(p, &v, sizeof v); }
DTYPE_LOAD(u16, uint16_t)
DTYPE_LOAD(i16, int16_t)
DTYPE_LOAD(i32, int32_t)
DTYPE_LOAD(i64, int64_t)
DTYPE_LOAD(f32, float)
DTYPE_LOAD(f64, double)
DTYPE_STORE(u16, uint16_t)
DTYPE_STORE(u32, uint32_t)
DTYPE_STORE(u64, uint64_t)
DTYPE_STORE(f32, float)
DTYPE_STORE(f64, double)
#undef DTYPE_LOAD
#undef DTYPE_STORE

/* Integer dtypes keep the low bits of value: two's complement wrap, done on unsigned types
 * because a narrowing signed conversion is implementation-defined in C. */
static void store_wrapped(tensor_dtype dtype, void *dst, int64_t value) {
    const uint64_t u = (uint64_t)value;
    switch (dtype) {
    case TENSOR_BOOL: *(unsigned char *)dst = value != 0; break;
    case TENSOR_UINT8:
    case TENSOR_INT8: *(unsigned char *)dst = (unsigned char)u; break;
    case TENSOR_INT16: store_u16(dst, (uint16_t)u); break;
    case TENSOR_INT32: store_u32(dst, (uint32_t)u); break;
    case TENSOR_INT64: store_u64(dst, u); break;
    default: break;
    }
}

double tensor_dtype_load_double(tensor_dtype dtype, const void *src) {
    if (src == NULL) return 0.0;
    switch (dtype) {
    case TENSOR_FLOAT16: return tensor_f16_to_f32(load_u16(src));
    case TENSOR_BFLOAT16: return tensor_bf16_to_f32(load_u16(src));
    case TENSOR_FLOAT32: return load_f32(src);
    case TENSOR_FLOAT64: return load_f64(src);
    case TENSOR_FLOAT8_E4M3FN: return tensor_e4m3fn_to_f32(*(const unsigned char *)src);
    case TENSOR_FLOAT8_E5M2: return tensor_e5m2_to_f32(*(const unsigned char *)src);
    default: return (double)tensor_dtype_load_int64(dtype, src);
    }
}

/* Narrow floats are rounded from float, not from double, as c10 does (its Half, BFloat16 and
 * Float8 types are constructed from float): a double is rounded twice, and this matches
 * torch.tensor(x, dtype=float64).to(float16) bit for bit, and the CUDA kernels. */
void tensor_dtype_store_double(tensor_dtype dtype, void *dst, double value) {
    if (dst == NULL) return;
    switch (dtype) {
    case TENSOR_BOOL: *(unsigned char *)dst = value != 0; break; /* NaN is true, as in torch */
    case TENSOR_FLOAT16: store_u16(dst, tensor_f32_to_f16((float)value)); break;
    case TENSOR_BFLOAT16: store_u16(dst, tensor_f32_to_bf16((float)value)); break;
    case TENSOR_FLOAT32: store_f32(dst, (float)value); break;
    case TENSOR_FLOAT64: store_f64(dst, value); break;
    case TENSOR_FLOAT8_E4M3FN: *(unsigned char *)dst = tensor_f32_to_e4m3fn((float)value); break;
    case TENSOR_FLOAT8_E5M2: *(unsigned char *)dst = tensor_f32_to_e5m2((float)value); break;
    default: store_wrapped(dtype, dst, f64_to_i64(value)); break;
    }
}

/* Float dtypes truncate toward zero like store_double does (NaN/out of range: INT64_MIN). */
int64_t tensor_dtype_load_int64(tensor_dtype dtype, const void *src) {
    if (src == NULL) return 0;
    switch (dtype) {
    case TENSOR_BOOL: return *(const unsigned char *)src != 0;
    case TENSOR_UINT8: return *(const unsigned char *)src;
    case TENSOR_INT8: return (int8_t)*(const unsigned char *)src;
    case TENSOR_INT16: return load_i16(src);
    case TENSOR_INT32: return load_i32(src);
    case TENSOR_INT64: return load_i64(src);
    default:
        if (!tensor_dtype_is_floating(dtype)) return 0;
        return f64_to_i64(tensor_dtype_load_double(dtype, src));
    }
}

/* int64 -> float rounds once (C's conversion is correctly rounded), so a large int64 stored as
 * float32 is not rounded twice through double; narrow floats go through float as c10 does. */
void tensor_dtype_store_int64(tensor_dtype dtype, void *dst, int64_t value) {
    if (dst == NULL) return;
    switch (dtype) {
    case TENSOR_FLOAT16: store_u16(dst, tensor_f32_to_f16((float)value)); break;
    case TENSOR_BFLOAT16: store_u16(dst, tensor_f32_to_bf16((float)value)); break;
    case TENSOR_FLOAT32: store_f32(dst, (float)value); break;
    case TENSOR_FLOAT64: store_f64(dst, (double)value); break;
    case TENSOR_FLOAT8_E4M3FN: *(unsigned char *)dst = tensor_f32_to_e4m3fn((float)value); break;
    case TENSOR_FLOAT8_E5M2: *(unsigned char *)dst = tensor_f32_to_e5m2((float)value); break;
    default: store_wrapped(dtype, dst, value); break;
    }
}
