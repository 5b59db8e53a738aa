/* The functor contract of a reduction defined at run time: the callbacks a backend calls and
 * what ops/ hands its TENSOR_OP_USER_REDUCE kernel for one call (through
 * tensor_kernel_params.reduction). Public types (ops/reduction.h defines reductions with them);
 * tensor_user_reduce_call is for backends. */
#ifndef TENSOR_CONTRACT_USER_REDUCTION_H
#define TENSOR_CONTRACT_USER_REDUCTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tinytensor/runtime/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TENSOR_REDUCTION_MAX_INPUTS 4
#define TENSOR_REDUCTION_MAX_ACC_SIZE 256
/* Where the CPU cuts what it hands a fold: a run that the library converts in tiles is cut at
 * multiples of this many elements of the reduced index (index % TENSOR_REDUCTION_BLOCK == 0),
 * so a fold that anchors its own blocks there (the kit's) does the same arithmetic whether it
 * gets a whole run or the run's tiles. */
#define TENSOR_REDUCTION_BLOCK 2048

/* The value type the inputs are converted to while loading, chosen by the RESULT dtype:
 * float32 for float32 / float16 / bfloat16 / float8 results, float64 for float64, int64
 * (wrapping) for integer and bool results. Each input element goes through the result dtype's
 * value set first (PyTorch's "cast to dtype=, then reduce"). */
typedef enum tensor_reduction_value {
    TENSOR_REDUCTION_F32 = 0, /* values are float */
    TENSOR_REDUCTION_F64 = 1, /* values are double */
    TENSOR_REDUCTION_I64 = 2, /* values are int64_t */
    TENSOR_REDUCTION_NUM_VALUES
} tensor_reduction_value;

/* A functor's source, for the GPU: the library compiles it at run time (NVRTC) into the CUDA
 * reduction engine, so that a user reduction runs on CUDA tensors with no rebuild. `code` is C
 * (compiled as CUDA C++ in which every function without an execution space is a device
 * function; it may include the installed tinytensor headers, e.g. "ops/functors/common.h")
 * defining the five per-element functions that ops/reduction_kit.h's TENSOR_REDUCTION_FNS takes
 * (identity, map, reduce, combine, project) over the value type of the slot and the
 * accumulator type `acc_type` (a type name `code` defines, or float, double, int64_t). All
 * strings are borrowed: they must outlive the registration. */
typedef struct tensor_reduction_source {
    const char *code;
    const char *acc_type;
    const char *identity; /* ACC identity(void) */
    const char *map;      /* VAL map(const VAL *x): x[k] is input k's element */
    const char *reduce;   /* ACC reduce(ACC acc, VAL v) */
    const char *combine;  /* ACC combine(ACC earlier, ACC later) */
    const char *project;  /* VAL project(ACC acc, int64_t count) */
} tensor_reduction_source;

/* The callbacks of one value type. `acc` points to acc_size bytes aligned to the smaller of 16
 * and acc_size rounded up to a power of two (so suitably for any type of at most acc_size
 * bytes); `user` is the definition's user pointer. */
typedef struct tensor_reduction_fns {
    /* *acc = the identity. */
    void (*init)(void *acc, const void *user);
    /* Folds n elements into *acc, in index order. vals[k] points to n values of input k (in the
     * value type); their positions in the reduced index space are first, first + 1, ... */
    void (*fold)(void *acc, const void *const *vals, int64_t n, int64_t first, const void *user);
    /* *acc = combine(*acc, *later); *acc holds the earlier part of the reduced index space. */
    void (*combine)(void *acc, const void *later, const void *user);
    /* *result (one value of the value type) = the final value of *acc; count: the number of
     * elements reduced into this output (a mean divides by it). */
    void (*project)(const void *acc, int64_t count, void *result, const void *user);
    /* Optional (NULL: the reduction runs on the CPU only): the same functor as source, for CUDA
     * tensors. TENSOR_REDUCTION_FNS_SOURCE fills it. */
    const tensor_reduction_source *source;
    /* Optional (NULL: the library converts into buffers for fold): fold's work on inputs still
     * in memory as `stored` (TENSOR_BFLOAT16 or TENSOR_FLOAT16, every input the same, each
     * elems[k] n contiguous elements), each element converted to float exactly as
     * tensor_bf16_to_f32 / tensor_f16_to_f32 do. Called for the float value type only, where
     * the result dtype holds the inputs' values (no rounding on the way in). It lets the
     * conversion happen in registers, in the user's loop, instead of through a buffer. It must
     * give fold's result for the converted values: code that replaces a kit-made fold replaces
     * (or clears) this too. */
    void (*fold_stored)(void *acc, const void *const *elems, int64_t n, int64_t first, tensor_dtype stored,
                        const void *user);
    /* Optional (NULL: the library hands fold one output's elements at a time): fold's work for n
     * outputs at once, when each output meets one element per row (the reduced dim is not the
     * innermost: a sum over dim 0 of a row-major matrix). n accumulators at acc, acc +
     * acc_stride, ... (acc_stride >= acc_size, each aligned as above); nrows rows of n
     * elements: input k's row r at (const char *)rows[k] + r * row_strides[k] (bytes; 0 for a
     * broadcast input), n contiguous elements of dtype `stored`, the reduced index of row r
     * first + r. Accumulator i must end as fold(acc + i * acc_stride, column i's nrows values,
     * nrows, first) leaves it. `stored` is the value type's dtype (TENSOR_FLOAT32, _FLOAT64,
     * _INT64), or bfloat16 / float16 where fold_stored would get them (so only with fold_stored
     * set), converted as there. nrows is 1 where each output meets a single element (a kept
     * dim 0): one element per accumulator. It lets one call vectorise across outputs instead of
     * gathering each output's strided elements. Code that replaces a kit-made fold replaces (or
     * clears) this too. */
    void (*fold_columns)(void *acc, size_t acc_stride, int64_t n, const void *const *rows,
                         const int64_t *row_strides, int64_t nrows, int64_t first, tensor_dtype stored,
                         const void *user);
} tensor_reduction_fns;

/* A built-in's fold of many rows at once (tensor_user_reduce_call.fold_rows says what it does). */
typedef int64_t (*tensor_user_fold_rows_fn)(char *acc, size_t acc_stride, int64_t nrows, const void *const *vals,
                                            const int64_t *row_strides, int64_t n, int64_t first);

/* One call of a user reduction (or of a fused built-in that runs as one), for a backend. */
typedef struct tensor_user_reduce_call {
    const char *name;                /* for messages */
    const tensor_reduction_fns *fns; /* the value type's callbacks (complete) */
    tensor_reduction_value value;    /* what the inputs are converted to */
    size_t acc_size;
    const void *user;
    int64_t count;                   /* elements reduced into each output (whole call) */
    /* A fused built-in's compiled CUDA kernels (the table's name in cuda/reduce_table.h, as
     * "vecdot"); NULL for a user reduction, which runs on the CPU only. */
    const char *cuda_table;
    /* The int64 value type's fold_stored (and fold_columns) also take elements stored as int32,
     * int16, int8 or uint8 (every input the same; `stored` says which), each the integer it
     * holds: a built-in whose callbacks do. False for a user reduction, whose fold_stored is
     * promised 16-bit floats only. */
    bool int_stored;
    /* A built-in's fold of many short rows at once (NULL for a user reduction): rows 0 ..
     * nrows - 1 of n values each, row r of input k at vals[k] + r * row_strides[k] bytes (values
     * of the value type, dense along the row, the reduced index of each row's first `first`),
     * each folded into its accumulator at acc + r * acc_stride exactly as fold folds that run
     * alone. Returns how many rows it folded, a prefix (0 for rows it does not take); the
     * caller folds the rest. */
    tensor_user_fold_rows_fn fold_rows;
    /* A built-in whose init writes zero bytes and whose project returns the accumulator as it
     * is (a sum of the value type): the driver sets and reads the accumulators itself instead of
     * a call per output. False for a user reduction. */
    bool plain_ends;
} tensor_user_reduce_call;


#ifdef __cplusplus
}
#endif
#endif
