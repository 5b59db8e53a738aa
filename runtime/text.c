/* tt_text_put (runtime/text.h). */
#include "runtime/text.h"

#include <stdarg.h>
#include <stdio.h>

void tt_text_put(tt_text *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    size_t off = (size_t)t->len;
    char *dst = t->buf != NULL && off < t->size ? t->buf + off : NULL;
    size_t room = dst != NULL ? t->size - off : 0;
    int n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0) t->len += n;
}
