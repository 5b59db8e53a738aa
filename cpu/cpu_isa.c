/* Run-time detection of the x86-64 features the CPU kernels use (cpu/cpu_isa.h). */
#include <stdbool.h>

#include "cpu/cpu_isa.h"

atomic_uint tt_cpu_feature_bits;

unsigned tt_cpu_features_detect(void) {
    unsigned f = TT_CPU_DETECTED;
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
        f |= TT_CPU_AVX2;
#ifdef __clang__ /* clang's __builtin_cpu_supports has no "f16c"; every AVX2 CPU has F16C */
        f |= TT_CPU_F16C;
#else
        if (__builtin_cpu_supports("f16c")) f |= TT_CPU_F16C;
#endif
    }
    if (__builtin_cpu_supports("avx512f")) {
        f |= TT_CPU_AVX512F;
        if (__builtin_cpu_supports("avx512bw")) f |= TT_CPU_AVX512BW;
    }
#endif
    atomic_store_explicit(&tt_cpu_feature_bits, f, memory_order_relaxed);
    return f;
}
