/* The NCCL half of a build without the NCCL module (no CUDA, or TENSOR_NCCL=OFF): every call
 * that would need NCCL says so. The rest of the module is the same in every build, so its
 * argument checks, and its folds over the loopback transport, run everywhere. */
#include "dist/nccl_lib.h"

#if !TENSOR_HAVE_NCCL

#include "runtime/error.h"

static tensor_status built_without(const char *func) {
    return tensor_error(TENSOR_ERR_NOT_IMPLEMENTED,
                        "%s: tinytensor was built without NCCL (it needs the CUDA backend and TENSOR_NCCL=AUTO or ON)",
                        func);
}

tensor_status tt_nccl_available(const char *func) { return built_without(func); }

bool tensor_nccl_is_built(void) { return false; }

tensor_status tensor_nccl_version(int *version) {
    TENSOR_CHECK_NOT_NULL(version, "tensor_nccl_version", "version");
    *version = 0;
    return built_without("tensor_nccl_version");
}

tensor_status tt_nccl_init_all(int n, const int *devices, void **handles, const char *func) {
    (void)n;
    (void)devices;
    (void)handles;
    return built_without(func);
}

tensor_status tt_nccl_unique_id(tensor_nccl_id *id, const char *func) {
    (void)id;
    return built_without(func);
}

tensor_status tt_nccl_init_rank(const tensor_nccl_id *id, int nranks, int rank, int device, void **handle,
                                const char *func) {
    (void)id;
    (void)nranks;
    (void)rank;
    (void)device;
    *handle = NULL;
    return built_without(func);
}

tensor_status tt_nccl_query(void *handle, int *rank, int *nranks, int *device, const char *func) {
    (void)handle;
    (void)rank;
    (void)nranks;
    (void)device;
    return built_without(func);
}

/* No communicator can be made with it: creation fails first. */
const tt_dist_transport tt_nccl_transport = {"nccl (not built)", NULL, NULL, NULL, NULL, NULL, NULL, NULL};

#else
typedef int tt_no_nccl_unused;
#endif
