/* .npy test files: a scratch directory per executable and files written byte by byte, so the
 * fixtures are exactly what the format says (numpy is not needed to run the tests). */
#ifndef TENSOR_TEST_NPY_TEST_UTIL_H
#define TENSOR_TEST_NPY_TEST_UTIL_H
/* Needs _POSIX_C_SOURCE 200809L (mkdtemp, dirent) defined by the including file first. */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interop_test_util.h"

/* A scratch directory made on first use; each file name is joined to it in a static buffer
 * (one name at a time). */
static inline const char *npy_path(const char *name) {
    static char dir[64];
    static char path[256];
    if (dir[0] == '\0') {
        snprintf(dir, sizeof dir, "/tmp/tt_npy_test_XXXXXX");
        if (mkdtemp(dir) == NULL) fail_msg("mkdtemp failed");
    }
    if (name == NULL) return dir;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

/* Removes the files in the directory and the directory (group teardown). */
static inline int npy_cleanup(void **state) {
    (void)state;
    const char *dir = npy_path(NULL);
    DIR *d = opendir(dir);
    if (d == NULL) return -1;
    struct dirent *e;
    char path[320];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    return rmdir(dir);
}

static inline void write_bytes(const char *path, const void *bytes, size_t n) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (n > 0) assert_int_equal(fwrite(bytes, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* A .npy file of format `major`.0 whose header text is `dict` padded with spaces to a multiple
 * of 64 bytes and a final '\n' (pad = false: the text exactly as given), then n data bytes. */
static inline void write_npy(const char *path, int major, const char *dict, bool pad, const void *data, size_t n) {
    const size_t pre = major == 1 ? 10 : 12;
    size_t text = strlen(dict);
    size_t hlen = pad ? ((pre + text + 1 + 63) / 64 * 64 - pre) : text;
    unsigned char *buf = malloc(pre + hlen + n + 1);
    assert_non_null(buf);
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8 & 0xff);
    if (pre == 12) {
        buf[10] = (unsigned char)(hlen >> 16 & 0xff);
        buf[11] = (unsigned char)(hlen >> 24 & 0xff);
    }
    memcpy(buf + pre, dict, text);
    if (pad) {
        memset(buf + pre + text, ' ', hlen - text - 1);
        buf[pre + hlen - 1] = '\n';
    }
    if (n > 0) memcpy(buf + pre + hlen, data, n);
    write_bytes(path, buf, pre + hlen + n);
    free(buf);
}

static inline long file_size(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

#endif
