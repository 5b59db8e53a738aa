#include <pthread.h>

#include "ops/dispatch.h"
#include "runtime/error.h"

static tensor_kernel_fn table[TENSOR_NUM_OPS][TENSOR_NUM_DEVICE_TYPES];
static tensor_kernel_explain_fn explain_table[TENSOR_NUM_OPS][TENSOR_NUM_DEVICE_TYPES];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static const char *const op_names[TENSOR_NUM_OPS] = {
    [TENSOR_OP_SUM] = "sum",         [TENSOR_OP_NANSUM] = "nansum",
    [TENSOR_OP_PROD] = "prod",       [TENSOR_OP_MEAN] = "mean",
    [TENSOR_OP_NANMEAN] = "nanmean", [TENSOR_OP_AMAX] = "amax",
    [TENSOR_OP_AMIN] = "amin",       [TENSOR_OP_MAX_DIM] = "max",
    [TENSOR_OP_MIN_DIM] = "min",     [TENSOR_OP_ARGMAX] = "argmax",
    [TENSOR_OP_ARGMIN] = "argmin",   [TENSOR_OP_VAR_MEAN] = "var_mean",
    [TENSOR_OP_NORM] = "norm",       [TENSOR_OP_LOGSUMEXP] = "logsumexp",
    [TENSOR_OP_COUNT_NONZERO] = "count_nonzero",
    [TENSOR_OP_ALL] = "all",         [TENSOR_OP_ANY] = "any",
    [TENSOR_OP_SUM_OF_SQUARES] = "sum_of_squares",
    [TENSOR_OP_EW_UNARY] = "elementwise unary op",
    [TENSOR_OP_EW_BINARY] = "elementwise binary op",
    [TENSOR_OP_EW_TERNARY] = "elementwise ternary op",
    [TENSOR_OP_EW_COPY] = "copy",
    [TENSOR_OP_EW_FILL] = "fill",
    [TENSOR_OP_USER_REDUCE] = "user reduction",
};

const char *tensor_op_name(tensor_op op) {
    if ((unsigned)op >= TENSOR_NUM_OPS || op_names[op] == NULL) return "unknown op";
    return op_names[op];
}

static void init_table(void) {
    tensor_cpu_register_kernels();
#if TENSOR_HAVE_CUDA
    tensor_cuda_register_kernels();
#endif
}

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
