/* Communicators: creation over NCCL (through dist/nccl_lib.c), wrapping, lifetime, accessors. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dist/dist_internal.h"
#include "dist/nccl_lib.h"
#include "runtime/alloc.h"
#include "runtime/error.h"

tensor_comm_t *tt_comm_alloc(int nranks, int nlocal, const tt_dist_transport *xp, const char *func) {
    if (nlocal > TT_DIST_MAX_LOCAL)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: %d local ranks, at most %d", func, nlocal,
                                 TT_DIST_MAX_LOCAL);
    tensor_comm_t *c = tt_calloc(1, sizeof *c);
    if (c != NULL) {
        c->ranks = tt_calloc((size_t)nlocal, sizeof *c->ranks);
        c->devices = tt_calloc((size_t)nlocal, sizeof *c->devices);
        c->handles = tt_calloc((size_t)nlocal, sizeof *c->handles);
    }
    if (c == NULL || c->ranks == NULL || c->devices == NULL || c->handles == NULL) {
        tt_comm_free(c);
        return tensor_error_null(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory for a communicator", func);
    }
    atomic_init(&c->refs, 1);
    c->xp = xp;
    c->nranks = nranks;
    c->nlocal = nlocal;
    return c;
}

void tt_comm_free(tensor_comm_t *c) {
    if (c == NULL) return;
    free(c->ranks);
    free(c->devices);
    free(c->handles);
    free(c);
}

tensor_status tt_comm_check(const tensor_comm_t *comm, const char *func) {
    TENSOR_CHECK_NOT_NULL(comm, func, "comm");
    return TENSOR_OK;
}

/* ---- creation ---- */

tensor_status tensor_comm_init_all(int ndevices, const int *devices, tensor_comm_t **out) {
    const char *func = "tensor_comm_init_all";
    TENSOR_CHECK_NOT_NULL(out, func, "out");
    *out = NULL;
    if (ndevices < 1)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'ndevices' is %d, expected at least 1", func,
                            ndevices);
    if (tt_nccl_available(func) != TENSOR_OK) return tensor_last_status();
    tensor_comm_t *c = tt_comm_alloc(ndevices, ndevices, &tt_nccl_transport, func);
    if (c == NULL) return tensor_last_status();
    for (int i = 0; i < ndevices; i++) {
        int d = devices != NULL ? devices[i] : i;
        tensor_status st = tensor_device_check(tensor_cuda(d), func);
        for (int k = 0; st == TENSOR_OK && k < i; k++)
            if (c->devices[k].index == d)
                st = tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: device cuda:%d appears twice in 'devices'", func, d);
        if (st != TENSOR_OK) {
            tt_comm_free(c);
            return st;
        }
        c->ranks[i] = i;
        c->devices[i] = tensor_cuda(d);
    }
    int *devs = tt_malloc((size_t)ndevices * sizeof *devs);
    if (devs == NULL) {
        tt_comm_free(c);
        return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "%s: out of host memory", func);
    }
    for (int i = 0; i < ndevices; i++) devs[i] = c->devices[i].index;
    tensor_status st = tt_nccl_init_all(ndevices, devs, c->handles, func);
    free(devs);
    if (st != TENSOR_OK) {
        tt_comm_free(c);
        return st;
    }
    c->owns_handles = true;
    *out = c;
    return TENSOR_OK;
}

tensor_status tensor_nccl_get_unique_id(tensor_nccl_id *id) {
    TENSOR_CHECK_NOT_NULL(id, "tensor_nccl_get_unique_id", "id");
    return tt_nccl_unique_id(id, "tensor_nccl_get_unique_id");
}

static tensor_status init_rank(const tensor_nccl_id *id, int nranks, int rank, int device, tensor_comm_t **out,
                               const char *func) {
    if (nranks < 1)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'nranks' is %d, expected at least 1", func,
                            nranks);
    if (rank < 0 || rank >= nranks)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'rank' is %d, outside [0, %d)", func, rank,
                            nranks);
    if (tt_nccl_available(func) != TENSOR_OK) return tensor_last_status();
    if (tensor_device_check(tensor_cuda(device), func) != TENSOR_OK) return tensor_last_status();
    tensor_comm_t *c = tt_comm_alloc(nranks, 1, &tt_nccl_transport, func);
    if (c == NULL) return TENSOR_ERR_OUT_OF_MEMORY;
    c->ranks[0] = rank;
    c->devices[0] = tensor_cuda(device);
    tensor_status st = tt_nccl_init_rank(id, nranks, rank, device, &c->handles[0], func);
    if (st != TENSOR_OK) {
        tt_comm_free(c);
        return st;
    }
    c->owns_handles = true;
    *out = c;
    return TENSOR_OK;
}

tensor_status tensor_comm_init_rank(const tensor_nccl_id *id, int nranks, int rank, int device, tensor_comm_t **out) {
    const char *func = "tensor_comm_init_rank";
    TENSOR_CHECK_NOT_NULL(out, func, "out");
    *out = NULL;
    TENSOR_CHECK_NOT_NULL(id, func, "id");
    return init_rank(id, nranks, rank, device, out, func);
}

/* ---- the launcher's environment (scripts/dist-launch.sh) ---- */

static tensor_status env_int(const char *name, int fallback, int *value, const char *func) {
    const char *s = getenv(name);
    if (s == NULL || s[0] == '\0') {
        if (fallback == INT_MIN)
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: environment variable %s is not set", func, name);
        *value = fallback;
        return TENSOR_OK;
    }
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 0 || v > INT_MAX)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: environment variable %s is \"%s\", not a count", func,
                            name, s);
    *value = (int)v;
    return TENSOR_OK;
}

static tensor_status write_id(const char *path, const tensor_nccl_id *id, const char *func) {
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: TENSOR_DIST_ID_FILE is too long", func);
    FILE *f = fopen(tmp, "wb");
    if (f == NULL) return tensor_error(TENSOR_ERR_IO, "%s: cannot create %s: %s", func, tmp, strerror(errno));
    bool ok = fwrite(id->internal, 1, sizeof id->internal, f) == sizeof id->internal;
    ok = fclose(f) == 0 && ok;
    /* The rename publishes the whole id at once: a reader never sees half of it. */
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        (void)remove(tmp);
        return tensor_error(TENSOR_ERR_IO, "%s: cannot write %s: %s", func, path, strerror(e));
    }
    return TENSOR_OK;
}

static tensor_status read_id(const char *path, int timeout_s, tensor_nccl_id *id, const char *func) {
    struct timespec pause = {0, 10 * 1000 * 1000};
    for (long waited_ms = 0;; waited_ms += 10) {
        FILE *f = fopen(path, "rb");
        if (f != NULL) {
            size_t n = fread(id->internal, 1, sizeof id->internal, f);
            fclose(f);
            if (n == sizeof id->internal) return TENSOR_OK;
            return tensor_error(TENSOR_ERR_IO, "%s: %s holds %zu bytes, expected %zu", func, path, n,
                                sizeof id->internal);
        }
        if (errno != ENOENT) return tensor_error(TENSOR_ERR_IO, "%s: cannot read %s: %s", func, path, strerror(errno));
        if (waited_ms >= (long)timeout_s * 1000)
            return tensor_error(TENSOR_ERR_IO, "%s: rank 0 did not write %s within %d s (TENSOR_DIST_TIMEOUT)", func,
                                path, timeout_s);
        nanosleep(&pause, NULL);
    }
}

tensor_status tensor_comm_init_env(tensor_comm_t **out) {
    const char *func = "tensor_comm_init_env";
    TENSOR_CHECK_NOT_NULL(out, func, "out");
    *out = NULL;
    int rank = 0, nranks = 0, device = 0, timeout_s = 0;
    if (env_int("TENSOR_DIST_RANK", INT_MIN, &rank, func) || env_int("TENSOR_DIST_NRANKS", INT_MIN, &nranks, func) ||
        env_int("TENSOR_DIST_TIMEOUT", 120, &timeout_s, func))
        return tensor_last_status();
    const char *path = getenv("TENSOR_DIST_ID_FILE");
    if (path == NULL || path[0] == '\0')
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: environment variable TENSOR_DIST_ID_FILE is not set", func);
    if (nranks < 1 || rank >= nranks)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: TENSOR_DIST_RANK %d is outside [0, TENSOR_DIST_NRANKS %d)",
                            func, rank, nranks);
    if (tt_nccl_available(func) != TENSOR_OK) return tensor_last_status();
    int ngpus = tensor_cuda_device_count();
    if (env_int("TENSOR_DIST_DEVICE", ngpus > 0 ? rank % ngpus : 0, &device, func)) return tensor_last_status();
    tensor_nccl_id id;
    tensor_status st = rank == 0 ? tt_nccl_unique_id(&id, func) : TENSOR_OK;
    if (st == TENSOR_OK) st = rank == 0 ? write_id(path, &id, func) : read_id(path, timeout_s, &id, func);
    if (st != TENSOR_OK) return st;
    return init_rank(&id, nranks, rank, device, out, func);
}

/* ---- wrapping the caller's communicators ---- */

tensor_status tensor_comm_from_nccl(int ncomms, void *const *nccl_comms, tensor_comm_t **out) {
    const char *func = "tensor_comm_from_nccl";
    TENSOR_CHECK_NOT_NULL(out, func, "out");
    *out = NULL;
    TENSOR_CHECK_NOT_NULL(nccl_comms, func, "nccl_comms");
    if (ncomms < 1)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'ncomms' is %d, expected at least 1", func,
                            ncomms);
    for (int i = 0; i < ncomms; i++)
        if (nccl_comms[i] == NULL)
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: nccl_comms[%d] is NULL", func, i);
    if (tt_nccl_available(func) != TENSOR_OK) return tensor_last_status();
    int nranks = 0;
    tensor_comm_t *c = tt_comm_alloc(1, ncomms, &tt_nccl_transport, func);
    if (c == NULL) return tensor_last_status();
    tensor_status st = TENSOR_OK;
    for (int i = 0; i < ncomms && st == TENSOR_OK; i++) {
        int rank = -1, n = -1, dev = -1;
        st = tt_nccl_query(nccl_comms[i], &rank, &n, &dev, func);
        if (st != TENSOR_OK) break;
        if (i == 0) nranks = n;
        if (n != nranks)
            st = tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                              "%s: nccl_comms[%d] has %d ranks, nccl_comms[0] %d: not one clique", func, i, n, nranks);
        for (int k = 0; st == TENSOR_OK && k < i; k++)
            if (c->ranks[k] == rank)
                st = tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: nccl_comms[%d] and nccl_comms[%d] are both rank %d",
                                  func, k, i, rank);
        c->ranks[i] = rank;
        c->devices[i] = tensor_cuda(dev);
        c->handles[i] = nccl_comms[i];
    }
    if (st != TENSOR_OK) {
        tt_comm_free(c);
        return st;
    }
    c->nranks = nranks;
    c->owns_handles = false;
    *out = c;
    return TENSOR_OK;
}

/* ---- lifetime and accessors ---- */

tensor_comm_t *tensor_comm_retain(tensor_comm_t *comm) {
    if (comm != NULL) atomic_fetch_add_explicit(&comm->refs, 1, memory_order_relaxed);
    return comm;
}

void tensor_comm_release(tensor_comm_t *comm) {
    if (comm == NULL || atomic_fetch_sub_explicit(&comm->refs, 1, memory_order_acq_rel) != 1) return;
    if (comm->xp->destroy != NULL) comm->xp->destroy(comm);
    tt_comm_free(comm);
}

int tensor_comm_size(const tensor_comm_t *comm) {
    if (tt_comm_check(comm, "tensor_comm_size") != TENSOR_OK) return -1;
    return comm->nranks;
}

int tensor_comm_local_count(const tensor_comm_t *comm) {
    if (tt_comm_check(comm, "tensor_comm_local_count") != TENSOR_OK) return -1;
    return comm->nlocal;
}

static bool check_local(const tensor_comm_t *comm, int local, const char *func) {
    if (tt_comm_check(comm, func) != TENSOR_OK) return false;
    if (local < 0 || local >= comm->nlocal) {
        tensor_error(TENSOR_ERR_INDEX, "%s: local rank %d is outside [0, %d)", func, local, comm->nlocal);
        return false;
    }
    return true;
}

int tensor_comm_rank(const tensor_comm_t *comm, int local) {
    return check_local(comm, local, "tensor_comm_rank") ? comm->ranks[local] : -1;
}

int tensor_comm_device(const tensor_comm_t *comm, int local) {
    return check_local(comm, local, "tensor_comm_device") ? comm->devices[local].index : -1;
}

void *tensor_comm_nccl(const tensor_comm_t *comm, int local) {
    if (!check_local(comm, local, "tensor_comm_nccl")) return NULL;
    if (comm->handles[local] == NULL)
        return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: the communicator has no NCCL handle (%s transport)",
                                 "tensor_comm_nccl", comm->xp->name);
    return comm->handles[local];
}
