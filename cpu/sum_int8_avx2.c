/* int8 / uint8 / bool sums of a contiguous run with AVX2 (see cpu/sum_simd.h).
 *
 * Why: summing into int64 lanes widens every byte to 8 bytes first (four conversions and
 * four 64-bit adds per 32 bytes); psadbw sums 8 bytes into a 64-bit lane in one step. A
 * signed byte x is summed as the unsigned byte x ^ 0x80 = x + 128, and 128 per element is
 * taken off at the end. Integer sums are exact modulo 2^64, so the order of additions
 * cannot change the result: the same value as the scalar loop, for any input. */
#include "cpu/sum_simd.h"

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>

__attribute__((target("avx2"))) uint64_t tt_cpu_sum_bytes_avx2(const void *p, int64_t n, bool is_signed) {
    const unsigned char *x = p;
    const __m256i zero = _mm256_setzero_si256();
    const __m256i flip = _mm256_set1_epi8(is_signed ? (char)0x80 : 0);
    __m256i s0 = zero, s1 = zero, s2 = zero, s3 = zero;
    int64_t k = 0;
    for (; k + 128 <= n; k += 128) { /* four independent sums: the loads, not the adds, limit */
        s0 = _mm256_add_epi64(s0, _mm256_sad_epu8(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(x + k)), flip), zero));
        s1 = _mm256_add_epi64(s1, _mm256_sad_epu8(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(x + k + 32)), flip), zero));
        s2 = _mm256_add_epi64(s2, _mm256_sad_epu8(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(x + k + 64)), flip), zero));
        s3 = _mm256_add_epi64(s3, _mm256_sad_epu8(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(x + k + 96)), flip), zero));
    }
    for (; k + 32 <= n; k += 32)
        s0 = _mm256_add_epi64(s0, _mm256_sad_epu8(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(x + k)), flip), zero));
    const __m256i s = _mm256_add_epi64(_mm256_add_epi64(s0, s1), _mm256_add_epi64(s2, s3));
    uint64_t lanes[4];
    _mm256_storeu_si256((__m256i *)(void *)lanes, s);
    uint64_t total = lanes[0] + lanes[1] + lanes[2] + lanes[3];
    if (is_signed) {
        total -= 128u * (uint64_t)k; /* the bias of the vector part */
        for (; k < n; k++) total += (uint64_t)(int64_t)(signed char)x[k];
    } else {
        for (; k < n; k++) total += x[k];
    }
    return total;
}

#else

uint64_t tt_cpu_sum_bytes_avx2(const void *p, int64_t n, bool is_signed) {
    /* not called without AVX2 (tt_cpu_sum_simd_avx2() is false); a plain loop for safety */
    uint64_t total = 0;
    for (int64_t k = 0; k < n; k++)
        total += is_signed ? (uint64_t)(int64_t)((const signed char *)p)[k] : ((const unsigned char *)p)[k];
    return total;
}

#endif
