/* Converters (input dtype -> value type, converting while loading), stores (value -> output
 * dtype) and the dtype dispatch shared by the CPU reduction kernels (cpu/cpu_reduce.h). */
#include <string.h>

#include "cpu/cpu_isa.h"
#include "cpu/cpu_reduce.h"
#include "runtime/dtype_convert.h"
#include "runtime/error.h"
#include "iterator/iter_internal.h"

cpu_val_kind tt_cpu_val_kind_of(tensor_dtype dtype) {
    if (dtype == TENSOR_FLOAT64) return CPU_VAL_F64;
    if (tensor_dtype_is_floating(dtype)) return CPU_VAL_F32;
    return CPU_VAL_I64;
}

/* ---- element loads: each input dtype as float / double / int64 ---- */
#define LD_BOOL(v) ((v) != 0)
static inline float f16f(uint16_t v) { return cpu_f16_to_f32(v); }
static inline float bf16f(uint16_t v) { return cpu_bf16_to_f32(v); }
static inline float e4m3f(uint8_t v) { return tensor_e4m3fn_to_f32(v); }
static inline float e5m2f(uint8_t v) { return tensor_e5m2_to_f32(v); }

/* Rounding a float through a narrower float dtype's value set. */
static inline float rnd_none(float v) { return v; }
static inline float rnd_f16(float v) { return tensor_f16_to_f32(tensor_f32_to_f16(v)); }
static inline float rnd_bf16(float v) { return tensor_bf16_to_f32(tensor_f32_to_bf16(v)); }
static inline float rnd_e4m3(float v) { return tensor_e4m3fn_to_f32(tensor_f32_to_e4m3fn(v)); }
static inline float rnd_e5m2(float v) { return tensor_e5m2_to_f32(tensor_f32_to_e5m2(v)); }

/* One converter: a contiguous loop (vectorisable), one for every other element (a slice with
 * step 2, or one of two interleaved channels: the compiler vectorises it with shuffles; the
 * general strided loop ran one element at a time), and a strided one. */
#define DEF_CVT(NAME, IN_T, VAL_T, EXPR)                                                           \
    static void NAME(void *dstv, const char *src, int64_t stride, int64_t n) {                     \
        VAL_T *restrict dst = (VAL_T *)dstv;                                                       \
        if (stride == (int64_t)sizeof(IN_T)) {                                                     \
            const IN_T *restrict s = (const IN_T *)src;                                            \
            for (int64_t k = 0; k < n; k++) {                                                      \
                const IN_T v = s[k];                                                               \
                dst[k] = (EXPR);                                                                   \
            }                                                                                      \
        } else if (stride == 2 * (int64_t)sizeof(IN_T) && (uintptr_t)src % _Alignof(IN_T) == 0) { \
            const IN_T *restrict s = (const IN_T *)src;                                            \
            for (int64_t k = 0; k < n; k++) {                                                      \
                const IN_T v = s[2 * k];                                                           \
                dst[k] = (EXPR);                                                                   \
            }                                                                                      \
        } else {                                                                                   \
            for (int64_t k = 0; k < n; k++) {                                                      \
                IN_T v;                                                                            \
                memcpy(&v, src + k * stride, sizeof v);                                            \
                dst[k] = (EXPR);                                                                   \
            }                                                                                      \
        }                                                                                          \
    }

/* float value type, for each rounding R: every input dtype. */
#define DEF_CVT_F32_ALL(R)                                                                         \
    DEF_CVT(cvt_bool_f32_##R, uint8_t, float, R((float)LD_BOOL(v)))                                \
    DEF_CVT(cvt_u8_f32_##R, uint8_t, float, R((float)v))                                           \
    DEF_CVT(cvt_i8_f32_##R, int8_t, float, R((float)v))                                            \
    DEF_CVT(cvt_i16_f32_##R, int16_t, float, R((float)v))                                          \
    DEF_CVT(cvt_i32_f32_##R, int32_t, float, R((float)v))                                          \
    DEF_CVT(cvt_i64_f32_##R, int64_t, float, R((float)v))                                          \
    DEF_CVT(cvt_f16_f32_##R, uint16_t, float, R(f16f(v)))                                          \
    DEF_CVT(cvt_bf16_f32_##R, uint16_t, float, R(bf16f(v)))                                        \
    DEF_CVT(cvt_f32_f32_##R, float, float, R(v))                                                   \
    DEF_CVT(cvt_f64_f32_##R, double, float, R((float)v))                                           \
    DEF_CVT(cvt_e4m3_f32_##R, uint8_t, float, R(e4m3f(v)))                                         \
    DEF_CVT(cvt_e5m2_f32_##R, uint8_t, float, R(e5m2f(v)))                                         \
    static const cpu_cvt_fn cvt_f32_##R[TENSOR_NUM_DTYPES] = {                                     \
        [TENSOR_BOOL] = cvt_bool_f32_##R,  [TENSOR_UINT8] = cvt_u8_f32_##R,                        \
        [TENSOR_INT8] = cvt_i8_f32_##R,    [TENSOR_INT16] = cvt_i16_f32_##R,                       \
        [TENSOR_INT32] = cvt_i32_f32_##R,  [TENSOR_INT64] = cvt_i64_f32_##R,                       \
        [TENSOR_FLOAT16] = cvt_f16_f32_##R, [TENSOR_BFLOAT16] = cvt_bf16_f32_##R,                  \
        [TENSOR_FLOAT32] = cvt_f32_f32_##R, [TENSOR_FLOAT64] = cvt_f64_f32_##R,                    \
        [TENSOR_FLOAT8_E4M3FN] = cvt_e4m3_f32_##R, [TENSOR_FLOAT8_E5M2] = cvt_e5m2_f32_##R,        \
    };

DEF_CVT_F32_ALL(rnd_none)
DEF_CVT_F32_ALL(rnd_f16)
DEF_CVT_F32_ALL(rnd_bf16)
DEF_CVT_F32_ALL(rnd_e4m3)
DEF_CVT_F32_ALL(rnd_e5m2)

DEF_CVT(cvt_bool_f64, uint8_t, double, (double)LD_BOOL(v))
DEF_CVT(cvt_u8_f64, uint8_t, double, (double)v)
DEF_CVT(cvt_i8_f64, int8_t, double, (double)v)
DEF_CVT(cvt_i16_f64, int16_t, double, (double)v)
DEF_CVT(cvt_i32_f64, int32_t, double, (double)v)
DEF_CVT(cvt_i64_f64, int64_t, double, (double)v)
DEF_CVT(cvt_f16_f64, uint16_t, double, (double)f16f(v))
DEF_CVT(cvt_bf16_f64, uint16_t, double, (double)bf16f(v))
DEF_CVT(cvt_f32_f64, float, double, (double)v)
DEF_CVT(cvt_f64_f64, double, double, v)
DEF_CVT(cvt_e4m3_f64, uint8_t, double, (double)e4m3f(v))
DEF_CVT(cvt_e5m2_f64, uint8_t, double, (double)e5m2f(v))
static const cpu_cvt_fn cvt_f64[TENSOR_NUM_DTYPES] = {
    [TENSOR_BOOL] = cvt_bool_f64,   [TENSOR_UINT8] = cvt_u8_f64,     [TENSOR_INT8] = cvt_i8_f64,
    [TENSOR_INT16] = cvt_i16_f64,   [TENSOR_INT32] = cvt_i32_f64,    [TENSOR_INT64] = cvt_i64_f64,
    [TENSOR_FLOAT16] = cvt_f16_f64, [TENSOR_BFLOAT16] = cvt_bf16_f64, [TENSOR_FLOAT32] = cvt_f32_f64,
    [TENSOR_FLOAT64] = cvt_f64_f64, [TENSOR_FLOAT8_E4M3FN] = cvt_e4m3_f64, [TENSOR_FLOAT8_E5M2] = cvt_e5m2_f64,
};

/* int64 value type: plain, and through bool (x != 0). */
#define DEF_CVT_I64_ALL(SFX, B)                                                                    \
    DEF_CVT(cvt_bool_i64##SFX, uint8_t, int64_t, (int64_t)LD_BOOL(v))                              \
    DEF_CVT(cvt_u8_i64##SFX, uint8_t, int64_t, B((int64_t)v))                                      \
    DEF_CVT(cvt_i8_i64##SFX, int8_t, int64_t, B((int64_t)v))                                       \
    DEF_CVT(cvt_i16_i64##SFX, int16_t, int64_t, B((int64_t)v))                                     \
    DEF_CVT(cvt_i32_i64##SFX, int32_t, int64_t, B((int64_t)v))                                     \
    DEF_CVT(cvt_i64_i64##SFX, int64_t, int64_t, B(v))                                              \
    DEF_CVT(cvt_f16_i64##SFX, uint16_t, int64_t, B##F(f16f(v)))                                    \
    DEF_CVT(cvt_bf16_i64##SFX, uint16_t, int64_t, B##F(bf16f(v)))                                  \
    DEF_CVT(cvt_f32_i64##SFX, float, int64_t, B##F(v))                                             \
    DEF_CVT(cvt_f64_i64##SFX, double, int64_t, B##F(v))                                            \
    DEF_CVT(cvt_e4m3_i64##SFX, uint8_t, int64_t, B##F(e4m3f(v)))                                   \
    DEF_CVT(cvt_e5m2_i64##SFX, uint8_t, int64_t, B##F(e5m2f(v)))                                   \
    static const cpu_cvt_fn cvt_i64##SFX[TENSOR_NUM_DTYPES] = {                                    \
        [TENSOR_BOOL] = cvt_bool_i64##SFX,   [TENSOR_UINT8] = cvt_u8_i64##SFX,                     \
        [TENSOR_INT8] = cvt_i8_i64##SFX,     [TENSOR_INT16] = cvt_i16_i64##SFX,                    \
        [TENSOR_INT32] = cvt_i32_i64##SFX,   [TENSOR_INT64] = cvt_i64_i64##SFX,                    \
        [TENSOR_FLOAT16] = cvt_f16_i64##SFX, [TENSOR_BFLOAT16] = cvt_bf16_i64##SFX,                \
        [TENSOR_FLOAT32] = cvt_f32_i64##SFX, [TENSOR_FLOAT64] = cvt_f64_i64##SFX,                  \
        [TENSOR_FLOAT8_E4M3FN] = cvt_e4m3_i64##SFX, [TENSOR_FLOAT8_E5M2] = cvt_e5m2_i64##SFX,      \
    };
#define KEEP(x) (x)
#define KEEPF(x) cpu_f64_to_i64((double)(x))
#define TOBOOL(x) ((int64_t)((x) != 0))
#define TOBOOLF(x) ((int64_t)((x) != 0))
DEF_CVT_I64_ALL(, KEEP)
DEF_CVT_I64_ALL(_bool, TOBOOL)

/* float16 -> float32 of a contiguous run with F16C (8 elements an instruction) on CPUs that have
 * it. The integer decode above gives the same bits (both exact; both quiet a signalling NaN);
 * the generic reduction template converts in a pass of its own, where the decode was the
 * float16 cost. */
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>
#define CPU_CVT_F16C 1
__attribute__((target("avx2,f16c"))) static void f16_run_f16c(float *restrict dst, const uint16_t *restrict s,
                                                             int64_t n) {
    int64_t k = 0;
    for (; k + 8 <= n; k += 8)
        _mm256_storeu_ps(dst + k, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(s + k))));
    for (; k < n; k++) dst[k] = f16f(s[k]);
}
/* float16 -> float64 likewise (through float32, exact; the CPU's var and the double value type of
 * user reductions load float16 this way). bfloat16's shift-and-convert needs no help: the
 * compiler vectorises it. */
__attribute__((target("avx2,f16c"))) static void f16_run_f64(double *restrict dst, const uint16_t *restrict s,
                                                            int64_t n) {
    int64_t k = 0;
    for (; k + 8 <= n; k += 8) {
        const __m256 f = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(s + k)));
        _mm256_storeu_pd(dst + k, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
        _mm256_storeu_pd(dst + k + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
    }
    for (; k < n; k++) dst[k] = (double)f16f(s[k]);
}
#endif
static void cvt_f16_f64_run(void *dstv, const char *src, int64_t stride, int64_t n) {
#ifdef CPU_CVT_F16C
    if (stride == (int64_t)sizeof(uint16_t) && tt_cpu_has(TT_CPU_AVX2 | TT_CPU_F16C)) {
        f16_run_f64((double *)dstv, (const uint16_t *)(const void *)src, n);
        return;
    }
#endif
    cvt_f16_f64(dstv, src, stride, n);
}
static void cvt_f16_f32_run(void *dstv, const char *src, int64_t stride, int64_t n) {
#ifdef CPU_CVT_F16C
    if (stride == (int64_t)sizeof(uint16_t) && tt_cpu_has(TT_CPU_AVX2 | TT_CPU_F16C)) {
        f16_run_f16c((float *)dstv, (const uint16_t *)(const void *)src, n);
        return;
    }
#endif
    cvt_f16_f32_rnd_none(dstv, src, stride, n);
}

static bool valid_dtype(tensor_dtype d) { return (int)d >= 0 && d < TENSOR_NUM_DTYPES; }

cpu_cvt_fn tt_cpu_converter(tensor_dtype in, cpu_val_kind val, tensor_dtype via) {
    if (!valid_dtype(in)) return NULL;
    switch (val) {
    case CPU_VAL_F32:
        if (in == TENSOR_FLOAT16 && (via == in || via == TENSOR_FLOAT32)) return cvt_f16_f32_run;
        if (via == in) return cvt_f32_rnd_none[in];
        switch (via) {
        case TENSOR_FLOAT16: return cvt_f32_rnd_f16[in];
        case TENSOR_BFLOAT16: return cvt_f32_rnd_bf16[in];
        case TENSOR_FLOAT8_E4M3FN: return cvt_f32_rnd_e4m3[in];
        case TENSOR_FLOAT8_E5M2: return cvt_f32_rnd_e5m2[in];
        default: return cvt_f32_rnd_none[in];
        }
    case CPU_VAL_F64:
        return in == TENSOR_FLOAT16 ? cvt_f16_f64_run : cvt_f64[in];
    case CPU_VAL_I64: return via == TENSOR_BOOL && in != TENSOR_BOOL ? cvt_i64_bool[in] : cvt_i64[in];
    }
    return NULL;
}

bool tt_cpu_converter_is_plain(tensor_dtype in, cpu_val_kind val, tensor_dtype via) {
    switch (val) {
    case CPU_VAL_F32:
        return (via == in || via == TENSOR_FLOAT32) && tensor_dtype_is_floating(in) && in != TENSOR_FLOAT64;
    case CPU_VAL_F64: return in == TENSOR_FLOAT64;
    case CPU_VAL_I64: return !tensor_dtype_is_floating(in) && (via != TENSOR_BOOL || in == TENSOR_BOOL);
    }
    return false;
}

/* ---- stores ---- */

static void store_int_bits(tensor_dtype dtype, char *dst, int64_t v) {
    switch (dtype) {
    case TENSOR_UINT8:
    case TENSOR_INT8: {
        uint8_t b = (uint8_t)(uint64_t)v;
        memcpy(dst, &b, 1);
        break;
    }
    case TENSOR_INT16: {
        uint16_t b = (uint16_t)(uint64_t)v;
        memcpy(dst, &b, 2);
        break;
    }
    case TENSOR_INT32: {
        uint32_t b = (uint32_t)(uint64_t)v;
        memcpy(dst, &b, 4);
        break;
    }
    case TENSOR_INT64: memcpy(dst, &v, 8); break;
    default: break;
    }
}

void tt_cpu_store_f32(tensor_dtype dtype, char *dst, float v) {
    switch (dtype) {
    case TENSOR_FLOAT32: memcpy(dst, &v, 4); return;
    case TENSOR_FLOAT16: {
        uint16_t b = tensor_f32_to_f16(v);
        memcpy(dst, &b, 2);
        return;
    }
    case TENSOR_BFLOAT16: {
        uint16_t b = tensor_f32_to_bf16(v);
        memcpy(dst, &b, 2);
        return;
    }
    case TENSOR_FLOAT8_E4M3FN: *(uint8_t *)dst = tensor_f32_to_e4m3fn(v); return;
    case TENSOR_FLOAT8_E5M2: *(uint8_t *)dst = tensor_f32_to_e5m2(v); return;
    case TENSOR_FLOAT64: {
        double d = v;
        memcpy(dst, &d, 8);
        return;
    }
    case TENSOR_BOOL: *(uint8_t *)dst = v != 0; return;
    default: store_int_bits(dtype, dst, cpu_f64_to_i64(v)); return;
    }
}

void tt_cpu_store_f64(tensor_dtype dtype, char *dst, double v) {
    switch (dtype) {
    case TENSOR_FLOAT64: memcpy(dst, &v, 8); return;
    case TENSOR_BOOL: *(uint8_t *)dst = v != 0; return;
    case TENSOR_UINT8:
    case TENSOR_INT8:
    case TENSOR_INT16:
    case TENSOR_INT32:
    case TENSOR_INT64: store_int_bits(dtype, dst, cpu_f64_to_i64(v)); return;
    default: tt_cpu_store_f32(dtype, dst, (float)v); return; /* as PyTorch: double -> float -> narrow */
    }
}

void tt_cpu_store_i64(tensor_dtype dtype, char *dst, int64_t v) {
    switch (dtype) {
    case TENSOR_BOOL: *(uint8_t *)dst = v != 0; return;
    case TENSOR_FLOAT64: {
        double d = (double)v;
        memcpy(dst, &d, 8);
        return;
    }
    case TENSOR_FLOAT32:
    case TENSOR_FLOAT16:
    case TENSOR_BFLOAT16:
    case TENSOR_FLOAT8_E4M3FN:
    case TENSOR_FLOAT8_E5M2: tt_cpu_store_f32(dtype, dst, (float)v); return;
    default: store_int_bits(dtype, dst, v); return;
    }
}

void tt_cpu_store_bool(tensor_dtype dtype, char *dst, bool v) { tt_cpu_store_i64(dtype, dst, v ? 1 : 0); }

/* ---- context and dispatch ---- */

void tt_cpu_ctx_init(cpu_reduce_ctx *ctx, const tensor_iter_t *iter, const tensor_kernel_params *params,
                  cpu_val_kind val, tensor_dtype via) {
    memset(ctx, 0, sizeof *ctx);
    ctx->in_dtype = iter->operands[cpu_input_arg(iter)].dtype;
    ctx->out_dtype[0] = iter->operands[0].dtype;
    ctx->out_dtype[1] = iter->num_outputs > 1 ? iter->operands[1].dtype : iter->operands[0].dtype;
    ctx->cvt = tt_cpu_converter(ctx->in_dtype, val, via);
    ctx->params = params;
    int64_t nout = tensor_iter_num_output_elements(iter);
    ctx->count = nout > 0 ? tensor_iter_numel(iter) / nout : 0;
    if (params != NULL) {
        ctx->p_f32 = (float)params->p;
        ctx->p_f64 = params->p;
    }
}

static tensor_status check_iter(const tensor_iter_t *iter, const char *op) {
    if (iter == NULL || iter->num_outputs < 1 || iter->num_operands != iter->num_outputs + 1)
        return tensor_error(TENSOR_ERR_INTERNAL, "cpu %s kernel: expected a reduction iterator with one input", op);
    return TENSOR_OK;
}

static tensor_status run_kind(const tensor_iter_t *iter, const tensor_kernel_params *params, const char *op,
                              tensor_dtype kind_dtype, cpu_run_fn f32, cpu_run_fn f64, cpu_run_fn i64) {
    if (check_iter(iter, op) != TENSOR_OK) return tensor_last_status();
    cpu_val_kind k = tt_cpu_val_kind_of(kind_dtype);
    cpu_run_fn fn = k == CPU_VAL_F32 ? f32 : k == CPU_VAL_F64 ? f64 : i64;
    if (fn == NULL)
        return tensor_error(TENSOR_ERR_NOT_IMPLEMENTED, "%s: %s is not implemented for %s on the CPU", iter->name, op,
                            tensor_dtype_name(kind_dtype));
    cpu_reduce_ctx ctx;
    /* The cast-first rule: values go through the OUTPUT dtype's value set (by_output), or
     * are the input's own (by_input: kind_dtype is the input dtype, so via == in). */
    tt_cpu_ctx_init(&ctx, iter, params, k, kind_dtype);
    if (ctx.cvt == NULL)
        return tensor_error(TENSOR_ERR_DTYPE, "%s: %s got an unknown dtype", iter->name, op);
    return fn(iter, &ctx);
}

tensor_status tt_cpu_run_by_output(const tensor_iter_t *iter, const tensor_kernel_params *params, const char *op,
                                cpu_run_fn f32, cpu_run_fn f64, cpu_run_fn i64) {
    if (check_iter(iter, op) != TENSOR_OK) return tensor_last_status();
    return run_kind(iter, params, op, iter->operands[0].dtype, f32, f64, i64);
}

tensor_status tt_cpu_run_by_input(const tensor_iter_t *iter, const tensor_kernel_params *params, const char *op,
                               cpu_run_fn f32, cpu_run_fn f64, cpu_run_fn i64) {
    if (check_iter(iter, op) != TENSOR_OK) return tensor_last_status();
    return run_kind(iter, params, op, iter->operands[cpu_input_arg(iter)].dtype, f32, f64, i64);
}
