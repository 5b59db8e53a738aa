/* Host allocation failure, everywhere: each scenario runs a public call with its Nth host
 * allocation failing, for N = 1, 2, ... until the call no longer allocates that many times.
 * Every failure must return an error status (TENSOR_ERR_OUT_OF_MEMORY) with a message naming
 * the function, and leave the caller's tensors unchanged; leaks are caught by the asan preset's
 * LeakSanitizer (every scenario releases everything it made). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_main.h"
#include "ops/reduction_kit.h"
#include "runtime/alloc.h"

/* A scenario: makes its inputs, then between arm() and disarm() makes the calls under test;
 * returns TENSOR_OK when every call succeeded, else the failing status. It releases everything
 * it made, and checks that its inputs were not changed by a failed call. */
typedef tensor_status (*scenario_fn)(int64_t fail_at);

static void arm(int64_t n) { tt_fault_fail_nth_host_alloc(n); }
static int64_t disarm(void) {
    int64_t n = tt_fault_host_allocs();
    tt_fault_fail_nth_host_alloc(0);
    return n;
}

static int64_t last_attempts;

/* Runs s with N = 1, 2, ... failing; returns how many failure points it went through. */
static int64_t drive(const char *name, scenario_fn s) {
    for (int64_t n = 1; n < 100000; n++) {
        tensor_status st = s(n);
        if (st == TENSOR_OK) {
            if (last_attempts >= n) fail_msg("%s: allocation %lld was made to fail, yet the call succeeded", name, (long long)n);
            return n - 1;
        }
        if (st != TENSOR_ERR_OUT_OF_MEMORY)
            fail_msg("%s: allocation %lld failing gave status %d (%s), not TENSOR_ERR_OUT_OF_MEMORY", name, (long long)n,
                     (int)st, tensor_last_error());
        if (tensor_last_error()[0] == '\0') fail_msg("%s: allocation %lld failing left no message", name, (long long)n);
    }
    fail_msg("%s: never succeeded", name);
    return -1;
}

static tensor_t *filled(int ndim, const int64_t *shape, uint64_t seed) {
    tensor_t *t = tensor_rand(ndim, shape, seed, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(t);
    return t;
}

static uint64_t checksum(const tensor_t *t) {
    int64_t n = tensor_numel(t);
    float *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    assert_non_null(v);
    assert_int_equal(tensor_to_buffer(t, v, (size_t)n * sizeof *v), TENSOR_OK);
    uint64_t h = 1469598103934665603ull;
    for (int64_t i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, &v[i], sizeof b);
        h = (h ^ b) * 1099511628211ull;
    }
    free(v);
    return h;
}

/* ---- scenarios ---- */

static tensor_status sc_sum(int64_t n) {
    tensor_t *x = filled(2, (int64_t[]){300, 500}, 1);
    const uint64_t before = checksum(x);
    arm(n);
    int dims[1] = {0};
    tensor_t *y = tensor_sum_dims(x, dims, 1, false, TENSOR_DTYPE_DEFAULT);
    tensor_t *z = y ? tensor_mean(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT) : NULL;
    tensor_t *mv = NULL, *mi = NULL;
    tensor_status st = z ? tensor_max_dim(x, 1, true, &mv, &mi) : tensor_last_status();
    /* a reduction by its row's name (the generated kernel of a FUNCTOR row) */
    tensor_t *q = st == TENSOR_OK ? tensor_reduce_named("sum_of_squares", x, dims, 1, true, TENSOR_DTYPE_DEFAULT)
                                  : NULL;
    if (st == TENSOR_OK && q == NULL) st = tensor_last_status();
    last_attempts = disarm();
    assert_true(checksum(x) == before);
    tensor_release(q);
    tensor_release(mv);
    tensor_release(mi);
    tensor_release(z);
    tensor_release(y);
    tensor_release(x);
    return st;
}

static tensor_status sc_elementwise(int64_t n) {
    tensor_t *a = filled(2, (int64_t[]){64, 65}, 2), *b = filled(1, (int64_t[]){65}, 3);
    tensor_t *at = tensor_transpose(a, 0, 1);
    arm(n);
    tensor_t *c = tensor_add(a, b, tensor_scalar_int(1));
    tensor_t *d = c ? tensor_exp(at) : NULL;
    tensor_t *e = d ? tensor_to_dtype(at, TENSOR_FLOAT16) : NULL;
    last_attempts = disarm();
    tensor_status st = e ? TENSOR_OK : tensor_last_status();
    tensor_release(e);
    tensor_release(d);
    tensor_release(c);
    tensor_release(at);
    tensor_release(a);
    tensor_release(b);
    return st;
}

/* In place: a failed a *= b (broadcast b) leaves a as it was. */
static tensor_status sc_in_place(int64_t n) {
    tensor_t *a = filled(2, (int64_t[]){64, 65}, 11), *b = filled(1, (int64_t[]){65}, 12);
    const uint64_t before = checksum(a);
    arm(n);
    tensor_status st = tensor_mul_(a, b);
    last_attempts = disarm();
    if (st != TENSOR_OK) assert_true(checksum(a) == before);
    tensor_release(a);
    tensor_release(b);
    return st;
}

static tensor_status sc_views_and_copies(int64_t n) {
    tensor_t *x = filled(3, (int64_t[]){4, 5, 6}, 4);
    arm(n);
    tensor_t *v = tensor_narrow(x, 1, 1, 3);
    tensor_t *t = v ? tensor_transpose(v, 0, 2) : NULL;
    tensor_t *c = t ? tensor_contiguous(t) : NULL;
    tensor_t *row = c ? tensor_narrow(x, 0, 0, 1) : NULL;
    tensor_t *e = row ? tensor_expand(row, 3, (int64_t[]){7, 5, 6}) : NULL;
    last_attempts = disarm();
    tensor_status st = e ? TENSOR_OK : tensor_last_status();
    tensor_release(e);
    tensor_release(row);
    tensor_release(c);
    tensor_release(t);
    tensor_release(v);
    tensor_release(x);
    return st;
}

static tensor_status sc_print_and_explain(int64_t n) {
    tensor_t *x = filled(2, (int64_t[]){3, 4}, 5);
    FILE *f = tmpfile();
    assert_non_null(f);
    char buf[4096];
    arm(n);
    tensor_status st = tensor_print(x, f);
    int dims[1] = {1};
    if (st == TENSOR_OK && tensor_reduce_explain("sum", x, dims, 1, false, TENSOR_DTYPE_DEFAULT, buf, sizeof buf) < 0)
        st = tensor_last_status();
    last_attempts = disarm();
    fclose(f);
    tensor_release(x);
    return st;
}

static tensor_status sc_iterator(int64_t n) {
    tensor_t *a = filled(2, (int64_t[]){8, 9}, 6), *b = filled(1, (int64_t[]){9}, 7);
    arm(n);
    tensor_status st = TENSOR_OK;
    tensor_iter_config *cfg = tensor_iter_config_new("fault_iter");
    if (cfg == NULL) st = tensor_last_status();
    if (st == TENSOR_OK) st = tensor_iter_config_add_output(cfg, NULL);
    if (st == TENSOR_OK) st = tensor_iter_config_add_input(cfg, a);
    if (st == TENSOR_OK) st = tensor_iter_config_add_input(cfg, b);
    tensor_iter_t *it = st == TENSOR_OK ? tensor_iter_build(cfg) : NULL;
    if (st == TENSOR_OK && it == NULL) st = tensor_last_status();
    tensor_iter_t *cp = it ? tensor_iter_copy(it) : NULL;
    if (it != NULL && cp == NULL) st = tensor_last_status();
    last_attempts = disarm();
    tensor_iter_free(cp);
    tensor_iter_free(it);
    tensor_iter_config_free(cfg);
    tensor_release(a);
    tensor_release(b);
    return st;
}

static float zero(void) { return 0.0f; }
static float prod2(const float *x) { return x[0] * x[1]; }
static float add(float a, float b) { return a + b; }
static float done(float a, int64_t c) { return (void)c, a; }
TENSOR_REDUCTION_FNS(fault_wsum, 2, float, float, zero, prod2, add, add, done)

static tensor_status sc_user_reduction(int64_t n) {
    tensor_t *x = filled(2, (int64_t[]){40, 70}, 8), *w = filled(1, (int64_t[]){70}, 9);
    tensor_reduction_def d = {"fault_wsum", 2, sizeof(float), TENSOR_REDUCTION_DTYPE_FLOAT, true, {{0}}, NULL};
    d.fns[TENSOR_REDUCTION_F32] = fault_wsum;
    arm(n);
    tensor_reduction *r = tensor_reduction_register(&d);
    const tensor_t *in[2] = {x, w};
    int dim = 1;
    tensor_t *y = r ? tensor_reduce(r, in, 2, &dim, 1, false, TENSOR_DTYPE_DEFAULT) : NULL;
    tensor_t *v = y ? tensor_vecdot(x, w, -1) : NULL;
    last_attempts = disarm();
    tensor_status st = v ? TENSOR_OK : tensor_last_status();
    tensor_release(v);
    tensor_release(y);
    if (r != NULL) assert_int_equal(tensor_reduction_release(r), TENSOR_OK);
    tensor_release(x);
    tensor_release(w);
    return st;
}

static tensor_status sc_overlap_check(int64_t n) {
    /* non-dense views of one storage: the exact overlap test allocates */
    tensor_t *base = filled(2, (int64_t[]){64, 128}, 10);
    tensor_t *left = tensor_narrow(base, 1, 0, 64), *right = tensor_narrow(base, 1, 64, 64);
    const uint64_t before = checksum(base);
    arm(n);
    tensor_status st = tensor_copy_(left, right);
    last_attempts = disarm();
    if (st != TENSOR_OK) assert_true(checksum(base) == before);
    tensor_release(left);
    tensor_release(right);
    tensor_release(base);
    return st;
}

/* DLPack: our exports (versioned and legacy), each coming back, and a foreign import. An
 * import owns its struct even when it fails: the foreign deleter runs exactly once whatever
 * allocation failed. */
static int foreign_deletes;
static void foreign_delete(DLManagedTensorVersioned *self) {
    foreign_deletes++;
    free(self);
}

static tensor_status sc_dlpack(int64_t n) {
    tensor_t *x = filled(2, (int64_t[]){6, 7}, 13);
    tensor_t *xt = tensor_transpose(x, 0, 1);
    const uint64_t before = checksum(x);
    static float buf[12];
    static int64_t shape[2] = {3, 4};
    DLManagedTensorVersioned *foreign = calloc(1, sizeof *foreign);
    assert_non_null(foreign);
    foreign->version.major = 1;
    foreign->deleter = foreign_delete;
    foreign->dl_tensor = (DLTensor){buf, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
    foreign_deletes = 0;
    arm(n);
    DLManagedTensorVersioned *mv = NULL;
    DLManagedTensor *ml = NULL;
    tensor_t *own_v = NULL, *own_l = NULL, *imp = NULL;
    tensor_status st = tensor_to_dlpack_versioned(xt, 0, -1, &mv);
    if (st == TENSOR_OK) st = tensor_to_dlpack(x, 0, &ml);
    if (st == TENSOR_OK) {
        own_v = tensor_from_dlpack_versioned(mv); /* mv is the import's from here on */
        mv = NULL;
        if (own_v == NULL) st = tensor_last_status();
    }
    if (st == TENSOR_OK) {
        own_l = tensor_from_dlpack(ml);
        ml = NULL;
        if (own_l == NULL) st = tensor_last_status();
    }
    if (st == TENSOR_OK) {
        imp = tensor_from_dlpack_versioned(foreign);
        foreign = NULL;
        if (imp == NULL) st = tensor_last_status();
    }
    last_attempts = disarm();
    if (mv) mv->deleter(mv);
    if (ml) ml->deleter(ml);
    tensor_release(own_v);
    tensor_release(own_l);
    tensor_release(imp);
    if (foreign) foreign_delete(foreign);
    assert_int_equal(foreign_deletes, 1);
    assert_true(checksum(x) == before);
    /* every export reference is gone: the storage may grow again */
    assert_int_equal(tensor_resize_(x, 1, (int64_t[]){100}), TENSOR_OK);
    tensor_release(xt);
    tensor_release(x);
    return st;
}

/* .npy: a save through a copy (permuted view), a column-major save, and both loads. */
static tensor_status sc_npy(int64_t n) {
    tensor_t *x = filled(3, (int64_t[]){4, 5, 6}, 14);
    tensor_t *p = tensor_permute(x, (int[]){1, 0, 2}), *f = tensor_permute(x, (int[]){2, 1, 0});
    char path[64];
    snprintf(path, sizeof path, "/tmp/tt_fault_npy_%ld.npy", (long)getpid());
    arm(n);
    tensor_t *y = NULL, *z = NULL;
    tensor_status st = tensor_save_npy(p, path);
    if (st == TENSOR_OK && (y = tensor_load_npy(path, tensor_cpu())) == NULL) st = tensor_last_status();
    if (st == TENSOR_OK) st = tensor_save_npy(f, path);
    if (st == TENSOR_OK && (z = tensor_load_npy(path, tensor_cpu())) == NULL) st = tensor_last_status();
    last_attempts = disarm();
    if (y) assert_true(checksum(y) == checksum(p));
    if (z) assert_true(checksum(z) == checksum(f));
    remove(path);
    tensor_release(z);
    tensor_release(y);
    tensor_release(f);
    tensor_release(p);
    tensor_release(x);
    return st;
}

static void test_every_failure_point(void **state) {
    (void)state;
    static const struct {
        const char *name;
        scenario_fn fn;
    } scenarios[] = {
        {"reductions", sc_sum},         {"elementwise", sc_elementwise}, {"in place", sc_in_place},
        {"views and copies", sc_views_and_copies}, {"print and explain", sc_print_and_explain},
        {"iterator", sc_iterator},      {"user reduction and vecdot", sc_user_reduction},
        {"overlap check", sc_overlap_check}, {"dlpack export and import", sc_dlpack},
        {"npy save and load", sc_npy},
    };
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
        int64_t points = drive(scenarios[i].name, scenarios[i].fn);
        print_message("  %-28s %lld host allocation failure points, each an error and no leak\n", scenarios[i].name,
                      (long long)points);
        /* Every scenario but the in-place one allocates, so the hook must have reached it. */
        if (scenarios[i].fn != sc_in_place) assert_true(points >= 1);
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_every_failure_point),
};

TENSOR_TEST_GROUP(alloc_faults, tests, NULL, NULL)
