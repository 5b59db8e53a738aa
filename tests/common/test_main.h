/* Test registry shared by every module's test executable.
 *
 * Each tests/<module>/<file>.c ends with
 *     TENSOR_TEST_GROUP(dtype, tests, setup, teardown)
 * where `tests` is its array of CMUnitTest; the group registers itself at load time and
 * tests/common/test_main.c runs every group of the executable. A group may call
 * tensor_test_require_gpu() first: with no GPU the whole executable exits 77 (skipped). */
#ifndef TENSOR_TEST_MAIN_H
#define TENSOR_TEST_MAIN_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tinytensor.h"

typedef struct tensor_test_group {
    const char *name;
    const struct CMUnitTest *tests;
    size_t count;
    CMFixtureFunction setup;
    CMFixtureFunction teardown;
} tensor_test_group;

void tensor_test_register(tensor_test_group group);

/* Marks this executable as needing a CUDA device (call from a constructor via the macro). */
void tensor_test_mark_needs_gpu(void);

#define TENSOR_TEST_GROUP(name, tests, setup, teardown)                                          \
    __attribute__((constructor)) static void tensor_test_register_##name(void) {                 \
        tensor_test_group g = {#name, tests, sizeof(tests) / sizeof((tests)[0]), setup, teardown}; \
        tensor_test_register(g);                                                                 \
    }

/* Put once in a module whose tests all need a GPU. */
#define TENSOR_TEST_NEEDS_GPU()                                                                  \
    __attribute__((constructor)) static void tensor_test_needs_gpu_ctor(void) { tensor_test_mark_needs_gpu(); }

/* Asserts that the last call failed with `status` and that its message contains `needle`. */
#define assert_error(status, needle)                                                             \
    do {                                                                                         \
        assert_int_equal(tensor_last_status(), (status));                                        \
        if (strstr(tensor_last_error(), (needle)) == NULL)                                       \
            fail_msg("message \"%s\" lacks \"%s\"", tensor_last_error(), (needle));              \
    } while (0)

#endif
