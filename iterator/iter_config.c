/* The iterator config: the operands (outputs first), the flags and the optional static shape
 * or reduction dims that tensor_iter_build turns into a plan. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/alloc.h"
#include "iterator/iter_impl.h"
#include "iterator/iter_local.h"
#include "runtime/error.h"

tensor_status tt_iter_config_fail(tensor_iter_config *cfg, tensor_status status) {
    if (cfg != NULL && cfg->error == TENSOR_OK) {
        cfg->error = status;
        snprintf(cfg->error_msg, sizeof cfg->error_msg, "%s", tensor_last_error());
    }
    return status;
}

void tt_iter_config_init(tensor_iter_config *cfg, const char *name) {
    memset(cfg, 0, sizeof *cfg);
    iter_copy_name(cfg->name, sizeof cfg->name, name != NULL && name[0] != '\0' ? name : "tensor_iter_build");
    cfg->flags = TENSOR_ITER_DEFAULT_FLAGS;
}

void tt_iter_config_clear(tensor_iter_config *cfg) {
    for (int i = 0; i < cfg->num_outputs; i++) tensor_release(cfg->outputs[i]);
    for (int i = 0; i < cfg->num_inputs; i++) tensor_release(cfg->inputs[i]);
    cfg->num_outputs = cfg->num_inputs = 0;
}

tensor_iter_config *tensor_iter_config_new(const char *name) {
    tensor_iter_config *cfg = tt_malloc(sizeof *cfg);
    if (cfg == NULL)
        return tensor_error_null(TENSOR_ERR_OUT_OF_MEMORY, "tensor_iter_config_new: out of host memory");
    tt_iter_config_init(cfg, name);
    return cfg;
}

void tensor_iter_config_free(tensor_iter_config *cfg) {
    if (cfg == NULL) return;
    tt_iter_config_clear(cfg);
    free(cfg);
}

static tensor_status add_output(tensor_iter_config *cfg, tensor_t *out, bool declared, tensor_dtype dtype,
                                const char *func) {
    TENSOR_CHECK_NOT_NULL(cfg, func, "cfg");
    if (cfg->num_inputs > 0)
        return tt_iter_config_fail(cfg, tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                                  "%s: outputs must be added before inputs (output %d after %d inputs)",
                                                  cfg->name, cfg->num_outputs, cfg->num_inputs));
    if (cfg->num_outputs >= TENSOR_ITER_MAX_OPERANDS)
        return tt_iter_config_fail(cfg, tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                                  "%s: too many operands (at most %d)", cfg->name,
                                                  TENSOR_ITER_MAX_OPERANDS));
    if (declared && !tensor_dtype_is_valid(dtype))
        return tt_iter_config_fail(cfg, tensor_error(TENSOR_ERR_DTYPE, "%s: output %d: unknown dtype %d", cfg->name,
                                                  cfg->num_outputs, (int)dtype));
    int i = cfg->num_outputs++;
    cfg->outputs[i] = tensor_retain(out);
    cfg->out_dtype_declared[i] = declared;
    cfg->out_dtypes[i] = declared ? dtype : TENSOR_NUM_DTYPES;
    return TENSOR_OK;
}

tensor_status tensor_iter_config_add_output(tensor_iter_config *cfg, tensor_t *out) {
    return add_output(cfg, out, false, TENSOR_NUM_DTYPES, "tensor_iter_config_add_output");
}

tensor_status tensor_iter_config_add_output_dtype(tensor_iter_config *cfg, tensor_t *out, tensor_dtype dtype) {
    return add_output(cfg, out, true, dtype, "tensor_iter_config_add_output_dtype");
}

tensor_status tensor_iter_config_add_input(tensor_iter_config *cfg, const tensor_t *in) {
    TENSOR_CHECK_NOT_NULL(cfg, "tensor_iter_config_add_input", "cfg");
    if (in == NULL)
        return tt_iter_config_fail(cfg, tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'input %d' is NULL",
                                                  cfg->name, cfg->num_inputs));
    if (cfg->num_outputs + cfg->num_inputs >= TENSOR_ITER_MAX_OPERANDS)
        return tt_iter_config_fail(cfg, tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                                  "%s: too many operands (at most %d)", cfg->name,
                                                  TENSOR_ITER_MAX_OPERANDS));
    /* The iterator never writes inputs; the cast only lets one retain-count type serve both. */
    cfg->inputs[cfg->num_inputs++] = tensor_retain((tensor_t *)in);
    return TENSOR_OK;
}

#define TENSOR_ITER_ALL_FLAGS 0x1FFu

tensor_status tensor_iter_config_enable(tensor_iter_config *cfg, unsigned flags) {
    TENSOR_CHECK_NOT_NULL(cfg, "tensor_iter_config_enable", "cfg");
    if (flags & ~TENSOR_ITER_ALL_FLAGS)
        return tt_iter_config_fail(cfg, tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: unknown flags 0x%x", cfg->name,
                                                  flags & ~TENSOR_ITER_ALL_FLAGS));
    cfg->flags |= flags;
    return TENSOR_OK;
}

tensor_status tensor_iter_config_disable(tensor_iter_config *cfg, unsigned flags) {
    TENSOR_CHECK_NOT_NULL(cfg, "tensor_iter_config_disable", "cfg");
    if (flags & ~TENSOR_ITER_ALL_FLAGS)
        return tt_iter_config_fail(cfg, tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: unknown flags 0x%x", cfg->name,
                                                  flags & ~TENSOR_ITER_ALL_FLAGS));
    cfg->flags &= ~flags;
    /* Dims given to reduce_dims only make sense in reduction mode. */
    if (flags & TENSOR_ITER_REDUCTION) cfg->has_reduce_dims = false;
    return TENSOR_OK;
}

tensor_status tensor_iter_config_declare_static_shape(tensor_iter_config *cfg, int ndim, const int64_t *sizes) {
    TENSOR_CHECK_NOT_NULL(cfg, "tensor_iter_config_declare_static_shape", "cfg");
    if (ndim < 0 || ndim > TENSOR_MAX_DIMS)
        return tt_iter_config_fail(cfg, tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                                  "%s: static shape rank %d is outside [0, %d] (TENSOR_MAX_DIMS)",
                                                  cfg->name, ndim, TENSOR_MAX_DIMS));
    if (ndim > 0 && sizes == NULL)
        return tt_iter_config_fail(cfg, tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                                  "%s: argument 'sizes' is NULL with ndim %d", cfg->name, ndim));
    for (int d = 0; d < ndim; d++)
        if (sizes[d] < 0)
            return tt_iter_config_fail(cfg, tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                                      "%s: static shape has negative size %lld at dim %d", cfg->name,
                                                      (long long)sizes[d], d));
    cfg->has_static_shape = true;
    cfg->static_ndim = ndim;
    for (int d = 0; d < ndim; d++) cfg->static_shape[d] = sizes[d];
    return TENSOR_OK;
}

tensor_status tensor_iter_config_reduce_dims(tensor_iter_config *cfg, const int *dims, int ndims, bool keepdim) {
    TENSOR_CHECK_NOT_NULL(cfg, "tensor_iter_config_reduce_dims", "cfg");
    if (ndims < 0 || (ndims > 0 && dims == NULL))
        return tt_iter_config_fail(cfg, tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                                  "%s: argument 'dims' is NULL or its count %d is negative", cfg->name,
                                                  ndims));
    if (ndims > TENSOR_MAX_DIMS)
        return tt_iter_config_fail(cfg, tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                                  "%s: %d reduction dims given, a tensor has at most %d", cfg->name,
                                                  ndims, TENSOR_MAX_DIMS));
    cfg->flags |= TENSOR_ITER_REDUCTION;
    cfg->has_reduce_dims = true;
    cfg->reduce_ndims = ndims;
    for (int i = 0; i < ndims; i++) cfg->reduce_dims[i] = dims[i];
    cfg->keepdim = keepdim;
    return TENSOR_OK;
}

tensor_iter_t *tensor_iter_reduce_new(const char *name, tensor_t *out, const tensor_t *in, const int *dims, int ndims,
                                      bool keepdim, tensor_dtype out_dtype) {
    tensor_iter_config *cfg = tensor_iter_config_new(name);
    if (cfg == NULL) return NULL;
    /* Errors of the adds are remembered by cfg and re-raised by build. */
    tensor_iter_config_add_output_dtype(cfg, out, out_dtype);
    if (in == NULL)
        tt_iter_config_fail(cfg, tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'input' is NULL", cfg->name));
    else
        tensor_iter_config_add_input(cfg, in);
    tensor_iter_config_enable(cfg, TENSOR_ITER_PROMOTE_INPUTS);
    tensor_iter_config_reduce_dims(cfg, dims, ndims, keepdim);
    tensor_iter_t *iter = tensor_iter_build(cfg);
    tensor_iter_config_free(cfg);
    return iter;
}
