/* Internal: the dist module's objects and the transport under them. Not installed.
 *
 * A communicator moves bytes through a transport: NCCL (dist/nccl_transport.c), or the
 * loopback (dist/loopback.c), an in-process clique whose every rank is local, used by the tests
 * to run the whole module, folds included, on the CPU and without a GPU. Transport calls work on
 * all local ranks at once: entry i of each array is local rank i's buffer. */
#ifndef TENSOR_DIST_INTERNAL_H
#define TENSOR_DIST_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dist/dist.h"
#include "runtime/device.h"
#include "runtime/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most ranks one process drives (arrays of them live on the stack). */
#define TT_DIST_MAX_LOCAL 64

typedef struct tt_dist_transport {
    const char *name;
    /* recv[i] gets every rank's `bytes` bytes, rank 0's first. */
    tensor_status (*all_gather)(const tensor_comm_t *c, const void *const *send, void *const *recv, size_t bytes,
                                const char *func);
    /* recv[i] gets rank r's bytes[r] bytes at displs[r] (nranks entries each). */
    tensor_status (*all_gatherv)(const tensor_comm_t *c, const void *const *send, void *const *recv,
                                 const size_t *bytes, const size_t *displs, const char *func);
    /* recv[i] gets rank root's `bytes` bytes (send[i] is read on the root only; may equal recv[i]). */
    tensor_status (*broadcast)(const tensor_comm_t *c, const void *const *send, void *const *recv, size_t bytes,
                               int root, const char *func);
    /* count elements of dt, op already mapped for bool (never AVG on integers). send may equal recv. */
    tensor_status (*all_reduce)(const tensor_comm_t *c, const void *const *send, void *const *recv, size_t count,
                                tensor_dtype dt, tensor_dist_op op, const char *func);
    tensor_status (*reduce_scatter)(const tensor_comm_t *c, const void *const *send, void *const *recv,
                                    size_t recvcount, tensor_dtype dt, tensor_dist_op op, const char *func);
    /* Whether NCCL can reduce dt (TENSOR_OK) or why not (TENSOR_ERR_DTYPE, naming func). */
    tensor_status (*check_reduce_dtype)(tensor_dtype dt, const char *func);
    /* Frees what the transport made for the communicator (NCCL: the owned ncclComm_t). */
    void (*destroy)(tensor_comm_t *c);
} tt_dist_transport;

struct tensor_comm {
    atomic_int refs;
    const tt_dist_transport *xp;
    int nranks;
    int nlocal;
    int *ranks;             /* nlocal: global rank of each local rank */
    tensor_device *devices; /* nlocal */
    void **handles;         /* nlocal: ncclComm_t (NULL for the loopback) */
    bool owns_handles;
};

struct tensor_dtensor {
    atomic_int refs;
    tensor_comm_t *comm;  /* a reference */
    tensor_t **locals;    /* nlocal references */
    int dim;              /* -1: replicated */
    int ndim;
    int64_t sizes[TENSOR_MAX_DIMS]; /* the logical tensor's */
    int64_t *offsets;     /* nranks (sharded) */
    int64_t *lengths;     /* nranks (sharded) */
};

/* ---- communicators (dist/comm.c) ---- */
/* A communicator of nlocal ranks with its arrays allocated (refs 1, ranks/devices/handles
 * zeroed); NULL with TENSOR_ERR_OUT_OF_MEMORY recorded (naming func). */
tensor_comm_t *tt_comm_alloc(int nranks, int nlocal, const tt_dist_transport *xp, const char *func);
/* Frees the arrays and the struct (no transport call): for creation paths that fail. */
void tt_comm_free(tensor_comm_t *c);
/* TENSOR_OK when comm is not NULL; else the error naming func. */
tensor_status tt_comm_check(const tensor_comm_t *comm, const char *func);

/* A loopback clique of n ranks, all local, local rank i = rank i, every rank on `device`
 * (the CPU, or with n == 1 a CUDA device). Test use: it stands in for NCCL. */
tensor_status tt_comm_loopback(int n, tensor_device device, tensor_comm_t **out);

/* ---- NCCL (dist/nccl_transport.c; stubs when built without it) ---- */
extern const tt_dist_transport tt_nccl_transport;
/* Loads NCCL once; TENSOR_OK or TENSOR_ERR_NOT_IMPLEMENTED naming func with the reason. */
tensor_status tt_nccl_available(const char *func);

/* ---- dtensors (dist/dtensor.c) ---- */
/* A dtensor without any check and without a collective (the results of reductions): takes over
 * the references in locals (nlocal of them, the array itself is copied) and retains comm.
 * offsets/lengths are copied when dim >= 0. On failure releases the locals and returns NULL. */
tensor_dtensor_t *tt_dtensor_make(tensor_comm_t *comm, tensor_t **locals, int dim, int ndim, const int64_t *sizes,
                                  const int64_t *offsets, const int64_t *lengths, const char *func);

/* ---- partials (dist/partials.c) ---- */
/* Gathers local rank i's contiguous partial parts[i] (the same shape and dtype on every rank)
 * into gathered[i], a new contiguous tensor [nranks, parts shape...] on the same device, row r
 * rank r's partial. On failure every gathered[i] is NULL. */
tensor_status tt_dist_gather_partials(const tensor_comm_t *c, tensor_t *const *parts, tensor_t **gathered,
                                      const char *func);
/* Re-records the current error as "func: <message>", keeping its status, and returns it. */
tensor_status tt_dist_rethrow(const char *func);
void *tt_dist_rethrow_null(const char *func);

#ifdef __cplusplus
}
#endif
#endif
