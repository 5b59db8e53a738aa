/* Rows of elements of any size transposed into columns, in portable C (see cpu/transpose.h). */
#include <string.h>

#include "cpu/transpose.h"

/* Blocks of 8 rows x 8 elements: each source row is read 8 elements (a piece of a cache line)
 * at a time and each destination row written 8 elements at a time, so neither side walks
 * memory an element a line apart. */
#define BLOCK 8

#define TRANSPOSE_AS(T)                                                                          \
    do {                                                                                          \
        T *d = dst;                                                                               \
        for (int64_t r0 = 0; r0 < nrows; r0 += BLOCK) {                                           \
            const int64_t r1 = nrows - r0 < BLOCK ? nrows : r0 + BLOCK;                           \
            for (int64_t i0 = 0; i0 < m; i0 += BLOCK) {                                           \
                const int64_t i1 = m - i0 < BLOCK ? m : i0 + BLOCK;                               \
                for (int64_t r = r0; r < r1; r++) {                                               \
                    const T *s = (const T *)(src + r * stride);                                  \
                    for (int64_t i = i0; i < i1; i++) d[i * ld + r] = s[i];                       \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
    } while (0)

bool tt_cpu_transpose_elems(void *dst, int64_t ld, const char *src, int64_t stride, int64_t m, int64_t nrows,
                            size_t size) {
    switch (size) {
    case 1: TRANSPOSE_AS(uint8_t); return true;
    case 2: TRANSPOSE_AS(uint16_t); return true;
    case 4: TRANSPOSE_AS(uint32_t); return true;
    case 8: TRANSPOSE_AS(uint64_t); return true;
    default: return false;
    }
}
