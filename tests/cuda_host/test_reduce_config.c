/* The CUDA reduction launch plan, computed on the host: reproduces PyTorch's setReduceConfig
 * numbers for a 132-SM, 2048-threads-per-SM device (the [8, 32, 64, 128] sum over dim 1, as PyTorch plans it). */
#include <string.h>

#include "test_main.h"
#include "cuda/reduce_config.h"

static const tensor_cuda_props h100 = {132, 2048, 32};
static const tensor_reduce_kernel_traits f32_sum = {4, 4, 4, 4, 4, 512, 0, NULL, NULL, 0, 0};
/* Our plan (tensor_cuda_reduce_traits): the same numbers plus our measured deviations. */
static const tensor_reduce_kernel_traits f32_tuned = {4, 4, 4, 4, 4, 512, 1, NULL, NULL, 0, 1};
static const tensor_reduce_kernel_traits f16_tuned = {2, 4, 8, 8, 4, 512, 1, NULL, NULL, 0, 1};
static const tensor_reduce_kernel_traits f64_tuned = {8, 8, 4, 2, 2, 512, 1, NULL, NULL, 0, 1};

typedef struct {
    tensor_t *in;
    tensor_iter_t *iter;
    tensor_reduce_config c;
} planned;

/* Plans sum(in, dims) for a float32 input of `shape` viewed without allocating its data. */
static void plan(planned *p, int ndim, const int64_t *shape, const int *dims, int ndims,
                 const tensor_reduce_kernel_traits *tr) {
    /* The data pointer only feeds alignment checks: a fake, 256-byte aligned address suffices,
     * so multi-GB shapes cost nothing. */
    p->in = tensor_from_blob((void *)(uintptr_t)0x100000, ndim, shape, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL,
                             NULL);
    assert_non_null(p->in);
    int64_t out_shape[TENSOR_MAX_DIMS];
    for (int d = 0; d < ndim; d++) out_shape[d] = shape[d];
    for (int i = 0; i < ndims; i++) out_shape[dims[i]] = 1;
    tensor_t *out = tensor_from_blob((void *)(uintptr_t)0x200000, ndim, out_shape, NULL, TENSOR_FLOAT32, tensor_cpu(),
                                     NULL, NULL);
    assert_non_null(out);
    p->iter = tensor_iter_reduce_new("plan", out, p->in, dims, ndims, true, TENSOR_FLOAT32);
    tensor_release(out);
    assert_non_null(p->iter);
    assert_int_equal(tensor_reduce_config_make(p->iter, &h100, tr, &p->c), TENSOR_OK);
}

static void unplan(planned *p) {
    tensor_iter_free(p->iter);
    tensor_release(p->in);
}

static void test_seed_16x128x64x128_dim1(void **state) {
    (void)state;
    planned p;
    int64_t shape[4] = {16, 128, 64, 128};
    int dim = 1;
    plan(&p, 4, shape, &dim, 1, &f32_sum);
    const tensor_reduce_config *c = &p.c;
    assert_int_equal(c->block_width, 32);
    assert_int_equal(c->block_height, 4);
    assert_int_equal(c->grid[0], 1024);
    assert_int_equal(c->grid[1], 1);
    assert_int_equal(c->output_vec_size, 4);
    assert_false(c->vectorize_input);
    assert_int_equal(c->input_mult[0], 0);
    assert_int_equal(c->input_mult[1], 1);
    assert_int_equal(c->input_mult[2], 0);
    assert_int_equal(c->output_mult[0], 1);
    assert_int_equal(c->output_mult[1], 0);
    assert_int_equal(c->step_input, 4);
    assert_int_equal(c->step_output, 32);
    assert_int_equal(c->ctas_per_output, 1);
    assert_int_equal(c->num_outputs, 131072);
    assert_int_equal(c->num_inputs, 128);
    assert_int_equal(c->values_per_thread, 32);
    assert_int_equal(c->shared_memory_bytes, 2048);
    assert_int_equal(c->staging_bytes, 0);
    unplan(&p);
}

/* Seed 000's gdb dump: num_inputs 32, num_outputs 65536, step_input 1, step_output 128,
 * input_mult {0,0,0}, output_mult {1,32}, block {32,4}, grid {128,1}, output_vec_size 4. */
static void test_seed_8x32x64x128_dim1(void **state) {
    (void)state;
    planned p;
    int64_t shape[4] = {8, 32, 64, 128};
    int dim = 1;
    plan(&p, 4, shape, &dim, 1, &f32_sum);
    const tensor_reduce_config *c = &p.c;
    assert_int_equal(c->num_inputs, 32);
    assert_int_equal(c->num_outputs, 65536);
    assert_int_equal(c->step_input, 1);
    assert_int_equal(c->step_output, 128);
    assert_int_equal(c->input_mult[0], 0);
    assert_int_equal(c->input_mult[1], 0);
    assert_int_equal(c->input_mult[2], 0);
    assert_int_equal(c->output_mult[0], 1);
    assert_int_equal(c->output_mult[1], 32);
    assert_int_equal(c->block_width, 32);
    assert_int_equal(c->block_height, 4);
    assert_int_equal(c->num_threads, 128);
    assert_int_equal(c->grid[0], 128);
    assert_int_equal(c->grid[1], 1);
    assert_int_equal(c->output_vec_size, 4);
    assert_false(c->vectorize_input);
    assert_int_equal(c->shared_memory_bytes, 0);
    unplan(&p);
}

/* Our plan for the same shape (a deliberate difference, docs/cuda_reduce.md "short outer
 * reductions"): 8 warps split each column of 32, so 128K threads have 4 loads each in flight
 * instead of 16K threads with 32 each. */
static void test_seed_8x32x64x128_dim1_tuned(void **state) {
    (void)state;
    planned p;
    int64_t shape[4] = {8, 32, 64, 128};
    int dim = 1;
    plan(&p, 4, shape, &dim, 1, &f32_tuned);
    const tensor_reduce_config *c = &p.c;
    assert_int_equal(c->block_width, 32);
    assert_int_equal(c->block_height, 8);
    assert_int_equal(c->output_vec_size, 4);
    assert_int_equal(c->input_mult[0], 0);
    assert_int_equal(c->input_mult[1], 1);
    assert_int_equal(c->input_mult[2], 0);
    assert_int_equal(c->output_mult[0], 1);
    assert_int_equal(c->output_mult[1], 0);
    assert_int_equal(c->step_input, 8);
    assert_int_equal(c->step_output, 32);
    assert_int_equal(c->values_per_thread, 4);
    assert_int_equal(c->grid[0], 512);
    assert_int_equal(c->grid[1], 1);
    assert_int_equal(c->shared_memory_bytes, 4 * 256 * 4);
    unplan(&p);
    /* The seed's larger shape already splits its columns over warps: unchanged. */
    int64_t big[4] = {16, 128, 64, 128};
    plan(&p, 4, big, &dim, 1, &f32_tuned);
    assert_int_equal(p.c.block_height, 4);
    assert_int_equal(p.c.grid[0], 1024);
    assert_int_equal(p.c.values_per_thread, 32);
    unplan(&p);
    /* Small inputs (a launch costs more than their loads): unchanged. */
    int64_t small[2] = {100, 33};
    int d0 = 0;
    plan(&p, 2, small, &d0, 1, &f32_tuned);
    assert_int_equal(p.c.input_mult[1], 0);
    assert_int_equal(p.c.block_height, 16);
    unplan(&p);
    /* Too few reduced elements for a full round of loads per thread: unchanged. */
    int64_t tiny[4] = {2, 3, 4, 5};
    plan(&p, 4, tiny, &dim, 1, &f32_tuned);
    assert_int_equal(p.c.input_mult[1], 0);
    unplan(&p);
}

/* Full sum of 2^24 floats: input-vectorised, 512 lanes, 528 CTAs through the global reduce. */
static void test_full_sum_2p24(void **state) {
    (void)state;
    planned p;
    int64_t shape[1] = {1 << 24};
    int dim = 0;
    plan(&p, 1, shape, &dim, 1, &f32_sum);
    const tensor_reduce_config *c = &p.c;
    assert_true(c->vectorize_input);
    assert_int_equal(c->block_width, 512);
    assert_int_equal(c->block_height, 1);
    assert_int_equal(c->grid[0], 1);
    assert_int_equal(c->grid[1], 528);
    assert_int_equal(c->ctas_per_output, 528);
    assert_int_equal(c->values_per_thread, 63);
    assert_true(tensor_reduce_config_global_reduce(c));
    assert_int_equal(c->staging_bytes, 2112);
    assert_int_equal(c->semaphore_bytes, 4);
    unplan(&p);
}

/* Row sums of 4096x4096: a warp per row, input-vectorised (case B). */
static void test_row_sums(void **state) {
    (void)state;
    planned p;
    int64_t shape[2] = {4096, 4096};
    int dim = 1;
    plan(&p, 2, shape, &dim, 1, &f32_sum);
    assert_true(p.c.vectorize_input);
    assert_int_equal(p.c.block_width, 32);
    assert_int_equal(p.c.block_height, 16);
    assert_int_equal(p.c.grid[0], 256);
    assert_int_equal(p.c.values_per_thread, 128);
    assert_int_equal(p.c.shared_memory_bytes, 0);
    unplan(&p);
}

/* Column sums of 4096x4096: outputs on lanes, warps and 64 CTAs split the column (case C); our
 * staging buffer is what the kernel addresses (32 x 64 CTAs x 32 lanes x 4 vector x 4 B). */
static void test_column_sums(void **state) {
    (void)state;
    planned p;
    int64_t shape[2] = {4096, 4096};
    int dim = 0;
    plan(&p, 2, shape, &dim, 1, &f32_sum);
    assert_int_equal(p.c.output_vec_size, 4);
    assert_int_equal(p.c.block_width, 32);
    assert_int_equal(p.c.block_height, 4);
    assert_int_equal(p.c.grid[0], 32);
    assert_int_equal(p.c.grid[1], 64);
    assert_int_equal(p.c.values_per_thread, 16);
    assert_int_equal(p.c.staging_bytes, 32 * 64 * 32 * 4 * 4);
    unplan(&p);
}

/* Rows of exactly 128 floats are not input-vectorised (128 is not > 128), as in PyTorch. */
static void test_rows_of_128(void **state) {
    (void)state;
    planned p;
    int64_t shape[2] = {1 << 20, 128};
    int dim = 1;
    plan(&p, 2, shape, &dim, 1, &f32_sum);
    assert_false(p.c.vectorize_input);
    assert_int_equal(p.c.block_width, 32);
    assert_int_equal(p.c.block_height, 16);
    assert_int_equal(p.c.grid[0], 65536);
    unplan(&p);
}

/* ---- where our plan differs from PyTorch's (docs/cuda_reduce.md says why, with figures) ---- */

/* 1M x 32 row sums: PyTorch's plan above (block {32,16}, one float per lane). Ours: the
 * short-rows kernel, 8 lanes x one 16-byte vector per row, 8 rows per thread. */
static void test_tuned_short_rows_vectorised(void **state) {
    (void)state;
    planned p;
    int64_t shape[2] = {1 << 20, 32};
    int dim = 1;
    plan(&p, 2, shape, &dim, 1, &f32_sum);
    assert_false(p.c.short_rows);
    assert_int_equal(p.c.block_width, 32);
    unplan(&p);
    plan(&p, 2, shape, &dim, 1, &f32_tuned);
    const tensor_reduce_config *c = &p.c;
    assert_true(c->short_rows);
    assert_int_equal(c->short_vec, 4);
    assert_true(c->vectorize_input);
    assert_int_equal(c->block_width, 8);
    assert_int_equal(c->block_height, 32);
    assert_int_equal(c->num_threads, TENSOR_REDUCE_SHORT_THREADS);
    assert_int_equal(c->step_output, 32 * TENSOR_REDUCE_SHORT_ROWS_FOR(4));
    assert_int_equal(c->grid[0], (1 << 20) / (32 * TENSOR_REDUCE_SHORT_ROWS_FOR(4)));
    assert_int_equal(c->grid[1], 1);
    assert_int_equal(c->values_per_thread, 1);
    assert_int_equal(c->shared_memory_bytes, 0);
    assert_int_equal(c->staging_bytes, 0);
    char buf[512];
    tensor_reduce_config_format(c, buf, sizeof buf);
    assert_non_null(strstr(buf, "short-rows kernel"));
    unplan(&p);
}

/* 4M x 7: dense rows of 28 bytes are not whole vectors: tile mode, 1024 rows (28 KB) per CTA
 * copied with 16-byte loads, a thread per row. */
static void test_tuned_short_rows_tile(void **state) {
    (void)state;
    planned p;
    int64_t shape[2] = {1 << 22, 7};
    int dim = 1;
    plan(&p, 2, shape, &dim, 1, &f32_tuned);
    assert_true(p.c.short_rows);
    assert_true(p.c.short_tile);
    assert_int_equal(p.c.block_width, 1);
    assert_int_equal(p.c.block_height, TENSOR_REDUCE_SHORT_THREADS);
    assert_int_equal(p.c.step_output, 1024);
    assert_int_equal(p.c.grid[0], (1 << 22) / 1024);
    assert_int_equal(p.c.shared_memory_bytes, 1024 * 28);
    char buf[512];
    tensor_reduce_config_format(&p.c, buf, sizeof buf);
    assert_non_null(strstr(buf, "(tile)"));
    unplan(&p);
    /* Rows of 3: 12 bytes, 2048 rows per CTA (8 per thread, the cap). */
    int64_t s3[2] = {1000, 3};
    plan(&p, 2, s3, &dim, 1, &f32_tuned);
    assert_true(p.c.short_tile);
    assert_int_equal(p.c.step_output, 2048);
    assert_int_equal(p.c.grid[0], 1);
    assert_int_equal(p.c.shared_memory_bytes, 2048 * 12);
    unplan(&p);
}

/* Rows that are neither dense nor 16-byte aligned (a row stride of 33 floats): lane groups with
 * one element per lane, 32 lanes for 32 elements. */
static void test_tuned_short_rows_scalar(void **state) {
    (void)state;
    int64_t shape[2] = {1000, 32}, strides[2] = {33, 1};
    tensor_t *in = tensor_from_blob((void *)(uintptr_t)0x100000, 2, shape, strides, TENSOR_FLOAT32, tensor_cpu(), NULL,
                                    NULL);
    tensor_t *out = tensor_from_blob((void *)(uintptr_t)0x200000, 2, (int64_t[]){1000, 1}, NULL, TENSOR_FLOAT32,
                                     tensor_cpu(), NULL, NULL);
    assert_non_null(in);
    assert_non_null(out);
    int dim = 1;
    tensor_iter_t *it = tensor_iter_reduce_new("plan", out, in, &dim, 1, true, TENSOR_FLOAT32);
    assert_non_null(it);
    tensor_reduce_config c;
    assert_int_equal(tensor_reduce_config_make(it, &h100, &f32_tuned, &c), TENSOR_OK);
    assert_true(c.short_rows);
    assert_false(c.short_tile);
    assert_int_equal(c.short_vec, 1);
    assert_int_equal(c.block_width, 32);
    assert_int_equal(c.block_height, 8);
    assert_int_equal(c.grid[0], 16); /* 1000 rows / (8 x 8) */
    tensor_iter_free(it);
    tensor_release(out);
    tensor_release(in);
}

/* Few moderate rows: 4096 rows of 4096 floats. PyTorch: block {32, 16}, each warp a row, 256
 * CTAs, 32 vector loads per lane. Ours (split_height): two warps per row, block {32, 2}, 4096
 * CTAs, 16 loads per lane (1.17x torch on an H200, docs/cuda_reduce.md item 8). Long rows
 * (warps already split them) keep PyTorch's plan; so do rows beyond TENSOR_REDUCE_SHORT_MAX_UNITS
 * loads. */
static void test_tuned_inner_split(void **state) {
    (void)state;
    planned p, q;
    int64_t shape[2] = {4096, 4096};
    int dim = 1;
    plan(&p, 2, shape, &dim, 1, &f32_sum);
    plan(&q, 2, shape, &dim, 1, &f32_tuned);
    assert_false(q.c.short_rows);
    assert_true(p.c.vectorize_input && q.c.vectorize_input);
    assert_int_equal(p.c.block_width, 32);
    assert_int_equal(p.c.block_height, 16);
    assert_int_equal(p.c.input_mult[1], 0);
    assert_int_equal(p.c.grid[0], 256);
    assert_int_equal(q.c.block_width, 32);
    assert_int_equal(q.c.block_height, 2);
    assert_int_equal(q.c.input_mult[1], 32);
    assert_int_equal(q.c.output_mult[1], 0);
    assert_int_equal(q.c.grid[0], 4096);
    assert_int_equal(q.c.grid[1], 1);
    assert_int_equal(q.c.values_per_thread, 64); /* elements: 16 vector loads */
    unplan(&p);
    unplan(&q);
    int64_t longr[2] = {64, (int64_t)1 << 22};
    plan(&p, 2, longr, &dim, 1, &f32_sum);
    plan(&q, 2, longr, &dim, 1, &f32_tuned);
    assert_int_equal(q.c.block_width, p.c.block_width);
    assert_int_equal(q.c.block_height, p.c.block_height);
    assert_int_equal(q.c.grid[0], p.c.grid[0]);
    assert_int_equal(q.c.grid[1], p.c.grid[1]);
    unplan(&p);
    unplan(&q);
    /* Under TENSOR_REDUCE_SPLIT_MIN_ELEMS elements: PyTorch's plan (1000 rows of 1000). */
    int64_t small[2] = {1000, 1000};
    plan(&p, 2, small, &dim, 1, &f32_sum);
    plan(&q, 2, small, &dim, 1, &f32_tuned);
    assert_int_equal(q.c.block_height, p.c.block_height);
    assert_int_equal(q.c.grid[0], p.c.grid[0]);
    unplan(&p);
    unplan(&q);
    int64_t s2[2] = {1 << 16, 257}; /* 257 elements: unaligned rows, 257 > 64 units */
    plan(&q, 2, s2, &dim, 1, &f32_tuned);
    assert_false(q.c.short_rows);
    assert_true(q.c.vectorize_input);
    unplan(&q);
}

/* 1M x 64 column sums. PyTorch: block {16, 8} (128 = 512 / OVS threads), 2112 CTAs per column,
 * and the last CTA folds 2112 partials per lane. Ours: block {16, 32}, 264 CTAs (two 512-thread
 * CTAs per SM under their 64-register cap: one wave). */
static void test_tuned_outer_wide(void **state) {
    (void)state;
    planned p;
    int64_t shape[2] = {1 << 20, 64};
    int dim = 0;
    plan(&p, 2, shape, &dim, 1, &f32_sum);
    assert_int_equal(p.c.output_vec_size, 4);
    assert_int_equal(p.c.block_width, 16);
    assert_int_equal(p.c.block_height, 8);
    assert_int_equal(p.c.ctas_per_output, 2112);
    unplan(&p);
    plan(&p, 2, shape, &dim, 1, &f32_tuned);
    const tensor_reduce_config *c = &p.c;
    assert_false(c->short_rows);
    assert_int_equal(c->output_vec_size, 4);
    assert_int_equal(c->block_width, 16);
    assert_int_equal(c->block_height, 32);
    assert_int_equal(c->grid[0], 1);
    assert_int_equal(c->grid[1], 264);
    assert_int_equal(c->ctas_per_output, 264);
    assert_true(tensor_reduce_config_global_reduce(c));
    assert_int_equal(c->staging_bytes, 264 * 16 * 4 * 4);
    assert_int_equal(c->shared_memory_bytes, 4 * 512 * 4);
    unplan(&p);
    /* multi_0_2 ([64,128,256,32] over dims 0 and 2): at most one wave of 2 wide CTAs per SM. */
    int64_t sm[4] = {64, 128, 256, 32};
    int d02[2] = {0, 2};
    plan(&p, 4, sm, d02, 2, &f32_tuned);
    assert_int_equal(p.c.num_threads, 512);
    assert_int_equal(p.c.grid[0], 32);
    assert_int_equal(p.c.grid[1], 8);
    unplan(&p);
    /* 4M x 3 over dim 0 (OVS 1): PyTorch's 512-thread CTAs already; the tuned plan is PyTorch's. */
    int64_t s43[2] = {1 << 22, 3};
    planned q;
    plan(&p, 2, s43, &dim, 1, &f32_sum);
    plan(&q, 2, s43, &dim, 1, &f32_tuned);
    assert_int_equal(q.c.block_width, p.c.block_width);
    assert_int_equal(q.c.block_height, p.c.block_height);
    assert_int_equal(q.c.grid[0], p.c.grid[0]);
    assert_int_equal(q.c.grid[1], p.c.grid[1]);
    unplan(&p);
    unplan(&q);
    /* Without a global reduce the tuned plan is PyTorch's (a 4-D middle-dim sum, seed 000). */
    int64_t s4[4] = {16, 128, 64, 128};
    int d1 = 1;
    plan(&p, 4, s4, &d1, 1, &f32_tuned);
    assert_int_equal(p.c.block_width, 32);
    assert_int_equal(p.c.block_height, 4);
    assert_int_equal(p.c.grid[0], 1024);
    unplan(&p);
}

/* An outer reduction whose outputs fill an eighth of the GPU and whose reduced dim is too short
 * for a global reduce ([64, 512, 512] over dim 1): PyTorch's 4 warps a CTA, each thread
 * folding 128 values; the tuned plan 16 warps, 32 values each, the same CTAs. */
static void test_tuned_outer_underfilled(void **state) {
    (void)state;
    planned p;
    int64_t shape[3] = {64, 512, 512};
    int d1 = 1;
    plan(&p, 3, shape, &d1, 1, &f32_sum);
    assert_int_equal(p.c.block_height, 4);
    assert_int_equal(p.c.values_per_thread, 128);
    const int64_t grid = p.c.grid[0];
    unplan(&p);
    plan(&p, 3, shape, &d1, 1, &f32_tuned);
    assert_int_equal(p.c.output_vec_size, 4);
    assert_int_equal(p.c.block_width, 32);
    assert_int_equal(p.c.block_height, 16);
    assert_int_equal(p.c.grid[0], grid);
    assert_int_equal(p.c.grid[1], 1);
    assert_int_equal(p.c.values_per_thread, 32);
    assert_false(tensor_reduce_config_global_reduce(&p.c));
    assert_int_equal(p.c.shared_memory_bytes, 4 * 512 * 4);
    unplan(&p);
    /* Under TENSOR_REDUCE_SPLIT_MIN_ELEMS elements a launch costs more than the loads: PyTorch's. */
    int64_t small[3] = {2, 100, 1000};
    plan(&p, 3, small, &d1, 1, &f32_tuned);
    assert_int_equal(p.c.block_height, 4);
    unplan(&p);
    /* Two waves of wide CTAs ([256, 256, 256]: 512 of them) keep PyTorch's CTAs with one input
     * (several inputs: test_two_inputs_outer_one_wave). */
    int64_t cube[3] = {256, 256, 256};
    for (int d = 0; d < 2; d++) {
        plan(&p, 3, cube, &d, 1, &f32_tuned);
        assert_int_equal(p.c.block_height, 4);
        unplan(&p);
    }
    /* Outputs that fill the GPU already keep PyTorch's CTAs. */
    int64_t many[3] = {64, 512, 4096};
    plan(&p, 3, many, &d1, 1, &f32_tuned);
    assert_int_equal(p.c.block_height, 4);
    unplan(&p);
}

/* float16 4096^2 column sums: 4 halves per load as PyTorch, in the wide 512-thread CTAs of an
 * outer global reduce, one wave of them (8 CTAs per column of 32 output vectors). PyTorch: block
 * {32, 4}, grid {32, 64}. */
static void test_tuned_f16_outer(void **state) {
    (void)state;
    tensor_t *in = tensor_from_blob((void *)(uintptr_t)0x100000, 2, (int64_t[]){4096, 4096}, NULL, TENSOR_FLOAT16,
                                    tensor_cpu(), NULL, NULL);
    tensor_t *out = tensor_from_blob((void *)(uintptr_t)0x200000, 2, (int64_t[]){1, 4096}, NULL, TENSOR_FLOAT16,
                                     tensor_cpu(), NULL, NULL);
    assert_non_null(in);
    assert_non_null(out);
    int dim = 0;
    tensor_iter_t *it = tensor_iter_reduce_new("plan", out, in, &dim, 1, true, TENSOR_FLOAT16);
    assert_non_null(it);
    tensor_reduce_config c;
    assert_int_equal(tensor_reduce_config_make(it, &h100, &f16_tuned, &c), TENSOR_OK);
    assert_int_equal(c.output_vec_size, 4);
    assert_int_equal(c.block_width, 32);
    assert_int_equal(c.block_height, 16);
    assert_int_equal(c.grid[0], 32);
    assert_int_equal(c.grid[1], 8);
    tensor_iter_free(it);
    tensor_release(out);
    tensor_release(in);
}

/* ---- two inputs (a fused sum(a * b)): the plan follows the reference input and vectorises
 * only what every input allows ---- */

/* A float32 blob of `shape` (strides: NULL = contiguous) at a fake address. */
/* The dtype blob() gives its tensors (a test may set another, and back). */
static tensor_dtype blob_dtype = TENSOR_FLOAT32;

static tensor_t *blob(uintptr_t addr, int ndim, const int64_t *shape, const int64_t *strides) {
    tensor_t *t = tensor_from_blob((void *)addr, ndim, shape, strides, blob_dtype, tensor_cpu(), NULL, NULL);
    assert_non_null(t);
    return t;
}

/* The traits plan2 plans with (a test may point it at others, and back). */
static const tensor_reduce_kernel_traits *plan2_traits = &f32_tuned;

/* Plans sum over `dim` of a (shape sa) times b (shape/strides sb, broadcast to sa). */
static tensor_iter_t *plan2(tensor_reduce_config *c, uintptr_t addr_a, uintptr_t addr_b, const int64_t *sa,
                            const int64_t *sb, const int64_t *strides_b, int dim) {
    tensor_t *a = blob(addr_a, 2, sa, NULL), *b0 = blob(addr_b, 2, sb, strides_b);
    tensor_t *b = tensor_expand(b0, 2, sa);
    assert_non_null(b);
    int64_t os[2] = {sa[0], sa[1]};
    os[dim] = 1;
    tensor_t *out = blob(0x300000, 2, os, NULL);
    tensor_iter_config *cfg = tensor_iter_config_new("plan2");
    assert_non_null(cfg);
    tensor_iter_config_enable(cfg, TENSOR_ITER_REDUCTION);
    tensor_iter_config_add_output(cfg, out);
    tensor_iter_config_add_input(cfg, a);
    tensor_iter_config_add_input(cfg, b);
    tensor_iter_t *it = tensor_iter_build(cfg);
    if (it == NULL) fail_msg("build: %s", tensor_last_error());
    tensor_iter_config_free(cfg);
    tensor_release(out);
    tensor_release(a);
    tensor_release(b);
    tensor_release(b0);
    assert_int_equal(tensor_reduce_config_make(it, &h100, plan2_traits, c), TENSOR_OK);
    return it;
}

static void test_two_inputs(void **state) {
    (void)state;
    tensor_reduce_config c;
    const int64_t rows[2] = {1000, 8192};
    /* Rows of both, aligned alike: 16-byte loads along the rows, as one input. */
    tensor_iter_t *it = plan2(&c, 0x100000, 0x900000, rows, rows, NULL, 1);
    assert_true(c.reduce_fastest);
    assert_true(c.vectorize_input);
    tensor_iter_free(it);
    /* b broadcast over the rows (stride 0 on the kept dim): still congruent (0 - 32768 is a
     * multiple of 16), still vectorised. */
    const int64_t row[2] = {1, 8192};
    it = plan2(&c, 0x100000, 0x900000, rows, row, NULL, 1);
    assert_true(c.reduce_fastest);
    assert_true(c.vectorize_input);
    tensor_iter_free(it);
    /* b one float off a's alignment: its rows would be cut elsewhere, so a's vectors with b
     * read by elements within them (test_elem_inputs). */
    it = plan2(&c, 0x100000, 0x900004, rows, rows, NULL, 1);
    assert_true(c.reduce_fastest);
    assert_true(c.vectorize_input);
    assert_int_equal(c.elem_inputs, 2u);
    tensor_iter_free(it);
    /* Columns: output vectors of 4 when both are contiguous along the outputs... */
    const int64_t sq[2] = {4096, 4096};
    it = plan2(&c, 0x100000, 0x900000, sq, sq, NULL, 0);
    assert_false(c.reduce_fastest);
    assert_int_equal(c.output_vec_size, 4);
    tensor_iter_free(it);
    /* ...and also when b is broadcast along them: one element of b serves 4 outputs. */
    const int64_t col[2] = {4096, 1};
    it = plan2(&c, 0x100000, 0x900000, sq, col, NULL, 0);
    assert_false(c.reduce_fastest);
    assert_int_equal(c.output_vec_size, 4);
    assert_int_equal(c.splat_inputs, 2u);
    tensor_iter_free(it);
    /* b strided along the outputs (every other column): element loads for both. */
    const int64_t every_other[2] = {8192, 2};
    it = plan2(&c, 0x100000, 0x900000, sq, sq, every_other, 0);
    assert_int_equal(c.output_vec_size, 1);
    assert_int_equal(c.splat_inputs, 0u);
    tensor_iter_free(it);
    /* Short rows: the lane-group kernel with half the rows per thread; never tile mode. */
    const int64_t shortr[2] = {1 << 20, 32}, tiny[2] = {1 << 20, 7};
    it = plan2(&c, 0x100000, 0x900000, shortr, shortr, NULL, 1);
    assert_true(c.short_rows);
    assert_int_equal(c.short_vec, 4);
    assert_int_equal(c.vt0, TENSOR_REDUCE_SHORT_ROWS_N(4, 2));
    assert_int_equal(c.step_output, (int64_t)c.block_height * TENSOR_REDUCE_SHORT_ROWS_N(4, 2));
    tensor_iter_free(it);
    it = plan2(&c, 0x100000, 0x900000, tiny, tiny, NULL, 1);
    assert_true(c.short_rows);
    assert_false(c.short_tile);
    tensor_iter_free(it);
}

static int five_blocks(const void *ctx, int ovs, int threads, size_t smem) {
    (void)ctx, (void)ovs, (void)smem;
    return threads == 256 ? 5 : 0;
}

/* Rows of two contiguous inputs split over a column of CTAs take the flat path: one output (a
 * 1-D dot, with or without a global reduce) and a few long rows; many rows (dense rows), one
 * input and inputs cut differently do not. */
static void test_flat_dots(void **state) {
    (void)state;
    tensor_reduce_config c;
    char buf[1024];
    const int64_t dot[2] = {1, 1 << 22}, small[2] = {1, 4096}, one[2] = {1, 1}, rows[2] = {4, 1 << 22};
    tensor_iter_t *it = plan2(&c, 0x100000, 0x900000, dot, dot, NULL, 1);
    assert_true(c.flat_reduce);
    assert_int_equal(c.block_height, 1);
    assert_int_equal(c.grid[0], 1);
    assert_true(c.ctas_per_output > 1);
    assert_int_equal(c.step_input, c.block_width * c.grid[1]);
    assert_true(tensor_reduce_config_format(&c, buf, sizeof buf) > 0);
    assert_non_null(strstr(buf, ", flat"));
    tensor_iter_free(it);
    it = plan2(&c, 0x100000, 0x900000, small, small, NULL, 1);
    assert_true(c.flat_reduce);
    assert_int_equal(c.ctas_per_output, 1);
    tensor_iter_free(it);
    /* b one element: stride 0 along the row, still vectorised (a splat), still flat */
    it = plan2(&c, 0x100000, 0x900000, dot, one, NULL, 1);
    assert_true(c.flat_reduce);
    assert_int_equal(c.splat_inputs, 2u);
    tensor_iter_free(it);
    it = plan2(&c, 0x100000, 0x900000, rows, rows, NULL, 1);
    assert_true(c.flat_reduce);
    assert_int_equal(c.grid[0], 4);
    assert_true(c.ctas_per_output > 1);
    assert_int_equal(c.step_input, c.num_threads * c.ctas_per_output);
    tensor_iter_free(it);
    const int64_t many[2] = {1000, 8192};
    it = plan2(&c, 0x100000, 0x900000, many, many, NULL, 1);
    assert_true(c.dense_rows);
    assert_false(c.flat_reduce);
    tensor_iter_free(it);
    /* a misaligned against b (not congruent): a's vectors, b by elements within them, flat */
    it = plan2(&c, 0x100004, 0x900000, dot, dot, NULL, 1);
    assert_true(c.flat_reduce);
    assert_int_equal(c.elem_inputs, 2u);
    tensor_iter_free(it);
    /* A kernel that fits 5 CTAs of 256 on an SM (48 registers): 660 would leave each thread of
     * a 4M-float dot a round of four vectors and two or three single ones; the plan takes 512
     * CTAs of two whole rounds each instead. */
    static tensor_reduce_kernel_traits five; /* static: plan2_traits never dangles */
    five = f32_tuned;
    five.resident_blocks = five_blocks;
    plan2_traits = &five;
    const int64_t dot4m[2] = {1, 1 << 22};
    it = plan2(&c, 0x100000, 0x900000, dot4m, dot4m, NULL, 1);
    plan2_traits = &f32_tuned;
    assert_true(c.flat_reduce);
    assert_int_equal(c.num_threads, 256);
    assert_int_equal(c.ctas_per_output, 512);
    assert_int_equal(c.grid[1], 512);
    assert_int_equal(c.step_input, 256 * 512);
    assert_int_equal((c.num_inputs / 4) % (c.step_input * TENSOR_REDUCE_ROW_UNROLL(2)), 0);
    /* the global step's buffers follow the shorter column: a partial and a counter per CTA / row */
    assert_int_equal(c.staging_bytes, 512 * 4);
    assert_int_equal(c.semaphore_bytes, 4);
    tensor_iter_free(it);
    /* a few rows of one CTA each (no global step): still flat */
    const int64_t few[2] = {3, 4099};
    it = plan2(&c, 0x100000, 0x900000, few, few, NULL, 1);
    assert_true(c.flat_reduce);
    assert_int_equal(c.grid[0], 3);
    assert_int_equal(c.ctas_per_output, 1);
    assert_int_equal(c.staging_bytes, 0);
    tensor_iter_free(it);
    planned p;
    const int64_t flat1[1] = {1 << 22};
    const int d0 = 0;
    plan(&p, 1, flat1, &d0, 1, &f32_tuned);
    assert_false(p.c.flat_reduce);
    unplan(&p);
}

static void test_format_and_errors(void **state) {
    (void)state;
    planned p;
    int64_t shape[2] = {64, 64};
    int dim = 1;
    plan(&p, 2, shape, &dim, 1, &f32_sum);
    char buf[512];
    int64_t n = tensor_reduce_config_format(&p.c, buf, sizeof buf);
    assert_true(n > 0 && n < (int64_t)sizeof buf);
    assert_non_null(strstr(buf, "block {"));
    tensor_reduce_config c;
    assert_int_equal(tensor_reduce_config_make(NULL, &h100, &f32_sum, &c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_reduce_config_make: argument 'iter' is NULL");
    tensor_reduce_kernel_traits bad = f32_sum;
    bad.vt0 = 0;
    assert_int_equal(tensor_reduce_config_make(p.iter, &h100, &bad, &c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "traits");
    /* Wider output vectors than the kernel is built for (1, 2, 4) are refused, not planned. */
    bad = f32_sum;
    bad.max_output_vec = 2 * TENSOR_REDUCE_MAX_OUTPUT_VEC;
    assert_int_equal(tensor_reduce_config_make(p.iter, &h100, &bad, &c), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "traits");
    unplan(&p);
}

/* A built reduction iterator over dim 1 into o, of inputs ins[0 .. nin). */
static tensor_iter_t *dim1_iter(tensor_t *o, tensor_t *const *ins, int nin, bool keepdim) {
    tensor_iter_config *cfg = tensor_iter_config_new("plan");
    assert_non_null(cfg);
    assert_int_equal(tensor_iter_config_enable(cfg, TENSOR_ITER_REDUCTION), TENSOR_OK);
    assert_int_equal(tensor_iter_config_add_output(cfg, o), TENSOR_OK);
    for (int q = 0; q < nin; q++) assert_int_equal(tensor_iter_config_add_input(cfg, ins[q]), TENSOR_OK);
    const int dim = 1;
    assert_int_equal(tensor_iter_config_reduce_dims(cfg, &dim, 1, keepdim), TENSOR_OK);
    tensor_iter_t *it = tensor_iter_build(cfg);
    tensor_iter_config_free(cfg);
    assert_non_null(it);
    return it;
}

/* The plan of sum(a) (nin 1) or sum(a * a) (nin 2) over dim 1 of a contiguous float32
 * [rows, cols] view of no memory (keepdim): the config into c, its explain text into buf, and
 * the vectors per aligned row (tensor_reduce_config_row_vectors) returned. */
static int64_t plan_rows_with(const tensor_reduce_kernel_traits *tr, int64_t rows, int64_t cols, int nin,
                              tensor_reduce_config *c, char *buf, size_t size) {
    const int64_t sh[2] = {rows, cols}, osh[2] = {rows, 1};
    tensor_t *a = tensor_from_blob((void *)(uintptr_t)0x100000, 2, sh, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    tensor_t *o = tensor_from_blob((void *)(uintptr_t)0x200000, 2, osh, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_non_null(a);
    assert_non_null(o);
    tensor_t *const ins[2] = {a, a};
    tensor_iter_t *it = dim1_iter(o, ins, nin, true);
    assert_int_equal(tensor_reduce_config_make(it, &h100, tr, c), TENSOR_OK);
    assert_true(tensor_reduce_config_format(c, buf, size) > 0);
    const int64_t v = tensor_reduce_config_row_vectors(c, it);
    tensor_iter_free(it);
    tensor_release(a);
    tensor_release(o);
    return v;
}

static int64_t plan_rows(int64_t rows, int64_t cols, int nin, tensor_reduce_config *c, char *buf, size_t size) {
    return plan_rows_with(&f32_tuned, rows, cols, nin, c, buf, size);
}

/* Two inputs along the fastest dim (vecdot's rows), 1000 rows: one CTA a row takes the
 * dense-rows path with threads for one round of loads (TENSOR_REDUCE_ROW_UNROLL vectors of each
 * input per thread: 256 at 4096 columns, 512 at 8192); rows split over CTAs (global reduce) keep
 * the general path. One input never takes it (512 threads at 8192 columns, as before). */
static void test_two_inputs_rows(void **state) {
    (void)state;
    const int64_t cols[3] = {8192, 4096, 65536};
    const int height[3] = {16, 8, 8};
    const bool dense[3] = {true, true, false};
    for (int k = 0; k < 3; k++) {
        for (int nin = 1; nin <= 2; nin++) {
            tensor_reduce_config c;
            char buf[512];
            plan_rows(1000, cols[k], nin, &c, buf, sizeof buf);
            assert_int_equal(c.block_width, 32);
            assert_int_equal(c.grid[0], 1000);
            assert_true(c.vectorize_input);
            if (nin == 2) {
                assert_int_equal(c.block_height, height[k]);
                assert_int_equal(c.dense_rows, dense[k]);
                assert_int_equal(c.ctas_per_output, dense[k] ? 1 : 2);
                assert_int_equal(c.step_input, (int64_t)32 * height[k] * c.ctas_per_output);
                assert_int_equal(strstr(buf, "dense rows") != NULL, dense[k]);
            } else {
                assert_false(c.dense_rows);
                if (cols[k] == 8192) assert_int_equal(c.block_height, 16);
            }
        }
    }
}

/* The lean rows kernel (traits.lean_rows): taken when one round of it (TENSOR_REDUCE_LEAN_ROW_UNROLL
 * vectors of each input per thread) needs at most TENSOR_REDUCE_LEAN_MAX_NEED threads, with that
 * many rounded up to whole warps (64 to 512); longer rows keep the general kernel's CTA rows;
 * without the kernel (traits 0) never. 16-bit inputs on aligned rows take the wide round when
 * the plain one needs more than 512 threads and the traits have it (2). */
static void test_lean_rows(void **state) {
    (void)state;
    tensor_reduce_kernel_traits lean = f32_tuned, lean16 = f16_tuned, lean16_plain = f16_tuned;
    lean.lean_rows = 1;
    lean16.lean_rows = 2;
    lean16_plain.lean_rows = 1;
    const struct {
        int64_t rows, cols;
        const tensor_reduce_kernel_traits *tr;
        bool lean, wide;
        int threads; /* with the lean traits */
    } cases[] = {
        {2048, 4096, &lean, true, false, 512}, /* 1024 vectors: 512 threads x 2 */
        {65536, 1024, &lean, true, false, 128},
        {16384, 2048, &lean, true, false, 256},
        {4000, 3000, &lean, true, false, 384},  /* 750 vectors: 375 threads, whole warps */
        {4096, 4100, &lean, true, false, 512},  /* 1025 vectors: 513 threads' worth */
        {2000, 6144, &lean, true, false, 512},  /* 1536 vectors: 768 threads' worth */
        {2000, 6148, &lean, false, false, 512}, /* 1537: past one and a half rounds */
        {1000, 8192, &lean, false, false, 512}, /* two lean rounds: 512 threads x 4 of the general kernel */
        {3000, 3001, &lean, true, false, 384},  /* rows not whole vectors: the plain round */
        {6000, 3000, &lean16, true, false, 384}, /* 375 vectors of 8 */
        {4096, 8192, &lean16, true, true, 512},  /* 1024 vectors: the wide round */
        {4096, 8192, &lean16_plain, false, false, 256}, /* no wide round in the set */
        {2048, 16384, &lean16, false, false, 512},      /* 2048 vectors: 1024 wide rounds */
        {3000, 6004, &lean16, true, false, 512},        /* 750 vectors, rows not aligned: plain */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int64_t sa[2] = {cases[k].rows, cases[k].cols};
        blob_dtype = cases[k].tr->input_size == 2 ? TENSOR_FLOAT16 : TENSOR_FLOAT32;
        for (int with = 0; with <= 1; with++) {
            tensor_reduce_kernel_traits none = *cases[k].tr;
            none.lean_rows = 0;
            plan2_traits = with ? cases[k].tr : &none;
            tensor_reduce_config c;
            tensor_iter_t *it = plan2(&c, 0x100000, 0x80000000, sa, sa, NULL, 1);
            assert_true(c.dense_rows);
            assert_false(c.warp_rows);
            assert_int_equal(c.lean_rows, with && cases[k].lean);
            assert_int_equal(c.lean_wide, with && cases[k].wide);
            if (with) assert_int_equal(c.num_threads, cases[k].threads);
            assert_int_equal(c.num_threads % 32, 0);
            assert_int_equal(c.block_height * 32, c.num_threads);
            assert_int_equal(c.step_input, c.num_threads);
            assert_int_equal(c.shared_memory_bytes, (int64_t)c.num_threads * 4);
            assert_int_equal(c.grid[0], cases[k].rows);
            char buf[1024];
            assert_true(tensor_reduce_config_format(&c, buf, sizeof buf) > 0);
            assert_int_equal(strstr(buf, "lean") != NULL, with && cases[k].lean);
            assert_int_equal(strstr(buf, "lean wide") != NULL, with && cases[k].wide);
            tensor_iter_free(it);
        }
    }
    blob_dtype = TENSOR_FLOAT32;
    /* b constant along the rows ([8192, 8192] x [8192, 1]): one loaded stream, 4 vectors a
     * round, 512 threads. */
    const int64_t sq[2] = {8192, 8192}, col[2] = {8192, 1};
    plan2_traits = &lean;
    tensor_reduce_config c;
    tensor_iter_t *it = plan2(&c, 0x100000, 0x80000000, sq, col, NULL, 1);
    assert_int_equal(c.splat_inputs, 2u);
    assert_true(c.lean_rows);
    assert_int_equal(c.num_threads, 512);
    tensor_iter_free(it);
    plan2_traits = &f32_tuned;
}

/* Two inputs whose rows do not start alike modulo a vector: still 16-byte loads of one, the
 * other read element by element within them (elem_inputs): the broadcast one when there is one
 * (a float16 row of 5001 beside a's rows, in either order), else input 1 (rows shifted by an
 * element, a 1-D dot of shifted vectors, which takes the flat plan); CTA rows of 4-byte values
 * on the lean plan (its element-read kernel) up to its longest, the others with the general
 * kernel's whole warps, 16-bit ones on the element-read kernel; never the wide round, and no
 * aligned rows. One input, or congruent rows, never; nor a kernel set without the path
 * (run-time compiled ones: traits elem_rows 0), whose such rows are read element by element. */
static void test_elem_inputs(void **state) {
    (void)state;
    const struct {
        int64_t sa[2], sb[2];
        uintptr_t addr_b;
        tensor_dtype dt;
        uint32_t elem;
        bool flat, lean;
    } cases[] = {
        {{4000, 5001}, {1, 5001}, 0x80000000, TENSOR_FLOAT16, 2u, false, false},
        {{1, 5001}, {4000, 5001}, 0x80000000, TENSOR_FLOAT16, 1u, false, false},
        {{3000, 3001}, {1, 3001}, 0x80000000, TENSOR_BFLOAT16, 2u, false, false},
        {{4000, 5001}, {1, 5001}, 0x80000000, TENSOR_FLOAT32, 2u, false, true},
        {{1000, 8191}, {1, 8191}, 0x80000000, TENSOR_FLOAT32, 2u, false, false},
        {{4000, 4000}, {4000, 4000}, 0x80000002, TENSOR_BFLOAT16, 2u, false, false},
        {{1000, 4096}, {1000, 4096}, 0x80000004, TENSOR_FLOAT32, 2u, false, true},
        {{1, 1 << 20}, {1, 1 << 20}, 0x80000004, TENSOR_FLOAT32, 2u, true, false},
        {{1000, 4096}, {1000, 4096}, 0x80000010, TENSOR_FLOAT32, 0u, false, false},
        {{4000, 5000}, {1, 5000}, 0x80000000, TENSOR_FLOAT16, 0u, false, false},
    };
    tensor_reduce_kernel_traits lean32 = f32_tuned, lean16 = f16_tuned;
    lean32.lean_rows = 1;
    lean16.lean_rows = 2;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        blob_dtype = cases[k].dt;
        plan2_traits = tensor_dtype_size(cases[k].dt) == 2 ? &lean16 : &lean32;
        int64_t shape[2] = {cases[k].sa[0] > cases[k].sb[0] ? cases[k].sa[0] : cases[k].sb[0], cases[k].sa[1]};
        /* plan2 expands b to a's shape: a broadcast a is planned as b and the inputs swapped */
        const bool swap = cases[k].sa[0] < cases[k].sb[0];
        tensor_t *x = blob(swap ? cases[k].addr_b : 0x100000, 2, swap ? cases[k].sb : cases[k].sa, NULL);
        tensor_t *y0 = blob(swap ? 0x100000 : cases[k].addr_b, 2, swap ? cases[k].sa : cases[k].sb, NULL);
        tensor_t *y = tensor_expand(y0, 2, shape);
        assert_non_null(y);
        const int64_t os[2] = {shape[0], 1};
        tensor_t *out = blob(0x300000, 2, os, NULL);
        tensor_t *const ins[2] = {swap ? y : x, swap ? x : y};
        tensor_iter_t *it = dim1_iter(out, ins, 2, true);
        tensor_reduce_config c;
        assert_int_equal(tensor_reduce_config_make(it, &h100, plan2_traits, &c), TENSOR_OK);
        assert_true(c.vectorize_input);
        if (c.elem_inputs != cases[k].elem) fail_msg("case %zu: elem_inputs 0x%x", k, (unsigned)c.elem_inputs);
        assert_int_equal(c.splat_inputs, 0u);
        assert_int_equal(c.flat_reduce, cases[k].flat);
        if (cases[k].elem != 0) {
            /* lean_elem_kernel for CTA rows of 4-byte values up to its longest (the lean plan),
             * and for CTA rows of 16-bit values (the general kernel's plan on it) */
            const bool e16 = tensor_dtype_size(cases[k].dt) == 2 && !c.flat_reduce;
            assert_int_equal(c.lean_rows, cases[k].lean || e16);
            assert_false(c.lean_wide);
            if ((!c.lean_rows || e16) && !c.flat_reduce) {
                /* the general kernel: whole warps, one round of each thread where 512 threads
                 * (128 for a broadcast row read by elements) hold the row, no warp more than
                 * that needs */
                const int64_t vec = c.num_inputs / c.input_vec_size, cap = cases[k].sa[0] != cases[k].sb[0] ? 128 : 512;
                const int64_t u = TENSOR_REDUCE_ELEM_ROW_UNROLL((int64_t)tensor_dtype_size(cases[k].dt));
                assert_true(c.dense_rows);
                assert_int_equal(c.num_threads % 32, 0);
                assert_true(c.num_threads <= cap);
                assert_true(c.num_threads * u >= vec || c.num_threads == cap);
                assert_true((c.num_threads - 32) * u < vec);
                /* traits that allow fewer threads: within them, whole warps */
                const int lim[3] = {64, 96, 160};
                for (int m = 0; m < 3; m++) {
                    tensor_reduce_kernel_traits few = *plan2_traits;
                    few.max_threads = lim[m];
                    tensor_reduce_config f;
                    assert_int_equal(tensor_reduce_config_make(it, &h100, &few, &f), TENSOR_OK);
                    assert_true(f.elem_inputs != 0 && f.dense_rows);
                    assert_false(f.lean_rows); /* traits under 512 threads keep the general kernel */
                    if (f.num_threads > lim[m]) fail_msg("case %zu: %d threads over %d", k, (int)f.num_threads, lim[m]);
                    assert_int_equal(f.num_threads % 32, 0);
                }
            }
            assert_int_equal(tensor_reduce_config_row_vectors(&c, it), 0);
            /* a kernel set without the lean kernels keeps the general one, with the same plan */
            tensor_reduce_kernel_traits plain = *plan2_traits;
            plain.lean_rows = 0;
            tensor_reduce_config g;
            assert_int_equal(tensor_reduce_config_make(it, &h100, &plain, &g), TENSOR_OK);
            assert_int_equal(g.elem_inputs, cases[k].elem);
            assert_false(g.lean_rows);
            if (e16) assert_int_equal(g.num_threads, c.num_threads);
            tensor_reduce_kernel_traits none = *plan2_traits;
            none.elem_rows = 0;
            tensor_reduce_config e;
            assert_int_equal(tensor_reduce_config_make(it, &h100, &none, &e), TENSOR_OK);
            assert_int_equal(e.elem_inputs, 0u);
            assert_false(e.vectorize_input);
            assert_false(e.lean_rows);
        }
        char buf[1024];
        assert_true(tensor_reduce_config_format(&c, buf, sizeof buf) > 0);
        assert_int_equal(strstr(buf, "read by elements") != NULL, cases[k].elem != 0);
        tensor_iter_free(it);
        tensor_release(out);
        tensor_release(y);
        tensor_release(y0);
        tensor_release(x);
    }
    blob_dtype = TENSOR_FLOAT32;
    plan2_traits = &f32_tuned;
}

/* Which kernel sets have the lean rows kernels (TENSOR_REDUCE_LEAN_ROWS_FIT, the one rule for the
 * built-ins and run-time compiled sets) and the element-read one (TENSOR_REDUCE_LEAN_ELEM_FIT):
 * several inputs; 4-byte accumulators; 8-byte ones with 16-bit inputs, or with 1- and 4-byte
 * inputs when the Op folds a vector into one accumulator (the integer dots), never 8-byte
 * inputs; element-read rows of 4-byte values (the lean plan) and 16-bit ones (the general
 * plan) only. */
static void test_lean_fit_rules(void **state) {
    (void)state;
    assert_false(TENSOR_REDUCE_LEAN_ROWS_FIT(1, 4, 4, 0));
    assert_true(TENSOR_REDUCE_LEAN_ROWS_FIT(2, 4, 4, 0));
    assert_true(TENSOR_REDUCE_LEAN_ROWS_FIT(3, 4, 2, 0));
    assert_true(TENSOR_REDUCE_LEAN_ROWS_FIT(2, 8, 2, 0));
    assert_false(TENSOR_REDUCE_LEAN_ROWS_FIT(2, 8, 4, 0));
    assert_false(TENSOR_REDUCE_LEAN_ROWS_FIT(2, 8, 1, 0));
    assert_true(TENSOR_REDUCE_LEAN_ROWS_FIT(2, 8, 4, 1));
    assert_true(TENSOR_REDUCE_LEAN_ROWS_FIT(2, 8, 1, 1));
    assert_false(TENSOR_REDUCE_LEAN_ROWS_FIT(2, 8, 8, 1));
    assert_false(TENSOR_REDUCE_LEAN_ROWS_FIT(2, 16, 4, 1));
    assert_true(TENSOR_REDUCE_LEAN_ELEM_FIT(4));
    assert_false(TENSOR_REDUCE_LEAN_ELEM_FIT(2));
    assert_false(TENSOR_REDUCE_LEAN_ELEM_FIT(1));
    assert_false(TENSOR_REDUCE_LEAN_ELEM_FIT(8));
    /* 16-bit element-read rows: the general plan on the element-read kernel */
    assert_true(TENSOR_REDUCE_ELEM_LEAN_KERNEL(2));
    assert_false(TENSOR_REDUCE_ELEM_LEAN_KERNEL(1));
    assert_false(TENSOR_REDUCE_ELEM_LEAN_KERNEL(4));
    assert_false(TENSOR_REDUCE_ELEM_LEAN_KERNEL(8));
}

/* An outer reduction of two inputs whose outputs fill few CTAs ([256, 65536] over dim 0, the
 * [256, 256, 256] cube over dim 0): the widest CTAs that keep one wave, 256 threads (512 of
 * them are two waves); one input keeps PyTorch's 128 (test_tuned_outer_underfilled). */
static void test_two_inputs_outer_one_wave(void **state) {
    (void)state;
    const int64_t sa[2] = {256, 65536};
    tensor_reduce_config c;
    tensor_iter_t *it = plan2(&c, 0x100000, 0x80000000, sa, sa, NULL, 0);
    assert_false(c.reduce_fastest);
    assert_int_equal(c.output_vec_size, 4);
    assert_int_equal(c.block_width, 32);
    assert_int_equal(c.block_height, 8);
    assert_int_equal(c.grid[0], 512);
    assert_int_equal(c.grid[1], 1);
    assert_int_equal(c.values_per_thread, 32);
    tensor_iter_free(it);
}

/* An outer reduction of two inputs with fewer output vectors than a warp, not a power of two
 * ([100000, 100] over dim 0: 25 vectors of 4): exactly that many lanes, so one column of CTAs
 * covers the outputs; 32 vectors keep a warp, 6 (under 8) the power of two below; one input
 * and two-layout plans keep the power of two. */
static void test_two_inputs_outer_exact_width(void **state) {
    (void)state;
    const struct {
        int64_t rows, cols;
        int width;
    } cases[] = {{100000, 100, 25}, {100000, 60, 15}, {50000, 44, 11}, {100000, 128, 32}, {100000, 24, 4}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int64_t sa[2] = {cases[k].rows, cases[k].cols};
        tensor_reduce_config c;
        tensor_iter_t *it = plan2(&c, 0x100000, 0x80000000, sa, sa, NULL, 0);
        assert_false(c.reduce_fastest);
        assert_int_equal(c.output_vec_size, 4);
        assert_int_equal(c.block_width, cases[k].width);
        assert_int_equal(c.block_height & (c.block_height - 1), 0);
        assert_true(c.num_threads <= 512);
        if (cases[k].width > 4) assert_int_equal(c.grid[0], 1);
        tensor_iter_free(it);
    }
    planned p;
    int64_t shape[2] = {100000, 100};
    int d0 = 0;
    plan(&p, 2, shape, &d0, 1, &f32_tuned);
    assert_int_equal(p.c.block_width, 16);
    unplan(&p);
    /* Two layouts (b transposed: 25 and 12 outputs, a reduced dim of 2^20) keep the power of
     * two below. */
    const int64_t few[2][2] = {{25, 16}, {12, 8}};
    for (int k = 0; k < 2; k++) {
        const int64_t sa[2] = {few[k][0], (int64_t)1 << 20}, stb[2] = {1, few[k][0]};
        tensor_reduce_config c;
        tensor_iter_t *it = plan2(&c, 0x100000, 0x80000000, sa, sa, stb, 1);
        assert_int_not_equal(c.rvec_inputs, 0);
        assert_int_equal(c.block_width, few[k][1]);
        tensor_iter_free(it);
    }
}

/* Vectors per aligned dense row (tensor_reduce_config_row_vectors) of sum(a * b) over the last
 * dim: a is [rows, cols] at address pa with row stride lda elements, b has shape bshape (nb
 * dims, contiguous) at pb; 0 when the plan is not dense rows or any row is not whole vectors. */
static int64_t row_vectors_of(uintptr_t pa, int64_t rows, int64_t cols, int64_t lda, uintptr_t pb, int nb,
                              const int64_t *bshape) {
    const int64_t sh[2] = {rows, cols}, st[2] = {lda, 1}, osh[1] = {rows};
    tensor_t *a = tensor_from_blob((void *)pa, 2, sh, st, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    tensor_t *b = tensor_from_blob((void *)pb, nb, bshape, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    tensor_t *o = tensor_from_blob((void *)(uintptr_t)0x400000, 1, osh, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(o);
    tensor_t *const ins[2] = {a, b};
    tensor_iter_t *it = dim1_iter(o, ins, 2, false);
    tensor_reduce_config c;
    assert_int_equal(tensor_reduce_config_make(it, &h100, &f32_tuned, &c), TENSOR_OK);
    const int64_t v = tensor_reduce_config_row_vectors(&c, it);
    if (v > 0) assert_true(c.dense_rows);
    tensor_iter_free(it);
    tensor_release(a);
    tensor_release(b);
    tensor_release(o);
    return v;
}

/* Aligned dense rows: both inputs' rows start on 16 bytes and hold whole vectors. A misaligned
 * base, a row stride or a row length off by one element, and rows wide enough to be split
 * over CTAs each fall back (0). */
static void test_row_vectors(void **state) {
    (void)state;
    const int64_t full[2] = {1000, 8192}, row[1] = {8192};
    assert_int_equal(row_vectors_of(0x100000, 1000, 8192, 8192, 0x2000000, 2, full), 2048);
    assert_int_equal(row_vectors_of(0x100000, 1000, 8192, 8192, 0x2000000, 1, row), 2048);
    assert_int_equal(row_vectors_of(0x100004, 1000, 8192, 8192, 0x2000000, 1, row), 0);  /* a's base */
    assert_int_equal(row_vectors_of(0x100000, 1000, 8192, 8192, 0x2000008, 1, row), 0);  /* b's base */
    assert_int_equal(row_vectors_of(0x100000, 400, 8192, 8196, 0x2000000, 1, row), 2048); /* padded rows */
    assert_int_equal(row_vectors_of(0x100000, 1000, 8192, 8193, 0x2000000, 1, row), 0);  /* row stride */
    const int64_t odd[1] = {8195}, wide[1] = {65536};
    assert_int_equal(row_vectors_of(0x100000, 1000, 8195, 8195, 0x2000000, 1, odd), 0);   /* row length */
    assert_int_equal(row_vectors_of(0x100000, 1000, 65536, 65536, 0x8000000, 1, wide), 0); /* global reduce */
}

/* Dense rows of two float32 inputs get threads for one round of loads (4 vectors of each
 * input per thread): rows of up to 512 elements a warp each (8 rows a CTA, no shared memory),
 * longer rows a CTA each of the next power of two of threads (64 from 513 elements, 512 from
 * 4097), whatever the general plan would have given; aligned when the rows are whole vectors.
 * One input keeps the general plan. */
static void test_dense_row_threads(void **state) {
    (void)state;
    static const struct {
        int64_t rows, cols;
        int threads; /* 32: a warp a row */
    } cases[] = {{65536, 512, 32}, {20000, 300, 32}, {100, 512, 32}, {300, 1000, 64},   {65536, 1024, 64},
                 {16384, 2048, 128}, {4096, 2048, 128}, {8, 2048, 128}, {1000, 4096, 256}, {8192, 8192, 512},
                 {1000, 8195, 512}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        for (int nin = 1; nin <= 2; nin++) {
            tensor_reduce_config c;
            char buf[512];
            const int64_t row_vecs = plan_rows(cases[k].rows, cases[k].cols, nin, &c, buf, sizeof buf);
            if (nin == 1) {
                assert_false(c.dense_rows || c.warp_rows);
                assert_null(strstr(buf, "dense rows"));
                continue;
            }
            const bool warp = cases[k].threads == 32;
            assert_true(c.dense_rows);
            assert_int_equal(c.warp_rows, warp);
            assert_int_equal(c.block_width, 32);
            assert_int_equal(c.num_threads, warp ? 256 : cases[k].threads);
            assert_int_equal(c.block_height * c.block_width, c.num_threads);
            assert_int_equal(c.step_input, warp ? 32 : cases[k].threads);
            assert_int_equal(c.output_mult[TENSOR_REDUCE_BLOCK_Y], warp ? 1 : 0);
            assert_int_equal(c.input_mult[TENSOR_REDUCE_BLOCK_Y], warp ? 0 : 32);
            assert_int_equal(c.grid[0], warp ? (cases[k].rows + 7) / 8 : cases[k].rows);
            assert_int_equal(c.shared_memory_bytes, warp ? 0 : 4 * cases[k].threads);
            assert_int_equal(row_vecs, cases[k].cols % 4 == 0 ? cases[k].cols / 4 : 0);
            if ((strstr(buf, "a warp each") != NULL) != warp) fail_msg("%zu: %s", k, buf);
        }
    }
}

/* Traits that allow fewer than 512 threads a CTA cap the dense rows' threads too: a CTA row
 * never has more threads than the traits allow, down to one warp. */
static void test_dense_row_thread_cap(void **state) {
    (void)state;
    const int caps[3] = {32, 64, 128};
    const int64_t cols[4] = {1000, 2048, 8192, 65536};
    for (int k = 0; k < 3; k++) {
        tensor_reduce_kernel_traits tr = f32_tuned;
        tr.max_threads = caps[k];
        for (int j = 0; j < 4; j++) {
            tensor_reduce_config c;
            char buf[512];
            plan_rows_with(&tr, 1000, cols[j], 2, &c, buf, sizeof buf);
            if ((int64_t)c.num_threads > caps[k]) fail_msg("cap %d, %lld columns: %s", caps[k], (long long)cols[j], buf);
            if (c.dense_rows && !c.warp_rows) {
                assert_int_equal(c.block_height * c.block_width, c.num_threads);
                assert_int_equal(c.step_input, c.num_threads);
                assert_int_equal(c.grid[0], 1000);
            }
        }
    }
}

/* sum(a * b) over dim 1 of float32 [1000, 4096] a and a b constant along the row ([1000, 1],
 * or [1]), in either order: the row is still read in 16-byte vectors and b is marked as one
 * element a row, wherever b's base lies; rows whose vectors are aligned take the aligned-rows
 * kernel; a transposed a keeps element loads and marks nothing. */
static void test_splat_rows(void **state) {
    (void)state;
    const int64_t sh[2] = {1000, 4096}, tsh[2] = {4096, 1000}, osh[2] = {1000, 1}, bsh[2] = {1000, 1}, one[1] = {1};
    tensor_t *a = tensor_from_blob((void *)(uintptr_t)0x100000, 2, sh, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    tensor_t *o = tensor_from_blob((void *)(uintptr_t)0x200000, 2, osh, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    tensor_t *b2 = tensor_from_blob((void *)(uintptr_t)0x300004, 2, bsh, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    tensor_t *b1 = tensor_from_blob((void *)(uintptr_t)0x300008, 1, one, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    tensor_t *at0 = tensor_from_blob((void *)(uintptr_t)0x100000, 2, tsh, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    tensor_t *au = tensor_from_blob((void *)(uintptr_t)0x100004, 2, sh, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_true(a && o && b2 && b1 && at0 && au);
    tensor_t *at = tensor_transpose(at0, 0, 1);
    assert_non_null(at);
    struct {
        tensor_t *x, *y;
        uint32_t splat;    /* 0: not vectorized */
        int64_t row_vecs;  /* the aligned-rows kernel's vectors a row (0: the dense-rows path) */
    } cases[] = {{a, b2, 2, 1024}, {b2, a, 1, 1024}, {a, b1, 2, 1024}, {b1, a, 1, 1024}, {au, b2, 2, 0}, {at, b2, 0, 0}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tensor_t *const ins[2] = {cases[k].x, cases[k].y};
        tensor_iter_t *it = dim1_iter(o, ins, 2, true);
        tensor_reduce_config c;
        char buf[512];
        assert_int_equal(tensor_reduce_config_make(it, &h100, &f32_tuned, &c), TENSOR_OK);
        assert_true(tensor_reduce_config_format(&c, buf, sizeof buf) > 0);
        if (c.vectorize_input != (cases[k].splat != 0) || c.splat_inputs != cases[k].splat)
            fail_msg("case %zu: %s", k, buf);
        char want[64];
        snprintf(want, sizeof want, "one element a row of inputs 0x%x", (unsigned)cases[k].splat);
        assert_int_equal(strstr(buf, want) != NULL, cases[k].splat != 0);
        if (cases[k].splat) {
            assert_true(c.dense_rows);
            /* b's element needs no alignment; a's rows decide */
            assert_int_equal(tensor_reduce_config_row_vectors(&c, it), cases[k].row_vecs);
            /* one stream of loads: threads for one round of eight vectors of it */
            assert_int_equal(c.num_threads, 4096 / 4 / TENSOR_REDUCE_SPLAT_ROW_UNROLL(2));
            /* the size format reports is the whole text's, also when the buffer is too short */
            char small[8];
            assert_int_equal(tensor_reduce_config_format(&c, small, sizeof small), (int64_t)strlen(buf));
        }
        tensor_iter_free(it);
    }
    tensor_t *const ts[7] = {a, o, b2, b1, at0, at, au};
    for (int i = 0; i < 7; i++) tensor_release(ts[i]);
}

/* sum(a * b) over the middle dim of float32 [8, 1024, W] a and b [8, 1024, 1] (constant along
 * the outputs' fastest dim), in either order: an outer reduction whose vector loads of a feed
 * neighbouring outputs keeps them, one element of b serving each vector's outputs, wherever b's
 * base lies; a width that no vector divides loads elements and marks nothing, and so do three
 * inputs and two reduced dims. */
static void test_splat_outputs(void **state) {
    (void)state;
    struct {
        int64_t w;
        uintptr_t b_addr;
        bool b_first;
        int ovs; /* expected output_vec_size (1: no splat either) */
    } cases[] = {{256, 0x300000, false, 4}, {256, 0x300004, false, 4}, {256, 0x300004, true, 4}, {255, 0x300000, false, 1},
                 {258, 0x300000, false, 2}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int64_t sa[3] = {8, 1024, cases[k].w}, sb[3] = {8, 1024, 1}, so[3] = {8, 1, cases[k].w};
        tensor_t *a = tensor_from_blob((void *)(uintptr_t)0x1000000, 3, sa, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
        tensor_t *b = tensor_from_blob((void *)cases[k].b_addr, 3, sb, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
        tensor_t *o = tensor_from_blob((void *)(uintptr_t)0x2000000, 3, so, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
        assert_true(a && b && o);
        tensor_t *const ins[2] = {cases[k].b_first ? b : a, cases[k].b_first ? a : b};
        tensor_iter_t *it = dim1_iter(o, ins, 2, true);
        tensor_reduce_config c;
        char buf[512];
        assert_int_equal(tensor_reduce_config_make(it, &h100, &f32_tuned, &c), TENSOR_OK);
        assert_true(tensor_reduce_config_format(&c, buf, sizeof buf) > 0);
        const uint32_t want = cases[k].ovs > 1 ? (cases[k].b_first ? 1u : 2u) : 0u;
        if (c.reduce_fastest || c.vectorize_input || c.output_vec_size != cases[k].ovs || c.splat_inputs != want ||
            c.rvec_inputs != 0u) /* b is contiguous along the reduced dim but one row for all outputs */
            fail_msg("case %zu: %s", k, buf);
        char text[64];
        snprintf(text, sizeof text, "one element an output vector of inputs 0x%x", (unsigned)want);
        assert_int_equal(strstr(buf, text) != NULL, want != 0);
        assert_null(strstr(buf, "one element a row"));
        tensor_iter_free(it);
        if (k == 0) { /* three inputs: element loads (the kernel compiles the splat for two) */
            tensor_t *const three[3] = {a, a, b};
            it = dim1_iter(o, three, 3, true);
            assert_int_equal(tensor_reduce_config_make(it, &h100, &f32_tuned, &c), TENSOR_OK);
            assert_int_equal(c.output_vec_size, 1);
            assert_int_equal(c.splat_inputs, 0u);
            tensor_iter_free(it);
            /* two reduced dims (0 and 1, which b [8, 1, 1] keeps from coalescing): element loads too */
            const int64_t so2[3] = {1, 1, cases[k].w}, sb2[3] = {8, 1, 1};
            tensor_t *o2 = tensor_from_blob((void *)(uintptr_t)0x2000000, 3, so2, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
            tensor_t *b2 = tensor_from_blob((void *)(uintptr_t)0x300000, 3, sb2, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
            tensor_iter_config *cfg = tensor_iter_config_new("plan");
            assert_true(o2 && b2 && cfg);
            const int dims[2] = {0, 1};
            assert_int_equal(tensor_iter_config_enable(cfg, TENSOR_ITER_REDUCTION), TENSOR_OK);
            assert_int_equal(tensor_iter_config_add_output(cfg, o2), TENSOR_OK);
            assert_int_equal(tensor_iter_config_add_input(cfg, a), TENSOR_OK);
            assert_int_equal(tensor_iter_config_add_input(cfg, b2), TENSOR_OK);
            assert_int_equal(tensor_iter_config_reduce_dims(cfg, dims, 2, true), TENSOR_OK);
            it = tensor_iter_build(cfg);
            tensor_iter_config_free(cfg);
            assert_non_null(it);
            assert_int_equal(tensor_iter_num_reduce_dims(it), 2);
            assert_int_equal(tensor_reduce_config_make(it, &h100, &f32_tuned, &c), TENSOR_OK);
            assert_int_equal(c.output_vec_size, 1);
            assert_int_equal(c.splat_inputs, 0u);
            tensor_iter_free(it);
            tensor_release(o2);
            tensor_release(b2);
        }
        tensor_release(a);
        tensor_release(b);
        tensor_release(o);
    }
}

/* sum(a * b) over dim 1 of [m, w] inputs of two layouts: a the transpose of a contiguous [w, m]
 * (contiguous along the outputs), b contiguous at b_addr (along the reduced dim), b first when
 * b_first; the blobs are never read. */
typedef struct {
    tensor_t *a0, *a, *b, *o;
    tensor_iter_t *it;
} two_layout_case;
static two_layout_case two_layout_make(int64_t m, int64_t w, tensor_dtype dt, uintptr_t b_addr, bool b_first) {
    const int64_t st[2] = {w, m}, sb[2] = {m, w}, so[2] = {m, 1};
    two_layout_case t;
    t.a0 = tensor_from_blob((void *)(uintptr_t)0x10000000, 2, st, NULL, dt, tensor_cpu(), NULL, NULL);
    t.b = tensor_from_blob((void *)b_addr, 2, sb, NULL, dt, tensor_cpu(), NULL, NULL);
    t.o = tensor_from_blob((void *)(uintptr_t)0x2000000, 2, so, NULL, dt, tensor_cpu(), NULL, NULL);
    assert_true(t.a0 && t.b && t.o);
    t.a = tensor_transpose(t.a0, 0, 1);
    assert_non_null(t.a);
    tensor_t *const ins[2] = {b_first ? t.b : t.a, b_first ? t.a : t.b};
    t.it = dim1_iter(t.o, ins, 2, true);
    return t;
}
static void two_layout_free(two_layout_case *t) {
    tensor_iter_free(t->it);
    tensor_t *const ts[4] = {t->a0, t->a, t->b, t->o};
    for (int i = 0; i < 4; i++) tensor_release(ts[i]);
}

/* sum(a * b) over dim 1 of [M, W] inputs of two layouts (a transposed: contiguous along the
 * outputs; b contiguous along the reduced dim), in either order, where the outer plan serves
 * them (fewer than 32 outputs, or 16-bit inputs): lanes on the outputs and each thread a chunk
 * of the reduced dim, whose multipliers and step are whole chunks; 16-byte loads of b only when
 * its base and row stride allow them. Inputs of one layout, one input, and PyTorch's exact plan
 * keep the plans they had. */
static void test_two_layouts(void **state) {
    (void)state;
    struct {
        int64_t w;
        uintptr_t b_addr;
        bool b_first;
        const tensor_reduce_kernel_traits *tr;
        bool aligned;
        int64_t m;
    } cases[] = {{1024, 0x300000, false, &f32_tuned, true, 16}, {1024, 0x300000, true, &f32_tuned, true, 24},
                 {1024, 0x300004, false, &f32_tuned, false, 16}, {1022, 0x300000, false, &f32_tuned, false, 16},
                 {1000, 0x300000, true, &f32_tuned, true, 16},   {4096, 0x300000, false, &f16_tuned, true, 256},
                 {1024, 0x300000, true, &f16_tuned, true, 256}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const tensor_dtype dt = cases[k].tr->input_size == 2 ? TENSOR_FLOAT16 : TENSOR_FLOAT32;
        const int64_t w = cases[k].w;
        two_layout_case t = two_layout_make(cases[k].m, w, dt, cases[k].b_addr, cases[k].b_first);
        tensor_t *const a = t.a, *const b = t.b, *const o = t.o;
        tensor_t *const ins[2] = {cases[k].b_first ? b : a, cases[k].b_first ? a : b};
        tensor_iter_t *it = t.it;
        tensor_reduce_config c;
        char buf[512];
        assert_int_equal(tensor_reduce_config_make(it, &h100, cases[k].tr, &c), TENSOR_OK);
        assert_true(tensor_reduce_config_format(&c, buf, sizeof buf) > 0);
        const uint32_t want = cases[k].b_first ? 1u : 2u;
        const int64_t chunk = TENSOR_REDUCE_RVEC_CHUNK(cases[k].tr->input_size);
        if (c.rvec_inputs != want || c.rvec_aligned != cases[k].aligned || c.reduce_fastest || c.vectorize_input ||
            c.rvec_tiles || c.output_vec_size != 1 || c.short_rows || c.dense_rows || c.output_mult[TENSOR_REDUCE_BLOCK_X] != 1 ||
            c.input_mult[TENSOR_REDUCE_BLOCK_X] != 0)
            fail_msg("case %zu: %s", k, buf);
        for (int d = TENSOR_REDUCE_BLOCK_Y; d <= TENSOR_REDUCE_CTA; d++)
            if (c.input_mult[d] % chunk != 0) fail_msg("case %zu: multiplier %d: %s", k, d, buf);
        if (c.step_input % chunk != 0 || c.num_inputs != w) fail_msg("case %zu: %s", k, buf);
        char text[96];
        snprintf(text, sizeof text, "two layouts: runs along the reduced dim of inputs 0x%x, %s", (unsigned)want,
                 cases[k].aligned ? "16-byte loads" : "element loads");
        if (strstr(buf, text) == NULL) fail_msg("case %zu: %s", k, buf);
        /* PyTorch's plan, one layout (b twice), one input: no chunks */
        it = dim1_iter(o, ins, 2, true);
        assert_int_equal(tensor_reduce_config_make(it, &h100, &f32_sum, &c), TENSOR_OK);
        assert_int_equal(c.rvec_inputs, 0u);
        tensor_iter_free(it);
        tensor_t *const same[2] = {b, b};
        it = dim1_iter(o, same, 2, true);
        assert_int_equal(tensor_reduce_config_make(it, &h100, cases[k].tr, &c), TENSOR_OK);
        assert_int_equal(c.rvec_inputs, 0u);
        tensor_iter_free(it);
        it = dim1_iter(o, &a, 1, true);
        assert_int_equal(tensor_reduce_config_make(it, &h100, cases[k].tr, &c), TENSOR_OK);
        assert_int_equal(c.rvec_inputs, 0u);
        tensor_iter_free(it);
        two_layout_free(&t);
    }
}

/* The tile plan of two layouts (rvec_tiles): float32 and float64 inputs, a transposed beside b
 * contiguous, either order, over dim 1; 32 outputs a CTA, 256 threads, chunks of whole tiles
 * (at least 3 tiles when there are several, at most 512 chunks) that cover the reduced dim, a partial a chunk and output in
 * staging when there are several chunks, the staged tile in shared memory; explain names it.
 * Fewer than 32 outputs, 16-bit inputs and PyTorch's exact plan keep the outer plan. */
static void test_two_layout_tiles(void **state) {
    (void)state;
    struct {
        int64_t m, w;
        bool b_first;
        const tensor_reduce_kernel_traits *tr;
        bool tiles;
    } cases[] = {{64, 1048576, false, &f32_tuned, true}, {64, 1048576, true, &f32_tuned, true},
                 {33, 1000, false, &f32_tuned, true},     {40, 20000, false, &f32_tuned, true},
                 {4096, 8192, false, &f32_tuned, true},   {100, 700001, true, &f32_tuned, true},
                 {32, 64, false, &f32_tuned, true},       {64, 100000, false, &f64_tuned, true},
                 {32, 257, false, &f32_tuned, true},
                 {31, 100000, false, &f32_tuned, false},  {64, 100000, false, &f16_tuned, false},
                 {64, 100000, false, &f32_sum, false}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int size = cases[k].tr->input_size;
        const tensor_dtype dt = size == 2 ? TENSOR_FLOAT16 : size == 8 ? TENSOR_FLOAT64 : TENSOR_FLOAT32;
        const int64_t m = cases[k].m, w = cases[k].w;
        two_layout_case t = two_layout_make(m, w, dt, 0x300000, cases[k].b_first);
        tensor_t *const ins[2] = {cases[k].b_first ? t.b : t.a, cases[k].b_first ? t.a : t.b};
        tensor_reduce_config c;
        char buf[640];
        assert_int_equal(tensor_reduce_config_make(t.it, &h100, cases[k].tr, &c), TENSOR_OK);
        assert_true(tensor_reduce_config_format(&c, buf, sizeof buf) > 0);
        if (c.rvec_tiles != cases[k].tiles) fail_msg("case %zu: %s", k, buf);
        if (cases[k].tiles) {
            const int64_t rows = TENSOR_REDUCE_RTILE_ROWS(size), chunks = c.grid[1];
            if (c.rvec_inputs != (cases[k].b_first ? 1u : 2u) || c.block_width != 32 ||
                c.block_height != TENSOR_REDUCE_RTILE_WARPS || c.num_threads != 32 * TENSOR_REDUCE_RTILE_WARPS ||
                c.grid[0] != (m + 31) / 32 || chunks < 1 || chunks > 512 || c.ctas_per_output != chunks ||
                c.step_input % rows != 0 || (chunks > 1 && c.step_input < 3 * rows) ||
                c.step_input * (chunks - 1) >= w || c.step_input * chunks < w ||
                c.shared_memory_bytes != rows * TENSOR_REDUCE_RTILE_PITCH * size ||
                c.staging_bytes != (chunks > 1 ? c.grid[0] * 32 * chunks * cases[k].tr->acc_size : 0) ||
                c.semaphore_bytes != (chunks > 1 ? c.grid[0] * 4 : 0) || strstr(buf, "two-layout tiles") == NULL)
                fail_msg("case %zu: %s", k, buf);
            /* a third input: the outer plan */
            tensor_t *const three[3] = {ins[0], ins[1], ins[1]};
            tensor_iter_t *it3 = dim1_iter(t.o, three, 3, true);
            assert_int_equal(tensor_reduce_config_make(it3, &h100, cases[k].tr, &c), TENSOR_OK);
            assert_false(c.rvec_tiles);
            tensor_iter_free(it3);
        }
        two_layout_free(&t);
    }
    /* two kept dims (a batch of transposed matrices): the outer plan */
    const int64_t s3[3] = {4, 20000, 64}, o3[3] = {4, 64, 1};
    tensor_t *a0 = tensor_from_blob((void *)(uintptr_t)0x10000000, 3, s3, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    tensor_t *a = tensor_transpose(a0, 1, 2);
    const int64_t sb3[3] = {4, 64, 20000};
    tensor_t *b = tensor_from_blob((void *)(uintptr_t)0x300000, 3, sb3, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    tensor_t *o = tensor_from_blob((void *)(uintptr_t)0x2000000, 3, o3, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_true(a0 && a && b && o);
    tensor_iter_config *cfg = tensor_iter_config_new("plan");
    const int d2 = 2;
    assert_non_null(cfg);
    assert_int_equal(tensor_iter_config_enable(cfg, TENSOR_ITER_REDUCTION), TENSOR_OK);
    assert_int_equal(tensor_iter_config_add_output(cfg, o), TENSOR_OK);
    assert_int_equal(tensor_iter_config_add_input(cfg, a), TENSOR_OK);
    assert_int_equal(tensor_iter_config_add_input(cfg, b), TENSOR_OK);
    assert_int_equal(tensor_iter_config_reduce_dims(cfg, &d2, 1, true), TENSOR_OK);
    tensor_iter_t *it = tensor_iter_build(cfg);
    tensor_iter_config_free(cfg);
    assert_non_null(it);
    tensor_reduce_config c;
    assert_int_equal(tensor_reduce_config_make(it, &h100, &f32_tuned, &c), TENSOR_OK);
    assert_false(c.rvec_tiles);
    tensor_iter_free(it);
    tensor_t *const ts[4] = {a0, a, b, o};
    for (int i = 0; i < 4; i++) tensor_release(ts[i]);
}

/* sum(a * b) over dim 1 of a [rows, cols] float32 a and b of shape bshape (nb dims), as the
 * cache-hint rule sees it: the evict-first bits, the evict-last ones shifted left by 8. */
static uint32_t evict_mask(int64_t rows, int64_t cols, int nb, const int64_t *bshape, int nin) {
    const int64_t sh[2] = {rows, cols}, osh[2] = {rows, 1};
    tensor_t *a = tensor_from_blob((void *)(uintptr_t)0x100000, 2, sh, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    tensor_t *b = tensor_from_blob((void *)(uintptr_t)0x300000, nb, bshape, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    tensor_t *o = tensor_from_blob((void *)(uintptr_t)0x200000, 2, osh, NULL, TENSOR_FLOAT32, tensor_cpu(), NULL, NULL);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(o);
    tensor_t *const ins[2] = {a, b};
    tensor_iter_t *it = dim1_iter(o, ins, nin, true);
    uint32_t first = 99, last = 99;
    tensor_reduce_config_cache_hints(it, &first, &last);
    const uint32_t m = first | last << 8;
    tensor_iter_free(it);
    tensor_release(a);
    tensor_release(b);
    tensor_release(o);
    return m;
}

/* The residency caches' slots: one per power-of-two block size from 1 to 1024 threads. */
static void test_resident_slot(void **state) {
    (void)state;
    for (int i = 0; i < TENSOR_REDUCE_RESIDENT_SLOTS; i++) assert_int_equal(tensor_reduce_resident_slot(1 << i), i);
    const int none[] = {0, -1, 3, 96, 384, 1023, 1025, 2048, 1 << 30};
    for (size_t k = 0; k < sizeof none / sizeof none[0]; k++) assert_int_equal(tensor_reduce_resident_slot(none[k]), -1);
}

/* Cache hints of a several-input kernel whose call is small enough
 * (TENSOR_REDUCE_EVICT_FIRST_MAX_BYTES): evict-first for each input read once, evict-last for a
 * small input read again (broadcast); none for a larger call or one input. */
static void test_evict_first(void **state) {
    (void)state;
    const int64_t same[2] = {1000, 8192}, row[1] = {8192}, col[2] = {1000, 1};
    assert_int_equal(evict_mask(1000, 8192, 2, same, 2), 3u);
    assert_int_equal(evict_mask(1000, 8192, 1, row, 2), 1u | 2u << 8); /* b read by every output */
    assert_int_equal(evict_mask(1000, 8192, 2, col, 2), 1u | 2u << 8); /* b read at every reduced position */
    assert_int_equal(evict_mask(1000, 8192, 2, same, 1), 0u);
    /* at the limit (two 128 MiB inputs) and past it (two 256 MiB inputs) */
    const int64_t half[2] = {8192, 4096}, full[2] = {8192, 8192};
    assert_int_equal(TENSOR_REDUCE_EVICT_FIRST_MAX_BYTES, (int64_t)256 << 20);
    assert_int_equal(evict_mask(8192, 4096, 2, half, 2), 3u);
    assert_int_equal(evict_mask(8192, 8192, 2, full, 2), 0u);
    /* a broadcast input's bytes do not count: 256 MiB read once and b [8192, 1] is at the limit */
    const int64_t col8k[2] = {8192, 1};
    assert_int_equal(evict_mask(8192, 8192, 2, col8k, 2), 1u | 2u << 8);
    /* a large call: no hints at all, the broadcast row included */
    const int64_t row8k[1] = {8192};
    assert_int_equal(evict_mask(16384, 8192, 1, row8k, 2), 0u);
    /* a broadcast input past TENSOR_REDUCE_EVICT_LAST_MAX_BYTES (16 MiB of [4M, 1]): plain */
    const int64_t big_col[2] = {4 << 20, 1};
    assert_int_equal(evict_mask(4 << 20, 4, 2, big_col, 2), 1u);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_resident_slot),
    cmocka_unit_test(test_evict_first),
    cmocka_unit_test(test_two_inputs_rows),
    cmocka_unit_test(test_lean_rows),
    cmocka_unit_test(test_elem_inputs),
    cmocka_unit_test(test_lean_fit_rules),
    cmocka_unit_test(test_two_inputs_outer_one_wave),
    cmocka_unit_test(test_two_inputs_outer_exact_width),
    cmocka_unit_test(test_row_vectors),
    cmocka_unit_test(test_dense_row_threads),
    cmocka_unit_test(test_dense_row_thread_cap),
    cmocka_unit_test(test_splat_rows),
    cmocka_unit_test(test_splat_outputs),
    cmocka_unit_test(test_tuned_outer_underfilled),
    cmocka_unit_test(test_two_layouts),
    cmocka_unit_test(test_two_layout_tiles),
    cmocka_unit_test(test_seed_16x128x64x128_dim1),
    cmocka_unit_test(test_seed_8x32x64x128_dim1),
    cmocka_unit_test(test_seed_8x32x64x128_dim1_tuned),
    cmocka_unit_test(test_full_sum_2p24),
    cmocka_unit_test(test_row_sums),
    cmocka_unit_test(test_column_sums),
    cmocka_unit_test(test_rows_of_128),
    cmocka_unit_test(test_tuned_short_rows_vectorised),
    cmocka_unit_test(test_tuned_short_rows_tile),
    cmocka_unit_test(test_tuned_short_rows_scalar),
    cmocka_unit_test(test_tuned_inner_split),
    cmocka_unit_test(test_tuned_outer_wide),
    cmocka_unit_test(test_tuned_f16_outer),
    cmocka_unit_test(test_two_inputs),
    cmocka_unit_test(test_flat_dots),
    cmocka_unit_test(test_format_and_errors),
};

TENSOR_TEST_GROUP(reduce_config, tests, NULL, NULL)
