// The CUDA reduction entries of the dispatch table (a kernel and an explain per op): each checks
// the iterator, then finds the instance of its (table, input dtype, output dtype) in a lookup
// table built from cuda/reduce_table.h: the typed row of the pair, else the table's
// dynamic-cast row for the input's size and the output's value type, else "not implemented".
// No kernel is instantiated here: the instances live in the units CMake generates.
#include <cmath>
#include <cstring>

#include "cuda/reduce_ops.h"
#include "cuda/reduce_run.cuh"
#include "contract/user_reduction.h"
#include "cuda/jit.h"

namespace tt_reduce {

#define TT_REDUCE_TYPED(T, F, IN, OUT) tensor_status TT_REDUCE_TYPED_NAME(T, F, IN, OUT)(tensor_iter_t *, Act &);
#define TT_REDUCE_DYN(T, F, N) tensor_status TT_REDUCE_DYN_NAME(T, F, N)(tensor_iter_t *, Act &);
#include "cuda/reduce_table.h"
#undef TT_REDUCE_TYPED
#undef TT_REDUCE_DYN

namespace {

enum Table {
#define TT_TABLE_ID(NAME, NOUT, NIN) TABLE_##NAME,
    TT_REDUCE_TABLES(TT_TABLE_ID)
#undef TT_TABLE_ID
#define TT_FUNCTOR_TABLE_ID_(ID, KERNEL, NAME, TORCH, NOUT, RULE, HAS_ID, IDENTITY, ALL, KIND) \
    TENSOR_REDUCTION_IF_FUNCTOR(KIND, TABLE_##KERNEL,)
    TENSOR_BUILTIN_REDUCTIONS(TT_FUNCTOR_TABLE_ID_)
#undef TT_FUNCTOR_TABLE_ID_
    NUM_TABLES
};

struct TableInfo {
    const char *name;
    int nout, nin;
};
constexpr TableInfo table_info[NUM_TABLES] = {
#define TT_TABLE_INFO(NAME, NOUT, NIN) {#NAME, NOUT, NIN},
    TT_REDUCE_TABLES(TT_TABLE_INFO)
#undef TT_TABLE_INFO
#define TT_FUNCTOR_TABLE_INFO_(ID, KERNEL, NAME, TORCH, NOUT, RULE, HAS_ID, IDENTITY, ALL, KIND) \
    TENSOR_REDUCTION_IF_FUNCTOR(KIND, {#KERNEL, 1, 1},)
    TENSOR_BUILTIN_REDUCTIONS(TT_FUNCTOR_TABLE_INFO_)
#undef TT_FUNCTOR_TABLE_INFO_
};

// The dynamic rows' keys: the value type of the family (which output dtypes it serves) and
// the input's element size.
template <typename V> constexpr int value_class() {
    return std::is_same<V, float>::value ? 0 : std::is_same<V, double>::value ? 1 : 2;
}
int output_class(tensor_dtype out) {
    if (out == TENSOR_FLOAT64) return 1;
    return tensor_dtype_is_floating(out) ? 0 : 2;
}
constexpr int size_index(int n) { return n == 1 ? 0 : n == 2 ? 1 : n == 4 ? 2 : 3; }

struct Lookup {
    instance_fn typed[NUM_TABLES][TENSOR_NUM_DTYPES][TENSOR_NUM_DTYPES];
    instance_fn dyn[NUM_TABLES][3][4];
};

// Built once (C++ guarantees one thread initialises a function-local static).
const Lookup &lookup() {
    static const Lookup table = [] {
        Lookup l{};
#define TT_REDUCE_TYPED(T, F, IN, OUT) \
    l.typed[TABLE_##T][dtype_of<IN>::value][dtype_of<OUT>::value] = TT_REDUCE_TYPED_NAME(T, F, IN, OUT);
#define TT_REDUCE_DYN(T, F, N) \
    l.dyn[TABLE_##T][value_class<typename F::val_t>()][size_index(N)] = TT_REDUCE_DYN_NAME(T, F, N);
#include "cuda/reduce_table.h"
#include "iterator/iter_internal.h"
#undef TT_REDUCE_TYPED
#undef TT_REDUCE_DYN
        return l;
    }();
    return table;
}

tensor_status check_iter(const tensor_iter_t *iter, int nout, int nin, const char *func) {
    if (iter == nullptr) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'iter' is NULL", func);
    if (!tensor_iter_is_reduction(iter) || iter->num_outputs != nout || tensor_iter_ninputs(iter) != nin)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: expected a reduction iterator with %d output%s and %d input%s",
                            func, nout, nout == 1 ? "" : "s", nin, nin == 1 ? "" : "s");
    const tensor_dtype in = iter->operands[nout].dtype;
    for (int q = 1; q < nin; q++)
        if (iter->operands[nout + q].dtype != in)
            return tensor_error(TENSOR_ERR_DTYPE, "%s: input %d is %s, input 0 %s: the kernel's inputs share one dtype",
                                func, q, tensor_dtype_name(iter->operands[nout + q].dtype), tensor_dtype_name(in));
    return TENSOR_OK;
}

tensor_status not_instantiated(const tensor_iter_t *iter, const Act &a) {
    return tensor_error(TENSOR_ERR_NOT_IMPLEMENTED, "%s: %s from %s to %s is not implemented for CUDA", a.func, a.op,
                        tensor_dtype_name(iter->operands[iter->num_outputs].dtype),
                        tensor_dtype_name(iter->operands[0].dtype));
}

// SECOND_SAME: a two-output op whose second output has the first's dtype (var_mean's mean);
// else the second output's required dtype (max_dim's int64 indices); unused with one output.
constexpr int SECOND_SAME = -1;

tensor_status dispatch(Table t, int nout, int second, tensor_iter_t *iter, Act &a) {
    tensor_status st = check_iter(iter, nout, table_info[t].nin, a.func);
    if (st != TENSOR_OK) return st;
    if (tensor_iter_numel(iter) == 0) return TENSOR_OK; /* ops/ handles empty reductions */
    const tensor_dtype in = iter->operands[nout].dtype, out = iter->operands[0].dtype;
    if ((unsigned)in >= TENSOR_NUM_DTYPES || (unsigned)out >= TENSOR_NUM_DTYPES) return not_instantiated(iter, a);
    if (nout == 2 && iter->operands[1].dtype != (second == SECOND_SAME ? out : (tensor_dtype)second))
        return not_instantiated(iter, a);
    const Lookup &l = lookup();
    instance_fn fn = l.typed[t][in][out];
    if (fn == nullptr) fn = l.dyn[t][output_class(out)][size_index((int)tensor_dtype_size(in))];
    return fn != nullptr ? fn(iter, a) : not_instantiated(iter, a);
}

// norm: one table per order, picked from p once per call (as the CPU backend); a general p
// reaches the kernel as the plan's op_param (Act::param).
Table norm_table(double p) {
    if (p == 0.0) return TABLE_norm0;
    if (p == 1.0) return TABLE_norm1;
    if (p == 2.0) return TABLE_norm2;
    if (p == INFINITY) return TABLE_norminf;
    if (p == -INFINITY) return TABLE_normninf;
    return TABLE_normp;
}

// The table a fused built-in names (tensor_user_reduce_call.cuda_table), or NUM_TABLES.
Table table_named(const char *name) {
    for (int t = 0; t < NUM_TABLES; t++)
        if (name != nullptr && strcmp(table_info[t].name, name) == 0) return (Table)t;
    return NUM_TABLES;
}

}  // namespace
}  // namespace tt_reduce

using namespace tt_reduce;

// The two extern "C" entries of an op: the kernel (contract/dispatch.h's tensor_kernel_fn) and its
// explain (tensor_kernel_explain_fn), through the same lookup, so explain describes the
// instance the kernel entry launches.
#define TT_CUDA_ENTRIES(NAME, OPNAME, PARAM, TABLE, NOUT, SECOND)                                   \
    extern "C" tensor_status tensor_cuda_##NAME##_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) { \
        Act a = {"tensor_" #NAME " (CUDA)", OPNAME, params, PARAM, false, nullptr, 0, 0};          \
        return dispatch(TABLE, NOUT, SECOND, iter, a);                                            \
    }                                                                                             \
    extern "C" int64_t tensor_cuda_##NAME##_explain(tensor_iter_t *iter, const tensor_kernel_params *params, \
                                                    char *buf, size_t size) {                     \
        const char *func = "tensor_" #NAME " (CUDA)";                                             \
        if (buf == nullptr && size != 0) {                                                        \
            tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'buf' is NULL with size %zu", func, size); \
            return -1;                                                                            \
        }                                                                                         \
        if (buf != nullptr && size > 0) buf[0] = '\0';                                            \
        Act a = {func, OPNAME, params, PARAM, true, buf, size, 0};                                \
        tensor_status st = dispatch(TABLE, NOUT, SECOND, iter, a);                                \
        return st == TENSOR_OK ? a.len : -1;                                                      \
    }

TT_CUDA_ENTRIES(sum, "sum", 0.0, TABLE_sum, 1, 0)
TT_CUDA_ENTRIES(nansum, "nansum", 0.0, TABLE_nansum, 1, 0)
TT_CUDA_ENTRIES(prod, "prod", 0.0, TABLE_prod, 1, 0)
TT_CUDA_ENTRIES(mean, "mean", 0.0, TABLE_mean, 1, 0)
TT_CUDA_ENTRIES(nanmean, "nanmean", 0.0, TABLE_nanmean, 1, 0)
TT_CUDA_ENTRIES(amax, "amax", 0.0, TABLE_amax, 1, 0)
TT_CUDA_ENTRIES(amin, "amin", 0.0, TABLE_amin, 1, 0)
TT_CUDA_ENTRIES(max_dim, "max", 0.0, TABLE_max_dim, 2, TENSOR_INT64)
TT_CUDA_ENTRIES(min_dim, "min", 0.0, TABLE_min_dim, 2, TENSOR_INT64)
TT_CUDA_ENTRIES(aminmax, "aminmax", 0.0, TABLE_aminmax, 2, SECOND_SAME)
TT_CUDA_ENTRIES(argmax, "argmax", 0.0, TABLE_argmax, 1, 0)
TT_CUDA_ENTRIES(argmin, "argmin", 0.0, TABLE_argmin, 1, 0)
TT_CUDA_ENTRIES(count_nonzero, "count_nonzero", 0.0, TABLE_count_nonzero, 1, 0)
TT_CUDA_ENTRIES(all, "all", 0.0, TABLE_all, 1, 0)
TT_CUDA_ENTRIES(any, "any", 0.0, TABLE_any, 1, 0)
TT_CUDA_ENTRIES(logsumexp, "logsumexp", 0.0, TABLE_logsumexp, 1, 0)
TT_CUDA_ENTRIES(norm, "norm", (params ? params->p : 2.0), norm_table(params ? params->p : 2.0), 1, 0)
TT_CUDA_ENTRIES(var_mean, "var_mean", 0.0, TABLE_var_mean, 2, SECOND_SAME)
// The FUNCTOR rows of contract/reductions.h: one output, their own table.
#define TT_FUNCTOR_ENTRIES_(ID, KERNEL, NAME, TORCH, NOUT, RULE, HAS_ID, IDENTITY, ALL, KIND) \
    TENSOR_REDUCTION_IF_FUNCTOR(KIND, TT_CUDA_ENTRIES(KERNEL, NAME, 0.0, TABLE_##KERNEL, 1, 0))
TENSOR_BUILTIN_REDUCTIONS(TT_FUNCTOR_ENTRIES_)
#undef TT_FUNCTOR_ENTRIES_

// TENSOR_OP_USER_REDUCE on CUDA: a built-in map-reduce (vecdot) runs its table's kernel; a
// reduction a user registered runs its functor's source compiled at run time (cuda/jit.h), or,
// with host callbacks only, is not implemented for CUDA.
static tensor_status user_reduce(tensor_iter_t *iter, const tensor_kernel_params *params, Act &a) {
    const tensor_user_reduce_call *call =
        params != nullptr ? static_cast<const tensor_user_reduce_call *>(params->reduction) : nullptr;
    if (call == nullptr) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: no reduction given", a.func);
    a.op = call->name;
    const Table t = table_named(call->cuda_table);
    if (t == NUM_TABLES && call->fns != nullptr && call->fns->source != nullptr) {
        // A user functor with its source: compiled at run time into the same engine.
        int64_t len = 0;
        tensor_status st = tt_cuda_jit_reduce(iter, call, a.explain, a.buf, a.size, &len, a.func);
        if (st == TENSOR_OK && a.explain) a.len += len;
        return st;
    }
    if (t == NUM_TABLES)
        return tensor_error(TENSOR_ERR_NOT_IMPLEMENTED, "%s: the user reduction '%s' is not implemented for CUDA",
                            a.func, call->name);
    return dispatch(t, table_info[t].nout, 0, iter, a);
}

extern "C" tensor_status tensor_cuda_user_reduce_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    Act a = {"tensor_reduce (CUDA)", "reduction", params, 0.0, false, nullptr, 0, 0};
    return user_reduce(iter, params, a);
}

extern "C" int64_t tensor_cuda_user_reduce_explain(tensor_iter_t *iter, const tensor_kernel_params *params, char *buf,
                                                   size_t size) {
    const char *func = "tensor_reduce_explain (CUDA)";
    if (buf == nullptr && size != 0) {
        tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'buf' is NULL with size %zu", func, size);
        return -1;
    }
    if (buf != nullptr && size > 0) buf[0] = '\0';
    Act a = {func, "reduction", params, 0.0, true, buf, size, 0};
    tensor_status st = user_reduce(iter, params, a);
    return st == TENSOR_OK ? a.len : -1;
}
