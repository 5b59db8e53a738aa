/* CPU benchmark of tensor_sum over the cases of bench/cuda/cases.json, scaled to fit a small
 * machine (bench/run_cpu_bench.py does the scaling and writes the case file).
 *
 *   bench_cpu_sum [--cases FILE] [--min-time SECONDS] [--no-flush] [--ceiling-mib N]
 *
 * Case file: one case per line, '#' starts a comment:
 *   name dtype transposed keepdim shape dims
 *   e.g.  inner_4096sq float32 0 0 4096,4096 1      (dims: comma list, or "all")
 * "transposed" = the input is the transpose (dims 0 and 1 swapped) of a contiguous tensor of
 * `shape`, as x.t() in cases.json; the dims then index the transposed view.
 * Without --cases a few built-in cases run.
 *
 * For each case: one warm-up run, then N timed runs (N from --min-time, 5..200), each after
 * evicting the caches (a read-modify-write of a 64 MiB buffer) unless --no-flush; the median
 * time gives GB/s = input bytes / time. Runs with 1 thread (tensor_set_num_threads(1)) and
 * with all threads (tensor_set_num_threads(0)). Also measures a read-bandwidth ceiling in the same process: a
 * plain float32 sum over a large buffer with independent accumulators (vectorised by the
 * compiler), on 1 thread and on all cores (pthreads), before and after the cases (the last
 * ceiling line has the higher of the two).
 *
 * Output: one JSON object per line (for the script), and a readable table on stderr. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tinytensor.h"

#define MAX_CASES 128

typedef struct bench_case {
    char name[64];
    tensor_dtype dtype;
    int transposed;
    int keepdim;
    int ndim;
    int64_t shape[TENSOR_MAX_DIMS];
    int ndims; /* -1: all dims (dims = NULL) */
    int dims[TENSOR_MAX_DIMS];
} bench_case;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- cache eviction ---- */
static unsigned char *flush_buf;
static size_t flush_bytes = (size_t)64 << 20;
/* A read-modify-write of every cache line: ordinary loads and stores that allocate in every
 * level (a large memset may use non-temporal stores and leave the caches as they were). */
static void flush_caches(void) {
    volatile unsigned char *p = flush_buf;
    for (size_t i = 0; i < flush_bytes; i += 64) p[i] = (unsigned char)(p[i] + 1);
}

/* ---- read ceiling: float32 sum with 32 independent accumulators ----
 * over `streams` equal parts of the buffer read side by side (1 = one sequential stream; more
 * streams keep more hardware prefetchers busy, as a kernel summing several rows at once does).
 * The ceiling reported is the best of 1, 2, 4 and 8 streams. */
typedef struct ceil_arg {
    const float *p;
    size_t n;
    int streams;
    float out;
} ceil_arg;

static void *ceil_sum(void *argp) {
    ceil_arg *a = argp;
    float acc[32] = {0};
    const int S = a->streams;
    size_t part = (a->n / (size_t)S) & ~(size_t)31, i = 0;
    for (; i < part; i += 32)
        for (int k = 0; k < S; k++) {
            const float *q = a->p + (size_t)k * part + i;
            for (int j = 0; j < 32; j++) acc[j] += q[j];
        }
    float s = 0;
    for (i = part * (size_t)S; i < a->n; i++) s += a->p[i];
    for (int j = 0; j < 32; j++) s += acc[j];
    a->out = s;
    return NULL;
}

/* GB/s reading n floats with `threads` threads and `streams` streams each: median of `reps`. */
static double read_ceiling(const float *buf, size_t n, int threads, int streams, int reps) {
    double *t = malloc(sizeof(double) * (size_t)reps);
    volatile float sink = 0;
    for (int r = -1; r < reps; r++) { /* r == -1: warm-up */
        ceil_arg args[64];
        pthread_t tid[64];
        size_t chunk = n / (size_t)threads;
        double t0 = now_s();
        for (int k = 0; k < threads; k++) {
            args[k].p = buf + (size_t)k * chunk;
            args[k].n = k == threads - 1 ? n - (size_t)k * chunk : chunk;
            args[k].streams = streams;
            if (k == 0) continue;
            pthread_create(&tid[k], NULL, ceil_sum, &args[k]);
        }
        ceil_sum(&args[0]);
        for (int k = 1; k < threads; k++) pthread_join(tid[k], NULL);
        double dt = now_s() - t0;
        for (int k = 0; k < threads; k++) sink += args[k].out;
        if (r >= 0) t[r] = dt;
    }
    (void)sink;
    double m = median(t, reps);
    free(t);
    return (double)(n * sizeof(float)) / m / 1e9;
}

/* The ceilings: 1 thread with 1, 2, 4, 8 streams (the best is the 1-core ceiling) and all
 * cores (the best over the stream counts). */
typedef struct ceiling_t {
    double streams[4], one, all;
} ceiling_t;

static void measure_ceiling(const float *buf, size_t n, int ncores, ceiling_t *c) {
    c->one = c->all = 0;
    for (int k = 0; k < 4; k++) {
        c->streams[k] = read_ceiling(buf, n, 1, 1 << k, 7);
        if (c->streams[k] > c->one) c->one = c->streams[k];
        const double g = read_ceiling(buf, n, ncores, 1 << k, 7);
        if (g > c->all) c->all = g;
    }
}

/* One JSON line (the script keeps the last) and a readable one. after == NULL: the first
 * measurement alone; else the higher of the two, with both 1-core figures. */
static void print_ceiling(const ceiling_t *before, const ceiling_t *after, int all_threads, long ncpu,
                          size_t ceil_mib, int flush, int ncores) {
    ceiling_t m = *before;
    if (after != NULL) {
        for (int k = 0; k < 4; k++)
            if (after->streams[k] > m.streams[k]) m.streams[k] = after->streams[k];
        if (after->one > m.one) m.one = after->one;
        if (after->all > m.all) m.all = after->all;
    }
    printf("{\"ceiling\": true, \"read_gbps_1t\": %.3f, \"read_gbps_all\": %.3f, \"read_gbps_1t_streams\": "
           "[%.3f, %.3f, %.3f, %.3f], \"read_gbps_1t_before\": %.3f, \"read_gbps_1t_after\": %.3f, "
           "\"threads_all\": %d, \"cpus\": %ld, \"buffer_mib\": %zu, \"flush\": %d}\n",
           m.one, m.all, m.streams[0], m.streams[1], m.streams[2], m.streams[3], before->one,
           after != NULL ? after->one : -1.0, all_threads, ncpu, ceil_mib, flush);
    fflush(stdout);
    fprintf(stderr,
            "read ceiling%s (float32 sum loop, %zu MiB): 1 thread %.2f GB/s (1/2/4/8 streams: %.2f %.2f %.2f %.2f), "
            "%d threads %.2f GB/s\n",
            after != NULL ? ", higher of before and after the cases" : " before the cases", ceil_mib, m.one,
            m.streams[0], m.streams[1], m.streams[2], m.streams[3], ncores, m.all);
}

/* ---- cases ---- */

static tensor_dtype parse_dtype(const char *s) {
    static const struct {
        const char *name;
        tensor_dtype d;
    } names[] = {{"bool", TENSOR_BOOL},       {"uint8", TENSOR_UINT8},     {"int8", TENSOR_INT8},
                 {"int16", TENSOR_INT16},     {"int32", TENSOR_INT32},     {"int64", TENSOR_INT64},
                 {"float16", TENSOR_FLOAT16}, {"bfloat16", TENSOR_BFLOAT16}, {"float32", TENSOR_FLOAT32},
                 {"float64", TENSOR_FLOAT64}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0) return names[i].d;
    return TENSOR_DTYPE_DEFAULT;
}

static int parse_list64(const char *s, int64_t *out) {
    int n = 0;
    while (*s && n < TENSOR_MAX_DIMS) {
        char *end;
        out[n++] = strtoll(s, &end, 10);
        if (end == s) return -1;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

static int parse_case(const char *line, bench_case *c) {
    char dtype[32], shape[256], dims[128];
    memset(c, 0, sizeof *c);
    if (sscanf(line, "%63s %31s %d %d %255s %127s", c->name, dtype, &c->transposed, &c->keepdim, shape, dims) != 6)
        return -1;
    c->dtype = parse_dtype(dtype);
    if (c->dtype == TENSOR_DTYPE_DEFAULT) return -1;
    c->ndim = parse_list64(shape, c->shape);
    if (c->ndim <= 0) return -1;
    if (strcmp(dims, "all") == 0) {
        c->ndims = -1;
    } else {
        int64_t d[TENSOR_MAX_DIMS];
        c->ndims = parse_list64(dims, d);
        if (c->ndims < 0) return -1;
        for (int i = 0; i < c->ndims; i++) c->dims[i] = (int)d[i];
    }
    return 0;
}

static const char *builtin_cases[] = {
    "inner_4096sq float32 0 0 4096,4096 1",
    "outer_4096sq float32 0 0 4096,4096 0",
    "full_16M float32 0 0 16777216 all",
    "transposed_4096 float32 1 0 4096,4096 1",
    "f16_inner_4096sq float16 0 0 4096,4096 1",
};

/* Fills t (contiguous, CPU) with cheap pseudo-random values of its dtype. */
static int fill_input(tensor_t *t, uint64_t seed) {
    tensor_dtype d = tensor_get_dtype(t);
    int64_t n = tensor_numel(t);
    if (tensor_dtype_is_floating(d)) {
        tensor_t *r = tensor_rand(tensor_ndim(t), tensor_sizes(t), seed, d, tensor_cpu());
        if (r == NULL) return -1;
        memcpy(tensor_data(t), tensor_data(r), (size_t)n * tensor_dtype_size(d));
        tensor_release(r);
        return 0;
    }
    size_t es = tensor_dtype_size(d);
    unsigned char *p = tensor_data(t);
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (int64_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        int64_t v = (int64_t)(s >> 60) - 8; /* -8..7 */
        if (d == TENSOR_BOOL || d == TENSOR_UINT8) v &= 1;
        tensor_dtype_store_int64(d, p + (size_t)i * es, v);
    }
    return 0;
}

static void shape_str(const bench_case *c, char *buf, size_t n) {
    size_t l = 0;
    for (int i = 0; i < c->ndim; i++)
        l += (size_t)snprintf(buf + l, n - l, "%s%lld", i ? "x" : "", (long long)c->shape[i]);
}

static void dims_str(const bench_case *c, char *buf, size_t n) {
    if (c->ndims < 0) {
        snprintf(buf, n, "all");
        return;
    }
    size_t l = 0;
    for (int i = 0; i < c->ndims; i++) l += (size_t)snprintf(buf + l, n - l, "%s%d", i ? "," : "", c->dims[i]);
}

/* Median seconds of tensor_sum on x; NAN on error. */
static double time_sum(const tensor_t *x, const bench_case *c, double min_time, int flush, int *reps_out) {
    const int *dims = c->ndims < 0 ? NULL : c->dims;
    int nd = c->ndims < 0 ? 0 : c->ndims;
    double t0 = now_s();
    tensor_t *r = tensor_sum_dims(x, dims, nd, c->keepdim, TENSOR_DTYPE_DEFAULT); /* warm-up */
    double est = now_s() - t0;
    if (r == NULL) {
        fprintf(stderr, "%s: %s\n", c->name, tensor_last_error());
        return NAN;
    }
    tensor_release(r);
    int reps = est > 0 ? (int)(min_time / est) : 200;
    if (reps < 5) reps = 5;
    if (reps > 200) reps = 200;
    double *t = malloc(sizeof(double) * (size_t)reps);
    for (int i = 0; i < reps; i++) {
        if (flush) flush_caches();
        double a = now_s();
        r = tensor_sum_dims(x, dims, nd, c->keepdim, TENSOR_DTYPE_DEFAULT);
        t[i] = now_s() - a;
        tensor_release(r);
    }
    double m = median(t, reps);
    free(t);
    *reps_out = reps;
    return m;
}

int main(int argc, char **argv) {
    const char *case_file = NULL;
    double min_time = 1.0;
    int flush = 1;
    size_t ceil_mib = 512;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cases") == 0 && i + 1 < argc) case_file = argv[++i];
        else if (strcmp(argv[i], "--min-time") == 0 && i + 1 < argc) min_time = atof(argv[++i]);
        else if (strcmp(argv[i], "--no-flush") == 0) flush = 0;
        else if (strcmp(argv[i], "--ceiling-mib") == 0 && i + 1 < argc) ceil_mib = (size_t)atol(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--cases FILE] [--min-time S] [--no-flush] [--ceiling-mib N]\n", argv[0]);
            return 2;
        }
    }
    bench_case cases[MAX_CASES];
    int ncases = 0;
    if (case_file) {
        FILE *f = fopen(case_file, "r");
        if (!f) {
            fprintf(stderr, "cannot open %s: %s\n", case_file, strerror(errno));
            return 2;
        }
        char line[512];
        while (fgets(line, sizeof line, f) && ncases < MAX_CASES) {
            char *h = strchr(line, '#');
            if (h) *h = 0;
            if (strspn(line, " \t\r\n") == strlen(line)) continue;
            if (parse_case(line, &cases[ncases]) != 0) {
                fprintf(stderr, "bad case line: %s", line);
                fclose(f);
                return 2;
            }
            ncases++;
        }
        fclose(f);
    } else {
        for (size_t i = 0; i < sizeof builtin_cases / sizeof builtin_cases[0]; i++)
            if (parse_case(builtin_cases[i], &cases[ncases]) == 0) ncases++;
    }

    flush_buf = malloc(flush_bytes);
    if (!flush_buf) return 1;
    memset(flush_buf, 1, flush_bytes);

    tensor_set_num_threads(0);
    int all_threads = tensor_get_num_threads();
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

    /* ceiling: measured before and after the cases; the last line printed holds the higher
     * of the two per stream count (a transient load on a shared machine lowers one of them,
     * and a low ceiling would flatter every case) */
    size_t cn = (ceil_mib << 20) / sizeof(float);
    float *cbuf = malloc(cn * sizeof(float));
    if (!cbuf) return 1;
    for (size_t i = 0; i < cn; i++) cbuf[i] = (float)(i & 1023) * 0.001f;
    int ncores = (int)(ncpu > 0 && ncpu <= 64 ? ncpu : 1);
    ceiling_t before, after;
    measure_ceiling(cbuf, cn, ncores, &before);
    print_ceiling(&before, NULL, all_threads, ncpu, ceil_mib, flush, ncores);
    fprintf(stderr, "%-20s %-16s %-5s %-9s %9s %10s %10s\n", "case", "shape", "dims", "dtype", "MB", "GB/s 1t",
            "GB/s all");

    for (int ci = 0; ci < ncases; ci++) {
        bench_case *c = &cases[ci];
        tensor_t *base = tensor_empty(c->ndim, c->shape, c->dtype, tensor_cpu());
        if (!base || fill_input(base, (uint64_t)ci + 1) != 0) {
            fprintf(stderr, "%s: cannot allocate input: %s\n", c->name, tensor_last_error());
            tensor_release(base);
            continue;
        }
        tensor_t *x = c->transposed ? tensor_transpose(base, 0, 1) : tensor_retain(base);
        double bytes = (double)tensor_numel(base) * (double)tensor_dtype_size(c->dtype);
        double gb[2], sec[2];
        int reps[2] = {0, 0};
        for (int k = 0; k < 2; k++) {
            tensor_set_num_threads(k == 0 ? 1 : 0);
            sec[k] = time_sum(x, c, min_time, flush, &reps[k]);
            gb[k] = bytes / sec[k] / 1e9;
        }
        tensor_set_num_threads(0);
        char sh[128], ds[64];
        shape_str(c, sh, sizeof sh);
        dims_str(c, ds, sizeof ds);
        printf("{\"case\": \"%s\", \"shape\": \"%s\", \"dims\": \"%s\", \"dtype\": \"%s\", \"transposed\": %d, "
               "\"keepdim\": %d, \"bytes\": %.0f, \"gbps_1t\": %.4f, \"gbps_all\": %.4f, \"us_1t\": %.3f, "
               "\"us_all\": %.3f, \"reps_1t\": %d, \"reps_all\": %d}\n",
               c->name, sh, ds, tensor_dtype_name(c->dtype), c->transposed, c->keepdim, bytes, gb[0], gb[1],
               sec[0] * 1e6, sec[1] * 1e6, reps[0], reps[1]);
        fflush(stdout);
        fprintf(stderr, "%-20s %-16s %-5s %-9s %9.2f %10.2f %10.2f\n", c->name, sh, ds, tensor_dtype_name(c->dtype),
                bytes / 1e6, gb[0], gb[1]);
        tensor_release(x);
        tensor_release(base);
    }
    measure_ceiling(cbuf, cn, ncores, &after);
    free(cbuf);
    print_ceiling(&before, &after, all_threads, ncpu, ceil_mib, flush, ncores);
    free(flush_buf);
    return 0;
}
