/* Stand-in for the C library's header while the cdef is generated (see stddef.h). */
#ifndef TT_FAKE_MATH_H
#define TT_FAKE_MATH_H
#define INFINITY (1.0f / 0.0f)
#define NAN (0.0f / 0.0f)
#endif
