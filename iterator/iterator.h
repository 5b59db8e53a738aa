/* The TensorIterator: turns "these tensors, this op" into an iteration plan (a computation
 * shape, per-operand byte strides, data pointers, dtypes), and runs plans on the CPU.
 *
 * The pipeline (docs/iterator.md walks through it with numbers):
 *   config (outputs, then inputs, flags) -> tensor_iter_build():
 *   broadcast shape -> common dtype -> byte strides -> permute (fastest dim first; reduced
 *   dims first) -> allocate undefined outputs in the inputs' layout -> coalesce.
 *
 * Vocabulary:
 *  - "logical" dims are the broadcast shape's dims, in the user's order (outputs keep it);
 *  - "computation" dims are the iterator's: permuted so dim 0 moves fastest in memory, then
 *    coalesced. Shapes and strides exposed by the iterator are computation dims; dim 0 is the
 *    innermost (fastest) one, as in PyTorch and in iterator/offset_calc.h.
 *  - Operands are outputs first, then inputs; "arg" indexes that combined list.
 *
 * Ownership, everywhere in this header:
 *  - tensor_t * arguments are BORROWED unless stated; a config and an iterator RETAIN the
 *    tensors they are given and release them when freed.
 *  - A function returning tensor_t * returns a NEW reference (release it); one returning
 *    tensor_iter_t * / tensor_iter_config * returns a new object (free it).
 *  - Pointers into an iterator (shape, strides, perm) are borrowed, valid while it lives and
 *    is not modified (narrow/split).
 *  - Every function accepts NULL for its object argument without crashing: it records
 *    TENSOR_ERR_INVALID_ARGUMENT (or returns 0/NULL/false as documented).
 *
 * Limits: at most TENSOR_ITER_MAX_OPERANDS operands, TENSOR_MAX_DIMS dims. Negative strides
 * are not supported (runtime tensors cannot have them). */
#ifndef TENSOR_ITERATOR_H
#define TENSOR_ITERATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tinytensor/runtime/export.h"
#include "tinytensor/runtime/status.h"
#include "tinytensor/runtime/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Operands per iterator (outputs + inputs). Enough for 2 outputs + 3 inputs with room. */
#define TENSOR_ITER_MAX_OPERANDS 8
/* Minimum elements per CPU task: below this, for_each runs on the calling thread. */
#define TENSOR_ITER_GRAIN_SIZE 32768
/* Default limit of tensor_iter_can_use_32bit_indexing: element counts and every operand's
 * 1 + largest byte offset must not exceed it (so every index and offset is < 2^31). */
#define TENSOR_ITER_INDEX32_LIMIT INT64_C(2147483647)

/* ======================================================================================
 * Threads
 * ====================================================================================== */

/* The most threads a parallel loop uses: an OpenMP team of tens of thousands of threads
 * overflows the runtime's stacks and crashes the process. */
#define TENSOR_MAX_THREADS 1024

/* Threads used by tensor_iter_for_each and tensor_iter_reduce_run (and the ops built on
 * them). 1 <= n <= TENSOR_MAX_THREADS sets the count; n == 0 restores the default
 * (omp_get_max_threads(), which follows OMP_NUM_THREADS, capped at TENSOR_MAX_THREADS); any
 * other n is TENSOR_ERR_INVALID_ARGUMENT and changes nothing. Process-wide. Without OpenMP the
 * count is always 1 (the setting is accepted and ignored). */
TENSOR_API tensor_status tensor_set_num_threads(int n);
/* The thread count that parallel loops will use now (>= 1). */
TENSOR_API int tensor_get_num_threads(void);

/* ======================================================================================
 * Config
 * ====================================================================================== */

/* Flags of a config (bitwise OR). Defaults: SAME_DEVICE | SAME_DTYPE | CHECK_OVERLAP. */
typedef enum tensor_iter_flag {
    /* Reduction semantics: outputs are smaller than the shape (size 1 = reduced), viewed
     * with stride 0 on reduced dims; reduced dims are ordered first and never coalesced with
     * kept dims. Set implicitly by tensor_iter_config_reduce_dims. */
    TENSOR_ITER_REDUCTION = 1u << 0,
    /* Compute a common dtype from the inputs (PyTorch's rule: 0-d inputs are weak) and allow
     * inputs of different dtypes. Kernels convert while loading; nothing is copied. */
    TENSOR_ITER_PROMOTE_INPUTS = 1u << 1,
    /* With PROMOTE_INPUTS: an integral or bool common dtype becomes float32. */
    TENSOR_ITER_PROMOTE_INT_TO_FLOAT = 1u << 2,
    /* Allow defined outputs whose dtype differs from the common dtype when the cast is safe
     * (no float -> integer, no non-bool -> bool); kernels convert while storing. Without it
     * an output must have the common dtype (unless declared with add_output_dtype). */
    TENSOR_ITER_CAST_TO_OUTPUTS = 1u << 3,
    /* All defined operands on one device (default on). */
    TENSOR_ITER_SAME_DEVICE = 1u << 4,
    /* All defined operands of one dtype (default on; ignored when PROMOTE_INPUTS or
     * CAST_TO_OUTPUTS is set, as in PyTorch). */
    TENSOR_ITER_SAME_DTYPE = 1u << 5,
    /* Outputs must not overlap themselves (two elements at one address) nor share memory
     * with an input other than element for element (full aliasing, i.e. in place, is fine).
     * Default on. Decided for every layout, dense or not (PyTorch lets non-dense overlaps
     * through and may compute from overwritten values); views too large to decide exactly
     * (more than 2^20 address runs) are refused rather than guessed. */
    TENSOR_ITER_CHECK_OVERLAP = 1u << 6,
    /* No permutation: computation dim 0 is the last logical dim (C order). Reductions still
     * put their reduced dims first (C order among them). Coalescing still happens. Use it
     * when an op needs row-major linear indices (argmax over all dims). */
    TENSOR_ITER_LINEAR = 1u << 7,
    /* With SAME_DEVICE: an input that is a 0-d CPU tensor may join operands on a CUDA device
     * (PyTorch's CPU scalars); the kernel reads it on the host and passes it by value. */
    TENSOR_ITER_ALLOW_CPU_SCALARS = 1u << 8
} tensor_iter_flag;

#define TENSOR_ITER_DEFAULT_FLAGS (TENSOR_ITER_SAME_DEVICE | TENSOR_ITER_SAME_DTYPE | TENSOR_ITER_CHECK_OVERLAP)

typedef struct tensor_iter_config tensor_iter_config;

/* A new, empty config with the default flags, or NULL (host OOM). `name` (may be NULL) is
 * the function name that prefixes every error message ("tensor_sum: ..."); it is copied. */
TENSOR_API tensor_iter_config *tensor_iter_config_new(const char *name);
/* Releases the config and the tensor references it holds. NULL is a no-op. */
TENSOR_API void tensor_iter_config_free(tensor_iter_config *cfg);

/* Adding operands: outputs first, then inputs (an output added after an input is an error).
 * Every add retains its tensor. A failing add records the error in the config too, so that
 * tensor_iter_build fails with the same message: callers may check only the build. */

/* Adds an output. out == NULL: undefined, allocated by build (dtype: the common dtype).
 * A defined output must have the broadcast shape (reductions: see reduce_dims). */
TENSOR_API tensor_status tensor_iter_config_add_output(tensor_iter_config *cfg, tensor_t *out);
/* Adds an output that must have (or is allocated with) exactly `dtype`, whatever the common
 * dtype: reductions use it (int32 in -> int64 out; float values + int64 indices). */
TENSOR_API tensor_status tensor_iter_config_add_output_dtype(tensor_iter_config *cfg, tensor_t *out,
                                                            tensor_dtype dtype);
/* Adds an input (must not be NULL). */
TENSOR_API tensor_status tensor_iter_config_add_input(tensor_iter_config *cfg, const tensor_t *in);

/* Turns flags on / off. */
TENSOR_API tensor_status tensor_iter_config_enable(tensor_iter_config *cfg, unsigned flags);
TENSOR_API tensor_status tensor_iter_config_disable(tensor_iter_config *cfg, unsigned flags);

/* Declares the shape instead of broadcasting: every input must broadcast to it and every
 * defined output must have it. ndim in [0, TENSOR_MAX_DIMS]; sizes are copied. */
TENSOR_API tensor_status tensor_iter_config_declare_static_shape(tensor_iter_config *cfg, int ndim,
                                                                 const int64_t *sizes);

/* Makes the config a reduction over `dims` of the (broadcast) input shape and sets
 * TENSOR_ITER_REDUCTION. dims are wrapped and checked at build time against the input rank
 * (a 0-d input counts as rank 1; PyTorch's messages for out-of-range and duplicate dims).
 * dims == NULL or ndims == 0 means all dims. dims are copied.
 * Outputs: a defined output must have the keepdim shape (reduced dims size 1), or, when
 * keepdim is false, the shape without the reduced dims; undefined outputs are allocated with
 * the shape keepdim asks for, in the input's memory order. All outputs must have the same
 * shape (values + indices).
 * Without this call a TENSOR_ITER_REDUCTION config takes each defined output as already
 * viewed: same rank as the shape, size 1 on the reduced dims (PyTorch's review_reduce_result). */
TENSOR_API tensor_status tensor_iter_config_reduce_dims(tensor_iter_config *cfg, const int *dims, int ndims,
                                                        bool keepdim);

/* ======================================================================================
 * The iterator
 * ====================================================================================== */

/* The plan: an opaque object. Read it through the accessors below (tensor_iter_ndim,
 * tensor_iter_shape, tensor_iter_data, tensor_iter_strides, ...); its layout is private to the
 * library and may change in any release. */
typedef struct tensor_iter tensor_iter_t;

/* Builds an iterator from cfg (borrowed; reusable afterwards). Returns a new iterator, or
 * NULL with the last error set: TENSOR_ERR_SHAPE (broadcast mismatch, with PyTorch's text
 * "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension
 * 1"; wrong output shape), TENSOR_ERR_INDEX (reduce dim out of range), TENSOR_ERR_DTYPE,
 * TENSOR_ERR_DEVICE (mixed devices), TENSOR_ERR_INVALID_ARGUMENT (no operands, duplicate
 * dims, overlap), TENSOR_ERR_OVERFLOW (a broadcast shape whose non-zero sizes multiply past
 * int64, the rule tensor shapes follow; a byte count or stride past int64),
 * TENSOR_ERR_OUT_OF_MEMORY. Nothing leaks on failure. */
TENSOR_API tensor_iter_t *tensor_iter_build(const tensor_iter_config *cfg);

/* Convenience: a reduction over one input. out may be NULL (allocated with out_dtype);
 * dims/ndims/keepdim as in tensor_iter_config_reduce_dims. Flags: REDUCTION |
 * PROMOTE_INPUTS | CHECK_OVERLAP | SAME_DEVICE. Returns a new iterator or NULL. */
TENSOR_API tensor_iter_t *tensor_iter_reduce_new(const char *name, tensor_t *out, const tensor_t *in,
                                                 const int *dims, int ndims, bool keepdim, tensor_dtype out_dtype);

/* Frees the iterator and releases its tensors. NULL is a no-op. */
TENSOR_API void tensor_iter_free(tensor_iter_t *iter);
/* A deep copy (retains the tensors), or NULL on OOM / NULL iter. */
TENSOR_API tensor_iter_t *tensor_iter_copy(const tensor_iter_t *iter);

/* ---- accessors (borrow iter; a NULL iter gives 0 / NULL / false) ---- */
TENSOR_API int tensor_iter_ndim(const tensor_iter_t *iter);
TENSOR_API const int64_t *tensor_iter_shape(const tensor_iter_t *iter);
TENSOR_API int64_t tensor_iter_numel(const tensor_iter_t *iter);
TENSOR_API int tensor_iter_ntensors(const tensor_iter_t *iter);
TENSOR_API int tensor_iter_noutputs(const tensor_iter_t *iter);
TENSOR_API int tensor_iter_ninputs(const tensor_iter_t *iter);
/* Per operand (arg in [0, ntensors)); out of range gives NULL / TENSOR_NUM_DTYPES. */
TENSOR_API void *tensor_iter_data(const tensor_iter_t *iter, int arg);
TENSOR_API const int64_t *tensor_iter_strides(const tensor_iter_t *iter, int arg); /* bytes, ndim entries */
TENSOR_API tensor_dtype tensor_iter_dtype(const tensor_iter_t *iter, int arg);
TENSOR_API tensor_dtype tensor_iter_common_dtype(const tensor_iter_t *iter);
TENSOR_API tensor_device tensor_iter_device(const tensor_iter_t *iter);
/* Output i's tensor (given or allocated): a NEW reference, or NULL if i is out of range. */
TENSOR_API tensor_t *tensor_iter_output(const tensor_iter_t *iter, int i);
/* Input i's tensor: a NEW reference, or NULL. */
TENSOR_API tensor_t *tensor_iter_input(const tensor_iter_t *iter, int i);
/* The permutation before coalescing (logical dim per computation position, fastest first);
 * *n receives its length (the logical rank). Borrowed. */
TENSOR_API const int *tensor_iter_perm(const tensor_iter_t *iter, int *n);
/* true when the iteration is 1-D (or 0-d / 1 element) and every operand is dense in it
 * (stride == element size). A broadcast operand makes it false. */
TENSOR_API bool tensor_iter_is_contiguous(const tensor_iter_t *iter);

/* ---- reductions ---- */
TENSOR_API bool tensor_iter_is_reduction(const tensor_iter_t *iter);
/* Count of leading computation dims where output 0 has stride 0 (the reduced dims; they
 * are a prefix: [0, num_reduce_dims) reduced, the rest kept). */
TENSOR_API int tensor_iter_num_reduce_dims(const tensor_iter_t *iter);
/* true when some output has stride 0 on computation dim `dim` and its size is > 1. */
TENSOR_API bool tensor_iter_is_dim_reduced(const tensor_iter_t *iter, int dim);
/* Product of the computation sizes where output 0's stride is non-zero or the size is 0. */
TENSOR_API int64_t tensor_iter_num_output_elements(const tensor_iter_t *iter);
TENSOR_API bool tensor_iter_accumulate(const tensor_iter_t *iter);
TENSOR_API bool tensor_iter_final_output(const tensor_iter_t *iter);
TENSOR_API const int64_t *tensor_iter_view_offsets(const tensor_iter_t *iter); /* ndim entries */
/* Linear index, in the built iterator's reduced index space (computation order, dim 0
 * fastest, over base_shape), of this piece's first reduced element. Arg-reductions add it
 * to their local index; exact when the piece's reduced dims other than the outermost split
 * one are whole (always so with one reduced dim). */
TENSOR_API int64_t tensor_iter_reduce_index_base(const tensor_iter_t *iter);

/* ---- narrowing and 32-bit splitting ---- */
/* Restricts computation dim `dim` to [start, start + size): shape shrinks, data pointers
 * advance, view_offsets[dim] grows by start. No re-coalescing. Errors: bad dim/range. */
TENSOR_API tensor_status tensor_iter_narrow(tensor_iter_t *iter, int dim, int64_t start, int64_t size);
/* true when numel <= limit and every operand's 1 + largest byte offset <= limit. */
TENSOR_API bool tensor_iter_fits_index_limit(const tensor_iter_t *iter, int64_t limit);
/* tensor_iter_fits_index_limit(iter, TENSOR_ITER_INDEX32_LIMIT). */
TENSOR_API bool tensor_iter_can_use_32bit_indexing(const tensor_iter_t *iter);
/* The dim to split: the one with the largest (size - 1) * stride over operands (ties: the
 * outer dim), among dims of size >= 2; -1 if none. */
TENSOR_API int tensor_iter_dim_to_split(const tensor_iter_t *iter);
/* Splits iter along `dim` (size >= 2): returns a NEW iterator holding the first
 * floor(size/2) indices, and narrows iter to the rest. When the dim is reduced, the first
 * half gets final_output = false and iter gets accumulate = true. NULL on error. */
TENSOR_API tensor_iter_t *tensor_iter_split(tensor_iter_t *iter, int dim);

/* Walks the pieces of an iterator split until each fits `limit` (PyTorch's
 * SplitUntil32Bit): depth first, first half before second, so pieces come in increasing
 * order along every split dim, which the accumulate/final_output protocol relies on. */
typedef struct tensor_iter_splitter tensor_iter_splitter;
/* A new splitter over a copy of iter (iter is borrowed and may be freed after), or NULL.
 * limit must be >= 1 (TENSOR_ITER_INDEX32_LIMIT for real 32-bit kernels; tests use small
 * values). */
TENSOR_API tensor_iter_splitter *tensor_iter_splitter_new(const tensor_iter_t *iter, int64_t limit);
/* Sets *piece to the next piece (borrowed: valid until the next call or free), or to NULL
 * when all pieces were handed out. Returns an error status (and *piece NULL) on OOM. */
TENSOR_API tensor_status tensor_iter_splitter_next(tensor_iter_splitter *s, const tensor_iter_t **piece);
TENSOR_API void tensor_iter_splitter_free(tensor_iter_splitter *s);
/* Number of pieces tensor_iter_splitter would produce (>= 1), or -1 on error. */
TENSOR_API int64_t tensor_iter_count_pieces(const tensor_iter_t *iter, int64_t limit);

/* ======================================================================================
 * CPU loops
 * ====================================================================================== */

/* The inner loop. Called with a 2-D block of size0 (inner, computation dim 0) x size1
 * (outer, computation dim 1) elements:
 *   data[arg]                 address of block element (0, 0) of operand arg;
 *   strides[arg]              byte step along size0 of operand arg;
 *   strides[ntensors + arg]   byte step along size1 (PyTorch's layout: all inner strides,
 *                             then all outer strides).
 * So element (i, j) of operand a is at data[a] + i * strides[a] + j * strides[n + a].
 * Higher dims are walked by the driver. ntensors = the iterator's operand count. */
typedef void (*tensor_iter_loop2d_fn)(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *ctx);

/* Runs loop over linear computation indices [begin, end) (dim 0 fastest) on this thread.
 * Blocks may start or end mid-row. end is clamped to numel. */
TENSOR_API tensor_status tensor_iter_serial_for_each(const tensor_iter_t *iter, tensor_iter_loop2d_fn loop,
                                                     void *ctx, int64_t begin, int64_t end);
/* Runs loop over the whole iterator, in parallel when numel >= grain_size (<= 0 means
 * TENSOR_ITER_GRAIN_SIZE) and more than one thread is available. Elementwise iterators are
 * cut into contiguous linear ranges; reduction iterators with reduced dims are cut along a
 * kept dim only, so each output element is visited by one thread (a loop that does
 * out += f(in) is race-free). Calls from inside a parallel region run serially. */
TENSOR_API tensor_status tensor_iter_for_each(const tensor_iter_t *iter, tensor_iter_loop2d_fn loop, void *ctx,
                                              int64_t grain_size);

/* ---- the reduction driver ----
 * Reduces a reduction iterator into its outputs through per-output accumulators of
 * acc_size bytes, with a result that is bitwise the same for any thread count:
 *
 *  1. The reduced index space is cut into C chunks along one reduced dim. C depends only on
 *     the shape (about TENSOR_ITER_GRAIN_SIZE reduced elements per chunk; C = 1 for short
 *     reductions), never on the thread count. Each chunk has its own accumulator buffer of
 *     num_output_elements accumulators, set by init().
 *  2. Tasks (chunk x group of outputs along a kept dim) call loop() on 2-D blocks; a task
 *     owns its chunk's accumulators for its outputs, so no two threads touch one.
 *  3. For each output, chunk buffers are folded in chunk order: acc0 = combine(acc0, acc1),
 *     then acc2, ... (left to right, fixed).
 *  4. project() writes the final accumulators into the outputs.
 * With C = 1 and more than 64 KiB of accumulators, the kept index space is instead cut
 * into slabs of about 64 KiB of accumulators (a cut that depends only on the shape); each
 * slab is init()ed, reduced and project()ed in a reused buffer, so project() is called
 * per slab.
 *
 * Block dims: dim 0 of a block is computation dim 0. Dim 1 is computation dim 1, except
 * when dim 0 is reduced and a kept dim has a smaller input stride than dim 0: then the kept
 * dim with the smallest input stride (an "outer" block: rows of a kept dim, one row per
 * reduced index). Blocks are walked with the remaining dims ordered by input stride, the
 * reduced dims in computation order, so each output meets its elements in increasing
 * reduced index; pos gives the reduced indices of the block's elements in every case.
 *
 * For 1 vs N threads to agree bitwise, loop() must update each accumulator from its own
 * elements only, in a way that does not depend on size1 or on the accumulator's position
 * in the block (it may vectorise across outputs; it must not reorder one output's terms
 * depending on how many outputs share the block; size1 may be 1 where the full dim is
 * longer). The chunking and the block shapes along reduced dims do not depend on the
 * thread count. */

/* Where a reduce-loop block sits in the reduced index space: the reduced linear index
 * (computation order, dim 0 fastest, over the built shape) of block element (i, j) is
 *   index0 + i * index_stride0 + j * index_stride1.
 * index_stride0 is 1 when dim 0 is reduced, else 0; index_stride1 is the size of dim 0
 * when block dims 0 and 1 are both reduced, else 0 (block dim 1 kept). Arg-reductions use
 * it for indices. */
typedef struct tensor_iter_reduce_pos {
    int64_t index0;
    int64_t index_stride0;
    int64_t index_stride1;
} tensor_iter_reduce_pos;

typedef struct tensor_iter_reduce_ops {
    /* Bytes per accumulator (> 0). Accumulators are packed acc_size apart in 64-byte
     * aligned buffers: make acc_size a multiple of the accumulator's alignment. */
    size_t acc_size;
    /* Sets n packed accumulators at acc to the identity. */
    void (*init)(void *acc, int64_t n, void *ctx);
    /* Folds a block of inputs into accumulators. Operands: data[0] = accumulators (stride 0
     * along reduced dims, so all elements of one output meet in one accumulator),
     * data[1 .. ninputs] = the iterator's inputs; strides as tensor_iter_loop2d_fn with
     * ntensors = 1 + ninputs. */
    void (*loop)(char **data, const int64_t *strides, int64_t size0, int64_t size1,
                 const tensor_iter_reduce_pos *pos, void *ctx);
    /* acc[k] = combine(acc[k], later[k]) for n packed accumulators; `acc` holds the earlier
     * part of the reduced index space (arg-reductions keep the first index on ties). May be
     * NULL when C is always 1 for the caller's shapes; the driver then fails with
     * TENSOR_ERR_INVALID_ARGUMENT if it needs to combine. */
    void (*combine)(void *acc, const void *later, int64_t n, void *ctx);
    /* Writes final values: a tensor_iter_loop2d_fn over the kept dims with operands
     * data[0 .. noutputs) = outputs, data[noutputs] = accumulators. */
    tensor_iter_loop2d_fn project;
    void *ctx;
} tensor_iter_reduce_ops;

/* Runs the reduction described above. iter is borrowed (not modified); its outputs receive
 * the result. An empty reduced dim gives init()'s identity projected; no outputs: nothing.
 * Errors: NULL arguments, acc_size 0, missing loop/init/project, a non-CPU iterator,
 * TENSOR_ERR_OUT_OF_MEMORY (accumulators). */
TENSOR_API tensor_status tensor_iter_reduce_run(const tensor_iter_t *iter, const tensor_iter_reduce_ops *ops);

/* The chunk count the driver uses for this iterator (1 = no split of the reduced dims), and
 * the dim it cuts (-1 if none). For tests and explain. */
TENSOR_API int64_t tensor_iter_reduce_num_chunks(const tensor_iter_t *iter, int *chunk_dim);

/* ======================================================================================
 * Explain
 * ====================================================================================== */

/* Writes a readable plan of iter into buf: operands (role, dtype, byte strides, tensor
 * shape), logical shape, permutation and how dims were coalesced, computation shape,
 * reduced dims, output count, flags, the CPU reduction chunks and the 32-bit pieces.
 * Writes at most size bytes including the NUL (buf may be NULL when size is 0); returns the
 * length the full text needs (excluding the NUL), like snprintf, or -1 on error. */
TENSOR_API int64_t tensor_iter_explain(const tensor_iter_t *iter, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
