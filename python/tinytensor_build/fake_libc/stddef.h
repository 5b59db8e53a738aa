/* Stand-in for the C library's header while the cdef is generated: only the names the
 * tinytensor headers use, so that the preprocessed text holds our declarations alone (cffi
 * knows these standard types itself). Never compiled into anything. */
#ifndef TT_FAKE_STDDEF_H
#define TT_FAKE_STDDEF_H
typedef unsigned long size_t;
typedef long ptrdiff_t;
#define NULL ((void *)0)
#define offsetof(type, member) 0
#endif
