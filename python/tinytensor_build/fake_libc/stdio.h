/* Stand-in for the C library's header while the cdef is generated (see stddef.h). */
#ifndef TT_FAKE_STDIO_H
#define TT_FAKE_STDIO_H
typedef struct _IO_FILE FILE;
#endif
