/* Stand-in for the C library's header while the cdef is generated (see stddef.h). */
#ifndef TT_FAKE_STDINT_H
#define TT_FAKE_STDINT_H
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
#define INT64_C(x) x##L
#define UINT64_C(x) x##UL
#define INT64_MAX 0x7fffffffffffffffL
#define INT64_MIN (-INT64_MAX - 1)
#define UINT64_MAX 0xffffffffffffffffUL
#define UINTPTR_MAX 0xffffffffffffffffUL
#define INT32_MAX 0x7fffffff
#define SIZE_MAX UINT64_MAX
#endif
