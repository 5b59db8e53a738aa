/* Stand-in for the C library's header while the cdef is generated (see stddef.h). */
#ifndef TT_FAKE_STDBOOL_H
#define TT_FAKE_STDBOOL_H
#define bool _Bool
#define true 1
#define false 0
#endif
