/* The dtype rules of the elementwise ops: which dtype each op
 * computes in, what it returns, and which combinations are errors. */
#include <stdio.h>

#include "ops/elementwise_internal.h"
#include "runtime/error.h"

int tt_ew_op_arity(tensor_ew_op op) {
    if (op >= TENSOR_EW_NEG && op <= TENSOR_EW_BITWISE_NOT) return 1;
    if (op >= TENSOR_EW_ADD && op <= TENSOR_EW_BITWISE_XOR) return 2;
    if (op == TENSOR_EW_WHERE || op == TENSOR_EW_CLAMP) return 3;
    if (op == TENSOR_EW_COPY) return 1;
    if (op == TENSOR_EW_FILL) return 0;
    return -1;
}

tensor_op tt_ew_op_slot(tensor_ew_op op) {
    if (op == TENSOR_EW_COPY) return TENSOR_OP_EW_COPY;
    if (op == TENSOR_EW_FILL) return TENSOR_OP_EW_FILL;
    switch (tt_ew_op_arity(op)) {
    case 1: return TENSOR_OP_EW_UNARY;
    case 2: return TENSOR_OP_EW_BINARY;
    case 3: return TENSOR_OP_EW_TERNARY;
    default: return TENSOR_NUM_OPS;
    }
}

bool tt_ew_can_cast(tensor_dtype from, tensor_dtype to) {
    if (tensor_dtype_is_floating(from) && !tensor_dtype_is_floating(to)) return false;
    if (from != TENSOR_BOOL && to == TENSOR_BOOL) return false;
    return true;
}

static const char *const names[TENSOR_EW_NUM_OPS] = {
    [TENSOR_EW_NEG] = "neg", [TENSOR_EW_ABS] = "abs", [TENSOR_EW_SIGN] = "sign", [TENSOR_EW_EXP] = "exp",
    [TENSOR_EW_EXP2] = "exp2", [TENSOR_EW_LOG] = "log", [TENSOR_EW_LOG2] = "log2", [TENSOR_EW_LOG1P] = "log1p",
    [TENSOR_EW_EXPM1] = "expm1", [TENSOR_EW_SQRT] = "sqrt", [TENSOR_EW_RSQRT] = "rsqrt", [TENSOR_EW_SIN] = "sin",
    [TENSOR_EW_COS] = "cos", [TENSOR_EW_TAN] = "tan", [TENSOR_EW_TANH] = "tanh", [TENSOR_EW_SIGMOID] = "sigmoid",
    [TENSOR_EW_ERF] = "erf", [TENSOR_EW_RECIPROCAL] = "reciprocal", [TENSOR_EW_RELU] = "relu",
    [TENSOR_EW_GELU] = "gelu", [TENSOR_EW_GELU_TANH] = "gelu", [TENSOR_EW_SILU] = "silu", [TENSOR_EW_FLOOR] = "floor", [TENSOR_EW_CEIL] = "ceil",
    [TENSOR_EW_ROUND] = "round", [TENSOR_EW_TRUNC] = "trunc", [TENSOR_EW_ISNAN] = "isnan",
    [TENSOR_EW_ISINF] = "isinf", [TENSOR_EW_ISFINITE] = "isfinite", [TENSOR_EW_LOGICAL_NOT] = "logical_not",
    [TENSOR_EW_BITWISE_NOT] = "bitwise_not", [TENSOR_EW_ADD] = "add", [TENSOR_EW_SUB] = "sub",
    [TENSOR_EW_MUL] = "mul", [TENSOR_EW_DIV] = "div", [TENSOR_EW_DIV_FLOOR] = "floor_divide",
    [TENSOR_EW_DIV_TRUNC] = "div_trunc", [TENSOR_EW_REMAINDER] = "remainder", [TENSOR_EW_POW] = "pow",
    [TENSOR_EW_MAXIMUM] = "maximum", [TENSOR_EW_MINIMUM] = "minimum", [TENSOR_EW_FMAX] = "fmax",
    [TENSOR_EW_FMIN] = "fmin", [TENSOR_EW_EQ] = "eq", [TENSOR_EW_NE] = "ne", [TENSOR_EW_LT] = "lt",
    [TENSOR_EW_LE] = "le", [TENSOR_EW_GT] = "gt", [TENSOR_EW_GE] = "ge", [TENSOR_EW_LOGICAL_AND] = "logical_and",
    [TENSOR_EW_LOGICAL_OR] = "logical_or", [TENSOR_EW_LOGICAL_XOR] = "logical_xor",
    [TENSOR_EW_BITWISE_AND] = "bitwise_and", [TENSOR_EW_BITWISE_OR] = "bitwise_or",
    [TENSOR_EW_BITWISE_XOR] = "bitwise_xor", [TENSOR_EW_WHERE] = "where", [TENSOR_EW_CLAMP] = "clamp",
    [TENSOR_EW_COPY] = "copy_", [TENSOR_EW_FILL] = "fill_",
};

const char *tensor_ew_op_name(tensor_ew_op op) {
    if ((unsigned)op >= TENSOR_EW_NUM_OPS || names[op] == NULL) return "unknown op";
    return names[op];
}

static bool is_float8(tensor_dtype d) { return d == TENSOR_FLOAT8_E4M3FN || d == TENSOR_FLOAT8_E5M2; }

/* PyTorch's NotImplementedError text: "<op>" not implemented for '<dtype>'. */
static tensor_status not_for(const char *func, tensor_ew_op op, tensor_dtype d) {
    return tensor_error(TENSOR_ERR_DTYPE, "%s: \"%s\" not implemented for '%s'", func, tensor_ew_op_name(op),
                        tensor_dtype_name(d));
}

tensor_status tt_ew_decide_types(const char *func, tensor_ew_op *opp, const tensor_result_type_operand *operands, int n,
                              tensor_dtype *common, tensor_dtype *result) {
    tensor_ew_op op = *opp;
    const tensor_result_type_operand *promoted = operands;
    int np = n;
    if (op == TENSOR_EW_WHERE) {
        if (operands[0].dtype != TENSOR_BOOL)
            return tensor_error(TENSOR_ERR_DTYPE,
                                "%s: where expected condition to be a boolean tensor, but got a tensor with dtype %s",
                                func, tensor_dtype_name(operands[0].dtype));
        promoted = operands + 1; /* the condition takes no part in promotion */
        np = 2;
    }
    tensor_dtype c;
    if (tensor_result_type(promoted, np, &c) != TENSOR_OK) {
        /* prefix the runtime's message with the public function */
        char msg[256];
        snprintf(msg, sizeof msg, "%s", tensor_last_error());
        return tensor_error(tensor_last_status(), "%s: %s", func, msg);
    }
    if (is_float8(c) && op != TENSOR_EW_WHERE) return not_for(func, op, c);
    const bool fl = tensor_dtype_is_floating(c), is_bool = c == TENSOR_BOOL;
    tensor_dtype r = c;
    switch (op) {
    case TENSOR_EW_NEG:
        if (is_bool)
            return tensor_error(TENSOR_ERR_DTYPE,
                                "%s: Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                                "to invert a mask, use the `~` or `logical_not()` operator instead.",
                                func);
        break;
    case TENSOR_EW_ABS:
    case TENSOR_EW_RELU:
    case TENSOR_EW_FLOOR:
    case TENSOR_EW_CEIL:
    case TENSOR_EW_ROUND:
    case TENSOR_EW_TRUNC:
    case TENSOR_EW_DIV_FLOOR:
    case TENSOR_EW_DIV_TRUNC:
    case TENSOR_EW_REMAINDER:
    case TENSOR_EW_POW:
    case TENSOR_EW_CLAMP:
        if (is_bool) return not_for(func, op, c);
        break;
    case TENSOR_EW_GELU:
    case TENSOR_EW_GELU_TANH:
    case TENSOR_EW_SILU:
        if (!fl) return not_for(func, op, c);
        break;
    case TENSOR_EW_EXP: case TENSOR_EW_EXP2: case TENSOR_EW_LOG: case TENSOR_EW_LOG2: case TENSOR_EW_LOG1P:
    case TENSOR_EW_EXPM1: case TENSOR_EW_SQRT: case TENSOR_EW_RSQRT: case TENSOR_EW_SIN: case TENSOR_EW_COS:
    case TENSOR_EW_TAN: case TENSOR_EW_TANH: case TENSOR_EW_SIGMOID: case TENSOR_EW_ERF:
    case TENSOR_EW_RECIPROCAL:
    case TENSOR_EW_DIV:
        /* INT_TO_FLOAT: integers and bool compute and return the default float dtype */
        if (!fl) c = r = TENSOR_FLOAT32;
        break;
    case TENSOR_EW_SUB: {
        bool any_bool = false, all_bool = true;
        for (int i = 0; i < n; i++) {
            any_bool |= operands[i].dtype == TENSOR_BOOL;
            all_bool &= operands[i].dtype == TENSOR_BOOL;
        }
        if (all_bool)
            return tensor_error(TENSOR_ERR_DTYPE,
                                "%s: Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
                                "`^` or `logical_xor()` operator instead.",
                                func);
        if (any_bool)
            return tensor_error(TENSOR_ERR_DTYPE,
                                "%s: Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                                "trying to invert a mask, use the `~` or `logical_not()` operator instead.",
                                func);
        break;
    }
    case TENSOR_EW_EQ: case TENSOR_EW_NE: case TENSOR_EW_LT: case TENSOR_EW_LE: case TENSOR_EW_GT:
    case TENSOR_EW_GE: case TENSOR_EW_LOGICAL_AND: case TENSOR_EW_LOGICAL_OR: case TENSOR_EW_LOGICAL_XOR:
    case TENSOR_EW_ISNAN: case TENSOR_EW_ISINF: case TENSOR_EW_ISFINITE: case TENSOR_EW_LOGICAL_NOT:
        r = TENSOR_BOOL;
        break;
    case TENSOR_EW_BITWISE_AND: case TENSOR_EW_BITWISE_OR: case TENSOR_EW_BITWISE_XOR:
        if (fl) return not_for(func, op, c);
        break;
    case TENSOR_EW_BITWISE_NOT:
        if (fl) return not_for(func, op, c);
        if (is_bool) *opp = TENSOR_EW_LOGICAL_NOT; /* ~True is False, not ~1 */
        break;
    default: break; /* ADD, MUL, SIGN, MAXIMUM .. FMIN, WHERE: the promoted dtype */
    }
    *common = c;
    *result = r;
    return TENSOR_OK;
}
