/* The output-dtype rules of contract/reductions.h. */
#include "contract/reductions.h"
#include "runtime/error.h"

static bool is_fp8(tensor_dtype d) { return d == TENSOR_FLOAT8_E4M3FN || d == TENSOR_FLOAT8_E5M2; }

tensor_status tensor_reduce_rule_dtype(tensor_reduce_rule rule, tensor_dtype in, tensor_dtype requested,
                                       tensor_dtype *out, const char *func, const char *name) {
    switch (rule) {
    case TENSOR_RULE_SUM:
        *out = requested != TENSOR_DTYPE_DEFAULT ? requested
               : !tensor_dtype_is_floating(in)   ? TENSOR_INT64
               : is_fp8(in)                      ? TENSOR_FLOAT32
                                                 : in;
        return TENSOR_OK;
    case TENSOR_RULE_FLOAT: {
        const tensor_dtype d = requested != TENSOR_DTYPE_DEFAULT ? requested : in;
        if (!tensor_dtype_is_floating(d))
            return tensor_error(TENSOR_ERR_DTYPE, "%s: %s needs a floating dtype, got %s", func, name,
                                tensor_dtype_name(d));
        *out = is_fp8(d) ? TENSOR_FLOAT32 : d;
        return TENSOR_OK;
    }
    case TENSOR_RULE_INPUT: *out = in; return TENSOR_OK;
    case TENSOR_RULE_INT64: *out = TENSOR_INT64; return TENSOR_OK;
    case TENSOR_RULE_BOOL: *out = in == TENSOR_UINT8 ? TENSOR_UINT8 : TENSOR_BOOL; return TENSOR_OK;
    case TENSOR_RULE_LOGSUMEXP:
        *out = !tensor_dtype_is_floating(in) ? TENSOR_FLOAT32 : is_fp8(in) ? TENSOR_FLOAT32 : in;
        return TENSOR_OK;
    }
    return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: unknown dtype rule %d", func, (int)rule);
}
