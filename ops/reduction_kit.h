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
 * Clang a second copy for AVX2, taken on CPUs that have it (the same additions, so the same
 * bits: without -ffast-math the compiler only vectorises across the independent lanes; define
 * TENSOR_REDUCTION_KIT_NO_AVX2 to keep one copy); pairs of full blocks of values are read side
 * by side (two streams in flight); and bfloat16 / float16 inputs are converted in registers
 * (fold_stored) instead of through the library's buffers.
 *
 * A reduction that needs the elements' indices (argmax-like) writes tensor_reduction_fns by
 * hand: fold receives the index of its first element. */
#ifndef TENSOR_REDUCTION_KIT_H
#define TENSOR_REDUCTION_KIT_H

#include <stdint.h>
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
#define TENSOR_KIT_HAS_AVX2_() __builtin_cpu_supports("avx2")
#else
#define TENSOR_KIT_IF_AVX2_(x)
#define TENSOR_KIT_IF_AVX2_ELSE_(x, y) y
#define TENSOR_KIT_HAS_AVX2_() 0
#endif
#define TENSOR_KIT_AVX2_ATTR_ __attribute__((target("avx2")))
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
        for (int w_ = 1; w_ < TENSOR_REDUCTION_KIT_LANES; w_ *= 2) /* a fixed tree: (0 1) (2 3) ..., pairs */   \
            for (int q_ = 0; q_ < TENSOR_REDUCTION_KIT_LANES; q_ += 2 * w_) l_[q_] = COMBINE(l_[q_], l_[q_ + w_]); \
        return COMBINE(a0_, l_[0]);                                                                             \
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
        for (int w_ = 1; w_ < TENSOR_REDUCTION_KIT_LANES; w_ *= 2)                                              \
            for (int q_ = 0; q_ < TENSOR_REDUCTION_KIT_LANES; q_ += 2 * w_) {                                   \
                l_[q_] = COMBINE(l_[q_], l_[q_ + w_]);                                                          \
                r_[q_] = COMBINE(r_[q_], r_[q_ + w_]);                                                          \
            }                                                                                                   \
        *pa_ = l_[0];                                                                                           \
        *pb_ = r_[0];                                                                                           \
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

/* One copy of the loops (SFX: _base_ or _avx2_, ATTR its target). Plain values read pairs of
 * blocks (two streams); converted loads read one stream and prefetch (two streams 4 KiB apart
 * were slower there, in the library's bfloat16 sum). */
#define TENSOR_KIT_VARIANT_(NAME, SFX, ATTR, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE)                  \
    TENSOR_KIT_LOADS_(NAME, SFX, ATTR, NIN, VAL_T, TENSOR_KIT_LD_VAL_, 0, 1, v, VAL_T, ACC_T, IDENTITY, MAP,     \
                      REDUCE, COMBINE)                                                                           \
    TENSOR_KIT_LOADS_(NAME, SFX, ATTR, NIN, uint16_t, TENSOR_KIT_LD_BF16_, 1, 0, b, VAL_T, ACC_T, IDENTITY, MAP, \
                      REDUCE, COMBINE)                                                                           \
    TENSOR_KIT_LOADS_(NAME, SFX, ATTR, NIN, uint16_t, TENSOR_KIT_LD_F16_, 1, 0, h, VAL_T, ACC_T, IDENTITY, MAP,  \
                      REDUCE, COMBINE)
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
                                              NAME##_fold_stored};

/* The callbacks NAME##_init / _fold / _fold_stored / _combine / _project. */
#define TENSOR_REDUCTION_CALLBACKS_(NAME, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE, PROJECT)           \
    TENSOR_KIT_VARIANT_(NAME, _base_, , NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE)                       \
    TENSOR_KIT_IF_AVX2_(TENSOR_KIT_VARIANT_(NAME, _avx2_, TENSOR_KIT_AVX2_ATTR_, NIN, VAL_T, ACC_T, IDENTITY,    \
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
                                              &NAME##_source_, NAME##_fold_stored};

#endif
