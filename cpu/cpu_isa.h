/* Internal to cpu/: the x86-64 features the CPU kernels choose their code by at run time.
 *
 * One detection for the whole library, cached in an atomic: kernels may ask from any number
 * of threads at once (each call of an op, the first ones included). Reading the cache is one
 * relaxed load; the value never changes once set, and every thread that finds it unset
 * computes and stores the same bits, so no ordering with other memory is needed.
 *
 * The bits mirror what __builtin_cpu_supports says, which is also what the resolvers of
 * target_clones functions test, so a build with ifunc dispatch and one without pick the same
 * variants on the same CPU. Elsewhere than x86-64 GCC/Clang no bit is ever set. */
#ifndef TENSOR_CPU_ISA_H
#define TENSOR_CPU_ISA_H

#include <stdatomic.h>
#include <stdbool.h>

#define TT_CPU_AVX2 0x1u
#define TT_CPU_F16C 0x2u /* with AVX2 (F16C alone is never used) */
#define TT_CPU_AVX512F 0x4u
#define TT_CPU_AVX512BW 0x8u /* with AVX512F */
/* Set in every detected value, so that 0 means "not detected yet". */
#define TT_CPU_DETECTED 0x80000000u

/* hidden: read straight, not through the GOT (the library is built with hidden visibility,
 * but a declaration does not say so) */
extern atomic_uint tt_cpu_feature_bits __attribute__((visibility("hidden")));

/* Detects, stores and returns the bits (TT_CPU_DETECTED set). */
unsigned tt_cpu_features_detect(void);

/* The TT_CPU_* bits of this CPU. */
static inline unsigned tt_cpu_features(void) {
    const unsigned f = atomic_load_explicit(&tt_cpu_feature_bits, memory_order_relaxed);
    return f != 0 ? f : tt_cpu_features_detect();
}

static inline bool tt_cpu_has(unsigned bits) { return (tt_cpu_features() & bits) == bits; }

#endif
