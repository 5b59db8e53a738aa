/* Fast unsigned 32-bit division by a run-time constant ("magic number" division).
 *
 * The offset calculator divides every linear index by every dim size, once per element, on
 * the GPU. Integer division is a ~20-instruction software routine on NVIDIA GPUs; a divisor
 * fixed for the whole launch can be replaced by a multiply-high, an add and a shift
 * (Granlund & Montgomery, "Division by invariant integers using multiplication", PLDI 1994;
 * Hacker's Delight 2nd ed. §10-8, the "round-up" method). PyTorch's IntDivider does the same.
 *
 * Domain: EXACT for every dividend n in [0, 2^32) and every divisor d in [1, 2^32).
 *   That is wider than PyTorch's IntDivider (n < 2^31, d <= 2^31-1): PyTorch adds t + n in
 *   32 bits, which overflows once n >= 2^31; we add in 64 bits (a carry and a funnel shift on
 *   the GPU, about one instruction more per dim), so the 32-bit indexing limit is 2^32 elements/bytes, not 2^31.
 *   d == 0 is outside the domain but still defined so that no caller can trap: q = 0, r = n.
 *
 * Why it is exact. Let s = ceil(log2 d), so 2^(s-1) < d <= 2^s, and
 *   magic = floor(2^32 (2^s - d) / d) + 1,   M = 2^32 + magic = floor(2^(32+s) / d) + 1.
 * Then q' = (umulhi(n, magic) + n) >> s = floor(n M / 2^(32+s)) (the two floors nest).
 * M d = 2^(32+s) + e with 0 < e <= d <= 2^s, so n M / 2^(32+s) = n/d + n e / (d 2^(32+s)),
 * and for n < 2^32 the error term is < 2^32 * 2^s / (d 2^(32+s)) = 1/d. Since the fractional
 * part of n/d is at most (d-1)/d, adding less than 1/d never reaches the next integer:
 * q' = floor(n/d). magic fits 32 bits: 2^s - d < d keeps the floor below 2^32, and reaching
 * 2^32 - 1 would need d <= 2^(s-1) (1 + 1/(2^33-1)), i.e. d = 2^(s-1), which s excludes; for
 * d = 2^s the floor is 0 and magic = 1. The riskiest dividends are the largest n with
 * n mod d == d-1; tests/iterator/test_divider.c checks those for many divisors (and, with
 * TENSOR_TEST_EXHAUSTIVE=1, for every divisor).
 *
 * Compiles as C11 and as CUDA C++; the functions are inline and __host__ __device__. */
#ifndef TENSOR_INT_DIVIDER_H
#define TENSOR_INT_DIVIDER_H

#include <stdint.h>

#include "tinytensor/runtime/hostdevice.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tensor_int_divider {
    uint32_t divisor;
    uint32_t magic; /* low 32 bits of M = 2^32 + magic (the implicit 33rd bit is the "+ n") */
    uint32_t shift; /* ceil(log2 divisor), in [0, 32]; 32 only for d > 2^31 or d == 0 */
} tensor_int_divider;

/* The constants for `divisor`. Total: any uint32_t is accepted (0 gives q = 0, r = n).
 * Cheap (a loop of at most 32 steps and one 64-bit division), but meant to run once per
 * launch on the host, not per element. */
TENSOR_INLINE tensor_int_divider tensor_int_divider_make(uint32_t divisor) {
    tensor_int_divider d;
    d.divisor = divisor;
    if (divisor == 0) {
        /* magic 0 makes t = 0, and (0 + n) >> 32 = 0 for every 32-bit n: q = 0, r = n - 0 = n. */
        d.magic = 0;
        d.shift = 32;
        return d;
    }
    uint32_t s = 0;
    while (s < 32 && ((uint64_t)1 << s) < divisor) s++;
    /* 2^s - d < 2^31 here, so 2^32 * (2^s - d) < 2^63: no overflow in the numerator. */
    uint64_t m = ((((uint64_t)1 << s) - divisor) << 32) / divisor + 1;
    d.magic = (uint32_t)m; /* m <= 2^32 - 1, see the proof above */
    d.shift = s;
    return d;
}

/* floor(n * magic / 2^32): one IMAD.HI on the GPU; a 64-bit product on the host. */
TENSOR_INLINE uint32_t tensor_int_divider_umulhi_(uint32_t n, uint32_t magic) {
#if defined(__CUDA_ARCH__)
    return __umulhi(n, magic);
#else
    return (uint32_t)(((uint64_t)n * magic) >> 32);
#endif
}

/* n / d for every n in [0, 2^32). */
TENSOR_INLINE uint32_t tensor_int_divider_div(tensor_int_divider d, uint32_t n) {
    uint32_t t = tensor_int_divider_umulhi_(n, d.magic);
    /* t + n needs 33 bits once n >= 2^31 (t <= n); the 64-bit add keeps the carry, which is
     * exactly the bit PyTorch loses, and the 64-bit shift also makes shift == 32 legal. */
    return (uint32_t)(((uint64_t)t + n) >> d.shift);
}

/* n % d for every n in [0, 2^32). */
TENSOR_INLINE uint32_t tensor_int_divider_mod(tensor_int_divider d, uint32_t n) {
    /* Unsigned wrap-around is well defined, and q * d <= n, so this never wraps anyway. */
    return n - tensor_int_divider_div(d, n) * d.divisor;
}

/* Both at the price of one division: *q = n / d, *r = n % d. q and r must be valid pointers
 * (not checked: this is the per-element hot path). */
TENSOR_INLINE void tensor_int_divider_divmod(tensor_int_divider d, uint32_t n, uint32_t *q, uint32_t *r) {
    uint32_t quot = tensor_int_divider_div(d, n);
    *q = quot;
    *r = n - quot * d.divisor;
}

#ifdef __cplusplus
}
#endif
#endif
