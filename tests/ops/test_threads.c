/* The library driven from several threads at once (docs/threads.md): threads share read-only
 * inputs and run reductions (the CPU sum's fast paths, the generic driver), elementwise
 * ops, scans, printing and user reductions, while another thread changes the thread count and
 * user reductions are registered, found and released. Every result must equal, bitwise, the
 * one computed alone on the main thread; each thread must see only its own errors.
 *
 * The calls start with the CPU feature detection undone, so that the threads' first kernels
 * race to detect them. Those first calls read inputs of each thread's own: the reference
 * counts of a shared input are atomics with acquire/release ordering, which would order the
 * threads for ThreadSanitizer and hide a race. Under the tsan preset any unsynchronised
 * access of the library's while doing all this fails the test run. */
#define _POSIX_C_SOURCE 200809L /* pthread barriers */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"
#include "cpu/cpu_isa.h"
#include "ops/reduction_kit.h"

#define WORKERS 4
#define ROUNDS 3

/* ---- a user reduction: sum of squares in float ---- */
static float zero_f(void) { return 0.0f; }
static float sq_f(const float *x) { return x[0] * x[0]; }
static float add_f(float a, float b) { return a + b; }
static float same_f(float a, int64_t n) { return (void)n, a; }
TENSOR_REDUCTION_FNS(sumsq_f32, 1, float, float, zero_f, sq_f, add_f, add_f, same_f)

static tensor_reduction_def sumsq_def(const char *name) {
    tensor_reduction_def d = {name, 1, sizeof(float), TENSOR_REDUCTION_DTYPE_FLOAT, true, {{0}}, NULL};
    d.fns[TENSOR_REDUCTION_F32] = sumsq_f32;
    return d;
}

/* ---- the shared inputs and the cases run on them ---- */
enum { IN_ROWS, IN_OUTER, IN_SHORT, IN_F16, IN_BF16, IN_F64, IN_I8, IN_SMALL, NUM_INPUTS };
static tensor_t *inputs[NUM_INPUTS];
static tensor_reduction *shared_reduction;

#define NUM_CASES 17
static const char *const case_names[NUM_CASES] = {
    "sum rows",   "sum outer",    "sum short rows", "nansum f16", "sum bf16 all", "nansum f64 outer",
    "sum int8",   "mean",         "var",            "amax",       "argmax",       "add broadcast",
    "exp f16",    "cast to bf16", "cumsum",         "user reduce", "format"};

static tensor_t *run_case(int c) {
    static const int d0 = 0, d1 = 1;
    tensor_t *const *in = inputs;
    switch (c) {
    case 0: return tensor_sum_dims(in[IN_ROWS], &d1, 1, false, TENSOR_DTYPE_DEFAULT);
    case 1: return tensor_sum_dims(in[IN_OUTER], &d0, 1, false, TENSOR_DTYPE_DEFAULT);
    case 2: return tensor_sum_dims(in[IN_SHORT], &d1, 1, false, TENSOR_DTYPE_DEFAULT);
    case 3: return tensor_nansum(in[IN_F16], &d1, 1, false, TENSOR_FLOAT32);
    case 4: return tensor_sum_dims(in[IN_BF16], NULL, 0, false, TENSOR_FLOAT32);
    case 5: return tensor_nansum(in[IN_F64], &d0, 1, false, TENSOR_DTYPE_DEFAULT);
    case 6: return tensor_sum_dims(in[IN_I8], NULL, 0, false, TENSOR_DTYPE_DEFAULT);
    case 7: return tensor_mean(in[IN_ROWS], &d0, 1, true, TENSOR_DTYPE_DEFAULT);
    case 8: return tensor_var(in[IN_OUTER], 1.0, &d1, 1, false);
    case 9: return tensor_amax(in[IN_ROWS], &d1, 1, false);
    case 10: return tensor_argmax(in[IN_OUTER], &d0, false);
    case 11: {
        tensor_t *row = tensor_narrow(in[IN_OUTER], 0, 3, 1); /* [1, 64] against [300, 64] */
        if (row == NULL) return NULL;
        tensor_t *r = tensor_add(in[IN_OUTER], row, tensor_scalar_int(2));
        tensor_release(row);
        return r;
    }
    case 12: return tensor_unary(TENSOR_EW_EXP, in[IN_F16]);
    case 13: return tensor_cast(in[IN_ROWS], TENSOR_BFLOAT16);
    case 14: return tensor_cumsum(in[IN_ROWS], 1, TENSOR_DTYPE_DEFAULT);
    case 15: {
        const tensor_t *ins[1] = {in[IN_OUTER]};
        return tensor_reduce(shared_reduction, ins, 1, &d0, 1, false, TENSOR_DTYPE_DEFAULT);
    }
    case 16: { /* the printed text, as a uint8 tensor */
        char buf[4096];
        const int64_t n = tensor_format(in[IN_SMALL], buf, sizeof buf);
        if (n < 0) return NULL;
        const int64_t len = n < (int64_t)sizeof buf ? n : (int64_t)sizeof buf - 1;
        return tensor_from_buffer(buf, 1, &len, TENSOR_UINT8, tensor_cpu());
    }
    }
    return NULL;
}

static tensor_t *reference[NUM_CASES];

/* true when a and b have the same shape, dtype and bytes */
static bool same_bits(const tensor_t *a, const tensor_t *b) {
    if (a == NULL || b == NULL || tensor_get_dtype(a) != tensor_get_dtype(b) || tensor_ndim(a) != tensor_ndim(b))
        return false;
    for (int d = 0; d < tensor_ndim(a); d++)
        if (tensor_size(a, d) != tensor_size(b, d)) return false;
    const size_t n = (size_t)tensor_numel(a) * tensor_dtype_size(tensor_get_dtype(a));
    unsigned char *va = malloc(n + 1), *vb = malloc(n + 1);
    bool same = va != NULL && vb != NULL && tensor_to_buffer(a, va, n) == TENSOR_OK &&
                tensor_to_buffer(b, vb, n) == TENSOR_OK && memcmp(va, vb, n) == 0;
    free(va);
    free(vb);
    return same;
}

/* ---- the threads ---- */
typedef struct worker {
    int id;
    pthread_barrier_t *start;
    tensor_t *own[2]; /* copies of inputs[IN_SHORT] and inputs[IN_BF16] */
    int failures;
    char first_failure[256];
} worker;

static void fail_once(worker *w, const char *fmt, const char *what, const char *detail) {
    if (w->failures++ == 0) snprintf(w->first_failure, sizeof w->first_failure, fmt, w->id, what, detail);
}

static void *worker_main(void *p) {
    worker *w = p;
    pthread_barrier_wait(w->start);
    { /* the first kernels: short float32 rows (AVX2) and bfloat16 blocks (AVX-512BW) */
        static const int d1 = 1;
        tensor_t *a = tensor_sum_dims(w->own[0], &d1, 1, false, TENSOR_DTYPE_DEFAULT);
        tensor_t *b = tensor_sum_dims(w->own[1], NULL, 0, false, TENSOR_FLOAT32);
        if (!same_bits(a, reference[2]) || !same_bits(b, reference[4]))
            fail_once(w, "thread %d: %s differs%s", "a first sum of its own input", "");
        tensor_release(a);
        tensor_release(b);
    }
    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < NUM_CASES; k++) {
            const int c = (k + w->id * 5 + round) % NUM_CASES; /* each thread in another order */
            tensor_t *r = run_case(c);
            if (r == NULL) fail_once(w, "thread %d: %s failed: %s", case_names[c], tensor_last_error());
            else if (!same_bits(r, reference[c])) fail_once(w, "thread %d: %s differs%s", case_names[c], "");
            tensor_release(r);
        }
        /* a reduction of this thread's own, registered, found, run and released while the
         * others run theirs and the shared one */
        char name[64];
        snprintf(name, sizeof name, "threads_own_%d_%d", w->id, round);
        tensor_reduction_def def = sumsq_def(name);
        tensor_reduction *own = tensor_reduction_register(&def);
        if (own == NULL || tensor_reduction_find(name) != own) {
            fail_once(w, "thread %d: %s: %s", "register/find", tensor_last_error());
        } else {
            const tensor_t *ins[1] = {inputs[IN_OUTER]};
            static const int d0 = 0;
            tensor_t *r = tensor_reduce(own, ins, 1, &d0, 1, false, TENSOR_DTYPE_DEFAULT);
            if (!same_bits(r, reference[15])) fail_once(w, "thread %d: %s differs%s", "own user reduction", "");
            tensor_release(r);
            if (tensor_reduction_release(own) != TENSOR_OK) fail_once(w, "thread %d: %s: %s", "release", tensor_last_error());
        }
        /* this thread's error, whatever the others do meanwhile */
        char want[96];
        snprintf(want, sizeof want, "start %d", 1000 + w->id);
        tensor_clear_error();
        tensor_t *bad = tensor_narrow(inputs[IN_SMALL], 0, 1000 + w->id, 1);
        if (bad != NULL || tensor_last_status() != TENSOR_ERR_INDEX || strstr(tensor_last_error(), want) == NULL)
            fail_once(w, "thread %d: %s: \"%s\"", "own error", tensor_last_error());
        tensor_release(bad);
    }
    return NULL;
}

/* Changes the process-wide thread count while the workers run: results may not depend on it. */
static atomic_bool stop_switching;
static void *switcher_main(void *p) {
    pthread_barrier_wait((pthread_barrier_t *)p);
    for (int i = 0; !atomic_load(&stop_switching); i++) {
        tensor_set_num_threads(i % 3); /* 0 (the default), 1, 2 */
        sched_yield();
    }
    return NULL;
}

static int setup(void **state) {
    (void)state;
    const int64_t rows[2] = {64, 300}, outer[2] = {300, 64}, shortr[2] = {8192, 7}, f16[2] = {16, 2053},
                  bf16[2] = {3, 5000}, f64[2] = {129, 33}, i8[1] = {4099}, small[2] = {3, 4};
    const struct {
        int which, ndim;
        const int64_t *sizes;
        tensor_dtype dt;
    } spec[NUM_INPUTS] = {{IN_ROWS, 2, rows, TENSOR_FLOAT32},  {IN_OUTER, 2, outer, TENSOR_FLOAT32},
                          {IN_SHORT, 2, shortr, TENSOR_FLOAT32}, {IN_F16, 2, f16, TENSOR_FLOAT16},
                          {IN_BF16, 2, bf16, TENSOR_BFLOAT16}, {IN_F64, 2, f64, TENSOR_FLOAT64},
                          {IN_I8, 1, i8, TENSOR_FLOAT32},      {IN_SMALL, 2, small, TENSOR_FLOAT32}};
    for (int i = 0; i < NUM_INPUTS; i++) {
        inputs[i] = tensor_randn(spec[i].ndim, spec[i].sizes, 1234 + (uint64_t)i, spec[i].dt, tensor_cpu());
        if (inputs[i] == NULL) return -1;
    }
    int8_t bytes[4099]; /* every value of int8 */
    for (int64_t k = 0; k < i8[0]; k++) bytes[k] = (int8_t)(k * 37 % 256 - 128);
    tensor_release(inputs[IN_I8]);
    inputs[IN_I8] = tensor_from_buffer(bytes, 1, i8, TENSOR_INT8, tensor_cpu());
    tensor_reduction_def def = sumsq_def("threads_shared");
    shared_reduction = tensor_reduction_register(&def);
    return inputs[IN_I8] != NULL && shared_reduction != NULL ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    for (int i = 0; i < NUM_INPUTS; i++) tensor_release(inputs[i]);
    for (int c = 0; c < NUM_CASES; c++) tensor_release(reference[c]);
    tensor_reduction_release(shared_reduction);
    tensor_set_num_threads(0);
    return 0;
}

static void test_concurrent_calls(void **state) {
    (void)state;
    for (int c = 0; c < NUM_CASES; c++) {
        reference[c] = run_case(c);
        if (reference[c] == NULL) fail_msg("%s: %s", case_names[c], tensor_last_error());
    }
    pthread_barrier_t start;
    assert_int_equal(pthread_barrier_init(&start, NULL, WORKERS + 1), 0);
    worker w[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        w[i] = (worker){i, &start, {tensor_clone(inputs[IN_SHORT]), tensor_clone(inputs[IN_BF16])}, 0, ""};
        assert_non_null(w[i].own[0]);
        assert_non_null(w[i].own[1]);
    }
    /* the detection is undone here and redone by whichever kernel asks first */
    atomic_store(&tt_cpu_feature_bits, 0u);
    pthread_t th[WORKERS], switcher;
    atomic_store(&stop_switching, false);
    for (int i = 0; i < WORKERS; i++) assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
    assert_int_equal(pthread_create(&switcher, NULL, switcher_main, &start), 0);
    for (int i = 0; i < WORKERS; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
    atomic_store(&stop_switching, true);
    assert_int_equal(pthread_join(switcher, NULL), 0);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < WORKERS; i++) {
        tensor_release(w[i].own[0]);
        tensor_release(w[i].own[1]);
    }
    for (int i = 0; i < WORKERS; i++)
        if (w[i].failures > 0) fail_msg("%d failure(s), the first: %s", w[i].failures, w[i].first_failure);
    /* every thread's own reduction is gone; the shared one is still there */
    assert_null(tensor_reduction_find("threads_own_0_0"));
    assert_ptr_equal(tensor_reduction_find("threads_shared"), shared_reduction);
    assert_true(tt_cpu_features() & TT_CPU_DETECTED);
}

static const struct CMUnitTest threads_tests[] = {
    cmocka_unit_test(test_concurrent_calls),
};

TENSOR_TEST_GROUP(threads, threads_tests, setup, teardown)
