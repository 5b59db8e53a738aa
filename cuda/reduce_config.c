#include <stdio.h>
#include <string.h>

#include "cuda/reduce_config.h"
#include "runtime/error.h"
#include "runtime/text.h"
#include "iterator/iter_internal.h"

static int64_t div_up(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static int64_t last_pow2(int64_t n) {
    int64_t p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}

/* The multiplier a thread dimension contributes, and the step grows by its extent. */
static int64_t split_input(tensor_reduce_config *c, int64_t parallelism) {
    int64_t step = c->step_input;
    c->step_input *= parallelism;
    return step;
}

static int64_t split_output(tensor_reduce_config *c, int64_t parallelism) {
    int64_t step = c->step_output;
    c->step_output *= parallelism;
    return step;
}

static int64_t values_per_thread(const tensor_reduce_config *c) { return div_up(c->num_inputs, c->step_input); }

bool tensor_reduce_config_block_x_reduce(const tensor_reduce_config *c) { return c->input_mult[0] != 0; }
bool tensor_reduce_config_block_y_reduce(const tensor_reduce_config *c) { return c->input_mult[1] != 0; }
bool tensor_reduce_config_global_reduce(const tensor_reduce_config *c) { return c->input_mult[2] != 0; }

/* ---- several inputs (a fused map-reduce: sum(a * b)) ----
 * The plan's shape decisions (which dim is fastest, how wide a load) follow the reference input:
 * the one with the most dims that move in memory (not broadcast), the first on a tie. A vector
 * load is planned only when every input allows it, so a broadcast input (stride 0) never
 * makes the kernel read past what it holds. */
static int ref_input(const tensor_iter_t *iter) {
    int best = tensor_iter_noutputs(iter), best_n = -1;
    for (int a = tensor_iter_noutputs(iter); a < iter->num_operands; a++) {
        int n = 0;
        for (int d = 0; d < iter->ndim; d++) n += iter->operands[a].strides[d] != 0;
        if (n > best_n) best = a, best_n = n;
    }
    return best;
}

/* Every input contiguous along dim d (stride = element size)? */
static bool inputs_unit_stride(const tensor_iter_t *iter, int d, int elem) {
    for (int a = tensor_iter_noutputs(iter); a < iter->num_operands; a++)
        if (iter->operands[a].strides[d] != elem) return false;
    return true;
}

/* Inputs of several that are constant along dim d (stride 0) beside at least one contiguous
 * one, every other input contiguous (stride = element size): the bits of the constant ones, or
 * -1 when the inputs are not all one or the other. One input is never a splat. */
static int64_t splat_inputs_along(const tensor_iter_t *iter, int d, int elem) {
    const int in0 = tensor_iter_noutputs(iter);
    int64_t mask = 0;
    bool unit = false;
    for (int a = in0; a < iter->num_operands; a++) {
        const int64_t st = iter->operands[a].strides[d];
        if (st == elem) unit = true;
        else if (st == 0 && iter->num_operands - in0 > 1 && a - in0 < 32) mask |= (int64_t)1 << (a - in0);
        else return -1;
    }
    return unit ? mask : -1;
}

/* Every input's rows start at the same address modulo `bytes` as the first contiguous input's
 * (their base addresses and kept strides differ by multiples of it): the kernel cuts every
 * input's row where it cuts that one's (an unaligned head, whole vectors, a tail). Inputs in
 * `splat` (one element a row) are not cut and need not be congruent. */
static bool inputs_congruent(const tensor_iter_t *iter, int64_t bytes, int64_t splat) {
    int in0 = tensor_iter_noutputs(iter);
    while (splat >> (in0 - tensor_iter_noutputs(iter)) & 1) in0++;
    for (int a = in0 + 1; a < iter->num_operands; a++) {
        if (splat >> (a - tensor_iter_noutputs(iter)) & 1) continue;
        if ((uint64_t)(iter->operands[a].data - iter->operands[in0].data) % (uint64_t)bytes != 0) return false;
        for (int d = tensor_iter_num_reduce_dims(iter); d < iter->ndim; d++)
            if ((uint64_t)(iter->operands[a].strides[d] - iter->operands[in0].strides[d]) % (uint64_t)bytes != 0)
                return false;
    }
    return true;
}

/* Whether input q is constant along every kept dim: one row that every output reads again. */
static bool input_constant_along_kept(const tensor_iter_t *iter, int q) {
    const int a = tensor_iter_noutputs(iter) + q;
    for (int d = tensor_iter_num_reduce_dims(iter); d < iter->ndim; d++)
        if (iter->shape[d] > 1 && iter->operands[a].strides[d] != 0) return false;
    return true;
}

/* Two inputs whose rows do not start alike modulo a vector (inputs_congruent failed), neither
 * constant along the row: the one to read element by element within the other's vectors, as a
 * mask (bit q: input q); 0 for other input counts. Input 0 when it alone is constant along every
 * kept dim (a broadcast row, read again from L2 for each output), so that the input streamed
 * from memory keeps its vector loads; else input 1. */
static uint32_t elem_input(const tensor_iter_t *iter) {
    if (tensor_iter_ninputs(iter) != 2) return 0;
    return input_constant_along_kept(iter, 0) && !input_constant_along_kept(iter, 1) ? 1u : 2u;
}

/* Largest power of two <= max_vec dividing the input's base address (in elements), the size of
 * the first kept dim, and every other input stride: then one vector load reads max_vec
 * neighbouring outputs' inputs, aligned. */
static int output_vec_size_of(const tensor_iter_t *iter, int in_arg, int elem, int max_vec) {
    int vec = max_vec;
    uint64_t checks[TENSOR_MAX_DIMS + 2];
    int n = 0;
    checks[n++] = (uint64_t)(uintptr_t)iter->operands[in_arg].data / (uint64_t)elem;
    int out_dim = tensor_iter_num_reduce_dims(iter);
    checks[n++] = (uint64_t)iter->shape[out_dim];
    for (int d = 0; d < iter->ndim; d++)
        if (d != out_dim) checks[n++] = (uint64_t)(iter->operands[in_arg].strides[d] / elem);
    for (int i = 0; i < n; i++)
        while (vec > 1 && checks[i] % (uint64_t)vec != 0) vec /= 2;
    return vec;
}

/* The same for every input contiguous along the first kept dim, when the others are constant
 * along it (stride 0: one element of such an input serves every output of a vector; their bits
 * go to *splat), else 1. The kernel compiles that loop for two inputs and one reduced dim only
 * (a loop for each constant input's index, which costs library size): other calls with such an
 * input load elements. */
static int output_vec_size(const tensor_iter_t *iter, int elem, int max_vec, uint32_t *splat) {
    const int in0 = tensor_iter_noutputs(iter), nred = tensor_iter_num_reduce_dims(iter);
    const int64_t mask = splat_inputs_along(iter, nred, elem);
    *splat = 0;
    if (mask < 0 || (mask != 0 && (tensor_iter_ninputs(iter) != 2 || nred != 1))) return 1;
    int vec = max_vec;
    for (int a = in0; a < iter->num_operands; a++)
        if (!(mask >> (a - in0) & 1)) vec = output_vec_size_of(iter, a, elem, vec);
    if (vec > 1) *splat = (uint32_t)mask;
    return vec;
}

/* Inputs of two layouts (tensor_reduce_config.rvec_inputs): the bits of the inputs contiguous
 * along the one reduced dim and moving along the outputs, when at least one other input is
 * contiguous along the first kept dim and moves along the reduced one; else 0. (An input
 * constant along the outputs is one row that all lanes read together: the outer plans serve
 * it, with output vectors when the others allow them.) *aligned: every input of the first kind
 * has its data and kept strides at multiples of 16 bytes. */
static uint32_t two_layout_inputs(const tensor_iter_t *iter, int elem, bool *aligned) {
    const int in0 = tensor_iter_noutputs(iter), nin = tensor_iter_ninputs(iter);
    *aligned = true;
    if (nin < 2 || nin > 32 || tensor_iter_num_reduce_dims(iter) != 1 || iter->ndim < 2) return 0;
    uint32_t mask = 0;
    bool across = false;
    for (int q = 0; q < nin; q++) {
        const tensor_iter_operand *op = &iter->operands[in0 + q];
        if (op->strides[1] == elem) { /* one constant along the reduced dim reads one element a row */
            across = across || op->strides[0] != 0;
            continue;
        }
        if (op->strides[0] != elem || op->strides[1] == 0) continue;
        mask |= 1u << q;
        if ((uintptr_t)op->data % 16 != 0) *aligned = false;
        for (int d = 1; d < iter->ndim; d++)
            if (iter->shape[d] > 1 && op->strides[d] % 16 != 0) *aligned = false;
    }
    return across ? mask : 0;
}

/* Next power of two >= n (n >= 1). */
static int64_t next_pow2(int64_t n) {
    int64_t p = 1;
    while (p < n) p *= 2;
    return p;
}

/* The short-rows plan (tuned only), or false when the iterator is not a set of short
 * contiguous rows. PyTorch puts block.x on such a row and gives each lane one element (or one
 * vector) of it: a 1M x 32 float32 row sum keeps 4 bytes per thread in flight, far too few
 * to stream from memory. Here a group of block_width lanes owns a row and every thread folds
 * TENSOR_REDUCE_SHORT_ROWS_FOR(vec) rows, their loads (16 bytes each when the rows allow) issued
 * before the first add. */
static bool plan_short_rows(const tensor_iter_t *iter, const tensor_reduce_kernel_traits *tr, tensor_reduce_config *c) {
    int in_arg = tensor_iter_noutputs(iter);
    const int64_t *in_strides = tensor_iter_strides(iter, in_arg);
    if (!tr->tuned || !c->reduce_fastest || iter->ndim < 2 || tensor_iter_num_reduce_dims(iter) != 1 ||
        c->num_outputs < 2 || !inputs_unit_stride(iter, 0, tr->input_size))
        return false;
    /* 16-byte loads need every row of every input to start 16-byte aligned and to hold whole
     * vectors. */
    int vec = tr->input_vec_size;
    int64_t vbytes = (int64_t)vec * tr->input_size;
    bool aligned = vec > 1 && c->num_inputs % vec == 0;
    for (int a = in_arg; aligned && a < iter->num_operands; a++) {
        aligned = (uint64_t)(uintptr_t)iter->operands[a].data % (uint64_t)vbytes == 0;
        for (int d = 1; aligned && d < iter->ndim; d++)
            if (iter->shape[d] > 1 && iter->operands[a].strides[d] % vbytes != 0) aligned = false;
    }
    if (!aligned) vec = 1;
    int64_t row_bytes = c->num_inputs * tr->input_size;
    /* Tile mode stages one input in shared memory: one-input reductions only. */
    if (vec == 1 && tensor_iter_ninputs(iter) == 1 && iter->ndim == 2 && in_strides[1] == row_bytes && row_bytes <= TENSOR_REDUCE_TILE_MAX_ROW_BYTES &&
        (uint64_t)(uintptr_t)iter->operands[in_arg].data % 16 == 0) {
        /* Tile mode: rows of a few elements that are not whole vectors. Lanes per row would
         * load 4-byte pieces of 28-byte rows (uncoalesced, and slower than torch); a CTA instead
         * copies its rows' contiguous bytes with 16-byte loads, then a thread folds a row. A
         * multiple of 256 rows per CTA keeps every tile 16-byte aligned. */
        int64_t per_thread = TENSOR_REDUCE_TILE_BYTES / row_bytes / TENSOR_REDUCE_SHORT_THREADS;
        per_thread = per_thread < 1 ? 1 : per_thread > 8 ? 8 : per_thread;
        c->short_rows = true;
        c->short_tile = true;
        c->short_vec = 1;
        c->vectorize_input = true;
        c->input_vec_size = 16 / tr->input_size > 0 ? 16 / tr->input_size : 1;
        c->output_vec_size = 1;
        c->block_width = 1;
        c->block_height = TENSOR_REDUCE_SHORT_THREADS;
        c->num_threads = TENSOR_REDUCE_SHORT_THREADS;
        c->output_mult[TENSOR_REDUCE_BLOCK_Y] = 1;
        c->step_input = 1;
        c->step_output = per_thread * TENSOR_REDUCE_SHORT_THREADS;
        c->vt0 = (int)per_thread;
        c->values_per_thread = c->num_inputs;
        c->grid[0] = div_up(c->num_outputs, c->step_output);
        c->grid[1] = 1;
        c->shared_memory_bytes = (c->step_output * row_bytes + 15) / 16 * 16;
        return true;
    }
    int64_t units = c->num_inputs / vec;
    if (units > TENSOR_REDUCE_SHORT_MAX_UNITS) return false;
    int64_t lanes = min64(next_pow2(units), 32);
    c->short_rows = true;
    c->short_vec = vec;
    c->vectorize_input = vec > 1;
    c->input_vec_size = vec;
    c->output_vec_size = 1;
    c->block_width = (int)lanes;
    c->block_height = (int)(TENSOR_REDUCE_SHORT_THREADS / lanes);
    c->num_threads = TENSOR_REDUCE_SHORT_THREADS;
    c->input_mult[TENSOR_REDUCE_BLOCK_X] = 1;
    c->output_mult[TENSOR_REDUCE_BLOCK_Y] = 1;
    c->step_input = lanes;
    const int rows = TENSOR_REDUCE_SHORT_ROWS_N(tr->input_vec_size, tensor_iter_ninputs(iter));
    c->step_output = (int64_t)c->block_height * rows;
    c->vt0 = rows;
    c->values_per_thread = div_up(units, lanes);
    c->grid[0] = div_up(c->num_outputs, c->step_output);
    c->grid[1] = 1;
    return true;
}

/* Tuned plan for reductions whose outputs alone cannot fill the GPU and whose reduced dim is
 * too short for PyTorch to split it over warps (values per thread < 16 x block height).
 * - Short outer reductions (outputs on the lanes): PyTorch gives each thread a whole column:
 *   for seed 000's [8,32,64,128] over dim 1 that is 16K threads, each waiting on 8 rounds of 4
 *   loads (latency-bound, far below the memory bandwidth).
 * - Few moderate rows (lanes split a row, each warp owns one): 1000 rows of 8192 floats are 63
 *   CTAs of 16 rows, on half the SMs, each lane 16 rounds of 4 vector loads.
 * Here warps split the reduced dim too (one output or output vector per CTA column), so that
 * output threads x block height reach half the GPU's resident threads while each thread keeps
 * at least one full round of TENSOR_REDUCE_VT0 independent loads. Small inputs keep PyTorch's
 * plan (TENSOR_REDUCE_SPLIT_MIN_ELEMS): a launch costs more than their loads. Returns the
 * block height (1: keep PyTorch's plan). */
static int64_t split_height(const tensor_reduce_config *c, const tensor_cuda_props *props,
                            const tensor_reduce_kernel_traits *tr) {
    const int64_t target = (int64_t)props->num_sms * props->max_threads_per_sm / 2;
    const int64_t max_threads =
        c->reduce_fastest ? tr->max_threads : TENSOR_REDUCE_WIDE_THREADS(c->output_vec_size, tr->acc_size);
    const int64_t cap = max_threads / c->block_width;
    const int64_t output_threads =
        div_up(c->num_outputs, c->output_vec_size) * (c->reduce_fastest ? c->block_width : 1);
    /* loads per thread: values, or vectors of them when lanes load 16 bytes along a row */
    const int64_t values = values_per_thread(c) / (c->vectorize_input ? c->input_vec_size : 1);
    int64_t h = 1;
    while (h * 2 <= cap && output_threads * h < target && values / (h * 2) >= TENSOR_REDUCE_VT0) h *= 2;
    return h;
}

/* CTAs per output for a global reduce, from target CTAs in a wave and grid_x output columns.
 * PyTorch rounds target / grid_x up, so a grid_x that does not divide the wave spills a few
 * CTAs into a second wave: 64 long rows on 528 slots are 576 CTAs, the last 48 running alone
 * while the rest of the GPU idles (var over [64, 1M] lost 16% to it). Rounding down keeps one
 * wave but may leave slots empty; each choice is scored by the share of its waves' slots it
 * fills, ties to PyTorch's. one_wave: the wave is what fits by registers, never exceed it. */
static int64_t ctas_for_waves(int64_t grid_x, int64_t target, bool one_wave) {
    const int64_t lo = max64(target / grid_x, 1), hi = div_up(target, grid_x);
    if (one_wave || lo == hi) return lo;
    /* lo fills lo * grid_x of div_up(lo * grid_x, target) waves; compare the two shares */
    return lo * div_up(hi * grid_x, target) > hi * div_up(lo * grid_x, target) ? lo : hi;
}

/* Threads of the whole grid. */
static int64_t grid_threads(const tensor_reduce_config *c) { return c->grid[0] * c->grid[1] * c->num_threads; }

/* PyTorch's setReduceConfig. wide: an outer reduction's CTAs get TENSOR_REDUCE_WIDE_THREADS
 * threads instead of 512 / output_vec_size (see tensor_reduce_config_make). */
static void plan_general(const tensor_iter_t *iter, const tensor_cuda_props *props, const tensor_reduce_kernel_traits *tr,
                         int64_t wide, tensor_reduce_config *out) {
    tensor_reduce_config c = *out;
    const int64_t *in_strides = tensor_iter_strides(iter, ref_input(iter));
    int nred = tensor_iter_num_reduce_dims(iter);
    int64_t dim0, dim1, fastest_stride;
    if (c.reduce_fastest) {
        dim0 = c.num_inputs;
        dim1 = c.num_outputs;
        fastest_stride = iter->ndim == 0 ? tr->input_size : in_strides[0];
    } else {
        dim0 = c.num_outputs;
        dim1 = c.num_inputs;
        fastest_stride = in_strides[nred];
    }

    const int64_t splat = c.reduce_fastest && nred == 1 ? splat_inputs_along(iter, 0, tr->input_size) : -1;
    if (fastest_stride == tr->input_size) {
        const bool rows = c.reduce_fastest && dim0 > 128 && nred == 1 && tr->vt0 >= tr->input_vec_size && splat >= 0;
        const bool congruent = rows && inputs_congruent(iter, (int64_t)tr->input_vec_size * tr->input_size, splat);
        const uint32_t elem = rows && !congruent && splat == 0 && tr->elem_rows ? elem_input(iter) : 0u;
        if (congruent || elem != 0u) {
            /* Each vector load feeds one output: lanes stride over the row in vectors. */
            c.vectorize_input = true;
            c.splat_inputs = (uint32_t)splat;
            c.elem_inputs = elem;
            dim0 /= tr->input_vec_size;
        } else if (!c.reduce_fastest) {
            /* Each vector load feeds output_vec_size neighbouring outputs. */
            c.output_vec_size = output_vec_size(iter, tr->input_size, tr->max_output_vec, &c.splat_inputs);
            dim0 /= c.output_vec_size;
        }
    }

    /* Block shape: block.x on the fastest dim (coalesced loads), then widen x if y is short. */
    int64_t max_threads = wide ? min64(TENSOR_REDUCE_WIDE_THREADS(c.output_vec_size, tr->acc_size), wide)
                               : max64(tr->max_threads / c.output_vec_size, props->warp_size);
    /* Several inputs along the fastest dim: a thread keeps loads of each input in flight, so a
     * 512-thread CTA of two inputs holds twice a sum's registers; 256 threads ran float16 rows
     * of vecdot faster and float32 no slower (docs/perf_log.md). */
    if (c.reduce_fastest && !wide && tensor_iter_ninputs(iter) > 1 && max_threads > 256) max_threads = 256;
    int64_t p0 = dim0 < max_threads ? last_pow2(dim0) : max_threads;
    int64_t p1 = dim1 < max_threads ? last_pow2(dim1) : max_threads;
    c.block_width = (int)min64(p0, props->warp_size);
    c.block_height = (int)min64(p1, max_threads / c.block_width);
    c.block_width = (int)min64(p0, max_threads / c.block_height);
    /* Outer reductions of several inputs with fewer output vectors than a warp, not a power of
     * two ([100000, 100] over dim 0: 25 vectors of 4), take exactly that many lanes: the power
     * of two below (16) needs a second column of CTAs with 9 of 16 lanes busy. The warps'
     * height stays a power of two. Sums and two-layout plans keep the power of two (not
     * measured there). */
    if (!c.reduce_fastest && c.rvec_inputs == 0 && tensor_iter_ninputs(iter) > 1 && dim0 >= 8 && dim0 < props->warp_size &&
        (dim0 & (dim0 - 1)) != 0) {
        c.block_width = (int)dim0;
        c.block_height = (int)min64(p1, last_pow2(max_threads / dim0));
    }
    c.num_threads = c.block_width * c.block_height;

    if (c.reduce_fastest)
        c.input_mult[TENSOR_REDUCE_BLOCK_X] = split_input(&c, c.block_width);
    else
        c.output_mult[TENSOR_REDUCE_BLOCK_X] = split_output(&c, c.block_width);

    /* Warps cooperate on an output only when each would still have enough values to load. */
    const int64_t min_values_per_thread = 16, max_values_per_thread = 256;
    bool warps_split = values_per_thread(&c) >= min64(c.block_height * 16, max_values_per_thread);
    if (!warps_split && tr->tuned && !wide && c.num_outputs * c.num_inputs >= TENSOR_REDUCE_SPLIT_MIN_ELEMS) {
        const int64_t h = split_height(&c, props, tr);
        if (h > 1) {
            c.block_height = (int)h;
            c.num_threads = c.block_width * c.block_height;
            warps_split = true;
        }
    }
    if (warps_split)
        c.input_mult[TENSOR_REDUCE_BLOCK_Y] = split_input(&c, c.block_height);
    else
        c.output_mult[TENSOR_REDUCE_BLOCK_Y] = split_output(&c, c.block_height);

    int64_t blocks_per_sm = props->max_threads_per_sm / c.num_threads;
    bool one_wave = wide && c.num_threads >= 512;
    if (one_wave) {
        /* 512-thread wide CTAs use 48 registers (float32 sum, OVS 4; 64 is their cap): 2 fit on
         * an SM, not max_threads_per_sm / num_threads = 4. Sizing the grid for 4 left a second,
         * mostly empty wave (multi_0_2 ran slower than torch; docs/perf_log.md).
         * 16-bit inputs (OVS 4, float accumulators) get the same 512-thread CTAs. */
        int64_t resident = props->max_threads_per_sm < 1024 ? props->max_threads_per_sm : 1024;
        blocks_per_sm = resident / c.num_threads > 0 ? resident / c.num_threads : 1;
    }
    int64_t grid_x = div_up(div_up(c.num_outputs, c.output_vec_size), c.step_output);
    int64_t vpt = values_per_thread(&c);
    bool fits = c.input_mult[TENSOR_REDUCE_BLOCK_Y] != 0 && vpt >= max_values_per_thread;
    if (fits && tr->resident_blocks != NULL) {
        /* The kernel's registers may hold fewer CTAs on an SM than its threads allow (var's
         * 16-byte accumulators). A grid sized for the thread count then runs several waves,
         * the last one partial; it is sized for what fits instead, at most one wave
         * (docs/perf_log.md has the var figures). */
        const size_t smem = (size_t)tr->acc_size * (size_t)c.num_threads * (size_t)c.output_vec_size;
        const int fit = tr->resident_blocks(tr->resident_ctx, c.output_vec_size, (int)c.num_threads, smem);
        if (fit > 0 && fit < blocks_per_sm) {
            blocks_per_sm = fit;
            one_wave = true;
        }
    }
    int64_t target_grid = (int64_t)props->num_sms * blocks_per_sm;
    if (fits && grid_x <= target_grid) {
        /* Too few outputs to fill the GPU: several CTAs share each output (global reduce). */
        int64_t c1 = ctas_for_waves(grid_x, target_grid, one_wave);
        int64_t c2 = div_up(vpt, min_values_per_thread);
        /* A two-layout plan's thread loads a chunk of values at once: its cap is in chunks. */
        int64_t c3 = div_up(vpt, max_values_per_thread * (c.rvec_inputs != 0 ? TENSOR_REDUCE_RVEC_CHUNK(tr->input_size) : 1));
        /* PyTorch clamps this to the SM count only on ROCm; on CUDA it does not, nor do we. */
        int64_t ctas = max64(min64(c1, c2), c3);
        c.ctas_per_output = ctas;
        if (ctas > 1) c.input_mult[TENSOR_REDUCE_CTA] = split_input(&c, ctas);
    }

    c.grid[0] = div_up(div_up(c.num_outputs, c.output_vec_size), c.step_output);
    c.grid[1] = c.ctas_per_output;
    c.values_per_thread = values_per_thread(&c);
    *out = c;
}

static int64_t aligned_row_vectors(const tensor_reduce_config *c, const tensor_iter_t *iter);

/* Vectors of each input a thread of the general kernel loads a round along a row of nin inputs
 * of in_size bytes (its row loop's unroll). */
static int64_t row_unroll(const tensor_reduce_config *c, int nin, int in_size) {
    if (c->elem_inputs != 0) return TENSOR_REDUCE_ELEM_ROW_UNROLL(in_size);
    return c->splat_inputs != 0 ? TENSOR_REDUCE_SPLAT_ROW_UNROLL(nin) : TENSOR_REDUCE_ROW_UNROLL(nin);
}

/* Rows of several inputs, each folded whole by one warp (a CTA's warps take consecutive
 * outputs) or by one CTA (its lanes and warps split the row): the kernel's dense-rows path,
 * which skips the general index set-up and folds with shuffles first. A row's life there is
 * its start, its rounds of loads (a memory latency each) and its fold, so the plan sizes the
 * row's threads for one round of TENSOR_REDUCE_ROW_UNROLL vectors of each input per thread:
 * a warp up to 32 x that many vectors, else a CTA of the next power of two of threads, up to
 * 512 (several rounds past that). The general plan's shapes (a warp a row at 16384 x 2048, 512
 * threads with one vector each at 4096 x 2048) ran 2-60% slower than one round
 * (docs/perf_log.md). */
static void plan_dense_rows(const tensor_iter_t *iter, const tensor_reduce_kernel_traits *tr, tensor_reduce_config *c) {
    const int nin = tensor_iter_ninputs(iter);
    if (nin < 2 || !c->reduce_fastest || !c->vectorize_input || c->output_vec_size != 1 || c->ctas_per_output != 1 ||
        c->block_width != 32 || c->input_mult[TENSOR_REDUCE_BLOCK_X] != 1 || c->output_mult[TENSOR_REDUCE_BLOCK_X] != 0)
        return;
    const bool cta_rows = c->input_mult[TENSOR_REDUCE_BLOCK_Y] == c->block_width &&
                          c->output_mult[TENSOR_REDUCE_BLOCK_Y] == 0;
    const bool warp_rows = c->input_mult[TENSOR_REDUCE_BLOCK_Y] == 0 && c->output_mult[TENSOR_REDUCE_BLOCK_Y] == 1;
    if (!cta_rows && !warp_rows) return;
    const int64_t vectors = c->num_inputs / c->input_vec_size;
    const int64_t unroll = row_unroll(c, nin, tr->input_size);
    if (warp_rows && vectors <= 32 * unroll) { /* the general plan's warps a row already */
        c->dense_rows = c->warp_rows = true;
        return;
    }
    int threads = tr->max_threads < 64 ? 32 : 64; /* two warps at least, unless the traits allow one */
    /* The lean rows kernel for rows of at most one and a half of its rounds at 512 threads
     * (TENSOR_REDUCE_LEAN_MAX_NEED): twice the resident threads of the general kernel's 48
     * registers, and as many threads as the row needs for one round, rounded up to whole warps
     * (a power of two left up to half a CTA idle). 16-bit inputs on aligned rows take the wide
     * round (twice the vectors) when the plain one needs more than 512 threads; rows with an
     * element-read input (elem_inputs) of 4-byte values the lean round at 40 registers (the
     * kernel set's lean_elem_kernel, 3 CTAs of 512 an SM). Longer rows keep the general kernel,
     * whose four vectors of each input a round read them in fewer trips (docs/perf_log.md has
     * both sides). */
    const int64_t lean = TENSOR_REDUCE_LEAN_ROW_UNROLL(nin, c->splat_inputs != 0, c->input_vec_size);
    int64_t need = (vectors + lean - 1) / lean;
    bool wide = false;
    if (tr->lean_rows == 2 && need > 512) {
        wide = aligned_row_vectors(c, iter) > 0;
        if (wide) need = (vectors + 2 * lean - 1) / (2 * lean);
    }
    if (tr->lean_rows && tr->max_threads >= 512 && need <= TENSOR_REDUCE_LEAN_MAX_NEED &&
        (c->elem_inputs == 0 || TENSOR_REDUCE_LEAN_ELEM_FIT(tr->input_size))) {
        c->lean_rows = true;
        c->lean_wide = wide;
        threads = need < 64 ? 64 : need > 512 ? 512 : (int)((need + 31) / 32 * 32);
    } else if (c->elem_inputs != 0) {
        /* The general kernel runs an element-read row's last round in the same loop (a lane past
         * the end reloads its first vector), so whole warps serve as well as a power of two: as
         * many as one round needs. A broadcast row read by elements (elem_inputs is one bit)
         * caps them at 128: such rows ran faster on four warps with several rounds each than on
         * the warps of one round, and than on 64 to 512 threads in most cases (docs/perf_log.md). */
        const int64_t n = (vectors + unroll - 1) / unroll;
        int64_t cap = input_constant_along_kept(iter, c->elem_inputs & 1u ? 0 : 1) ? 128 : 512;
        if (cap > tr->max_threads / 32 * 32) cap = tr->max_threads / 32 * 32; /* whole warps */
        if (n > threads && cap > threads) threads = n >= cap ? (int)cap : (int)((n + 31) / 32 * 32);
        /* The same plan on the lean element-read kernel where the kernel set has it for these
         * inputs (TENSOR_REDUCE_ELEM_LEAN_KERNEL). */
        if (tr->lean_rows && tr->max_threads >= 512 && TENSOR_REDUCE_ELEM_LEAN_KERNEL(tr->input_size))
            c->lean_rows = true;
    } else {
        while (threads < 512 && threads < tr->max_threads && threads * unroll < vectors) threads *= 2;
    }
    c->block_height = threads / c->block_width;
    c->num_threads = threads;
    c->input_mult[TENSOR_REDUCE_BLOCK_Y] = c->block_width;
    c->output_mult[TENSOR_REDUCE_BLOCK_Y] = 0;
    c->step_input = threads;
    c->step_output = 1;
    c->grid[0] = c->num_outputs;
    c->values_per_thread = values_per_thread(c);
    c->dense_rows = true;
}

/* Rows of several inputs along the fastest dim, each split over a column of CTAs of whole warps
 * whose threads all stride along it (tensor_reduce_config.flat_reduce: a 1-D dot, a few long
 * rows): the general plan's block and indexing kept, the kernel's folds its own, and the column
 * perhaps shorter (below). */
static void plan_flat(const tensor_iter_t *iter, const tensor_reduce_kernel_traits *tr, tensor_reduce_config *c) {
    const int64_t threads = c->num_threads;
    if (tensor_iter_ninputs(iter) < 2 || !c->reduce_fastest || !c->vectorize_input || c->output_vec_size != 1 ||
        c->dense_rows || c->rvec_inputs != 0 || threads % 32 != 0 || c->block_width % 32 != 0 ||
        c->input_mult[TENSOR_REDUCE_BLOCK_X] != 1 ||
        (c->block_height > 1 && c->input_mult[TENSOR_REDUCE_BLOCK_Y] != c->block_width) ||
        (c->ctas_per_output > 1 && c->input_mult[TENSOR_REDUCE_CTA] != threads) ||
        c->output_mult[TENSOR_REDUCE_BLOCK_X] != 0 || c->output_mult[TENSOR_REDUCE_BLOCK_Y] != 0 ||
        c->step_output != 1 || c->grid[0] != c->num_outputs || c->grid[1] != c->ctas_per_output ||
        c->step_input != threads * c->ctas_per_output)
        return;
    c->flat_reduce = true;
    /* Rounds: as few CTAs, within the planned count (the wave the kernel's registers allow), as
     * keep each thread's rounds of `unroll` vectors as few as they were, the last round of most
     * threads then whole (all of them when the vectors divide evenly). A 1-D dot of 4M floats
     * on the planned 660 CTAs left each thread a round and two or three single vectors, each a
     * trip to memory of its own; on 512 CTAs each thread takes two rounds (docs/perf_log.md). */
    if (c->ctas_per_output > 1) {
        const int64_t unroll = row_unroll(c, tensor_iter_ninputs(iter), tr->input_size);
        const int64_t vectors = c->num_inputs / c->input_vec_size, round = threads * unroll;
        const int64_t ctas = div_up(vectors, round * div_up(vectors, c->ctas_per_output * round));
        if (ctas < c->ctas_per_output) {
            c->ctas_per_output = ctas;
            c->grid[1] = ctas;
            c->step_input = threads * ctas;
            c->values_per_thread = values_per_thread(c);
            if (ctas == 1) c->input_mult[TENSOR_REDUCE_CTA] = 0; /* one round of one CTA: no global step */
        }
    }
}

/* Two layouts, two inputs of 4 or 8 bytes, one kept dim of at least 32 outputs
 * (tensor_reduce_config.rvec_tiles): the tile plan, or false. It replaces the outer plan's
 * two-layout loads, where each warp load reads 32 rows of the input contiguous along the
 * reduced dim, on every such shape measured, few outputs or many; fewer than 32 outputs leave
 * part of each CTA idle, and 16-bit and byte inputs ran slower in tiles (docs/perf_log.md).
 * Chunks: as many as keep the grid within 4 CTAs an SM (fewer left the GPU short of loads in
 * flight; more cost the column's last CTA, which folds 32 outputs x chunks partials, a latency
 * nothing hides, and a grid a little over a wave ran a second, nearly empty one), at most one
 * per 4 tiles of the reduced dim (rounded up: a chunk may be 3 tiles after the rounding to whole
 * tiles) and at most TENSOR_REDUCE_RTILE_MAX_CHUNKS. */
#define TENSOR_REDUCE_RTILE_MAX_CHUNKS 512
static bool plan_rvec_tiles(const tensor_iter_t *iter, const tensor_cuda_props *props,
                            const tensor_reduce_kernel_traits *tr, tensor_reduce_config *c) {
    const int in0 = tensor_iter_noutputs(iter);
    if ((c->rvec_inputs != 1u && c->rvec_inputs != 2u) || !TENSOR_REDUCE_RTILES_FIT(tensor_iter_ninputs(iter), tr->input_size) ||
        iter->ndim != 2 || props->warp_size != 32)
        return false;
    const int staged = c->rvec_inputs == 1u ? 1 : 0;
    if (iter->operands[in0 + staged].strides[1] != tr->input_size) return false;
    const int64_t M = c->num_outputs, K = c->num_inputs, rows = TENSOR_REDUCE_RTILE_ROWS(tr->input_size);
    if (M < TENSOR_REDUCE_RTILE_OUTPUTS) return false;
    const int64_t threads = 32 * TENSOR_REDUCE_RTILE_WARPS, ncol = div_up(M, TENSOR_REDUCE_RTILE_OUTPUTS);
    const int64_t wave = 4 * (int64_t)props->num_sms;
    int64_t chunks = min64(min64(wave / ncol, div_up(K, 4 * rows)), TENSOR_REDUCE_RTILE_MAX_CHUNKS);
    chunks = max64(chunks, 1);
    const int64_t len = rows * div_up(div_up(K, rows), chunks);
    chunks = div_up(K, len);
    tensor_reduce_config t = *c;
    t.rvec_tiles = true;
    t.flat_reduce = t.dense_rows = t.warp_rows = t.lean_rows = t.lean_wide = t.vectorize_input = false;
    t.splat_inputs = t.elem_inputs = 0;
    t.output_vec_size = 1;
    t.block_width = 32;
    t.block_height = TENSOR_REDUCE_RTILE_WARPS;
    t.num_threads = (int)threads;
    t.input_mult[TENSOR_REDUCE_BLOCK_X] = 1;
    t.input_mult[TENSOR_REDUCE_BLOCK_Y] = 0;
    t.input_mult[TENSOR_REDUCE_CTA] = chunks > 1 ? len : 0;
    t.output_mult[TENSOR_REDUCE_BLOCK_X] = 0;
    t.output_mult[TENSOR_REDUCE_BLOCK_Y] = 1;
    t.step_input = len;
    t.step_output = TENSOR_REDUCE_RTILE_OUTPUTS;
    t.ctas_per_output = chunks;
    t.grid[0] = ncol;
    t.grid[1] = chunks;
    t.values_per_thread = div_up(len, 32) * (TENSOR_REDUCE_RTILE_OUTPUTS / TENSOR_REDUCE_RTILE_WARPS);
    t.shared_memory_bytes = rows * TENSOR_REDUCE_RTILE_PITCH * tr->input_size;
    t.staging_bytes = chunks > 1 ? ncol * TENSOR_REDUCE_RTILE_OUTPUTS * chunks * tr->acc_size : 0;
    t.semaphore_bytes = chunks > 1 ? ncol * (int64_t)sizeof(uint32_t) : 0;
    *c = t;
    return true;
}

tensor_status tensor_reduce_config_make(const tensor_iter_t *iter, const tensor_cuda_props *props,
                                        const tensor_reduce_kernel_traits *tr, tensor_reduce_config *out) {
    const char *func = "tensor_reduce_config_make";
    TENSOR_CHECK_NOT_NULL(iter, func, "iter");
    TENSOR_CHECK_NOT_NULL(props, func, "props");
    TENSOR_CHECK_NOT_NULL(tr, func, "traits");
    TENSOR_CHECK_NOT_NULL(out, func, "out");
    if (!tensor_iter_is_reduction(iter) || tensor_iter_ninputs(iter) < 1)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: expected a reduction iterator with inputs", func);
    int64_t numel = tensor_iter_numel(iter);
    if (numel <= 0) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: the iterator is empty", func);
    if (tr->input_size <= 0 || tr->acc_size <= 0 || tr->vt0 <= 0 || tr->input_vec_size <= 0 || tr->max_output_vec <= 0 ||
        tr->max_output_vec > TENSOR_REDUCE_MAX_OUTPUT_VEC ||
        tr->max_threads < 32 || props->num_sms <= 0 || props->max_threads_per_sm <= 0 || props->warp_size <= 0)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: traits or device properties out of range", func);

    tensor_reduce_config init;
    memset(&init, 0, sizeof init);
    init.element_size_bytes = tr->acc_size;
    init.num_outputs = tensor_iter_num_output_elements(iter);
    init.num_inputs = numel / init.num_outputs;
    init.step_input = 1;
    init.step_output = 1;
    init.ctas_per_output = 1;
    init.input_vec_size = tr->input_vec_size;
    init.output_vec_size = 1;
    init.vt0 = tr->vt0;
    const int64_t *in_strides = tensor_iter_strides(iter, ref_input(iter));
    int nred = tensor_iter_num_reduce_dims(iter);
    /* An all-reduced (or 0-d) iteration reduces along its fastest dim by definition. */
    init.reduce_fastest = iter->ndim == 0 || nred == iter->ndim || in_strides[0] < in_strides[nred];

    /* Two layouts: an outer reduction's plan, whose thread positions along the reduced dim
     * then become chunks (the thread's values are as many, a chunk's run consecutive). */
    bool rvec_aligned = false;
    const uint32_t rvec = tr->tuned ? two_layout_inputs(iter, tr->input_size, &rvec_aligned) : 0u;
    const int64_t chunk = TENSOR_REDUCE_RVEC_CHUNK(tr->input_size);
    if (rvec != 0) {
        init.reduce_fastest = false;
        init.rvec_inputs = rvec;
        init.rvec_aligned = rvec_aligned;
    }

    tensor_reduce_config c = init;
    /* Tiles before the general plan: it would ask the kernel's residency (resident_blocks), for
     * which the JIT compiles the general kernel, only to be replaced. */
    if (tr->tuned && plan_rvec_tiles(iter, props, tr, &c)) {
        *out = c;
        return TENSOR_OK;
    }
    if (plan_short_rows(iter, tr, &c)) {
        *out = c;
        return TENSOR_OK;
    }
    plan_general(iter, props, tr, 0, &c);
    if (tr->tuned && !c.reduce_fastest && tensor_reduce_config_global_reduce(&c) &&
        TENSOR_REDUCE_WIDE_THREADS(c.output_vec_size, tr->acc_size) > c.num_threads) {
        /* Deliberate difference: an outer reduction with too few outputs to fill the GPU
         * (1M x 64 over dim 0) gets up to 512-thread CTAs instead of 512 / OVS, so fewer CTAs
         * share each column and the last CTA combines fewer partials (docs/cuda_reduce.md).
         * Only when that widens the CTAs: an OVS-1 plan (4M x 3) keeps PyTorch's, whose 512
         * threads already fill an SM 4 times (32 registers). */
        c = init;
        plan_general(iter, props, tr, 512, &c);
    } else if (tr->tuned && !c.reduce_fastest && !tensor_reduce_config_global_reduce(&c) &&
               tensor_reduce_config_block_y_reduce(&c) && numel >= TENSOR_REDUCE_SPLIT_MIN_ELEMS &&
               TENSOR_REDUCE_WIDE_THREADS(c.output_vec_size, tr->acc_size) > c.num_threads &&
               grid_threads(&c) < (int64_t)props->num_sms * props->max_threads_per_sm / 2) {
        /* Deliberate difference: an outer reduction whose outputs fill few CTAs and whose
         * reduced dim is too short for a global reduce ([64, 512, 512] over dim 1: 256 CTAs of
         * 4 warps, each thread folding 128 values, an eighth of the GPU's threads). Wider CTAs
         * put more warps on the reduced dim, so more threads share it, each with fewer rounds
         * of loads; kept when that gives more threads and each still has a full round, within
         * one wave of the wide CTAs (2 of 512 an SM, 4 of 256: their register cap): [256, 256,
         * 256] over dim 0 as two waves of 512 read slower than PyTorch's plan. Several inputs
         * take the widest CTAs that keep one wave: 512 threads for [64, 512, 512], 256 for
         * [256, 256, 256] (whose 128-thread CTAs left each thread 16 rounds of loads of each
         * input, a quarter of the GPU's threads). One input keeps 512 or PyTorch's (narrower
         * caps not measured for it). */
        const int64_t narrowest = tensor_iter_ninputs(iter) > 1 ? 2 * c.num_threads : 512;
        for (int64_t cap = 512; cap >= narrowest; cap /= 2) {
            tensor_reduce_config w = init;
            plan_general(iter, props, tr, cap, &w);
            const int64_t wave = (int64_t)props->num_sms * (props->max_threads_per_sm / 2 / w.num_threads);
            if (grid_threads(&w) > grid_threads(&c) && w.values_per_thread >= TENSOR_REDUCE_VT0 &&
                w.grid[0] * w.grid[1] <= wave) {
                c = w;
                break;
            }
        }
    }
    plan_dense_rows(iter, tr, &c);
    plan_flat(iter, tr, &c);
    if (c.rvec_inputs != 0) {
        for (int k = TENSOR_REDUCE_BLOCK_X; k <= TENSOR_REDUCE_CTA; k++) c.input_mult[k] *= chunk;
        c.step_input *= chunk;
        c.values_per_thread = div_up(c.num_inputs, c.step_input) * chunk;
    }

    bool x_reduce = tensor_reduce_config_block_x_reduce(&c);
    if (tensor_reduce_config_block_y_reduce(&c) || (x_reduce && c.block_width > props->warp_size))
        c.shared_memory_bytes = (int64_t)tr->acc_size * c.num_threads * c.output_vec_size;
    if (tensor_reduce_config_global_reduce(&c)) {
        /* One slot per (output column of CTAs, CTA, lane x vector element when lanes own outputs):
         * exactly what the kernel addresses, unlike PyTorch's num_outputs-based size, which
         * over-allocates by block_width * output_vec_size. */
        int64_t per_cta = x_reduce ? 1 : (int64_t)c.block_width * c.output_vec_size;
        c.staging_bytes = c.grid[0] * c.grid[1] * per_cta * tr->acc_size;
        c.semaphore_bytes = c.grid[0] * (int64_t)sizeof(uint32_t);
    }
    *out = c;
    return TENSOR_OK;
}

void tensor_reduce_config_cache_hints(const tensor_iter_t *iter, uint32_t *evict_first, uint32_t *evict_last) {
    const int nout = tensor_iter_noutputs(iter), nin = tensor_iter_ninputs(iter), ndim = tensor_iter_ndim(iter);
    const int64_t *shape = tensor_iter_shape(iter);
    uint32_t once = 0, again = 0;
    int64_t bytes = 0;
    for (int q = 0; q < nin && q < 32 && nin > 1; q++) {
        const int64_t *st = tensor_iter_strides(iter, nout + q);
        int64_t n = (int64_t)tensor_dtype_size(tensor_iter_dtype(iter, nout + q));
        bool reread = false;
        for (int d = 0; d < ndim; d++) {
            if (st[d] != 0) n *= shape[d];
            else if (shape[d] > 1) reread = true;
        }
        if (!reread) bytes += n, once |= 1u << q;
        else if (n <= TENSOR_REDUCE_EVICT_LAST_MAX_BYTES) again |= 1u << q;
    }
    const bool small = bytes <= TENSOR_REDUCE_EVICT_FIRST_MAX_BYTES; /* larger streams load plainly */
    *evict_first = small ? once : 0;
    *evict_last = small ? again : 0;
}

/* tensor_reduce_config_row_vectors for a row plan that is, or is about to be, dense rows. */
static int64_t aligned_row_vectors(const tensor_reduce_config *c, const tensor_iter_t *iter) {
    const int nout = tensor_iter_noutputs(iter), nin = tensor_iter_ninputs(iter);
    const int nred = tensor_iter_num_reduce_dims(iter), nkept = tensor_iter_ndim(iter) - nred;
    if (nred != 1 || nkept > 1 || c->elem_inputs != 0) return 0;
    const int64_t size = (int64_t)tensor_dtype_size(tensor_iter_dtype(iter, nout));
    if (size <= 0 || c->input_vec_size * size != 16 || (c->num_inputs * size) % 16 != 0) return 0;
    for (int q = 0; q < nin; q++) {
        const int64_t *st = tensor_iter_strides(iter, nout + q);
        if (q < 32 && (c->splat_inputs >> q & 1u)) { /* one element a row, read as a scalar */
            if (st[0] != 0 || (nkept == 1 && st[1] < 0)) return 0;
            continue;
        }
        if (st[0] != size || (uintptr_t)tensor_iter_data(iter, nout + q) % 16 != 0) return 0;
        if (nkept == 1 && (st[1] < 0 || st[1] % 16 != 0)) return 0;
    }
    if (nkept == 1 && tensor_iter_strides(iter, 0)[1] < 0) return 0;
    return c->num_inputs / c->input_vec_size;
}

int64_t tensor_reduce_config_row_vectors(const tensor_reduce_config *c, const tensor_iter_t *iter) {
    return c->dense_rows ? aligned_row_vectors(c, iter) : 0;
}

int64_t tensor_reduce_config_format(const tensor_reduce_config *c, char *buf, size_t size) {
    if (c == NULL) return -1;
    tt_text t = {buf, size, 0};
    tt_text_put(&t,
                "block {%d, %d}, grid {%lld, %lld}, %s, input_mult {%lld, %lld, %lld}, output_mult {%lld, %lld}, "
                "step_input %lld, step_output %lld, vectorize_input %s (x%d), output_vec_size %d, vt0 %d, "
                "values_per_thread %lld, ctas_per_output %lld, shared %lld B, staging %lld B, semaphores %lld B%s",
                c->block_width, c->block_height, (long long)c->grid[0], (long long)c->grid[1],
                c->reduce_fastest ? "reducing the fastest dim" : "reducing a strided dim",
                (long long)c->input_mult[0], (long long)c->input_mult[1], (long long)c->input_mult[2],
                (long long)c->output_mult[0], (long long)c->output_mult[1], (long long)c->step_input,
                (long long)c->step_output, c->vectorize_input ? "yes" : "no", c->input_vec_size,
                c->output_vec_size, c->vt0, (long long)c->values_per_thread, (long long)c->ctas_per_output,
                (long long)c->shared_memory_bytes, (long long)c->staging_bytes, (long long)c->semaphore_bytes,
                c->short_tile ? ", short-rows kernel (tile)" : c->short_rows ? ", short-rows kernel"
                : c->warp_rows ? ", dense rows, a warp each"
                : c->lean_rows ? (c->lean_wide ? ", dense rows, lean wide" : ", dense rows, lean")
                : c->dense_rows ? ", dense rows"
                : c->flat_reduce ? ", flat" : c->rvec_tiles ? ", two-layout tiles" : "");
    if (c->rvec_inputs != 0)
        tt_text_put(&t, ", two layouts: runs along the reduced dim of inputs 0x%x, %s", (unsigned)c->rvec_inputs,
                    c->rvec_tiles     ? "the other staged in shared memory"
                    : c->rvec_aligned ? "16-byte loads"
                                      : "element loads");
    if (c->elem_inputs != 0)
        tt_text_put(&t, ", input 0x%x read by elements in the other's vectors", (unsigned)c->elem_inputs);
    if (c->splat_inputs != 0)
        tt_text_put(&t,
                    c->vectorize_input ? ", one element a row of inputs 0x%x"
                                       : ", one element an output vector of inputs 0x%x",
                    (unsigned)c->splat_inputs);
    return t.len;
}
