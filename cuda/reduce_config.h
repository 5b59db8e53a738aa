/* The launch plan of one CUDA reduction kernel, computed by host C from an iterator and the
 * device's properties, so that CI (no GPU) tests it and explain prints it. The kernel receives
 * it by value. The algorithm follows PyTorch's setReduceConfig;
 * where ours differs on purpose, the comment at the difference says why. */
#ifndef TENSOR_REDUCE_CONFIG_H
#define TENSOR_REDUCE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iterator/iterator.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the plan needs to know about the GPU. */
typedef struct tensor_cuda_props {
    int num_sms;            /* 132 on an H100 SXM */
    int max_threads_per_sm; /* 2048 on Hopper */
    int warp_size;          /* 32 */
} tensor_cuda_props;

/* The kernel's element types and unrolling, chosen per functor and dtype. */
typedef struct tensor_reduce_kernel_traits {
    int input_size;     /* bytes of one input element */
    int acc_size;       /* bytes of one accumulator (float for half inputs, a struct for Welford) */
    int vt0;            /* independent accumulators per thread (loads in flight) */
    int input_vec_size; /* elements per vector load when vectorising along the input */
    int max_output_vec; /* largest vector along outputs, <= TENSOR_REDUCE_MAX_OUTPUT_VEC */
    int max_threads;    /* threads per block before dividing by output_vec_size (512) */
    /* 0: PyTorch's setReduceConfig exactly (the seed tests). 1: our deliberate differences,
     * each measured (docs/cuda_reduce.md "Where our plan differs from PyTorch's"):
     * short contiguous rows get the short-rows kernel; an outer reduction that needs a global
     * reduce gets wider CTAs (TENSOR_REDUCE_WIDE_THREADS) so fewer CTAs share each column. */
    int tuned;
    /* Optional (NULL: residency is limited by the thread count alone): how many CTAs of
     * `threads` threads with `smem` bytes of dynamic shared memory of the general kernel for
     * `ovs` outputs per load fit on one SM, as the occupancy calculator gives for the compiled
     * kernel; 0 when unknown. A grid sized for more CTAs than fit runs a partial last wave. */
    int (*resident_blocks)(const void *ctx, int ovs, int threads, size_t smem);
    const void *resident_ctx;
    /* Nonzero: the kernel set has the lean rows kernel (several inputs, accumulators of at most
     * 4 bytes, or of 8 with 16-bit inputs): dense rows there run under 32 registers, a full SM of threads, with
     * TENSOR_REDUCE_LEAN_ROW_UNROLL vectors of each input per round. 2: it also has the wide
     * round (twice the vectors, aligned rows; the built-in sets of 16-bit inputs). */
    int lean_rows;
    /* Nonzero: the general kernel has the rows of two inputs that do not start alike modulo a
     * vector, one read by elements within the other's vectors (tensor_reduce_config.elem_inputs).
     * The built-in sets have it; run-time compiled ones leave it out (TENSOR_REDUCE_ELEM_ROWS),
     * whose compile it made a second longer, and read such rows element by element. */
    int elem_rows;
} tensor_reduce_kernel_traits;

/* Threads per CTA of an outer (output-vectorised) reduction in the tuned plan: as many as
 * keep a thread's accumulators (OVS x acc bytes) within 16 bytes per 512 threads' share of
 * registers; PyTorch uses 512 / OVS. A macro: the kernel's __launch_bounds__ use it too. */
#define TENSOR_REDUCE_WIDE_THREADS(ovs, acc)                                                      \
    ((ovs) * (acc) <= 16 ? 512 : (ovs) * (acc) <= 32 ? 256 : (ovs) * (acc) <= 64 ? 128 : 64)

/* The short-rows kernel (reduce_kernel.cuh): 256 threads, each lane group of block_width
 * lanes owns a row; every thread folds TENSOR_REDUCE_SHORT_ROWS_FOR(input_vec_size) rows with
 * all their loads issued before the first add (8 for 4- and 8-byte inputs, 4 for 2-byte, 2
 * for 1-byte ones: rows x elements per 16-byte load stays <= 32, which bounds registers and
 * the unrolled code of every instantiation). Used for contiguous rows of at most
 * TENSOR_REDUCE_SHORT_MAX_UNITS loads (vectors, or elements when rows are not 16-byte
 * aligned). */
#define TENSOR_REDUCE_SHORT_THREADS 256
/* Outputs per load along the outputs, at most: the kernel is instantiated for 1, 2 and 4 (as
 * PyTorch), so a plan must not ask for more (tensor_reduce_config_make refuses such traits). */
#define TENSOR_REDUCE_MAX_OUTPUT_VEC 4
/* Independent loads a thread of the general kernel issues before its first add (Reducer::VT0). */
#define TENSOR_REDUCE_VT0 4
/* Vectors of each input a thread loads per round along a contiguous row (the kernel's unroll):
 * several inputs keep four per input in flight (their kernels have 64 registers), one input two
 * (under the 32-register cap). The planner sizes multi-input row CTAs so that a row takes one
 * round per thread where it can. */
#define TENSOR_REDUCE_ROW_UNROLL(nin) ((nin) > 1 ? 4 : 2)
/* The same when some inputs are constant along the row (splat_inputs): such an input costs no
 * load, so two inputs, one of them constant, are one stream of loads and a thread takes eight
 * vectors of it per round (as many bytes in flight as four of each of two streams). */
#define TENSOR_REDUCE_SPLAT_ROW_UNROLL(nin) ((nin) == 2 ? 8 : TENSOR_REDUCE_ROW_UNROLL(nin))
/* The same in the general kernel for rows with an element-read input (elem_inputs): four
 * vectors, two of 1- and 2-byte inputs (each vector of the element-read input is IN_VEC loads
 * in flight, 16 or 8; four such vectors spilled the 48-register kernel). */
#define TENSOR_REDUCE_ELEM_ROW_UNROLL(in_size) ((in_size) <= 2 ? 2 : 4)
/* The same in the lean rows kernel (32 registers), by elements: eight of each of two inputs
 * (two vectors of floats, one of 16-bit values), four of each of more, sixteen of the one
 * loaded stream when the other of two inputs is constant; a vector at least. */
#define TENSOR_REDUCE_LEAN_ELEMS(nin, splat) ((splat) && (nin) == 2 ? 16 : (nin) > 2 ? 4 : 8)
#define TENSOR_REDUCE_LEAN_ROW_UNROLL(nin, splat, vec)                                           \
    (TENSOR_REDUCE_LEAN_ELEMS(nin, splat) / (vec) < 1 ? 1 : TENSOR_REDUCE_LEAN_ELEMS(nin, splat) / (vec))
/* Whether an Op has the lean rows kernel: several inputs, accumulators of at most 4 bytes, or of
 * 8 with 16-bit inputs, or of 8 with inputs of at most 4 bytes when the Op folds a vector's
 * values into one accumulator (chunk: the integer dots; with one accumulator a lane, int8 and
 * int32 inputs spilled under its 32 registers, int64 ones still do); the dynamic tier never.
 * One rule for the built-ins (lean_rows_fits) and run-time compiled sets (chunk 0). */
#define TENSOR_REDUCE_LEAN_ROWS_FIT(nin, acc_size, in_size, chunk)                                \
    ((nin) > 1 && ((acc_size) <= 4 || ((acc_size) == 8 && ((in_size) == 2 || ((chunk) && (in_size) <= 4)))))
/* Whether rows with an element-read input (elem_inputs) of inputs of in_size bytes take the lean
 * plan (lean_elem_kernel): 4-byte ones. 16-bit rows on it, a vector of 8 elements a round, ran
 * slower than on the general kernel (docs/perf_log.md). */
#define TENSOR_REDUCE_LEAN_ELEM_FIT(in_size) ((in_size) == 4)
/* Whether such rows of in_size-byte inputs keep the general kernel's plan (its threads, and its
 * round of TENSOR_REDUCE_ELEM_ROW_UNROLL vectors) but run on lean_elem_kernel: 16-bit ones, the
 * general kernel's loop under 40 registers, so that more CTAs share an SM than under its 48. */
#define TENSOR_REDUCE_ELEM_LEAN_KERNEL(in_size) ((in_size) == 2)
/* Dense rows go to the lean kernel when one round of it needs at most this many threads (its
 * CTAs have at most 512: up to one and a half rounds a thread). */
#define TENSOR_REDUCE_LEAN_MAX_NEED 768
/* Whether the general kernel is compiled with the element-read input of two (traits elem_rows):
 * the built-ins are; the run-time compiler's programs define it 0 first (TT_JIT_ELEM_ROWS). */
#ifndef TENSOR_REDUCE_ELEM_ROWS
#define TENSOR_REDUCE_ELEM_ROWS 1
#endif
/* Warps split a short reduced dim (reduce_config.c, split_height) from this many input elements. */
#define TENSOR_REDUCE_SPLIT_MIN_ELEMS ((int64_t)1 << 20)
#define TENSOR_REDUCE_SHORT_ROWS_FOR(vec) ((32 / (vec)) > 8 ? 8 : (32 / (vec)) < 2 ? 2 : (32 / (vec)))
/* With several inputs a thread loads each row from each of them: as many bytes in flight with
 * fewer rows (at least 2), so that the loads fit in registers (8 rows x 2 inputs spilled). */
#define TENSOR_REDUCE_SHORT_ROWS_N(vec, nin)                                                     \
    (TENSOR_REDUCE_SHORT_ROWS_FOR(vec) / (nin) < 2 ? 2 : TENSOR_REDUCE_SHORT_ROWS_FOR(vec) / (nin))
#define TENSOR_REDUCE_SHORT_MAX_UNITS 64

enum { TENSOR_REDUCE_BLOCK_X = 0, TENSOR_REDUCE_BLOCK_Y = 1, TENSOR_REDUCE_CTA = 2 };

typedef struct tensor_reduce_config {
    int element_size_bytes;  /* acc_size */
    int64_t num_inputs;      /* inputs folded into each output */
    int64_t num_outputs;
    int64_t step_input;      /* stride between a thread's consecutive input indices */
    int64_t step_output;     /* outputs covered by one CTA (in output vectors) */
    int64_t ctas_per_output; /* CTAs along grid.y sharing each output (global reduce when > 1) */
    int64_t input_mult[3];   /* per (lane, warp, cta): multiplier into the input index, 0 = splits outputs */
    int64_t output_mult[2];  /* per (lane, warp): multiplier into the output index, 0 = splits input */
    int block_width;
    int block_height;
    int num_threads;
    bool reduce_fastest;     /* the reduced dim is the fastest-moving one in memory */
    bool vectorize_input;
    int input_vec_size;
    int output_vec_size;
    int vt0;
    int64_t grid[2];
    int64_t values_per_thread;
    int64_t shared_memory_bytes;
    int64_t staging_bytes;   /* global-reduce partials (0 when ctas_per_output == 1) */
    int64_t semaphore_bytes; /* one uint32 counter per output column of CTAs */
    /* Short-rows kernel (tuned plans only): block {lanes per row, rows}, grid.x CTAs of
     * block_height x TENSOR_REDUCE_SHORT_ROWS_FOR(input_vec_size) rows; short_vec elements per lane load (16 bytes'
     * worth when every row starts 16-byte aligned and holds whole vectors, else 1). */
    bool short_rows;
    int short_vec;
    /* Tile mode of the short-rows kernel: dense rows (one kept dim, row stride = row bytes) of
     * at most TENSOR_REDUCE_TILE_MAX_ROW_BYTES that are not whole 16-byte vectors (4M x 7
     * float32): each CTA copies step_output consecutive rows into shared memory with 16-byte
     * loads, then each thread folds whole rows from there; block {1, 256}. */
    bool short_tile;
    /* Dense-rows path of the general kernel (several inputs, rows along the fastest dim): each
     * row folded whole by one CTA (its lanes and warps stride over the row in vectors, then one
     * shuffle tree per warp and one over the warps) or, with warp_rows, by one warp. The threads
     * of a row are sized for one round of loads (TENSOR_REDUCE_ROW_UNROLL vectors of each input
     * per thread): a warp for rows of up to 32 rounds' worth, else a CTA of 64 to 512 threads. */
    bool dense_rows;
    /* Dense rows where each warp folds one row (block {32, H}: H rows a CTA): no shared memory
     * and no barrier, a shuffle tree per warp. */
    bool warp_rows;
    /* Dense rows (CTA rows) run by a lean rows kernel (traits.lean_rows): lean_rows_kernel, or
     * for rows with an element-read input lean_elem_kernel (the lean plan for 4-byte values, the
     * general plan for 16-bit ones: TENSOR_REDUCE_ELEM_LEAN_KERNEL). */
    bool lean_rows;
    /* The lean kernel's wide round (traits.lean_rows == 2: 16-bit inputs, aligned rows): twice
     * TENSOR_REDUCE_LEAN_ROW_UNROLL vectors of each input a round. */
    bool lean_wide;
    /* Rows of several inputs along the fastest dim, each split over a column of CTAs of whole
     * warps (a 1-D dot, a few long rows): CTA (x, y) folds part y of row x; its threads fold
     * with shuffles and one barrier, and only its warp 0 takes the global step (the general
     * path's tree over the warps took two barriers a level). */
    bool flat_reduce;
    /* Inputs (bit q: input q) constant along the vectorized dim, so that the other inputs keep
     * their vector loads: in a vectorized row plan, stride 0 along the reduced dim (b of
     * [R, N] x [R, 1] over dim 1; the kernel reads one element of it a row and repeats it in
     * every vector); with output_vec_size > 1, two inputs and one reduced dim, stride 0 along
     * the first kept dim (b of [R, N] x [R, 1] over dim 0; one element of it serves the
     * vector's outputs). */
    uint32_t splat_inputs;
    /* Two inputs in a vectorized row plan whose rows do not start alike modulo a vector (a
     * broadcast row of odd length beside a's rows): bit q marks the one read element by element
     * within the other's vectors (the broadcast one when there is one, else input 1). */
    uint32_t elem_inputs;
    /* Inputs of two layouts (tuned plans, several inputs, one reduced dim): some inputs are
     * contiguous along the reduced dim (bit q: input q, such as b of a.t() x b), at least one
     * other along the outputs (a.t()). Whichever dim the plan put on the lanes, one of them would
     * read an element per 32-byte sector. Here lanes take neighbouring outputs (the second kind
     * coalesced) and a thread takes TENSOR_REDUCE_RVEC_CHUNK consecutive reduced elements per
     * step: the first kind's 16 or 32 bytes of a row, as 16-byte loads when rvec_aligned (each such
     * input's data and kept strides are multiples of 16 bytes), else element by element. The
     * plan's input multipliers and step count elements; each is a multiple of the chunk. */
    uint32_t rvec_inputs;
    bool rvec_aligned;
    /* Two layouts, two inputs, one kept dim (rvec_inputs is 1 or 2): the reduced dim cut into
     * grid[1] chunks of step_input elements, CTA (x, y) folding outputs
     * [TENSOR_REDUCE_RTILE_OUTPUTS x, ... + TENSOR_REDUCE_RTILE_OUTPUTS) over chunk y a tile of
     * TENSOR_REDUCE_RTILE_ROWS reduced elements at a time: the input contiguous along the
     * outputs staged in shared memory a row of outputs per warp load, the other read along its
     * rows, so both inputs are read in whole lines. Each CTA writes one partial per output and
     * chunk; the column's last CTA folds them in a fixed order. block {32,
     * TENSOR_REDUCE_RTILE_WARPS}; its own kernel (rtiles_kernel), for the Ops
     * TENSOR_REDUCE_RTILES_FIT admits. */
    bool rvec_tiles;
} tensor_reduce_config;

/* The Ops that have the tile kernel: two inputs of 4 or 8 bytes. One rule for the planner, the
 * built-in kernel sets and the run-time compiled ones. */
#define TENSOR_REDUCE_RTILES_FIT(nin, in_size) ((nin) == 2 && (in_size) >= 4)
/* The two-layout tile plan's geometry (rvec_tiles): outputs per CTA (a warp load of the staged
 * input), warps per CTA, reduced elements per tile (a lane takes two of them per output for
 * elements of 4 bytes, one for 8-byte ones), the staged tile's row pitch in elements (a word or
 * two of padding: a warp reading one column of the tile hits 32 banks). */
#define TENSOR_REDUCE_RTILE_OUTPUTS 32
#define TENSOR_REDUCE_RTILE_WARPS 8
#define TENSOR_REDUCE_RTILE_ROWS(size) ((size) >= 8 ? 32 : 64)
#define TENSOR_REDUCE_RTILE_PITCH (TENSOR_REDUCE_RTILE_OUTPUTS + 1)

/* Consecutive reduced elements a thread of a two-layout plan (rvec_inputs) takes per step: 32
 * bytes (a sector) of 4- and 8-byte elements; 16 bytes of smaller ones, whose 32 bytes' worth
 * of elements of the other inputs (one register each) spilled the bfloat16 kernel. */
#define TENSOR_REDUCE_RVEC_CHUNK(size) ((size) >= 4 ? 32 / (size) : 16 / (size))

#define TENSOR_REDUCE_TILE_MAX_ROW_BYTES 64
#define TENSOR_REDUCE_TILE_BYTES 32768 /* shared memory per CTA, at most */

/* Plans a reduction iterator (built, reduction flag set, one input) for a device. Errors:
 * NULL arguments, a non-reduction iterator, numel 0, bad traits. */
tensor_status tensor_reduce_config_make(const tensor_iter_t *iter, const tensor_cuda_props *props,
                                        const tensor_reduce_kernel_traits *traits, tensor_reduce_config *out);

bool tensor_reduce_config_block_x_reduce(const tensor_reduce_config *c);
bool tensor_reduce_config_block_y_reduce(const tensor_reduce_config *c);
bool tensor_reduce_config_global_reduce(const tensor_reduce_config *c);

/* Kernels of several inputs whose inputs read once add up to at most this many bytes load them
 * with cache hints; an input read again gets evict-last when it has at most ..._EVICT_LAST_MAX_BYTES
 * (docs/cuda_reduce.md, "Cache hints"). */
#define TENSOR_REDUCE_EVICT_FIRST_MAX_BYTES ((int64_t)256 << 20)
#define TENSOR_REDUCE_EVICT_LAST_MAX_BYTES ((int64_t)8 << 20)

/* Per-kernel caches of the occupancy calculator's answer (the built-ins' and the JIT's) keep a
 * slot per power-of-two block size, 1 to 1024 threads; other sizes are asked every time. */
#define TENSOR_REDUCE_RESIDENT_SLOTS 11
/* The slot of a block of `threads` threads, or -1 when it has none. */
static inline int tensor_reduce_resident_slot(int threads) {
    for (int i = 0; i < TENSOR_REDUCE_RESIDENT_SLOTS; i++)
        if ((1 << i) == threads) return i;
    return -1;
}

/* The cache hints of a kernel of several inputs (bit q: input q), when the bytes of the inputs
 * read once add up to at most TENSOR_REDUCE_EVICT_FIRST_MAX_BYTES (else both 0, as for one
 * input; a broadcast input's bytes do not count, they are read from L2 again): evict_first
 * for an input each of whose elements is read once; evict_last for an input read again (a
 * stride 0 over a dim of size > 1: broadcast) of at most TENSOR_REDUCE_EVICT_LAST_MAX_BYTES. */
void tensor_reduce_config_cache_hints(const tensor_iter_t *iter, uint32_t *evict_first, uint32_t *evict_last);

/* Dense rows (c->dense_rows) that every input holds as whole 16-byte vectors: the kept dims are
 * one (or none), each input's data and row stride are multiples of 16 bytes, its reduced dim is
 * contiguous, and a row is a whole number of vectors; an input of c->splat_inputs (one element a
 * row, any alignment) needs only a row stride >= 0. Then the kernel finds a row's bases from the
 * row index alone (no offset calculator, no unaligned head or tail) and the result is the same,
 * bit for bit, as the dense-rows path's. Returns the vectors per row, or 0 when any of this
 * fails. */
int64_t tensor_reduce_config_row_vectors(const tensor_reduce_config *c, const tensor_iter_t *iter);

/* A readable one-paragraph form for explain; snprintf contract. */
int64_t tensor_reduce_config_format(const tensor_reduce_config *c, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
