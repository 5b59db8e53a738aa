/* Writing a user reduction's callbacks (ops/reduction.h) from per-element functions:
 *
 *   TENSOR_REDUCTION_FNS(NAME, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE, PROJECT)
 *
 * defines, in the including file, static callbacks and a `static const tensor_reduction_fns
 * NAME` to put in a tensor_reduction_def's fns[] slot of the value type VAL_T (float: F32,
 * double: F64, int64_t: I64). The functions (static inline ones compile to straight-line code):
 *   ACC_T IDENTITY(void)
 *   VAL_T MAP(const VAL_T *x)                x[k]: the element of input k, k < NIN
 *   ACC_T REDUCE(ACC_T acc, VAL_T v)
 *   ACC_T COMBINE(ACC_T earlier, ACC_T later)
 *   VAL_T PROJECT(ACC_T acc, int64_t count)  count: elements reduced into this output
 * ACC_T may be a struct (a running max with its rescaled sum, say).
 *
 * The arithmetic, which depends on the shape only (results are the same run to run, for any
 * thread count and on every CPU): a run of elements is cut into blocks at multiples of
 * TENSOR_REDUCTION_BLOCK of the reduced index; a block of 2 * TENSOR_REDUCTION_KIT_LANES
 * elements or more keeps TENSOR_REDUCTION_KIT_LANES independent accumulators (block element i
 * in lane i % LANES, the lanes combined by a fixed pairwise tree), a shorter one folds in order;
 * each block's result is combined into the accumulator in block order. The independent lanes
 * are what let the compiler vectorise simple functors.
 *
 * The loops are compiled in the including file, as the library's own are: on x86-64 GCC and
 * Clang a second copy for AVX2 and F16C, taken on CPUs that have both (the same additions, so
 * the same bits: without -ffast-math the compiler only vectorises across the independent
 * lanes; define TENSOR_REDUCTION_KIT_NO_AVX2 to keep one copy); pairs of full blocks of values
 * are read side by side (two streams in flight); and bfloat16 / float16 inputs are converted in
 * registers (fold_stored) instead of through the library's buffers, float16 with F16C in the
 * AVX2 copy (and in the one copy of a file compiled with F16C enabled, e.g. -mf16c): an exact
 * conversion, so the same bits as the integer one.
 *
 * When the reduced dim is not the innermost (a sum over dim 0 of a row-major matrix), each
 * output meets one element per row: fold_columns takes whole rows, read as they lie, into a
 * row of accumulators, with each output's arithmetic that of fold over its elements (the same
 * blocks, lanes and tree), so the bits do not depend on the layout; the loops run across
 * outputs, which the compiler vectorises for simple functors (partial results for up to 8 KB
 * of accumulators a row, 48 KB in all, 96 KB for 16-bit elements, in one heap block a call; a
 * call whose tile fits 8 KB, or whose allocation fails, keeps it on the stack).
 *
 * A reduction that needs the elements' indices (argmax-like) writes tensor_reduction_fns by
 * hand: fold receives the index of its first element (fold_columns that of its first row). */
#ifndef TENSOR_REDUCTION_KIT_H
#define TENSOR_REDUCTION_KIT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tinytensor/ops/reduction.h"
#include "tinytensor/runtime/dtype_convert.h"

/* Independent accumulators of the fold (a power of two): enough dependency chains to keep a
 * vectorised add busy (four or eight 4-wide or 8-wide vectors). */
#define TENSOR_REDUCTION_KIT_LANES 32

/* The kit's internals from here on (names ending in _). */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(__AVX2__) && \
    !defined(TENSOR_REDUCTION_KIT_NO_AVX2)
#define TENSOR_KIT_IF_AVX2_(x) x
#define TENSOR_KIT_IF_AVX2_ELSE_(x, y) x
/* The copy converts float16 with F16C too. Every AVX2 CPU has it; GCC can also ask (a virtual
 * machine's CPUID might leave it out), clang's __builtin_cpu_supports knows no "f16c" (as
 * cpu/cpu_isa.c). */
#ifdef __clang__
#define TENSOR_KIT_HAS_AVX2_() __builtin_cpu_supports("avx2")
#else
#define TENSOR_KIT_HAS_AVX2_() (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c"))
#endif
#define TENSOR_KIT_AVX2_COPY_ 1
#else
#define TENSOR_KIT_IF_AVX2_(x)
#define TENSOR_KIT_IF_AVX2_ELSE_(x, y) y
#define TENSOR_KIT_HAS_AVX2_() 0
#define TENSOR_KIT_AVX2_COPY_ 0
#endif
#define TENSOR_KIT_AVX2_ATTR_ __attribute__((target("avx2,f16c")))
/* Whether the baseline copy may convert float16 with F16C: only where the compiler was told
 * the CPU has it (-mf16c, -march=...); -mavx2 alone does not say so. */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && defined(__F16C__)
#define TENSOR_KIT_BASE_F16C_ 1
#else
#define TENSOR_KIT_BASE_F16C_ 0
#endif
#if TENSOR_KIT_AVX2_COPY_ || TENSOR_KIT_BASE_F16C_
#include <immintrin.h>
#endif
#if defined(__GNUC__) || defined(__clang__)
#define TENSOR_KIT_PREFETCH_(p) __builtin_prefetch(p)
#else
#define TENSOR_KIT_PREFETCH_(p) ((void)0)
#endif
/* How far ahead converted loads prefetch: 4 KiB, as the library's bfloat16 sum does (faster
 * than the hardware prefetchers alone there; plain float loads, read two streams at a time,
 * were slower with it: docs/perf_log.md). */
#define TENSOR_KIT_PREFETCH_BYTES_ 4096
/* Element loads: values as they are, 16-bit floats converted. */
#define TENSOR_KIT_LD_VAL_(VAL_T, e) (e)
#define TENSOR_KIT_LD_BF16_(VAL_T, e) ((VAL_T)tensor_bf16_to_f32(e))
#define TENSOR_KIT_LD_F16_(VAL_T, e) ((VAL_T)tensor_cvt_vec_f16_to_f32(e))

/* The lanes' fixed tree, (0 1) (2 3) ... then pairs of those, as a value: each level written
 * into an array of its own, so that the compiler can vectorise a level of floats or doubles
 * (even and odd lanes paired by permutes) where the tree in place over one array ran scalar,
 * through the stack, a third of a 100-element row's fold. The same pairs in the same order. */
#if TENSOR_REDUCTION_KIT_LANES != 32
#error "TENSOR_KIT_TREE_ is written for 32 lanes"
#endif
#define TENSOR_KIT_TREE_(ACC_T, COMBINE, L, OUT)                                                                \
    do {                                                                                                        \
        ACC_T t16_[16], t8_[8], t4_[4];                                                                         \
        for (int j_ = 0; j_ < 16; j_++) t16_[j_] = COMBINE((L)[2 * j_], (L)[2 * j_ + 1]);                       \
        for (int j_ = 0; j_ < 8; j_++) t8_[j_] = COMBINE(t16_[2 * j_], t16_[2 * j_ + 1]);                        \
        for (int j_ = 0; j_ < 4; j_++) t4_[j_] = COMBINE(t8_[2 * j_], t8_[2 * j_ + 1]);                          \
        (OUT) = COMBINE(COMBINE(t4_[0], t4_[1]), COMBINE(t4_[2], t4_[3]));                                      \
    } while (0)

/* FN(a0, in, m): one block of m <= TENSOR_REDUCTION_BLOCK elements (in[k]: input k's, of
 * ELEM_T, loaded with LD) folded into a0. PF: prefetch ahead. */
#define TENSOR_KIT_BLOCK_FN_(FN, ATTR, NIN, ELEM_T, LD, PF, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE)         \
    ATTR static inline ACC_T FN(ACC_T a0_, const ELEM_T *const *in_, int64_t m_) {                               \
        VAL_T x_[(NIN) > 0 ? (NIN) : 1];                                                                        \
        if (m_ < 2 * TENSOR_REDUCTION_KIT_LANES) {                                                              \
            for (int64_t i_ = 0; i_ < m_; i_++) {                                                               \
                for (int k_ = 0; k_ < (NIN); k_++) x_[k_] = LD(VAL_T, in_[k_][i_]);                             \
                a0_ = REDUCE(a0_, MAP(x_));                                                                     \
            }                                                                                                   \
            return a0_;                                                                                         \
        }                                                                                                       \
        ACC_T l_[TENSOR_REDUCTION_KIT_LANES];                                                                   \
        for (int q_ = 0; q_ < TENSOR_REDUCTION_KIT_LANES; q_++) l_[q_] = IDENTITY();                            \
        int64_t i_ = 0;                                                                                         \
        for (; i_ + TENSOR_REDUCTION_KIT_LANES <= m_; i_ += TENSOR_REDUCTION_KIT_LANES) {                       \
            if (PF)                                                                                             \
                for (int k_ = 0; k_ < (NIN); k_++)                                                              \
                    TENSOR_KIT_PREFETCH_(in_[k_] + i_ + TENSOR_KIT_PREFETCH_BYTES_ / sizeof(ELEM_T));            \
            for (int q_ = 0; q_ < TENSOR_REDUCTION_KIT_LANES; q_++) {                                           \
                for (int k_ = 0; k_ < (NIN); k_++) x_[k_] = LD(VAL_T, in_[k_][i_ + q_]);                        \
                l_[q_] = REDUCE(l_[q_], MAP(x_));                                                               \
            }                                                                                                   \
        }                                                                                                       \
        for (int q_ = 0; i_ + q_ < m_; q_++) { /* the tail joins the first lanes in turn */                     \
            for (int k_ = 0; k_ < (NIN); k_++) x_[k_] = LD(VAL_T, in_[k_][i_ + q_]);                            \
            l_[q_] = REDUCE(l_[q_], MAP(x_));                                                                   \
        }                                                                                                       \
        ACC_T t_;                                                                                               \
        TENSOR_KIT_TREE_(ACC_T, COMBINE, l_, t_);                                                               \
        return COMBINE(a0_, t_);                                                                                \
    }

/* 32 = TENSOR_REDUCTION_KIT_LANES float16 elements at src into floats at dst, 8 per vcvtph2ps
 * (which gives tensor_f16_to_f32's bits: the conversion is exact, and a NaN keeps its sign and
 * payload and is made quiet). Inside an F16C function only. */
#define TENSOR_KIT_CVT_LANES_F16C_(dst, src)                                                                    \
    for (int g_ = 0; g_ < TENSOR_REDUCTION_KIT_LANES; g_ += 8)                                                  \
    _mm256_storeu_ps((dst) + g_, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)((src) + g_))))

/* TENSOR_KIT_BLOCK_FN_ for float16 elements with F16C (ATTR must enable it): each group of
 * lanes is converted into a small array first, 8 elements per instruction, then the same lane
 * loop runs over it. Elements go to the same lanes and the same tree as there; only the
 * conversion differs, and it gives the same floats. Short blocks and the tail convert one by
 * one. */
#define TENSOR_KIT_BLOCK_F16C_FN_(FN, ATTR, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE)                  \
    ATTR static inline ACC_T FN(ACC_T a0_, const uint16_t *const *in_, int64_t m_) {                            \
        VAL_T x_[(NIN) > 0 ? (NIN) : 1];                                                                        \
        if (m_ < 2 * TENSOR_REDUCTION_KIT_LANES) {                                                              \
            for (int64_t i_ = 0; i_ < m_; i_++) {                                                               \
                for (int k_ = 0; k_ < (NIN); k_++) x_[k_] = TENSOR_KIT_LD_F16_(VAL_T, in_[k_][i_]);             \
                a0_ = REDUCE(a0_, MAP(x_));                                                                     \
            }                                                                                                   \
            return a0_;                                                                                         \
        }                                                                                                       \
        float c_[(NIN) > 0 ? (NIN) : 1][TENSOR_REDUCTION_KIT_LANES] __attribute__((aligned(32)));               \
        ACC_T l_[TENSOR_REDUCTION_KIT_LANES];                                                                   \
        for (int q_ = 0; q_ < TENSOR_REDUCTION_KIT_LANES; q_++) l_[q_] = IDENTITY();                            \
        int64_t i_ = 0;                                                                                         \
        for (; i_ + TENSOR_REDUCTION_KIT_LANES <= m_; i_ += TENSOR_REDUCTION_KIT_LANES) {                       \
            for (int k_ = 0; k_ < (NIN); k_++) {                                                                \
                TENSOR_KIT_PREFETCH_(in_[k_] + i_ + TENSOR_KIT_PREFETCH_BYTES_ / sizeof(uint16_t));             \
                TENSOR_KIT_CVT_LANES_F16C_(c_[k_], in_[k_] + i_);                                               \
            }                                                                                                   \
            for (int q_ = 0; q_ < TENSOR_REDUCTION_KIT_LANES; q_++) {                                           \
                for (int k_ = 0; k_ < (NIN); k_++) x_[k_] = (VAL_T)c_[k_][q_];                                  \
                l_[q_] = REDUCE(l_[q_], MAP(x_));                                                               \
            }                                                                                                   \
        }                                                                                                       \
        for (int q_ = 0; i_ + q_ < m_; q_++) {                                                                  \
            for (int k_ = 0; k_ < (NIN); k_++) x_[k_] = TENSOR_KIT_LD_F16_(VAL_T, in_[k_][i_ + q_]);            \
            l_[q_] = REDUCE(l_[q_], MAP(x_));                                                                   \
        }                                                                                                       \
        ACC_T t_;                                                                                               \
        TENSOR_KIT_TREE_(ACC_T, COMBINE, l_, t_);                                                               \
        return COMBINE(a0_, t_);                                                                                \
    }

/* FN(a, b, pa, pb): two full blocks read side by side (a[k], b[k]: input k's), each block's
 * lane tree as TENSOR_KIT_BLOCK_FN_ computes it, into *pa and *pb. */
#define TENSOR_KIT_BLOCK2_FN_(FN, ATTR, NIN, ELEM_T, LD, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE)           \
    ATTR static inline void FN(const ELEM_T *const *a_, const ELEM_T *const *b_, ACC_T *pa_, ACC_T *pb_) {      \
        VAL_T x_[(NIN) > 0 ? (NIN) : 1], y_[(NIN) > 0 ? (NIN) : 1];                                             \
        ACC_T l_[TENSOR_REDUCTION_KIT_LANES], r_[TENSOR_REDUCTION_KIT_LANES];                                   \
        for (int q_ = 0; q_ < TENSOR_REDUCTION_KIT_LANES; q_++) l_[q_] = r_[q_] = IDENTITY();                   \
        for (int64_t i_ = 0; i_ < TENSOR_REDUCTION_BLOCK; i_ += TENSOR_REDUCTION_KIT_LANES)                     \
            for (int q_ = 0; q_ < TENSOR_REDUCTION_KIT_LANES; q_++) {                                           \
                for (int k_ = 0; k_ < (NIN); k_++) {                                                            \
                    x_[k_] = LD(VAL_T, a_[k_][i_ + q_]);                                                        \
                    y_[k_] = LD(VAL_T, b_[k_][i_ + q_]);                                                        \
                }                                                                                               \
                l_[q_] = REDUCE(l_[q_], MAP(x_));                                                               \
                r_[q_] = REDUCE(r_[q_], MAP(y_));                                                               \
            }                                                                                                   \
        TENSOR_KIT_TREE_(ACC_T, COMBINE, l_, *pa_);                                                             \
        TENSOR_KIT_TREE_(ACC_T, COMBINE, r_, *pb_);                                                             \
    }

/* Full blocks taken together by a run with PAIRS: up to this many, block i read beside block
 * i + half (streams far apart ran faster than neighbours, as in the library's float sum). */
#define TENSOR_KIT_WINDOW_ 32

/* FN(a0, in, n, first): a run of n elements whose first has reduced index `first`, cut into
 * blocks at multiples of TENSOR_REDUCTION_BLOCK and folded into a0 block by block; with PAIRS,
 * full blocks are read two at a time (BLK2) and their results folded in block order after. */
#define TENSOR_KIT_RUN_FN_(FN, ATTR, NIN, ELEM_T, ACC_T, COMBINE, BLK, BLK2, PAIRS)                              \
    ATTR static ACC_T FN(ACC_T a0_, const ELEM_T *const *in_, int64_t n_, int64_t first_) {                      \
        const ELEM_T *p_[(NIN) > 0 ? (NIN) : 1], *r_[(NIN) > 0 ? (NIN) : 1];                                    \
        int64_t i_ = 0, m_ = (TENSOR_REDUCTION_BLOCK - first_ % TENSOR_REDUCTION_BLOCK) % TENSOR_REDUCTION_BLOCK; \
        if (m_ == 0) m_ = TENSOR_REDUCTION_BLOCK;                                                               \
        while (i_ < n_) {                                                                                       \
            if (m_ > n_ - i_) m_ = n_ - i_;                                                                     \
            if ((PAIRS) && m_ == TENSOR_REDUCTION_BLOCK && n_ - i_ >= 2 * TENSOR_REDUCTION_BLOCK) {             \
                int64_t nb_ = (n_ - i_) / TENSOR_REDUCTION_BLOCK;                                               \
                if (nb_ > TENSOR_KIT_WINDOW_) nb_ = TENSOR_KIT_WINDOW_;                                         \
                const int64_t half_ = nb_ / 2;                                                                  \
                ACC_T t_[TENSOR_KIT_WINDOW_];                                                                   \
                for (int64_t h_ = 0; h_ < half_; h_++) {                                                        \
                    for (int k_ = 0; k_ < (NIN); k_++) {                                                        \
                        p_[k_] = in_[k_] + i_ + h_ * TENSOR_REDUCTION_BLOCK;                                    \
                        r_[k_] = p_[k_] + half_ * TENSOR_REDUCTION_BLOCK;                                       \
                    }                                                                                           \
                    BLK2(p_, r_, &t_[h_], &t_[h_ + half_]);                                                     \
                }                                                                                               \
                for (int64_t h_ = 0; h_ < 2 * half_; h_++) a0_ = COMBINE(a0_, t_[h_]);                          \
                i_ += 2 * half_ * TENSOR_REDUCTION_BLOCK;                                                       \
            } else {                                                                                            \
                for (int k_ = 0; k_ < (NIN); k_++) p_[k_] = in_[k_] + i_;                                       \
                a0_ = BLK(a0_, p_, m_);                                                                         \
                i_ += m_;                                                                                       \
            }                                                                                                   \
            m_ = TENSOR_REDUCTION_BLOCK;                                                                        \
        }                                                                                                       \
        return a0_;                                                                                             \
    }

/* Columns (fold_columns): n accumulators, acc_stride bytes apart, each folding one column of
 * nrows rows (input k's row r at rows[k] + r * row_strides[k] bytes), whose reduced indices
 * are first, first + 1, ...: each column ends as fold leaves it for its run (the same blocks,
 * lanes and tree), computed for TENSOR_KIT_COLS_W_ columns side by side so that the compiler
 * vectorises across columns.
 *
 * The lanes go one after another: lane q's rows (q, q + LANES, ... of a block) fold into one
 * row of W accumulators, eight rows at a time (eight streams of whole row pieces in flight;
 * the folds stay in row order), and the finished lanes enter the tree in post-order, so only
 * the lane in progress and five pending subtrees are kept (6 x W accumulators, 48 or 96 KB,
 * allocated once a call: a thread's stack may be far smaller; pieces half as long streamed
 * markedly slower: docs/perf_log.md). Reading the rows in order
 * instead needs all 32 lanes at hand: with them in L1 the pieces of rows are too short to
 * stream, with full rows they no longer fit a cache. */
#if defined(__GNUC__) && !defined(__clang__)
#define TENSOR_KIT_NO_UNROLL_ _Pragma("GCC unroll 1")
#else
#define TENSOR_KIT_NO_UNROLL_
#endif
/* W: 8 KiB of accumulators a row; 16 KiB (4096 floats) for 16-bit elements into 4-byte
 * accumulators, so that their row pieces are 8 KiB long too (their 4 KiB pieces streamed
 * slower: docs/perf_log.md). */
#define TENSOR_KIT_COLS_W_(ACC_T, ELEM_T)                                                                       \
    (sizeof(ELEM_T) == 2 && sizeof(ACC_T) == 4 ? 4096 : 8192 / sizeof(ACC_T) > 0 ? 8192 / sizeof(ACC_T) : 1)
#if defined(__GNUC__) || defined(__clang__)
#define TENSOR_KIT_INLINE_ __attribute__((always_inline)) inline
#else
#define TENSOR_KIT_INLINE_ inline
#endif
#if defined(__cplusplus)
#define TENSOR_KIT_RESTRICT_ __restrict
#define TENSOR_KIT_ALIGNOF_(T) alignof(T)
#else
#define TENSOR_KIT_RESTRICT_ restrict
#define TENSOR_KIT_ALIGNOF_(T) _Alignof(T)
#endif
/* Bytes of accumulators a fold_columns call keeps on its stack; a larger tile is a heap block. */
#define TENSOR_KIT_COLS_STACK_ 8192
/* One row folded into a_ at column c_ (SRC(u, k): input k's element in row u). Written out
 * for each row rather than looped: GCC -O2 vectorises the column loop around explicit steps
 * only. */
#define TENSOR_KIT_STEP_(U, u, NIN, VAL_T, LD, MAP, REDUCE, SRC)                                                \
    if ((U) > (u)) {                                                                                            \
        for (int k_ = 0; k_ < (NIN); k_++) x_[k_] = LD(VAL_T, SRC(u, k_));                                      \
        a_ = REDUCE(a_, MAP(x_));                                                                               \
    }
#define TENSOR_KIT_STEPS_(U, NIN, VAL_T, LD, MAP, REDUCE, SRC)                                                  \
    TENSOR_KIT_STEP_(U, 0, NIN, VAL_T, LD, MAP, REDUCE, SRC)                                                    \
    TENSOR_KIT_STEP_(U, 1, NIN, VAL_T, LD, MAP, REDUCE, SRC)                                                    \
    TENSOR_KIT_STEP_(U, 2, NIN, VAL_T, LD, MAP, REDUCE, SRC)                                                    \
    TENSOR_KIT_STEP_(U, 3, NIN, VAL_T, LD, MAP, REDUCE, SRC)                                                    \
    TENSOR_KIT_STEP_(U, 4, NIN, VAL_T, LD, MAP, REDUCE, SRC)                                                    \
    TENSOR_KIT_STEP_(U, 5, NIN, VAL_T, LD, MAP, REDUCE, SRC)                                                    \
    TENSOR_KIT_STEP_(U, 6, NIN, VAL_T, LD, MAP, REDUCE, SRC)                                                    \
    TENSOR_KIT_STEP_(U, 7, NIN, VAL_T, LD, MAP, REDUCE, SRC)
#define TENSOR_KIT_SRC_P_(u, k) p_[u][k][c_]
#define TENSOR_KIT_SRC_T_(u, k) t_[u][k][cc_]
/* ROWS(U, ...): rows p_[0 .. U) (U = 1 or 8; p_[u][k] points at input k's w_ elements) folded
 * in order into l_[0 .. w_). The F16C form converts the next 8 elements of each row into t_
 * first (one vcvtph2ps each, written out: a loop of them streamed slower), in an F16C
 * function only. */
#define TENSOR_KIT_ROWS_LD_(U, NIN, VAL_T, ACC_T, LD, MAP, REDUCE)                                              \
    for (int64_t c_ = 0; c_ < w_; c_++) {                                                                       \
        ACC_T a_ = l_[c_];                                                                                      \
        TENSOR_KIT_STEPS_(U, NIN, VAL_T, LD, MAP, REDUCE, TENSOR_KIT_SRC_P_)                                    \
        l_[c_] = a_;                                                                                            \
    }
#define TENSOR_KIT_CVT_F16C_(U, u, NIN)                                                                         \
    if ((U) > (u))                                                                                              \
        for (int k_ = 0; k_ < (NIN); k_++)                                                                      \
            _mm256_storeu_ps(t_[u][k_],                                                                         \
                             _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(p_[u][k_] + h_))));
#define TENSOR_KIT_ROWS_F16C_(U, NIN, VAL_T, ACC_T, LD, MAP, REDUCE)                                            \
    {                                                                                                           \
        int64_t h_ = 0;                                                                                         \
        for (; h_ + 8 <= w_; h_ += 8) {                                                                         \
            float t_[8][(NIN) > 0 ? (NIN) : 1][8];                                                              \
            TENSOR_KIT_CVT_F16C_(U, 0, NIN) TENSOR_KIT_CVT_F16C_(U, 1, NIN) TENSOR_KIT_CVT_F16C_(U, 2, NIN)     \
            TENSOR_KIT_CVT_F16C_(U, 3, NIN) TENSOR_KIT_CVT_F16C_(U, 4, NIN) TENSOR_KIT_CVT_F16C_(U, 5, NIN)     \
            TENSOR_KIT_CVT_F16C_(U, 6, NIN) TENSOR_KIT_CVT_F16C_(U, 7, NIN)                                     \
            TENSOR_KIT_NO_UNROLL_ for (int cc_ = 0; cc_ < 8; cc_++) {                                           \
                ACC_T a_ = l_[h_ + cc_];                                                                        \
                TENSOR_KIT_STEPS_(U, NIN, VAL_T, TENSOR_KIT_LD_VAL_, MAP, REDUCE, TENSOR_KIT_SRC_T_)            \
                l_[h_ + cc_] = a_;                                                                              \
            }                                                                                                   \
        }                                                                                                       \
        for (int64_t c_ = h_; c_ < w_; c_++) {                                                                  \
            ACC_T a_ = l_[c_];                                                                                  \
            TENSOR_KIT_STEPS_(U, NIN, VAL_T, TENSOR_KIT_LD_F16_, MAP, REDUCE, TENSOR_KIT_SRC_P_)                \
            l_[c_] = a_;                                                                                        \
        }                                                                                                       \
    }

/* FN##_tile_(acc, acc_stride, rows, row_strides, nrows, first, c0, w): columns c0 .. c0 + w
 * (w <= W; inlined, so that a constant w gives fixed-length loops, which GCC -O2 vectorises
 * without run-time checks). FN(acc, acc_stride, rows, row_strides, nrows, n, first): every
 * column, W at a time. */
#define TENSOR_KIT_COLS_FN_(FN, ATTR, NIN, ELEM_T, ROWS, LD, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE)      \
    ATTR static TENSOR_KIT_INLINE_ void FN##_tile_(char *acc_, size_t acc_stride_, const char *const *rows_,    \
                                                   const int64_t *rs_, int64_t nrows_, int64_t first_,          \
                                                   int64_t c0_, const int64_t w_, ACC_T *TENSOR_KIT_RESTRICT_ l_, \
                                                   ACC_T *TENSOR_KIT_RESTRICT_ sub_, const int64_t tw_) {         \
        const ELEM_T *p_[8][(NIN) > 0 ? (NIN) : 1];                                                             \
        VAL_T x_[(NIN) > 0 ? (NIN) : 1];                                                                        \
        int64_t r_ = 0, m_ = (TENSOR_REDUCTION_BLOCK - first_ % TENSOR_REDUCTION_BLOCK) % TENSOR_REDUCTION_BLOCK; \
        if (m_ == 0) m_ = TENSOR_REDUCTION_BLOCK;                                                               \
        while (r_ < nrows_) {                                                                                   \
            if (m_ > nrows_ - r_) m_ = nrows_ - r_;                                                             \
            if (m_ < 2 * TENSOR_REDUCTION_KIT_LANES) { /* a short block folds in order */                       \
                for (int64_t c_ = 0; c_ < w_; c_++)                                                             \
                    memcpy(&l_[c_], acc_ + (size_t)(c0_ + c_) * acc_stride_, sizeof(ACC_T));                    \
                int64_t i_ = r_;                                                                                \
                for (; i_ + 8 <= r_ + m_; i_ += 8) {                                                            \
                    for (int u_ = 0; u_ < 8; u_++)                                                              \
                        for (int k_ = 0; k_ < (NIN); k_++)                                                      \
                            p_[u_][k_] = (const ELEM_T *)(const void *)(rows_[k_] + (i_ + u_) * rs_[k_]) + c0_; \
                    ROWS(8, NIN, VAL_T, ACC_T, LD, MAP, REDUCE)                                                 \
                }                                                                                               \
                for (; i_ < r_ + m_; i_++) {                                                                    \
                    for (int k_ = 0; k_ < (NIN); k_++)                                                          \
                        p_[0][k_] = (const ELEM_T *)(const void *)(rows_[k_] + i_ * rs_[k_]) + c0_;             \
                    ROWS(1, NIN, VAL_T, ACC_T, LD, MAP, REDUCE)                                                 \
                }                                                                                               \
                for (int64_t c_ = 0; c_ < w_; c_++)                                                             \
                    memcpy(acc_ + (size_t)(c0_ + c_) * acc_stride_, &l_[c_], sizeof(ACC_T));                    \
            } else { /* block row i in lane i % LANES; the lanes' tree; into the accumulator */                 \
                for (int q_ = 0; q_ < TENSOR_REDUCTION_KIT_LANES; q_++) {                                       \
                    for (int64_t c_ = 0; c_ < w_; c_++) l_[c_] = IDENTITY();                                    \
                    int64_t i_ = r_ + q_;                                                                       \
                    for (; i_ + 7 * TENSOR_REDUCTION_KIT_LANES < r_ + m_; i_ += 8 * TENSOR_REDUCTION_KIT_LANES) { \
                        for (int u_ = 0; u_ < 8; u_++)                                                          \
                            for (int k_ = 0; k_ < (NIN); k_++)                                                  \
                                p_[u_][k_] = (const ELEM_T *)(const void *)(rows_[k_] + (i_ + u_ *              \
                                             TENSOR_REDUCTION_KIT_LANES) * rs_[k_]) + c0_;                      \
                        /* the start of the next eight rows' pieces: the streams run ahead from there */        \
                        for (int u_ = 0; u_ < 8; u_++)                                                          \
                            for (int k_ = 0; k_ < (NIN); k_++)                                                  \
                                for (int o_ = 0; o_ < 256; o_ += 64)                                            \
                                    TENSOR_KIT_PREFETCH_((const char *)(const void *)p_[u_][k_] +               \
                                                         8 * TENSOR_REDUCTION_KIT_LANES * rs_[k_] + o_);        \
                        ROWS(8, NIN, VAL_T, ACC_T, LD, MAP, REDUCE)                                             \
                    }                                                                                           \
                    for (; i_ < r_ + m_; i_ += TENSOR_REDUCTION_KIT_LANES) {                                    \
                        for (int k_ = 0; k_ < (NIN); k_++)                                                      \
                            p_[0][k_] = (const ELEM_T *)(const void *)(rows_[k_] + i_ * rs_[k_]) + c0_;         \
                        ROWS(1, NIN, VAL_T, ACC_T, LD, MAP, REDUCE)                                             \
                    }                                                                                           \
                    /* the tree (TENSOR_KIT_BLOCK_FN_'s pairs) in post-order: lane q closes the subtrees \
                     * of q's low one bits; sub_ row b holds the pending left subtree of 2^b lanes */          \
                    int b_ = 0;                                                                                 \
                    for (; (q_ >> b_) & 1; b_++)                                                                \
                        for (int64_t c_ = 0; c_ < w_; c_++) l_[c_] = COMBINE(sub_[b_ * tw_ + c_], l_[c_]);      \
                    if (q_ < TENSOR_REDUCTION_KIT_LANES - 1)                                                    \
                        for (int64_t c_ = 0; c_ < w_; c_++) sub_[b_ * tw_ + c_] = l_[c_];                       \
                }                                                                                               \
                for (int64_t c_ = 0; c_ < w_; c_++) {                                                           \
                    ACC_T a_;                                                                                   \
                    memcpy(&a_, acc_ + (size_t)(c0_ + c_) * acc_stride_, sizeof a_);                            \
                    a_ = COMBINE(a_, l_[c_]);                                                                   \
                    memcpy(acc_ + (size_t)(c0_ + c_) * acc_stride_, &a_, sizeof a_);                            \
                }                                                                                               \
            }                                                                                                   \
            r_ += m_;                                                                                           \
            m_ = TENSOR_REDUCTION_BLOCK;                                                                        \
        }                                                                                                       \
    }                                                                                                           \
    ATTR static void FN(char *acc_, size_t acc_stride_, const char *const *rows_, const int64_t *rs_,           \
                        int64_t nrows_, int64_t n_, int64_t first_) {                                           \
        const int64_t w_ = (int64_t)TENSOR_KIT_COLS_W_(ACC_T, ELEM_T);                                         \
        /* The tile's accumulators: the row in progress, and 5 pending subtrees unless every block \
         * is short (fewer than 2 x LANES rows: folded in order into the one row), for at most W  \
         * columns. In TENSOR_KIT_COLS_STACK_ bytes of stack when they fit (staged pieces, rows \
         * of a kept dim 0), else one heap block a call (48 or 96 KB would not fit a small    \
         * thread stack); without memory, narrower tiles on the stack. */                      \
        const int64_t nrow_ = nrows_ < 2 * TENSOR_REDUCTION_KIT_LANES ? 1 : 6;                                  \
        const int64_t cw_ = n_ < w_ ? n_ : w_;                                                                  \
        ACC_T small_[TENSOR_KIT_COLS_STACK_ / sizeof(ACC_T) > 6 ? TENSOR_KIT_COLS_STACK_ / sizeof(ACC_T) : 6];  \
        const int64_t cap_ = (int64_t)(sizeof small_ / sizeof(ACC_T)) / nrow_; /* columns small_ holds */     \
        const size_t al_ = TENSOR_KIT_ALIGNOF_(ACC_T); /* malloc's alignment may be less than ACC_T's */      \
        void *raw_ = cw_ > cap_ ? malloc((size_t)(nrow_ * cw_) * sizeof(ACC_T) + al_ - 1) : NULL;               \
        ACC_T *buf_ = raw_ != NULL ? (ACC_T *)(void *)(((uintptr_t)raw_ + al_ - 1) & ~(uintptr_t)(al_ - 1)) : NULL; \
        ACC_T *const t_ = buf_ != NULL ? buf_ : small_;                                                         \
        const int64_t tw_ = buf_ != NULL || cw_ <= cap_ ? cw_ : cap_;                                           \
        int64_t c0_ = 0;                                                                                        \
        /* two copies of the tile's loops: whole tiles of the constant width, and the rest */      \
        if (tw_ == w_)                                                                                          \
            for (; c0_ + w_ <= n_; c0_ += w_)                                                                   \
                FN##_tile_(acc_, acc_stride_, rows_, rs_, nrows_, first_, c0_, w_, t_, t_ + w_, w_);            \
        for (; c0_ < n_; c0_ += tw_)                                                                            \
            FN##_tile_(acc_, acc_stride_, rows_, rs_, nrows_, first_, c0_, n_ - c0_ < tw_ ? n_ - c0_ : tw_,     \
                       t_, t_ + tw_, tw_);                                                                      \
        free(raw_);                                                                                             \
    }

/* One copy of the loops (SFX: _base_ or _avx2_, ATTR its target; F16C: 1 where ATTR or the
 * compiler enables F16C). Plain values of one input read pairs of blocks (two streams); of
 * several inputs, one block at a time (already a stream per input: pairs made four for a fused
 * sum(a * b), slower on float32 rows for the same bits); converted loads read one stream and
 * prefetch (two streams 4 KiB apart were slower there, in the library's bfloat16 sum). */
#define TENSOR_KIT_VARIANT_(NAME, SFX, ATTR, F16C, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE)           \
    TENSOR_KIT_LOADS_(NAME, SFX, ATTR, NIN, VAL_T, TENSOR_KIT_LD_VAL_, 0, (NIN) == 1, v, VAL_T, ACC_T, IDENTITY, \
                      MAP, REDUCE, COMBINE)                                                                      \
    TENSOR_KIT_LOADS_(NAME, SFX, ATTR, NIN, uint16_t, TENSOR_KIT_LD_BF16_, 1, 0, b, VAL_T, ACC_T, IDENTITY, MAP, \
                      REDUCE, COMBINE)                                                                           \
    TENSOR_KIT_LOADS_F16_(F16C, NAME, SFX, ATTR, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE)             \
    TENSOR_KIT_COLS_FN_(NAME##_colsv##SFX, ATTR, NIN, VAL_T, TENSOR_KIT_ROWS_LD_, TENSOR_KIT_LD_VAL_, VAL_T,    \
                        ACC_T, IDENTITY, MAP, REDUCE, COMBINE)                                                  \
    TENSOR_KIT_COLS_FN_(NAME##_colsb##SFX, ATTR, NIN, uint16_t, TENSOR_KIT_ROWS_LD_, TENSOR_KIT_LD_BF16_, VAL_T,  \
                        ACC_T, IDENTITY, MAP, REDUCE, COMBINE)                                                  \
    TENSOR_KIT_COLS_F16_(F16C, NAME##_colsh##SFX, ATTR, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE)
/* The float16 loads (TAG h): through F16C when F16C is 1, else one element at a time. F16C is
 * expanded (TENSOR_KIT_BASE_F16C_ to 0 or 1) before the paste below. */
#define TENSOR_KIT_LOADS_F16_(F16C, ...) TENSOR_KIT_LOADS_F16_PICK_(F16C, __VA_ARGS__)
#define TENSOR_KIT_LOADS_F16_PICK_(F16C, ...) TENSOR_KIT_LOADS_F16_##F16C##_(__VA_ARGS__)
#define TENSOR_KIT_LOADS_F16_0_(NAME, SFX, ATTR, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE)             \
    TENSOR_KIT_LOADS_(NAME, SFX, ATTR, NIN, uint16_t, TENSOR_KIT_LD_F16_, 1, 0, h, VAL_T, ACC_T, IDENTITY, MAP,  \
                      REDUCE, COMBINE)
/* The float16 columns: rows converted with F16C into the tile's array, or one by one. */
#define TENSOR_KIT_COLS_F16_(F16C, ...) TENSOR_KIT_COLS_F16_PICK_(F16C, __VA_ARGS__)
#define TENSOR_KIT_COLS_F16_PICK_(F16C, ...) TENSOR_KIT_COLS_F16_##F16C##_(__VA_ARGS__)
#define TENSOR_KIT_COLS_F16_0_(FN, ATTR, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE)                     \
    TENSOR_KIT_COLS_FN_(FN, ATTR, NIN, uint16_t, TENSOR_KIT_ROWS_LD_, TENSOR_KIT_LD_F16_, VAL_T, ACC_T, IDENTITY, \
                        MAP, REDUCE, COMBINE)
#define TENSOR_KIT_COLS_F16_1_(FN, ATTR, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE)                     \
    TENSOR_KIT_COLS_FN_(FN, ATTR, NIN, uint16_t, TENSOR_KIT_ROWS_F16C_, TENSOR_KIT_LD_F16_, VAL_T, ACC_T,       \
                        IDENTITY, MAP, REDUCE, COMBINE)
/* (the pair function is never called: converted loads do not read pairs) */
#define TENSOR_KIT_LOADS_F16_1_(NAME, SFX, ATTR, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE)             \
    TENSOR_KIT_BLOCK_F16C_FN_(NAME##_blkh##SFX, ATTR, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE)        \
    TENSOR_KIT_BLOCK2_FN_(NAME##_blk2h##SFX, ATTR, NIN, uint16_t, TENSOR_KIT_LD_F16_, VAL_T, ACC_T, IDENTITY,   \
                          MAP, REDUCE, COMBINE)                                                                 \
    TENSOR_KIT_RUN_FN_(NAME##_runh##SFX, ATTR, NIN, uint16_t, ACC_T, COMBINE, NAME##_blkh##SFX,                 \
                       NAME##_blk2h##SFX, 0)
/* The block, pair and run functions of one load (TAG: v, b, h). */
#define TENSOR_KIT_LOADS_(NAME, SFX, ATTR, NIN, ELEM_T, LD, PF, PAIRS, TAG, VAL_T, ACC_T, IDENTITY, MAP, REDUCE,  \
                          COMBINE)                                                                               \
    TENSOR_KIT_BLOCK_FN_(NAME##_blk##TAG##SFX, ATTR, NIN, ELEM_T, LD, PF, VAL_T, ACC_T, IDENTITY, MAP, REDUCE,   \
                         COMBINE)                                                                                \
    TENSOR_KIT_BLOCK2_FN_(NAME##_blk2##TAG##SFX, ATTR, NIN, ELEM_T, LD, VAL_T, ACC_T, IDENTITY, MAP, REDUCE,     \
                          COMBINE)                                                                               \
    TENSOR_KIT_RUN_FN_(NAME##_run##TAG##SFX, ATTR, NIN, ELEM_T, ACC_T, COMBINE, NAME##_blk##TAG##SFX,            \
                       NAME##_blk2##TAG##SFX, PAIRS)

#define TENSOR_REDUCTION_FNS(NAME, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE, PROJECT)                  \
    TENSOR_REDUCTION_CALLBACKS_(NAME, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE, PROJECT)                \
    static const tensor_reduction_fns NAME = {NAME##_init, NAME##_fold, NAME##_combine, NAME##_project, NULL,   \
                                              NAME##_fold_stored, NAME##_fold_columns};

/* The callbacks NAME##_init / _fold / _fold_stored / _fold_columns / _combine / _project. */
#define TENSOR_REDUCTION_CALLBACKS_(NAME, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE, PROJECT)           \
    TENSOR_KIT_VARIANT_(NAME, _base_, , TENSOR_KIT_BASE_F16C_, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE,        \
                        COMBINE)                                                                                \
    TENSOR_KIT_IF_AVX2_(TENSOR_KIT_VARIANT_(NAME, _avx2_, TENSOR_KIT_AVX2_ATTR_, 1, NIN, VAL_T, ACC_T, IDENTITY, \
                                            MAP, REDUCE, COMBINE))                                               \
    static void NAME##_init(void *acc_, const void *user_) {                                                    \
        (void)user_;                                                                                            \
        ACC_T a_ = IDENTITY();                                                                                  \
        memcpy(acc_, &a_, sizeof a_);                                                                           \
    }                                                                                                           \
    static void NAME##_fold(void *acc_, const void *const *vals_, int64_t n_, int64_t first_, const void *user_) { \
        (void)user_;                                                                                            \
        const VAL_T *in_[(NIN) > 0 ? (NIN) : 1];                                                                \
        for (int k_ = 0; k_ < (NIN); k_++) in_[k_] = (const VAL_T *)vals_[k_];                                  \
        ACC_T a_;                                                                                               \
        memcpy(&a_, acc_, sizeof a_);                                                                           \
        a_ = TENSOR_KIT_HAS_AVX2_() ? TENSOR_KIT_PICK_(NAME##_runv, a_, in_, n_, first_)                         \
                                    : NAME##_runv_base_(a_, in_, n_, first_);                                    \
        memcpy(acc_, &a_, sizeof a_);                                                                           \
    }                                                                                                           \
    static void NAME##_fold_stored(void *acc_, const void *const *elems_, int64_t n_, int64_t first_,           \
                                   tensor_dtype stored_, const void *user_) {                                   \
        (void)user_;                                                                                            \
        const uint16_t *in_[(NIN) > 0 ? (NIN) : 1];                                                             \
        for (int k_ = 0; k_ < (NIN); k_++) in_[k_] = (const uint16_t *)elems_[k_];                              \
        ACC_T a_;                                                                                               \
        memcpy(&a_, acc_, sizeof a_);                                                                           \
        if (stored_ == TENSOR_BFLOAT16)                                                                         \
            a_ = TENSOR_KIT_HAS_AVX2_() ? TENSOR_KIT_PICK_(NAME##_runb, a_, in_, n_, first_)                    \
                                        : NAME##_runb_base_(a_, in_, n_, first_);                               \
        else                                                                                                    \
            a_ = TENSOR_KIT_HAS_AVX2_() ? TENSOR_KIT_PICK_(NAME##_runh, a_, in_, n_, first_)                    \
                                        : NAME##_runh_base_(a_, in_, n_, first_);                               \
        memcpy(acc_, &a_, sizeof a_);                                                                           \
    }                                                                                                           \
    static void NAME##_fold_columns(void *acc_, size_t acc_stride_, int64_t n_, const void *const *rows_,       \
                                    const int64_t *row_strides_, int64_t nrows_, int64_t first_,                \
                                    tensor_dtype stored_, const void *user_) {                                  \
        (void)user_;                                                                                            \
        const char *r_[(NIN) > 0 ? (NIN) : 1];                                                                  \
        for (int k_ = 0; k_ < (NIN); k_++) r_[k_] = (const char *)rows_[k_];                                    \
        char *a_ = (char *)acc_;                                                                                \
        const int avx2_ = TENSOR_KIT_HAS_AVX2_();                                                               \
        if (stored_ == TENSOR_BFLOAT16)                                                                         \
            (avx2_ ? TENSOR_KIT_PICK_FN_(NAME##_colsb) : NAME##_colsb_base_)(a_, acc_stride_, r_, row_strides_, \
                                                                            nrows_, n_, first_);                \
        else if (stored_ == TENSOR_FLOAT16)                                                                     \
            (avx2_ ? TENSOR_KIT_PICK_FN_(NAME##_colsh) : NAME##_colsh_base_)(a_, acc_stride_, r_, row_strides_, \
                                                                            nrows_, n_, first_);                \
        else                                                                                                    \
            (avx2_ ? TENSOR_KIT_PICK_FN_(NAME##_colsv) : NAME##_colsv_base_)(a_, acc_stride_, r_, row_strides_, \
                                                                            nrows_, n_, first_);                \
    }                                                                                                           \
    static void NAME##_combine(void *acc_, const void *later_, const void *user_) {                             \
        (void)user_;                                                                                            \
        ACC_T a_, b_;                                                                                           \
        memcpy(&a_, acc_, sizeof a_);                                                                           \
        memcpy(&b_, later_, sizeof b_);                                                                         \
        a_ = COMBINE(a_, b_);                                                                                   \
        memcpy(acc_, &a_, sizeof a_);                                                                           \
    }                                                                                                           \
    static void NAME##_project(const void *acc_, int64_t count_, void *result_, const void *user_) {            \
        (void)user_;                                                                                            \
        ACC_T a_;                                                                                               \
        memcpy(&a_, acc_, sizeof a_);                                                                           \
        VAL_T r_ = PROJECT(a_, count_);                                                                         \
        memcpy(result_, &r_, sizeof r_);                                                                        \
    }
/* The AVX2 copy's run function where there is one, else the baseline's (never taken then). */
#define TENSOR_KIT_PICK_(RUN, a, in, n, first) TENSOR_KIT_PICK2_(RUN, a, in, n, first)
#define TENSOR_KIT_PICK2_(RUN, a, in, n, first) TENSOR_KIT_IF_AVX2_ELSE_(RUN##_avx2_, RUN##_base_)(a, in, n, first)
/* The same for any function of the copies, by name. */
#define TENSOR_KIT_PICK_FN_(FN) TENSOR_KIT_PICK_FN2_(FN)
#define TENSOR_KIT_PICK_FN2_(FN) TENSOR_KIT_IF_AVX2_ELSE_(FN##_avx2_, FN##_base_)

/* The same callbacks, plus the functor's source for CUDA tensors (compiled at run time on the
 * first CUDA call and cached: docs/functors.md). SOURCE is a string holding the definitions of
 * ACC_T (unless a built-in type) and of the five functions, e.g. the text of the header that
 * defines them (tinytensor_embed_source() in CMake makes such a string at build time):
 *   #include "my_functor.h"             -- the CPU compiles the functions
 *   TENSOR_REDUCTION_FNS_SOURCE(my_fns, 1, float, my_acc, my_id, my_map, my_red, my_comb,
 *                               my_proj, my_functor_source)  -- the GPU compiles the string */
#define TENSOR_REDUCTION_FNS_SOURCE(NAME, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE, PROJECT, SOURCE)    \
    TENSOR_REDUCTION_CALLBACKS_(NAME, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE, PROJECT)               \
    static const tensor_reduction_source NAME##_source_ = {SOURCE, #ACC_T, #IDENTITY, #MAP, #REDUCE, #COMBINE, \
                                                           #PROJECT};                                        \
    static const tensor_reduction_fns NAME = {NAME##_init, NAME##_fold, NAME##_combine, NAME##_project,       \
                                              &NAME##_source_, NAME##_fold_stored, NAME##_fold_columns};

#endif
