/* Status codes and the thread-local last error.
 *
 * Every fallible call returns a tensor_status (TENSOR_OK == 0) or, when it returns a tensor,
 * NULL. Either way it records the code and a message naming the function and the bad argument
 * in a thread-local slot that the caller reads with tensor_last_error(). A successful call
 * does not clear the slot; call tensor_clear_error() to reset it. */
#ifndef TENSOR_STATUS_H
#define TENSOR_STATUS_H

#include "tinytensor/runtime/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values are fixed forever; new codes are appended. */
typedef enum tensor_status {
    TENSOR_OK = 0,
    TENSOR_ERR_INVALID_ARGUMENT = 1, /* NULL pointer, bad value, negative size */
    TENSOR_ERR_INDEX = 2,            /* dim or index out of range (PyTorch's IndexError) */
    TENSOR_ERR_SHAPE = 3,            /* shapes that do not broadcast or do not match */
    TENSOR_ERR_DTYPE = 4,            /* unknown or unsupported dtype, promotion not allowed */
    TENSOR_ERR_DEVICE = 5,           /* device mismatch, or a device that is not there */
    TENSOR_ERR_OVERFLOW = 6,         /* a size, byte count or offset overflows int64 */
    TENSOR_ERR_OUT_OF_MEMORY = 7,    /* host or device allocation failed */
    TENSOR_ERR_CUDA = 8,             /* the CUDA runtime reported an error */
    TENSOR_ERR_NOT_IMPLEMENTED = 9,  /* a valid request this build cannot do (yet) */
    TENSOR_ERR_INTERNAL = 10,        /* a library bug: please report it */
    TENSOR_ERR_IO = 11,              /* a file could not be opened, read or written */
    TENSOR_ERR_FORMAT = 12,          /* malformed or truncated data in a file or a foreign tensor */
    TENSOR_STATUS_COUNT
} tensor_status;

/* Short name of a code, e.g. "TENSOR_ERR_INDEX". Never NULL; unknown codes give "TENSOR_ERR_UNKNOWN". */
TENSOR_API const char *tensor_status_name(tensor_status status);
/* One-line description of a code. Never NULL. */
TENSOR_API const char *tensor_status_str(tensor_status status);

/* Code of the last error on this thread (TENSOR_OK if none since the last clear). */
TENSOR_API tensor_status tensor_last_status(void);
/* Message of the last error on this thread ("" if none). Borrowed: valid until the next
 * failing call on this thread. */
TENSOR_API const char *tensor_last_error(void);
/* Resets this thread's last error to TENSOR_OK and "". */
TENSOR_API void tensor_clear_error(void);

/* Warnings (PyTorch's TORCH_WARN): a call that succeeds but did something the caller may not
 * expect (an out= tensor with elements resized to the result's shape) records a message, naming
 * the function, in a thread-local slot; nothing is printed. tensor_last_warning() returns it
 * ("" if none since the last clear; borrowed, valid until the next warning on this thread) and
 * tensor_clear_warning() resets it. Errors and warnings are separate slots. */
TENSOR_API const char *tensor_last_warning(void);
TENSOR_API void tensor_clear_warning(void);

#ifdef __cplusplus
}
#endif
#endif
