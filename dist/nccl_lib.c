/* NCCL through dlopen: a program that never makes a communicator never needs libnccl, and the
 * library links without it. Communicator creation lives here too, since it is NCCL and the
 * CUDA device switch ncclCommInitRank needs. */
#define _GNU_SOURCE
#include "dist/nccl_lib.h"

#if TENSOR_HAVE_NCCL

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/device_internal.h"
#include "runtime/error.h"

static tt_nccl_api api;
static bool loaded;
static char load_error[320];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void nccl_load(void) {
    const char *env = getenv("TENSOR_NCCL_LIBRARY");
    bool from_env = env != NULL && env[0] != '\0';
    /* libnccl.so.2 first: when the program already loaded NCCL (its own ncclComm_t, or a
     * framework's), the loader hands back that same copy, so handles pass between the two. */
    static const char *const names[] = {"libnccl.so.2", "libnccl.so"};
    void *lib = NULL;
    if (from_env) lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    for (size_t i = 0; lib == NULL && !from_env && i < sizeof names / sizeof names[0]; i++)
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *e = dlerror();
        snprintf(load_error, sizeof load_error, "%s", e != NULL ? e : "libnccl.so.2 not found");
        return;
    }
#define SYM(field, name)                                                                           \
    do {                                                                                           \
        *(void **)&api.field = dlsym(lib, name);                                                   \
        if (api.field == NULL) {                                                                   \
            snprintf(load_error, sizeof load_error, "%s lacks %s", from_env ? env : "libnccl", name); \
            dlclose(lib);                                                                          \
            return;                                                                                \
        }                                                                                          \
    } while (0)
    SYM(get_version, "ncclGetVersion");
    SYM(get_unique_id, "ncclGetUniqueId");
    SYM(comm_init_rank, "ncclCommInitRank");
    SYM(comm_init_all, "ncclCommInitAll");
    SYM(comm_destroy, "ncclCommDestroy");
    SYM(comm_count, "ncclCommCount");
    SYM(comm_cu_device, "ncclCommCuDevice");
    SYM(comm_user_rank, "ncclCommUserRank");
    SYM(get_error_string, "ncclGetErrorString");
    SYM(all_reduce, "ncclAllReduce");
    SYM(broadcast, "ncclBroadcast");
    SYM(reduce_scatter, "ncclReduceScatter");
    SYM(all_gather, "ncclAllGather");
    SYM(group_start, "ncclGroupStart");
    SYM(group_end, "ncclGroupEnd");
#undef SYM
    *(void **)&api.get_last_error = dlsym(lib, "ncclGetLastError");
    if (api.get_version(&api.version) != 0) api.version = 0;
    if (api.version < 21000) {
        snprintf(load_error, sizeof load_error, "NCCL %d is older than 2.10, the oldest supported (bfloat16, ncclAvg)", api.version);
        dlclose(lib);
        return;
    }
    loaded = true; /* never closed: handles may be used until the process exits */
}

const tt_nccl_api *tt_nccl(const char *func) {
    pthread_once(&load_once, nccl_load);
    if (!loaded) {
        tensor_error(TENSOR_ERR_NOT_IMPLEMENTED,
                     "%s: NCCL could not be loaded (%s); set TENSOR_NCCL_LIBRARY to the path of libnccl.so.2", func,
                     load_error);
        return NULL;
    }
    return &api;
}

tensor_status tt_nccl_available(const char *func) { return tt_nccl(func) != NULL ? TENSOR_OK : TENSOR_ERR_NOT_IMPLEMENTED; }

bool tensor_nccl_is_built(void) { return true; }

tensor_status tensor_nccl_version(int *version) {
    TENSOR_CHECK_NOT_NULL(version, "tensor_nccl_version", "version");
    *version = 0;
    const tt_nccl_api *a = tt_nccl("tensor_nccl_version");
    if (a == NULL) return TENSOR_ERR_NOT_IMPLEMENTED;
    *version = a->version;
    return TENSOR_OK;
}

tensor_status tt_nccl_error(const tt_nccl_api *a, tt_nccl_result r, tt_nccl_comm_t comm, const char *func) {
    if (r == 0) return TENSOR_OK;
    const char *what = a->get_error_string(r);
    const char *detail = a->get_last_error != NULL ? a->get_last_error(comm) : NULL;
    tensor_status st = r == TT_NCCL_INVALID_ARGUMENT || r == TT_NCCL_INVALID_USAGE ? TENSOR_ERR_INVALID_ARGUMENT
                                                                                   : TENSOR_ERR_CUDA;
    return tensor_error(st, "%s: NCCL error %d (%s)%s%s", func, r, what != NULL ? what : "?",
                        detail != NULL && detail[0] != '\0' ? ": " : "", detail != NULL ? detail : "");
}

tensor_status tt_nccl_init_all(int n, const int *devices, void **handles, const char *func) {
    const tt_nccl_api *a = tt_nccl(func);
    if (a == NULL) return TENSOR_ERR_NOT_IMPLEMENTED;
    return tt_nccl_error(a, a->comm_init_all((tt_nccl_comm_t *)handles, n, devices), NULL, func);
}

tensor_status tt_nccl_unique_id(tensor_nccl_id *id, const char *func) {
    const tt_nccl_api *a = tt_nccl(func);
    if (a == NULL) return TENSOR_ERR_NOT_IMPLEMENTED;
    tt_nccl_uid uid;
    tensor_status st = tt_nccl_error(a, a->get_unique_id(&uid), NULL, func);
    if (st == TENSOR_OK) memcpy(id->internal, uid.internal, sizeof uid.internal);
    return st;
}

tensor_status tt_nccl_init_rank(const tensor_nccl_id *id, int nranks, int rank, int device, void **handle,
                                const char *func) {
    const tt_nccl_api *a = tt_nccl(func);
    if (a == NULL) return TENSOR_ERR_NOT_IMPLEMENTED;
    tt_nccl_uid uid;
    memcpy(uid.internal, id->internal, sizeof uid.internal);
    /* ncclCommInitRank binds the communicator to the calling thread's current device. */
    int saved = -1;
    if (tensor_cuda_device_enter(device, &saved, func) != TENSOR_OK) return tensor_last_status();
    tt_nccl_comm_t comm = NULL;
    tensor_status st = tt_nccl_error(a, a->comm_init_rank(&comm, nranks, uid, rank), NULL, func);
    tensor_cuda_device_restore(saved);
    *handle = st == TENSOR_OK ? comm : NULL;
    return st;
}

tensor_status tt_nccl_query(void *handle, int *rank, int *nranks, int *device, const char *func) {
    const tt_nccl_api *a = tt_nccl(func);
    if (a == NULL) return TENSOR_ERR_NOT_IMPLEMENTED;
    tt_nccl_comm_t c = handle;
    tensor_status st = tt_nccl_error(a, a->comm_user_rank(c, rank), c, func);
    if (st == TENSOR_OK) st = tt_nccl_error(a, a->comm_count(c, nranks), c, func);
    if (st == TENSOR_OK) st = tt_nccl_error(a, a->comm_cu_device(c, device), c, func);
    return st;
}

#else
/* ISO C forbids an empty translation unit. */
typedef int tt_nccl_lib_unused;
#endif
