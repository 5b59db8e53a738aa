/* Internal: how library code records an error. Not installed. */
#ifndef TENSOR_ERROR_INTERNAL_H
#define TENSOR_ERROR_INTERNAL_H

#include "runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records (status, formatted message) as this thread's last error and returns status, so a
 * failing path reads: return tensor_error(TENSOR_ERR_INDEX, "tensor_narrow: dim %d ...", d); */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
tensor_status tensor_error(tensor_status status, const char *fmt, ...);

/* Same, for functions returning a pointer: records and returns NULL. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void *tensor_error_null(tensor_status status, const char *fmt, ...);

/* Records a warning (tensor_last_warning), formatted like an error message. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void tensor_warn(const char *fmt, ...);

/* NULL-argument check used at the top of public functions. */
#define TENSOR_CHECK_NOT_NULL(ptr, func, name)                                                   \
    do {                                                                                         \
        if ((ptr) == NULL)                                                                       \
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func, name); \
    } while (0)
#define TENSOR_CHECK_NOT_NULL_P(ptr, func, name)                                                 \
    do {                                                                                         \
        if ((ptr) == NULL)                                                                       \
            return tensor_error_null(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func, name); \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
