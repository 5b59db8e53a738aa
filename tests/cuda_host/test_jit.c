/* User reductions compiled at run time, the parts that need no GPU: the program text, NVRTC
 * (the compile runs where NVRTC is installed; elsewhere its absence must be a clean error) and
 * the disk cache (valid files load; corrupt, truncated and foreign ones are ignored). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_main.h"
#include "cuda/jit.h"
#include "ops/reduction.h"

/* The softmax denominator of docs/functors.md: a struct accumulator. */
static const char softmax_src[] =
    "typedef struct { float m, s; } sd_acc;\n"
    "static sd_acc sd_id(void) { sd_acc a = {-INFINITY, 0.0f}; return a; }\n"
    "static float sd_map(const float *x) { return x[0]; }\n"
    "static sd_acc sd_red(sd_acc a, float v) {\n"
    "    if (v > a.m) { a.s = a.s * expf(a.m - v) + 1.0f; a.m = v; } else a.s += expf(v - a.m);\n"
    "    return a;\n"
    "}\n"
    "static sd_acc sd_comb(sd_acc a, sd_acc b) {\n"
    "    if (b.m > a.m) { sd_acc t = a; a = b; b = t; }\n"
    "    if (b.s != 0.0f) a.s += b.s * expf(b.m - a.m);\n"
    "    return a;\n"
    "}\n"
    "static float sd_proj(sd_acc a, int64_t n) { (void)n; return a.s; }\n";
static const tensor_reduction_source softmax = {softmax_src, "sd_acc", "sd_id", "sd_map", "sd_red", "sd_comb", "sd_proj"};
/* A weighted sum of two inputs. */
static const char wsum_src[] = "static float ws_id(void) { return 0.0f; }\n"
                               "static float ws_map(const float *x) { return x[0] * x[1]; }\n"
                               "static float ws_add(float a, float b) { return a + b; }\n"
                               "static float ws_proj(float a, int64_t n) { (void)n; return a; }\n";
static const tensor_reduction_source wsum = {wsum_src, "float", "ws_id", "ws_map", "ws_add", "ws_add", "ws_proj"};

static void test_program_text(void **state) {
    (void)state;
    tt_jit_program p;
    assert_int_equal(tt_jit_program_make(&softmax, 1, TENSOR_REDUCTION_F32, TENSOR_FLOAT16, TENSOR_FLOAT32, 8, 0, &p, "t"),
                     TENSOR_OK);
    assert_non_null(strstr(p.text, softmax_src));
    assert_non_null(strstr(p.text, "using acc_t = sd_acc;"));
    assert_non_null(strstr(p.text, "sizeof(acc_t) == 8"));
    assert_string_equal(p.names[0], "tt_reduce::reduce_kernel<tt_reduce::Op<tt_jit::Family, tt_cvt::Half, float>, 1>");
    assert_null(p.names[3]); /* one kernel per program */
    uint64_t h1, h2, h3;
    char *k1 = tt_jit_key(&p, 90, "nvrtc 13.0", &h1), *k2 = tt_jit_key(&p, 80, "nvrtc 13.0", &h2);
    assert_non_null(k1);
    assert_non_null(k2);
    assert_true(h1 != h2); /* the architecture is part of the key */
    uint64_t h4;
    char *k4 = tt_jit_key(&p, 90, "nvrtc 12.9", &h4);
    assert_non_null(k4);
    assert_true(h4 != h1); /* and NVRTC's version */
    free(k4);
    tt_jit_program_clear(&p);
    assert_int_equal(tt_jit_program_make(&softmax, 1, TENSOR_REDUCTION_F32, TENSOR_FLOAT16, TENSOR_FLOAT32, 8, 3, &p, "t"),
                     TENSOR_OK);
    assert_string_equal(p.names[3], "tt_reduce::short_rows_kernel<tt_reduce::Op<tt_jit::Family, tt_cvt::Half, float>>");
    char *k3 = tt_jit_key(&p, 90, "nvrtc 13.0", &h3);
    assert_non_null(k3);
    assert_true(h3 != h1); /* so is the variant */
    free(k1);
    free(k2);
    free(k3);
    tt_jit_program_clear(&p);
    assert_int_equal(tt_jit_program_make(&softmax, 2, TENSOR_REDUCTION_F32, TENSOR_FLOAT32, TENSOR_FLOAT32, 8, 4, &p, "t"),
                     TENSOR_OK);
    assert_string_equal(p.names[4], "tt_reduce::lean_rows_kernel<tt_reduce::Op<tt_jit::Family, float, float>>");
    tt_jit_program_clear(&p);
    assert_int_equal(tt_jit_program_make(&softmax, 2, TENSOR_REDUCTION_F32, TENSOR_FLOAT32, TENSOR_FLOAT32, 8, 5, &p, "t"),
                     TENSOR_OK);
    assert_string_equal(p.names[5], "tt_reduce::rtiles_kernel<tt_reduce::Op<tt_jit::Family, float, float>>");
    tt_jit_program_clear(&p);
    assert_int_equal(tt_jit_program_make(&softmax, 1, TENSOR_REDUCTION_F32, TENSOR_FLOAT16, TENSOR_FLOAT32, 8, 6, &p, "t"),
                     TENSOR_ERR_INTERNAL);
    tensor_reduction_source bad = softmax;
    bad.reduce = NULL;
    assert_int_equal(tt_jit_program_make(&bad, 1, TENSOR_REDUCTION_F32, TENSOR_FLOAT32, TENSOR_FLOAT32, 8, 0, &p, "t"),
                     TENSOR_ERR_INVALID_ARGUMENT);
}

static void test_compile(void **state) {
    (void)state;
    if (tt_jit_nvrtc_available("t") != TENSOR_OK) {
        /* No NVRTC here (CI): that must be a clean error naming NVRTC. */
        assert_int_equal(tensor_last_status(), TENSOR_ERR_NOT_IMPLEMENTED);
        assert_non_null(strstr(tensor_last_error(), "NVRTC"));
        print_message("NVRTC not found: the compile checks are skipped\n");
        return;
    }
    tt_jit_program p;
    assert_int_equal(tt_jit_program_make(&softmax, 1, TENSOR_REDUCTION_F32, TENSOR_FLOAT16, TENSOR_FLOAT32, 8, 3, &p, "t"),
                     TENSOR_OK);
    tt_jit_binary b;
    if (tt_jit_compile(&p, 90, &b, "t") != TENSOR_OK) fail_msg("compile: %s", tensor_last_error());
    assert_true(b.size > 1000);
    /* One kernel per program: the short-rows variant's lowered name, the others empty. */
    for (int k = 0; k < TT_JIT_KERNELS; k++)
        if (k == 3) assert_non_null(strstr(b.lowered[k], "short_rows_kernel"));
        else assert_string_equal(b.lowered[k], "");
    tt_jit_binary_clear(&b);
    tt_jit_program_clear(&p);
    /* Two inputs, the general kernel: its row loops for several inputs (with and without an
     * input repeated along the row) compile under NVRTC too. */
    assert_int_equal(tt_jit_program_make(&wsum, 2, TENSOR_REDUCTION_F32, TENSOR_FLOAT32, TENSOR_FLOAT32, 4, 0, &p, "t"),
                     TENSOR_OK);
    if (tt_jit_compile(&p, 90, &b, "t") != TENSOR_OK) fail_msg("compile, two inputs: %s", tensor_last_error());
    assert_non_null(strstr(b.lowered[0], "reduce_kernel"));
    tt_jit_binary_clear(&b);
    tt_jit_program_clear(&p);
    /* ... and the tile kernel of two layouts */
    assert_int_equal(tt_jit_program_make(&wsum, 2, TENSOR_REDUCTION_F32, TENSOR_FLOAT32, TENSOR_FLOAT32, 4, 5, &p, "t"),
                     TENSOR_OK);
    if (tt_jit_compile(&p, 90, &b, "t") != TENSOR_OK) fail_msg("compile, tiles: %s", tensor_last_error());
    assert_non_null(strstr(b.lowered[5], "rtiles_kernel"));
    tt_jit_binary_clear(&b);
    tt_jit_program_clear(&p);
    /* The accumulator's size is checked against the definition's. */
    assert_int_equal(tt_jit_program_make(&softmax, 1, TENSOR_REDUCTION_F32, TENSOR_FLOAT32, TENSOR_FLOAT32, 12, 0, &p, "t"),
                     TENSOR_OK);
    assert_int_equal(tt_jit_compile(&p, 90, &b, "t"), TENSOR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(tensor_last_error(), "accumulator's size on the GPU differs"));
    tt_jit_program_clear(&p);
    /* A functor that does not compile: the log's start is in the message. */
    tensor_reduction_source broken = softmax;
    broken.code = "static float f(void) { return undefined_name; }\n";
    broken.acc_type = "float";
    assert_int_equal(tt_jit_program_make(&broken, 1, TENSOR_REDUCTION_F32, TENSOR_FLOAT32, TENSOR_FLOAT32, 4, 0, &p, "t"),
                     TENSOR_OK);
    assert_int_equal(tt_jit_compile(&p, 90, &b, "t"), TENSOR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(tensor_last_error(), "NVRTC could not compile"));
    assert_non_null(strstr(tensor_last_error(), "undefined_name"));
    tt_jit_program_clear(&p);
}

/* TENSOR_NVRTC_LIBRARY naming a missing file (the ctest jit_no_nvrtc sets it): a clean error. */
static void test_missing_nvrtc(void **state) {
    (void)state;
    const char *lib = getenv("TENSOR_NVRTC_LIBRARY");
    if (lib == NULL || access(lib, F_OK) == 0) {
        print_message("TENSOR_NVRTC_LIBRARY does not name a missing file: skipped\n");
        return;
    }
    assert_int_equal(tt_jit_nvrtc_available("tensor_reduce (CUDA)"), TENSOR_ERR_NOT_IMPLEMENTED);
    assert_non_null(strstr(tensor_last_error(), "tensor_reduce (CUDA): compiling a user reduction for CUDA needs NVRTC"));
    assert_string_equal(tt_jit_nvrtc_version(), "");
}

static void fake_binary(tt_jit_binary *b) {
    memset(b, 0, sizeof *b);
    b->size = 3000;
    b->cubin = malloc(b->size);
    assert_non_null(b->cubin);
    for (size_t i = 0; i < b->size; i++) ((unsigned char *)b->cubin)[i] = (unsigned char)(i * 7);
    for (int k = 0; k < TT_JIT_KERNELS; k++) {
        b->lowered[k] = malloc(16);
        assert_non_null(b->lowered[k]);
        /* as a one-variant program: one lowered name, the others empty */
        if (k == 2) snprintf(b->lowered[k], 16, "_Zkernel%d", k);
        else b->lowered[k][0] = '\0';
    }
}

static void flip_byte(const char *path, long at) {
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, at, SEEK_SET), 0);
    int c = fgetc(f);
    assert_int_equal(fseek(f, at, SEEK_SET), 0);
    fputc(c ^ 0x40, f);
    fclose(f);
}

static void test_disk_cache(void **state) {
    (void)state;
    char dir[] = "/tmp/tt_jit_cache_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[300];
    snprintf(sub, sizeof sub, "%s/a/b", dir); /* created on the first store */
    assert_int_equal(tensor_jit_set_cache_dir(sub), TENSOR_OK);
    char got[400];
    assert_int_equal(tensor_jit_cache_dir(got, sizeof got), (int64_t)strlen(sub));
    assert_string_equal(got, sub);
    const char *key = "engine 1; nvrtc 13.0; sm_90; program text";
    const uint64_t hash = tt_jit_hash(key, strlen(key), TT_JIT_HASH_SEED);
    tt_jit_binary b, r;
    fake_binary(&b);
    assert_int_equal(tt_jit_cache_load(key, hash, &r), 0); /* nothing yet */
    tt_jit_cache_store(key, hash, &b);
    assert_int_equal(tt_jit_cache_load(key, hash, &r), 1);
    assert_int_equal(r.size, b.size);
    assert_memory_equal(r.cubin, b.cubin, b.size);
    for (int k = 0; k < TT_JIT_KERNELS; k++) assert_string_equal(r.lowered[k], b.lowered[k]);
    tt_jit_binary_clear(&r);
    /* Another key that lands on the same file is not trusted. */
    assert_int_equal(tt_jit_cache_load("engine 1; another program", hash, &r), 0);
    char path[600];
    tt_jit_cache_path(hash, path, sizeof path);
    /* A flipped byte anywhere (header, key, names, cubin, checksum) makes it invalid. */
    long offsets[] = {0, 9, 30, 100, 500, 2000};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        tt_jit_cache_store(key, hash, &b);
        flip_byte(path, offsets[i]);
        assert_int_equal(tt_jit_cache_load(key, hash, &r), 0);
    }
    /* Truncated: invalid; the next store replaces it. */
    tt_jit_cache_store(key, hash, &b);
    assert_int_equal(truncate(path, 1234), 0);
    assert_int_equal(tt_jit_cache_load(key, hash, &r), 0);
    tt_jit_cache_store(key, hash, &b);
    assert_int_equal(tt_jit_cache_load(key, hash, &r), 1);
    tt_jit_binary_clear(&r);
    /* A cubin size field of 2^64 - 1 with 7 bytes after it (size + 8 wraps to 7): ignored, and
     * no allocation of that size is attempted (a fuzz finding). */
    {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        const uint64_t klen = strlen(key), huge = UINT64_MAX, empty = 0;
        fwrite("TTJITC03", 1, 8, f);
        fwrite(&hash, 8, 1, f);
        fwrite(&klen, 8, 1, f);
        fwrite(key, 1, klen, f);
        for (int k = 0; k < TT_JIT_KERNELS; k++) fwrite(&empty, 8, 1, f);
        fwrite(&huge, 8, 1, f);
        fwrite("1234567", 1, 7, f);
        fclose(f);
        assert_int_equal(tt_jit_cache_load(key, hash, &r), 0);
    }
    /* Off: nothing is read or written. */
    assert_int_equal(tensor_jit_set_cache_dir(""), TENSOR_OK);
    assert_int_equal(tensor_jit_cache_dir(got, sizeof got), 0);
    assert_int_equal(tt_jit_cache_load(key, hash, &r), 0);
    assert_int_equal(tensor_jit_cache_dir(NULL, 5), -1);
    /* The default again. */
    assert_int_equal(tensor_jit_set_cache_dir(NULL), TENSOR_OK);
    remove(path);
    rmdir(sub);
    snprintf(sub, sizeof sub, "%s/a", dir);
    rmdir(sub);
    rmdir(dir);
    tt_jit_binary_clear(&b);
}

/* The record of which NVRTC was loaded: read back only while the library file is the same and
 * TENSOR_NVRTC_LIBRARY is as it was; anything malformed is ignored. */
static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_nvrtc_record(void **state) {
    (void)state;
    char dir[] = "/tmp/tt_jit_rec_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char lib[300], rec[300], v[64];
    snprintf(lib, sizeof lib, "%s/libfake_nvrtc.so", dir);
    snprintf(rec, sizeof rec, "%s/nvrtc.id", dir);
    write_text(lib, "not really a library");
    const char *env = getenv("TENSOR_NVRTC_LIBRARY");
    char *saved_env = env != NULL ? strdup(env) : NULL;
    unsetenv("TENSOR_NVRTC_LIBRARY");
    assert_int_equal(tensor_jit_set_cache_dir(dir), TENSOR_OK);
    assert_int_equal(tt_jit_cache_recall_nvrtc(v, sizeof v), 0); /* no record yet */
    tt_jit_cache_note_nvrtc(lib, "nvrtc 12.4");
    assert_int_equal(tt_jit_cache_recall_nvrtc(v, sizeof v), 1);
    assert_string_equal(v, "nvrtc 12.4");
    assert_int_equal(tt_jit_cache_recall_nvrtc(v, 5), 0); /* does not fit: not used */
    /* another TENSOR_NVRTC_LIBRARY than recorded: ignored */
    setenv("TENSOR_NVRTC_LIBRARY", lib, 1);
    assert_int_equal(tt_jit_cache_recall_nvrtc(v, sizeof v), 0);
    unsetenv("TENSOR_NVRTC_LIBRARY");
    assert_int_equal(tt_jit_cache_recall_nvrtc(v, sizeof v), 1);
    /* the library file changed (size, so the identity): ignored */
    write_text(lib, "another library, longer than the first");
    assert_int_equal(tt_jit_cache_recall_nvrtc(v, sizeof v), 0);
    tt_jit_cache_note_nvrtc(lib, "nvrtc 12.5");
    assert_int_equal(tt_jit_cache_recall_nvrtc(v, sizeof v), 1);
    assert_string_equal(v, "nvrtc 12.5");
    /* gone: ignored */
    remove(lib);
    assert_int_equal(tt_jit_cache_recall_nvrtc(v, sizeof v), 0);
    tt_jit_cache_note_nvrtc(lib, "nvrtc 12.5"); /* a missing file is not recorded */
    assert_int_equal(tt_jit_cache_recall_nvrtc(v, sizeof v), 0);
    /* malformed records: ignored */
    write_text(lib, "x");
    const char *bad[] = {"", "TTNVRTC1\n", "TTNVRTC0\nnvrtc 1.0\n-\n1 2 3 4 5\n/x\n",
                         "TTNVRTC1\nversion 9\n-\n1 2 3 4 5\n/x\n", "TTNVRTC1\nnvrtc 1.0\n-\n1 2 3 4 5\nrelative\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_text(rec, bad[i]);
        assert_int_equal(tt_jit_cache_recall_nvrtc(v, sizeof v), 0);
    }
    /* the cache off: nothing recorded or read */
    assert_int_equal(tensor_jit_set_cache_dir(""), TENSOR_OK);
    tt_jit_cache_note_nvrtc(lib, "nvrtc 12.5");
    assert_int_equal(tt_jit_cache_recall_nvrtc(v, sizeof v), 0);
    assert_int_equal(tensor_jit_set_cache_dir(NULL), TENSOR_OK);
    if (saved_env != NULL) setenv("TENSOR_NVRTC_LIBRARY", saved_env, 1);
    free(saved_env);
    remove(rec);
    remove(lib);
    rmdir(dir);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_program_text),
    cmocka_unit_test(test_compile),
    cmocka_unit_test(test_missing_nvrtc),
    cmocka_unit_test(test_disk_cache),
    cmocka_unit_test(test_nvrtc_record),
};

TENSOR_TEST_GROUP(jit, tests, NULL, NULL)
