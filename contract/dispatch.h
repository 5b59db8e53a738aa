/* The dispatch stub table, the kernel contract between ops/ and the backends: one entry per op,
 * one slot per device type, the kernels' signature and parameters.
 *
 * ops/ never calls a backend directly: it looks the kernel up here. Backends fill their slots
 * when the table initialises (once, on first lookup, through tt_backends_install: explicit
 * calls, no reliance on link order or constructors). A missing slot is an error ("sum is not
 * implemented for CUDA"), never a crash. Dependencies: ops/ and the backends include this
 * layer; it includes neither. */
#ifndef TENSOR_DISPATCH_H
#define TENSOR_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "tinytensor/contract/reductions.h"
#include "tinytensor/runtime/device.h"
#include "tinytensor/runtime/export.h"
#include "tinytensor/runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tensor_iter;

/* Ops with a kernel slot: the built-in reductions (one per row of contract/reductions.h), then
 * the elementwise slots and the user-reduction slot. Values may change between versions
 * (internal numbering). */
typedef enum tensor_op {
#define TENSOR_OP_ENUM_(ID, KERNEL, NAME, TORCH, NOUT, RULE, HAS_ID, IDENTITY, ALL, KIND) TENSOR_OP_##ID,
    TENSOR_BUILTIN_REDUCTIONS(TENSOR_OP_ENUM_)
#undef TENSOR_OP_ENUM_
    TENSOR_NUM_REDUCTION_OPS,
    /* Elementwise: one slot per arity; params->ew_op (a tensor_ew_op of ops/elementwise.h)
     * says which op. docs/elementwise.md is the backend's contract. */
    TENSOR_OP_EW_UNARY = TENSOR_NUM_REDUCTION_OPS, /* 1 output, 1 input */
    TENSOR_OP_EW_BINARY,  /* 1 output, 2 inputs */
    TENSOR_OP_EW_TERNARY, /* 1 output, 3 inputs: WHERE (cond, a, b), CLAMP (x, lo, hi) */
    TENSOR_OP_EW_COPY,    /* 1 output, 1 input: convert (cast) and copy, any dtype pair */
    TENSOR_OP_EW_FILL,    /* 1 output, no input: params->scalar / scalar_i */
    /* A reduction registered at run time (ops/reduction.h), or a fused built-in that runs as
     * one (vecdot): params->reduction says which and how; 1 output, 1 to 4 inputs. */
    TENSOR_OP_USER_REDUCE,
    /* A scan along one dim (cumsum, cumprod, logcumsumexp, cummax, cummin): params->scan_kind.
     * The iterator runs over the start of each line (every operand viewed with the scanned dim
     * of size 1): outputs (values[, int64 indices]), then the input; params->scan_len elements
     * per line, params->scan_strides[arg] bytes apart in operand arg. cumsum/cumprod get an
     * input of the output's dtype, an integer or bool input with an int64 output, or a 16-bit
     * float input with a float32 output; the others, values of the input's dtype. */
    TENSOR_OP_SCAN,
    TENSOR_NUM_OPS
} tensor_op;

/* The scans of TENSOR_OP_SCAN. */
typedef enum tensor_scan_kind {
    TENSOR_SCAN_CUMSUM = 0,
    TENSOR_SCAN_CUMPROD = 1,
    TENSOR_SCAN_LOGCUMSUMEXP = 2,
    TENSOR_SCAN_CUMMAX = 3, /* values + int64 indices */
    TENSOR_SCAN_CUMMIN = 4
} tensor_scan_kind;

/* Scalar parameters a kernel may need; each op reads the fields its comment names. */
typedef struct tensor_kernel_params {
    double p;          /* NORM: the order */
    double correction; /* VAR_MEAN: the denominator is max(0, N - correction) */
    int take_sqrt;     /* VAR_MEAN: 1 gives std instead of var */
    double factor;     /* MEAN/NANMEAN: unused by CPU (it divides by the count) */
    /* ---- elementwise (TENSOR_OP_EW_*); appended, so {0} and positional initialisers of the
     * fields above still work ---- */
    int ew_op;         /* a tensor_ew_op (ops/elementwise.h) */
    int ew_dtype;      /* a tensor_dtype: the op's common dtype. Inputs are converted to it, then to
                        * its compute type (ops/functors/ew_common.h), never to iter->common_dtype */
    double scalar;     /* ADD/SUB: alpha when the compute type is floating; FILL: the value
                        * for floating outputs */
    int64_t scalar_i;  /* ADD/SUB: alpha when the compute type is int64 (ints, bool); FILL: the
                        * value for integer and bool outputs (already cast by ops/) */
    unsigned ew_opmath_inputs; /* bit k set: input k is a host scalar that ops/ already holds in the
                        * compute type (a float32 0-d tensor for a float16/bfloat16 common dtype:
                        * PyTorch's original_scalar_value<opmath_t>); load it as is, without
                        * rounding it to ew_dtype first. 0 for every other call. */
    const void *reduction; /* USER_REDUCE: the call's tensor_user_reduce_call (contract/user_reduction.h) */
    /* SCAN (appended): which scan, the line length, each operand's byte stride along it. */
    int scan_kind;         /* a tensor_scan_kind */
    int64_t scan_len;
    int64_t scan_strides[3];
} tensor_kernel_params;

/* A kernel runs one built iterator (outputs already allocated, numel > 0) on its device. */
typedef tensor_status (*tensor_kernel_fn)(struct tensor_iter *iter, const tensor_kernel_params *params);

/* Optional, per slot: how the kernel would run the same built iterator, as text appended to
 * nothing (snprintf contract: returns the full length, or -1 with the error set); nothing
 * runs. The CUDA backend prints the launch plan of the kernel it would launch. */
typedef int64_t (*tensor_kernel_explain_fn)(struct tensor_iter *iter, const tensor_kernel_params *params, char *buf,
                                            size_t size);

/* Name used in messages ("sum"). Never NULL. */
TENSOR_API const char *tensor_op_name(tensor_op op);
/* The row of a built-in reduction (contract/reductions.h), or NULL for any other op. */
TENSOR_API const tensor_reduction_row *tensor_op_reduction(tensor_op op);
/* Fills a slot (replacing what was there). Thread-safe only during init; call it from a
 * tensor_*_register_kernels function. */
TENSOR_API tensor_status tensor_dispatch_register(tensor_op op, tensor_device_type device, tensor_kernel_fn fn);
/* Fills an explain slot (same rules as tensor_dispatch_register). */
TENSOR_API tensor_status tensor_dispatch_register_explain(tensor_op op, tensor_device_type device,
                                                          tensor_kernel_explain_fn fn);
/* The explain function of (op, device), or NULL (no error: a backend need not explain). */
TENSOR_API tensor_kernel_explain_fn tensor_dispatch_get_explain(tensor_op op, tensor_device_type device);
/* The kernel for (op, device), or NULL with TENSOR_ERR_NOT_IMPLEMENTED:
 * "<func>: sum is not implemented for CUDA". Initialises the table on first use. */
TENSOR_API tensor_kernel_fn tensor_dispatch_get(tensor_op op, tensor_device_type device, const char *func);

/* Fills the table, once, on first use: provided by the library's composition root
 * (backends/backends.c), which calls each compiled backend's registration. The table itself
 * names no backend. */
void tt_backends_install(void);

#ifdef __cplusplus
}
#endif
#endif
