#include "ops/reduce_launch.h"
#include "iterator/iterator.h"
#include "runtime/error.h"

tensor_status tensor_reduce_launch(tensor_op op, tensor_t *const *outs, int nout, const tensor_t *in,
                                   const tensor_kernel_params *params, const char *func) {
    tensor_kernel_fn kernel = tensor_dispatch_get(op, tensor_get_device(in).type, func);
    if (kernel == NULL) return tensor_last_status();
    tensor_iter_config *cfg = tensor_iter_config_new(func);
    if (cfg == NULL) return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory for an iterator", func);
    /* Outputs arrive already viewed with the input's rank (size 1, stride 0 on reduced dims). The
     * input keeps its dtype: kernels convert while loading instead of copying the input. */
    tensor_iter_config_enable(cfg, TENSOR_ITER_REDUCTION | TENSOR_ITER_PROMOTE_INPUTS);
    for (int i = 0; i < nout; i++) tensor_iter_config_add_output_dtype(cfg, outs[i], tensor_get_dtype(outs[i]));
    tensor_iter_config_add_input(cfg, in);
    tensor_iter_t *iter = tensor_iter_build(cfg);
    tensor_iter_config_free(cfg);
    if (iter == NULL) return tensor_last_status();
    tensor_status st = kernel(iter, params);
    tensor_iter_free(iter);
    return st;
}
