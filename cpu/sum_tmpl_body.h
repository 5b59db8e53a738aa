/* The functions of cpu/sum_tmpl.h, included by it once per variant (see there): every name
 * is SUMT_V(name), SUMT_FN(name) with the variant's suffix pasted on. No include guard. */
#if SUMT_NANSKIP
#define SUMT_VAL(e) SUMT_V(val)(e)
SUMT_HELPER static inline SUMT_T SUMT_V(val)(SUMT_ELEM e) {
    SUMT_T v = SUMT_LOAD(e);
    return v == v ? v : (SUMT_T)0;
}
/* Non-NaN elements of a run (nanmean's denominator). */
SUMT_HELPER static inline int64_t SUMT_V(count)(const SUMT_ELEM *restrict x, int64_t n) {
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
SUMT_HELPER static inline SUMT_T SUMT_V(block)(const SUMT_ELEM *restrict x, int64_t n) {
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

/* Two full blocks at once (x and y, SUMT_BLOCK elements each): block()'s additions for each,
 * interleaved so that two input streams are in flight (one stream leaves part of a core's
 * read bandwidth unused: the benchmark's read ceiling is reached with two). */
SUMT_HELPER static inline void SUMT_V(block2)(const SUMT_ELEM *restrict x, const SUMT_ELEM *restrict y,
                                               SUMT_T *px, SUMT_T *py) {
    SUMT_T la[SUMT_LANES], lb[SUMT_LANES];
    for (int l = 0; l < SUMT_LANES; l++) la[l] = lb[l] = 0;
    for (int64_t k = 0; k < SUMT_BLOCK; k += SUMT_LANES) {
        SUMT_T va[SUMT_LANES], vb[SUMT_LANES];
        for (int l = 0; l < SUMT_LANES; l += 8) {
            SUMT_LOAD8(va + l, x + k + l);
            SUMT_LOAD8(vb + l, y + k + l);
        }
        for (int l = 0; l < SUMT_LANES; l++) {
            la[l] += SUMT_MASK(va[l]);
            lb[l] += SUMT_MASK(vb[l]);
        }
    }
    for (int w = SUMT_LANES / 2; w > 0; w /= 2)
        for (int l = 0; l < w; l++) {
            la[l] += la[l + w];
            lb[l] += lb[l + w];
        }
    *px = la[0];
    *py = lb[0];
}

/* A contiguous run x[0 .. n) of one output's elements whose first reduced index is index0,
 * folded into *acc. count: also count non-NaN elements into acc->n (nanmean). The full
 * blocks are taken in windows of up to 32: block i with block i + half (block2), the
 * partials folded in block order afterwards, so the folds are those of one block at a
 * time. */
SUMT_ENTRY static void SUMT_V(row)(const SUMT_ELEM *x, int64_t n, int64_t index0, SUMT_ACC *acc, bool count) {
    int64_t head = (SUMT_BLOCK - index0 % SUMT_BLOCK) % SUMT_BLOCK;
    if (head > n) head = n;
    int64_t k = 0;
    if (!count) {
        if (head > 0) SUMT_FOLD(acc, SUMT_V(block)(x, head));
        k = head;
        while (SUMT_TWO_STREAMS && n - k >= 2 * SUMT_BLOCK) {
            int64_t nb = (n - k) / SUMT_BLOCK;
            if (nb > 32) nb = 32;
            const int64_t half = nb / 2;
            SUMT_T p[32];
            for (int64_t i = 0; i < half; i++)
                SUMT_V(block2)(x + k + i * SUMT_BLOCK, x + k + (i + half) * SUMT_BLOCK, &p[i], &p[i + half]);
            for (int64_t i = 0; i < 2 * half; i++) SUMT_FOLD(acc, p[i]);
            k += 2 * half * SUMT_BLOCK;
        }
#ifdef SUMT_BLOCKS
        while (n - k >= 2 * SUMT_BLOCK) {
            int64_t nb = (n - k) / SUMT_BLOCK;
            if (nb > 32) nb = 32;
            SUMT_T p[32];
            if (!(SUMT_BLOCKS(x + k, nb, p))) break;
            for (int64_t i = 0; i < nb; i++) SUMT_FOLD(acc, p[i]);
            k += nb * SUMT_BLOCK;
        }
#endif
    }
    while (k < n) {
        const int64_t m = k == 0 && head > 0 ? head : (n - k < SUMT_BLOCK ? n - k : SUMT_BLOCK);
        SUMT_FOLD(acc, SUMT_V(block)(x + k, m));
#if SUMT_NANSKIP
        if (count) ((SUMT_NACC *)acc)->n += SUMT_V(count)(x + k, m);
#else
        (void)count;
#endif
        k += m;
    }
}

/* Short runs: nrows runs of n elements (1 <= n <= SUMT_LANES for the unrolled cases), run j
 * at x + j * stride bytes, its accumulator at acc + j * acc_stride; each run must lie inside
 * one anchored block (the caller checks), so row() would fold block(run) once: the same
 * additions, without the per-run call, anchoring and loop control. */
SUMT_HELPER static inline __attribute__((always_inline)) void SUMT_V(short_n)(const char *x, int64_t stride,
                                                                               int64_t nrows, char *acc,
                                                                               int64_t acc_stride, const int n) {
    /* the next power of two, in a form that folds to a constant when n is one */
    const int p = n <= 1 ? 1 : n <= 2 ? 2 : n <= 4 ? 4 : n <= 8 ? 8 : n <= 16 ? 16 : n <= 32 ? 32 : 64;
    for (int64_t j = 0; j < nrows; j++) {
        const SUMT_ELEM *restrict e = (const SUMT_ELEM *)(x + j * stride);
        /* block()'s tree: element l in lane l, lanes n .. p hold zeros (the full path's
         * 0 + x only differs in the sign of a zero, which the fold normalises) */
        SUMT_T lane[SUMT_LANES];
        for (int l = 0; l < SUMT_LANES; l++) lane[l] = l < n ? SUMT_VAL(e[l]) : (SUMT_T)0;
#if SUMT_LANES >= 32
        if (p >= 32)
            for (int l = 0; l < 16; l++) lane[l] += lane[l + 16];
#endif
        if (p >= 16)
            for (int l = 0; l < 8; l++) lane[l] += lane[l + 8];
        if (p >= 8)
            for (int l = 0; l < 4; l++) lane[l] += lane[l + 4];
        if (p >= 4)
            for (int l = 0; l < 2; l++) lane[l] += lane[l + 2];
        if (p >= 2) lane[0] += lane[1];
        SUMT_FOLD((SUMT_ACC *)(acc + j * acc_stride), lane[0]);
    }
}

SUMT_ENTRY static void SUMT_V(rows_short)(const char *x, int64_t stride, int64_t n, int64_t nrows, char *acc,
                                          int64_t acc_stride) {
    switch (n) {
#define SUMT_CASE(N)                                                                               \
    case N: SUMT_V(short_n)(x, stride, nrows, acc, acc_stride, N); break;
        SUMT_CASE(1) SUMT_CASE(2) SUMT_CASE(3) SUMT_CASE(4) SUMT_CASE(5) SUMT_CASE(6) SUMT_CASE(7) SUMT_CASE(8)
        SUMT_CASE(9) SUMT_CASE(10) SUMT_CASE(11) SUMT_CASE(12) SUMT_CASE(13) SUMT_CASE(14) SUMT_CASE(15)
        SUMT_CASE(16)
#if SUMT_LANES >= 32
        SUMT_CASE(17) SUMT_CASE(18) SUMT_CASE(19) SUMT_CASE(20) SUMT_CASE(21) SUMT_CASE(22) SUMT_CASE(23)
        SUMT_CASE(24) SUMT_CASE(25) SUMT_CASE(26) SUMT_CASE(27) SUMT_CASE(28) SUMT_CASE(29) SUMT_CASE(30)
        SUMT_CASE(31) SUMT_CASE(32)
#endif
#undef SUMT_CASE
    default: SUMT_V(short_n)(x, stride, nrows, acc, acc_stride, (int)n); break;
    }
}

/* Sums the g rows (g <= SUMT_GROUP) at rows, rows + row_stride, ... (w contiguous elements
 * each) into part[0 .. w), each column in row order: part = ((0 + r0) + r1) + ... . Rows are
 * taken four at a time (four streams; the partial stays in a register between them), which
 * does not change the additions. */
SUMT_HELPER static inline void SUMT_V(group)(const char *rows, int64_t row_stride, int64_t g, int64_t w,
                                              SUMT_T *restrict part) {
    for (int64_t j = 0; j < w; j++) part[j] = 0;
    int64_t r = 0;
    for (; r + 4 <= g; r += 4) {
        const SUMT_ELEM *restrict r0 = (const SUMT_ELEM *)(rows + r * row_stride);
        const SUMT_ELEM *restrict r1 = (const SUMT_ELEM *)(rows + (r + 1) * row_stride);
        const SUMT_ELEM *restrict r2 = (const SUMT_ELEM *)(rows + (r + 2) * row_stride);
        const SUMT_ELEM *restrict r3 = (const SUMT_ELEM *)(rows + (r + 3) * row_stride);
        int64_t j = 0;
#ifdef SUMT_ADD8
        for (; j + 8 <= w; j += 8) {
            SUMT_ADD8(part + j, r0 + j);
            SUMT_ADD8(part + j, r1 + j);
            SUMT_ADD8(part + j, r2 + j);
            SUMT_ADD8(part + j, r3 + j);
        }
#endif
        for (; j < w; j++)
            part[j] = (((part[j] + SUMT_VAL(r0[j])) + SUMT_VAL(r1[j])) + SUMT_VAL(r2[j])) + SUMT_VAL(r3[j]);
    }
    for (; r < g; r++) {
        const SUMT_ELEM *restrict row = (const SUMT_ELEM *)(rows + r * row_stride);
        int64_t j = 0;
#ifdef SUMT_ADD8
        for (; j + 8 <= w; j += 8) SUMT_ADD8(part + j, row + j);
#endif
        for (; j < w; j++) part[j] += SUMT_VAL(row[j]);
    }
}

/* An outer block: size0 rows (reduced, first reduced index index0) of ncols contiguous
 * elements each, rows row_stride bytes apart; column j folds into the accumulator at
 * acc + j * acc_stride. Columns are taken in chunks of SUMT_COLS; for one chunk, the {s, c}
 * accumulators are copied into two plain arrays (so that the folds vectorise across
 * columns), then every group of rows is summed into a row of partials (SUMT_V(group)) and
 * folded, and the accumulators are written back. The folds are SUMT_FOLD's additions. */
SUMT_ENTRY static void SUMT_V(outer)(const char *in, int64_t row_stride, int64_t size0, int64_t ncols, char *acc,
                           int64_t acc_stride, int64_t index0, bool count) {
    SUMT_T part[SUMT_COLS], sv[SUMT_COLS], cv[SUMT_COLS];
#if SUMT_NANSKIP
    int32_t cnt[SUMT_COLS];
#else
    (void)count;
#endif
    for (int64_t j0 = 0; j0 < ncols; j0 += SUMT_COLS) {
        const int64_t w = ncols - j0 < SUMT_COLS ? ncols - j0 : SUMT_COLS;
        char *ab = acc + j0 * acc_stride;
        for (int64_t j = 0; j < w; j++) {
            const SUMT_ACC *a = (const SUMT_ACC *)(ab + j * acc_stride);
            sv[j] = a->s;
            cv[j] = a->c;
        }
        for (int64_t i0 = 0; i0 < size0;) {
            int64_t g = SUMT_GROUP - (index0 + i0) % SUMT_GROUP;
            if (g > size0 - i0) g = size0 - i0;
            const char *rows = in + i0 * row_stride + j0 * (int64_t)sizeof(SUMT_ELEM);
            SUMT_V(group)(rows, row_stride, g, w, part);
            for (int64_t j = 0; j < w; j++) {
                SUMT_ACC a;
                a.s = sv[j];
                a.c = cv[j];
                SUMT_FOLD(&a, part[j]);
                sv[j] = a.s;
                cv[j] = a.c;
            }
#if SUMT_NANSKIP
            if (count) {
                for (int64_t j = 0; j < w; j++) cnt[j] = 0;
                for (int64_t r = 0; r < g; r++) {
                    const SUMT_ELEM *restrict row = (const SUMT_ELEM *)(rows + r * row_stride);
                    for (int64_t j = 0; j < w; j++) {
                        SUMT_T v = SUMT_LOAD(row[j]);
                        cnt[j] += v == v;
                    }
                }
                for (int64_t j = 0; j < w; j++) ((SUMT_NACC *)(ab + j * acc_stride))->n += cnt[j];
            }
#endif
            i0 += g;
        }
        for (int64_t j = 0; j < w; j++) {
            SUMT_ACC *a = (SUMT_ACC *)(ab + j * acc_stride);
            a->s = sv[j];
            a->c = cv[j];
        }
    }
}

#undef SUMT_VAL
#undef SUMT_MASK
