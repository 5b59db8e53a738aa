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
 * ACC_T may be a struct (a running max with its rescaled sum, say). The fold keeps
 * TENSOR_REDUCTION_KIT_LANES independent accumulators on runs of twice that many elements or
 * more (element i of a run in lane i % LANES, the lanes combined by a fixed pairwise tree), so that the compiler can vectorise simple
 * functors (gcc -O2 does, 16-byte vectors) and the order depends on the plan only: results are
 * the same run to run and for any thread count. A reduction that
 * needs the elements' indices (argmax-like) writes tensor_reduction_fns by hand: fold receives
 * the index of its first element. */
#ifndef TENSOR_REDUCTION_KIT_H
#define TENSOR_REDUCTION_KIT_H

#include <stdint.h>
#include <string.h>

#include "tinytensor/ops/reduction.h"

/* Independent accumulators of the fold (a power of two): enough dependency chains to keep a
 * vectorised add busy (four or eight 4-wide or 8-wide vectors). */
#define TENSOR_REDUCTION_KIT_LANES 32

#define TENSOR_REDUCTION_FNS(NAME, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE, PROJECT)                  \
    TENSOR_REDUCTION_CALLBACKS_(NAME, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE, PROJECT)                \
    static const tensor_reduction_fns NAME = {NAME##_init, NAME##_fold, NAME##_combine, NAME##_project, NULL};

/* The four callbacks NAME##_init / _fold / _combine / _project (the kit's internals). */
#define TENSOR_REDUCTION_CALLBACKS_(NAME, NIN, VAL_T, ACC_T, IDENTITY, MAP, REDUCE, COMBINE, PROJECT)           \
    static void NAME##_init(void *acc_, const void *user_) {                                                    \
        (void)user_;                                                                                            \
        ACC_T a_ = IDENTITY();                                                                                  \
        memcpy(acc_, &a_, sizeof a_);                                                                           \
    }                                                                                                           \
    static void NAME##_fold(void *acc_, const void *const *vals_, int64_t n_, int64_t first_, const void *user_) { \
        (void)first_;                                                                                           \
        (void)user_;                                                                                            \
        const VAL_T *in_[(NIN) > 0 ? (NIN) : 1];                                                                \
        for (int k_ = 0; k_ < (NIN); k_++) in_[k_] = (const VAL_T *)vals_[k_];                                  \
        ACC_T a0_;                                                                                              \
        memcpy(&a0_, acc_, sizeof a0_);                                                                         \
        VAL_T x_[(NIN) > 0 ? (NIN) : 1];                                                                        \
        int64_t i_ = 0;                                                                                         \
        if (n_ >= 2 * TENSOR_REDUCTION_KIT_LANES) {                                                             \
            ACC_T l_[TENSOR_REDUCTION_KIT_LANES];                                                               \
            for (int q_ = 0; q_ < TENSOR_REDUCTION_KIT_LANES; q_++) l_[q_] = IDENTITY();                        \
            for (; i_ + TENSOR_REDUCTION_KIT_LANES <= n_; i_ += TENSOR_REDUCTION_KIT_LANES)                     \
                for (int q_ = 0; q_ < TENSOR_REDUCTION_KIT_LANES; q_++) {                                       \
                    for (int k_ = 0; k_ < (NIN); k_++) x_[k_] = in_[k_][i_ + q_];                               \
                    l_[q_] = REDUCE(l_[q_], MAP(x_));                                                           \
                }                                                                                               \
            for (int q_ = 0; i_ + q_ < n_; q_++) { /* the tail joins the first lanes in turn */                 \
                for (int k_ = 0; k_ < (NIN); k_++) x_[k_] = in_[k_][i_ + q_];                                   \
                l_[q_] = REDUCE(l_[q_], MAP(x_));                                                               \
            }                                                                                                   \
            for (int w_ = 1; w_ < TENSOR_REDUCTION_KIT_LANES; w_ *= 2) /* a fixed tree: (0 1) (2 3) ..., pairs */ \
                for (int q_ = 0; q_ < TENSOR_REDUCTION_KIT_LANES; q_ += 2 * w_) l_[q_] = COMBINE(l_[q_], l_[q_ + w_]); \
            a0_ = COMBINE(a0_, l_[0]);                                                                          \
        } else {                                                                                                \
            for (; i_ < n_; i_++) {                                                                             \
                for (int k_ = 0; k_ < (NIN); k_++) x_[k_] = in_[k_][i_];                                        \
                a0_ = REDUCE(a0_, MAP(x_));                                                                     \
            }                                                                                                   \
        }                                                                                                       \
        memcpy(acc_, &a0_, sizeof a0_);                                                                         \
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
                                              &NAME##_source_};

#endif
