#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/error.h"
#include "tinytensor.h"

/* One table keeps names and messages in step with the enum. */
static const struct {
    const char *name;
    const char *text;
} status_table[TENSOR_STATUS_COUNT] = {
    [TENSOR_OK] = {"TENSOR_OK", "success"},
    [TENSOR_ERR_INVALID_ARGUMENT] = {"TENSOR_ERR_INVALID_ARGUMENT", "invalid argument"},
    [TENSOR_ERR_INDEX] = {"TENSOR_ERR_INDEX", "dimension or index out of range"},
    [TENSOR_ERR_SHAPE] = {"TENSOR_ERR_SHAPE", "shapes do not match or broadcast"},
    [TENSOR_ERR_DTYPE] = {"TENSOR_ERR_DTYPE", "unknown or unsupported dtype"},
    [TENSOR_ERR_DEVICE] = {"TENSOR_ERR_DEVICE", "device mismatch or device not available"},
    [TENSOR_ERR_OVERFLOW] = {"TENSOR_ERR_OVERFLOW", "size or offset overflows"},
    [TENSOR_ERR_OUT_OF_MEMORY] = {"TENSOR_ERR_OUT_OF_MEMORY", "out of memory"},
    [TENSOR_ERR_CUDA] = {"TENSOR_ERR_CUDA", "CUDA runtime error"},
    [TENSOR_ERR_NOT_IMPLEMENTED] = {"TENSOR_ERR_NOT_IMPLEMENTED", "not implemented"},
    [TENSOR_ERR_INTERNAL] = {"TENSOR_ERR_INTERNAL", "internal error (a library bug)"},
    [TENSOR_ERR_IO] = {"TENSOR_ERR_IO", "file could not be opened, read or written"},
    [TENSOR_ERR_FORMAT] = {"TENSOR_ERR_FORMAT", "malformed or truncated data"},
};

const char *tensor_status_name(tensor_status status) {
    if ((unsigned)status >= TENSOR_STATUS_COUNT) return "TENSOR_ERR_UNKNOWN";
    return status_table[status].name;
}

const char *tensor_status_str(tensor_status status) {
    if ((unsigned)status >= TENSOR_STATUS_COUNT) return "unknown status code";
    return status_table[status].text;
}

#define TENSOR_ERROR_MESSAGE_MAX 512

/* Thread-local so that concurrent callers never see each other's errors. */
static _Thread_local tensor_status last_status = TENSOR_OK;
static _Thread_local char last_message[TENSOR_ERROR_MESSAGE_MAX];

tensor_status tensor_last_status(void) { return last_status; }
const char *tensor_last_error(void) { return last_message; }

void tensor_clear_error(void) {
    last_status = TENSOR_OK;
    last_message[0] = '\0';
}

static void record(tensor_status status, const char *fmt, va_list ap) {
    /* Format into a local buffer first: a caller may pass tensor_last_error() itself as an
     * argument (to add context to an error), and vsnprintf into its own source is undefined. */
    char buf[TENSOR_ERROR_MESSAGE_MAX];
    vsnprintf(buf, sizeof buf, fmt, ap);
    last_status = status;
    memcpy(last_message, buf, sizeof buf);
}

tensor_status tensor_error(tensor_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    record(status, fmt, ap);
    va_end(ap);
    return status;
}

void *tensor_error_null(tensor_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    record(status, fmt, ap);
    va_end(ap);
    return NULL;
}

static _Thread_local char last_warning[TENSOR_ERROR_MESSAGE_MAX];

const char *tensor_last_warning(void) { return last_warning; }
void tensor_clear_warning(void) { last_warning[0] = '\0'; }

void tensor_warn(const char *fmt, ...) {
    char buf[TENSOR_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    memcpy(last_warning, buf, sizeof buf);
}

const char *tensor_version_string(void) { return TENSOR_VERSION_STRING; }
int tensor_version_number(void) { return TENSOR_VERSION_NUMBER; }
