/* User reductions on CUDA, compiled at run time (cuda/jit.h): the kernel set of a (functor,
 * dtypes, device) from memory, else from the disk cache, else from NVRTC; loaded with the
 * driver API (dlopen'ed: libcuda.so.1, which the CUDA runtime has loaded already) and launched
 * with the same plan as the built-ins (reduce_host.c), whole or in 32-bit pieces with an
 * accumulation buffer. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/cuda_backend.h"
#include "cuda/device_internal.h"
#include "cuda/jit.h"
#include "cuda/reduce_host.h"
#include "runtime/alloc.h"
#include "runtime/error.h"
#include "iterator/iter_internal.h"

typedef int cu_result; /* CUresult: 0 is CUDA_SUCCESS */
typedef struct tt_cu_module *cu_module;
typedef struct tt_cu_function *cu_function;
#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8

static struct {
    void *lib;
    cu_result (*module_load_data)(cu_module *, const void *);
    cu_result (*module_get_function)(cu_function *, cu_module, const char *);
    cu_result (*module_unload)(cu_module);
    cu_result (*launch)(cu_function, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                        void **, void **);
    cu_result (*func_set_attribute)(cu_function, int, int);
    cu_result (*error_string)(cu_result, const char **);
    cu_result (*ctx_get_current)(void **);
    cu_result (*occupancy)(int *, cu_function, int, size_t); /* optional */
} cu;
static pthread_once_t cu_once = PTHREAD_ONCE_INIT;

static void cu_load(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) return;
    *(void **)&cu.module_load_data = dlsym(lib, "cuModuleLoadData");
    *(void **)&cu.module_get_function = dlsym(lib, "cuModuleGetFunction");
    *(void **)&cu.module_unload = dlsym(lib, "cuModuleUnload");
    *(void **)&cu.launch = dlsym(lib, "cuLaunchKernel");
    *(void **)&cu.func_set_attribute = dlsym(lib, "cuFuncSetAttribute");
    *(void **)&cu.error_string = dlsym(lib, "cuGetErrorString");
    *(void **)&cu.ctx_get_current = dlsym(lib, "cuCtxGetCurrent");
    *(void **)&cu.occupancy = dlsym(lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    if (cu.module_load_data && cu.module_get_function && cu.module_unload && cu.launch && cu.func_set_attribute &&
        cu.error_string && cu.ctx_get_current)
        cu.lib = lib;
    else
        dlclose(lib);
}

static tensor_status cu_error(cu_result r, const char *what, const char *func) {
    const char *s = NULL;
    if (cu.error_string == NULL || cu.error_string(r, &s) != 0 || s == NULL) s = "unknown error";
    return tensor_error(TENSOR_ERR_CUDA, "%s: %s: %s (CUresult %d)", func, what, s, r);
}

/* ---- the process's kernel sets: one per (key, device) ---- */
typedef enum { FROM_COMPILE = 0, FROM_DISK = 1, FROM_MEMORY = 2 } origin_t;
static const char *const origin_names[] = {"compiled now (NVRTC)", "loaded from the disk cache", "in memory"};

/* What a call is looked up by, before any program text is made: the functor's strings and
 * the call's types. A hit costs hashing the strings (a few KB) and comparing them. */
typedef struct call_id {
    uint64_t hash;
    char *strings; /* the seven source strings, NUL-separated (a copy) */
    size_t len;
    int nin, value, in, out, device, variant;
    size_t acc_size;
} call_id;

static size_t source_strings(const tensor_reduction_source *s, char *dst) {
    const char *f[7] = {s->code, s->acc_type, s->identity, s->map, s->reduce, s->combine, s->project};
    size_t n = 0;
    for (int i = 0; i < 7; i++) {
        const size_t k = strlen(f[i]) + 1;
        if (dst != NULL) memcpy(dst + n, f[i], k);
        n += k;
    }
    return n;
}

/* Whether the seven strings equal a copy made by source_strings. */
static int same_strings(const char *copy, const char *const fields[7]) {
    for (int i = 0; i < 7; i++) {
        if (strcmp(copy, fields[i]) != 0) return 0;
        copy += strlen(copy) + 1;
    }
    return 1;
}

typedef struct jit_entry {
    struct jit_entry *next;
    call_id id;
    const tensor_reduction_source *src; /* the source struct it was first looked up by */
    uint64_t hash;
    char *key;
    int device;
    cu_function fn[TT_JIT_KERNELS];
    /* Asked of the driver once per entry, then read without the lock (relaxed atomics): */
    int smem_opted; /* dynamic shared memory opted in beyond the default (bytes) */
    int resident[TENSOR_REDUCE_RESIDENT_SLOTS]; /* CTAs per SM at 1 << i threads; 0: not asked yet, -1: unknown */
} jit_entry;
static jit_entry *entries;
static pthread_mutex_t entries_lock = PTHREAD_MUTEX_INITIALIZER;
static int compiles; /* fresh compiles in this process (tests read it) */

int tt_jit_compile_count(void) {
    pthread_mutex_lock(&entries_lock);
    int n = compiles;
    pthread_mutex_unlock(&entries_lock);
    return n;
}

/* Forgets the loaded kernel sets (the modules stay loaded): the next call finds them on disk,
 * as a new process would. For tests. */
void tt_jit_forget(void) {
    pthread_mutex_lock(&entries_lock);
    while (entries != NULL) {
        jit_entry *e = entries;
        entries = e->next;
        free(e->key);
        free(e->id.strings);
        free(e);
    }
    pthread_mutex_unlock(&entries_lock);
}

/* What a launch needs to find its kernel: the call, its types and device. */
typedef struct jit_call {
    const tensor_user_reduce_call *call;
    int nin;
    tensor_dtype in, out;
    int device;
    const char *func; /* the public function, for errors */
} jit_call;

/* Kernel `variant` for (call, dtypes) on `device`, and where it came from. One lock around the
 * lookup and the compile: two threads racing on a first call compile once. */
static tensor_status kernel_set(const jit_call *jc, int variant, jit_entry **set, origin_t *origin,
                                const char *func) {
    const tensor_user_reduce_call *call = jc->call;
    const int nin = jc->nin, device = jc->device;
    const tensor_dtype in = jc->in, out = jc->out;
    pthread_once(&cu_once, cu_load);
    if (cu.lib == NULL)
        return tensor_error(TENSOR_ERR_CUDA, "%s: the CUDA driver library (libcuda.so.1) could not be loaded", func);
    const tensor_reduction_source *src = call->fns->source;
    if (src->code == NULL || src->acc_type == NULL || src->identity == NULL || src->map == NULL || src->reduce == NULL ||
        src->combine == NULL || src->project == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: the source of '%s' lacks a field", func, call->name);
    const char *const fields[7] = {src->code, src->acc_type, src->identity, src->map, src->reduce, src->combine,
                                   src->project};
    /* The fast path, for the same source struct as the entry was made for: its strings compared
     * with the entry's copy in place (no copy, no hash; a changed or reused struct misses). */
    pthread_mutex_lock(&entries_lock);
    for (jit_entry *e = entries; e != NULL; e = e->next)
        if (e->src == src && same_strings(e->id.strings, fields) && e->id.nin == nin &&
            e->id.value == (int)call->value && e->id.in == (int)in && e->id.out == (int)out && e->id.device == device &&
            e->id.variant == variant && e->id.acc_size == call->acc_size) {
            *set = e;
            *origin = FROM_MEMORY;
            pthread_mutex_unlock(&entries_lock);
            return TENSOR_OK;
        }
    pthread_mutex_unlock(&entries_lock);
    call_id id = {0,      NULL,   source_strings(src, NULL), nin, (int)call->value, (int)in, (int)out, device,
                  variant, call->acc_size};
    id.strings = tt_malloc(id.len);
    if (id.strings == NULL) return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    source_strings(src, id.strings);
    const int ints[6] = {nin, id.value, id.in, id.out, device, variant};
    id.hash = tt_jit_hash(id.strings, id.len, tt_jit_hash(ints, sizeof ints, tt_jit_hash(&id.acc_size, sizeof id.acc_size,
                                                                                         TT_JIT_HASH_SEED)));
    pthread_mutex_lock(&entries_lock);
    for (jit_entry *e = entries; e != NULL; e = e->next)
        if (e->id.hash == id.hash && e->id.len == id.len && e->id.nin == nin && e->id.value == id.value &&
            e->id.in == id.in && e->id.out == id.out && e->id.device == device && e->id.variant == variant &&
            e->id.acc_size == id.acc_size &&
            memcmp(e->id.strings, id.strings, id.len) == 0) {
            *set = e;
            *origin = FROM_MEMORY;
            pthread_mutex_unlock(&entries_lock);
            free(id.strings);
            return TENSOR_OK;
        }
    /* A miss: the program, its full key, then the disk or NVRTC (still under the lock: two
     * threads racing on a first call compile once). */
    int major = 0, minor = 0;
    tensor_status st = tensor_cuda_error(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), func);
    if (st == TENSOR_OK)
        st = tensor_cuda_error(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), func);
    const int arch = major * 10 + minor;
    tt_jit_program prog = {0};
    if (st == TENSOR_OK) st = tt_jit_program_make(src, nin, call->value, in, out, call->acc_size, variant, &prog, func);
    /* The key needs NVRTC's version. A disk hit needs no NVRTC, so the version comes from the
     * cache directory's record of the last NVRTC loaded when that file is unchanged; NVRTC is
     * loaded only to compile (or when there is no such record). */
    char version[64] = "";
    if (st == TENSOR_OK && !tt_jit_nvrtc_version_for_key(version, sizeof version))
        st = tt_jit_nvrtc_available(func); /* cannot be loaded: this sets the error */
    uint64_t hash = 0;
    char *key = st == TENSOR_OK ? tt_jit_key(&prog, arch, version, &hash) : NULL;
    if (st == TENSOR_OK && key == NULL) st = tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    tt_jit_binary bin;
    origin_t from = FROM_DISK;
    if (st == TENSOR_OK && !tt_jit_cache_load(key, hash, &bin)) {
        from = FROM_COMPILE;
        st = tt_jit_nvrtc_available(func);
        if (st == TENSOR_OK && strcmp(version, tt_jit_nvrtc_version()) != 0) {
            /* the record named another NVRTC than the one loaded: key by the real one */
            free(key);
            snprintf(version, sizeof version, "%s", tt_jit_nvrtc_version());
            key = tt_jit_key(&prog, arch, version, &hash);
            if (key == NULL) st = tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
            else if (tt_jit_cache_load(key, hash, &bin)) from = FROM_DISK;
        }
        if (st == TENSOR_OK && from == FROM_COMPILE) {
            st = tt_jit_compile(&prog, arch, &bin, func);
            if (st == TENSOR_OK) {
                compiles++;
                tt_jit_cache_store(key, hash, &bin);
            }
        }
    }
    if (st != TENSOR_OK) {
        pthread_mutex_unlock(&entries_lock);
        tt_jit_program_clear(&prog);
        free(key);
        free(id.strings);
        return st;
    }
    tt_jit_program_clear(&prog);
    jit_entry *e = NULL;
    if (st == TENSOR_OK) {
        e = tt_calloc(1, sizeof *e);
        if (e == NULL) st = tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    }
    cu_module mod = NULL;
    if (st == TENSOR_OK) {
        cu_result r = cu.module_load_data(&mod, bin.cubin);
        if (r != 0) st = cu_error(r, "cuModuleLoadData", func);
    }
    if (st == TENSOR_OK) {
        cu_result r = cu.module_get_function(&e->fn[variant], mod, bin.lowered[variant]);
        if (r != 0) st = cu_error(r, "cuModuleGetFunction", func);
    }
    tt_jit_binary_clear(&bin);
    if (st != TENSOR_OK) {
        if (mod != NULL) cu.module_unload(mod); /* loaded, but a kernel of it was not found */
        free(e);
        free(key);
        free(id.strings);
        pthread_mutex_unlock(&entries_lock);
        return st;
    }
    e->id = id;
    e->src = src;
    e->hash = hash;
    e->key = key;
    e->device = device;
    e->next = entries;
    entries = e;
    *set = e;
    *origin = from;
    pthread_mutex_unlock(&entries_lock);
    return TENSOR_OK;
}

/* ---- launching ---- */

/* The planner's residency question (tensor_cuda_reduce_kind.resident_blocks), answered for the
 * run-time compiled kernel as the built-ins answer it for theirs, so that both plan alike. It
 * fetches (or compiles) the variant the plan will launch; `origin` records where it came from,
 * for explain. */
typedef struct jit_resident_ctx {
    const jit_call *jc;
    int asked;
    origin_t origin;
    jit_entry *set; /* the entry of variant k it fetched: the launch reuses it */
    int k;
} jit_resident_ctx;

/* Whether the set has a lean rows kernel (the built-ins' rule). */
#define JIT_LEAN_ROWS(jc) TENSOR_REDUCE_LEAN_ROWS_FIT((jc)->nin, (jc)->call->acc_size, tensor_dtype_size((jc)->in), 0)

static int jit_resident_blocks(const void *ctx, int ovs, int threads, size_t smem) {
    jit_resident_ctx *rc = (jit_resident_ctx *)ctx;
    const int k = TT_JIT_VARIANT(0, 0, 0, ovs);
    jit_entry *set = rc->set != NULL && rc->k == k ? rc->set : NULL;
    origin_t origin = FROM_MEMORY;
    if (set == NULL && kernel_set(rc->jc, k, &set, &origin, rc->jc->func) != TENSOR_OK) {
        tensor_clear_error(); /* the launch's own kernel_set reports it */
        return 0;
    }
    if (!rc->asked) rc->origin = origin;
    rc->asked = 1;
    rc->set = set;
    rc->k = k;
    const int i = tensor_reduce_resident_slot(threads);
    int *slot = i >= 0 ? &set->resident[i] : NULL;
    int n = slot != NULL ? __atomic_load_n(slot, __ATOMIC_RELAXED) : 0;
    if (n == 0) {
        if (cu.occupancy == NULL || smem > 48 * 1024 || cu.occupancy(&n, set->fn[k], threads, smem) != 0 || n <= 0)
            n = -1;
        if (slot != NULL) __atomic_store_n(slot, n, __ATOMIC_RELAXED);
    }
    return n > 0 ? n : 0;
}

static tensor_status launch_piece(const tensor_iter_t *iter, char *acc_buf, int64_t count, void *ctx) {
    const jit_call *jc = ctx;
    const char *func = jc->func;
    const int in_arg = iter->num_outputs;
    jit_resident_ctx rc = {jc, 0, FROM_COMPILE, NULL, -1};
    tensor_cuda_reduce_kind kind = {(int)tensor_dtype_size(iter->operands[in_arg].dtype), (int)jc->call->acc_size,
                                    jit_resident_blocks, &rc, JIT_LEAN_ROWS(jc), TT_JIT_ELEM_ROWS};
    tensor_cuda_reduce_plan plan;
    void *staging = NULL;
    tensor_status st = tensor_cuda_reduce_plan_make(iter, kind, &plan, &staging, func);
    plan.acc_buf = acc_buf;
    plan.reduce_count = count;
    const int k = TT_JIT_VARIANT(plan.cfg.short_rows, plan.cfg.lean_rows, plan.cfg.rvec_tiles, plan.cfg.output_vec_size);
    jit_entry *set = rc.set != NULL && rc.k == k ? rc.set : NULL;
    origin_t origin;
    if (st == TENSOR_OK && set == NULL) st = kernel_set(jc, k, &set, &origin, func);
    if (st == TENSOR_OK) {
        const unsigned smem = (unsigned)plan.cfg.shared_memory_bytes;
        int *opted = &set->smem_opted;
        cu_result r = 0;
        if (smem > 48 * 1024 && (unsigned)__atomic_load_n(opted, __ATOMIC_RELAXED) < smem) {
            /* beyond the default: opt in (it stays set for the function) */
            r = cu.func_set_attribute(set->fn[k], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem);
            if (r == 0) __atomic_store_n(opted, (int)smem, __ATOMIC_RELAXED);
        }
        if (r != 0) {
            st = cu_error(r, "cuFuncSetAttribute (shared memory of a large accumulator)", func);
        } else {
            void *args[1] = {&plan};
            r = cu.launch(set->fn[k], (unsigned)plan.cfg.grid[0], (unsigned)plan.cfg.grid[1], 1,
                          (unsigned)plan.cfg.block_width, (unsigned)plan.cfg.block_height, 1, smem,
                          (void *)tensor_cuda_stream_of(iter->device.index), args, NULL);
            if (r != 0) st = cu_error(r, "cuLaunchKernel", func);
        }
    }
    tensor_cuda_free(staging);
    return st;
}

tensor_status tt_cuda_jit_reduce(tensor_iter_t *iter, const tensor_user_reduce_call *call, int explain, char *buf,
                                 size_t size, int64_t *len, const char *func) {
    const int nout = iter->num_outputs, nin = tensor_iter_ninputs(iter);
    if (nout != 1 || nin < 1 || nin > TENSOR_CUDA_REDUCE_MAX_INPUTS)
        return tensor_error(TENSOR_ERR_NOT_IMPLEMENTED, "%s: '%s' has %d inputs; CUDA reductions take 1 to %d", func,
                            call->name, nin, TENSOR_CUDA_REDUCE_MAX_INPUTS);
    const tensor_dtype in = iter->operands[nout].dtype, out = iter->operands[0].dtype;
    for (int q = 1; q < nin; q++)
        if (iter->operands[nout + q].dtype != in)
            return tensor_error(TENSOR_ERR_DTYPE, "%s: '%s': input %d is %s, input 0 %s (the kernel's inputs share one dtype)",
                                func, call->name, q, tensor_dtype_name(iter->operands[nout + q].dtype),
                                tensor_dtype_name(in));
    int saved;
    if (tensor_cuda_device_enter(iter->device.index, &saved, func) != TENSOR_OK) return tensor_last_status();
    /* The driver API needs the device's primary context current on this thread; a thread whose
     * first CUDA call this is has none until a runtime call sets it (cudaSetDevice does).
     * device_enter made the runtime's device this one, so a current context is its. */
    pthread_once(&cu_once, cu_load);
    void *ctx = NULL;
    tensor_status st = TENSOR_OK;
    if (cu.lib == NULL || cu.ctx_get_current(&ctx) != 0 || ctx == NULL)
        st = tensor_cuda_error(cudaSetDevice(iter->device.index), func);
    if (st != TENSOR_OK) {
        tensor_cuda_device_restore(saved);
        return st;
    }
    const jit_call jc = {call, nin, in, out, iter->device.index, func};
    /* partials always in an accumulation buffer when split: a user's accumulator is never the
     * output's type */
    if (!explain) st = tensor_cuda_reduce_split_run(iter, call->acc_size, launch_piece, (void *)&jc, func);
    if (explain) {
        /* The kernel the plan of the whole iterator picks: compiled (or found) now, so that
         * explain says where it came from. */
        jit_entry *set = NULL;
        origin_t origin = FROM_COMPILE;
        tensor_cuda_props props;
        tensor_reduce_config cfg;
        st = tensor_cuda_reduce_device_props(iter->device.index, &props, func);
        jit_resident_ctx rc = {&jc, 0, FROM_COMPILE, NULL, -1};
        tensor_cuda_reduce_kind kind = {(int)tensor_dtype_size(in), (int)call->acc_size, jit_resident_blocks, &rc,
                                        JIT_LEAN_ROWS(&jc), TT_JIT_ELEM_ROWS};
        if (st == TENSOR_OK) st = tensor_cuda_reduce_plan_config(iter, &props, kind, &cfg);
        if (st == TENSOR_OK)
            st = kernel_set(&jc, TT_JIT_VARIANT(cfg.short_rows, cfg.lean_rows, cfg.rvec_tiles, cfg.output_vec_size), &set, &origin, func);
        if (rc.asked) origin = rc.origin; /* the plan fetched the kernel first */
        char what[200];
        snprintf(what, sizeof what, "%s (user, run-time compiled), %s -> %s", call->name, tensor_dtype_name(in),
                 tensor_dtype_name(out));
        int64_t n = st == TENSOR_OK ? tensor_cuda_reduce_explain(iter, &props, kind, what, buf, size) : -1;
        if (n < 0) st = tensor_last_status();
        else {
            size_t off = (size_t)n;
            char *dst = buf != NULL && off < size ? buf + off : NULL;
            int k = snprintf(dst, dst != NULL ? size - off : 0, "  cuda jit: %s, key %016llx\n", origin_names[origin],
                             (unsigned long long)set->hash);
            *len = n + (k > 0 ? k : 0);
        }
    }
    tensor_cuda_device_restore(saved);
    return st;
}
