/* CPU tensor_vecdot (the fused sum(a * b) of the reduction kit) on the shapes given, 1 thread
 * and all threads: for each case, the median of N timed calls (N = min-time / the first call,
 * 5..200), each after a read-modify-write of a 64 MiB buffer that evicts the caches. Prints one
 * line a case for bench/run_cpu_vecdot.py:
 *   case A_SHAPE B_SHAPE DIM DTYPE BYTES MS_1THREAD MS_ALL THREADS
 * (BYTES: both inputs as stored; shapes as 1000x8192). Usage:
 *   bench_cpu_vecdot [--min-time S] A_SHAPE B_SHAPE DIM DTYPE [A_SHAPE B_SHAPE DIM DTYPE ...] */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tinytensor.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int parse_shape(const char *s, int64_t *sh) {
    int n = 0;
    while (*s && n < 8) {
        char *end;
        sh[n++] = strtoll(s, &end, 10);
        if (end == s) return -1;
        s = *end == 'x' ? end + 1 : end;
    }
    return *s ? -1 : n;
}
static int parse_dtype(const char *s, tensor_dtype *dt) {
    static const tensor_dtype all[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_FLOAT16, TENSOR_BFLOAT16, TENSOR_INT64,
                                       TENSOR_INT32,   TENSOR_INT16,   TENSOR_INT8,    TENSOR_UINT8};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(s, tensor_dtype_name(all[i])) == 0) return *dt = all[i], 0;
    return -1;
}

/* Uniform values in [0, 1) for floating dtypes, integers in [0, 100) for the others. */
static tensor_t *make_input(int nd, const int64_t *shape, uint64_t seed, tensor_dtype dt) {
    if (tensor_dtype_is_floating(dt)) return tensor_rand(nd, shape, seed, dt, tensor_cpu());
    tensor_t *f = tensor_rand(nd, shape, seed, TENSOR_FLOAT32, tensor_cpu());
    tensor_t *g = f ? tensor_mul_scalar(f, tensor_scalar_float(100.0)) : NULL;
    tensor_t *r = g ? tensor_to_dtype(g, dt) : NULL;
    tensor_release(f);
    tensor_release(g);
    return r;
}

/* The input of `shape`; transposed (a shape written "t4096x8192"): the transpose of its last two
 * dims of a contiguous tensor of those two dims swapped, a view that is not contiguous. */
static tensor_t *make_input_view(int transposed, int nd, const int64_t *shape, uint64_t seed, tensor_dtype dt) {
    if (!transposed || nd < 2) return make_input(nd, shape, seed, dt);
    int64_t sw[8];
    memcpy(sw, shape, (size_t)nd * sizeof sw[0]);
    sw[nd - 2] = shape[nd - 1];
    sw[nd - 1] = shape[nd - 2];
    tensor_t *c = make_input(nd, sw, seed, dt);
    tensor_t *t = c ? tensor_transpose(c, nd - 2, nd - 1) : NULL;
    tensor_release(c);
    return t;
}

static volatile unsigned char *flush_buf;
static void flush_caches(void) {
    for (size_t i = 0; i < ((size_t)64 << 20); i += 64) flush_buf[i]++;
}

/* Median seconds of tensor_vecdot(a, b, dim); exits on an error. */
static double time_vecdot(const tensor_t *a, const tensor_t *b, int dim, double min_time) {
    double t[200];
    int n = 0, want = 5;
    while (n < want) {
        flush_caches();
        const double t0 = now_s();
        tensor_t *r = tensor_vecdot(a, b, dim);
        t[n] = now_s() - t0;
        if (r == NULL) {
            fprintf(stderr, "tensor_vecdot: %s\n", tensor_last_error());
            exit(1);
        }
        tensor_release(r);
        if (n++ == 0) {
            const double k = min_time / (t[0] > 1e-9 ? t[0] : 1e-9);
            want = k < 5 ? 5 : k > 200 ? 200 : (int)k;
        }
    }
    qsort(t, (size_t)n, sizeof t[0], cmp_double);
    return t[n / 2];
}

int main(int argc, char **argv) {
    double min_time = 1.0;
    int i = 1;
    if (i + 1 < argc && strcmp(argv[i], "--min-time") == 0) min_time = atof(argv[i + 1]), i += 2;
    if ((argc - i) % 4 != 0 || argc == i) {
        fprintf(stderr, "usage: %s [--min-time S] A_SHAPE B_SHAPE DIM DTYPE ... (a shape tRxC: transposed)\n", argv[0]);
        return 2;
    }
    flush_buf = calloc((size_t)64 << 20, 1);
    if (flush_buf == NULL) return 1;
    tensor_set_num_threads(0);
    const int all = tensor_get_num_threads();
    for (; i < argc; i += 4) {
        int64_t sa[8], sb[8];
        tensor_dtype dt;
        const int na = parse_shape(argv[i] + (argv[i][0] == 't'), sa);
        const int nb = parse_shape(argv[i + 1] + (argv[i + 1][0] == 't'), sb), dim = atoi(argv[i + 2]);
        if (na < 1 || nb < 1 || parse_dtype(argv[i + 3], &dt) != 0) {
            fprintf(stderr, "bad case: %s %s %s %s\n", argv[i], argv[i + 1], argv[i + 2], argv[i + 3]);
            return 2;
        }
        tensor_t *a = make_input_view(argv[i][0] == 't', na, sa, 1, dt);
        tensor_t *b = make_input_view(argv[i + 1][0] == 't', nb, sb, 2, dt);
        if (a == NULL || b == NULL) {
            fprintf(stderr, "tensor_rand: %s\n", tensor_last_error());
            return 1;
        }
        const int64_t bytes = (tensor_numel(a) + tensor_numel(b)) * (int64_t)tensor_dtype_size(dt);
        double ms[2];
        for (int k = 0; k < 2; k++) {
            tensor_set_num_threads(k == 0 ? 1 : 0);
            ms[k] = time_vecdot(a, b, dim, min_time) * 1e3;
        }
        printf("case %s %s %d %s %lld %.6f %.6f %d\n", argv[i], argv[i + 1], dim, argv[i + 3], (long long)bytes, ms[0],
               ms[1], all);
        fflush(stdout);
        tensor_release(a);
        tensor_release(b);
    }
    free((void *)flush_buf);
    return 0;
}
