/* Reductions users define themselves, against an installed tinytensor, with no rebuild of the
 * library: a reduction is a functor (identity, fold, combine, project over an accumulator, and
 * optionally a map of 1 to 4 input values), registered at run time under a name; tensor_reduce
 * runs it with everything the built-in reductions have: dims lists (negative dims wrap, NULL =
 * all), keepdim, broadcasting and type promotion across the inputs, empty reductions, threads,
 * results bitwise the same run to run and for any thread count, and errors that name the
 * function and the argument.
 *
 * The easy way to write the callbacks is ops/reduction_kit.h: per-element functions in, the
 * tiled callbacks out (docs/functors.md shows a complete program).
 *
 * Devices: user reductions run on the CPU, and on CUDA when their callbacks carry the functor's
 * source (see "CUDA" below); without it a CUDA tensor gives TENSOR_ERR_NOT_IMPLEMENTED ("... is
 * not implemented for CUDA"), never a crash.
 *
 * Thread safety: registering, finding and releasing are serialised by the library; a handle may
 * be used from any thread. The callbacks are called from several threads at once (each on its
 * own accumulators), so they must not write shared state through `user`. */
#ifndef TENSOR_REDUCTION_H
#define TENSOR_REDUCTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tinytensor/contract/user_reduction.h"
#include "tinytensor/runtime/dtype.h"
#include "tinytensor/runtime/export.h"
#include "tinytensor/runtime/status.h"
#include "tinytensor/runtime/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The result dtype when the caller passes TENSOR_DTYPE_DEFAULT, from the inputs' promoted
 * dtype (PyTorch's promotion across the inputs). */
typedef enum tensor_reduction_dtype_rule {
    TENSOR_REDUCTION_DTYPE_PROMOTED = 0, /* the promoted dtype itself (amax-like) */
    TENSOR_REDUCTION_DTYPE_SUM = 1,      /* sum's: integers and bool -> int64, float8 -> float32 */
    TENSOR_REDUCTION_DTYPE_FLOAT = 2     /* mean's: integers and bool -> float32, float8 -> float32 */
} tensor_reduction_dtype_rule;

typedef struct tensor_reduction_def {
    const char *name;      /* copied at registration; unique among the registered reductions */
    int ninputs;           /* 1 .. TENSOR_REDUCTION_MAX_INPUTS */
    size_t acc_size;       /* bytes of one accumulator, 1 .. TENSOR_REDUCTION_MAX_ACC_SIZE */
    tensor_reduction_dtype_rule dtype_rule;
    bool empty_ok;         /* empty reduced dims: every output is the projected identity (true) or
                            * the call fails with TENSOR_ERR_INDEX (false, as amax) */
    /* Indexed by tensor_reduction_value. A value type whose fold is NULL is not supported: a
     * result dtype that needs it fails with TENSOR_ERR_DTYPE. At least one must be complete. */
    tensor_reduction_fns fns[TENSOR_REDUCTION_NUM_VALUES];
    const void *user;      /* borrowed: must outlive the registration */
} tensor_reduction_def;

typedef struct tensor_reduction tensor_reduction;

/* Registers a reduction. def is copied (name included; user stays borrowed). Returns a new
 * handle (release it with tensor_reduction_release) or NULL with the error set:
 * TENSOR_ERR_INVALID_ARGUMENT for a NULL or invalid definition (the message names the field)
 * or a name already registered, TENSOR_ERR_OUT_OF_MEMORY. */
TENSOR_API tensor_reduction *tensor_reduction_register(const tensor_reduction_def *def);

/* The registered reduction of that name (borrowed: valid until it is released), or NULL with
 * TENSOR_ERR_INVALID_ARGUMENT. */
TENSOR_API tensor_reduction *tensor_reduction_find(const char *name);

/* Unregisters r: its name becomes free, and every later call with r fails with
 * TENSOR_ERR_INVALID_ARGUMENT ("... has been released"). A released handle's few hundred
 * bytes stay allocated until the process exits, so that such a use is always caught. Releasing
 * twice is an error; NULL is an error. Do not release while another thread runs r. */
TENSOR_API tensor_status tensor_reduction_release(tensor_reduction *r);

/* The registered name (borrowed), or NULL for NULL or a released handle. */
TENSOR_API const char *tensor_reduction_name(const tensor_reduction *r);

/* Runs r over `inputs` (borrowed; exactly def.ninputs of them, one device), broadcast against
 * each other (nothing is materialised), reducing `dims` of the broadcast shape (NULL or
 * ndims 0: every dim). dtype: the result dtype, or TENSOR_DTYPE_DEFAULT for def.dtype_rule.
 * Returns a new tensor (release it) or NULL with the error set. */
TENSOR_API tensor_t *tensor_reduce(const tensor_reduction *r, const tensor_t *const *inputs, int ninputs,
                                   const int *dims, int ndims, bool keepdim, tensor_dtype dtype);

/* The same into `out` (borrowed; resized when its shape differs, as every out= of the library;
 * its dtype is the result dtype: dtype if given, else out's own). */
TENSOR_API tensor_status tensor_reduce_out(tensor_t *out, const tensor_reduction *r, const tensor_t *const *inputs,
                                           int ninputs, const int *dims, int ndims, bool keepdim);

/* What tensor_reduce would do with the same arguments, as text, nothing run: the iterator's plan
 * (shape, strides, the reduced dims) and, for a CUDA tensor, the kernel and its launch
 * configuration. snprintf contract: writes at most size bytes (NUL-terminated when size > 0)
 * and returns the full length of the text, or -1 with the error set (the same errors as
 * tensor_reduce; a CUDA tensor with a user reduction: TENSOR_ERR_NOT_IMPLEMENTED). */
TENSOR_API int64_t tensor_reduction_explain(const tensor_reduction *r, const tensor_t *const *inputs, int ninputs,
                                            const int *dims, int ndims, bool keepdim, tensor_dtype dtype, char *buf,
                                            size_t size);

/* ---- CUDA: user reductions compiled at run time ----
 * A value type whose callbacks carry the functor's source (tensor_reduction_fns.source; the
 * kit's TENSOR_REDUCTION_FNS_SOURCE fills it) runs on CUDA tensors too: on the first call for a
 * (functor, input dtype, result dtype, GPU architecture) the library compiles the reduction
 * engine's kernels around the functor with NVRTC (loaded at run time: libnvrtc.so.13 or .12, or
 * the file $TENSOR_NVRTC_LIBRARY names), keeps them for the process and in a disk cache, so that
 * later processes load them instead of compiling. Without NVRTC, or for a functor that does not
 * compile (the message carries the start of NVRTC's log), the call fails with an error status.
 *
 * The disk cache's directory: the one set here, else $TENSOR_JIT_CACHE_DIR, else
 * $XDG_CACHE_HOME/tinytensor/jit, else $HOME/.cache/tinytensor/jit. "" (or "off" in the
 * environment variable) turns it off; NULL restores the default. dir is copied. A file in it
 * that is corrupt, truncated or made for another key is ignored and replaced. */
TENSOR_API tensor_status tensor_jit_set_cache_dir(const char *dir);
/* The directory in use ("" when off), snprintf contract; -1 with the error set for a NULL buf
 * with a size. */
TENSOR_API int64_t tensor_jit_cache_dir(char *buf, size_t size);

/* torch.linalg.vecdot for real dtypes: sum(a * b) over `dim` (negative wraps) of a and b
 * broadcast against each other. As in PyTorch, a and b must have the same dtype; bool and the
 * float8 dtypes are an error (TENSOR_ERR_DTYPE) on every device. Unlike PyTorch, the integer
 * dtypes are accepted. The product is rounded to that dtype (an int32 product wraps) and
 * summed with sum's rules (integers into int64, 16-bit floats accumulate in float32). Fused on the CPU and on
 * CUDA: one pass over the inputs, the product never reaches memory, a broadcast input is read
 * through stride 0. The result has the broadcast shape without `dim`. New tensor or NULL. */
TENSOR_API tensor_t *tensor_vecdot(const tensor_t *a, const tensor_t *b, int dim);

#ifdef __cplusplus
}
#endif
#endif
