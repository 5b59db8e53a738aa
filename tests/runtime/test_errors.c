/* Error paths of the runtime core: status names and strings, the thread-local last error, and
 * every failing input of every public runtime function (tensor.h, device.h). Each case checks
 * the status, that the message names the function (and the bad value where it matters), and,
 * under ASan/valgrind, that nothing leaked. PyTorch's message text is used where it exists. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"

#include "runtime/error.h"
#include "runtime/tensor_impl.h"

/* The out-of-memory tests ask for 2^60 bytes; ASan aborts on such a request unless told to
 * return NULL like the real allocator does. */
#if defined(__SANITIZE_ADDRESS__)
#define TT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TT_ASAN 1
#endif
#endif
#ifdef TT_ASAN
const char *__asan_default_options(void);
__attribute__((used)) const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
#endif

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))
#define I64(...) ((const int64_t[]){__VA_ARGS__})

/* A call returning a tensor must fail with status, and the message must contain needle. */
#define EXPECT_NULL(expr, status, needle)                                                        \
    do {                                                                                         \
        tensor_clear_error();                                                                    \
        tensor_t *r_ = (expr);                                                                   \
        if (r_ != NULL) {                                                                        \
            tensor_release(r_);                                                                  \
            fail_msg("%s succeeded; expected %s", #expr, tensor_status_name(status));           \
        }                                                                                        \
        assert_error(status, needle);                                                            \
    } while (0)

#define EXPECT_STATUS(expr, status, needle)                                                      \
    do {                                                                                         \
        tensor_clear_error();                                                                    \
        tensor_status s_ = (expr);                                                               \
        assert_int_equal(s_, (status));                                                          \
        assert_error(status, needle);                                                            \
    } while (0)

static const tensor_device cpu = {TENSOR_DEVICE_CPU, 0};
static const tensor_device bad_type = {(tensor_device_type)42, 0};
static const tensor_device cpu1 = {TENSOR_DEVICE_CPU, 1};
static const tensor_device cuda99 = {TENSOR_DEVICE_CUDA, 99};
static const tensor_device cuda_neg = {TENSOR_DEVICE_CUDA, -1};

/* ---- status names, strings, last error ---- */

static void test_status_names(void **state) {
    (void)state;
    static const char *names[] = {
        "TENSOR_OK",           "TENSOR_ERR_INVALID_ARGUMENT", "TENSOR_ERR_INDEX",    "TENSOR_ERR_SHAPE",
        "TENSOR_ERR_DTYPE",    "TENSOR_ERR_DEVICE",           "TENSOR_ERR_OVERFLOW", "TENSOR_ERR_OUT_OF_MEMORY",
        "TENSOR_ERR_CUDA",     "TENSOR_ERR_NOT_IMPLEMENTED",  "TENSOR_ERR_INTERNAL", "TENSOR_ERR_IO",
        "TENSOR_ERR_FORMAT",
    };
    assert_int_equal(NELEM(names), TENSOR_STATUS_COUNT);
    for (int s = 0; s < TENSOR_STATUS_COUNT; s++) {
        assert_string_equal(tensor_status_name((tensor_status)s), names[s]);
        const char *str = tensor_status_str((tensor_status)s);
        assert_non_null(str);
        assert_true(strlen(str) > 3);
        for (int o = 0; o < s; o++) assert_string_not_equal(str, tensor_status_str((tensor_status)o));
    }
    assert_string_equal(tensor_status_str(TENSOR_OK), "success");
    /* Fixed values (the ABI). */
    assert_int_equal(TENSOR_ERR_INDEX, 2);
    assert_int_equal(TENSOR_ERR_INTERNAL, 10);
    assert_int_equal(TENSOR_ERR_IO, 11);
    assert_int_equal(TENSOR_ERR_FORMAT, 12);
    tensor_status unknown[] = {TENSOR_STATUS_COUNT, (tensor_status)-1, (tensor_status)1000, (tensor_status)INT32_MIN};
    for (int i = 0; i < NELEM(unknown); i++) {
        assert_string_equal(tensor_status_name(unknown[i]), "TENSOR_ERR_UNKNOWN");
        assert_non_null(tensor_status_str(unknown[i]));
        assert_true(strlen(tensor_status_str(unknown[i])) > 0);
    }
}

static void test_last_error_lifecycle(void **state) {
    (void)state;
    tensor_clear_error();
    assert_int_equal(tensor_last_status(), TENSOR_OK);
    assert_string_equal(tensor_last_error(), "");
    assert_null(tensor_empty(1, I64(-1), TENSOR_FLOAT32, cpu));
    assert_int_equal(tensor_last_status(), TENSOR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(tensor_last_error(), "tensor_empty"));
    /* A success does not clear it. */
    tensor_t *t = tensor_zeros(1, I64(2), TENSOR_FLOAT32, cpu);
    assert_non_null(t);
    assert_int_equal(tensor_last_status(), TENSOR_ERR_INVALID_ARGUMENT);
    /* A second failure replaces it. */
    assert_null(tensor_select(t, 0, 5));
    assert_error(TENSOR_ERR_INDEX, "tensor_select");
    assert_null(strstr(tensor_last_error(), "tensor_empty"));
    tensor_clear_error();
    assert_int_equal(tensor_last_status(), TENSOR_OK);
    assert_string_equal(tensor_last_error(), "");
    tensor_release(t);
}

static void test_last_error_long_message_truncated(void **state) {
    (void)state;
    /* An expand over 16 dims of 19-digit sizes makes a message longer than the slot. */
    tensor_t *t = tensor_zeros(1, I64(3), TENSOR_INT8, cpu);
    int64_t sizes[TENSOR_MAX_DIMS];
    for (int i = 0; i < TENSOR_MAX_DIMS; i++) sizes[i] = 1000000000000000000LL + i;
    EXPECT_NULL(tensor_expand(t, TENSOR_MAX_DIMS, sizes), TENSOR_ERR_SHAPE, "tensor_expand: The expanded size");
    size_t len = strlen(tensor_last_error());
    assert_true(len > 100 && len < 4096);
    tensor_release(t);
}

typedef struct {
    pthread_barrier_t *barrier;
    int which;
    tensor_status got_status;
    char got_message[256];
} thread_arg;

static void *error_thread(void *p) {
    thread_arg *a = p;
    tensor_clear_error();
    if (a->which == 0) {
        tensor_t *r = tensor_empty(1, I64(-5), TENSOR_FLOAT32, cpu);
        if (r) tensor_release(r);
    } else {
        tensor_t *r = tensor_zeros(1, I64(3), (tensor_dtype)99, cpu);
        if (r) tensor_release(r);
    }
    /* Both threads have failed before either reads. */
    pthread_barrier_wait(a->barrier);
    a->got_status = tensor_last_status();
    snprintf(a->got_message, sizeof a->got_message, "%s", tensor_last_error());
    pthread_barrier_wait(a->barrier);
    return NULL;
}

static void test_last_error_thread_local(void **state) {
    (void)state;
    tensor_clear_error();
    assert_null(tensor_arange(0, 1, 0, TENSOR_FLOAT32, cpu)); /* main thread's own error */
    pthread_barrier_t barrier;
    assert_int_equal(pthread_barrier_init(&barrier, NULL, 2), 0);
    thread_arg args[2] = {{&barrier, 0, TENSOR_OK, ""}, {&barrier, 1, TENSOR_OK, ""}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, error_thread, &args[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&barrier);
    assert_int_equal(args[0].got_status, TENSOR_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(args[0].got_message, "tensor_empty: negative size -5"));
    assert_int_equal(args[1].got_status, TENSOR_ERR_DTYPE);
    assert_non_null(strstr(args[1].got_message, "tensor_zeros: unknown dtype 99"));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_arange: step must be nonzero");
}

/* Passing the last message itself back into an error (adding context) must work. */
static void test_error_message_self_reference(void **state) {
    (void)state;
    tensor_clear_error();
    assert_null(tensor_empty(1, I64(-7), TENSOR_FLOAT32, cpu));
    char want[600];
    snprintf(want, sizeof want, "outer: %s", tensor_last_error());
    tensor_error(TENSOR_ERR_INTERNAL, "outer: %s", tensor_last_error());
    assert_int_equal(tensor_last_status(), TENSOR_ERR_INTERNAL);
    assert_string_equal(tensor_last_error(), want);
    assert_null(tensor_error_null(TENSOR_ERR_SHAPE, "%s", "x"));
    assert_error(TENSOR_ERR_SHAPE, "x");
    tensor_clear_error();
}

/* ---- devices ---- */

static void test_device_check_and_format(void **state) {
    (void)state;
    EXPECT_STATUS(tensor_device_check(bad_type, "myfunc"), TENSOR_ERR_DEVICE, "myfunc: unknown device type 42");
    EXPECT_STATUS(tensor_device_check(cpu1, "myfunc"), TENSOR_ERR_DEVICE, "myfunc: CPU device index must be 0, got 1");
    EXPECT_STATUS(tensor_device_check(cuda99, "myfunc"), TENSOR_ERR_DEVICE, "cuda:99");
    EXPECT_STATUS(tensor_device_check(cuda_neg, "myfunc"), TENSOR_ERR_DEVICE, "cuda:-1");
    if (!tensor_cuda_is_built()) {
        assert_int_equal(tensor_cuda_device_count(), 0);
        EXPECT_STATUS(tensor_device_check(tensor_cuda(0), "myfunc"), TENSOR_ERR_DEVICE, "built without CUDA");
    }
    tensor_clear_error();
    assert_int_equal(tensor_device_check(cpu, "myfunc"), TENSOR_OK);
    assert_int_equal(tensor_last_status(), TENSOR_OK);

    char buf[32];
    assert_string_equal(tensor_device_format(cpu, buf, sizeof buf), "cpu");
    assert_string_equal(tensor_device_format(tensor_cuda(3), buf, sizeof buf), "cuda:3");
    assert_string_equal(tensor_device_format(bad_type, buf, sizeof buf), "unknown:0");
    assert_string_equal(tensor_device_format(tensor_cuda(12), buf, 4), "cud"); /* truncated, terminated */
    buf[0] = 'x';
    assert_ptr_equal(tensor_device_format(cpu, buf, 0), buf);
    assert_int_equal(buf[0], 'x'); /* size 0 writes nothing */
    assert_null(tensor_device_format(cpu, NULL, 0));
    assert_true(tensor_device_equal(tensor_cpu(), cpu));
    assert_false(tensor_device_equal(tensor_cuda(0), cpu));
    assert_false(tensor_device_equal(tensor_cuda(0), tensor_cuda(1)));
}

/* ---- creation: shape, dtype and device errors, overflow, out of memory ---- */

typedef tensor_t *(*creator)(int ndim, const int64_t *sizes, tensor_dtype dt, tensor_device dev);

static tensor_t *mk_empty(int n, const int64_t *s, tensor_dtype d, tensor_device v) { return tensor_empty(n, s, d, v); }
static tensor_t *mk_zeros(int n, const int64_t *s, tensor_dtype d, tensor_device v) { return tensor_zeros(n, s, d, v); }
static tensor_t *mk_ones(int n, const int64_t *s, tensor_dtype d, tensor_device v) { return tensor_ones(n, s, d, v); }
static tensor_t *mk_full(int n, const int64_t *s, tensor_dtype d, tensor_device v) { return tensor_full(n, s, 1.5, d, v); }
static tensor_t *mk_rand(int n, const int64_t *s, tensor_dtype d, tensor_device v) { return tensor_rand(n, s, 1, d, v); }
static tensor_t *mk_randn(int n, const int64_t *s, tensor_dtype d, tensor_device v) { return tensor_randn(n, s, 1, d, v); }
static char dummy_data[64];
static tensor_t *mk_from_buffer(int n, const int64_t *s, tensor_dtype d, tensor_device v) {
    return tensor_from_buffer(dummy_data, n, s, d, v);
}
static tensor_t *mk_from_blob(int n, const int64_t *s, tensor_dtype d, tensor_device v) {
    return tensor_from_blob(dummy_data, n, s, NULL, d, v, NULL, NULL);
}

static const struct {
    const char *name;
    creator fn;
    bool allocates; /* from_blob wraps: no OOM */
} creators[] = {
    {"tensor_empty", mk_empty, true},   {"tensor_zeros", mk_zeros, true},
    {"tensor_ones", mk_ones, true},     {"tensor_full", mk_full, true},
    {"tensor_rand", mk_rand, true},     {"tensor_randn", mk_randn, true},
    {"tensor_from_buffer", mk_from_buffer, true}, {"tensor_from_blob", mk_from_blob, false},
};

static void test_creation_shape_errors(void **state) {
    (void)state;
    int64_t seventeen[17];
    for (int i = 0; i < 17; i++) seventeen[i] = 1;
    for (int k = 0; k < NELEM(creators); k++) {
        creator fn = creators[k].fn;
        const char *name = creators[k].name;
        char want[128];
        /* ndim out of [0, 16] */
        snprintf(want, sizeof want, "%s: ndim 17 is outside [0, 16]", name);
        EXPECT_NULL(fn(17, seventeen, TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT, want);
        snprintf(want, sizeof want, "%s: ndim -1", name);
        EXPECT_NULL(fn(-1, seventeen, TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT, want);
        /* NULL sizes with ndim > 0 */
        snprintf(want, sizeof want, "%s: argument 'sizes' is NULL", name);
        EXPECT_NULL(fn(2, NULL, TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT, want);
        /* negative sizes */
        snprintf(want, sizeof want, "%s: negative size -3 at dim 1", name);
        EXPECT_NULL(fn(2, I64(2, -3), TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT, want);
        EXPECT_NULL(fn(1, I64(INT64_MIN), TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT, name);
        /* size products that overflow int64 */
        snprintf(want, sizeof want, "%s: the product of sizes overflows int64", name);
        EXPECT_NULL(fn(2, I64(1LL << 32, 1LL << 32), TENSOR_FLOAT32, cpu), TENSOR_ERR_OVERFLOW, want);
        EXPECT_NULL(fn(3, I64(3, INT64_MAX / 2, 1), TENSOR_FLOAT32, cpu), TENSOR_ERR_OVERFLOW, want);
        EXPECT_NULL(fn(3, I64(0, 1LL << 62, 1LL << 62), TENSOR_FLOAT32, cpu), TENSOR_ERR_OVERFLOW, want);
        EXPECT_NULL(fn(3, I64(1LL << 62, 1LL << 62, 0), TENSOR_FLOAT32, cpu), TENSOR_ERR_OVERFLOW, want);
        /* element count fits but the byte count does not */
        EXPECT_NULL(fn(1, I64(1LL << 62), TENSOR_FLOAT32, cpu), TENSOR_ERR_OVERFLOW, name);
        EXPECT_NULL(fn(2, I64(1LL << 31, 1LL << 31), TENSOR_FLOAT64, cpu), TENSOR_ERR_OVERFLOW, name);
    }
}

static void test_creation_dtype_device_errors(void **state) {
    (void)state;
    tensor_dtype bad_dtypes[] = {(tensor_dtype)99, TENSOR_NUM_DTYPES, TENSOR_DTYPE_DEFAULT, (tensor_dtype)-7};
    for (int k = 0; k < NELEM(creators); k++) {
        creator fn = creators[k].fn;
        const char *name = creators[k].name;
        char want[128];
        for (int d = 0; d < NELEM(bad_dtypes); d++) {
            /* rand/randn say "expected a floating point dtype" or "unknown dtype"; both are DTYPE. */
            EXPECT_NULL(fn(1, I64(2), bad_dtypes[d], cpu), TENSOR_ERR_DTYPE, name);
        }
        snprintf(want, sizeof want, "%s: unknown dtype 99", name);
        if (fn != mk_rand && fn != mk_randn) EXPECT_NULL(fn(1, I64(2), (tensor_dtype)99, cpu), TENSOR_ERR_DTYPE, want);
        snprintf(want, sizeof want, "%s: unknown device type 42", name);
        EXPECT_NULL(fn(1, I64(2), TENSOR_FLOAT32, bad_type), TENSOR_ERR_DEVICE, want);
        EXPECT_NULL(fn(1, I64(2), TENSOR_FLOAT32, cpu1), TENSOR_ERR_DEVICE, "CPU device index must be 0");
        snprintf(want, sizeof want, "%s: device cuda:99", name);
        EXPECT_NULL(fn(1, I64(2), TENSOR_FLOAT32, cuda99), TENSOR_ERR_DEVICE, want);
        EXPECT_NULL(fn(1, I64(2), TENSOR_FLOAT32, cuda_neg), TENSOR_ERR_DEVICE, name);
        if (!tensor_cuda_is_built()) {
            snprintf(want, sizeof want, "%s: device cuda:0 requested but tinytensor was built without CUDA", name);
            EXPECT_NULL(fn(1, I64(2), TENSOR_FLOAT32, tensor_cuda(0)), TENSOR_ERR_DEVICE, want);
        }
    }
}

static void test_creation_out_of_memory(void **state) {
    (void)state;
    /* 2^57 float64 = 2^60 bytes: no overflow anywhere, but no machine has it. */
    for (int k = 0; k < NELEM(creators); k++) {
        if (!creators[k].allocates) continue;
        char want[128];
        snprintf(want, sizeof want, "%s: cannot allocate 1152921504606846976 bytes of host memory", creators[k].name);
        EXPECT_NULL(creators[k].fn(1, I64(1LL << 57), TENSOR_FLOAT64, cpu), TENSOR_ERR_OUT_OF_MEMORY, want);
        EXPECT_NULL(creators[k].fn(3, I64(1LL << 20, 1LL << 20, 1LL << 20), TENSOR_FLOAT16, cpu),
                    TENSOR_ERR_OUT_OF_MEMORY, creators[k].name);
    }
    /* INT64_MAX one-byte elements: the 64-byte rounding must not wrap. */
    EXPECT_NULL(tensor_empty(1, I64(INT64_MAX), TENSOR_UINT8, cpu), TENSOR_ERR_OUT_OF_MEMORY, "tensor_empty");
    EXPECT_NULL(tensor_arange(0, 0x1p57, 1, TENSOR_FLOAT64, cpu), TENSOR_ERR_OUT_OF_MEMORY, "tensor_arange");
    EXPECT_NULL(tensor_linspace(0, 1, 1LL << 57, TENSOR_FLOAT64, cpu), TENSOR_ERR_OUT_OF_MEMORY, "tensor_linspace");
    /* Nothing stale: a normal allocation still works. */
    tensor_t *t = tensor_zeros(1, I64(4), TENSOR_FLOAT64, cpu);
    assert_non_null(t);
    tensor_release(t);
}

static void test_arange_errors(void **state) {
    (void)state;
    EXPECT_NULL(tensor_arange(0, 5, 0, TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT,
                "tensor_arange: step must be nonzero");
    EXPECT_NULL(tensor_arange(0, 5, -0.0, TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT, "step must be nonzero");
    EXPECT_NULL(tensor_arange(0, 5, NAN, TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT, "tensor_arange: step");
    EXPECT_NULL(tensor_arange(0, 5, INFINITY, TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT, "tensor_arange: step");
    EXPECT_NULL(tensor_arange(0, INFINITY, 1, TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT,
                "tensor_arange: unsupported range");
    EXPECT_NULL(tensor_arange(NAN, 5, 1, TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT, "unsupported range");
    EXPECT_NULL(tensor_arange(-INFINITY, 5, 1, TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT, "unsupported range");
    /* PyTorch: "upper bound and larger bound inconsistent with step sign" */
    EXPECT_NULL(tensor_arange(5, 0, 1, TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT,
                "tensor_arange: upper bound and larger bound inconsistent with step sign");
    EXPECT_NULL(tensor_arange(0, 5, -1, TENSOR_INT64, cpu), TENSOR_ERR_INVALID_ARGUMENT, "inconsistent with step sign");
    /* too many elements */
    EXPECT_NULL(tensor_arange(0, 1e19, 1, TENSOR_FLOAT32, cpu), TENSOR_ERR_OVERFLOW, "tensor_arange");
    EXPECT_NULL(tensor_arange(-1e308, 1e308, 1e-300, TENSOR_FLOAT64, cpu), TENSOR_ERR_OVERFLOW, "tensor_arange");
    EXPECT_NULL(tensor_arange(0, 0x1p62, 1, TENSOR_FLOAT32, cpu), TENSOR_ERR_OVERFLOW, "tensor_arange");
    /* dtype and device */
    EXPECT_NULL(tensor_arange(0, 5, 1, (tensor_dtype)99, cpu), TENSOR_ERR_DTYPE, "tensor_arange: unknown dtype 99");
    EXPECT_NULL(tensor_arange(0, 5, 1, TENSOR_FLOAT32, bad_type), TENSOR_ERR_DEVICE, "tensor_arange: unknown device type");
    EXPECT_NULL(tensor_arange(0, 5, 1, TENSOR_FLOAT32, cuda99), TENSOR_ERR_DEVICE, "tensor_arange: device cuda:99");
}

static void test_linspace_errors(void **state) {
    (void)state;
    EXPECT_NULL(tensor_linspace(0, 1, -1, TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT,
                "tensor_linspace: number of steps must be non-negative, got -1");
    EXPECT_NULL(tensor_linspace(0, 1, INT64_MIN, TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT, "tensor_linspace");
    EXPECT_NULL(tensor_linspace(0, 1, 5, (tensor_dtype)99, cpu), TENSOR_ERR_DTYPE, "tensor_linspace: unknown dtype 99");
    EXPECT_NULL(tensor_linspace(0, 1, 5, TENSOR_FLOAT32, bad_type), TENSOR_ERR_DEVICE, "tensor_linspace");
    EXPECT_NULL(tensor_linspace(0, 1, 5, TENSOR_FLOAT32, cuda99), TENSOR_ERR_DEVICE, "tensor_linspace");
    EXPECT_NULL(tensor_linspace(0, 1, 1LL << 62, TENSOR_FLOAT32, cpu), TENSOR_ERR_OVERFLOW, "tensor_linspace");
}

static void test_rand_errors(void **state) {
    (void)state;
    EXPECT_NULL(tensor_rand(1, I64(3), 0, TENSOR_INT32, cpu), TENSOR_ERR_DTYPE,
                "tensor_rand: expected a floating point dtype, got int32");
    EXPECT_NULL(tensor_randn(1, I64(3), 0, TENSOR_BOOL, cpu), TENSOR_ERR_DTYPE,
                "tensor_randn: expected a floating point dtype, got bool");
    EXPECT_NULL(tensor_rand(1, I64(3), 0, (tensor_dtype)99, cpu), TENSOR_ERR_DTYPE, "tensor_rand: unknown dtype 99");
    EXPECT_NULL(tensor_randn(1, I64(-3), 0, TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT, "tensor_randn: negative size");
}

static void test_from_buffer_errors(void **state) {
    (void)state;
    EXPECT_NULL(tensor_from_buffer(NULL, 1, I64(3), TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT,
                "tensor_from_buffer: argument 'data' is NULL");
    EXPECT_NULL(tensor_from_buffer(NULL, 0, NULL, TENSOR_FLOAT32, cpu), TENSOR_ERR_INVALID_ARGUMENT,
                "tensor_from_buffer: argument 'data' is NULL"); /* a 0-d tensor has one element */
}

typedef struct {
    int calls;
} del_count;
static void count_deleter(void *data, void *ctx) {
    (void)data;
    ((del_count *)ctx)->calls++;
}

static void test_from_blob_errors(void **state) {
    (void)state;
    del_count dc = {0};
    float buf[16];
    EXPECT_NULL(tensor_from_blob(NULL, 1, I64(3), NULL, TENSOR_FLOAT32, cpu, count_deleter, &dc),
                TENSOR_ERR_INVALID_ARGUMENT, "tensor_from_blob: argument 'data' is NULL");
    EXPECT_NULL(tensor_from_blob(NULL, 0, NULL, NULL, TENSOR_FLOAT32, cpu, count_deleter, &dc),
                TENSOR_ERR_INVALID_ARGUMENT, "tensor_from_blob: argument 'data' is NULL");
    EXPECT_NULL(tensor_from_blob(buf, 2, I64(2, 2), I64(2, -1), TENSOR_FLOAT32, cpu, count_deleter, &dc),
                TENSOR_ERR_INVALID_ARGUMENT, "tensor_from_blob: negative stride -1 at dim 1");
    /* (3 - 1) * 2^62 overflows the extent */
    EXPECT_NULL(tensor_from_blob(buf, 1, I64(3), I64(1LL << 62), TENSOR_FLOAT32, cpu, count_deleter, &dc),
                TENSOR_ERR_OVERFLOW, "tensor_from_blob: strides and sizes overflow int64 at dim 0");
    EXPECT_NULL(tensor_from_blob(buf, 2, I64(2, 2), I64(INT64_MAX, INT64_MAX), TENSOR_FLOAT32, cpu, count_deleter, &dc),
                TENSOR_ERR_OVERFLOW, "tensor_from_blob");
    /* the extent fits in elements but not in bytes */
    EXPECT_NULL(tensor_from_blob(buf, 1, I64(1LL << 61), NULL, TENSOR_FLOAT64, cpu, count_deleter, &dc),
                TENSOR_ERR_OVERFLOW, "tensor_from_blob: byte extent overflows int64");
    EXPECT_NULL(tensor_from_blob(buf, 1, I64(-1), NULL, TENSOR_FLOAT32, cpu, count_deleter, &dc),
                TENSOR_ERR_INVALID_ARGUMENT, "tensor_from_blob: negative size");
    EXPECT_NULL(tensor_from_blob(buf, 1, I64(2), NULL, (tensor_dtype)99, cpu, count_deleter, &dc), TENSOR_ERR_DTYPE,
                "tensor_from_blob: unknown dtype 99");
    EXPECT_NULL(tensor_from_blob(buf, 1, I64(2), NULL, TENSOR_FLOAT32, bad_type, count_deleter, &dc),
                TENSOR_ERR_DEVICE, "tensor_from_blob: unknown device type 42");
    EXPECT_NULL(tensor_from_blob(buf, 1, I64(2), NULL, TENSOR_FLOAT32, cuda99, count_deleter, &dc), TENSOR_ERR_DEVICE,
                "tensor_from_blob: device cuda:99");
    assert_int_equal(dc.calls, 0); /* the caller still owns the memory after every failure */
}

static void test_to_buffer_errors(void **state) {
    (void)state;
    tensor_t *t = tensor_zeros(2, I64(2, 3), TENSOR_FLOAT32, cpu);
    float out[6];
    EXPECT_STATUS(tensor_to_buffer(NULL, out, sizeof out), TENSOR_ERR_INVALID_ARGUMENT,
                  "tensor_to_buffer: argument 't' is NULL");
    EXPECT_STATUS(tensor_to_buffer(t, NULL, sizeof out), TENSOR_ERR_INVALID_ARGUMENT,
                  "tensor_to_buffer: argument 'dst' is NULL");
    EXPECT_STATUS(tensor_to_buffer(t, out, 23), TENSOR_ERR_INVALID_ARGUMENT,
                  "tensor_to_buffer: dst_bytes 23 is smaller than the 24 bytes of t");
    tensor_t *tt = tensor_transpose(t, 0, 1);
    EXPECT_STATUS(tensor_to_buffer(tt, out, 0), TENSOR_ERR_INVALID_ARGUMENT, "dst_bytes 0 is smaller");
    /* An expanded view with more bytes than size_t can count. */
    tensor_t *one = tensor_zeros(1, I64(1), TENSOR_FLOAT64, cpu);
    tensor_t *ex = tensor_expand(one, 1, I64(1LL << 62));
    assert_non_null(ex);
    EXPECT_STATUS(tensor_to_buffer(ex, out, sizeof out), TENSOR_ERR_OVERFLOW, "tensor_to_buffer");
    tensor_t *ex2 = tensor_expand(one, 2, I64(1LL << 31, 1LL << 31)); /* 2^62 * 8 bytes */
    EXPECT_STATUS(tensor_to_buffer(ex2, out, SIZE_MAX), TENSOR_ERR_OVERFLOW, "tensor_to_buffer");
    tensor_release(ex2);
    tensor_release(ex);
    tensor_release(one);
    tensor_release(tt);
    tensor_release(t);
}

/* ---- properties ---- */

static void test_property_errors(void **state) {
    (void)state;
    tensor_t *t = tensor_zeros(2, I64(4, 8), TENSOR_FLOAT32, cpu);
    tensor_clear_error();
    assert_int_equal(tensor_size(t, 2), -1);
    assert_error(TENSOR_ERR_INDEX, "tensor_size: Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    assert_int_equal(tensor_size(t, -3), -1);
    assert_error(TENSOR_ERR_INDEX, "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
    assert_int_equal(tensor_stride(t, 5), -1);
    assert_error(TENSOR_ERR_INDEX, "tensor_stride: Dimension out of range (expected to be in range of [-2, 1], but got 5)");
    assert_int_equal(tensor_size(NULL, 0), -1);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_size: argument 't' is NULL");
    assert_int_equal(tensor_stride(NULL, 0), -1);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_stride: argument 't' is NULL");
    tensor_t *s = tensor_zeros(0, NULL, TENSOR_FLOAT32, cpu);
    assert_int_equal(tensor_size(s, 0), -1);
    assert_error(TENSOR_ERR_INDEX, "tensor_size: dimension specified as 0 but tensor has no dimensions");
    assert_int_equal(tensor_stride(s, -1), -1);
    assert_error(TENSOR_ERR_INDEX, "tensor_stride");
    /* NULL-tolerant accessors do not crash. */
    assert_int_equal(tensor_ndim(NULL), -1);
    assert_int_equal(tensor_numel(NULL), 0);
    assert_null(tensor_sizes(NULL));
    assert_null(tensor_strides(NULL));
    assert_null(tensor_data(NULL));
    assert_int_equal(tensor_storage_offset(NULL), 0);
    assert_int_equal(tensor_get_dtype(NULL), TENSOR_NUM_DTYPES);
    assert_true(tensor_device_equal(tensor_get_device(NULL), cpu));
    assert_false(tensor_is_contiguous(NULL));
    tensor_release(s);
    tensor_release(t);
}

/* ---- views ---- */

static void test_view_null_args(void **state) {
    (void)state;
    int dims[2] = {1, 0};
    EXPECT_NULL(tensor_permute(NULL, dims), TENSOR_ERR_INVALID_ARGUMENT, "tensor_permute: argument 't' is NULL");
    EXPECT_NULL(tensor_transpose(NULL, 0, 1), TENSOR_ERR_INVALID_ARGUMENT, "tensor_transpose: argument 't' is NULL");
    EXPECT_NULL(tensor_narrow(NULL, 0, 0, 1), TENSOR_ERR_INVALID_ARGUMENT, "tensor_narrow: argument 't' is NULL");
    EXPECT_NULL(tensor_slice(NULL, 0, 0, 1, 1), TENSOR_ERR_INVALID_ARGUMENT, "tensor_slice: argument 't' is NULL");
    EXPECT_NULL(tensor_select(NULL, 0, 0), TENSOR_ERR_INVALID_ARGUMENT, "tensor_select: argument 't' is NULL");
    EXPECT_NULL(tensor_expand(NULL, 1, I64(2)), TENSOR_ERR_INVALID_ARGUMENT, "tensor_expand: argument 't' is NULL");
    EXPECT_NULL(tensor_view(NULL, 1, I64(2)), TENSOR_ERR_INVALID_ARGUMENT, "tensor_view: argument 't' is NULL");
    EXPECT_NULL(tensor_reshape(NULL, 1, I64(2)), TENSOR_ERR_INVALID_ARGUMENT, "tensor_reshape: argument 't' is NULL");
    EXPECT_NULL(tensor_squeeze(NULL), TENSOR_ERR_INVALID_ARGUMENT, "tensor_squeeze: argument 't' is NULL");
    EXPECT_NULL(tensor_squeeze_dim(NULL, 0), TENSOR_ERR_INVALID_ARGUMENT, "tensor_squeeze_dim: argument 't' is NULL");
    EXPECT_NULL(tensor_unsqueeze(NULL, 0), TENSOR_ERR_INVALID_ARGUMENT, "tensor_unsqueeze: argument 't' is NULL");
    EXPECT_NULL(tensor_flatten(NULL, 0, -1), TENSOR_ERR_INVALID_ARGUMENT, "tensor_flatten: argument 't' is NULL");
    EXPECT_NULL(tensor_contiguous(NULL), TENSOR_ERR_INVALID_ARGUMENT, "tensor_contiguous: argument 't' is NULL");
    EXPECT_NULL(tensor_clone(NULL), TENSOR_ERR_INVALID_ARGUMENT, "tensor_clone: argument 't' is NULL");
    EXPECT_NULL(tensor_to_device(NULL, cpu), TENSOR_ERR_INVALID_ARGUMENT, "tensor_to_device: argument 't' is NULL");
    EXPECT_NULL(tensor_to_dtype(NULL, TENSOR_FLOAT32), TENSOR_ERR_INVALID_ARGUMENT,
                "tensor_to_dtype: argument 't' is NULL");
    tensor_t *t = tensor_zeros(2, I64(2, 3), TENSOR_FLOAT32, cpu);
    EXPECT_NULL(tensor_permute(t, NULL), TENSOR_ERR_INVALID_ARGUMENT, "tensor_permute: argument 'dims' is NULL");
    EXPECT_NULL(tensor_expand(t, 2, NULL), TENSOR_ERR_INVALID_ARGUMENT, "tensor_expand: argument 'sizes' is NULL");
    EXPECT_NULL(tensor_view(t, 2, NULL), TENSOR_ERR_INVALID_ARGUMENT, "tensor_view: argument 'sizes' is NULL");
    EXPECT_NULL(tensor_reshape(t, 1, NULL), TENSOR_ERR_INVALID_ARGUMENT, "tensor_reshape: argument 'sizes' is NULL");
    tensor_release(t);
}

static void test_dim_range_errors(void **state) {
    (void)state;
    tensor_t *t = tensor_zeros(2, I64(4, 8), TENSOR_FLOAT32, cpu);
    const char *msg2 = "Dimension out of range (expected to be in range of [-2, 1], but got 2)";
    const char *msgm3 = "Dimension out of range (expected to be in range of [-2, 1], but got -3)";
    EXPECT_NULL(tensor_permute(t, (const int[]){0, 2}), TENSOR_ERR_INDEX, msg2);
    assert_non_null(strstr(tensor_last_error(), "tensor_permute"));
    EXPECT_NULL(tensor_permute(t, (const int[]){-3, 0}), TENSOR_ERR_INDEX, msgm3);
    EXPECT_NULL(tensor_permute(t, (const int[]){1, 1}), TENSOR_ERR_INVALID_ARGUMENT, "tensor_permute: repeated dim 1");
    EXPECT_NULL(tensor_permute(t, (const int[]){0, -2}), TENSOR_ERR_INVALID_ARGUMENT, "tensor_permute: repeated dim 0");
    EXPECT_NULL(tensor_transpose(t, 0, 2), TENSOR_ERR_INDEX, "tensor_transpose: Dimension out of range");
    EXPECT_NULL(tensor_transpose(t, -3, 0), TENSOR_ERR_INDEX, msgm3);
    EXPECT_NULL(tensor_narrow(t, 2, 0, 1), TENSOR_ERR_INDEX, "tensor_narrow: Dimension out of range");
    EXPECT_NULL(tensor_slice(t, 2, 0, 1, 1), TENSOR_ERR_INDEX, "tensor_slice: Dimension out of range");
    EXPECT_NULL(tensor_select(t, -3, 0), TENSOR_ERR_INDEX, "tensor_select: Dimension out of range");
    EXPECT_NULL(tensor_squeeze_dim(t, 2), TENSOR_ERR_INDEX, "tensor_squeeze_dim: Dimension out of range");
    EXPECT_NULL(tensor_flatten(t, 0, 2), TENSOR_ERR_INDEX, "tensor_flatten: Dimension out of range");
    EXPECT_NULL(tensor_flatten(t, -3, 1), TENSOR_ERR_INDEX, "tensor_flatten: Dimension out of range");
    /* unsqueeze accepts [-(ndim+1), ndim] */
    EXPECT_NULL(tensor_unsqueeze(t, 3), TENSOR_ERR_INDEX,
                "tensor_unsqueeze: Dimension out of range (expected to be in range of [-3, 2], but got 3)");
    EXPECT_NULL(tensor_unsqueeze(t, -4), TENSOR_ERR_INDEX, "[-3, 2], but got -4");
    /* 0-d: scalars wrap as 1-d where PyTorch does (transpose, squeeze, flatten), not elsewhere. */
    tensor_t *s = tensor_zeros(0, NULL, TENSOR_FLOAT32, cpu);
    EXPECT_NULL(tensor_transpose(s, 0, 1), TENSOR_ERR_INDEX, "[-1, 0], but got 1");
    EXPECT_NULL(tensor_squeeze_dim(s, 1), TENSOR_ERR_INDEX, "tensor_squeeze_dim");
    EXPECT_NULL(tensor_flatten(s, 0, 1), TENSOR_ERR_INDEX, "tensor_flatten");
    EXPECT_NULL(tensor_narrow(s, 0, 0, 1), TENSOR_ERR_INDEX, "tensor_narrow: dimension specified as 0 but tensor has no dimensions");
    EXPECT_NULL(tensor_slice(s, 0, 0, 1, 1), TENSOR_ERR_INDEX, "tensor_slice");
    EXPECT_NULL(tensor_select(s, 0, 0), TENSOR_ERR_INDEX, "tensor_select");
    EXPECT_NULL(tensor_unsqueeze(s, 1), TENSOR_ERR_INDEX, "[-1, 0], but got 1");
    /* flatten: start after end */
    EXPECT_NULL(tensor_flatten(t, 1, 0), TENSOR_ERR_INVALID_ARGUMENT, "tensor_flatten: start_dim 1 cannot come after end_dim 0");
    EXPECT_NULL(tensor_flatten(t, -1, 0), TENSOR_ERR_INVALID_ARGUMENT, "tensor_flatten");
    tensor_release(s);
    tensor_release(t);
}

static void test_narrow_slice_select_errors(void **state) {
    (void)state;
    tensor_t *t = tensor_zeros(2, I64(4, 8), TENSOR_FLOAT32, cpu);
    EXPECT_NULL(tensor_narrow(t, 1, 7, 3), TENSOR_ERR_INDEX, "tensor_narrow: start 7 + length 3 exceeds size 8 of dim 1");
    EXPECT_NULL(tensor_narrow(t, -1, -2, 3), TENSOR_ERR_INDEX, "tensor_narrow: start 6 + length 3 exceeds size 8 of dim 1");
    EXPECT_NULL(tensor_narrow(t, 1, 9, 0), TENSOR_ERR_INDEX, "tensor_narrow: start 9 out of range for size 8 of dim 1");
    EXPECT_NULL(tensor_narrow(t, 1, -9, 1), TENSOR_ERR_INDEX, "tensor_narrow: start -9 out of range");
    EXPECT_NULL(tensor_narrow(t, 0, 0, -1), TENSOR_ERR_INVALID_ARGUMENT, "tensor_narrow: length must be non-negative, got -1");
    EXPECT_NULL(tensor_narrow(t, 0, 1, INT64_MAX), TENSOR_ERR_INDEX, "tensor_narrow: start 1 + length 9223372036854775807");
    EXPECT_NULL(tensor_narrow(t, 0, INT64_MIN, 1), TENSOR_ERR_INDEX, "tensor_narrow");
    EXPECT_NULL(tensor_slice(t, 1, 0, 8, 0), TENSOR_ERR_INVALID_ARGUMENT, "tensor_slice: slice step must be positive, got 0");
    EXPECT_NULL(tensor_slice(t, 1, 0, 8, -1), TENSOR_ERR_INVALID_ARGUMENT, "tensor_slice: slice step must be positive, got -1");
    EXPECT_NULL(tensor_select(t, 1, 8), TENSOR_ERR_INDEX, "tensor_select: index 8 out of range for size 8 of dim 1");
    EXPECT_NULL(tensor_select(t, 0, -5), TENSOR_ERR_INDEX, "tensor_select: index -5 out of range for size 4 of dim 0");
    EXPECT_NULL(tensor_select(t, 0, INT64_MIN), TENSOR_ERR_INDEX, "tensor_select");
    tensor_t *e = tensor_zeros(2, I64(0, 3), TENSOR_FLOAT32, cpu);
    EXPECT_NULL(tensor_select(e, 0, 0), TENSOR_ERR_INDEX, "tensor_select: index 0 out of range for size 0");
    tensor_release(e);
    tensor_release(t);
}

static void test_expand_errors(void **state) {
    (void)state;
    tensor_t *t = tensor_zeros(2, I64(2, 3), TENSOR_FLOAT32, cpu);
    EXPECT_NULL(tensor_expand(t, 2, I64(2, 4)), TENSOR_ERR_SHAPE,
                "tensor_expand: The expanded size of the tensor (4) must match the existing size (3) at non-singleton "
                "dimension 1.  Target sizes: [2, 4].  Tensor sizes: [2, 3]");
    EXPECT_NULL(tensor_expand(t, 3, I64(5, 1, 3)), TENSOR_ERR_SHAPE,
                "The expanded size of the tensor (1) must match the existing size (2) at non-singleton dimension 1");
    EXPECT_NULL(tensor_expand(t, 1, I64(3)), TENSOR_ERR_SHAPE,
                "tensor_expand: the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)");
    EXPECT_NULL(tensor_expand(t, -1, I64(3)), TENSOR_ERR_SHAPE, "tensor_expand");
    EXPECT_NULL(tensor_expand(t, 3, I64(-1, 2, 3)), TENSOR_ERR_INVALID_ARGUMENT,
                "tensor_expand: the expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0");
    EXPECT_NULL(tensor_expand(t, 2, I64(2, -2)), TENSOR_ERR_INVALID_ARGUMENT, "tensor_expand: negative size -2 at dim 1");
    int64_t seventeen[17];
    for (int i = 0; i < 17; i++) seventeen[i] = i < 15 ? 1 : (i == 15 ? 2 : 3);
    EXPECT_NULL(tensor_expand(t, 17, seventeen), TENSOR_ERR_INVALID_ARGUMENT, "tensor_expand: ndim 17 exceeds TENSOR_MAX_DIMS");
    tensor_t *one = tensor_zeros(1, I64(1), TENSOR_FLOAT32, cpu);
    EXPECT_NULL(tensor_expand(one, 2, I64(1LL << 32, 1LL << 32)), TENSOR_ERR_OVERFLOW, "tensor_expand: the product of sizes");
    EXPECT_NULL(tensor_expand(one, 3, I64(0, 1LL << 62, 1LL << 62)), TENSOR_ERR_OVERFLOW, "tensor_expand");
    tensor_release(one);
    tensor_release(t);
}

static void test_view_reshape_errors(void **state) {
    (void)state;
    tensor_t *t = tensor_zeros(3, I64(2, 3, 4), TENSOR_FLOAT32, cpu);
    const char *fns[] = {"tensor_view", "tensor_reshape"};
    for (int k = 0; k < 2; k++) {
        tensor_t *(*fn)(const tensor_t *, int, const int64_t *) = k == 0 ? tensor_view : tensor_reshape;
        char want[160];
        snprintf(want, sizeof want, "%s: shape '[5, 5]' is invalid for input of size 24", fns[k]);
        EXPECT_NULL(fn(t, 2, I64(5, 5)), TENSOR_ERR_SHAPE, want);
        snprintf(want, sizeof want, "%s: shape '[5, -1]' is invalid for input of size 24", fns[k]);
        EXPECT_NULL(fn(t, 2, I64(5, -1)), TENSOR_ERR_SHAPE, want);
        EXPECT_NULL(fn(t, 2, I64(0, -1)), TENSOR_ERR_SHAPE, "is invalid for input of size 24");
        snprintf(want, sizeof want, "%s: only one dimension can be inferred", fns[k]);
        EXPECT_NULL(fn(t, 3, I64(-1, 2, -1)), TENSOR_ERR_INVALID_ARGUMENT, want);
        snprintf(want, sizeof want, "%s: invalid shape dimension -2", fns[k]);
        EXPECT_NULL(fn(t, 2, I64(-2, -12)), TENSOR_ERR_INVALID_ARGUMENT, want);
        int64_t seventeen[17];
        for (int i = 0; i < 17; i++) seventeen[i] = 1;
        EXPECT_NULL(fn(t, 17, seventeen), TENSOR_ERR_INVALID_ARGUMENT, fns[k]);
        EXPECT_NULL(fn(t, -1, seventeen), TENSOR_ERR_INVALID_ARGUMENT, fns[k]);
        EXPECT_NULL(fn(t, 3, I64(1LL << 32, 1LL << 32, 4)), TENSOR_ERR_OVERFLOW, fns[k]);
        /* numel 0: sizes whose product of non-zero entries overflows are refused, not wrapped. */
        tensor_t *e = tensor_zeros(1, I64(0), TENSOR_FLOAT32, cpu);
        EXPECT_NULL(fn(e, 3, I64(0, 1LL << 62, 1LL << 62)), TENSOR_ERR_OVERFLOW, fns[k]);
        snprintf(want, sizeof want,
                 "%s: cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified dimension size -1 can be any value and is ambiguous",
                 fns[k]);
        EXPECT_NULL(fn(e, 2, I64(0, -1)), TENSOR_ERR_SHAPE, want);
        tensor_release(e);
    }
    tensor_t *tt = tensor_transpose(t, 0, 2);
    EXPECT_NULL(tensor_view(tt, 1, I64(24)), TENSOR_ERR_SHAPE,
                "tensor_view: view size is not compatible with input tensor's size and stride (at least one dimension "
                "spans across two contiguous subspaces). Use tensor_reshape instead.");
    tensor_release(tt);
    tensor_release(t);
}

static void test_unsqueeze_max_dims(void **state) {
    (void)state;
    int64_t sizes[TENSOR_MAX_DIMS];
    for (int i = 0; i < TENSOR_MAX_DIMS; i++) sizes[i] = 1;
    tensor_t *t = tensor_zeros(TENSOR_MAX_DIMS, sizes, TENSOR_INT8, cpu);
    assert_non_null(t);
    EXPECT_NULL(tensor_unsqueeze(t, 0), TENSOR_ERR_INVALID_ARGUMENT,
                "tensor_unsqueeze: result would have 17 dims, more than TENSOR_MAX_DIMS (16)");
    tensor_release(t);
}

/* ---- copies ---- */

static void test_copy_errors(void **state) {
    (void)state;
    tensor_t *t = tensor_zeros(2, I64(2, 3), TENSOR_FLOAT32, cpu);
    EXPECT_NULL(tensor_to_dtype(t, (tensor_dtype)99), TENSOR_ERR_DTYPE, "tensor_to_dtype: unknown dtype 99");
    EXPECT_NULL(tensor_to_dtype(t, TENSOR_DTYPE_DEFAULT), TENSOR_ERR_DTYPE, "tensor_to_dtype: unknown dtype -1");
    EXPECT_NULL(tensor_to_dtype(t, TENSOR_NUM_DTYPES), TENSOR_ERR_DTYPE, "tensor_to_dtype");
    EXPECT_NULL(tensor_to_device(t, bad_type), TENSOR_ERR_DEVICE, "tensor_to_device: unknown device type 42");
    EXPECT_NULL(tensor_to_device(t, cpu1), TENSOR_ERR_DEVICE, "tensor_to_device: CPU device index must be 0");
    EXPECT_NULL(tensor_to_device(t, cuda99), TENSOR_ERR_DEVICE, "tensor_to_device: device cuda:99");
    if (!tensor_cuda_is_built())
        EXPECT_NULL(tensor_to_device(t, tensor_cuda(0)), TENSOR_ERR_DEVICE,
                    "tensor_to_device: device cuda:0 requested but tinytensor was built without CUDA");
    tensor_release(t);
}

/* Results too large to materialise: an expanded view is cheap, its copy is 2^60 bytes. The error
 * must name the function the caller called, not an internal helper. */
static void test_copy_out_of_memory(void **state) {
    (void)state;
    tensor_t *col = tensor_zeros(2, I64(2, 1), TENSOR_UINT8, cpu);
    tensor_t *big = tensor_expand(col, 2, I64(2, 1LL << 59)); /* strides (1, 0): not viewable as 1-d */
    assert_non_null(big);
    EXPECT_NULL(tensor_clone(big), TENSOR_ERR_OUT_OF_MEMORY, "tensor_clone: cannot allocate");
    EXPECT_NULL(tensor_contiguous(big), TENSOR_ERR_OUT_OF_MEMORY, "tensor_contiguous: cannot allocate");
    EXPECT_NULL(tensor_to_dtype(big, TENSOR_INT16), TENSOR_ERR_OUT_OF_MEMORY, "tensor_to_dtype: cannot allocate");
    EXPECT_NULL(tensor_to_dtype(big, TENSOR_FLOAT64), TENSOR_ERR_OVERFLOW, "tensor_to_dtype"); /* 2^63 bytes */
    EXPECT_NULL(tensor_reshape(big, 1, I64(-1)), TENSOR_ERR_OUT_OF_MEMORY, "tensor_reshape: cannot allocate");
    EXPECT_NULL(tensor_flatten(big, 0, 1), TENSOR_ERR_OUT_OF_MEMORY, "tensor_flatten: cannot allocate");
    /* Views of it stay cheap. */
    tensor_t *v = tensor_reshape(big, 3, I64(2, 1LL << 58, 2));
    assert_non_null(v);
    assert_true(tensor_shares_storage(v, col));
    tensor_release(v);
    tensor_release(big);
    tensor_release(col);
}

/* ---- internal helpers (tensor_impl.h) ---- */

static void test_internal_helpers(void **state) {
    (void)state;
    int d = -100;
    EXPECT_STATUS(tensor_wrap_dim(2, 2, false, &d, "f"), TENSOR_ERR_INDEX,
                  "f: Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    assert_int_equal(d, -100); /* untouched on error */
    assert_int_equal(tensor_wrap_dim(-1, 2, false, &d, "f"), TENSOR_OK);
    assert_int_equal(d, 1);
    assert_int_equal(tensor_wrap_dim(-1, 0, true, &d, "f"), TENSOR_OK);
    assert_int_equal(d, 0);
    EXPECT_STATUS(tensor_wrap_dim(0, 0, false, &d, "f"), TENSOR_ERR_INDEX, "f: dimension specified as 0 but tensor has no dimensions");
    EXPECT_STATUS(tensor_wrap_dim(INT32_MIN, 3, false, &d, "f"), TENSOR_ERR_INDEX, "but got -2147483648");
    int64_t numel = -1;
    assert_int_equal(tensor_check_shape(0, NULL, &numel, "f"), TENSOR_OK);
    assert_int_equal(numel, 1);
    assert_int_equal(tensor_check_shape(2, I64(3, 0), &numel, "f"), TENSOR_OK);
    assert_int_equal(numel, 0);
    assert_int_equal(tensor_check_shape(2, I64(INT64_MAX, 1), &numel, "f"), TENSOR_OK);
    assert_int_equal(numel, INT64_MAX);
    EXPECT_STATUS(tensor_check_shape(2, I64(INT64_MAX, 2), &numel, "f"), TENSOR_ERR_OVERFLOW, "f: the product of sizes overflows int64 at dim 1");
    /* tensor_copy_cpu refuses different shapes, even with the same numel and ndim. */
    tensor_t *a = tensor_zeros(2, I64(2, 3), TENSOR_FLOAT32, cpu);
    tensor_t *b = tensor_zeros(2, I64(3, 2), TENSOR_FLOAT32, cpu);
    tensor_t *c = tensor_zeros(1, I64(6), TENSOR_FLOAT32, cpu);
    EXPECT_STATUS(tensor_copy_cpu(a, b, "g"), TENSOR_ERR_SHAPE, "g: copy between tensors of different shapes");
    EXPECT_STATUS(tensor_copy_cpu(a, c, "g"), TENSOR_ERR_SHAPE, "g: copy between tensors of different shapes");
    assert_int_equal(tensor_copy_cpu(a, a, "g"), TENSOR_OK);
    tensor_release(a);
    tensor_release(b);
    tensor_release(c);
}

static const struct CMUnitTest error_tests[] = {
    cmocka_unit_test(test_status_names),
    cmocka_unit_test(test_last_error_lifecycle),
    cmocka_unit_test(test_last_error_long_message_truncated),
    cmocka_unit_test(test_last_error_thread_local),
    cmocka_unit_test(test_error_message_self_reference),
    cmocka_unit_test(test_device_check_and_format),
    cmocka_unit_test(test_creation_shape_errors),
    cmocka_unit_test(test_creation_dtype_device_errors),
    cmocka_unit_test(test_creation_out_of_memory),
    cmocka_unit_test(test_arange_errors),
    cmocka_unit_test(test_linspace_errors),
    cmocka_unit_test(test_rand_errors),
    cmocka_unit_test(test_from_buffer_errors),
    cmocka_unit_test(test_from_blob_errors),
    cmocka_unit_test(test_to_buffer_errors),
    cmocka_unit_test(test_property_errors),
    cmocka_unit_test(test_view_null_args),
    cmocka_unit_test(test_dim_range_errors),
    cmocka_unit_test(test_narrow_slice_select_errors),
    cmocka_unit_test(test_expand_errors),
    cmocka_unit_test(test_view_reshape_errors),
    cmocka_unit_test(test_unsqueeze_max_dims),
    cmocka_unit_test(test_copy_errors),
    cmocka_unit_test(test_copy_out_of_memory),
    cmocka_unit_test(test_internal_helpers),
};

TENSOR_TEST_GROUP(errors, error_tests, NULL, NULL)
