/* The disk cache of compiled user reductions (cuda/jit.h). One file per key:
 *   "TTJITC03" | u64 key hash | u64 key length | key | TT_JIT_KERNELS x (u64 length | lowered
 *   name) | u64 cubin size | cubin | u64 FNV-1a of every byte before it
 * A file is used only when every field checks out and its key equals the wanted key byte for
 * byte; anything else is ignored and the next store replaces it. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda/jit.h"
#include "ops/reduction.h"
#include "runtime/alloc.h"
#include "runtime/error.h"

#define MAGIC "TTJITC03"
#define MAX_FILE_BYTES ((uint64_t)1 << 30)

static pthread_mutex_t dir_lock = PTHREAD_MUTEX_INITIALIZER;
static char *set_dir;   /* tensor_jit_set_cache_dir's copy, or NULL */
static int set_dir_given;

tensor_status tensor_jit_set_cache_dir(const char *dir) {
    char *copy = NULL;
    if (dir != NULL) {
        copy = tt_malloc(strlen(dir) + 1);
        if (copy == NULL) return tensor_error(TENSOR_ERR_OUT_OF_MEMORY, "tensor_jit_set_cache_dir: out of host memory");
        memcpy(copy, dir, strlen(dir) + 1);
    }
    pthread_mutex_lock(&dir_lock);
    free(set_dir);
    set_dir = copy;
    set_dir_given = dir != NULL;
    pthread_mutex_unlock(&dir_lock);
    return TENSOR_OK;
}

void tt_jit_cache_dir(char *buf, size_t size) {
    pthread_mutex_lock(&dir_lock);
    if (set_dir_given) {
        snprintf(buf, size, "%s", set_dir);
        pthread_mutex_unlock(&dir_lock);
        return;
    }
    pthread_mutex_unlock(&dir_lock);
    const char *env = getenv("TENSOR_JIT_CACHE_DIR");
    if (env != NULL) {
        snprintf(buf, size, "%s", strcmp(env, "off") == 0 ? "" : env);
        return;
    }
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg != NULL && xdg[0] == '/') snprintf(buf, size, "%s/tinytensor/jit", xdg);
    else if (home != NULL && home[0] != '\0') snprintf(buf, size, "%s/.cache/tinytensor/jit", home);
    else snprintf(buf, size, "%s", "");
}

int64_t tensor_jit_cache_dir(char *buf, size_t size) {
    char dir[4096];
    tt_jit_cache_dir(dir, sizeof dir);
    if (buf == NULL && size != 0) {
        tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_jit_cache_dir: argument 'buf' is NULL with size %zu", size);
        return -1;
    }
    return snprintf(buf, size, "%s", dir);
}

void tt_jit_cache_path(uint64_t hash, char *buf, size_t size) {
    char dir[4096];
    tt_jit_cache_dir(dir, sizeof dir);
    if (dir[0] == '\0') snprintf(buf, size, "%s", "");
    else snprintf(buf, size, "%s/%016llx.ttjit", dir, (unsigned long long)hash);
}

/* mkdir -p, 0700 for what it creates. */
static int make_dirs(const char *dir) {
    char p[4096];
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) return -1;
    for (char *s = p + 1; *s != '\0'; s++) {
        if (*s != '/') continue;
        *s = '\0';
        if (mkdir(p, 0700) != 0 && errno != EEXIST) return -1;
        *s = '/';
    }
    return mkdir(p, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

typedef struct reader {
    const unsigned char *p;
    size_t left;
} reader;

static int take(reader *r, void *dst, size_t n) {
    if (n > r->left) return -1;
    memcpy(dst, r->p, n);
    r->p += n;
    r->left -= n;
    return 0;
}

int tt_jit_cache_load(const char *key, uint64_t hash, tt_jit_binary *bin) {
    memset(bin, 0, sizeof *bin);
    char path[4200];
    tt_jit_cache_path(hash, path, sizeof path);
    if (path[0] == '\0') return 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return 0;
    unsigned char *data = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    if (n > 0 && (uint64_t)n <= MAX_FILE_BYTES && fseek(f, 0, SEEK_SET) == 0 && (data = tt_malloc((size_t)n)) != NULL &&
        fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    if (data == NULL) return 0;
    int ok = 0;
    reader r = {data, (size_t)n};
    char magic[8];
    uint64_t h, klen, sum;
    const size_t want = strlen(key);
    if (take(&r, magic, 8) == 0 && memcmp(magic, MAGIC, 8) == 0 && take(&r, &h, 8) == 0 && h == hash &&
        take(&r, &klen, 8) == 0 && klen == want && r.left >= klen && memcmp(r.p, key, klen) == 0) {
        r.p += klen;
        r.left -= klen;
        ok = 1;
        for (int k = 0; k < TT_JIT_KERNELS && ok; k++) {
            uint64_t len;
            ok = take(&r, &len, 8) == 0 && len < 4096 && len <= r.left &&
                 (bin->lowered[k] = tt_malloc((size_t)len + 1)) != NULL;
            if (ok) {
                take(&r, bin->lowered[k], (size_t)len);
                bin->lowered[k][len] = '\0';
            }
        }
        uint64_t size = 0;
        /* exactly the cubin and the checksum left (no size + 8: a size near 2^64 wraps) */
        ok = ok && take(&r, &size, 8) == 0 && size > 0 && size <= r.left && r.left - size == 8 &&
             (bin->cubin = tt_malloc((size_t)size)) != NULL;
        if (ok) {
            take(&r, bin->cubin, (size_t)size);
            bin->size = (size_t)size;
            ok = take(&r, &sum, 8) == 0 && sum == tt_jit_hash(data, (size_t)n - 8, TT_JIT_HASH_SEED);
        }
    }
    free(data);
    if (!ok) tt_jit_binary_clear(bin);
    return ok;
}

/* Writes n bytes to path through a temporary file renamed over it, so that a reader (another
 * process sharing the directory) sees the old file or the new one, never a part. Failures are
 * ignored: the cache is an optimisation. */
static void write_atomically(const char *path, const void *data, size_t n) {
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    int ok = f != NULL && fwrite(data, 1, n, f) == n;
    if (f != NULL && fclose(f) != 0) ok = 0;
    if (!ok || rename(tmp, path) != 0) remove(tmp);
}

void tt_jit_cache_store(const char *key, uint64_t hash, const tt_jit_binary *bin) {
    char dir[4096], path[4200];
    tt_jit_cache_dir(dir, sizeof dir);
    if (dir[0] == '\0' || make_dirs(dir) != 0) return;
    tt_jit_cache_path(hash, path, sizeof path);
    size_t n = 8 + 8 + 8 + strlen(key) + 8 + bin->size + 8;
    for (int k = 0; k < TT_JIT_KERNELS; k++) n += 8 + strlen(bin->lowered[k]);
    unsigned char *data = tt_malloc(n), *p = data;
    if (data == NULL) return;
#define PUT(src, len)                                                                              \
    do {                                                                                           \
        memcpy(p, (src), (len));                                                                   \
        p += (len);                                                                                \
    } while (0)
    const uint64_t klen = strlen(key), size = bin->size;
    PUT(MAGIC, 8);
    PUT(&hash, 8);
    PUT(&klen, 8);
    PUT(key, klen);
    for (int k = 0; k < TT_JIT_KERNELS; k++) {
        const uint64_t len = strlen(bin->lowered[k]);
        PUT(&len, 8);
        PUT(bin->lowered[k], len);
    }
    PUT(&size, 8);
    PUT(bin->cubin, bin->size);
    const uint64_t sum = tt_jit_hash(data, (size_t)(p - data), TT_JIT_HASH_SEED);
    PUT(&sum, 8);
#undef PUT
    write_atomically(path, data, n);
    free(data);
}

/* ---- which NVRTC the last process loaded ----
 * "<dir>/nvrtc.id":
 *   TTNVRTC1 | version | TENSOR_NVRTC_LIBRARY or "-" | dev ino size mtime_s mtime_ns | path
 * one per line. Read back only when TENSOR_NVRTC_LIBRARY is what it was and the library file
 * at path has the same identity; then its version keys the cache without loading NVRTC
 * (loading it costs milliseconds). */
#define NVRTC_RECORD "nvrtc.id"
#define NVRTC_MAGIC "TTNVRTC1"

/* The record's path; -1 when the cache is off. */
static int nvrtc_record_path(const char *dir, char *buf, size_t size) {
    if (dir[0] == '\0') return -1;
    return snprintf(buf, size, "%s/%s", dir, NVRTC_RECORD) < (int)size ? 0 : -1;
}

static void file_identity(const struct stat *s, char *buf, size_t size) {
    snprintf(buf, size, "%llu %llu %lld %lld %ld", (unsigned long long)s->st_dev, (unsigned long long)s->st_ino,
             (long long)s->st_size, (long long)s->st_mtim.tv_sec, (long)s->st_mtim.tv_nsec);
}

static const char *nvrtc_env(void) {
    const char *env = getenv("TENSOR_NVRTC_LIBRARY");
    return env != NULL && env[0] != '\0' ? env : "-";
}

void tt_jit_cache_note_nvrtc(const char *lib_path, const char *version) {
    char dir[4096], path[4200], ident[128], text[8400];
    struct stat s;
    tt_jit_cache_dir(dir, sizeof dir);
    if (lib_path == NULL || strchr(lib_path, '\n') != NULL || strchr(nvrtc_env(), '\n') != NULL ||
        stat(lib_path, &s) != 0 || nvrtc_record_path(dir, path, sizeof path) != 0 || make_dirs(dir) != 0)
        return;
    file_identity(&s, ident, sizeof ident);
    const int n = snprintf(text, sizeof text, "%s\n%s\n%s\n%s\n%s\n", NVRTC_MAGIC, version, nvrtc_env(), ident, lib_path);
    if (n > 0 && (size_t)n < sizeof text) write_atomically(path, text, (size_t)n);
}

/* One line of f without its newline into buf; -1 when there is none or it does not fit. */
static int read_line(FILE *f, char *buf, size_t size) {
    if (fgets(buf, (int)size, f) == NULL) return -1;
    size_t n = strlen(buf);
    if (n == 0 || buf[n - 1] != '\n') return -1;
    buf[n - 1] = '\0';
    return 0;
}

int tt_jit_cache_recall_nvrtc(char *version, size_t size) {
    char dir[4096], path[4200], magic[16], ver[64], env[4096], ident[128], lib[4096], now[128];
    tt_jit_cache_dir(dir, sizeof dir);
    if (nvrtc_record_path(dir, path, sizeof path) != 0) return 0;
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    int ok = read_line(f, magic, sizeof magic) == 0 && strcmp(magic, NVRTC_MAGIC) == 0 &&
             read_line(f, ver, sizeof ver) == 0 && strncmp(ver, "nvrtc ", 6) == 0 &&
             read_line(f, env, sizeof env) == 0 && strcmp(env, nvrtc_env()) == 0 &&
             read_line(f, ident, sizeof ident) == 0 && read_line(f, lib, sizeof lib) == 0 && lib[0] == '/';
    fclose(f);
    struct stat s;
    if (!ok || stat(lib, &s) != 0) return 0;
    file_identity(&s, now, sizeof now);
    if (strcmp(now, ident) != 0 || strlen(ver) + 1 > size) return 0;
    memcpy(version, ver, strlen(ver) + 1);
    return 1;
}
