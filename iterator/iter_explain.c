/* tensor_iter_explain: the plan as text, for people (and for tests that pin a plan). */
#include <stdio.h>

#include "iterator/iter_impl.h"
#include "runtime/error.h"
#include "runtime/text.h"
#include "iterator/iter_internal.h"

static void put_list(tt_text *t, int n, const int64_t *v) {
    tt_text_put(t, "[");
    for (int i = 0; i < n; i++) tt_text_put(t, "%s%lld", i ? ", " : "", (long long)v[i]);
    tt_text_put(t, "]");
}

static void put_operands(tt_text *t, const tensor_iter_t *it) {
    for (int a = 0; a < it->num_operands; a++) {
        const tensor_iter_operand *o = &it->operands[a];
        bool out = a < it->num_outputs;
        tt_text_put(t, "  operand %d: %s %d, %s, tensor shape ", a, out ? "output" : "input",
                    out ? a : a - it->num_outputs, tensor_dtype_name(o->dtype));
        put_list(t, tensor_ndim(o->tensor), tensor_sizes(o->tensor));
        tt_text_put(t, " strides ");
        put_list(t, tensor_ndim(o->tensor), tensor_strides(o->tensor));
        tt_text_put(t, "%s%s; byte strides ", o->is_allocated ? " (allocated)" : "",
                    o->is_read_write ? " (in place)" : "");
        put_list(t, it->ndim, o->strides);
        tt_text_put(t, "\n");
    }
}

static void put_plan(tt_text *t, const tensor_iter_t *it) {
    tt_text_put(t, "  logical shape ");
    put_list(t, it->logical_ndim, it->logical_shape);
    tt_text_put(t, "\n  permutation (computation order, fastest first) [");
    for (int i = 0; i < it->logical_ndim; i++) tt_text_put(t, "%s%d", i ? ", " : "", it->perm[i]);
    tt_text_put(t, "]\n  coalesced:");
    for (int d = 0; d < it->ndim && d < it->logical_ndim; d++) {
        tt_text_put(t, "%s dim %d = logical {", d ? "," : "", d);
        for (int p = it->perm_groups[d]; p < it->perm_groups[d + 1]; p++)
            tt_text_put(t, "%s%d", p > it->perm_groups[d] ? ", " : "", it->perm[p]);
        tt_text_put(t, "}");
    }
    if (it->ndim == 0) tt_text_put(t, " (0-d)");
    tt_text_put(t, "\n  computation shape ");
    put_list(t, it->ndim, it->shape);
    tt_text_put(t, ", numel %lld\n", (long long)tensor_iter_numel(it));
}

static void put_reduction(tt_text *t, const tensor_iter_t *it) {
    int r = tensor_iter_num_reduce_dims(it);
    int64_t outs = tensor_iter_num_output_elements(it), inner = 1;
    for (int d = 0; d < r; d++) inner *= it->shape[d];
    tt_text_put(t, "  reduced dims: %d (computation dims [0, %d)), output elements %lld, inputs per output %lld\n",
                r, r, (long long)outs, (long long)inner);
    int cdim;
    int64_t chunks = tensor_iter_reduce_num_chunks(it, &cdim);
    if (chunks > 1)
        tt_text_put(t, "  cpu reduction: %lld chunks along dim %d, partials combined in chunk order\n",
                    (long long)chunks, cdim);
    else
        tt_text_put(t, "  cpu reduction: 1 chunk (threads split outputs only)\n");
}

static void put_pieces(tt_text *t, const tensor_iter_t *it) {
    if (tensor_iter_can_use_32bit_indexing(it)) {
        tt_text_put(t, "  32-bit indexing: yes (1 piece)\n");
        return;
    }
    tensor_iter_splitter *s = tensor_iter_splitter_new(it, TENSOR_ITER_INDEX32_LIMIT);
    if (s == NULL) {
        tt_text_put(t, "  32-bit indexing: no (pieces unavailable: %s)\n", tensor_last_error());
        return;
    }
    const int shown = 8;
    /* Counting stops here: a huge broadcast view has billions of pieces, and explain must
     * not take longer than the plan it describes takes to make. */
    const int64_t counted = 1024;
    int64_t n = 0;
    const tensor_iter_t *p;
    tt_text_put(t, "  32-bit indexing: no; pieces:\n");
    while (n < counted && tensor_iter_splitter_next(s, &p) == TENSOR_OK && p != NULL) {
        if (n < shown) {
            tt_text_put(t, "    piece %lld: shape ", (long long)n);
            put_list(t, p->ndim, p->shape);
            tt_text_put(t, " view offsets ");
            put_list(t, p->ndim, p->view_offsets);
            tt_text_put(t, " accumulate %s, final_output %s\n", p->accumulate ? "yes" : "no",
                        p->final_output ? "yes" : "no");
        }
        n++;
    }
    if (n == counted && tensor_iter_splitter_next(s, &p) == TENSOR_OK && p != NULL)
        tt_text_put(t, "    ... more than %lld pieces in all\n", (long long)counted);
    else if (n > shown)
        tt_text_put(t, "    ... %lld pieces in all\n", (long long)n);
    tensor_iter_splitter_free(s);
}

int64_t tensor_iter_explain(const tensor_iter_t *iter, char *buf, size_t size) {
    if (iter == NULL) {
        tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_iter_explain: argument 'iter' is NULL");
        return -1;
    }
    if (buf == NULL && size != 0) {
        tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_iter_explain: argument 'buf' is NULL with size %zu", size);
        return -1;
    }
    tt_text t = {buf, size, 0};
    if (buf != NULL && size > 0) buf[0] = '\0';
    char dev[32];
    int nin = iter->num_operands - iter->num_outputs;
    tt_text_put(&t, "%s: %s iterator, %d operands (%d output%s, %d input%s), common dtype %s, device %s\n",
                iter->name, iter->is_reduction ? "reduction" : "elementwise", iter->num_operands, iter->num_outputs,
                iter->num_outputs == 1 ? "" : "s", nin, nin == 1 ? "" : "s",
                iter->common_dtype == TENSOR_NUM_DTYPES ? "undefined" : tensor_dtype_name(iter->common_dtype),
                tensor_device_format(iter->device, dev, sizeof dev));
    put_plan(&t, iter);
    put_operands(&t, iter);
    if (iter->is_reduction) put_reduction(&t, iter);
    bool narrowed = false;
    for (int d = 0; d < iter->ndim; d++) narrowed |= iter->view_offsets[d] != 0 || iter->shape[d] != iter->base_shape[d];
    if (narrowed || iter->accumulate || !iter->final_output) {
        tt_text_put(&t, "  piece of ");
        put_list(&t, iter->ndim, iter->base_shape);
        tt_text_put(&t, ": view offsets ");
        put_list(&t, iter->ndim, iter->view_offsets);
        tt_text_put(&t, ", accumulate %s, final_output %s\n", iter->accumulate ? "yes" : "no",
                    iter->final_output ? "yes" : "no");
    }
    put_pieces(&t, iter);
    return t.len;
}
