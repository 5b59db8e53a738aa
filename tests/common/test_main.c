#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"

#define TENSOR_TEST_MAX_GROUPS 64

static tensor_test_group groups[TENSOR_TEST_MAX_GROUPS];
static int num_groups;
static int needs_gpu;

void tensor_test_register(tensor_test_group group) {
    if (num_groups < TENSOR_TEST_MAX_GROUPS) groups[num_groups++] = group;
}

void tensor_test_mark_needs_gpu(void) { needs_gpu = 1; }

/* Constructors run in link order; sort by name so the run order is stable. */
static int by_name(const void *a, const void *b) {
    return strcmp(((const tensor_test_group *)a)->name, ((const tensor_test_group *)b)->name);
}

/* TENSOR_TEST_GROUPS=a,b runs only those groups (a quick rerun of one module's part). */
static int selected(const char *name) {
    const char *sel = getenv("TENSOR_TEST_GROUPS");
    if (sel == NULL || sel[0] == '\0') return 1;
    size_t n = strlen(name);
    for (const char *p = sel; *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0) return 1;
        p += len + (end != NULL);
    }
    return 0;
}

int main(void) {
    if (needs_gpu && tensor_cuda_device_count() == 0) {
        printf("test_%s: no CUDA device (built with CUDA: %s): skipped\n", TENSOR_TEST_MODULE,
               tensor_cuda_is_built() ? "yes" : "no");
        return 77;
    }
    qsort(groups, (size_t)num_groups, sizeof groups[0], by_name);
    int failed = 0;
    for (int i = 0; i < num_groups; i++)
        if (selected(groups[i].name))
            failed += _cmocka_run_group_tests(groups[i].name, groups[i].tests, groups[i].count, groups[i].setup,
                                          groups[i].teardown);
    return failed == 0 ? 0 : 1;
}
