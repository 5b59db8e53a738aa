/* NVRTC, loaded at run time (cuda/jit.h): a program that never compiles a user reduction for
 * CUDA never needs it. Its types are declared here (the C API's handles are pointers and its
 * results an int enum), so this file needs no CUDA header and builds everywhere. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/jit.h"
#include "runtime/alloc.h"
#include "runtime/error.h"

typedef struct tt_nvrtc_program *nvrtc_prog;
typedef int nvrtc_result; /* 0: NVRTC_SUCCESS */

static struct {
    void *lib;
    char error[256];
    int major, minor;
    char version[32];
    const char *(*get_error_string)(nvrtc_result);
    nvrtc_result (*version_fn)(int *, int *);
    nvrtc_result (*create)(nvrtc_prog *, const char *, const char *, int, const char *const *, const char *const *);
    nvrtc_result (*destroy)(nvrtc_prog *);
    nvrtc_result (*compile)(nvrtc_prog, int, const char *const *);
    nvrtc_result (*log_size)(nvrtc_prog, size_t *);
    nvrtc_result (*log)(nvrtc_prog, char *);
    nvrtc_result (*cubin_size)(nvrtc_prog, size_t *);
    nvrtc_result (*cubin)(nvrtc_prog, char *);
    nvrtc_result (*add_name)(nvrtc_prog, const char *);
    nvrtc_result (*lowered)(nvrtc_prog, const char *, const char **);
} nv;
static pthread_once_t nv_once = PTHREAD_ONCE_INIT;
static atomic_int nv_loaded; /* set once nv_load succeeded */

static void nv_load(void) {
    const char *env = getenv("TENSOR_NVRTC_LIBRARY");
    static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
    if (env != NULL && env[0] != '\0') nv.lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    for (size_t i = 0; nv.lib == NULL && (env == NULL || env[0] == '\0') && i < sizeof names / sizeof names[0]; i++)
        nv.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (nv.lib == NULL) {
        const char *e = dlerror();
        snprintf(nv.error, sizeof nv.error, "%s", e != NULL ? e : "not found");
        return;
    }
#define SYM(field, name)                                                                           \
    do {                                                                                           \
        *(void **)&nv.field = dlsym(nv.lib, name);                                                 \
        if (nv.field == NULL) {                                                                    \
            snprintf(nv.error, sizeof nv.error, "%s lacks %s", env != NULL && env[0] ? env : "libnvrtc", name); \
            dlclose(nv.lib);                                                                       \
            nv.lib = NULL;                                                                         \
            return;                                                                                \
        }                                                                                          \
    } while (0)
    SYM(get_error_string, "nvrtcGetErrorString");
    SYM(version_fn, "nvrtcVersion");
    SYM(create, "nvrtcCreateProgram");
    SYM(destroy, "nvrtcDestroyProgram");
    SYM(compile, "nvrtcCompileProgram");
    SYM(log_size, "nvrtcGetProgramLogSize");
    SYM(log, "nvrtcGetProgramLog");
    SYM(cubin_size, "nvrtcGetCUBINSize");
    SYM(cubin, "nvrtcGetCUBIN");
    SYM(add_name, "nvrtcAddNameExpression");
    SYM(lowered, "nvrtcGetLoweredName");
#undef SYM
    if (nv.version_fn(&nv.major, &nv.minor) != 0) nv.major = nv.minor = 0;
    snprintf(nv.version, sizeof nv.version, "nvrtc %d.%d", nv.major, nv.minor);
    Dl_info info;
    if (dladdr(*(void **)&nv.version_fn, &info) != 0 && info.dli_fname != NULL && info.dli_fname[0] == '/')
        tt_jit_cache_note_nvrtc(info.dli_fname, nv.version);
    atomic_store_explicit(&nv_loaded, 1, memory_order_release);
}

/* 1 when NVRTC is loaded (asking loads nothing). */
static int nvrtc_loaded(void) { return atomic_load_explicit(&nv_loaded, memory_order_acquire); }

int tt_jit_nvrtc_version_for_key(char *buf, size_t size) {
    if (!nvrtc_loaded() && tt_jit_cache_recall_nvrtc(buf, size)) return 1;
    const char *v = tt_jit_nvrtc_version();
    if (v[0] == '\0') return 0;
    snprintf(buf, size, "%s", v);
    return 1;
}

tensor_status tt_jit_nvrtc_available(const char *func) {
    pthread_once(&nv_once, nv_load);
    if (nv.lib == NULL)
        return tensor_error(TENSOR_ERR_NOT_IMPLEMENTED,
                            "%s: compiling a user reduction for CUDA needs NVRTC, which could not be loaded (%s)", func,
                            nv.error);
    return TENSOR_OK;
}

const char *tt_jit_nvrtc_version(void) {
    pthread_once(&nv_once, nv_load);
    return nv.lib != NULL ? nv.version : "";
}

/* -default-device: the user's functions need no __device__; the engine headers mark host code
 * with their own macros. */
static const char *const base_opts[] = {"--std=c++17", "-default-device", "--diag-suppress=177,20044",
                                        "-DTENSOR_JIT=1"};
#define N_BASE_OPTS (int)(sizeof base_opts / sizeof base_opts[0])

static uint64_t engine;
static pthread_once_t engine_once = PTHREAD_ONCE_INIT;
static void engine_hash_init(void) {
    uint64_t e = TT_JIT_HASH_SEED;
    for (int i = 0; i < tt_jit_num_headers; i++) {
        e = tt_jit_hash(tt_jit_headers[i].name, strlen(tt_jit_headers[i].name) + 1, e);
        e = tt_jit_hash(tt_jit_headers[i].text, strlen(tt_jit_headers[i].text), e);
    }
    engine = e;
}

char *tt_jit_key(const tt_jit_program *prog, int arch, const char *nvrtc_version, uint64_t *hash) {
    /* The engine's headers enter through their hash (computed once); the rest verbatim. */
    pthread_once(&engine_once, engine_hash_init);
    size_t n = strlen(prog->text) + 256;
    const char *kernel = prog->names[prog->variant];
    n += strlen(kernel) + 1;
    for (int k = 0; k < N_BASE_OPTS; k++) n += strlen(base_opts[k]) + 1;
    char *key = tt_malloc(n);
    if (key == NULL) return NULL;
    int len = snprintf(key, n, "engine %016llx; %s; sm_%d;", (unsigned long long)engine, nvrtc_version, arch);
    for (int k = 0; k < N_BASE_OPTS; k++) len += snprintf(key + len, n - (size_t)len, " %s", base_opts[k]);
    len += snprintf(key + len, n - (size_t)len, "\n%s", kernel);
    snprintf(key + len, n - (size_t)len, "\n%s", prog->text);
    *hash = tt_jit_hash(key, strlen(key), TT_JIT_HASH_SEED);
    return key;
}

/* The log's first lines: enough to see the first errors, short enough for a message. */
static void trim_log(const char *log, char *buf, size_t size) {
    size_t n = strlen(log);
    if (n + 1 <= size) {
        memcpy(buf, log, n + 1);
    } else {
        memcpy(buf, log, size - 5);
        memcpy(buf + size - 5, " ...", 5);
    }
    for (char *p = buf; *p != '\0'; p++)
        if (*p == '\n' && p[1] == '\0') *p = '\0';
}

tensor_status tt_jit_compile(const tt_jit_program *prog, int arch, tt_jit_binary *bin, const char *func) {
    memset(bin, 0, sizeof *bin);
    tensor_status st = tt_jit_nvrtc_available(func);
    if (st != TENSOR_OK) return st;
    const char **names = tt_malloc((size_t)tt_jit_num_headers * sizeof *names);
    const char **texts = tt_malloc((size_t)tt_jit_num_headers * sizeof *texts);
    if (names == NULL || texts == NULL) {
        free(names);
        free(texts);
        return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    }
    for (int i = 0; i < tt_jit_num_headers; i++) {
        names[i] = tt_jit_headers[i].name;
        texts[i] = tt_jit_headers[i].text;
    }
    nvrtc_prog p = NULL;
    nvrtc_result r = nv.create(&p, prog->text, "tinytensor_jit.cu", tt_jit_num_headers, texts, names);
    free(names);
    free(texts);
    if (r != 0) return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: nvrtcCreateProgram: %s", func, nv.get_error_string(r));
    if (r == 0) r = nv.add_name(p, prog->names[prog->variant]);
    char arch_opt[32];
    snprintf(arch_opt, sizeof arch_opt, "-arch=sm_%d", arch);
    const char *opts[N_BASE_OPTS + 1];
    for (int k = 0; k < N_BASE_OPTS; k++) opts[k] = base_opts[k];
    opts[N_BASE_OPTS] = arch_opt;
    if (r == 0) r = nv.compile(p, N_BASE_OPTS + 1, opts);
    if (r != 0) {
        size_t n = 0;
        char *log = NULL;
        if (nv.log_size(p, &n) == 0 && (log = tt_malloc(n + 1)) != NULL && nv.log(p, log) == 0) {
            log[n] = '\0';
            char brief[1536];
            trim_log(log, brief, sizeof brief);
            st = tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: NVRTC could not compile the reduction for sm_%d (%s): %s",
                              func, arch, nv.get_error_string(r), brief);
        } else {
            st = tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: NVRTC could not compile the reduction for sm_%d (%s)",
                              func, arch, nv.get_error_string(r));
        }
        free(log);
        nv.destroy(&p);
        return st;
    }
    size_t size = 0;
    if (nv.cubin_size(p, &size) != 0 || size == 0 || (bin->cubin = tt_malloc(size)) == NULL ||
        nv.cubin(p, bin->cubin) != 0) {
        nv.destroy(&p);
        tt_jit_binary_clear(bin);
        return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: could not take NVRTC's cubin", func);
    }
    bin->size = size;
    /* The binary has the compiled kernel's lowered name; the other variants' are empty. */
    for (int k = 0; k < TT_JIT_KERNELS; k++) {
        const char *low = "";
        if ((k == prog->variant && (nv.lowered(p, prog->names[k], &low) != 0 || low == NULL)) ||
            (bin->lowered[k] = tt_malloc(strlen(low) + 1)) == NULL) {
            nv.destroy(&p);
            tt_jit_binary_clear(bin);
            return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: no lowered name for %s", func,
                                prog->names[prog->variant]);
        }
        memcpy(bin->lowered[k], low, strlen(low) + 1);
    }
    nv.destroy(&p);
    return TENSOR_OK;
}
