/* CPU sum, nansum, mean and nanmean: the sum functor's semantics (ops/functors/sum.h,
 * nansum.h, mean.h) with fast, accurate paths.
 *
 * Floating sums (float16/bfloat16/float32/float8 accumulate in float32, float64 in double)
 * keep a compensated accumulator {s, c} per output: every partial (a block of up to 2048
 * elements summed in 32 lanes, or a group of 16 rows of an outer reduction) is folded into it
 * with TwoSum, and the driver's chunk partials are combined the same way. The result is
 * s + c rounded once to the output dtype: within about an ulp of the correctly rounded sum,
 * whatever the length (a float32 sum of 10^8 values included) and, since partial sums never
 * live in a 16-bit output, for float16/bfloat16 too.
 *
 * Paths per 2-D block of the driver (dim 0 = inner):
 *   inner  dim 0 reduced and contiguous: each row (output) summed in anchored blocks;
 *   outer  dim 0 reduced, dim 1 kept and contiguous: rows swept into a row of partials;
 *   tile   any other strides or dtypes: the same arithmetic over converted tiles;
 *   kept   dim 0 kept (nothing reduced in the block): one fold per element.
 * On x86-64 with AVX2, cpu/sum_simd.h's kernels take short inner rows of float32, outer
 * blocks with rows up to 1 KiB apart (eight 16-row groups at once for rows of fewer than 8
 * float32), full blocks of bfloat16 rows (AVX-512 where the CPU has it) and int8/uint8/bool
 * runs (the same bits as the template). Before the driver runs, [R, n] float32 sums with
 * n <= 32 and many rows go straight into the float32 output (sum_short_direct below: no
 * accumulators, the same bits). Direct loads (no tile) exist for float32, float16 and bfloat16 (float
 * accumulators) and float64; every other input dtype (integers summed into a float dtype, float8, an explicit
 * narrower dtype) goes through the converters. Integer sums accumulate in int64 with
 * wrapping adds (uint64 arithmetic), loops the compiler vectorises. */
#include <math.h>
#include <stdint.h>

#if TENSOR_HAVE_OPENMP
#include <omp.h>
#endif

#include "cpu/cpu_isa.h"
#include "cpu/cpu_reduce.h"
#include "cpu/sum_simd.h"
#include "ops/functors/mean.h"
#include "ops/functors/nansum.h"
#include "ops/functors/sum.h"
#include "runtime/error.h"

/* ---- compensated accumulators ---- */

typedef struct cpu_sum_acc_f32 {
    float s, c; /* value = s + c */
} cpu_sum_acc_f32;

typedef struct cpu_sum_acc_f64 {
    double s, c;
} cpu_sum_acc_f64;

/* nanmean also counts the non-NaN elements; the sum comes first, so a pointer to this is
 * a pointer to its cpu_sum_acc_* too. Other modes use the smaller struct above. */
typedef struct cpu_nanmean_acc_f32 {
    cpu_sum_acc_f32 sum;
    int64_t n;
} cpu_nanmean_acc_f32;

typedef struct cpu_nanmean_acc_f64 {
    cpu_sum_acc_f64 sum;
    int64_t n;
} cpu_nanmean_acc_f64;

/* Knuth's TwoSum: s + p = t + err exactly; err is accumulated in c. Needs strict IEEE
 * evaluation (no -ffast-math, no FMA contraction: ISO C mode keeps it off). When s turns
 * inf or NaN, c turns NaN and project ignores it. */
#define DEF_FOLD(SFX, T)                                                                           \
    static inline void fold_##SFX(cpu_sum_acc_##SFX *a, T p) {                                     \
        const T s = a->s, t = s + p, bp = t - s;                                                   \
        a->c += (s - (t - bp)) + (p - bp);                                                         \
        a->s = t;                                                                                  \
    }                                                                                              \
    static inline T value_##SFX(const cpu_sum_acc_##SFX *a) { return isfinite(a->s) ? a->s + a->c : a->s; }
DEF_FOLD(f32, float)
DEF_FOLD(f64, double)
/* isfinite() as a comparison (false for NaN), which vectorises. */
#define FINITE_f32(x) (fabsf(x) <= 0x1.fffffep127f)
#define FINITE_f64(x) (fabs(x) <= 0x1.fffffffffffffp1023)

static inline float ld_f32(float v) { return v; }
static inline double ld_f64(double v) { return v; }
static inline float ld_f16(uint16_t v) { return cpu_f16_to_f32(v); }
static inline float ld_bf16(uint16_t v) { return cpu_bf16_to_f32(v); }

/* ---- template instances: {f32, f16, bf16} x float and f64 x double, plain and NaN-skipping ---- */
#define SUMT_FN(x) x##_f32_f32
#define SUMT_T float
#define SUMT_ACC cpu_sum_acc_f32
#define SUMT_NACC cpu_nanmean_acc_f32
#define SUMT_FOLD fold_f32
#define SUMT_ELEM float
#define SUMT_LOAD ld_f32
#define SUMT_LANES 32
#define SUMT_NANSKIP 0
#define SUMT_TWO_STREAMS 1
#include "cpu/sum_tmpl.h"
#define SUMT_FN(x) x##_f32_f32_nan
#define SUMT_T float
#define SUMT_ACC cpu_sum_acc_f32
#define SUMT_NACC cpu_nanmean_acc_f32
#define SUMT_FOLD fold_f32
#define SUMT_ELEM float
#define SUMT_LOAD ld_f32
#define SUMT_LANES 32
#define SUMT_NANSKIP 1
#define SUMT_TWO_STREAMS 1
#include "cpu/sum_tmpl.h"
#define SUMT_FN(x) x##_f32_f16
#define SUMT_T float
#define SUMT_ACC cpu_sum_acc_f32
#define SUMT_NACC cpu_nanmean_acc_f32
#define SUMT_FOLD fold_f32
#define SUMT_ELEM uint16_t
#define SUMT_LOAD ld_f16
#define SUMT_LANES 32
#define SUMT_NANSKIP 0
#include "cpu/sum_tmpl.h"
#define SUMT_FN(x) x##_f32_f16_nan
#define SUMT_T float
#define SUMT_ACC cpu_sum_acc_f32
#define SUMT_NACC cpu_nanmean_acc_f32
#define SUMT_FOLD fold_f32
#define SUMT_ELEM uint16_t
#define SUMT_LOAD ld_f16
#define SUMT_LANES 32
#define SUMT_NANSKIP 1
#include "cpu/sum_tmpl.h"
#define SUMT_FN(x) x##_f32_bf16
#define SUMT_T float
#define SUMT_ACC cpu_sum_acc_f32
#define SUMT_NACC cpu_nanmean_acc_f32
#define SUMT_FOLD fold_f32
#define SUMT_ELEM uint16_t
#define SUMT_LOAD ld_bf16
#define SUMT_LANES 32
#define SUMT_NANSKIP 0
#include "cpu/sum_tmpl.h"
#define SUMT_FN(x) x##_f32_bf16_nan
#define SUMT_T float
#define SUMT_ACC cpu_sum_acc_f32
#define SUMT_NACC cpu_nanmean_acc_f32
#define SUMT_FOLD fold_f32
#define SUMT_ELEM uint16_t
#define SUMT_LOAD ld_bf16
#define SUMT_LANES 32
#define SUMT_NANSKIP 1
#include "cpu/sum_tmpl.h"
/* float16 with F16C (x86-64 CPUs since 2012), chosen at run time: 8 conversions per
 * instruction, full blocks of contiguous runs in cpu/sum_f16_avx.c. Same lanes, same
 * additions, same bits as the portable instances. */
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define CPU_SUM_HAVE_F16C 1
#define SUMT_F16C_CVT8(p) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(p)))
#define SUMT_F16C_LOAD8(d, p) _mm256_storeu_ps((d), SUMT_F16C_CVT8(p))
#define SUMT_F16C_ADD8(d, p) _mm256_storeu_ps((d), _mm256_add_ps(_mm256_loadu_ps(d), SUMT_F16C_CVT8(p)))
#define SUMT_F16C_ADD8_NAN(d, p)                                                                   \
    do {                                                                                           \
        const __m256 v8_ = SUMT_F16C_CVT8(p);                                                      \
        _mm256_storeu_ps((d), _mm256_add_ps(_mm256_loadu_ps(d),                                    \
                                            _mm256_and_ps(v8_, _mm256_cmp_ps(v8_, v8_, _CMP_ORD_Q)))); \
    } while (0)
#define SUMT_FN(x) x##_f32_f16c
#define SUMT_T float
#define SUMT_ACC cpu_sum_acc_f32
#define SUMT_NACC cpu_nanmean_acc_f32
#define SUMT_FOLD fold_f32
#define SUMT_ELEM uint16_t
#define SUMT_LOAD ld_f16
#define SUMT_LOAD8 SUMT_F16C_LOAD8
#define SUMT_ADD8 SUMT_F16C_ADD8
#define SUMT_ATTR __attribute__((target("avx2,f16c")))
#define SUMT_LANES 32
#define SUMT_NANSKIP 0
#define SUMT_BLOCKS(x, nb, p) tt_cpu_sum_f16_blocks((x), (nb), false, (p))
#include "cpu/sum_tmpl.h"
#define SUMT_FN(x) x##_f32_f16c_nan
#define SUMT_T float
#define SUMT_ACC cpu_sum_acc_f32
#define SUMT_NACC cpu_nanmean_acc_f32
#define SUMT_FOLD fold_f32
#define SUMT_ELEM uint16_t
#define SUMT_LOAD ld_f16
#define SUMT_LOAD8 SUMT_F16C_LOAD8
#define SUMT_ADD8 SUMT_F16C_ADD8_NAN
#define SUMT_ATTR __attribute__((target("avx2,f16c")))
#define SUMT_LANES 32
#define SUMT_NANSKIP 1
#define SUMT_BLOCKS(x, nb, p) tt_cpu_sum_f16_blocks((x), (nb), true, (p))
#include "cpu/sum_tmpl.h"
/* bfloat16 with AVX2, chosen at run time: the widening shift written with intrinsics (the
 * compiler's vectorisation of ld_bf16 went through the stack). Exact, so the same bits. */
#define SUMT_BF16_CVT8(p)                                                                          \
    _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(p))), 16))
#define SUMT_BF16_LOAD8(d, p) _mm256_storeu_ps((d), SUMT_BF16_CVT8(p))
#define SUMT_BF16_ADD8(d, p) _mm256_storeu_ps((d), _mm256_add_ps(_mm256_loadu_ps(d), SUMT_BF16_CVT8(p)))
#define SUMT_BF16_ADD8_NAN(d, p)                                                                   \
    do {                                                                                           \
        const __m256 v8_ = SUMT_BF16_CVT8(p);                                                      \
        _mm256_storeu_ps((d), _mm256_add_ps(_mm256_loadu_ps(d),                                    \
                                            _mm256_and_ps(v8_, _mm256_cmp_ps(v8_, v8_, _CMP_ORD_Q)))); \
    } while (0)
#define SUMT_FN(x) x##_f32_bf16x
#define SUMT_T float
#define SUMT_ACC cpu_sum_acc_f32
#define SUMT_NACC cpu_nanmean_acc_f32
#define SUMT_FOLD fold_f32
#define SUMT_ELEM uint16_t
#define SUMT_LOAD ld_bf16
#define SUMT_LOAD8 SUMT_BF16_LOAD8
#define SUMT_ADD8 SUMT_BF16_ADD8
#define SUMT_ATTR __attribute__((target("avx2")))
#define SUMT_LANES 32
#define SUMT_NANSKIP 0
#define SUMT_BLOCKS(x, nb, p) tt_cpu_sum_bf16_blocks((x), (nb), false, (p), true)
#include "cpu/sum_tmpl.h"
#define SUMT_FN(x) x##_f32_bf16x_nan
#define SUMT_T float
#define SUMT_ACC cpu_sum_acc_f32
#define SUMT_NACC cpu_nanmean_acc_f32
#define SUMT_FOLD fold_f32
#define SUMT_ELEM uint16_t
#define SUMT_LOAD ld_bf16
#define SUMT_LOAD8 SUMT_BF16_LOAD8
#define SUMT_ADD8 SUMT_BF16_ADD8_NAN
#define SUMT_ATTR __attribute__((target("avx2")))
#define SUMT_LANES 32
#define SUMT_NANSKIP 1
#define SUMT_BLOCKS(x, nb, p) tt_cpu_sum_bf16_blocks((x), (nb), true, (p), true)
#include "cpu/sum_tmpl.h"
#else
#define CPU_SUM_HAVE_F16C 0
#endif
#define SUMT_FN(x) x##_f64_f64
#define SUMT_T double
#define SUMT_ACC cpu_sum_acc_f64
#define SUMT_NACC cpu_nanmean_acc_f64
#define SUMT_FOLD fold_f64
#define SUMT_ELEM double
#define SUMT_LOAD ld_f64
#define SUMT_LANES 16
#define SUMT_NANSKIP 0
#include "cpu/sum_tmpl.h"
#define SUMT_FN(x) x##_f64_f64_nan
#define SUMT_T double
#define SUMT_ACC cpu_sum_acc_f64
#define SUMT_NACC cpu_nanmean_acc_f64
#define SUMT_FOLD fold_f64
#define SUMT_ELEM double
#define SUMT_LOAD ld_f64
#define SUMT_LANES 16
#define SUMT_NANSKIP 1
#include "cpu/sum_tmpl.h"
#include "iterator/iter_internal.h"

/* Short float32 rows: 8 rows at a time with AVX2 (cpu/sum_short_avx2.c, the same bits), the
 * rest (and a non-dense accumulator buffer) through the template. */
#define DEF_SHORT_SIMD(NAME, TMPL, NANSKIP)                                                        \
    static void NAME(const char *x, int64_t stride, int64_t n, int64_t nrows, char *acc, int64_t acc_stride) { \
        int64_t done = 0;                                                                          \
        if (acc_stride == (int64_t)sizeof(cpu_sum_acc_f32))                                        \
            done = tt_cpu_sum_short_f32_avx2(x, stride, n, nrows, (float *)(void *)acc, NANSKIP);     \
        if (done < nrows) TMPL(x + done * stride, stride, n, nrows - done, acc + done * acc_stride, acc_stride); \
    }
DEF_SHORT_SIMD(rows_short_f32_simd, rows_short_f32_f32, false)
DEF_SHORT_SIMD(rows_short_f32_simd_nan, rows_short_f32_f32_nan, true)

/* Outer blocks with AVX2 (cpu/sum_outer_avx2.c, the same bits) when the accumulators are
 * dense {s, c} pairs (not nanmean's counting ones); else the template. */
#define DEF_OUTER_SIMD(NAME, TMPL, ELEM, NANSKIP)                                                  \
    static void NAME(const char *in, int64_t row_stride, int64_t size0, int64_t ncols, char *acc, \
                     int64_t acc_stride, int64_t index0, bool count) {                             \
        if (count || acc_stride != (int64_t)sizeof(cpu_sum_acc_f32) ||                            \
            !tt_cpu_sum_outer_avx2(ELEM, NANSKIP, in, row_stride, size0, ncols, (float *)(void *)acc, index0)) \
            TMPL(in, row_stride, size0, ncols, acc, acc_stride, index0, count);                   \
    }
DEF_OUTER_SIMD(outer_f32_simd, outer_f32_f32, CPU_SUM_ELEM_F32, false)
DEF_OUTER_SIMD(outer_f32_simd_nan, outer_f32_f32_nan, CPU_SUM_ELEM_F32, true)
#if CPU_SUM_HAVE_F16C /* the fallback for long rows: the F16C template (the CPU has F16C here) */
DEF_OUTER_SIMD(outer_f16_simd, outer_f32_f16c, CPU_SUM_ELEM_F16, false)
DEF_OUTER_SIMD(outer_f16_simd_nan, outer_f32_f16c_nan, CPU_SUM_ELEM_F16, true)
DEF_OUTER_SIMD(outer_bf16_simd, outer_f32_bf16x, CPU_SUM_ELEM_BF16, false)
DEF_OUTER_SIMD(outer_bf16_simd_nan, outer_f32_bf16x_nan, CPU_SUM_ELEM_BF16, true)
#endif

/* The block and group lengths of cpu/sum_tmpl.h, for the tile paths (the same anchoring, so
 * a strided run is cut where a contiguous one would be). */
#define BLOCK_F32 (64 * 32)
#define BLOCK_F64 (64 * 16)
#define GROUP_ROWS 16
#define TILE_COLS 256

/* ---- the kernel's context ---- */

typedef void (*row_fn_f32)(const void *x, int64_t n, int64_t index0, cpu_sum_acc_f32 *acc, bool count);
typedef void (*outer_fn_f32)(const char *in, int64_t row_stride, int64_t size0, int64_t ncols, char *acc,
                             int64_t acc_stride, int64_t index0, bool count);
typedef void (*row_fn_f64)(const void *x, int64_t n, int64_t index0, cpu_sum_acc_f64 *acc, bool count);
typedef void (*outer_fn_f64)(const char *in, int64_t row_stride, int64_t size0, int64_t ncols, char *acc,
                             int64_t acc_stride, int64_t index0, bool count);

/* Short contiguous runs, each inside one anchored block (cpu/sum_tmpl.h rows_short). */
typedef void (*short_fn)(const char *x, int64_t stride, int64_t n, int64_t nrows, char *acc, int64_t acc_stride);

typedef uint64_t (*irow_fn)(const char *p, int64_t n);
typedef void (*iouter_fn)(const char *in, int64_t row_stride, int64_t size0, int64_t ncols, char *acc,
                          int64_t acc_stride);

typedef enum sum_mode { MODE_SUM, MODE_NANSUM, MODE_MEAN, MODE_NANMEAN } sum_mode;

typedef struct sum_ctx {
    cpu_reduce_ctx base;
    sum_mode mode;
    bool nanskip, count;
    int64_t elem_size; /* bytes per input element */
    int64_t acc_size;  /* sizeof cpu_sum_acc_* or, for nanmean, cpu_nanmean_acc_* */
    /* Direct (no tile) paths for the input dtype, NULL when it has none: contiguous inner
     * runs and outer blocks with contiguous rows, for the value type in use. */
    row_fn_f32 row_f32;
    outer_fn_f32 outer_f32;
    row_fn_f64 row_f64;
    outer_fn_f64 outer_f64;
    short_fn short_f32, short_f64;
    irow_fn row_i64;
    iouter_fn outer_i64;
} sum_ctx;

/* Adapters from the template's typed element pointers to void. */
#define ROW_ADAPT(NAME, SFX, ELEM)                                                                 \
    static void NAME##_rowv(const void *x, int64_t n, int64_t index0, cpu_sum_acc_##SFX *acc, bool count) { \
        row_##NAME((const ELEM *)x, n, index0, acc, count);                                        \
    }
ROW_ADAPT(f32_f32, f32, float)
ROW_ADAPT(f32_f32_nan, f32, float)
ROW_ADAPT(f32_f16, f32, uint16_t)
ROW_ADAPT(f32_f16_nan, f32, uint16_t)
ROW_ADAPT(f32_bf16, f32, uint16_t)
ROW_ADAPT(f32_bf16_nan, f32, uint16_t)
#if CPU_SUM_HAVE_F16C
ROW_ADAPT(f32_f16c, f32, uint16_t)
ROW_ADAPT(f32_f16c_nan, f32, uint16_t)
ROW_ADAPT(f32_bf16x, f32, uint16_t)
ROW_ADAPT(f32_bf16x_nan, f32, uint16_t)
#endif
ROW_ADAPT(f64_f64, f64, double)
ROW_ADAPT(f64_f64_nan, f64, double)

/* ---- float / double loops (one macro, two instantiations) ---- */

#define DEF_FLOAT_SUM(SFX, T, NATIVE_DT, BLOCK, BLOCKFN, BLOCKFN_NAN, COUNTFN)                              \
    /* A strided or converted run: converted one anchored block at a time. */                      \
    static void row_tile_##SFX(const sum_ctx *ctx, const char *in, int64_t stride, int64_t n,      \
                               int64_t index0, cpu_sum_acc_##SFX *acc) {                           \
        T tile[BLOCK];                                                                             \
        int64_t head = (BLOCK - index0 % BLOCK) % BLOCK;                                           \
        if (head > n) head = n;                                                                    \
        for (int64_t k = 0; k < n;) {                                                              \
            int64_t m = k == 0 && head > 0 ? head : (n - k < BLOCK ? n - k : BLOCK);               \
            ctx->base.cvt(tile, in + k * stride, stride, m);                                       \
            fold_##SFX(acc, ctx->nanskip ? BLOCKFN_NAN(tile, m) : BLOCKFN(tile, m));               \
            if (ctx->count) ((cpu_nanmean_acc_##SFX *)acc)->n += COUNTFN(tile, m);                 \
            k += m;                                                                                \
        }                                                                                          \
    }                                                                                              \
    /* An outer block whose columns are strided or need conversion. */                            \
    static void outer_tile_##SFX(const sum_ctx *ctx, const char *in, int64_t is0, int64_t is1,     \
                                 int64_t size0, int64_t ncols, char *acc, int64_t as1, int64_t index0) { \
        T tile[TILE_COLS], part[TILE_COLS];                                                        \
        int64_t cnt[TILE_COLS];                                                                    \
        for (int64_t i0 = 0; i0 < size0;) {                                                        \
            int64_t g = GROUP_ROWS - (index0 + i0) % GROUP_ROWS;                                   \
            if (g > size0 - i0) g = size0 - i0;                                                    \
            for (int64_t j0 = 0; j0 < ncols; j0 += TILE_COLS) {                                    \
                const int64_t w = ncols - j0 < TILE_COLS ? ncols - j0 : TILE_COLS;                 \
                for (int64_t j = 0; j < w; j++) {                                                  \
                    part[j] = 0;                                                                   \
                    cnt[j] = 0;                                                                    \
                }                                                                                  \
                for (int64_t r = 0; r < g; r++) {                                                  \
                    ctx->base.cvt(tile, in + (i0 + r) * is0 + j0 * is1, is1, w);                   \
                    if (ctx->nanskip) {                                                            \
                        for (int64_t j = 0; j < w; j++) {                                          \
                            const T v = tile[j];                                                   \
                            part[j] += v == v ? v : (T)0;                                          \
                            cnt[j] += v == v;                                                      \
                        }                                                                          \
                    } else {                                                                       \
                        for (int64_t j = 0; j < w; j++) part[j] += tile[j];                        \
                    }                                                                              \
                }                                                                                  \
                for (int64_t j = 0; j < w; j++) {                                                  \
                    cpu_sum_acc_##SFX *a = (cpu_sum_acc_##SFX *)(acc + (j0 + j) * as1);            \
                    fold_##SFX(a, part[j]);                                                        \
                    if (ctx->count) ((cpu_nanmean_acc_##SFX *)a)->n += cnt[j];                     \
                }                                                                                  \
            }                                                                                      \
            i0 += g;                                                                               \
        }                                                                                          \
    }                                                                                              \
    static void loop_##SFX(char **data, const int64_t *strides, int64_t size0, int64_t size1,      \
                           const tensor_iter_reduce_pos *pos, void *vctx) {                        \
        const sum_ctx *ctx = (const sum_ctx *)vctx;                                                \
        const int64_t as0 = strides[0], is0 = strides[1], as1 = strides[2], is1 = strides[3];      \
        const int64_t es = ctx->elem_size;                                                         \
        if (as0 != 0) { /* kept: one element per accumulator */                                    \
            T v;                                                                                   \
            for (int64_t j = 0; j < size1; j++)                                                    \
                for (int64_t i = 0; i < size0; i++) {                                              \
                    cpu_sum_acc_##SFX *a = (cpu_sum_acc_##SFX *)(data[0] + i * as0 + j * as1);     \
                    ctx->base.cvt(&v, data[1] + i * is0 + j * is1, is0, 1);                        \
                    const bool ok = v == v;                                                        \
                    fold_##SFX(a, ctx->nanskip && !ok ? (T)0 : v);                                 \
                    if (ctx->count) ((cpu_nanmean_acc_##SFX *)a)->n += ok;                         \
                }                                                                                  \
            return;                                                                                \
        }                                                                                          \
        if (is0 == es && ctx->row_##SFX != NULL) { /* inner, contiguous */                          \
            if (size0 <= BLOCK / 64 && !ctx->count && pos->index_stride1 == 0 &&                   \
                pos->index0 % BLOCK + size0 <= BLOCK && ctx->short_##SFX != NULL) {                \
                /* short runs, each inside one block: the same folds as row() */                   \
                ctx->short_##SFX(data[1], is1, size0, size1, data[0], as1);                        \
                return;                                                                            \
            }                                                                                      \
            const row_fn_##SFX row = ctx->row_##SFX;                                               \
            /* Rows too short for row()'s two streams, one output each (as1 != 0): rows j and  \
             * j + half alternately (only the order of independent work changes). */           \
            const int64_t half = size0 < 2 * BLOCK && as1 != 0 ? size1 / 2 : 0;                   \
            for (int64_t j = 0; j < half; j++) {                                                   \
                row(data[1] + j * is1, size0, pos->index0 + j * pos->index_stride1,               \
                    (cpu_sum_acc_##SFX *)(data[0] + j * as1), ctx->count);                         \
                row(data[1] + (j + half) * is1, size0, pos->index0 + (j + half) * pos->index_stride1, \
                    (cpu_sum_acc_##SFX *)(data[0] + (j + half) * as1), ctx->count);                \
            }                                                                                      \
            for (int64_t j = 2 * half; j < size1; j++)                                             \
                row(data[1] + j * is1, size0, pos->index0 + j * pos->index_stride1,               \
                    (cpu_sum_acc_##SFX *)(data[0] + j * as1), ctx->count);                         \
            return;                                                                                \
        }                                                                                          \
        if (as1 != 0 && is1 < is0) { /* outer (any size1: see iterator.h) */                                   \
            if (is1 == es && ctx->outer_##SFX != NULL)                                             \
                ctx->outer_##SFX(data[1], is0, size0, size1, data[0], as1, pos->index0, ctx->count); \
            else                                                                                   \
                outer_tile_##SFX(ctx, data[1], is0, is1, size0, size1, data[0], as1, pos->index0); \
            return;                                                                                \
        }                                                                                          \
        for (int64_t j = 0; j < size1; j++) /* inner, strided or converted */                      \
            row_tile_##SFX(ctx, data[1] + j * is1, is0, size0, pos->index0 + j * pos->index_stride1, \
                           (cpu_sum_acc_##SFX *)(data[0] + j * as1));                              \
    }                                                                                              \
    static void init_##SFX(void *acc, int64_t n, void *vctx) {                                     \
        const sum_ctx *ctx = (const sum_ctx *)vctx;                                                \
        memset(acc, 0, (size_t)(n * ctx->acc_size)); /* s = c = +0.0, n = 0 */                     \
    }                                                                                              \
    static void combine_##SFX(void *accv, const void *laterv, int64_t n, void *vctx) {             \
        const sum_ctx *ctx = (const sum_ctx *)vctx;                                                \
        for (int64_t k = 0; k < n; k++) {                                                          \
            cpu_sum_acc_##SFX *a = (cpu_sum_acc_##SFX *)((char *)accv + k * ctx->acc_size);        \
            const cpu_sum_acc_##SFX *b =                                                           \
                (const cpu_sum_acc_##SFX *)((const char *)laterv + k * ctx->acc_size);             \
            fold_##SFX(a, b->s);                                                                   \
            a->c += b->c;                                                                          \
            if (ctx->count)                                                                        \
                ((cpu_nanmean_acc_##SFX *)a)->n += ((const cpu_nanmean_acc_##SFX *)b)->n;          \
        }                                                                                          \
    }                                                                                              \
    static void project_##SFX(char **data, const int64_t *strides, int64_t size0, int64_t size1,   \
                              void *vctx) {                                                        \
        const sum_ctx *ctx = (const sum_ctx *)vctx;                                                \
        const tensor_dtype dt = ctx->base.out_dtype[0];                                            \
        if ((ctx->mode == MODE_SUM || ctx->mode == MODE_NANSUM) && dt == NATIVE_DT) { /* a plain store (tt_cpu_store_##SFX's case) */ \
            if (strides[0] == (int64_t)sizeof(T) && strides[1] == (int64_t)sizeof(cpu_sum_acc_##SFX)) { \
                /* dense: value_##SFX as a select, so that the loop vectorises */                 \
                for (int64_t j = 0; j < size1; j++) {                                              \
                    T *restrict o = (T *)(void *)(data[0] + j * strides[2]);                       \
                    const T *restrict a = (const T *)(const void *)(data[1] + j * strides[3]);     \
                    for (int64_t i = 0; i < size0; i++) {                                          \
                        const T s = a[2 * i], c = a[2 * i + 1];                                    \
                        o[i] = s + (FINITE_##SFX(s) ? c : (T)0); /* inf/NaN + 0: the same bits */  \
                    }                                                                              \
                }                                                                                  \
                return;                                                                            \
            }                                                                                      \
            for (int64_t j = 0; j < size1; j++)                                                    \
                for (int64_t i = 0; i < size0; i++) {                                              \
                    const T v = value_##SFX(                                                       \
                        (const cpu_sum_acc_##SFX *)(data[1] + i * strides[1] + j * strides[3]));   \
                    memcpy(data[0] + i * strides[0] + j * strides[2], &v, sizeof v);               \
                }                                                                                  \
            return;                                                                                \
        }                                                                                          \
        for (int64_t j = 0; j < size1; j++)                                                        \
            for (int64_t i = 0; i < size0; i++) {                                                  \
                const cpu_sum_acc_##SFX *a =                                                       \
                    (const cpu_sum_acc_##SFX *)(data[1] + i * strides[1] + j * strides[3]);        \
                T v = value_##SFX(a);                                                              \
                if (ctx->mode == MODE_MEAN) v = tensor_mean_##SFX##_project(v, ctx->base.count);   \
                else if (ctx->mode == MODE_NANMEAN) v = v / (T)((const cpu_nanmean_acc_##SFX *)a)->n;  \
                tt_cpu_store_##SFX(dt, data[0] + i * strides[0] + j * strides[2], v);                 \
            }                                                                                      \
    }                                                                                              \
    static tensor_status run_##SFX(const tensor_iter_t *iter, sum_ctx *ctx) {                      \
        tensor_iter_reduce_ops ops;                                                                \
        ctx->acc_size = ctx->count ? (int64_t)sizeof(cpu_nanmean_acc_##SFX) : (int64_t)sizeof(cpu_sum_acc_##SFX); \
        ops.acc_size = (size_t)ctx->acc_size;                                                      \
        ops.init = init_##SFX;                                                                     \
        ops.loop = loop_##SFX;                                                                     \
        ops.combine = combine_##SFX;                                                               \
        ops.project = project_##SFX;                                                               \
        ops.ctx = ctx;                                                                             \
        return tensor_iter_reduce_run(iter, &ops);                                                 \
    }

DEF_FLOAT_SUM(f32, float, TENSOR_FLOAT32, BLOCK_F32, block_f32_f32, block_f32_f32_nan, count_f32_f32_nan)
DEF_FLOAT_SUM(f64, double, TENSOR_FLOAT64, BLOCK_F64, block_f64_f64, block_f64_f64_nan, count_f64_f64_nan)

/* ---- integer sums (int64, wrapping) ---- */

/* A contiguous run of integers, summed in uint64 (wrapping; the compiler vectorises it). */
#define DEF_INT_ROW(NAME, ELEM)                                                                    \
    static uint64_t NAME(const char *p, int64_t n) {                                               \
        const ELEM *restrict x = (const ELEM *)p;                                                  \
        uint64_t s = 0;                                                                            \
        for (int64_t k = 0; k < n; k++) s += (uint64_t)(int64_t)x[k];                              \
        return s;                                                                                  \
    }
DEF_INT_ROW(irow_u8, uint8_t)
DEF_INT_ROW(irow_i8, int8_t)
DEF_INT_ROW(irow_i16, int16_t)
DEF_INT_ROW(irow_i32, int32_t)
DEF_INT_ROW(irow_i64, int64_t)

static uint64_t irow_i8_simd(const char *p, int64_t n) { return tt_cpu_sum_bytes_avx2(p, n, true); }
static uint64_t irow_u8_simd(const char *p, int64_t n) { return tt_cpu_sum_bytes_avx2(p, n, false); }

/* An outer block: acc[j] += row[j] for every row (acc dense int64 when acc_stride == 8). */
#define DEF_INT_OUTER(NAME, ELEM)                                                                  \
    static void NAME(const char *in, int64_t row_stride, int64_t size0, int64_t ncols, char *acc,  \
                     int64_t acc_stride) {                                                         \
        if (acc_stride == (int64_t)sizeof(int64_t)) {                                              \
            uint64_t *restrict a = (uint64_t *)acc;                                                \
            for (int64_t i = 0; i < size0; i++) {                                                  \
                const ELEM *restrict x = (const ELEM *)(in + i * row_stride);                      \
                for (int64_t j = 0; j < ncols; j++) a[j] += (uint64_t)(int64_t)x[j];               \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < size0; i++) {                                                      \
            const ELEM *x = (const ELEM *)(in + i * row_stride);                                   \
            for (int64_t j = 0; j < ncols; j++) *(uint64_t *)(acc + j * acc_stride) += (uint64_t)(int64_t)x[j]; \
        }                                                                                          \
    }
DEF_INT_OUTER(iouter_u8, uint8_t)
DEF_INT_OUTER(iouter_i8, int8_t)
DEF_INT_OUTER(iouter_i16, int16_t)
DEF_INT_OUTER(iouter_i32, int32_t)
DEF_INT_OUTER(iouter_i64, int64_t)

static void loop_i64(char **data, const int64_t *strides, int64_t size0, int64_t size1,
                     const tensor_iter_reduce_pos *pos, void *vctx) {
    (void)pos;
    const sum_ctx *ctx = (const sum_ctx *)vctx;
    const int64_t as0 = strides[0], is0 = strides[1], as1 = strides[2], is1 = strides[3];
    const int64_t es = ctx->elem_size;
    if (as0 == 0 && is0 == es && ctx->row_i64 != NULL) {
        const irow_fn row = ctx->row_i64;
        for (int64_t j = 0; j < size1; j++) *(uint64_t *)(data[0] + j * as1) += row(data[1] + j * is1, size0);
        return;
    }
    if (as0 == 0 && as1 != 0 && size1 > 1 && is1 == es && is1 < is0 && ctx->outer_i64 != NULL) {
        ctx->outer_i64(data[1], is0, size0, size1, data[0], as1);
        return;
    }
    int64_t tile[CPU_TILE];
    if (as0 == 0 && as1 != 0 && size1 > 1 && is1 < is0) { /* outer, converted */
        for (int64_t j0 = 0; j0 < size1; j0 += CPU_TILE) {
            const int64_t w = size1 - j0 < CPU_TILE ? size1 - j0 : CPU_TILE;
            for (int64_t i = 0; i < size0; i++) {
                ctx->base.cvt(tile, data[1] + i * is0 + j0 * is1, is1, w);
                for (int64_t k = 0; k < w; k++) *(uint64_t *)(data[0] + (j0 + k) * as1) += (uint64_t)tile[k];
            }
        }
        return;
    }
    for (int64_t j = 0; j < size1; j++) { /* inner or kept, converted */
        for (int64_t i0 = 0; i0 < size0; i0 += CPU_TILE) {
            const int64_t n = size0 - i0 < CPU_TILE ? size0 - i0 : CPU_TILE;
            ctx->base.cvt(tile, data[1] + i0 * is0 + j * is1, is0, n);
            if (as0 == 0) {
                uint64_t s = 0;
                for (int64_t k = 0; k < n; k++) s += (uint64_t)tile[k];
                *(uint64_t *)(data[0] + j * as1) += s;
            } else {
                for (int64_t k = 0; k < n; k++) *(uint64_t *)(data[0] + (i0 + k) * as0 + j * as1) += (uint64_t)tile[k];
            }
        }
    }
}

static void init_i64(void *acc, int64_t n, void *vctx) {
    (void)vctx;
    memset(acc, 0, (size_t)n * sizeof(int64_t));
}

static void combine_i64(void *accv, const void *laterv, int64_t n, void *vctx) {
    (void)vctx;
    int64_t *a = (int64_t *)accv;
    const int64_t *b = (const int64_t *)laterv;
    for (int64_t k = 0; k < n; k++) a[k] = tensor_sum_i64_combine(a[k], b[k]);
}

static void project_i64(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *vctx) {
    const sum_ctx *ctx = (const sum_ctx *)vctx;
    const tensor_dtype dt = ctx->base.out_dtype[0];
    for (int64_t j = 0; j < size1; j++)
        for (int64_t i = 0; i < size0; i++)
            tt_cpu_store_i64(dt, data[0] + i * strides[0] + j * strides[2],
                          tensor_sum_i64_project(*(const int64_t *)(data[1] + i * strides[1] + j * strides[3])));
}

static tensor_status run_i64(const tensor_iter_t *iter, sum_ctx *ctx) {
    tensor_iter_reduce_ops ops;
    ops.acc_size = sizeof(int64_t);
    ops.init = init_i64;
    ops.loop = loop_i64;
    ops.combine = combine_i64;
    ops.project = project_i64;
    ops.ctx = ctx;
    return tensor_iter_reduce_run(iter, &ops);
}

/* ---- short rows straight into the output ----
 *
 * [R, n] summed over its last dim with n <= 32, float32 in and out (sum, nansum): every row is
 * one output and lies inside one anchored block, so its accumulator would see one fold of
 * the row's tree sum p into {+0, +0} and project to +0 + p. Computing that directly skips
 * the driver's slab of accumulators (init, fold, project: a second pass over the outputs)
 * and, with non-temporal stores, the read of the output's lines before they are written
 * (16 MiB of the 134 MiB of traffic for [4M, 7]). The bits are those of the driver's path
 * (tests/cpu compare the two). Only shapes the driver would cut into slabs come here. */

/* Rows per task (a multiple of 8, so tasks after the first start 32-byte aligned when the
 * output does). */
#define SHORT_DIRECT_TASK_ROWS 32768
/* Outputs at least this large are written with non-temporal stores (they do not fit the
 * L2 anyway; smaller ones are likely read again soon). */
#define SHORT_DIRECT_STREAM_BYTES ((int64_t)8 << 20)

/* Rows [j0, j1) of the direct path: AVX2 groups of 8, the rest (fewer than 8 at the end, or
 * before out + j is 32-byte aligned) through the template into scratch accumulators. */
static void short_direct_rows(const sum_ctx *ctx, const char *x, int64_t stride, int64_t n, int64_t j0,
                              int64_t j1, float *out, bool stream) {
    const short_fn tmpl = ctx->nanskip ? rows_short_f32_f32_nan : rows_short_f32_f32;
    cpu_sum_acc_f32 a[8];
    int64_t j = j0;
    while (j < j1) {
        /* rows before out + j is 32-byte aligned (stream), or fewer than 8 left */
        int64_t m = stream ? (int64_t)((32 - ((uintptr_t)(out + j) & 31)) & 31) / 4 : 0;
        if (m == 0 && j1 - j >= 8) {
            const int64_t done = tt_cpu_sum_short_f32_out_avx2(x + j * stride, stride, n, j1 - j, out + j,
                                                            ctx->nanskip, stream);
            j += done;
            if (done > 0) continue;
            m = 8;
        }
        if (m == 0 || m > j1 - j) m = j1 - j < 8 ? j1 - j : 8;
        memset(a, 0, sizeof a);
        tmpl(x + j * stride, stride, n, m, (char *)a, (int64_t)sizeof a[0]);
        for (int64_t k = 0; k < m; k++) out[j + k] = value_f32(&a[k]);
        j += m;
    }
}

/* true when it summed iter (the shape, dtypes and strides above, AVX2); false: nothing done. */
static bool sum_short_direct(const tensor_iter_t *iter, const sum_ctx *ctx) {
    if ((ctx->mode != MODE_SUM && ctx->mode != MODE_NANSUM) || iter->ndim != 2 ||
        tensor_iter_num_reduce_dims(iter) != 1 || iter->operands[0].dtype != TENSOR_FLOAT32 ||
        iter->operands[1].dtype != TENSOR_FLOAT32 || !tt_cpu_sum_simd_avx2())
        return false;
    const int64_t n = iter->shape[0], nrows = iter->shape[1];
    const int64_t *is = iter->operands[1].strides, *os = iter->operands[0].strides;
    /* the rows' reduced indices start at view_offsets[0]: inside one block, as the short
     * path requires (always, for a whole tensor) */
    if (n < 1 || n > 32 || iter->view_offsets[0] % BLOCK_F32 + n > BLOCK_F32 || is[0] != 4 || is[1] <= 0 ||
        os[0] != 0 || os[1] != 4 || nrows < 8192)
        return false;
    const char *x = iter->operands[1].data;
    float *out = (float *)(void *)iter->operands[0].data;
    const bool stream = nrows * 4 >= SHORT_DIRECT_STREAM_BYTES;
    const int64_t tasks = (nrows + SHORT_DIRECT_TASK_ROWS - 1) / SHORT_DIRECT_TASK_ROWS;
    int nthreads = 1;
#if TENSOR_HAVE_OPENMP
    if (!omp_in_parallel() && n * nrows >= TENSOR_ITER_GRAIN_SIZE) nthreads = tensor_get_num_threads();
#pragma omp parallel for schedule(static) num_threads(nthreads) if (nthreads > 1 && tasks > 1)
#endif
    for (int64_t t = 0; t < tasks; t++) {
        const int64_t j0 = t * SHORT_DIRECT_TASK_ROWS;
        const int64_t j1 = nrows - j0 < SHORT_DIRECT_TASK_ROWS ? nrows : j0 + SHORT_DIRECT_TASK_ROWS;
        short_direct_rows(ctx, x, is[1], n, j0, j1, out, stream);
    }
    (void)nthreads;
    return true;
}

/* ---- the kernels ---- */

#if CPU_SUM_HAVE_F16C
static bool have_f16c(void) { return tt_cpu_sum_simd_f16c(); /* cpu/sum_outer_avx2.c */ }
#endif

static tensor_status sum_family(tensor_iter_t *iter, const tensor_kernel_params *params, sum_mode mode,
                                const char *op) {
    if (iter == NULL || iter->num_outputs != 1 || iter->num_operands != 2)
        return tensor_error(TENSOR_ERR_INTERNAL, "cpu %s kernel: expected one output and one input", op);
    sum_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    const tensor_dtype in = iter->operands[1].dtype, out = iter->operands[0].dtype;
    const cpu_val_kind val = tt_cpu_val_kind_of(out);
    tt_cpu_ctx_init(&ctx.base, iter, params, val, out);
    if (ctx.base.cvt == NULL) return tensor_error(TENSOR_ERR_DTYPE, "%s: %s got an unknown dtype", iter->name, op);
    ctx.mode = mode;
    ctx.nanskip = (mode == MODE_NANSUM || mode == MODE_NANMEAN) && val != CPU_VAL_I64;
    ctx.count = mode == MODE_NANMEAN && val != CPU_VAL_I64;
    ctx.elem_size = (int64_t)tensor_dtype_size(in);
    if ((mode == MODE_MEAN || mode == MODE_NANMEAN) && val == CPU_VAL_I64)
        return tensor_error(TENSOR_ERR_DTYPE, "%s: %s needs a floating output dtype, got %s", iter->name, op,
                            tensor_dtype_name(out));
    const bool plain = tt_cpu_converter_is_plain(in, val, out);
    switch (val) {
    case CPU_VAL_F32:
        if (plain && in == TENSOR_FLOAT32) {
            ctx.row_f32 = ctx.nanskip ? f32_f32_nan_rowv : f32_f32_rowv;
            ctx.outer_f32 = ctx.nanskip ? outer_f32_f32_nan : outer_f32_f32;
            ctx.short_f32 = ctx.nanskip ? rows_short_f32_f32_nan : rows_short_f32_f32;
            if (tt_cpu_sum_simd_avx2()) ctx.short_f32 = ctx.nanskip ? rows_short_f32_simd_nan : rows_short_f32_simd;
            if (tt_cpu_sum_simd_f16c()) ctx.outer_f32 = ctx.nanskip ? outer_f32_simd_nan : outer_f32_simd;
            if (sum_short_direct(iter, &ctx)) return TENSOR_OK;
        } else if (plain && in == TENSOR_FLOAT16) {
            ctx.row_f32 = ctx.nanskip ? f32_f16_nan_rowv : f32_f16_rowv;
            ctx.outer_f32 = ctx.nanskip ? outer_f32_f16_nan : outer_f32_f16;
            ctx.short_f32 = ctx.nanskip ? rows_short_f32_f16_nan : rows_short_f32_f16;
#if CPU_SUM_HAVE_F16C
            if (have_f16c()) {
                ctx.row_f32 = ctx.nanskip ? f32_f16c_nan_rowv : f32_f16c_rowv;
                ctx.outer_f32 = ctx.nanskip ? outer_f32_f16c_nan : outer_f32_f16c;
                ctx.short_f32 = ctx.nanskip ? rows_short_f32_f16c_nan : rows_short_f32_f16c;
            }
            if (tt_cpu_sum_simd_f16c()) ctx.outer_f32 = ctx.nanskip ? outer_f16_simd_nan : outer_f16_simd;
#endif
        } else if (plain && in == TENSOR_BFLOAT16) {
            ctx.row_f32 = ctx.nanskip ? f32_bf16_nan_rowv : f32_bf16_rowv;
            ctx.outer_f32 = ctx.nanskip ? outer_f32_bf16_nan : outer_f32_bf16;
            ctx.short_f32 = ctx.nanskip ? rows_short_f32_bf16_nan : rows_short_f32_bf16;
#if CPU_SUM_HAVE_F16C
            if (tt_cpu_sum_simd_f16c()) { /* AVX2 (and F16C, which the outer kernel checks with it) */
                ctx.row_f32 = ctx.nanskip ? f32_bf16x_nan_rowv : f32_bf16x_rowv;
                ctx.outer_f32 = ctx.nanskip ? outer_bf16_simd_nan : outer_bf16_simd;
                ctx.short_f32 = ctx.nanskip ? rows_short_f32_bf16x_nan : rows_short_f32_bf16x;
            }
#endif
        }
        return run_f32(iter, &ctx);
    case CPU_VAL_F64:
        if (plain) {
            ctx.row_f64 = ctx.nanskip ? f64_f64_nan_rowv : f64_f64_rowv;
            ctx.outer_f64 = ctx.nanskip ? outer_f64_f64_nan : outer_f64_f64;
            ctx.short_f64 = ctx.nanskip ? rows_short_f64_f64_nan : rows_short_f64_f64;
        }
        return run_f64(iter, &ctx);
    case CPU_VAL_I64:
        if (plain) {
            switch (in) {
            case TENSOR_BOOL:
            case TENSOR_UINT8: /* bool: the bytes are 0 or 1 */
                ctx.row_i64 = tt_cpu_sum_simd_avx2() ? irow_u8_simd : irow_u8;
                ctx.outer_i64 = iouter_u8;
                break;
            case TENSOR_INT8:
                ctx.row_i64 = tt_cpu_sum_simd_avx2() ? irow_i8_simd : irow_i8;
                ctx.outer_i64 = iouter_i8;
                break;
            case TENSOR_INT16: ctx.row_i64 = irow_i16; ctx.outer_i64 = iouter_i16; break;
            case TENSOR_INT32: ctx.row_i64 = irow_i32; ctx.outer_i64 = iouter_i32; break;
            case TENSOR_INT64: ctx.row_i64 = irow_i64; ctx.outer_i64 = iouter_i64; break;
            default: break;
            }
        }
        return run_i64(iter, &ctx);
    }
    return tensor_error(TENSOR_ERR_INTERNAL, "%s: %s: bad value kind", iter->name, op);
}

tensor_status tt_cpu_sum_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    return sum_family(iter, params, MODE_SUM, "sum");
}

tensor_status tt_cpu_nansum_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    return sum_family(iter, params, MODE_NANSUM, "nansum");
}

tensor_status tt_cpu_mean_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    return sum_family(iter, params, MODE_MEAN, "mean");
}

tensor_status tt_cpu_nanmean_kernel(tensor_iter_t *iter, const tensor_kernel_params *params) {
    return sum_family(iter, params, MODE_NANMEAN, "nanmean");
}
