/* The SIMD variants of the CPU sums against each other, bitwise. Each sum runs with the CPU
 * features as detected, then with some of them masked off (cpu/cpu_isa.h): AVX-512 off, then
 * everything off. Masking sends a sum to the template instead of the hand-written AVX2 kernels
 * (every build), and to the template's AVX2 or baseline variant (builds without ifuncs, where
 * the variant is chosen from the same features). A mask only removes features, so nothing runs
 * an instruction the CPU lacks. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define CPU_SUM_TEST_SEED 0x2545f4914f6cdd1dull
#include "cpu_sum_test_util.h"
#include "cpu/cpu_isa.h"

typedef struct isa_case {
    const char *name;
    int64_t rows, cols;
    tensor_dtype dtype;
    int dim; /* -1: every dim */
    int op;  /* 0 sum, 1 nansum, 2 mean, 3 nanmean */
} isa_case;

static const isa_case cases[] = {
    {"f32 rows", 37, 5000, TENSOR_FLOAT32, 1, 0},      {"f32 rows nansum", 37, 5000, TENSOR_FLOAT32, 1, 1},
    {"f32 short rows", 9000, 7, TENSOR_FLOAT32, 1, 0},  {"f32 rows of 24", 300, 24, TENSOR_FLOAT32, 1, 1},
    {"f32 outer", 300, 64, TENSOR_FLOAT32, 0, 0},       {"f32 outer wide", 40, 3000, TENSOR_FLOAT32, 0, 1},
    {"f32 all", 1, 100003, TENSOR_FLOAT32, -1, 0},      {"f16 rows", 17, 4099, TENSOR_FLOAT16, 1, 0},
    {"f16 outer", 70, 500, TENSOR_FLOAT16, 0, 1},       {"bf16 rows", 5, 9000, TENSOR_BFLOAT16, 1, 0},
    {"bf16 rows nansum", 5, 9000, TENSOR_BFLOAT16, 1, 1}, {"bf16 outer", 70, 300, TENSOR_BFLOAT16, 0, 0},
    {"f64 rows", 9, 3001, TENSOR_FLOAT64, 1, 1},        {"f64 outer", 65, 200, TENSOR_FLOAT64, 0, 0},
    {"f64 short rows", 500, 5, TENSOR_FLOAT64, 1, 0},   {"int8 all", 1, 70001, TENSOR_INT8, -1, 0},
    {"f32 mean rows", 37, 5000, TENSOR_FLOAT32, 1, 2},  {"f32 nanmean outer", 300, 64, TENSOR_FLOAT32, 0, 3},
};
#define NUM_CASES (int)(sizeof cases / sizeof cases[0])

static tensor_t *inputs[NUM_CASES];

static tensor_t *run(int c) {
    const isa_case *k = &cases[c];
    const int dim = k->dim;
    const int *dims = dim < 0 ? NULL : &dim;
    const int nd = dim < 0 ? 0 : 1;
    switch (k->op) {
    case 0: return tensor_sum_dims(inputs[c], dims, nd, false, TENSOR_DTYPE_DEFAULT);
    case 1: return tensor_nansum(inputs[c], dims, nd, false, TENSOR_DTYPE_DEFAULT);
    case 2: return tensor_mean(inputs[c], dims, nd, false, TENSOR_DTYPE_DEFAULT);
    default: return tensor_nanmean(inputs[c], dims, nd, false, TENSOR_DTYPE_DEFAULT);
    }
}

static int setup(void **state) {
    (void)state;
    for (int c = 0; c < NUM_CASES; c++) {
        int64_t sizes[2] = {cases[c].rows, cases[c].cols};
        /* NaNs for the NaN-skipping ops; int8 from float values scaled into its range */
        tensor_t *f = rnd_tensor(2, sizes, cases[c].op % 2 == 1 ? 7 : 0);
        if (cases[c].dtype == TENSOR_INT8) {
            int8_t *b = malloc((size_t)(sizes[0] * sizes[1]));
            if (b == NULL) return -1;
            for (int64_t i = 0; i < sizes[0] * sizes[1]; i++) b[i] = (int8_t)(rng_next() & 0xff);
            inputs[c] = tensor_from_buffer(b, 2, sizes, TENSOR_INT8, tensor_cpu());
            free(b);
        } else {
            inputs[c] = tensor_to_dtype(f, cases[c].dtype);
        }
        tensor_release(f);
        if (inputs[c] == NULL) return -1;
    }
    return 0;
}

static int teardown(void **state) {
    (void)state;
    for (int c = 0; c < NUM_CASES; c++) tensor_release(inputs[c]);
    atomic_store(&tt_cpu_feature_bits, 0u); /* detected again on the next use */
    return 0;
}

static void test_variants_give_the_same_bits(void **state) {
    (void)state;
    atomic_store(&tt_cpu_feature_bits, 0u);
    const unsigned detected = tt_cpu_features();
    const unsigned masks[2] = {detected & ~(TT_CPU_AVX512F | TT_CPU_AVX512BW), TT_CPU_DETECTED};
    int compared = 0;
    for (int c = 0; c < NUM_CASES; c++) {
        atomic_store(&tt_cpu_feature_bits, detected);
        tensor_t *want = run(c);
        assert_non_null(want);
        for (int m = 0; m < 2; m++) {
            if (masks[m] == detected) continue; /* nothing to take away on this CPU */
            atomic_store(&tt_cpu_feature_bits, masks[m]);
            tensor_t *got = run(c);
            expect_bitwise(got, want, cases[c].name, (long long)masks[m]);
            tensor_release(got);
            compared++;
        }
        tensor_release(want);
    }
    atomic_store(&tt_cpu_feature_bits, detected);
    /* on an x86-64 CPU with AVX2 every case ran at least twice */
    if (detected & TT_CPU_AVX2) assert_true(compared >= NUM_CASES);
}

static const struct CMUnitTest isa_tests[] = {
    cmocka_unit_test(test_variants_give_the_same_bits),
};

TENSOR_TEST_GROUP(cpu_isa, isa_tests, setup, teardown)
