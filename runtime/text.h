/* Internal: text written into a caller's fixed buffer under snprintf's contract, piece by
 * piece: what fits is written (NUL terminated), and `len` counts the full length whether it
 * fits or not, so an explain function returns it and the caller can size its buffer. */
#ifndef TENSOR_RUNTIME_TEXT_H
#define TENSOR_RUNTIME_TEXT_H

#include <stddef.h>
#include <stdint.h>

typedef struct tt_text {
    char *buf;   /* NULL (with size 0) to count only */
    size_t size; /* bytes at buf */
    int64_t len; /* the full length so far */
} tt_text;

/* Appends printf-formatted text at t->len. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void tt_text_put(tt_text *t, const char *fmt, ...);

#endif
