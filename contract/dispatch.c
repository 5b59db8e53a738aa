#include <pthread.h>

#include "contract/dispatch.h"
#include "runtime/error.h"

static tensor_kernel_fn table[TENSOR_NUM_OPS][TENSOR_NUM_DEVICE_TYPES];
static tensor_kernel_explain_fn explain_table[TENSOR_NUM_OPS][TENSOR_NUM_DEVICE_TYPES];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static const tensor_reduction_row reduction_rows[TENSOR_NUM_REDUCTION_OPS] = {
#define ROW_(ID, KERNEL, NAME, TORCH, NOUT, RULE, HAS_ID, IDENTITY, ALL, KIND) \
    [TENSOR_OP_##ID] = {NAME, TORCH, NOUT, RULE, HAS_ID, IDENTITY, ALL},
    TENSOR_BUILTIN_REDUCTIONS(ROW_)
#undef ROW_
};

static const char *const other_names[TENSOR_NUM_OPS - TENSOR_NUM_REDUCTION_OPS] = {
    [TENSOR_OP_EW_UNARY - TENSOR_NUM_REDUCTION_OPS] = "elementwise unary op",
    [TENSOR_OP_EW_BINARY - TENSOR_NUM_REDUCTION_OPS] = "elementwise binary op",
    [TENSOR_OP_EW_TERNARY - TENSOR_NUM_REDUCTION_OPS] = "elementwise ternary op",
    [TENSOR_OP_EW_COPY - TENSOR_NUM_REDUCTION_OPS] = "copy",
    [TENSOR_OP_EW_FILL - TENSOR_NUM_REDUCTION_OPS] = "fill",
    [TENSOR_OP_USER_REDUCE - TENSOR_NUM_REDUCTION_OPS] = "user reduction",
    [TENSOR_OP_SCAN - TENSOR_NUM_REDUCTION_OPS] = "scan",
};

const char *tensor_op_name(tensor_op op) {
    if ((unsigned)op >= TENSOR_NUM_OPS) return "unknown op";
    if (op < TENSOR_NUM_REDUCTION_OPS) return reduction_rows[op].name;
    const char *n = other_names[op - TENSOR_NUM_REDUCTION_OPS];
    return n != NULL ? n : "unknown op";
}

const tensor_reduction_row *tensor_op_reduction(tensor_op op) {
    return (unsigned)op < TENSOR_NUM_REDUCTION_OPS ? &reduction_rows[op] : NULL;
}

static void init_table(void) { tt_backends_install(); }

tensor_status tensor_dispatch_register(tensor_op op, tensor_device_type device, tensor_kernel_fn fn) {
    if ((unsigned)op >= TENSOR_NUM_OPS)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dispatch_register: unknown op %d", (int)op);
    if ((unsigned)device >= TENSOR_NUM_DEVICE_TYPES)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dispatch_register: unknown device type %d", (int)device);
    table[op][device] = fn;
    return TENSOR_OK;
}

tensor_kernel_fn tensor_dispatch_get(tensor_op op, tensor_device_type device, const char *func) {
    pthread_once(&table_once, init_table);
    /* tensor_error_null returns void *, which C does not convert to a function pointer. */
    if ((unsigned)op >= TENSOR_NUM_OPS) {
        tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: unknown op %d", func, (int)op);
        return NULL;
    }
    if ((unsigned)device >= TENSOR_NUM_DEVICE_TYPES) {
        tensor_error(TENSOR_ERR_DEVICE, "%s: unknown device type %d", func, (int)device);
        return NULL;
    }
    tensor_kernel_fn fn = table[op][device];
    if (fn == NULL)
        tensor_error(TENSOR_ERR_NOT_IMPLEMENTED, "%s: %s is not implemented for %s", func, tensor_op_name(op),
                     device == TENSOR_DEVICE_CPU ? "CPU" : "CUDA");
    return fn;
}

tensor_status tensor_dispatch_register_explain(tensor_op op, tensor_device_type device, tensor_kernel_explain_fn fn) {
    if ((unsigned)op >= TENSOR_NUM_OPS)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dispatch_register_explain: unknown op %d", (int)op);
    if ((unsigned)device >= TENSOR_NUM_DEVICE_TYPES)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_dispatch_register_explain: unknown device type %d",
                            (int)device);
    explain_table[op][device] = fn;
    return TENSOR_OK;
}

tensor_kernel_explain_fn tensor_dispatch_get_explain(tensor_op op, tensor_device_type device) {
    pthread_once(&table_once, init_table);
    if ((unsigned)op >= TENSOR_NUM_OPS || (unsigned)device >= TENSOR_NUM_DEVICE_TYPES) return NULL;
    return explain_table[op][device];
}
