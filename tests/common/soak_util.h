/* Shared by the soak tests (tests/soak, tests/cuda/test_cuda_soak.c): failures recorded from
 * worker threads (cmocka's asserts are not thread-safe: a count and the first message, read by
 * the main thread after the join), the monotonic clock, and the resident set. Static functions:
 * a file pays for what it uses. */
#ifndef TENSOR_TEST_SOAK_UTIL_H
#define TENSOR_TEST_SOAK_UTIL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static atomic_int soak_failures;
static char soak_first_failure[512];
static pthread_mutex_t soak_failure_lock = PTHREAD_MUTEX_INITIALIZER;

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static inline void soak_fail(const char *fmt, ...) {
    if (atomic_fetch_add(&soak_failures, 1) == 0) {
        va_list ap;
        va_start(ap, fmt);
        pthread_mutex_lock(&soak_failure_lock);
        vsnprintf(soak_first_failure, sizeof soak_first_failure, fmt, ap);
        pthread_mutex_unlock(&soak_failure_lock);
        va_end(ap);
    }
}

static inline double soak_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The resident set in KiB (/proc/self/statm), or -1. */
static inline int64_t soak_rss_kib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL) return -1;
    long size = 0, resident = 0;
    const int n = fscanf(f, "%ld %ld", &size, &resident);
    fclose(f);
    return n == 2 ? (int64_t)resident * (sysconf(_SC_PAGESIZE) / 1024) : -1;
}

#endif
