/* Internal to cpu/: what every CPU reduction kernel shares.
 *
 *  - converters: load a strided run of input elements as the functor's value type (float,
 *    double or int64), converting while loading, optionally through the output dtype's value
 *    set first (PyTorch casts the input to dtype= before reducing);
 *  - stores: write a float / double / int64 / bool result into any output dtype;
 *  - CPU_REDUCTION / CPU_SIMPLE_REDUCTION: instantiate a functor (ops/functors/<op>.h) into
 *    the four callbacks of the deterministic reduction driver (tensor_iter_reduce_run);
 *  - tt_cpu_run_by_output / tt_cpu_run_by_input: pick the value type from the output dtype (sum,
 *    prod, mean, ...) or from the input dtype (amax, argmax, count_nonzero, all/any) and run.
 *
 * Value types: float16, bfloat16, float32 and float8 -> float; float64 -> double; integers
 * and bool -> int64 (wrapping). Nothing allocates a converted copy of the input: converters
 * fill a CPU_TILE-element buffer on the stack, one tile at a time. */
#ifndef TENSOR_CPU_REDUCE_H
#define TENSOR_CPU_REDUCE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "iterator/iterator.h"
#include "contract/dispatch.h"
#include "runtime/dtype.h"
#include "runtime/dtype_convert.h"
#include "iterator/iter_internal.h"

/* Elements converted per call of a converter (the generic loops' tile). */
#define CPU_TILE 256
/* Runs at least this long use 4 independent accumulators in the generic loop. */
#define CPU_LANES_MIN 16

typedef enum cpu_val_kind { CPU_VAL_F32 = 0, CPU_VAL_F64 = 1, CPU_VAL_I64 = 2 } cpu_val_kind;

/* Loads n elements from src (byte stride `stride`, may be 0) into dst, an array of the
 * converter's value type. */
typedef void (*cpu_cvt_fn)(void *dst, const char *src, int64_t stride, int64_t n);

/* The value type a dtype's elements are reduced in (see the header comment). */
cpu_val_kind tt_cpu_val_kind_of(tensor_dtype dtype);

/* A converter from `in` elements to `val` values. `via` is the dtype whose value set each
 * element is cast to first (PyTorch's "cast to dtype, then reduce"): pass the output dtype,
 * or `in` to look at the input values as they are. Never NULL for valid arguments:
 *   val F32: via float16/bfloat16/float8 rounds through that type; float32 (or via == in)
 *            only converts;
 *   val F64: via is ignored (float64 holds every value of every input dtype but int64,
 *            which converts with one rounding as PyTorch);
 *   val I64: via bool maps x != 0 to 1; float inputs truncate toward zero (out of int64
 *            range and NaN give INT64_MIN, as x86); narrower integer outputs need no
 *            rounding: wrapping at the end equals wrapping each element. */
cpu_cvt_fn tt_cpu_converter(tensor_dtype in, cpu_val_kind val, tensor_dtype via);

/* true when a converter for (in, val, via) is a plain load, i.e. in's values are already in
 * via's value set (so a fast path may load `in` directly). */
bool tt_cpu_converter_is_plain(tensor_dtype in, cpu_val_kind val, tensor_dtype via);

/* Stores one value into an element of `dtype` with PyTorch's cast rules (floats round to
 * nearest even, float -> int truncates, int -> narrower int wraps, -> bool is != 0). */
void tt_cpu_store_f32(tensor_dtype dtype, char *dst, float v);
void tt_cpu_store_f64(tensor_dtype dtype, char *dst, double v);
void tt_cpu_store_i64(tensor_dtype dtype, char *dst, int64_t v);
void tt_cpu_store_bool(tensor_dtype dtype, char *dst, bool v);

/* float16 -> float32 as the fast paths load it ("convert in registers"; gcc vectorises loops
 * over it): runtime/dtype_convert.h's tensor_cvt_vec_f16_to_f32, bitwise tensor_f16_to_f32. */
static inline float cpu_f16_to_f32(uint16_t h) { return tensor_cvt_vec_f16_to_f32(h); }

/* bfloat16 -> float32: the high half of the float's bits (exact for every input). */
static inline float cpu_bf16_to_f32(uint16_t h) {
    const uint32_t r = (uint32_t)h << 16;
    float f;
    memcpy(&f, &r, sizeof f);
    return f;
}

/* float -> int64 truncation without C's undefined behaviour (NaN / out of range: INT64_MIN). */
static inline int64_t cpu_f64_to_i64(double x) {
    return (x > -9223372036854775808.0 && x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN;
}

/* What a kernel's callbacks read. One per call (on the kernel's stack). */
typedef struct cpu_reduce_ctx {
    cpu_cvt_fn cvt;                /* input -> value type */
    tensor_dtype in_dtype;
    tensor_dtype out_dtype[2];     /* dtypes of outputs 0 and 1 */
    const tensor_kernel_params *params;
    int64_t count;                 /* reduced elements per output (mean) */
    float p_f32;                   /* norm's p in the value type */
    double p_f64;
} cpu_reduce_ctx;

/* Fills ctx for iter (outputs 0 .. nout-1, then the input) with a converter to `val` through
 * `via`. */
void tt_cpu_ctx_init(cpu_reduce_ctx *ctx, const tensor_iter_t *iter, const tensor_kernel_params *params,
                  cpu_val_kind val, tensor_dtype via);

/* The input operand (after the outputs). */
static inline int cpu_input_arg(const tensor_iter_t *iter) { return iter->num_outputs; }

/* Runs one of three instantiations, chosen by the value type of the OUTPUT dtype (sum, prod,
 * mean, nansum, logsumexp, sum_of_squares...: the input is cast to the output's value set
 * first), or of the INPUT dtype (amax, max/argmax, count_nonzero, all/any: the input values
 * as they are). A NULL slot is TENSOR_ERR_NOT_IMPLEMENTED ("<op> is not implemented for
 * <dtype> on the CPU"). */
typedef tensor_status (*cpu_run_fn)(const tensor_iter_t *iter, cpu_reduce_ctx *ctx);
tensor_status tt_cpu_run_by_output(const tensor_iter_t *iter, const tensor_kernel_params *params, const char *op,
                                cpu_run_fn f32, cpu_run_fn f64, cpu_run_fn i64);
tensor_status tt_cpu_run_by_input(const tensor_iter_t *iter, const tensor_kernel_params *params, const char *op,
                               cpu_run_fn f32, cpu_run_fn f64, cpu_run_fn i64);

/* ======================================================================================
 * Instantiating a functor
 *
 * The callbacks take the context so that functors with parameters (norm's p, var's
 * correction, mean's count) fit the same shape:
 *   ACC_T ID(const cpu_reduce_ctx *)
 *   ACC_T RED(ACC_T acc, VAL_T x, int64_t index, const cpu_reduce_ctx *)
 *   ACC_T COMB(ACC_T earlier, ACC_T later, const cpu_reduce_ctx *)
 *   OUT   PROJ(ACC_T acc, const cpu_reduce_ctx *)   stored with STORE(dtype, char *, OUT)
 * CPU_FUNCTOR_ADAPTERS makes these from a parameterless functor FN (FN##_identity, ...).
 * ====================================================================================== */

#define CPU_FUNCTOR_ADAPTERS(FN, ACC_T, VAL_T, OUT_T)                                              \
    static inline ACC_T FN##_cid(const cpu_reduce_ctx *c) {                                        \
        (void)c;                                                                                   \
        return FN##_identity();                                                                    \
    }                                                                                              \
    static inline ACC_T FN##_cred(ACC_T a, VAL_T x, int64_t i, const cpu_reduce_ctx *c) {          \
        (void)c;                                                                                   \
        return FN##_reduce(a, x, i);                                                               \
    }                                                                                              \
    static inline ACC_T FN##_ccomb(ACC_T a, ACC_T b, const cpu_reduce_ctx *c) {                    \
        (void)c;                                                                                   \
        return FN##_combine(a, b);                                                                 \
    }                                                                                              \
    static inline OUT_T FN##_cproj(ACC_T a, const cpu_reduce_ctx *c) {                             \
        (void)c;                                                                                   \
        return FN##_project(a);                                                                    \
    }

/* The generic block loop (tensor_iter_reduce_ops.loop) for any strides. What an accumulator
 * computes depends only on its own elements and where the block starts, never on how many
 * outputs share the block, so the driver's determinism contract holds. Three shapes:
 *   - dim 0 reduced, dim 1 kept and closer in memory than dim 0 (an "outer" reduction, e.g.
 *     sum over dim 0 of a row-major matrix): sweep whole input rows, one after the other, into
 *     the row of accumulators, instead of striding down columns; each accumulator sees its
 *     elements in increasing reduced index;
 *   - dim 0 reduced otherwise (a row per output): runs of CPU_LANES_MIN or more go to four
 *     interleaved accumulators in registers, combined at the end of the run (this is why
 *     combine must be associative and commutative up to index tie-breaks); shorter runs
 *     fold in order;
 *   - dim 0 kept (nothing reduced in this block): one element per accumulator. */
#define CPU_DEFINE_REDUCE_LOOP(NAME, ACC_T, VAL_T, ID, RED, COMB)                                   \
    static void NAME(char **data, const int64_t *strides, int64_t size0, int64_t size1,            \
                     const tensor_iter_reduce_pos *pos, void *vctx) {                              \
        const cpu_reduce_ctx *ctx = (const cpu_reduce_ctx *)vctx;                                  \
        VAL_T tile[CPU_TILE];                                                                      \
        const int64_t as0 = strides[0], is0 = strides[1], as1 = strides[2], is1 = strides[3];      \
        const int64_t x0 = pos->index_stride0, x1 = pos->index_stride1;                            \
        if (as0 == 0 && as1 != 0 && is1 < is0) { /* any size1 */                               \
            for (int64_t i = 0; i < size0; i++) {                                                  \
                const int64_t idx = pos->index0 + i * x0;                                          \
                for (int64_t j0 = 0; j0 < size1; j0 += CPU_TILE) {                                 \
                    const int64_t n = size1 - j0 < CPU_TILE ? size1 - j0 : CPU_TILE;               \
                    char *ab = data[0] + j0 * as1;                                                 \
                    ctx->cvt(tile, data[1] + i * is0 + j0 * is1, is1, n);                          \
                    if (as1 == (int64_t)sizeof(ACC_T)) { /* dense: the compiler vectorises */      \
                        ACC_T *restrict a = (ACC_T *)ab;                                           \
                        for (int64_t k = 0; k < n; k++) a[k] = RED(a[k], tile[k], idx, ctx);       \
                    } else {                                                                       \
                        for (int64_t k = 0; k < n; k++) {                                          \
                            ACC_T *a = (ACC_T *)(ab + k * as1);                                    \
                            *a = RED(*a, tile[k], idx, ctx);                                       \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int64_t j = 0; j < size1; j++) {                                                      \
            const char *in = data[1] + j * is1;                                                    \
            char *ab = data[0] + j * as1;                                                          \
            const int64_t base = pos->index0 + j * x1;                                             \
            if (as0 == 0 && size0 >= CPU_LANES_MIN) {                                              \
                /* Four independent accumulators (element i of the run goes to lane i % 4),       \
                 * combined at the end of the run and then into the stored accumulator, which    \
                 * holds the earlier elements: no chain of dependent reduce() calls. */           \
                ACC_T l0 = ID(ctx), l1 = ID(ctx), l2 = ID(ctx), l3 = ID(ctx);                      \
                for (int64_t i0 = 0; i0 < size0; i0 += CPU_TILE) {                                 \
                    const int64_t n = size0 - i0 < CPU_TILE ? size0 - i0 : CPU_TILE;               \
                    const int64_t b0 = base + i0 * x0;                                             \
                    ctx->cvt(tile, in + i0 * is0, is0, n);                                         \
                    int64_t k = 0;                                                                 \
                    for (; k + 4 <= n; k += 4) {                                                   \
                        l0 = RED(l0, tile[k], b0 + k * x0, ctx);                                   \
                        l1 = RED(l1, tile[k + 1], b0 + (k + 1) * x0, ctx);                         \
                        l2 = RED(l2, tile[k + 2], b0 + (k + 2) * x0, ctx);                         \
                        l3 = RED(l3, tile[k + 3], b0 + (k + 3) * x0, ctx);                         \
                    }                                                                              \
                    if (k < n) l0 = RED(l0, tile[k], b0 + k * x0, ctx);                            \
                    if (k + 1 < n) l1 = RED(l1, tile[k + 1], b0 + (k + 1) * x0, ctx);              \
                    if (k + 2 < n) l2 = RED(l2, tile[k + 2], b0 + (k + 2) * x0, ctx);              \
                }                                                                                  \
                const ACC_T part = COMB(COMB(l0, l1, ctx), COMB(l2, l3, ctx), ctx);                \
                *(ACC_T *)ab = COMB(*(ACC_T *)ab, part, ctx);                                      \
            } else if (as0 == 0) {                                                                 \
                ACC_T a = *(ACC_T *)ab;                                                            \
                for (int64_t i0 = 0; i0 < size0; i0 += CPU_TILE) {                                 \
                    const int64_t n = size0 - i0 < CPU_TILE ? size0 - i0 : CPU_TILE;               \
                    ctx->cvt(tile, in + i0 * is0, is0, n);                                         \
                    for (int64_t k = 0; k < n; k++) a = RED(a, tile[k], base + (i0 + k) * x0, ctx); \
                }                                                                                  \
                *(ACC_T *)ab = a;                                                                  \
            } else {                                                                               \
                for (int64_t i0 = 0; i0 < size0; i0 += CPU_TILE) {                                 \
                    const int64_t n = size0 - i0 < CPU_TILE ? size0 - i0 : CPU_TILE;               \
                    ctx->cvt(tile, in + i0 * is0, is0, n);                                         \
                    for (int64_t k = 0; k < n; k++) {                                              \
                        ACC_T *a = (ACC_T *)(ab + (i0 + k) * as0);                                 \
                        *a = RED(*a, tile[k], base + (i0 + k) * x0, ctx);                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

/* init and combine callbacks over packed accumulators. */
#define CPU_DEFINE_INIT_COMBINE(PREFIX, ACC_T, ID, COMB)                                           \
    static void PREFIX##_init(void *acc, int64_t n, void *vctx) {                                  \
        ACC_T *a = (ACC_T *)acc;                                                                   \
        const ACC_T id = ID((const cpu_reduce_ctx *)vctx);                                         \
        for (int64_t k = 0; k < n; k++) a[k] = id;                                                 \
    }                                                                                              \
    static void PREFIX##_combine(void *acc, const void *later, int64_t n, void *vctx) {            \
        ACC_T *a = (ACC_T *)acc;                                                                   \
        const ACC_T *b = (const ACC_T *)later;                                                     \
        for (int64_t k = 0; k < n; k++) a[k] = COMB(a[k], b[k], (const cpu_reduce_ctx *)vctx);     \
    }

/* project callback for one output: data[0] = output, data[1] = accumulators. */
#define CPU_DEFINE_PROJECT1(NAME, ACC_T, PROJ, STORE)                                              \
    static void NAME(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *vctx) { \
        const cpu_reduce_ctx *ctx = (const cpu_reduce_ctx *)vctx;                                  \
        const int64_t os0 = strides[0], as0 = strides[1], os1 = strides[2], as1 = strides[3];      \
        const tensor_dtype dt = ctx->out_dtype[0];                                                 \
        for (int64_t j = 0; j < size1; j++)                                                        \
            for (int64_t i = 0; i < size0; i++)                                                    \
                STORE(dt, data[0] + i * os0 + j * os1,                                             \
                      PROJ(*(const ACC_T *)(data[1] + i * as0 + j * as1), ctx));                   \
    }

/* project callback for two outputs: data[0], data[1] = outputs, data[2] = accumulators. */
#define CPU_DEFINE_PROJECT2(NAME, ACC_T, PROJ0, STORE0, PROJ1, STORE1)                             \
    static void NAME(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *vctx) { \
        const cpu_reduce_ctx *ctx = (const cpu_reduce_ctx *)vctx;                                  \
        const tensor_dtype dt0 = ctx->out_dtype[0], dt1 = ctx->out_dtype[1];                       \
        for (int64_t j = 0; j < size1; j++)                                                        \
            for (int64_t i = 0; i < size0; i++) {                                                  \
                const ACC_T a = *(const ACC_T *)(data[2] + i * strides[2] + j * strides[5]);       \
                STORE0(dt0, data[0] + i * strides[0] + j * strides[3], PROJ0(a, ctx));             \
                STORE1(dt1, data[1] + i * strides[1] + j * strides[4], PROJ1(a, ctx));             \
            }                                                                                      \
    }

/* A run function `static tensor_status PREFIX##_run(const tensor_iter_t *, cpu_reduce_ctx *)`
 * from the callbacks above (PREFIX##_init, _loop, _combine, _project). */
#define CPU_DEFINE_RUN(PREFIX, ACC_T)                                                              \
    static tensor_status PREFIX##_run(const tensor_iter_t *iter, cpu_reduce_ctx *ctx) {            \
        tensor_iter_reduce_ops ops;                                                                \
        ops.acc_size = sizeof(ACC_T);                                                              \
        ops.init = PREFIX##_init;                                                                  \
        ops.loop = PREFIX##_loop;                                                                  \
        ops.combine = PREFIX##_combine;                                                            \
        ops.project = PREFIX##_project;                                                            \
        ops.ctx = ctx;                                                                             \
        return tensor_iter_reduce_run(iter, &ops);                                                 \
    }

/* Everything for a one-output reduction from context-taking callbacks: PREFIX##_run. */
#define CPU_REDUCTION(PREFIX, ACC_T, VAL_T, ID, RED, COMB, PROJ, STORE)                            \
    CPU_DEFINE_INIT_COMBINE(PREFIX, ACC_T, ID, COMB)                                               \
    CPU_DEFINE_REDUCE_LOOP(PREFIX##_loop, ACC_T, VAL_T, ID, RED, COMB)                             \
    CPU_DEFINE_PROJECT1(PREFIX##_project, ACC_T, PROJ, STORE)                                      \
    CPU_DEFINE_RUN(PREFIX, ACC_T)

/* The common case: a functor FN without parameters (FN##_identity/_reduce/_combine/_project
 * from ops/functors/<op>.h) gives `static tensor_status FN##_cpu_run(iter, ctx)`. The FUNCTOR
 * rows' kernels (cpu/reduce_functor.c) are made of it:
 *   CPU_SIMPLE_REDUCTION(tensor_sum_of_squares_f32, float, float, float, tt_cpu_store_f32) */
#define CPU_SIMPLE_REDUCTION(FN, ACC_T, VAL_T, OUT_T, STORE)                                       \
    CPU_FUNCTOR_ADAPTERS(FN, ACC_T, VAL_T, OUT_T)                                                  \
    CPU_REDUCTION(FN##_cpu, ACC_T, VAL_T, FN##_cid, FN##_cred, FN##_ccomb, FN##_cproj, STORE)

/* ---- the kernels (tensor_kernel_fn): one per row of contract/reductions.h ---- */
#define TT_CPU_KERNEL_DECL_(ID, KERNEL, NAME, TORCH, NOUT, RULE, HAS_ID, IDENTITY, ALL, KIND) \
    tensor_status tt_cpu_##KERNEL##_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
TENSOR_BUILTIN_REDUCTIONS(TT_CPU_KERNEL_DECL_)
#undef TT_CPU_KERNEL_DECL_
/* scans (cpu/scan.c) */
tensor_status tt_cpu_scan_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
/* Fills the CPU slots of the stub table (cpu/register.c); backends/backends.c calls it. */
void tt_cpu_register_kernels(void);
/* user reductions (ops/reduction.h; cpu/reduce_user.c) */
tensor_status tt_cpu_user_reduce_kernel(struct tensor_iter *iter, const tensor_kernel_params *params);
/* the 1-norm (p = 1) or the 2-norm (p = 2) through the reduction kit (cpu/reduce_norm.c) */
tensor_status tt_cpu_norm_kit_kernel(struct tensor_iter *iter, const tensor_kernel_params *params, int p);

#endif
