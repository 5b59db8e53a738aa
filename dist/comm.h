/* Communicators: the ranks a process drives in a group of GPUs that reduce together, over NCCL.
 *
 * A tensor_comm_t is this process's view of one NCCL clique of `nranks` ranks: the ranks it
 * drives itself (its "local" ranks, numbered 0..local_count-1), each with its global rank, its
 * CUDA device and its ncclComm_t. One process per GPU has one local rank; one process driving
 * every GPU of a machine (tensor_comm_init_all) has one local rank per GPU. Every per-rank
 * argument of the dist module (tensors of a collective, the shards of a dtensor) is an array
 * indexed by local rank.
 *
 * NCCL is loaded at run time (dlopen of libnccl.so.2, or the file TENSOR_NCCL_LIBRARY names),
 * so the library has no link-time dependency on it. A build without the NCCL module (no CUDA,
 * or TENSOR_NCCL=OFF) keeps every entry point; they return TENSOR_ERR_NOT_IMPLEMENTED ("built
 * without NCCL"), as do the creating calls when NCCL cannot be loaded.
 *
 * Ownership: a communicator is refcounted. Creating calls return a new reference; dtensors hold
 * one on their communicator, so releasing yours while they live is safe. When the last reference
 * goes, the NCCL communicators that the library created are destroyed (ncclCommDestroy); ones the
 * caller passed to tensor_comm_from_nccl are never destroyed by the library.
 *
 * Threads: a communicator's collectives must be issued in the same order on every rank (NCCL's
 * rule), so call the dist functions of one communicator from one thread at a time. */
#ifndef TENSOR_DIST_COMM_H
#define TENSOR_DIST_COMM_H

#include <stdbool.h>
#include <stdint.h>

#include "tinytensor/runtime/export.h"
#include "tinytensor/runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tensor_comm tensor_comm_t;

/* NCCL's ncclUniqueId (128 opaque bytes), without its header: rank 0 makes one and hands it to
 * the other ranks by any means (a file, a socket, MPI). */
#define TENSOR_NCCL_ID_BYTES 128
typedef struct tensor_nccl_id {
    char internal[TENSOR_NCCL_ID_BYTES];
} tensor_nccl_id;

/* true when the library was built with the NCCL module (whether or not NCCL loads). */
TENSOR_API bool tensor_nccl_is_built(void);
/* NCCL's version code (2.28.9 is 22809) in *version. Errors: NULL version
 * (TENSOR_ERR_INVALID_ARGUMENT), built without NCCL or NCCL not loadable
 * (TENSOR_ERR_NOT_IMPLEMENTED, with the loader's reason). */
TENSOR_API tensor_status tensor_nccl_version(int *version);

/* One communicator over `ndevices` GPUs of this process (ncclCommInitAll): local rank i is
 * global rank i on cuda:devices[i] (devices NULL: cuda:0 .. cuda:ndevices-1). *out gets a new
 * reference (NULL on error). The library owns the NCCL communicators.
 * Errors: NULL out, ndevices < 1, a repeated device (TENSOR_ERR_INVALID_ARGUMENT), a device that
 * is not there (TENSOR_ERR_DEVICE), no NCCL (TENSOR_ERR_NOT_IMPLEMENTED), NCCL failing
 * (TENSOR_ERR_CUDA, with NCCL's message), host memory (TENSOR_ERR_OUT_OF_MEMORY). */
TENSOR_API tensor_status tensor_comm_init_all(int ndevices, const int *devices, tensor_comm_t **out);

/* A new unique id in *id (ncclGetUniqueId), for tensor_comm_init_rank. Call it on one rank only.
 * Errors: NULL id, no NCCL, NCCL failing. */
TENSOR_API tensor_status tensor_nccl_get_unique_id(tensor_nccl_id *id);

/* This process's one rank, `rank` of `nranks`, on cuda:device (ncclCommInitRank). Collective:
 * every rank calls it with the same id and nranks; it returns when all have joined. *out gets a
 * new reference; the library owns the NCCL communicator. The caller's current device is left as
 * it was. Errors: NULL id or out, nranks < 1, rank outside [0, nranks)
 * (TENSOR_ERR_INVALID_ARGUMENT), a missing device (TENSOR_ERR_DEVICE), no NCCL, NCCL failing. */
TENSOR_API tensor_status tensor_comm_init_rank(const tensor_nccl_id *id, int nranks, int rank, int device,
                                               tensor_comm_t **out);

/* tensor_comm_init_rank from the environment that scripts/dist-launch.sh sets for each process:
 * TENSOR_DIST_RANK, TENSOR_DIST_NRANKS, TENSOR_DIST_DEVICE (default: the rank modulo the GPU
 * count) and TENSOR_DIST_ID_FILE, a path through which the ranks share the unique id: rank 0
 * writes it (to a temporary name, then renamed), the others wait for it for up to
 * TENSOR_DIST_TIMEOUT seconds (default 120). Errors: a variable missing or malformed
 * (TENSOR_ERR_INVALID_ARGUMENT, naming it), the file (TENSOR_ERR_IO), and those of
 * tensor_comm_init_rank. */
TENSOR_API tensor_status tensor_comm_init_env(tensor_comm_t **out);

/* Wraps communicators the caller made: nccl_comms[i] (an ncclComm_t, BORROWED: the caller keeps
 * it alive while the returned communicator lives and destroys it after) becomes local rank i;
 * its rank, size and device are asked of NCCL. All must belong to one clique (same size,
 * distinct ranks). *out gets a new reference. Errors: NULL arguments, ncomms < 1, sizes that
 * differ or repeated ranks (TENSOR_ERR_INVALID_ARGUMENT), no NCCL, NCCL failing. */
TENSOR_API tensor_status tensor_comm_from_nccl(int ncomms, void *const *nccl_comms, tensor_comm_t **out);

/* Adds a reference; returns comm (NULL gives NULL). */
TENSOR_API tensor_comm_t *tensor_comm_retain(tensor_comm_t *comm);
/* Drops a reference; the last one destroys what the library created. NULL is a no-op. Wait for
 * the collectives queued on the communicator (synchronise the streams) before the last release. */
TENSOR_API void tensor_comm_release(tensor_comm_t *comm);

/* The number of ranks of the clique (-1 and an error for NULL). */
TENSOR_API int tensor_comm_size(const tensor_comm_t *comm);
/* The number of ranks this process drives (-1 and an error for NULL). */
TENSOR_API int tensor_comm_local_count(const tensor_comm_t *comm);
/* The global rank of local rank `local` (-1 and an error for NULL or a bad index). */
TENSOR_API int tensor_comm_rank(const tensor_comm_t *comm, int local);
/* The CUDA device index of local rank `local` (-1 and an error for NULL or a bad index). */
TENSOR_API int tensor_comm_device(const tensor_comm_t *comm, int local);
/* The ncclComm_t of local rank `local`, BORROWED (valid while comm lives), for the caller's own
 * NCCL calls; NULL and an error for NULL or a bad index. */
TENSOR_API void *tensor_comm_nccl(const tensor_comm_t *comm, int local);

#ifdef __cplusplus
}
#endif
#endif
