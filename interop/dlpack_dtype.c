/* Dtypes between tinytensor and DLPack: one table, read both ways. */
#include "interop/dlpack_internal.h"
#include "runtime/error.h"

static const struct {
    tensor_dtype dtype;
    uint8_t code, bits;
} dtype_table[] = {
    {TENSOR_BOOL, kDLBool, 8},
    {TENSOR_UINT8, kDLUInt, 8},
    {TENSOR_INT8, kDLInt, 8},
    {TENSOR_INT16, kDLInt, 16},
    {TENSOR_INT32, kDLInt, 32},
    {TENSOR_INT64, kDLInt, 64},
    {TENSOR_FLOAT16, kDLFloat, 16},
    {TENSOR_BFLOAT16, kDLBfloat, 16},
    {TENSOR_FLOAT32, kDLFloat, 32},
    {TENSOR_FLOAT64, kDLFloat, 64},
    {TENSOR_FLOAT8_E4M3FN, kDLFloat8_e4m3fn, 8},
    {TENSOR_FLOAT8_E5M2, kDLFloat8_e5m2, 8},
};
#define DTYPE_TABLE_SIZE (sizeof dtype_table / sizeof dtype_table[0])

tensor_status tensor_dtype_to_dlpack(tensor_dtype dtype, DLDataType *out) {
    TENSOR_CHECK_NOT_NULL(out, "tensor_dtype_to_dlpack", "out");
    for (size_t i = 0; i < DTYPE_TABLE_SIZE; i++)
        if (dtype_table[i].dtype == dtype) {
            out->code = dtype_table[i].code;
            out->bits = dtype_table[i].bits;
            out->lanes = 1;
            return TENSOR_OK;
        }
    return tensor_error(TENSOR_ERR_DTYPE, "tensor_dtype_to_dlpack: unknown dtype %d", (int)dtype);
}

/* A readable name for the message of a dtype we refuse, so that "code 5" reads "complex". */
static const char *code_name(uint8_t code) {
    static const char *names[] = {"int",        "uint",          "float",     "opaque handle",
                                  "bfloat",     "complex",       "bool",      "float8_e3m4",
                                  "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
                                  "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn",
                                  "float6_e3m2fn", "float4_e2m1fn"};
    return code < sizeof names / sizeof names[0] ? names[code] : "unknown";
}

tensor_status tt_dlpack_dtype_from(DLDataType dt, tensor_dtype *out, const char *func) {
    if (dt.lanes != 1)
        return tensor_error(TENSOR_ERR_DTYPE,
                            "%s: dtype {code %u (%s), bits %u, lanes %u}: vector types (lanes != 1) are not supported",
                            func, dt.code, code_name(dt.code), dt.bits, dt.lanes);
    for (size_t i = 0; i < DTYPE_TABLE_SIZE; i++)
        if (dtype_table[i].code == dt.code && dtype_table[i].bits == dt.bits) {
            *out = dtype_table[i].dtype;
            return TENSOR_OK;
        }
    return tensor_error(TENSOR_ERR_DTYPE, "%s: dtype {code %u (%s), bits %u, lanes 1} has no tinytensor dtype", func,
                        dt.code, code_name(dt.code), dt.bits);
}

tensor_status tensor_dtype_from_dlpack(DLDataType dt, tensor_dtype *out) {
    TENSOR_CHECK_NOT_NULL(out, "tensor_dtype_from_dlpack", "out");
    return tt_dlpack_dtype_from(dt, out, "tensor_dtype_from_dlpack");
}
