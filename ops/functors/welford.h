/* var / std / var_mean / std_mean: Welford's online algorithm (stable: no sum of squares minus
 * square of sums), with Chan et al.'s formula to combine two partials, on shifted data.
 *
 * Each accumulator keeps its first element as a shift and runs Welford on x - shift. Data with a
 * large mean and a small spread (timestamps, sensor offsets: float32 1e7 + arange(10)) would
 * otherwise lose the mean's fraction at every update (float32 spacing at 1e7 is 1.0) and with it
 * the variance; relative to the shift the running mean is small and keeps its bits.
 *
 *   reduce:  n += 1; (n == 1: shift = x); d = x - shift; delta = d - mean; mean += delta / n;
 *            m2 += delta * (d - mean)
 *   combine: n = na + nb; delta = (shift_b - shift_a) + (mean_b - mean_a); shift = shift_a;
 *            mean = mean_a + delta * nb / n; m2 = m2_a + m2_b + delta^2 * na * nb / n
 *            (an empty side returns the other)
 *   var  = m2 / max(0, n - correction)   (correction is a double, may be fractional or
 *          negative; a zero divisor gives inf, or nan when m2 is 0); std = sqrt(var);
 *   mean = shift + mean;
 *   n == 0 gives nan for var, std and mean (PyTorch: empty var is nan even with correction 0).
 *   An infinite or NaN element makes var nan and the mean what a plain mean gives (inf for
 *   [inf, 1], nan for [inf, -inf]): it is added into the shift, which from then on is not finite.
 *
 * The count is kept in the value type (exact to 2^24 in float, 2^53 in double; beyond, its
 * relative rounding is below the result's own): the per-element update then needs no integer
 * to float conversion, and the f32 accumulator is 16 bytes. The per-element division rounds
 * like a multiplication by an approximate reciprocal in CUDA device code (2 ulp on the mean's
 * increment), exactly elsewhere. Variants f32 (float16/bfloat16/float32/float8 inputs on CUDA,
 * as PyTorch's CUDA Welford) and f64 (float64 on CUDA, every dtype on the CPU). */
#ifndef TENSOR_FUNCTOR_WELFORD_H
#define TENSOR_FUNCTOR_WELFORD_H

#include "tinytensor/ops/functors/common.h"

/* a / b for the per-element update: the hardware reciprocal in CUDA device code for float. */
TENSOR_INLINE float tensor_welford_div_f32(float a, float b) {
#if defined(__CUDA_ARCH__)
    return __fdividef(a, b);
#else
    return a / b;
#endif
}
TENSOR_INLINE double tensor_welford_div_f64(double a, double b) { return a / b; }

#define TENSOR_WELFORD_FUNCTOR(SFX, T)                                                             \
    typedef struct tensor_welford_##SFX {                                                          \
        T shift;                                                                                   \
        T mean; /* relative to shift */                                                            \
        T m2;                                                                                      \
        T n;                                                                                       \
    } tensor_welford_##SFX;                                                                        \
    /* x - x is 0 for finite x, NaN for inf and NaN (portable isfinite, also in device code). */ \
    TENSOR_INLINE bool tensor_welford_##SFX##_finite(T x) { return x - x == (T)0; }               \
    TENSOR_INLINE tensor_welford_##SFX tensor_welford_##SFX##_identity(void) {                     \
        tensor_welford_##SFX r;                                                                    \
        r.shift = (T)0;                                                                            \
        r.mean = (T)0;                                                                             \
        r.m2 = (T)0;                                                                               \
        r.n = (T)0;                                                                                \
        return r;                                                                                  \
    }                                                                                              \
    TENSOR_INLINE tensor_welford_##SFX tensor_welford_##SFX##_reduce(tensor_welford_##SFX acc, T x, \
                                                                    int64_t index) {               \
        (void)index;                                                                               \
        acc.n += (T)1;                                                                             \
        if (acc.n == (T)1) acc.shift = x;                                                          \
        T d = x - acc.shift;                                                                       \
        /* d is not finite when x or the shift is inf or NaN (or x - shift overflows): the mean   \
         * is then the plain sum's (inf + 1 = inf, inf - inf = NaN) and the variance NaN;        \
         * Welford's update would make the mean NaN too (inf - inf). */                           \
        if (!tensor_welford_##SFX##_finite(d)) {                                                   \
            acc.shift = acc.n == (T)1 ? x : acc.shift + x;                                         \
            acc.m2 = tensor_fn_nan_##SFX();                                                        \
            return acc;                                                                            \
        }                                                                                          \
        T delta = d - acc.mean;                                                                    \
        acc.mean += tensor_welford_div_##SFX(delta, acc.n);                                        \
        acc.m2 += delta * (d - acc.mean);                                                          \
        return acc;                                                                                \
    }                                                                                              \
    TENSOR_INLINE tensor_welford_##SFX tensor_welford_##SFX##_combine(tensor_welford_##SFX a,      \
                                                                     tensor_welford_##SFX b) {     \
        if (a.n == (T)0) return b;                                                                 \
        if (b.n == (T)0) return a;                                                                 \
        tensor_welford_##SFX r;                                                                    \
        r.n = a.n + b.n;                                                                           \
        if (!tensor_welford_##SFX##_finite(a.shift) || !tensor_welford_##SFX##_finite(b.shift)) { \
            r.shift = (a.shift + a.mean) + (b.shift + b.mean);                                     \
            r.mean = (T)0;                                                                         \
            r.m2 = tensor_fn_nan_##SFX();                                                          \
            return r;                                                                              \
        }                                                                                          \
        T nb_over_n = b.n / r.n;                                                                   \
        T delta = (b.shift - a.shift) + (b.mean - a.mean);                                         \
        r.shift = a.shift;                                                                         \
        r.mean = a.mean + delta * nb_over_n;                                                       \
        r.m2 = a.m2 + b.m2 + delta * delta * a.n * nb_over_n;                                      \
        return r;                                                                                  \
    }                                                                                              \
    /* var (take_sqrt false) or std (true). */                                                     \
    TENSOR_INLINE T tensor_welford_##SFX##_project_var(tensor_welford_##SFX acc, double correction, \
                                                      bool take_sqrt) {                            \
        if (acc.n == (T)0) return tensor_fn_nan_##SFX();                                           \
        double divisor = (double)acc.n - correction;                                               \
        if (!(divisor > 0.0)) divisor = 0.0;                                                       \
        T var = acc.m2 / (T)divisor;                                                               \
        return take_sqrt ? tensor_fn_sqrt_##SFX(var) : var;                                        \
    }                                                                                              \
    TENSOR_INLINE T tensor_welford_##SFX##_project_mean(tensor_welford_##SFX acc) {                \
        return acc.n == (T)0 ? tensor_fn_nan_##SFX() : acc.shift + acc.mean;                          \
    }

TENSOR_WELFORD_FUNCTOR(f32, float)
TENSOR_WELFORD_FUNCTOR(f64, double)

#endif
