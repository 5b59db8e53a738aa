/* libFuzzer target: the disk cache's file parser (cuda/jit_cache.c) on arbitrary bytes. The
 * input is the file found for a fixed key; loading must never crash, and a file it accepts
 * must be exactly what a store of the loaded binary writes (nothing is accepted that is not a
 * valid encoding of this key). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda/jit.h"
#include "ops/reduction.h"

static char dir[64];
static const char key[] = "engine 0123; nvrtc 13.0; sm_90; fuzz key";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (dir[0] == '\0') {
        snprintf(dir, sizeof dir, "/tmp/tt_fuzz_cache_XXXXXX");
        if (mkdtemp(dir) == NULL) abort();
        tensor_jit_set_cache_dir(dir);
    }
    const uint64_t hash = tt_jit_hash(key, strlen(key), TT_JIT_HASH_SEED);
    char path[256];
    tt_jit_cache_path(hash, path, sizeof path);
    FILE *f = fopen(path, "wb");
    if (f == NULL) abort();
    if (size > 0 && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    tt_jit_binary bin;
    if (tt_jit_cache_load(key, hash, &bin)) {
        /* Accepted: storing it again must give the same bytes. */
        tt_jit_cache_store(key, hash, &bin);
        f = fopen(path, "rb");
        if (f == NULL) abort();
        unsigned char *again = malloc(size + 1);
        size_t n = fread(again, 1, size + 1, f);
        fclose(f);
        if (n != size || memcmp(again, data, size) != 0) abort();
        free(again);
        tt_jit_binary_clear(&bin);
    }
    remove(path);
    return 0;
}
