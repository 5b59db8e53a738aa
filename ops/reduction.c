/* User reductions (ops/reduction.h): the registry of definitions, and tensor_reduce /
 * tensor_reduce_out / tensor_vecdot over it. A call broadcasts the inputs (views), plans the
 * dims as every reduction does (ops/reduce_plan.h), builds one reduction iterator with all the
 * inputs and runs the backend's TENSOR_OP_USER_REDUCE kernel. */
#include <pthread.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/alloc.h"
#include "runtime/avx2_turn.h"
#include "iterator/iter_local.h"
#include "contract/dispatch.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "ops/reduce_internal.h"
#include "ops/reduce_launch.h"
#include "ops/reduce_plan.h"
#include "ops/reduction.h"
#include "contract/user_reduction.h"
#include "ops/reduction_kit.h"
#include "runtime/dtype_convert.h"
#include "runtime/error.h"
#include "runtime/tensor_impl.h"
#include "iterator/iter_internal.h"

#define REDUCTION_MAGIC 0x52454455u /* "REDU" */
#define REDUCTION_NAME_MAX 64

struct tensor_reduction {
    uint32_t magic;
    bool live;
    char name[REDUCTION_NAME_MAX];
    tensor_reduction_def def; /* def.name points to name */
    struct tensor_reduction *next; /* every handle ever made (live or released) */
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tensor_reduction *registry;

/* Released handles are kept so that a later use is caught, not a use-after-free; everything is
 * freed when the library unloads. */
__attribute__((destructor)) static void registry_free(void) {
    pthread_mutex_lock(&registry_lock);
    while (registry != NULL) {
        struct tensor_reduction *r = registry;
        registry = r->next;
        r->magic = 0;
        free(r);
    }
    pthread_mutex_unlock(&registry_lock);
}

static bool fns_complete(const tensor_reduction_fns *f) {
    return f->init != NULL && f->fold != NULL && f->combine != NULL && f->project != NULL;
}

static tensor_status check_def(const tensor_reduction_def *def, const char *func) {
    if (def == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'def' is NULL", func);
    if (def->name == NULL || def->name[0] == '\0')
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'def': name is NULL or empty", func);
    if (strlen(def->name) >= REDUCTION_NAME_MAX)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'def': name is longer than %d characters", func,
                            REDUCTION_NAME_MAX - 1);
    if (def->ninputs < 1 || def->ninputs > TENSOR_REDUCTION_MAX_INPUTS)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'def': ninputs is %d, not in [1, %d] ('%s')",
                            func, def->ninputs, TENSOR_REDUCTION_MAX_INPUTS, def->name);
    if (def->acc_size < 1 || def->acc_size > TENSOR_REDUCTION_MAX_ACC_SIZE)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'def': acc_size is %zu, not in [1, %d] ('%s')",
                            func, def->acc_size, TENSOR_REDUCTION_MAX_ACC_SIZE, def->name);
    if ((unsigned)def->dtype_rule > TENSOR_REDUCTION_DTYPE_FLOAT)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'def': unknown dtype_rule %d ('%s')", func,
                            (int)def->dtype_rule, def->name);
    static const char *const value_names[] = {"F32", "F64", "I64"};
    int complete = 0;
    for (int v = 0; v < TENSOR_REDUCTION_NUM_VALUES; v++) {
        const tensor_reduction_fns *f = &def->fns[v];
        const bool any = f->init != NULL || f->fold != NULL || f->combine != NULL || f->project != NULL;
        if (any && !fns_complete(f))
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                "%s: argument 'def': fns[%s] lacks %s (a value type has all four callbacks or none) ('%s')",
                                func, value_names[v],
                                f->init == NULL ? "init" : f->fold == NULL ? "fold" : f->combine == NULL ? "combine" : "project",
                                def->name);
        complete += any;
    }
    if (complete == 0)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'def': no value type has callbacks ('%s')", func,
                            def->name);
    return TENSOR_OK;
}

static struct tensor_reduction *find_live(const char *name) {
    for (struct tensor_reduction *r = registry; r != NULL; r = r->next)
        if (r->live && strcmp(r->name, name) == 0) return r;
    return NULL;
}

tensor_reduction *tensor_reduction_register(const tensor_reduction_def *def) {
    static const char func[] = "tensor_reduction_register";
    if (check_def(def, func) != TENSOR_OK) return NULL;
    struct tensor_reduction *r = tt_calloc(1, sizeof *r);
    if (r == NULL) return tensor_error_null(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of memory", func);
    r->magic = REDUCTION_MAGIC;
    r->live = true;
    memcpy(r->name, def->name, strlen(def->name) + 1);
    r->def = *def;
    r->def.name = r->name;
    pthread_mutex_lock(&registry_lock);
    if (find_live(def->name) != NULL) {
        pthread_mutex_unlock(&registry_lock);
        free(r);
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: a reduction named '%s' is already registered", func,
                                 def->name);
    }
    r->next = registry;
    registry = r;
    pthread_mutex_unlock(&registry_lock);
    return r;
}

tensor_reduction *tensor_reduction_find(const char *name) {
    static const char func[] = "tensor_reduction_find";
    if (name == NULL) return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'name' is NULL", func);
    pthread_mutex_lock(&registry_lock);
    struct tensor_reduction *r = find_live(name);
    pthread_mutex_unlock(&registry_lock);
    if (r == NULL)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: no reduction named '%s' is registered", func, name);
    return r;
}

/* A usable handle, or the error (naming func and argument 'r'). */
static tensor_status check_handle(const tensor_reduction *r, const char *func) {
    if (r == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'r' is NULL", func);
    if (r->magic != REDUCTION_MAGIC)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'r' is not a reduction handle", func);
    if (!r->live)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'r' ('%s') has been released", func, r->name);
    return TENSOR_OK;
}

tensor_status tensor_reduction_release(tensor_reduction *r) {
    static const char func[] = "tensor_reduction_release";
    pthread_mutex_lock(&registry_lock);
    tensor_status st = check_handle(r, func);
    if (st == TENSOR_OK) r->live = false;
    pthread_mutex_unlock(&registry_lock);
    return st;
}

const char *tensor_reduction_name(const tensor_reduction *r) {
    if (r == NULL || r->magic != REDUCTION_MAGIC || !r->live) return NULL;
    return r->name;
}

/* ---- running one ---- */

static bool is_float(tensor_dtype d) { return tensor_dtype_is_floating(d); }

static tensor_dtype rule_dtype(tensor_reduction_dtype_rule rule, tensor_dtype promoted) {
    switch (rule) {
    case TENSOR_REDUCTION_DTYPE_SUM: return tensor_reduce_sum_dtype(promoted, TENSOR_DTYPE_DEFAULT);
    case TENSOR_REDUCTION_DTYPE_FLOAT: /* float8 -> float32 as sum's; integers -> float32 */
        return is_float(promoted) ? tensor_reduce_sum_dtype(promoted, TENSOR_DTYPE_DEFAULT) : TENSOR_FLOAT32;
    default: return promoted;
    }
}

static tensor_reduction_value value_of(tensor_dtype d) {
    if (d == TENSOR_FLOAT64) return TENSOR_REDUCTION_F64;
    return is_float(d) ? TENSOR_REDUCTION_F32 : TENSOR_REDUCTION_I64;
}

/* The core of tensor_reduce / tensor_reduce_out / tensor_vecdot: def already valid; *out is
 * NULL (a new result) or the caller's tensor (borrowed). On success *out holds the result (a
 * new reference when it was NULL). */
/* Explain mode (reduce_core's `ex` non-NULL): nothing runs; the text of what would run goes to
 * ex (snprintf contract over len) and no result is kept. */
typedef struct explain_out {
    char *buf;
    size_t size;
    int64_t len;
} explain_out;

/* What a built-in run through the user-reduction path has beyond its callbacks: the fields of
 * tensor_user_reduce_call of the same names (contract/user_reduction.h says what each allows),
 * `rows` one fold_rows per value type. A user reduction has none (NULL). */
typedef struct builtin_paths {
    const char *cuda_table;
    bool int_stored;
    const tensor_user_fold_rows_fn *rows;
    bool plain_ends;
} builtin_paths;

static tensor_status reduce_core(const tensor_reduction_def *def, const builtin_paths *bi,
                                 const tensor_t *const *inputs, int ninputs, const int *dims, int ndims, bool keepdim,
                                 tensor_dtype dtype, tensor_t **out, const char *func, explain_out *ex) {
    static const builtin_paths none = {NULL, false, NULL, false};
    if (bi == NULL) bi = &none;
    if (inputs == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'inputs' is NULL", func);
    if (ninputs != def->ninputs)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'ninputs' is %d, but '%s' takes %d input%s", func,
                            ninputs, def->name, def->ninputs, def->ninputs == 1 ? "" : "s");
    for (int k = 0; k < ninputs; k++)
        if (inputs[k] == NULL)
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'inputs[%d]' is NULL", func, k);
    if (dtype != TENSOR_DTYPE_DEFAULT && (unsigned)dtype >= TENSOR_NUM_DTYPES)
        return tensor_error(TENSOR_ERR_DTYPE, "%s: argument 'dtype' is not a dtype (%d)", func, (int)dtype);
    const tensor_device dev = inputs[0]->storage->device;
    for (int k = 1; k < ninputs; k++)
        if (!tensor_device_equal(inputs[k]->storage->device, dev))
            return tensor_error(TENSOR_ERR_DEVICE, "%s: argument 'inputs[%d]' is on another device than inputs[0]", func,
                                k);
    tensor_result_type_operand ops[TENSOR_REDUCTION_MAX_INPUTS];
    for (int k = 0; k < ninputs; k++) {
        ops[k].dtype = inputs[k]->dtype;
        ops[k].kind = inputs[k]->ndim == 0 ? TENSOR_OPERAND_ZERO_DIM : TENSOR_OPERAND_DIMENSIONED;
    }
    tensor_dtype promoted;
    if (tensor_result_type(ops, ninputs, &promoted) != TENSOR_OK)
        return tensor_error(TENSOR_ERR_DTYPE, "%s: the inputs' dtypes do not promote: %s", func, tensor_last_error());
    tensor_dtype odt = dtype != TENSOR_DTYPE_DEFAULT ? dtype : *out != NULL ? (*out)->dtype : rule_dtype(def->dtype_rule, promoted);
    const tensor_reduction_value value = value_of(odt);
    if (def->fns[value].fold == NULL) {
        static const char *const names[] = {"float", "double", "int64"};
        return tensor_error(TENSOR_ERR_DTYPE, "%s: '%s' has no %s form, which a %s result needs", func, def->name,
                            names[value], tensor_dtype_name(odt));
    }
    if (*out != NULL) {
        if ((*out)->dtype != odt)
            return tensor_error(TENSOR_ERR_DTYPE, "%s: argument 'out' has dtype %s, expected %s", func,
                                tensor_dtype_name((*out)->dtype), tensor_dtype_name(odt));
        if (!tensor_device_equal((*out)->storage->device, dev))
            return tensor_error(TENSOR_ERR_DEVICE, "%s: argument 'out' is on another device than the inputs", func);
    }
    const bool on_cuda = dev.type == TENSOR_DEVICE_CUDA && (bi->cuda_table != NULL || def->fns[value].source != NULL);
    if (dev.type != TENSOR_DEVICE_CPU && !on_cuda)
        return tensor_error(TENSOR_ERR_NOT_IMPLEMENTED, "%s: the user reduction '%s' is not implemented for %s", func,
                            def->name, dev.type == TENSOR_DEVICE_CUDA ? "CUDA" : "this device");

    /* Broadcast views of the inputs. */
    int nd = 0;
    int64_t shape[TENSOR_MAX_DIMS];
    tensor_status st = TENSOR_OK;
    for (int k = 0; k < ninputs && st == TENSOR_OK; k++)
        st = tt_iter_broadcast_into(&nd, shape, inputs[k]->ndim, inputs[k]->sizes, func, "input", k);
    if (st != TENSOR_OK) return st;
    tensor_t *exp[TENSOR_REDUCTION_MAX_INPUTS] = {NULL};
    tensor_t *result = NULL, *view = NULL;
    for (int k = 0; k < ninputs && st == TENSOR_OK; k++) {
        /* CUDA kernels read inputs of one dtype: others are converted to the promoted dtype
         * first (a copy; the CPU converts while loading). */
        tensor_t *conv = NULL;
        if (dev.type == TENSOR_DEVICE_CUDA && ninputs > 1 && inputs[k]->dtype != promoted) {
            conv = tensor_to_dtype(inputs[k], promoted);
            if (conv == NULL) st = tensor_last_status();
        }
        const tensor_t *src = conv != NULL ? conv : inputs[k];
        bool same = src->ndim == nd;
        for (int d = 0; same && d < nd; d++) same = src->sizes[d] == shape[d];
        /* an input of the broadcast shape is used as it is (no view to make and free) */
        if (st == TENSOR_OK) exp[k] = same ? tensor_retain((tensor_t *)src) : tensor_expand(src, nd, shape);
        tensor_release(conv);
        if (st == TENSOR_OK && exp[k] == NULL) st = tensor_last_status();
    }
    tensor_reduce_plan plan;
    if (st == TENSOR_OK) st = tensor_reduce_plan_make(exp[0], dims, ndims, keepdim, true, &plan, func);
    if (st == TENSOR_OK && !def->empty_ok && plan.first_empty_reduced_dim >= 0)
        st = tensor_error(TENSOR_ERR_INDEX, "%s: '%s' Expected reduction dim %d to have non-zero size.", func,
                          def->name, plan.first_empty_reduced_dim);
    if (st == TENSOR_OK) {
        if (*out != NULL) {
            bool same = (*out)->ndim == plan.out_ndim;
            for (int d = 0; same && d < plan.out_ndim; d++) same = (*out)->sizes[d] == plan.out_sizes[d];
            for (int k = 0; !same && k < ninputs && st == TENSOR_OK; k++)
                if ((*out)->storage == inputs[k]->storage)
                    st = tensor_error(TENSOR_ERR_SHAPE, "%s: argument 'out' has the wrong shape for this reduction and "
                                      "shares memory with input %d: it cannot be resized", func, k);
            if (!same && st == TENSOR_OK)
                st = tensor_resize_output(*out, plan.out_ndim, plan.out_sizes, func, NULL);
            result = *out;
        } else {
            result = tensor_empty(plan.out_ndim, plan.out_sizes, odt, dev);
            if (result == NULL) st = tensor_last_status();
        }
    }
    if (st == TENSOR_OK && plan.out_numel > 0) {
        view = tensor_reduce_keepdim_view(result, &plan, func);
        if (view == NULL) st = tensor_last_status();
    }
    if (st == TENSOR_OK && plan.out_numel > 0) {
        tensor_kernel_fn kernel = tensor_dispatch_get(TENSOR_OP_USER_REDUCE, dev.type, func);
        if (kernel == NULL) st = tensor_last_status();
        tensor_iter_config cfg;
        tensor_iter_t iter;
        if (st == TENSOR_OK) {
            tt_iter_config_init(&cfg, func);
            /* Inputs keep their dtypes: the kernel converts each while loading, to the result's
             * value type. The promotion is decided above, on the inputs as given; the iterator
             * sees them expanded to the broadcast shape, where a 0-d input is no longer weak (a
             * 0-d float8 beside float32 rows would become an error PyTorch does not raise), so
             * it takes several dtypes without promoting them again (its common dtype stays
             * undefined). */
            tensor_iter_config_enable(&cfg, TENSOR_ITER_REDUCTION);
            tensor_iter_config_disable(&cfg, TENSOR_ITER_SAME_DTYPE);
            tensor_iter_config_add_output_dtype(&cfg, view, odt);
            for (int k = 0; k < ninputs; k++) tensor_iter_config_add_input(&cfg, exp[k]);
            st = tt_iter_build_into(&cfg, &iter);
            tt_iter_config_clear(&cfg);
        }
        if (st == TENSOR_OK) {
            tensor_user_reduce_call call = {def->name, &def->fns[value], value, def->acc_size, def->user,
                                            plan.reduced_numel, bi->cuda_table, bi->int_stored,
                                            bi->rows != NULL ? bi->rows[value] : NULL, bi->plain_ends};
            tensor_kernel_params params = {0};
            params.reduction = &call;
            if (ex == NULL) {
                st = kernel(&iter, &params);
            } else {
                /* The iterator's plan, then the backend's account of its kernel (the CUDA launch
                 * configuration; the CPU prints none). */
                const int64_t n =
                    tensor_explain_iter_kernel(&iter, TENSOR_OP_USER_REDUCE, dev.type, &params, ex->buf, ex->size);
                if (n < 0) st = tensor_last_status();
                else ex->len = n;
            }
            tt_iter_clear(&iter);
        }
    }
    tensor_release(view);
    for (int k = 0; k < ninputs; k++) tensor_release(exp[k]);
    if (st != TENSOR_OK || ex != NULL) {
        if (*out == NULL) tensor_release(result);
        return st;
    }
    *out = result;
    return TENSOR_OK;
}

tensor_t *tensor_reduce(const tensor_reduction *r, const tensor_t *const *inputs, int ninputs, const int *dims,
                        int ndims, bool keepdim, tensor_dtype dtype) {
    static const char func[] = "tensor_reduce";
    if (check_handle(r, func) != TENSOR_OK) return NULL;
    tensor_t *out = NULL;
    if (reduce_core(&r->def, NULL, inputs, ninputs, dims, ndims, keepdim, dtype, &out, func, NULL) != TENSOR_OK) return NULL;
    return out;
}

tensor_status tensor_reduce_out(tensor_t *out, const tensor_reduction *r, const tensor_t *const *inputs, int ninputs,
                                const int *dims, int ndims, bool keepdim) {
    static const char func[] = "tensor_reduce_out";
    if (check_handle(r, func) != TENSOR_OK) return tensor_last_status();
    if (out == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'out' is NULL", func);
    return reduce_core(&r->def, NULL, inputs, ninputs, dims, ndims, keepdim, TENSOR_DTYPE_DEFAULT, &out, func, NULL);
}

int64_t tensor_reduction_explain(const tensor_reduction *r, const tensor_t *const *inputs, int ninputs,
                                 const int *dims, int ndims, bool keepdim, tensor_dtype dtype, char *buf,
                                 size_t size) {
    static const char func[] = "tensor_reduction_explain";
    if (buf == NULL && size != 0) {
        tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'buf' is NULL with size %zu", func, size);
        return -1;
    }
    if (buf != NULL && size > 0) buf[0] = '\0';
    if (check_handle(r, func) != TENSOR_OK) return -1;
    tensor_t *out = NULL;
    explain_out ex = {buf, size, 0};
    if (reduce_core(&r->def, NULL, inputs, ninputs, dims, ndims, keepdim, dtype, &out, func, &ex) != TENSOR_OK)
        return -1;
    return ex.len;
}

/* ---- vecdot: sum(a * b), the product rounded as PyTorch's eager a * b would be (to the
 * inputs' dtype: a float16 product rounds to float16, an int32 product wraps to 32 bits) ---- */

static float vd_id_f32(void) { return 0.0f; }
static double vd_id_f64(void) { return 0.0; }
static int64_t vd_id_i64(void) { return 0; }
static float vd_map_f32(const float *x) { return x[0] * x[1]; }
static double vd_map_f64(const double *x) { return x[0] * x[1]; }
static int64_t vd_map_i64(const int64_t *x) { return (int64_t)((uint64_t)x[0] * (uint64_t)x[1]); }
static float vd_add_f32(float a, float b) { return a + b; }
static double vd_add_f64(double a, double b) { return a + b; }
static int64_t vd_add_i64(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static float vd_proj_f32(float a, int64_t n) { return (void)n, a; }
static double vd_proj_f64(double a, int64_t n) { return (void)n, a; }
static int64_t vd_proj_i64(int64_t a, int64_t n) { return (void)n, a; }
TENSOR_REDUCTION_FNS(vd_f64, 2, double, double, vd_id_f64, vd_map_f64, vd_add_f64, vd_add_f64, vd_proj_f64)
TENSOR_REDUCTION_FNS(vd_f32, 2, float, float, vd_id_f32, vd_map_f32, vd_add_f32, vd_add_f32, vd_proj_f32)
TENSOR_REDUCTION_FNS(vd_i64, 2, int64_t, int64_t, vd_id_i64, vd_map_i64, vd_add_i64, vd_add_i64, vd_proj_i64)

/* float32 vecdot over one block of the kit (64 <= n elements, all within one multiple of
 * TENSOR_REDUCTION_BLOCK of the reduced index): the kit's arithmetic for it, written with AVX2.
 * Element i goes to lane i % 32 (four vectors of 8 lanes), product then sum (no FMA, as the
 * kit's), the tail joins the first lanes (a masked add leaves the others as they are), then the
 * kit's tree, (0 1) (2 3) ... and pairs of those, by horizontal adds (the same pairs), and the
 * tree joins s. The kit's loop ran rows of about a hundred elements at half numpy's speed:
 * its lanes lived on the stack and its tail and tree ran a lane at a time (docs/perf_log.md). */
#if TENSOR_KIT_AVX2_COPY_
/* pf: NULL, or a (or b) when the other input is a row broadcast against it: that one input is
 * prefetched VD_PREFETCH_BYTES ahead (vd_rows_f32_avx2 says when). Inlined with a constant
 * NULL, the plain block has no test in its loop. */
#define VD_PREFETCH_BYTES 2048
TENSOR_KIT_AVX2_ATTR_ static inline float vd_block_pf_f32_avx2(float s, const float *a, const float *b, int64_t n,
                                                              const float *pf) {
    __m256 l[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        if (pf != NULL) {
            _mm_prefetch((const char *)(pf + i) + VD_PREFETCH_BYTES, _MM_HINT_T0);
            _mm_prefetch((const char *)(pf + i) + VD_PREFETCH_BYTES + 64, _MM_HINT_T0);
        }
        for (int k = 0; k < 4; k++)
            l[k] = _mm256_add_ps(l[k], _mm256_mul_ps(_mm256_loadu_ps(a + i + 8 * k), _mm256_loadu_ps(b + i + 8 * k)));
    }
    const int64_t t = n - i; /* 0 .. 31 tail elements, into lanes 0 .. t - 1 */
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (int k = 0; k < 4 && 8 * k < t; k++) {
        const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(t - 8 * k)), lane);
        const __m256 p = _mm256_mul_ps(_mm256_maskload_ps(a + i + 8 * k, m), _mm256_maskload_ps(b + i + 8 * k, m));
        l[k] = _mm256_blendv_ps(l[k], _mm256_add_ps(l[k], p), _mm256_castsi256_ps(m));
    }
    /* lanes 0-7 | 8-15 -> pairs t0 t1 t4 t5 | t2 t3 t6 t7 (t_j = lane 2j + lane 2j+1), and so on */
    const __m256 h0 = _mm256_hadd_ps(l[0], l[1]), h1 = _mm256_hadd_ps(l[2], l[3]);
    const __m256 g = _mm256_hadd_ps(h0, h1); /* sums of 4 lanes: 0 2 4 6 | 1 3 5 7 (in fours) */
    const __m128 u = _mm_add_ps(_mm256_castps256_ps128(g), _mm256_extractf128_ps(g, 1)); /* of 8 lanes */
    const __m128 v = _mm_hadd_ps(u, u); /* lanes 0-15, 16-31 */
    return s + (_mm_cvtss_f32(v) + _mm_cvtss_f32(_mm_shuffle_ps(v, v, 1)));
}
TENSOR_KIT_AVX2_ATTR_ static inline float vd_block_f32_avx2(float s, const float *a, const float *b, int64_t n) {
    return vd_block_pf_f32_avx2(s, a, b, n, NULL);
}
static bool vd_have_avx2(void) { return TENSOR_KIT_HAS_AVX2_(); }
#else
#define vd_block_f32_avx2(s, a, b, n) (s)
#define vd_have_avx2() false
#endif
/* NAME: KIT's fold (the float32 or float64 vecdot) where the CPU has AVX2 (chosen once, when
 * vecdot is planned): the run cut into blocks where the kit cuts it (multiples of
 * TENSOR_REDUCTION_BLOCK of the reduced index), each block of 64 elements or more through BLOCK
 * and folded into the accumulator in block order, as the kit folds its blocks (the same bits);
 * shorter pieces through the kit's own fold (in order). Compiled for AVX2 itself, so that the
 * block is inlined: a row of a hundred elements is a call, not three. Rows of several blocks
 * went through the kit's loop, whose lanes the compiler keeps on the stack: float32 rows of
 * 4000-8192 elements ran at 0.82-0.93x numpy's np.vecdot (docs/perf_log.md). */
#define VD_FOLD_AVX2(NAME, T, BLOCK, KIT)                                                                       \
    TENSOR_KIT_AVX2_ATTR_ static inline T NAME##_run(T s, const T *a, const T *b, int64_t n, int64_t first,       \
                                                    const T *pf) {                                                \
        int64_t i = 0, m = TENSOR_REDUCTION_BLOCK - first % TENSOR_REDUCTION_BLOCK;                              \
        while (i < n) {                                                                                          \
            if (m > n - i) m = n - i;                                                                            \
            if (m >= 2 * TENSOR_REDUCTION_KIT_LANES) {                                                           \
                s = BLOCK(s, a + i, b + i, m, pf != NULL ? pf + i : NULL);                                       \
            } else {                                                                                             \
                const void *piece[2] = {a + i, b + i};                                                           \
                KIT.fold(&s, piece, m, first + i, NULL);                                                         \
            }                                                                                                    \
            i += m;                                                                                              \
            m = TENSOR_REDUCTION_BLOCK;                                                                          \
        }                                                                                                        \
        return s;                                                                                                \
    }                                                                                                            \
    TENSOR_KIT_AVX2_ATTR_ static void NAME(void *acc, const void *const *vals, int64_t n, int64_t first,           \
                                           const void *user) {                                                   \
        (void)user;                                                                                              \
        T s;                                                                                                     \
        memcpy(&s, acc, sizeof s);                                                                               \
        s = NAME##_run(s, vals[0], vals[1], n, first, NULL);                                                     \
        memcpy(acc, &s, sizeof s);                                                                               \
    }
#if TENSOR_KIT_AVX2_COPY_
VD_FOLD_AVX2(vd_fold_f32_avx2, float, vd_block_pf_f32_avx2, vd_f32)

/* Rows of 64 elements or more that lie in one block of the kit (every row from reduced index
 * `first`), row r of input k at vals[k] + r * row_strides[k] (T values): each through BLOCK, the
 * fold's own AVX2 block, one after another in one call (not the driver's fold call a row);
 * `return 0` (the caller folds them) for rows past a block. The test is made once for all. */
#define VD_BLOCK_ROWS(T, BLOCK)                                                                                \
    do {                                                                                                       \
        if (first % TENSOR_REDUCTION_BLOCK + n > TENSOR_REDUCTION_BLOCK) return 0;                             \
        for (int64_t r_ = 0; r_ < nrows; r_++) {                                                               \
            T s_;                                                                                              \
            memcpy(&s_, acc + (size_t)r_ * acc_stride, sizeof s_);                                             \
            s_ = BLOCK(s_, (const T *)((const char *)vals[0] + r_ * row_strides[0]),                           \
                       (const T *)((const char *)vals[1] + r_ * row_strides[1]), n);                           \
            memcpy(acc + (size_t)r_ * acc_stride, &s_, sizeof s_);                                             \
        }                                                                                                      \
        return nrows;                                                                                          \
    } while (0)

/* float32 rows of more than two blocks beside a row broadcast against them (one input's row
 * stride 0): each row through vd_fold_f32_avx2's blocks, the other input (the one streamed from
 * memory) prefetched VD_PREFETCH_BYTES ahead. Such a row is more than 16 KiB of the broadcast
 * one, which the stream pushes out of a 32 KiB L1 before the next row reads it again;
 * [1000, 8191] x [8191] ran at 0.83x numpy's np.vecdot without the prefetch. With both inputs
 * streamed the prefetch made rows slower, and rows of 2000 gained nothing (docs/perf_log.md). */
TENSOR_KIT_AVX2_ATTR_ static int64_t vd_bcast_rows_f32_avx2(char *acc, size_t acc_stride, int64_t nrows,
                                                            const void *const *vals, const int64_t *row_strides,
                                                            int64_t n, int64_t first) {
    for (int64_t r = 0; r < nrows; r++) {
        const float *a = (const float *)((const char *)vals[0] + r * row_strides[0]);
        const float *b = (const float *)((const char *)vals[1] + r * row_strides[1]);
        float s;
        memcpy(&s, acc + (size_t)r * acc_stride, sizeof s);
        s = vd_fold_f32_avx2_run(s, a, b, n, first, row_strides[0] != 0 ? a : b);
        memcpy(acc + (size_t)r * acc_stride, &s, sizeof s);
    }
    return nrows;
}

/* Eight accumulators (floats at acc + r * stride) in and out of a vector. */
TENSOR_KIT_AVX2_ATTR_ static inline __m256 vd_rows_load(const char *acc, size_t stride) {
    float s8[8];
    for (int r = 0; r < 8; r++) memcpy(&s8[r], acc + (size_t)r * stride, sizeof(float));
    return _mm256_setr_ps(s8[0], s8[1], s8[2], s8[3], s8[4], s8[5], s8[6], s8[7]);
}
TENSOR_KIT_AVX2_ATTR_ static inline void vd_rows_store(char *acc, size_t stride, __m256 s) {
    float s8[8];
    _mm256_storeu_ps(s8, s);
    for (int r = 0; r < 8; r++) memcpy(acc + (size_t)r * stride, &s8[r], sizeof(float));
}
/* vecdot's float32 fold_rows. Short rows (n < 2 * TENSOR_REDUCTION_KIT_LANES: the kit folds such
 * a run in order, acc + a0 * b0, then + a1 * b1, ...) eight at a time: their products computed
 * along the rows, eight elements at a time, turned 8 x 8 in registers so that lane r holds row
 * r's product, and added in order, one vector add for eight rows' additions: the same
 * operations in the same order for every row, so the same bits as fold. Folding each row alone
 * is one chain of dependent additions a row; the generic path for rows of up to 32 moved both
 * inputs through a transposing buffer first (docs/perf_log.md). Returns the rows done (whole
 * groups of eight). Longer rows: beside a broadcast row past two blocks vd_bcast_rows_f32_avx2,
 * else of one block VD_BLOCK_ROWS. */
TENSOR_KIT_AVX2_ATTR_ static int64_t vd_rows_f32_avx2(char *acc, size_t acc_stride, int64_t nrows,
                                                      const void *const *vals, const int64_t *row_strides, int64_t n,
                                                      int64_t first) {
    const char *a = vals[0], *b = vals[1];
    const int64_t sa = row_strides[0], sb = row_strides[1];
    if (n > 2 * TENSOR_REDUCTION_BLOCK && (sa == 0) != (sb == 0))
        return vd_bcast_rows_f32_avx2(acc, acc_stride, nrows, vals, row_strides, n, first);
    if (n >= 2 * TENSOR_REDUCTION_KIT_LANES) VD_BLOCK_ROWS(float, vd_block_f32_avx2);
    const __m256i mk = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(n % 8)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    alignas(32) float p[8][2 * TENSOR_REDUCTION_KIT_LANES];
    /* Rows of up to 32 elements: each block of eight products goes from the loads through
     * registers to the additions. Longer rows: the eight rows' products are first written to p
     * row after row, so that the rows (one after another in memory) are read in order rather
     * than a piece of each row in turn: faster from DRAM for rows of 48 and 63, slower for rows
     * of 32 and for every length in cache (docs/perf_log.md). */
    const bool staged = n > 32;
    int64_t r0 = 0;
    for (; r0 + 8 <= nrows; r0 += 8) {
        const char *ag = a + r0 * sa, *bg = b + r0 * sb;
        for (int r = 0; r < 8 && staged; r++) {
            const float *ar = (const float *)(ag + r * sa), *br = (const float *)(bg + r * sb);
            int64_t k0 = 0;
            for (; k0 + 8 <= n; k0 += 8)
                _mm256_store_ps(&p[r][k0], _mm256_mul_ps(_mm256_loadu_ps(ar + k0), _mm256_loadu_ps(br + k0)));
            if (k0 < n)
                _mm256_store_ps(&p[r][k0],
                                _mm256_mul_ps(_mm256_maskload_ps(ar + k0, mk), _mm256_maskload_ps(br + k0, mk)));
        }
        __m256 s = vd_rows_load(acc + (size_t)r0 * acc_stride, acc_stride);
        for (int64_t k0 = 0; k0 < n; k0 += 8) {
            const int64_t m = n - k0 < 8 ? n - k0 : 8;
            __m256 q[8], t[8];
            for (int r = 0; r < 8; r++) {
                if (staged) {
                    q[r] = _mm256_load_ps(&p[r][k0]);
                } else {
                    const float *ar = (const float *)(ag + r * sa) + k0, *br = (const float *)(bg + r * sb) + k0;
                    q[r] = m == 8 ? _mm256_mul_ps(_mm256_loadu_ps(ar), _mm256_loadu_ps(br))
                                  : _mm256_mul_ps(_mm256_maskload_ps(ar, mk), _mm256_maskload_ps(br, mk));
                }
            }
            tt_avx2_turn8(t, q);
            for (int64_t i = 0; i < m; i++) s = _mm256_add_ps(s, t[i]);
        }
        vd_rows_store(acc + (size_t)r0 * acc_stride, acc_stride, s);
    }
    return r0;
}
/* float64 vecdot over one block of the kit (64 <= n elements, within one multiple of
 * TENSOR_REDUCTION_BLOCK): vd_block_f32_avx2's scheme for doubles. Lane q (element i % 32) is
 * lane q % 4 of l[q / 4]; the tail joins the first lanes; the kit's tree: hadd pairs lanes
 * (2j, 2j + 1) of two vectors (results in the order 0 2 1 3), the halves' sums pair those, and
 * two more hadds finish it. */
TENSOR_KIT_AVX2_ATTR_ static inline double vd_block_f64_avx2(double s, const double *a, const double *b, int64_t n) {
    __m256d l[8];
    for (int k = 0; k < 8; k++) l[k] = _mm256_setzero_pd();
    int64_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 8; k++)
            l[k] = _mm256_add_pd(l[k], _mm256_mul_pd(_mm256_loadu_pd(a + i + 4 * k), _mm256_loadu_pd(b + i + 4 * k)));
    const int64_t t = n - i; /* 0 .. 31 tail elements, into lanes 0 .. t - 1 */
    const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
    for (int k = 0; k < 8 && 4 * k < t; k++) {
        const __m256i m = _mm256_cmpgt_epi64(_mm256_set1_epi64x(t - 4 * k), lane);
        const __m256d p = _mm256_mul_pd(_mm256_maskload_pd(a + i + 4 * k, m), _mm256_maskload_pd(b + i + 4 * k, m));
        l[k] = _mm256_blendv_pd(l[k], _mm256_add_pd(l[k], p), _mm256_castsi256_pd(m));
    }
    __m128d p8[4]; /* t8 pairs: (t8_{2c}, t8_{2c+1}) */
    for (int c = 0; c < 4; c++) {
        const __m256d h = _mm256_hadd_pd(l[2 * c], l[2 * c + 1]); /* t16: 4c, 4c + 2, 4c + 1, 4c + 3 */
        p8[c] = _mm_add_pd(_mm256_castpd256_pd128(h), _mm256_extractf128_pd(h, 1));
    }
    const __m128d q = _mm_hadd_pd(_mm_hadd_pd(p8[0], p8[1]), _mm_hadd_pd(p8[2], p8[3]));
    return s + _mm_cvtsd_f64(_mm_hadd_pd(q, q));
}
#define vd_block_pf_f64_avx2(s, a, b, n, pf) ((void)(pf), vd_block_f64_avx2(s, a, b, n))
VD_FOLD_AVX2(vd_fold_f64_avx2, double, vd_block_pf_f64_avx2, vd_f64)
/* The same for float64 rows under 64 elements: four rows a vector, their products turned 4 x 4;
 * longer rows of one block through VD_BLOCK_ROWS. */
TENSOR_KIT_AVX2_ATTR_ static int64_t vd_rows_f64_avx2(char *acc, size_t acc_stride, int64_t nrows,
                                                      const void *const *vals, const int64_t *row_strides, int64_t n,
                                                      int64_t first) {
    const char *a = vals[0], *b = vals[1];
    const int64_t sa = row_strides[0], sb = row_strides[1];
    if (n >= 2 * TENSOR_REDUCTION_KIT_LANES) VD_BLOCK_ROWS(double, vd_block_f64_avx2);
    const __m256i mk = _mm256_cmpgt_epi64(_mm256_set1_epi64x(n % 4), _mm256_setr_epi64x(0, 1, 2, 3));
    int64_t r0 = 0;
    for (; r0 + 4 <= nrows; r0 += 4) {
        double s4[4];
        for (int r = 0; r < 4; r++) memcpy(&s4[r], acc + (size_t)(r0 + r) * acc_stride, sizeof(double));
        __m256d s = _mm256_setr_pd(s4[0], s4[1], s4[2], s4[3]);
        for (int64_t k0 = 0; k0 < n; k0 += 4) {
            const int64_t m = n - k0 < 4 ? n - k0 : 4;
            __m256d q[4];
            for (int r = 0; r < 4; r++) {
                const double *ar = (const double *)(a + (r0 + r) * sa) + k0, *br = (const double *)(b + (r0 + r) * sb) + k0;
                q[r] = m == 4 ? _mm256_mul_pd(_mm256_loadu_pd(ar), _mm256_loadu_pd(br))
                              : _mm256_mul_pd(_mm256_maskload_pd(ar, mk), _mm256_maskload_pd(br, mk));
            }
            /* 4 x 4 transpose: t[i] lane r = q[r] lane i */
            const __m256d u0 = _mm256_unpacklo_pd(q[0], q[1]), u1 = _mm256_unpackhi_pd(q[0], q[1]);
            const __m256d u2 = _mm256_unpacklo_pd(q[2], q[3]), u3 = _mm256_unpackhi_pd(q[2], q[3]);
            const __m256d t[4] = {_mm256_permute2f128_pd(u0, u2, 0x20), _mm256_permute2f128_pd(u1, u3, 0x20),
                                  _mm256_permute2f128_pd(u0, u2, 0x31), _mm256_permute2f128_pd(u1, u3, 0x31)};
            for (int64_t i = 0; i < m; i++) s = _mm256_add_pd(s, t[i]);
        }
        _mm256_storeu_pd(s4, s);
        for (int r = 0; r < 4; r++) memcpy(acc + (size_t)(r0 + r) * acc_stride, &s4[r], sizeof(double));
    }
    return r0;
}
#else
#define vd_fold_f32_avx2 vd_f32.fold
#define vd_fold_f64_avx2 vd_f64.fold
#endif

/* int64 rows of any length: products and sums wrap, so any order gives fold's bits; four
 * running sums a row instead of fold's call (and its chain) per row. */
static int64_t vd_rows_i64(char *acc, size_t acc_stride, int64_t nrows, const void *const *vals,
                           const int64_t *row_strides, int64_t n, int64_t first) {
    (void)first;
    const char *a = vals[0], *b = vals[1];
    for (int64_t r = 0; r < nrows; r++) {
        const int64_t *ar = (const int64_t *)(a + r * row_strides[0]), *br = (const int64_t *)(b + r * row_strides[1]);
        uint64_t s[4] = {0, 0, 0, 0};
        int64_t i = 0;
        for (; i + 4 <= n; i += 4)
            for (int k = 0; k < 4; k++) s[k] += (uint64_t)ar[i + k] * (uint64_t)br[i + k];
        for (; i < n; i++) s[0] += (uint64_t)ar[i] * (uint64_t)br[i];
        int64_t v;
        memcpy(&v, acc + (size_t)r * acc_stride, sizeof v);
        v = (int64_t)((uint64_t)v + (s[0] + s[1]) + (s[2] + s[3]));
        memcpy(acc + (size_t)r * acc_stride, &v, sizeof v);
    }
    return nrows;
}

/* The rounded-product forms: the product goes through the inputs' dtype first. */
static float round_to(tensor_dtype d, float v) {
    char b[8];
    tensor_dtype_store_double(d, b, (double)v);
    return (float)tensor_dtype_load_double(d, b);
}
static int64_t wrap_to(tensor_dtype d, int64_t v) {
    switch (d) {
    case TENSOR_INT32: return (int32_t)(uint32_t)(uint64_t)v;
    case TENSOR_INT16: return (int16_t)(uint16_t)(uint64_t)v;
    case TENSOR_INT8: return (int8_t)(uint8_t)(uint64_t)v;
    case TENSOR_UINT8: return (uint8_t)(uint64_t)v;
    case TENSOR_BOOL: return v != 0;
    default: return v;
    }
}
/* Outputs of the rounded forms' fold_columns kept in a local block while the rows stream by. */
#define VDR_COLS 64
/* The same for products of integers stored narrower than int64 (int_stored): 4 KB of int32 a
 * row and input, 8 KB of sums, so that the rows stream by in long runs (64 of them ran at half
 * the speed, docs/perf_log.md). */
#define VDR_INT_COLS 1024
#if TENSOR_KIT_AVX2_COPY_ || TENSOR_KIT_BASE_F16C_
/* Eight float16 products rounded by F16C; a NaN product becomes the portable conversion's NaN
 * (the sign and the quiet bit), where F16C would keep part of its payload. */
TENSOR_KIT_AVX2_ATTR_ static inline __m256 vdr_f16_products(const float *a, const float *b) {
    const __m256 sign = _mm256_set1_ps(-0.0f), qnan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000));
    const __m256 p = _mm256_mul_ps(_mm256_loadu_ps(a), _mm256_loadu_ps(b));
    const __m256 r = _mm256_cvtph_ps(_mm256_cvtps_ph(p, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    return _mm256_blendv_ps(r, _mm256_or_ps(_mm256_and_ps(p, sign), qnan), _mm256_cmp_ps(p, p, _CMP_UNORD_Q));
}
/* The float16 products rounded 8 at a time, then added one by one in index order (the portable
 * loop's order, so the same bits). */
TENSOR_KIT_AVX2_ATTR_ static float vdr_sum_f16_f16c(float s, const float *a, const float *b, int64_t n) {
    float t[8] __attribute__((aligned(32)));
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        _mm256_store_ps(t, vdr_f16_products(a + i, b + i));
        for (int k = 0; k < 8; k++) s += t[k];
    }
    for (; i < n; i++) s += tensor_f16_to_f32(tensor_f32_to_f16(a[i] * b[i]));
    return s;
}
/* VDR_COLS outputs' sums s, each adding its rounded float16 products row by row (8 outputs a
 * vector: each lane is one output's chain, in row order). */
TENSOR_KIT_AVX2_ATTR_ static void vdr_cols_f16_f16c(float *s, const char *ra, int64_t sa, const char *rb, int64_t sb,
                                                    int64_t nrows) {
    __m256 acc[VDR_COLS / 8];
    for (int k = 0; k < VDR_COLS / 8; k++) acc[k] = _mm256_loadu_ps(s + 8 * k);
    for (int64_t r = 0; r < nrows; r++) {
        const float *a = (const float *)(ra + r * sa), *b = (const float *)(rb + r * sb);
        for (int k = 0; k < VDR_COLS / 8; k++) acc[k] = _mm256_add_ps(acc[k], vdr_f16_products(a + 8 * k, b + 8 * k));
    }
    for (int k = 0; k < VDR_COLS / 8; k++) _mm256_storeu_ps(s + 8 * k, acc[k]);
}
static bool vdr_have_f16c(void) {
#if TENSOR_KIT_AVX2_COPY_
    return TENSOR_KIT_HAS_AVX2_();
#else
    return true;
#endif
}
#define VDR_F16C 1
#else
#define VDR_F16C 0
#define vdr_have_f16c() false
#define vdr_sum_f16_f16c(s, a, b, n) (s)
#define vdr_cols_f16_f16c(s, ra, sa, rb, sb, nrows) ((void)0)
#endif

/* S += the product A * B rounded through dtype d, for J in [0, N) (S, A and B expressions of J):
 * one loop per dtype, the test outside it. The 16-bit floats inline (a product of two of them
 * is exact in float, so one rounding), not through the generic store and load per element
 * (docs/perf_log.md). */
#define VDR_ADD_ROUNDED(d, N, J, S, A, B)                                                         \
    do {                                                                                          \
        if ((d) == TENSOR_FLOAT16)                                                                \
            for (int64_t J = 0; J < (N); J++) S += tensor_f16_to_f32(tensor_f32_to_f16((A) * (B))); \
        else if ((d) == TENSOR_BFLOAT16)                                                          \
            for (int64_t J = 0; J < (N); J++) S += tensor_bf16_to_f32(tensor_f32_to_bf16((A) * (B))); \
        else                                                                                      \
            for (int64_t J = 0; J < (N); J++) S += round_to((d), (A) * (B));                      \
    } while (0)
/* U (uint64_t) += the product A * B wrapped to dtype d's width, for J in [0, N): one loop per
 * width, the wrap outside the loop's test; unsigned sums, which the compiler may reorder (they
 * are exact modulo 2^64), vectorise. */
#define VDR_ADD_WRAPPED(d, N, J, U, A, B)                                                         \
    do {                                                                                          \
        switch (d) {                                                                              \
        case TENSOR_INT32:                                                                        \
            for (int64_t J = 0; J < (N); J++) U += (uint64_t)(int64_t)(int32_t)(uint32_t)((uint64_t)(A) * (uint64_t)(B)); \
            break;                                                                                \
        case TENSOR_INT16:                                                                        \
            for (int64_t J = 0; J < (N); J++) U += (uint64_t)(int64_t)(int16_t)(uint16_t)((uint64_t)(A) * (uint64_t)(B)); \
            break;                                                                                \
        case TENSOR_INT8:                                                                         \
            for (int64_t J = 0; J < (N); J++) U += (uint64_t)(int64_t)(int8_t)(uint8_t)((uint64_t)(A) * (uint64_t)(B)); \
            break;                                                                                \
        default:                                                                                  \
            for (int64_t J = 0; J < (N); J++) U += (uint64_t)wrap_to((d), vd_map_i64((int64_t[]){(A), (B)})); \
        }                                                                                         \
    } while (0)

static void vdr_fold_f32(void *acc, const void *const *vals, int64_t n, int64_t first, const void *user) {
    (void)first;
    const tensor_dtype d = *(const tensor_dtype *)user;
    const float *a = vals[0], *b = vals[1];
    float s;
    memcpy(&s, acc, sizeof s);
    if (d == TENSOR_FLOAT16 && VDR_F16C && n >= 8 && vdr_have_f16c()) s = vdr_sum_f16_f16c(s, a, b, n);
    else VDR_ADD_ROUNDED(d, n, i, s, a[i], b[i]);
    memcpy(acc, &s, sizeof s);
}
/* Accumulators j0 .. j0 + w of a fold_columns call (acc_stride apart, `size` bytes each) into
 * the dense block `blk`, and back. */
static void vdr_block_in(void *blk, const void *acc, size_t acc_stride, int64_t j0, int64_t w, size_t size) {
    for (int64_t j = 0; j < w; j++)
        memcpy((char *)blk + (size_t)j * size, (const char *)acc + (size_t)(j0 + j) * acc_stride, size);
}
static void vdr_block_out(void *acc, size_t acc_stride, const void *blk, int64_t j0, int64_t w, size_t size) {
    for (int64_t j = 0; j < w; j++)
        memcpy((char *)acc + (size_t)(j0 + j) * acc_stride, (const char *)blk + (size_t)j * size, size);
}
/* fold_columns of the rounded forms: n outputs at once, each output's rounded products added in
 * row order, as vdr_fold_f32 / vdr_fold_i64 add one output's (the same bits). Blocks of
 * VDR_COLS outputs keep their sums in a local array (registers for float16 with F16C) while
 * the rows stream by. Without them a reduced dim that is not the innermost (vecdot of bfloat16
 * over dim 0, or beside a transposed input) gathered each output's elements one at a time. */
static void vdr_fold_columns_f32(void *acc, size_t acc_stride, int64_t n, const void *const *rows,
                                 const int64_t *row_strides, int64_t nrows, int64_t first, tensor_dtype stored,
                                 const void *user) {
    (void)first, (void)stored; /* no fold_stored: the rows are float values */
    const tensor_dtype d = *(const tensor_dtype *)user;
    const char *ra = rows[0], *rb = rows[1];
    for (int64_t j0 = 0; j0 < n; j0 += VDR_COLS) {
        const int64_t w = n - j0 < VDR_COLS ? n - j0 : VDR_COLS;
        float s[VDR_COLS];
        vdr_block_in(s, acc, acc_stride, j0, w, sizeof s[0]);
        const char *a0 = ra + j0 * (int64_t)sizeof(float), *b0 = rb + j0 * (int64_t)sizeof(float);
        if (d == TENSOR_FLOAT16 && VDR_F16C && w == VDR_COLS && vdr_have_f16c()) {
            vdr_cols_f16_f16c(s, a0, row_strides[0], b0, row_strides[1], nrows);
        } else {
            for (int64_t r = 0; r < nrows; r++) {
                const float *a = (const float *)(a0 + r * row_strides[0]), *b = (const float *)(b0 + r * row_strides[1]);
                VDR_ADD_ROUNDED(d, w, j, s[j], a[j], b[j]);
            }
        }
        vdr_block_out(acc, acc_stride, s, j0, w, sizeof s[0]);
    }
}
/* U (uint64_t) += the product of A[J] and B[J], integers stored as T (int32_t, int16_t, int8_t,
 * uint8_t), wrapped to T, for J in [0, N): the low bits of a product depend on the low bits of
 * its factors only, so the 32-bit product wraps as the 64-bit one of VDR_ADD_WRAPPED does, and
 * the loop reads the elements as they are stored (no conversion pass; it vectorises). */
#define VDR_ADD_STORED(T, N, J, U, A, B)                                                          \
    do {                                                                                          \
        const T *a_ = (const T *)(A), *b_ = (const T *)(B);                                       \
        for (int64_t J = 0; J < (N); J++) U += (uint64_t)(int64_t)(T)((uint32_t)a_[J] * (uint32_t)b_[J]); \
    } while (0)
/* Rows of 8- and 16-bit products (each at most 2^15 in magnitude once wrapped) that 32-bit
 * partial sums take before they join the 64-bit ones: far from 2^31, and short enough that a
 * call of a few thousand rows already flushes (the tests reach it). */
#define VDR_PART_ROWS 4096
/* Rows r0 .. r1 of w columns of elements stored as T into the 32-bit partials P: 8 sums a
 * vector instead of 4, and no widening per element (VDR_ADD_STORED's products, the same sums). */
#define VDR_ADD_STORED32(T, P, W, RA, SA, RB, SB, R0, R1)                                         \
    for (int64_t r_ = (R0); r_ < (R1); r_++) {                                                    \
        const T *a_ = (const T *)((RA) + r_ * (SA)), *b_ = (const T *)((RB) + r_ * (SB));         \
        for (int64_t j_ = 0; j_ < (W); j_++) P[j_] += (int32_t)(T)((uint32_t)a_[j_] * (uint32_t)b_[j_]); \
    }

/* vdr_fold_columns_i64's block of w <= VDR_INT_COLS columns of 8- or 16-bit elements (stored)
 * at a and b into the 64-bit sums u: VDR_PART_ROWS rows at a time in 32-bit partials. */
static void vdr_columns_narrow(uint64_t *u, int64_t w, const char *a, int64_t sa, const char *b, int64_t sb,
                               int64_t nrows, tensor_dtype stored) {
    int32_t part[VDR_INT_COLS];
    for (int64_t r0 = 0; r0 < nrows; r0 += VDR_PART_ROWS) {
        const int64_t r1 = nrows - r0 < VDR_PART_ROWS ? nrows : r0 + VDR_PART_ROWS;
        memset(part, 0, (size_t)w * sizeof part[0]);
        if (stored == TENSOR_INT16) VDR_ADD_STORED32(int16_t, part, w, a, sa, b, sb, r0, r1)
        else if (stored == TENSOR_INT8) VDR_ADD_STORED32(int8_t, part, w, a, sa, b, sb, r0, r1)
        else VDR_ADD_STORED32(uint8_t, part, w, a, sa, b, sb, r0, r1)
        for (int64_t j = 0; j < w; j++) u[j] += (uint64_t)(int64_t)part[j];
    }
}

static void vdr_fold_columns_i64(void *acc, size_t acc_stride, int64_t n, const void *const *rows,
                                 const int64_t *row_strides, int64_t nrows, int64_t first, tensor_dtype stored,
                                 const void *user) {
    (void)first;
    const tensor_dtype d = *(const tensor_dtype *)user;
    const char *ra = rows[0], *rb = rows[1];
    const bool narrow16 = stored == TENSOR_INT16 || stored == TENSOR_INT8 || stored == TENSOR_UINT8;
    /* int64 values, or (int_stored) the inputs' own narrower integers */
    const int64_t size = stored == TENSOR_INT64 ? (int64_t)sizeof(int64_t) : (int64_t)tensor_dtype_size(stored);
    const int64_t cols = size < (int64_t)sizeof(int64_t) ? VDR_INT_COLS : VDR_COLS;
    for (int64_t j0 = 0; j0 < n; j0 += cols) {
        const int64_t w = n - j0 < cols ? n - j0 : cols;
        uint64_t u[VDR_INT_COLS];
        vdr_block_in(u, acc, acc_stride, j0, w, sizeof u[0]);
        if (narrow16) {
            vdr_columns_narrow(u, w, ra + j0 * size, row_strides[0], rb + j0 * size, row_strides[1], nrows, stored);
        } else {
            for (int64_t r = 0; r < nrows; r++) {
                const char *a = ra + r * row_strides[0] + j0 * size, *b = rb + r * row_strides[1] + j0 * size;
                if (stored == TENSOR_INT32) VDR_ADD_STORED(int32_t, w, j, u[j], a, b);
                else VDR_ADD_WRAPPED(d, w, j, u[j], ((const int64_t *)a)[j], ((const int64_t *)b)[j]);
            }
        }
        vdr_block_out(acc, acc_stride, u, j0, w, sizeof u[0]);
    }
}

static void vdr_fold_i64(void *acc, const void *const *vals, int64_t n, int64_t first, const void *user) {
    (void)first;
    const tensor_dtype d = *(const tensor_dtype *)user;
    const int64_t *a = vals[0], *b = vals[1];
    int64_t s;
    memcpy(&s, acc, sizeof s);
    uint64_t u = (uint64_t)s;
    VDR_ADD_WRAPPED(d, n, i, u, a[i], b[i]);
    s = (int64_t)u;
    memcpy(acc, &s, sizeof s);
}
/* vdr_fold_i64 on the inputs as they are stored (int_stored: int32, int16, int8, uint8), read in
 * the loop instead of widened into a buffer first: the same sum (integer sums modulo 2^64 do
 * not depend on their order). */
static void vdr_fold_stored_i64(void *acc, const void *const *elems, int64_t n, int64_t first, tensor_dtype stored,
                                const void *user) {
    (void)first, (void)user;
    int64_t s;
    memcpy(&s, acc, sizeof s);
    uint64_t u = (uint64_t)s;
    switch (stored) { /* the kit hands over only the dtypes int_stored names */
    case TENSOR_INT32: VDR_ADD_STORED(int32_t, n, i, u, elems[0], elems[1]); break;
    case TENSOR_INT16: VDR_ADD_STORED(int16_t, n, i, u, elems[0], elems[1]); break;
    case TENSOR_INT8: VDR_ADD_STORED(int8_t, n, i, u, elems[0], elems[1]); break;
    default: VDR_ADD_STORED(uint8_t, n, i, u, elems[0], elems[1]);
    }
    s = (int64_t)u;
    memcpy(acc, &s, sizeof s);
}

tensor_t *tensor_vecdot(const tensor_t *a, const tensor_t *b, int dim) {
    static const char func[] = "tensor_vecdot";
    if (a == NULL || b == NULL)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func, a == NULL ? "a" : "b");
    if (a->dtype != b->dtype)
        return tensor_error_null(TENSOR_ERR_DTYPE,
                                 "%s: Expected x and y to have the same dtype, but found x of type %s and y of type %s "
                                 "instead",
                                 func, tensor_dtype_name(a->dtype), tensor_dtype_name(b->dtype));
    const tensor_dtype d = a->dtype;
    /* As PyTorch, whose a * b has no float8 form and whose linalg.vecdot takes no bool; the
     * CUDA kernels have neither, and the CPU's would otherwise give them sum's result types. */
    if (d == TENSOR_BOOL || d == TENSOR_FLOAT8_E4M3FN || d == TENSOR_FLOAT8_E5M2)
        return tensor_error_null(TENSOR_ERR_DTYPE,
                                 "%s: argument 'a' has dtype %s; vecdot takes uint8, int8, int16, int32, int64, "
                                 "float16, bfloat16, float32 or float64",
                                 func, tensor_dtype_name(d));
    /* Products that need no rounding (float32, float64, int64) take the kit's fold; the others
     * round each product: their own fold and fold_columns, no fold_stored for the 16-bit floats
     * and one for the narrower integers, which reads them as they are stored (int_stored). */
    const bool exact = d == TENSOR_FLOAT32 || d == TENSOR_FLOAT64 || d == TENSOR_INT64;
    tensor_reduction_def def = {"vecdot", 2, sizeof(double), TENSOR_REDUCTION_DTYPE_SUM, true, {{0}}, &d};
    def.fns[TENSOR_REDUCTION_F64] = vd_f64;
    def.fns[TENSOR_REDUCTION_F64].fold = vd_have_avx2() ? vd_fold_f64_avx2 : vd_f64.fold;
    def.fns[TENSOR_REDUCTION_F32] = vd_f32;
    def.fns[TENSOR_REDUCTION_F32].fold = vd_have_avx2() ? vd_fold_f32_avx2 : vd_f32.fold;
    def.fns[TENSOR_REDUCTION_I64] = vd_i64;
    if (!exact) {
        def.fns[TENSOR_REDUCTION_F32].fold = vdr_fold_f32;
        def.fns[TENSOR_REDUCTION_F32].fold_stored = NULL;
        def.fns[TENSOR_REDUCTION_F32].fold_columns = vdr_fold_columns_f32;
        def.fns[TENSOR_REDUCTION_I64].fold = vdr_fold_i64;
        def.fns[TENSOR_REDUCTION_I64].fold_stored = vdr_fold_stored_i64;
        def.fns[TENSOR_REDUCTION_I64].fold_columns = vdr_fold_columns_i64;
    }
    const tensor_t *in[2] = {a, b};
    tensor_t *out = NULL;
    /* On CUDA the "vecdot" kernels of the reduction engine: the same fused pass. */
    tensor_user_fold_rows_fn rows[TENSOR_REDUCTION_NUM_VALUES] = {NULL};
#if TENSOR_KIT_AVX2_COPY_
    if (exact && vd_have_avx2()) {
        rows[TENSOR_REDUCTION_F32] = vd_rows_f32_avx2;
        rows[TENSOR_REDUCTION_F64] = vd_rows_f64_avx2;
    }
#endif
    if (exact) rows[TENSOR_REDUCTION_I64] = vd_rows_i64;
    /* every form: identity zero, project the sum itself */
    const builtin_paths bi = {"vecdot", true, rows, true};
    if (reduce_core(&def, &bi, in, 2, &dim, 1, false, TENSOR_DTYPE_DEFAULT, &out, func, NULL) != TENSOR_OK)
        return NULL;
    return out;
}
