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
 *   SUMT_ATTR         attribute of every generated function (e.g. a target ISA); default:
 *                     none, and the two entry points (row, outer) get
 *                     target_clones("avx2", "default") on x86-64 GCC
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
/* Partials of an outer block: 32 KiB of stack. */
#define SUMT_COLS (32768 / (int)sizeof(SUMT_T))
#ifdef SUMT_ATTR
#define SUMT_ENTRY SUMT_ATTR
#define SUMT_HELPER SUMT_ATTR
#else
#define SUMT_HELPER
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define SUMT_ENTRY __attribute__((target_clones("avx2", "default")))
#else
#define SUMT_ENTRY
#endif
#endif
#ifndef SUMT_LOAD8
#define SUMT_LOAD8(d, p)                                                                           \
    do {                                                                                           \
        for (int l8_ = 0; l8_ < 8; l8_++) (d)[l8_] = SUMT_LOAD((p)[l8_]);                          \
    } while (0)
#endif

#if SUMT_NANSKIP
#define SUMT_VAL(e) SUMT_FN(val)(e)
SUMT_HELPER static inline SUMT_T SUMT_FN(val)(SUMT_ELEM e) {
    SUMT_T v = SUMT_LOAD(e);
    return v == v ? v : (SUMT_T)0;
}
/* Non-NaN elements of a run (nanmean's denominator). */
SUMT_HELPER static inline int64_t SUMT_FN(count)(const SUMT_ELEM *restrict x, int64_t n) {
    int64_t c = 0;
    for (int64_t k = 0; k < n; k++) {
        SUMT_T v = SUMT_LOAD(x[k]);
        c += v == v;
    }
    return c;
}
#define SUMT_MASK(v) ((v) == (v) ? (v) : (SUMT_T)0)
#else
#define SUMT_VAL(e) SUMT_LOAD(e)
#define SUMT_MASK(v) (v)
#endif

/* One block (n <= SUMT_BLOCK elements). */
SUMT_HELPER static inline SUMT_T SUMT_FN(block)(const SUMT_ELEM *restrict x, int64_t n) {
    SUMT_T lane[SUMT_LANES];
    if (n < SUMT_LANES) {
        /* A short run (e.g. rows of 16): each element has a lane of its own and the tree only
         * spans the next power of two. The same additions as the full path, since the lanes
         * it skips hold zeros (x + 0 == x; the fold normalises the sign of a zero sum). */
        int p = 1;
        while (p < n) p *= 2;
        for (int l = 0; l < n; l++) lane[l] = SUMT_VAL(x[l]);
        for (int l = (int)n; l < p; l++) lane[l] = 0;
        for (int w = p / 2; w > 0; w /= 2)
            for (int l = 0; l < w; l++) lane[l] += lane[l + w];
        return n > 0 ? lane[0] : (SUMT_T)0;
    }
    for (int l = 0; l < SUMT_LANES; l++) lane[l] = 0;
    int64_t k = 0;
    for (; k + SUMT_LANES <= n; k += SUMT_LANES) {
        SUMT_T v[SUMT_LANES];
        for (int l = 0; l < SUMT_LANES; l += 8) SUMT_LOAD8(v + l, x + k + l);
        for (int l = 0; l < SUMT_LANES; l++) lane[l] += SUMT_MASK(v[l]);
    }
    for (int l = 0; k + l < n; l++) lane[l] += SUMT_VAL(x[k + l]);
    for (int w = SUMT_LANES / 2; w > 0; w /= 2)
        for (int l = 0; l < w; l++) lane[l] += lane[l + w];
    return lane[0];
}

/* A contiguous run x[0 .. n) of one output's elements whose first reduced index is index0,
 * folded into *acc. count: also count non-NaN elements into acc->n (nanmean). */
SUMT_ENTRY static void SUMT_FN(row)(const SUMT_ELEM *x, int64_t n, int64_t index0, SUMT_ACC *acc, bool count) {
    int64_t head = (SUMT_BLOCK - index0 % SUMT_BLOCK) % SUMT_BLOCK;
    if (head > n) head = n;
    for (int64_t k = 0; k < n;) {
        int64_t m = k == 0 && head > 0 ? head : (n - k < SUMT_BLOCK ? n - k : SUMT_BLOCK);
        SUMT_FOLD(acc, SUMT_FN(block)(x + k, m));
#if SUMT_NANSKIP
        if (count) ((SUMT_NACC *)acc)->n += SUMT_FN(count)(x + k, m);
#else
        (void)count;
#endif
        k += m;
    }
}

/* An outer block: size0 rows (reduced, first reduced index index0) of ncols contiguous
 * elements each, rows row_stride bytes apart; column j folds into the accumulator at
 * acc + j * acc_stride. Within a group the rows are read whole, one after the other (one
 * sequential stream: no cache-set conflicts when the row pitch is a power of two), into a
 * row of partials; columns are cut into chunks of SUMT_COLS only for very wide rows. */
SUMT_ENTRY static void SUMT_FN(outer)(const char *in, int64_t row_stride, int64_t size0, int64_t ncols, char *acc,
                           int64_t acc_stride, int64_t index0, bool count) {
    SUMT_T part[SUMT_COLS];
#if SUMT_NANSKIP
    int32_t cnt[SUMT_COLS];
#else
    (void)count;
#endif
    for (int64_t i0 = 0; i0 < size0;) {
        int64_t g = SUMT_GROUP - (index0 + i0) % SUMT_GROUP;
        if (g > size0 - i0) g = size0 - i0;
        const char *rows = in + i0 * row_stride;
        for (int64_t j0 = 0; j0 < ncols; j0 += SUMT_COLS) {
            const int64_t w = ncols - j0 < SUMT_COLS ? ncols - j0 : SUMT_COLS;
            for (int64_t j = 0; j < w; j++) part[j] = 0;
            for (int64_t r = 0; r < g; r++) {
                const SUMT_ELEM *restrict row = (const SUMT_ELEM *)(rows + r * row_stride) + j0;
                int64_t j = 0;
#ifdef SUMT_ADD8
                for (; j + 8 <= w; j += 8) SUMT_ADD8(part + j, row + j);
#endif
                for (; j < w; j++) part[j] += SUMT_VAL(row[j]);
            }
            for (int64_t j = 0; j < w; j++) SUMT_FOLD((SUMT_ACC *)(acc + (j0 + j) * acc_stride), part[j]);
#if SUMT_NANSKIP
            if (count) {
                for (int64_t j = 0; j < w; j++) cnt[j] = 0;
                for (int64_t r = 0; r < g; r++) {
                    const SUMT_ELEM *restrict row = (const SUMT_ELEM *)(rows + r * row_stride) + j0;
                    for (int64_t j = 0; j < w; j++) {
                        SUMT_T v = SUMT_LOAD(row[j]);
                        cnt[j] += v == v;
                    }
                }
                for (int64_t j = 0; j < w; j++) ((SUMT_NACC *)(acc + (j0 + j) * acc_stride))->n += cnt[j];
            }
#endif
        }
        i0 += g;
    }
}

#undef SUMT_VAL
#undef SUMT_MASK
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
