/* Template of the float sum fast paths (cpu/reduce_sum.c), included once per element type
 * and NaN mode. Parameters (#define before including; all are #undef'd at the end):
 *   SUMT_FN(name)   the name of a generated function (pastes a suffix)
 *   SUMT_T          accumulation type: float or double
 *   SUMT_ACC        the accumulator struct of SUMT_T (cpu_sum_acc_f32 / _f64)
 *   SUMT_NACC       nanmean's accumulator (SUMT_ACC then an int64_t count n)
 *   SUMT_FOLD       fold(SUMT_ACC *, SUMT_T partial): compensated add into an accumulator
 *   SUMT_ELEM       element type in memory (float, double, uint16_t for float16/bfloat16)
 *   SUMT_LOAD(v)    element -> SUMT_T (convert in registers)
 *   SUMT_LANES      independent partial sums per block (a power of two, >= 8)
 *   SUMT_NANSKIP    1: NaN counts as 0 (nansum / nanmean), 0: plain sum
 * Optional:
 *   SUMT_LOAD8(d, p)  converts the 8 elements at p into SUMT_T d[8] (e.g. with F16C); it must
 *                     give the values SUMT_LOAD gives (default: SUMT_LOAD 8 times)
 *   SUMT_ADD8(d, p)   d[0..8) += the 8 elements at p (NaN as 0 when SUMT_NANSKIP), for
 *                     the outer path (default: a plain loop the compiler vectorises)
 *   SUMT_TWO_STREAMS  1: row() reads two blocks at once (block2); measured faster for
 *                     float32 elements, slower for float64 and bfloat16 (default 0)
 *   SUMT_BLOCKS(x, nb, p)  an expression that sets p[0 .. nb) (nb <= 32) to block() of the
 *                     nb full blocks from x, bitwise, and is true, or does nothing and is
 *                     false; row() then uses it for full blocks (hand-written kernels that
 *                     read several blocks at once: cpu/sum_bf16_avx.c)
 *   SUMT_ATTR         attribute of every generated function (e.g. a target ISA). Without it,
 *                     on x86-64 GCC/Clang the entry points (row, rows_short, outer) come
 *                     in three variants, AVX-512F, AVX2 and baseline (AVX-512 loads of wide
 *                     outer rows run ~10% faster on Zen 5), chosen per CPU: by the loader
 *                     (target_clones, an ifunc) when TENSOR_HAVE_IFUNC (GCC), else by a
 *                     test of cpu/cpu_isa.h's cached features in each entry point. Ifuncs
 *                     are resolved while the loader relocates the library, before a
 *                     ThreadSanitizer runtime can run the resolver's instrumented code,
 *                     which crashes; TSan builds turn TENSOR_IFUNC off.
 *
 * The arithmetic (what makes results reproducible and accurate). The ISA only changes how
 * many lanes one instruction handles, never which additions happen, so every variant gives
 * the same bits:
 *   inner (a contiguous run of one output's elements): the run is cut into blocks of
 *   SUMT_BLOCK = 64 * SUMT_LANES elements anchored to the reduced index (block boundaries at
 *   multiples of SUMT_BLOCK, so where a run starts does not move them); a block is summed in
 *   SUMT_LANES independent lanes (element k goes to lane k % SUMT_LANES from the block's
 *   start), the lanes are added pairwise, and the block's partial is folded into the
 *   accumulator with a compensated (TwoSum) add. Blocks shorter than SUMT_LANES only build
 *   the part of the tree their elements reach.
 *   The error is that of a 64-term sum plus a log2(lanes) tree per block; the folds lose
 *   nothing to first order.
 *   outer (output j's elements go down column j of row-major rows): rows are taken in groups
 *   of SUMT_GROUP anchored to the reduced index; within a group each column sums its
 *   elements in row order into a row of partials (a plain loop over contiguous arrays, which
 *   the compiler vectorises across columns); each partial is then folded into its column's
 *   accumulator. A column's arithmetic does not depend on how many columns share the block. */

#define SUMT_BLOCK (64 * SUMT_LANES)
#define SUMT_GROUP 16
/* Columns of an outer chunk: 16 KiB per array (partials, s, c: 48 KiB of stack). */
#define SUMT_COLS (16384 / (int)sizeof(SUMT_T))
#ifndef SUMT_TWO_STREAMS
#define SUMT_TWO_STREAMS 0
#endif
#ifndef SUMT_LOAD8
#define SUMT_LOAD8(d, p)                                                                           \
    do {                                                                                           \
        for (int l8_ = 0; l8_ < 8; l8_++) (d)[l8_] = SUMT_LOAD((p)[l8_]);                          \
    } while (0)
#endif

#define SUMT_CAT_(a, b) a##b
#define SUMT_CAT(a, b) SUMT_CAT_(a, b)
#define SUMT_V(x) SUMT_CAT(SUMT_FN(x), SUMT_VSFX)

#if !defined(SUMT_ATTR) && (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !TENSOR_HAVE_IFUNC
/* Without ifuncs: the body three times, as plain functions compiled for AVX-512F, AVX2 and the
 * baseline (the ISAs of the target_clones below), and the entry points as small functions that
 * call the variant for this CPU. The choice costs one relaxed load and a predictable branch per
 * call, as an ifunc's indirect call does. */
#define SUMT_VSFX _avx512
#define SUMT_ENTRY __attribute__((target("avx512f")))
#define SUMT_HELPER SUMT_ENTRY
#include "cpu/sum_tmpl_body.h"
#undef SUMT_VSFX
#undef SUMT_ENTRY
#undef SUMT_HELPER
#define SUMT_VSFX _avx2
#define SUMT_ENTRY __attribute__((target("avx2")))
#define SUMT_HELPER SUMT_ENTRY
#include "cpu/sum_tmpl_body.h"
#undef SUMT_VSFX
#undef SUMT_ENTRY
#undef SUMT_HELPER
#define SUMT_VSFX _base
#define SUMT_ENTRY
#define SUMT_HELPER
#include "cpu/sum_tmpl_body.h"
/* calls entry point `name`'s variant for this CPU with the arguments that follow */
#define SUMT_PICK(name, ...)                                                                       \
    do {                                                                                           \
        const unsigned f_ = tt_cpu_features();                                                     \
        if (f_ & TT_CPU_AVX512F) SUMT_CAT(SUMT_FN(name), _avx512)(__VA_ARGS__);                    \
        else if (f_ & TT_CPU_AVX2) SUMT_CAT(SUMT_FN(name), _avx2)(__VA_ARGS__);                    \
        else SUMT_CAT(SUMT_FN(name), _base)(__VA_ARGS__);                                          \
    } while (0)
static void SUMT_FN(row)(const SUMT_ELEM *x, int64_t n, int64_t index0, SUMT_ACC *acc, bool count) {
    SUMT_PICK(row, x, n, index0, acc, count);
}
static void SUMT_FN(rows_short)(const char *x, int64_t stride, int64_t n, int64_t nrows, char *acc,
                                int64_t acc_stride) {
    SUMT_PICK(rows_short, x, stride, n, nrows, acc, acc_stride);
}
static void SUMT_FN(outer)(const char *in, int64_t row_stride, int64_t size0, int64_t ncols, char *acc,
                           int64_t acc_stride, int64_t index0, bool count) {
    SUMT_PICK(outer, in, row_stride, size0, ncols, acc, acc_stride, index0, count);
}
#undef SUMT_PICK
/* block() and count() under their plain names, baseline, as the tile paths of
 * cpu/reduce_sum.c (baseline code) call them */
static inline SUMT_T SUMT_FN(block)(const SUMT_ELEM *restrict x, int64_t n) { return SUMT_CAT(SUMT_FN(block), _base)(x, n); }
#if SUMT_NANSKIP
static inline int64_t SUMT_FN(count)(const SUMT_ELEM *restrict x, int64_t n) { return SUMT_CAT(SUMT_FN(count), _base)(x, n); }
#endif
#else
#define SUMT_VSFX
#ifdef SUMT_ATTR
#define SUMT_ENTRY SUMT_ATTR
#define SUMT_HELPER SUMT_ATTR
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
/* ifuncs: the loader binds each entry point to the clone for this CPU */
#define SUMT_ENTRY __attribute__((target_clones("avx512f", "avx2", "default")))
#define SUMT_HELPER
#else
#define SUMT_ENTRY
#define SUMT_HELPER
#endif
#include "cpu/sum_tmpl_body.h"
#endif

#undef SUMT_V
#undef SUMT_VSFX
#undef SUMT_CAT
#undef SUMT_CAT_
#undef SUMT_ENTRY
#undef SUMT_HELPER
#undef SUMT_ATTR
#undef SUMT_LOAD8
#undef SUMT_ADD8
#undef SUMT_BLOCK
#undef SUMT_GROUP
#undef SUMT_COLS
#undef SUMT_FN
#undef SUMT_T
#undef SUMT_ACC
#undef SUMT_NACC
#undef SUMT_FOLD
#undef SUMT_ELEM
#undef SUMT_LOAD
#undef SUMT_LANES
#undef SUMT_NANSKIP
#undef SUMT_TWO_STREAMS
#undef SUMT_BLOCKS
