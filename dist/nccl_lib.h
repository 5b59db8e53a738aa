/* Internal: NCCL, loaded at run time (dist/nccl_lib.c). Its C API's types are declared here
 * (the handles are pointers, the results and the dtype and op codes int enums whose values NCCL
 * keeps fixed), so nothing needs nccl.h. Only the NCCL build has these. */
#ifndef TENSOR_DIST_NCCL_LIB_H
#define TENSOR_DIST_NCCL_LIB_H

#include <stddef.h>

#include "dist/dist_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef int tt_nccl_result; /* ncclResult_t; 0 is ncclSuccess */
typedef struct tt_nccl_comm *tt_nccl_comm_t;
typedef struct tt_nccl_uid {
    char internal[TENSOR_NCCL_ID_BYTES];
} tt_nccl_uid;

/* ncclDataType_t and ncclRedOp_t values. */
enum {
    TT_NCCL_INT8 = 0,
    TT_NCCL_UINT8 = 1,
    TT_NCCL_INT32 = 2,
    TT_NCCL_INT64 = 4,
    TT_NCCL_FLOAT16 = 6,
    TT_NCCL_FLOAT32 = 7,
    TT_NCCL_FLOAT64 = 8,
    TT_NCCL_BFLOAT16 = 9,
    TT_NCCL_FLOAT8E4M3 = 10,
    TT_NCCL_FLOAT8E5M2 = 11
};
enum { TT_NCCL_INVALID_ARGUMENT = 4, TT_NCCL_INVALID_USAGE = 5 };

typedef struct tt_nccl_api {
    int version; /* ncclGetVersion's code */
    tt_nccl_result (*get_version)(int *);
    tt_nccl_result (*get_unique_id)(tt_nccl_uid *);
    tt_nccl_result (*comm_init_rank)(tt_nccl_comm_t *, int, tt_nccl_uid, int);
    tt_nccl_result (*comm_init_all)(tt_nccl_comm_t *, int, const int *);
    tt_nccl_result (*comm_destroy)(tt_nccl_comm_t);
    tt_nccl_result (*comm_count)(const tt_nccl_comm_t, int *);
    tt_nccl_result (*comm_cu_device)(const tt_nccl_comm_t, int *);
    tt_nccl_result (*comm_user_rank)(const tt_nccl_comm_t, int *);
    const char *(*get_error_string)(tt_nccl_result);
    const char *(*get_last_error)(tt_nccl_comm_t); /* NULL in NCCL before 2.13 */
    tt_nccl_result (*all_reduce)(const void *, void *, size_t, int, int, tt_nccl_comm_t, void *);
    tt_nccl_result (*broadcast)(const void *, void *, size_t, int, int, tt_nccl_comm_t, void *);
    tt_nccl_result (*reduce_scatter)(const void *, void *, size_t, int, int, tt_nccl_comm_t, void *);
    tt_nccl_result (*all_gather)(const void *, void *, size_t, int, tt_nccl_comm_t, void *);
    tt_nccl_result (*group_start)(void);
    tt_nccl_result (*group_end)(void);
} tt_nccl_api;

/* The loaded API, or NULL with TENSOR_ERR_NOT_IMPLEMENTED recorded (naming func, with the
 * loader's reason). Loaded once per process. */
const tt_nccl_api *tt_nccl(const char *func);
/* TENSOR_OK for ncclSuccess; else records "func: NCCL error <name>: <text>" and returns
 * TENSOR_ERR_INVALID_ARGUMENT for NCCL's argument and usage errors, TENSOR_ERR_CUDA otherwise. */
tensor_status tt_nccl_error(const tt_nccl_api *api, tt_nccl_result r, tt_nccl_comm_t comm, const char *func);

/* Creating communicators (dist/nccl_lib.c), for dist/comm.c. */
tensor_status tt_nccl_init_all(int n, const int *devices, void **handles, const char *func);
tensor_status tt_nccl_unique_id(tensor_nccl_id *id, const char *func);
tensor_status tt_nccl_init_rank(const tensor_nccl_id *id, int nranks, int rank, int device, void **handle,
                                const char *func);
tensor_status tt_nccl_query(void *handle, int *rank, int *nranks, int *device, const char *func);

#ifdef __cplusplus
}
#endif
#endif
