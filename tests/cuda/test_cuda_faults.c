/* Device allocation failure, everywhere on CUDA: each scenario runs public calls on GPU tensors
 * with the Nth device allocation failing (runtime/alloc.h's hook, which the caching allocator
 * and the reduction engine's scratch buffers ask), for N = 1, 2, ... until the calls no longer
 * allocate that many times. Every failure must return TENSOR_ERR_OUT_OF_MEMORY with a message
 * naming the function, leave the caller's tensors unchanged, and leak nothing: the allocator's
 * live bytes come back to where they were. Needs a GPU (exit 77 without one). */
#include <stdlib.h>
#include <string.h>

#include "cuda_test_util.h"
#include "ops/reduction.h"
#include "runtime/alloc.h"
#if TENSOR_HAVE_CUDA
#include "cuda/reduce_host.h"
#endif

TENSOR_TEST_NEEDS_GPU()

typedef tensor_status (*scenario_fn)(int64_t fail_at);

static int64_t last_attempts;
static void arm(int64_t n) { tt_fault_fail_nth_device_alloc(n); }
static void disarm(void) {
    last_attempts = tt_fault_device_allocs();
    tt_fault_fail_nth_device_alloc(0);
}

static uint64_t live_bytes(void) {
    tensor_cuda_memory_stats s;
    assert_int_equal(tensor_cuda_memory_get_stats(0, &s), TENSOR_OK);
    return s.allocated;
}

/* Runs s with N = 1, 2, ... failing; returns how many failure points it went through. */
static int64_t drive(const char *name, scenario_fn s) {
    const uint64_t base = live_bytes();
    for (int64_t n = 1; n < 10000; n++) {
        tensor_status st = s(n);
        if (live_bytes() != base)
            fail_msg("%s: device allocation %lld failing left %lld bytes allocated", name, (long long)n,
                     (long long)(live_bytes() - base));
        if (st == TENSOR_OK) {
            if (last_attempts >= n) fail_msg("%s: allocation %lld was made to fail, yet the calls succeeded", name, (long long)n);
            return n - 1;
        }
        if (st != TENSOR_ERR_OUT_OF_MEMORY)
            fail_msg("%s: device allocation %lld failing gave %s (%s), not TENSOR_ERR_OUT_OF_MEMORY", name, (long long)n,
                     tensor_status_name(st), tensor_last_error());
        if (strstr(tensor_last_error(), "tensor_") == NULL)
            fail_msg("%s: allocation %lld failing: the message names no function: '%s'", name, (long long)n,
                     tensor_last_error());
    }
    fail_msg("%s: never succeeded", name);
    return -1;
}

static tensor_t *gpu_rand(int ndim, const int64_t *shape, uint64_t seed, tensor_dtype dt) {
    tensor_t *c = tensor_rand(ndim, shape, seed, dt, tensor_cpu());
    assert_non_null(c);
    tensor_t *g = ct_to_gpu(c);
    tensor_release(c);
    return g;
}

static uint64_t checksum(const tensor_t *t) {
    unsigned char *v = ct_download(t);
    size_t n = ct_nbytes(t);
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ v[i]) * 1099511628211ull;
    free(v);
    return h;
}

/* ---- scenarios ---- */

static tensor_status sc_reductions(int64_t n) {
    tensor_t *x = gpu_rand(2, (int64_t[]){300, 500}, 1, TENSOR_FLOAT32);
    const uint64_t before = checksum(x);
    const int d0 = 0;
#if TENSOR_HAVE_CUDA
    tensor_cuda_reduce_release_scratch(); /* so that the semaphore buffer is allocated again */
#endif
    arm(n);
    tensor_t *y = tensor_sum_dims(x, &d0, 1, false, TENSOR_DTYPE_DEFAULT);
    tensor_t *z = y ? tensor_mean(x, NULL, 0, false, TENSOR_DTYPE_DEFAULT) : NULL;
    tensor_t *mv = NULL, *mi = NULL, *lo = NULL, *hi = NULL, *v = NULL, *m = NULL;
    tensor_status st = z ? tensor_max_dim(x, 1, true, &mv, &mi) : tensor_last_status();
    if (st == TENSOR_OK) st = tensor_aminmax(x, &d0, 1, false, &lo, &hi);
    if (st == TENSOR_OK) st = tensor_var_mean(x, 1.0, NULL, 0, false, &v, &m);
    disarm();
    assert_true(checksum(x) == before);
    tensor_t *all[] = {y, z, mv, mi, lo, hi, v, m, x};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) tensor_release(all[i]);
    return st;
}

/* Iterators beyond the engine's 32-bit limit (lowered here) accumulate partials in a buffer. */
static tensor_status sc_split(int64_t n) {
#if TENSOR_HAVE_CUDA
    tensor_t *x = gpu_rand(2, (int64_t[]){129, 4097}, 2, TENSOR_FLOAT16);
    tensor_cuda_reduce_index_limit = 40000;
    const int d1 = 1;
    arm(n);
    tensor_t *y = tensor_sum_dims(x, &d1, 1, false, TENSOR_DTYPE_DEFAULT);
    tensor_t *z = y ? tensor_argmax(x, NULL, false) : NULL;
    disarm();
    tensor_cuda_reduce_index_limit = INT64_C(2147483647);
    tensor_status st = z ? TENSOR_OK : tensor_last_status();
    tensor_release(z);
    tensor_release(y);
    tensor_release(x);
    return st;
#else
    (void)n;
    return TENSOR_OK;
#endif
}

static tensor_status sc_elementwise(int64_t n) {
    tensor_t *a = gpu_rand(2, (int64_t[]){64, 65}, 3, TENSOR_FLOAT32), *b = gpu_rand(1, (int64_t[]){65}, 4, TENSOR_FLOAT32);
    tensor_t *at = tensor_transpose(a, 0, 1);
    arm(n);
    tensor_t *c = tensor_add(a, b, tensor_scalar_int(1));
    tensor_t *d = c ? tensor_exp(at) : NULL;
    tensor_t *e = d ? tensor_to_dtype(at, TENSOR_BFLOAT16) : NULL;
    tensor_t *m = e ? tensor_gt(a, b) : NULL;
    tensor_t *w = m ? tensor_where(m, a, b) : NULL;
    disarm();
    tensor_status st = w ? TENSOR_OK : tensor_last_status();
    tensor_t *all[] = {w, m, e, d, c, at, a, b};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) tensor_release(all[i]);
    return st;
}

/* In place: a failed a *= b (b broadcast, then a strided view) leaves a as it was. */
static tensor_status sc_in_place(int64_t n) {
    tensor_t *a = gpu_rand(2, (int64_t[]){64, 65}, 5, TENSOR_FLOAT32), *b = gpu_rand(1, (int64_t[]){65}, 6, TENSOR_FLOAT16);
    const uint64_t before = checksum(a);
    arm(n);
    tensor_status st = tensor_mul_(a, b);
    disarm();
    if (st != TENSOR_OK) assert_true(checksum(a) == before);
    tensor_release(a);
    tensor_release(b);
    return st;
}

static tensor_status sc_copies(int64_t n) {
    tensor_t *c = tensor_rand(3, (int64_t[]){4, 5, 6}, 7, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(c);
    arm(n);
    tensor_t *g = tensor_to_device(c, tensor_cuda(0));
    tensor_t *t = g ? tensor_transpose(g, 0, 2) : NULL;
    tensor_t *k = t ? tensor_contiguous(t) : NULL;
    tensor_t *h = k ? tensor_to_device(t, tensor_cpu()) : NULL;
    tensor_t *e = h ? tensor_empty(2, (int64_t[]){3, 3}, TENSOR_INT64, tensor_cuda(0)) : NULL;
    disarm();
    tensor_status st = e ? TENSOR_OK : tensor_last_status();
    tensor_t *all[] = {e, h, k, t, g, c};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) tensor_release(all[i]);
    return st;
}

static tensor_status sc_vecdot(int64_t n) {
    tensor_t *a = gpu_rand(2, (int64_t[]){100, 300}, 8, TENSOR_FLOAT32), *b = gpu_rand(1, (int64_t[]){300}, 9, TENSOR_FLOAT32);
    arm(n);
    tensor_t *y = tensor_vecdot(a, b, 1);
    disarm();
    tensor_status st = y ? TENSOR_OK : tensor_last_status();
    tensor_release(y);
    tensor_release(a);
    tensor_release(b);
    return st;
}

static void test_device_alloc_failures(void **state) {
    (void)state;
    struct {
        const char *name;
        scenario_fn fn;
    } sc[] = {{"reductions", sc_reductions}, {"split", sc_split},     {"elementwise", sc_elementwise},
              {"in place", sc_in_place},    {"copies", sc_copies}, {"vecdot", sc_vecdot}};
    int64_t points = 0;
    for (size_t i = 0; i < sizeof sc / sizeof sc[0]; i++) {
        int64_t k = drive(sc[i].name, sc[i].fn);
        print_message("%s: %lld device allocation failure points\n", sc[i].name, (long long)k);
        points += k;
    }
    assert_true(points >= 10); /* every scenario allocates on the device */
}

static void test_faults_release_scratch(void **state) {
    (void)state;
    assert_int_equal(ct_release_cached(), TENSOR_OK);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_device_alloc_failures),
    cmocka_unit_test(test_faults_release_scratch),
};

TENSOR_TEST_GROUP(cuda_faults, tests, NULL, NULL)
