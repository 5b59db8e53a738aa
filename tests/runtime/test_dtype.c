/* dtypes: names, sizes, categories, PyTorch's promotion lattice and result_type, the narrow
 * float conversions and element load/store.
 *
 * The conversions are checked against references written here from the formats' definitions
 * (double arithmetic with ldexp/frexp, no bit tricks shared with dtype_convert.h), and for
 * float16 also against the compiler's _Float16 where it has one: exhaustively for narrow ->
 * float, and for float -> narrow on every representable value, every midpoint between
 * neighbours (ties, both directions), their float neighbours, and random float patterns. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "test_main.h"

#include "runtime/dtype.h"
#include "runtime/dtype_convert.h"

#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- format descriptions and the reference ---- */

typedef struct fmt {
    const char *name;
    int ebits, mbits, bias;
    int no_inf;        /* e4m3fn: all-ones exponent is finite, only S.1111.111 is NaN */
    uint32_t nan_code; /* the canonical NaN dtype_convert.h documents, without sign */
    uint32_t (*encode)(float);
    float (*decode)(uint32_t);
} fmt;

static uint32_t enc_f16(float f) { return tensor_f32_to_f16(f); }
static float dec_f16(uint32_t b) { return tensor_f16_to_f32((uint16_t)b); }
static uint32_t enc_bf16(float f) { return tensor_f32_to_bf16(f); }
static float dec_bf16(uint32_t b) { return tensor_bf16_to_f32((uint16_t)b); }
static uint32_t enc_e4m3(float f) { return tensor_f32_to_e4m3fn(f); }
static float dec_e4m3(uint32_t b) { return tensor_e4m3fn_to_f32((uint8_t)b); }
static uint32_t enc_e5m2(float f) { return tensor_f32_to_e5m2(f); }
static float dec_e5m2(uint32_t b) { return tensor_e5m2_to_f32((uint8_t)b); }

static const fmt FMT_F16 = {"float16", 5, 10, 15, 0, 0x7E00, enc_f16, dec_f16};
static const fmt FMT_BF16 = {"bfloat16", 8, 7, 127, 0, 0x7FC0, enc_bf16, dec_bf16};
static const fmt FMT_E4M3 = {"float8_e4m3fn", 4, 3, 7, 1, 0x7F, enc_e4m3, dec_e4m3};
static const fmt FMT_E5M2 = {"float8_e5m2", 5, 2, 15, 0, 0x7F, enc_e5m2, dec_e5m2};

static int fmt_width(const fmt *f) { return 1 + f->ebits + f->mbits; }
static uint32_t fmt_sign(const fmt *f) { return 1u << (fmt_width(f) - 1); }
static uint32_t fmt_emax_field(const fmt *f) { return (1u << f->ebits) - 1; }

static int ref_is_nan(const fmt *f, uint32_t b) {
    const uint32_t a = b & (fmt_sign(f) - 1);
    if (f->no_inf) return a == fmt_sign(f) - 1;
    return (a >> f->mbits) == fmt_emax_field(f) && (a & ((1u << f->mbits) - 1)) != 0;
}

/* The value of an encoding, from the definition of the format. */
static double ref_decode(const fmt *f, uint32_t b) {
    const int neg = (b & fmt_sign(f)) != 0;
    const uint32_t e = (b >> f->mbits) & fmt_emax_field(f);
    const uint32_t m = b & ((1u << f->mbits) - 1);
    double v;
    if (ref_is_nan(f, b)) v = NAN;
    else if (!f->no_inf && e == fmt_emax_field(f)) v = INFINITY;
    else if (e == 0) v = ldexp((double)m, 1 - f->bias - f->mbits);
    else v = ldexp(1.0 + ldexp((double)m, -f->mbits), (int)e - f->bias);
    return neg ? -v : v;
}

static uint32_t ref_max_code(const fmt *f) {
    return f->no_inf ? fmt_sign(f) - 2 : (fmt_emax_field(f) << f->mbits) - 1;
}

/* Largest finite value, and the spacing of values in its binade. */
static double ref_max(const fmt *f) { return ref_decode(f, ref_max_code(f)); }
static double ref_top_ulp(const fmt *f) {
    return ref_decode(f, ref_max_code(f)) - ref_decode(f, ref_max_code(f) - 1);
}

/* x rounded to the format: nearest, ties to even, gradual underflow, and past the largest
 * finite value Inf (NaN for e4m3fn). Done on the value in double: x has at most 24
 * significant bits, so every step below is exact. */
static uint32_t ref_encode(const fmt *f, float x) {
    const uint32_t sign = signbit(x) ? fmt_sign(f) : 0;
    const uint32_t overflow = f->no_inf ? f->nan_code : fmt_emax_field(f) << f->mbits;
    if (isnan(x)) return sign | f->nan_code;
    const double a = fabs((double)x);
    if (isinf(a)) return sign | overflow;
    if (a == 0) return sign;
    int k;
    (void)frexp(a, &k); /* a in [2^(k-1), 2^k) */
    const int emin = 1 - f->bias;
    const int qexp = (k - 1) > emin ? (k - 1) : emin;
    const double quantum = ldexp(1.0, qexp - f->mbits);
    const double n = a / quantum;
    double r = floor(n);
    const double frac = n - r;
    if (frac > 0.5 || (frac == 0.5 && fmod(r, 2.0) == 1.0)) r += 1.0;
    const double v = r * quantum;
    if (v > ref_max(f)) return sign | overflow;
    if (v < ldexp(1.0, emin)) return sign | (uint32_t)r; /* subnormal (r may be 0) */
    (void)frexp(v, &k);
    const int ve = k - 1;
    const uint32_t mant = (uint32_t)(ldexp(v, f->mbits - ve) - ldexp(1.0, f->mbits));
    return sign | ((uint32_t)(ve + f->bias) << f->mbits) | mant;
}

static void check_encode(const fmt *f, float x) {
    const uint32_t got = f->encode(x), want = ref_encode(f, x);
    if (got != want)
        fail_msg("%s: f32 %a (0x%08x) -> 0x%x, want 0x%x", f->name, (double)x, bits_of(x), got, want);
#ifdef __FLT16_MAX__
    if (f == &FMT_F16 && !isnan(x)) {
        const _Float16 h = (_Float16)x;
        uint16_t hb;
        memcpy(&hb, &h, sizeof hb);
        if (hb != got) fail_msg("float16: f32 %a -> 0x%04x, _Float16 gives 0x%04x", (double)x, got, hb);
    }
#endif
}

/* ---- narrow -> float32, exhaustive ---- */

static void check_decode_all(const fmt *f) {
    const uint32_t n = 1u << fmt_width(f);
    for (uint32_t b = 0; b < n; b++) {
        const float got = f->decode(b);
        const double want = ref_decode(f, b);
        if (isnan(want)) {
            if (!isnan(got) || (signbit(got) != 0) != ((b & fmt_sign(f)) != 0))
                fail_msg("%s 0x%x -> %a, want a NaN of the same sign", f->name, b, (double)got);
            /* c10's bits: the payload shifted into place and the quiet bit set (bfloat16 is
             * exactly the top half of a float, signalling or not: checked in its own test) */
            const uint32_t m = b & ((1u << f->mbits) - 1);
            const uint32_t want_bits = (signbit(got) ? 0x80000000u : 0u) | 0x7FC00000u | (m << (23 - f->mbits));
            if (f != &FMT_BF16 && bits_of(got) != want_bits)
                fail_msg("%s 0x%x -> NaN 0x%08x, want 0x%08x", f->name, b, bits_of(got), want_bits);
        } else if (bits_of(got) != bits_of((float)want)) {
            /* bits, so that -0 and +0 differ */
            fail_msg("%s 0x%x -> %a (0x%08x), want %a", f->name, b, (double)got, bits_of(got), want);
        }
        if ((double)(float)want != want && !isnan(want)) fail_msg("%s 0x%x: value not a float", f->name, b);
    }
}

static void test_f16_to_f32_exhaustive(void **state) {
    (void)state;
    check_decode_all(&FMT_F16);
#ifdef __FLT16_MAX__
    for (uint32_t b = 0; b < 65536; b++) {
        _Float16 h;
        const uint16_t hb = (uint16_t)b;
        memcpy(&h, &hb, sizeof h);
        const float want = (float)h, got = tensor_f16_to_f32(hb);
        if (isnan(want) ? !isnan(got) : bits_of(want) != bits_of(got))
            fail_msg("float16 0x%04x -> %a, _Float16 gives %a", b, (double)got, (double)want);
    }
#endif
}

static void test_bf16_to_f32_exhaustive(void **state) {
    (void)state;
    check_decode_all(&FMT_BF16);
    /* bfloat16 is the top half of a float32: exactly, NaN payloads included */
    for (uint32_t b = 0; b < 65536; b++)
        if (bits_of(tensor_bf16_to_f32((uint16_t)b)) != b << 16) fail_msg("bfloat16 0x%04x not the top half", b);
}

static void test_e4m3fn_to_f32_exhaustive(void **state) {
    (void)state;
    check_decode_all(&FMT_E4M3);
    assert_true(tensor_e4m3fn_to_f32(0x7E) == 448.0f);
    assert_true(tensor_e4m3fn_to_f32(0x78) == 256.0f);
    assert_true(tensor_e4m3fn_to_f32(0x01) == 0x1p-9f);
    assert_true(tensor_e4m3fn_to_f32(0x08) == 0x1p-6f);
    assert_true(tensor_e4m3fn_to_f32(0x38) == 1.0f);
    assert_true(isnan(tensor_e4m3fn_to_f32(0x7F)) && isnan(tensor_e4m3fn_to_f32(0xFF)));
    assert_true(signbit(tensor_e4m3fn_to_f32(0x80)) && tensor_e4m3fn_to_f32(0x80) == 0.0f);
}

static void test_e5m2_to_f32_exhaustive(void **state) {
    (void)state;
    check_decode_all(&FMT_E5M2);
    assert_true(tensor_e5m2_to_f32(0x7B) == 57344.0f);
    assert_true(tensor_e5m2_to_f32(0x7C) == INFINITY && tensor_e5m2_to_f32(0xFC) == -INFINITY);
    assert_true(tensor_e5m2_to_f32(0x01) == 0x1p-16f);
    assert_true(tensor_e5m2_to_f32(0x3C) == 1.0f);
    assert_true(isnan(tensor_e5m2_to_f32(0x7D)) && isnan(tensor_e5m2_to_f32(0xFF)));
}

/* ---- round trips: narrow -> float32 -> narrow is the identity, NaNs keep NaN and sign ---- */

static void check_round_trip(const fmt *f) {
    const uint32_t n = 1u << fmt_width(f);
    for (uint32_t b = 0; b < n; b++) {
        const uint32_t back = f->encode(f->decode(b));
        if (ref_is_nan(f, b)) {
            if (back != ((b & fmt_sign(f)) | f->nan_code))
                fail_msg("%s NaN 0x%x -> 0x%x, want canonical 0x%x", f->name, b, back, (b & fmt_sign(f)) | f->nan_code);
        } else if (back != b) {
            fail_msg("%s 0x%x -> %a -> 0x%x", f->name, b, (double)f->decode(b), back);
        }
    }
}

static void test_round_trip(void **state) {
    (void)state;
    check_round_trip(&FMT_F16);
    check_round_trip(&FMT_BF16);
    check_round_trip(&FMT_E4M3);
    check_round_trip(&FMT_E5M2);
}

/* ---- float32 -> narrow: values, midpoints, neighbours ---- */

static void check_around(const fmt *f, double v) {
    const float x = (float)v;
    if ((double)x != v) fail_msg("%s: test point %a is not a float", f->name, v);
    const float xs[3] = {x, nextafterf(x, INFINITY), nextafterf(x, -INFINITY)};
    for (int i = 0; i < 3; i++) {
        check_encode(f, xs[i]);
        check_encode(f, -xs[i]);
    }
}

static void check_encode_structured(const fmt *f) {
    const uint32_t maxc = ref_max_code(f);
    int ties_up = 0, ties_down = 0;
    for (uint32_t b = 0; b <= maxc; b++) {
        const double lo = ref_decode(f, b);
        const double hi = b < maxc ? ref_decode(f, b + 1) : ref_max(f) + ref_top_ulp(f);
        const double mid = (lo + hi) / 2;
        check_around(f, lo);
        check_around(f, mid);
        /* a tie goes to the even encoding (past the max: Inf, NaN for e4m3fn) */
        const uint32_t got = f->encode((float)mid);
        const uint32_t even = (b & 1) ? b + 1 : b;
        const uint32_t want = b == maxc && !(b & 1) ? b : (b == maxc ? ref_encode(f, INFINITY) : even);
        if (got != want) fail_msg("%s: tie %a between 0x%x and next -> 0x%x, want 0x%x", f->name, mid, b, got, want);
        if (got == b) ties_down++;
        else ties_up++;
    }
    /* both directions of ties-to-even were exercised */
    assert_true(ties_up > 0 && ties_down > 0);
    /* the float extremes */
    const float extremes[] = {0.0f, FLT_MIN, FLT_MAX, 0x1p-149f, FLT_MIN - 0x1p-149f, INFINITY};
    for (int i = 0; i < NELEM(extremes); i++) {
        check_encode(f, extremes[i]);
        check_encode(f, -extremes[i]);
    }
}

static void test_f32_to_f16_structured(void **state) {
    (void)state;
    check_encode_structured(&FMT_F16);
    assert_int_equal(tensor_f32_to_f16(65504.0f), 0x7BFF);
    assert_int_equal(tensor_f32_to_f16(nextafterf(65520.0f, 0)), 0x7BFF);
    assert_int_equal(tensor_f32_to_f16(65520.0f), 0x7C00); /* tie past the max: Inf */
    assert_int_equal(tensor_f32_to_f16(-INFINITY), 0xFC00);
    assert_int_equal(tensor_f32_to_f16(0x1p-24f), 0x0001);
    assert_int_equal(tensor_f32_to_f16(0x1p-25f), 0x0000);                  /* tie to even 0 */
    assert_int_equal(tensor_f32_to_f16(-0x1p-25f), 0x8000);                 /* signed zero */
    assert_int_equal(tensor_f32_to_f16(nextafterf(0x1p-25f, 1)), 0x0001);
    assert_int_equal(tensor_f32_to_f16(0x1p-14f - 0x1p-25f), 0x0400); /* largest subnormal rounds up to normal */
}

static void test_f32_to_bf16_structured(void **state) {
    (void)state;
    check_encode_structured(&FMT_BF16);
    assert_int_equal(tensor_f32_to_bf16(1.0f), 0x3F80);
    assert_int_equal(tensor_f32_to_bf16(FLT_MAX), 0x7F80); /* rounds past bf16's max */
    assert_int_equal(tensor_f32_to_bf16(float_of(0x7F7F7FFFu)), 0x7F7F);
    assert_int_equal(tensor_f32_to_bf16(float_of(0x00008000u)), 0x0000); /* tie to even */
    assert_int_equal(tensor_f32_to_bf16(float_of(0x00018000u)), 0x0002);
    assert_int_equal(tensor_f32_to_bf16(float_of(0x80000001u)), 0x8000);
}

/* e4m3fn has no Inf; c10's Float8_e4m3fn (non-saturating) turns anything that rounds past
 * 448, and +-Inf, into NaN with the sign kept. */
static void test_f32_to_e4m3fn_structured(void **state) {
    (void)state;
    check_encode_structured(&FMT_E4M3);
    assert_int_equal(tensor_f32_to_e4m3fn(448.0f), 0x7E);
    assert_int_equal(tensor_f32_to_e4m3fn(464.0f), 0x7E); /* tie with the (absent) 480: even */
    assert_int_equal(tensor_f32_to_e4m3fn(nextafterf(464.0f, 1000)), 0x7F);
    assert_int_equal(tensor_f32_to_e4m3fn(480.0f), 0x7F);
    assert_int_equal(tensor_f32_to_e4m3fn(1e30f), 0x7F);
    assert_int_equal(tensor_f32_to_e4m3fn(INFINITY), 0x7F);
    assert_int_equal(tensor_f32_to_e4m3fn(-INFINITY), 0xFF);
    assert_int_equal(tensor_f32_to_e4m3fn(-500.0f), 0xFF);
    assert_int_equal(tensor_f32_to_e4m3fn(0x1p-10f), 0x00); /* half the smallest subnormal: tie to 0 */
    assert_int_equal(tensor_f32_to_e4m3fn(0x1.8p-9f), 0x02);
    assert_int_equal(tensor_f32_to_e4m3fn(-0.0f), 0x80);
}

static void test_f32_to_e5m2_structured(void **state) {
    (void)state;
    check_encode_structured(&FMT_E5M2);
    assert_int_equal(tensor_f32_to_e5m2(57344.0f), 0x7B);
    assert_int_equal(tensor_f32_to_e5m2(nextafterf(61440.0f, 0)), 0x7B);
    assert_int_equal(tensor_f32_to_e5m2(61440.0f), 0x7C); /* tie past the max: Inf */
    assert_int_equal(tensor_f32_to_e5m2(-INFINITY), 0xFC);
    assert_int_equal(tensor_f32_to_e5m2(0x1p-17f), 0x00);
    assert_int_equal(tensor_f32_to_e5m2(0x1.8p-16f), 0x02);
}

static void test_f32_nan_to_narrow(void **state) {
    (void)state;
    const uint32_t nans[] = {0x7FC00000u, 0x7F800001u, 0x7FFFFFFFu, 0x7FA00000u, 0x7F802000u};
    for (int i = 0; i < NELEM(nans); i++) {
        for (uint32_t s = 0; s <= 1; s++) {
            const float x = float_of(nans[i] | (s << 31));
            assert_int_equal(tensor_f32_to_f16(x), 0x7E00 | (s << 15));
            assert_int_equal(tensor_f32_to_bf16(x), 0x7FC0 | (s << 15));
            assert_int_equal(tensor_f32_to_e4m3fn(x), 0x7F | (s << 7));
            assert_int_equal(tensor_f32_to_e5m2(x), 0x7F | (s << 7));
        }
    }
}

/* Random float bit patterns, fixed seed: uniform over all patterns, then concentrated on the
 * exponents where the narrow formats live (subnormal to overflow). */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rng32(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 32);
}

static void test_f32_to_narrow_random(void **state) {
    (void)state;
    static const fmt *const fmts[] = {&FMT_F16, &FMT_BF16, &FMT_E4M3, &FMT_E5M2};
    rng_state = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < (1 << 22); i++) {
        uint32_t u = rng32();
        if (i & 1) { /* biased exponent 97..160: around every narrow format's range */
            const uint32_t e = 97u + (rng32() % 64u);
            u = (u & 0x807FFFFFu) | (e << 23);
        }
        const float x = float_of(u);
        for (int k = 0; k < NELEM(fmts); k++) check_encode(fmts[k], x);
    }
}

/* The exported out-of-line forms are the inline ones. */
static void test_out_of_line_conversions(void **state) {
    (void)state;
    for (uint32_t b = 0; b < 65536; b++) {
        const uint16_t h = (uint16_t)b;
        const float x = float_of(b * 65537u + 12345u);
        if (bits_of(tensor_float16_to_float(h)) != bits_of(tensor_f16_to_f32(h))) fail_msg("f16 0x%x", b);
        if (bits_of(tensor_bfloat16_to_float(h)) != bits_of(tensor_bf16_to_f32(h))) fail_msg("bf16 0x%x", b);
        if (tensor_float_to_float16(x) != tensor_f32_to_f16(x)) fail_msg("to f16 %a", (double)x);
        if (tensor_float_to_bfloat16(x) != tensor_f32_to_bf16(x)) fail_msg("to bf16 %a", (double)x);
        if (tensor_float_to_float8_e4m3fn(x) != tensor_f32_to_e4m3fn(x)) fail_msg("to e4m3 %a", (double)x);
        if (tensor_float_to_float8_e5m2(x) != tensor_f32_to_e5m2(x)) fail_msg("to e5m2 %a", (double)x);
        if (b < 256) {
            const uint8_t v = (uint8_t)b;
            if (bits_of(tensor_float8_e4m3fn_to_float(v)) != bits_of(tensor_e4m3fn_to_f32(v))) fail_msg("e4m3 0x%x", b);
            if (bits_of(tensor_float8_e5m2_to_float(v)) != bits_of(tensor_e5m2_to_f32(v))) fail_msg("e5m2 0x%x", b);
        }
    }
}

/* ---- names, sizes, categories, predicates ---- */

typedef struct dtype_info {
    tensor_dtype dtype;
    const char *name;
    size_t size;
    tensor_dtype_category cat;
    bool is_signed;
} dtype_info;

static const dtype_info INFO[] = {
    {TENSOR_BOOL, "bool", 1, TENSOR_CATEGORY_BOOL, false},
    {TENSOR_UINT8, "uint8", 1, TENSOR_CATEGORY_INTEGER, false},
    {TENSOR_INT8, "int8", 1, TENSOR_CATEGORY_INTEGER, true},
    {TENSOR_INT16, "int16", 2, TENSOR_CATEGORY_INTEGER, true},
    {TENSOR_INT32, "int32", 4, TENSOR_CATEGORY_INTEGER, true},
    {TENSOR_INT64, "int64", 8, TENSOR_CATEGORY_INTEGER, true},
    {TENSOR_FLOAT16, "float16", 2, TENSOR_CATEGORY_FLOATING, true},
    {TENSOR_BFLOAT16, "bfloat16", 2, TENSOR_CATEGORY_FLOATING, true},
    {TENSOR_FLOAT32, "float32", 4, TENSOR_CATEGORY_FLOATING, true},
    {TENSOR_FLOAT64, "float64", 8, TENSOR_CATEGORY_FLOATING, true},
    {TENSOR_FLOAT8_E4M3FN, "float8_e4m3fn", 1, TENSOR_CATEGORY_FLOATING, true},
    {TENSOR_FLOAT8_E5M2, "float8_e5m2", 1, TENSOR_CATEGORY_FLOATING, true},
};

static void test_names_sizes_categories(void **state) {
    (void)state;
    assert_int_equal(NELEM(INFO), TENSOR_NUM_DTYPES);
    for (int i = 0; i < NELEM(INFO); i++) {
        const dtype_info *d = &INFO[i];
        assert_int_equal(d->dtype, i);
        assert_true(tensor_dtype_is_valid(d->dtype));
        assert_string_equal(tensor_dtype_name(d->dtype), d->name);
        assert_int_equal(tensor_dtype_size(d->dtype), d->size);
        assert_int_equal(tensor_dtype_category_of(d->dtype), d->cat);
        assert_int_equal(tensor_dtype_is_floating(d->dtype), d->cat == TENSOR_CATEGORY_FLOATING);
        assert_int_equal(tensor_dtype_is_integer(d->dtype), d->cat == TENSOR_CATEGORY_INTEGER);
        assert_int_equal(tensor_dtype_is_signed(d->dtype), d->is_signed);
    }
}

static void test_invalid_dtype_queries(void **state) {
    (void)state;
    const tensor_dtype bad[] = {(tensor_dtype)99, TENSOR_DTYPE_DEFAULT, TENSOR_NUM_DTYPES, (tensor_dtype)-1000};
    for (int i = 0; i < NELEM(bad); i++) {
        assert_false(tensor_dtype_is_valid(bad[i]));
        assert_string_equal(tensor_dtype_name(bad[i]), "invalid");
        assert_int_equal(tensor_dtype_size(bad[i]), 0);
        assert_int_equal(tensor_dtype_category_of(bad[i]), TENSOR_CATEGORY_BOOL);
        assert_false(tensor_dtype_is_floating(bad[i]));
        assert_false(tensor_dtype_is_integer(bad[i]));
        assert_false(tensor_dtype_is_signed(bad[i]));
        /* load gives 0, store writes nothing */
        unsigned char buf[8];
        memset(buf, 0xAB, sizeof buf);
        assert_true(tensor_dtype_load_double(bad[i], buf) == 0.0);
        assert_int_equal(tensor_dtype_load_int64(bad[i], buf), 0);
        tensor_dtype_store_double(bad[i], buf, 1.0);
        tensor_dtype_store_int64(bad[i], buf, 1);
        for (int k = 0; k < 8; k++) assert_int_equal(buf[k], 0xAB);
    }
}

/* ---- promote_types: the lattice of PyTorch, as printed there ---- */

static tensor_dtype by_abbrev(const char *s) {
    static const struct { const char *s; tensor_dtype d; } map[] = {
        {"b", TENSOR_BOOL},     {"u8", TENSOR_UINT8},     {"i8", TENSOR_INT8},     {"i16", TENSOR_INT16},
        {"i32", TENSOR_INT32},  {"i64", TENSOR_INT64},    {"f16", TENSOR_FLOAT16}, {"bf16", TENSOR_BFLOAT16},
        {"f32", TENSOR_FLOAT32}, {"f64", TENSOR_FLOAT64},
    };
    for (int i = 0; i < NELEM(map); i++)
        if (strcmp(map[i].s, s) == 0) return map[i].d;
    fail_msg("unknown abbreviation %s", s);
    return TENSOR_DTYPE_DEFAULT;
}

/* Splits a row of space-separated abbreviations into dtypes. */
static int parse_row(const char *row, tensor_dtype *out, int cap) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", row);
    int n = 0;
    for (char *tok = strtok(buf, " "); tok != NULL && n < cap; tok = strtok(NULL, " ")) out[n++] = by_abbrev(tok);
    return n;
}

/* Rows and columns in the order b u8 i8 i16 i32 i64 f16 bf16 f32 f64 (complex dropped); the
 * f32 and f64 rows' "..." are spelled out ("every integer column gives f32"). */
static const char *const LATTICE[10] = {
    "b u8 i8 i16 i32 i64 f16 bf16 f32 f64",
    "u8 u8 i16 i16 i32 i64 f16 bf16 f32 f64",
    "i8 i16 i8 i16 i32 i64 f16 bf16 f32 f64",
    "i16 i16 i16 i16 i32 i64 f16 bf16 f32 f64",
    "i32 i32 i32 i32 i32 i64 f16 bf16 f32 f64",
    "i64 i64 i64 i64 i64 i64 f16 bf16 f32 f64",
    "f16 f16 f16 f16 f16 f16 f16 f32 f32 f64",
    "bf16 bf16 bf16 bf16 bf16 bf16 f32 bf16 f32 f64",
    "f32 f32 f32 f32 f32 f32 f32 f32 f32 f64",
    "f64 f64 f64 f64 f64 f64 f64 f64 f64 f64",
};
static const char *const LATTICE_ORDER = "b u8 i8 i16 i32 i64 f16 bf16 f32 f64";

static tensor_dtype lattice[10][10];
static tensor_dtype lattice_order[10];

static void load_lattice(void) {
    assert_int_equal(parse_row(LATTICE_ORDER, lattice_order, 10), 10);
    for (int r = 0; r < 10; r++) assert_int_equal(parse_row(LATTICE[r], lattice[r], 10), 10);
}

static void test_promote_lattice(void **state) {
    (void)state;
    load_lattice();
    for (int r = 0; r < 10; r++) {
        for (int c = 0; c < 10; c++) {
            const tensor_dtype a = lattice_order[r], b = lattice_order[c];
            tensor_dtype out = TENSOR_DTYPE_DEFAULT, rev = TENSOR_DTYPE_DEFAULT;
            assert_int_equal(tensor_promote_types(a, b, &out), TENSOR_OK);
            assert_int_equal(tensor_promote_types(b, a, &rev), TENSOR_OK);
            if (out != lattice[r][c] || rev != lattice[r][c])
                fail_msg("promote(%s, %s) = %s / %s, want %s", tensor_dtype_name(a), tensor_dtype_name(b),
                         tensor_dtype_name(out), tensor_dtype_name(rev), tensor_dtype_name(lattice[r][c]));
            /* the printed table is symmetric too */
            assert_int_equal(lattice[r][c], lattice[c][r]);
        }
    }
}

static void test_promote_float8(void **state) {
    (void)state;
    tensor_dtype out;
    assert_int_equal(tensor_promote_types(TENSOR_FLOAT8_E4M3FN, TENSOR_FLOAT8_E4M3FN, &out), TENSOR_OK);
    assert_int_equal(out, TENSOR_FLOAT8_E4M3FN);
    assert_int_equal(tensor_promote_types(TENSOR_FLOAT8_E5M2, TENSOR_FLOAT8_E5M2, &out), TENSOR_OK);
    assert_int_equal(out, TENSOR_FLOAT8_E5M2);

    tensor_clear_error();
    assert_int_equal(tensor_promote_types(TENSOR_FLOAT8_E4M3FN, TENSOR_FLOAT32, &out), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "tensor_promote_types: Promotion for Float8 Types is not supported, "
                                   "attempted to promote float8_e4m3fn and float32");
    /* every other pair with a float8 fails, naming both dtypes in the order given */
    for (int a = 0; a < TENSOR_NUM_DTYPES; a++) {
        for (int b = 0; b < TENSOR_NUM_DTYPES; b++) {
            const bool f8 = a >= TENSOR_FLOAT8_E4M3FN || b >= TENSOR_FLOAT8_E4M3FN;
            if (!f8 || a == b) continue;
            tensor_clear_error();
            out = TENSOR_DTYPE_DEFAULT;
            assert_int_equal(tensor_promote_types((tensor_dtype)a, (tensor_dtype)b, &out), TENSOR_ERR_DTYPE);
            assert_int_equal(out, TENSOR_DTYPE_DEFAULT); /* untouched on failure */
            char want[160];
            snprintf(want, sizeof want, "attempted to promote %s and %s", tensor_dtype_name((tensor_dtype)a),
                     tensor_dtype_name((tensor_dtype)b));
            assert_error(TENSOR_ERR_DTYPE, want);
        }
    }
}

static void test_promote_invalid(void **state) {
    (void)state;
    tensor_dtype out;
    tensor_clear_error();
    assert_int_equal(tensor_promote_types((tensor_dtype)99, TENSOR_FLOAT32, &out), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "tensor_promote_types");
    assert_error(TENSOR_ERR_DTYPE, "99");
    assert_int_equal(tensor_promote_types(TENSOR_INT8, TENSOR_DTYPE_DEFAULT, &out), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "tensor_promote_types");
    assert_int_equal(tensor_promote_types(TENSOR_INT8, TENSOR_NUM_DTYPES, &out), TENSOR_ERR_DTYPE);
    assert_int_equal(tensor_promote_types(TENSOR_INT8, TENSOR_INT8, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_promote_types");
}

/* ---- result_type ---- */

#define DIM(d) {TENSOR_##d, TENSOR_OPERAND_DIMENSIONED}
#define ZD(d) {TENSOR_##d, TENSOR_OPERAND_ZERO_DIM}
#define SC(d) {TENSOR_##d, TENSOR_OPERAND_SCALAR}
#define PY_BOOL SC(BOOL)
#define PY_INT SC(INT64)
#define PY_FLOAT SC(FLOAT64)

static tensor_dtype result2(tensor_result_type_operand a, tensor_result_type_operand b) {
    const tensor_result_type_operand ops[2] = {a, b};
    tensor_dtype out = TENSOR_DTYPE_DEFAULT;
    tensor_clear_error();
    if (tensor_result_type(ops, 2, &out) != TENSOR_OK) fail_msg("result_type failed: %s", tensor_last_error());
    /* order does not matter */
    const tensor_result_type_operand rev[2] = {b, a};
    tensor_dtype out2 = TENSOR_DTYPE_DEFAULT;
    if (tensor_result_type(rev, 2, &out2) != TENSOR_OK || out2 != out) fail_msg("result_type not symmetric");
    return out;
}

static void test_result_type_examples(void **state) {
    (void)state;
    const tensor_result_type_operand i32v = DIM(INT32), i8v = DIM(INT8), u8v = DIM(UINT8), bv = DIM(BOOL);
    const tensor_result_type_operand f64z = ZD(FLOAT64), i8z = ZD(INT8), u8z = ZD(UINT8), i64z = ZD(INT64);
    assert_int_equal(result2(i32v, (tensor_result_type_operand)PY_INT), TENSOR_INT32);
    assert_int_equal(result2(i32v, (tensor_result_type_operand)PY_FLOAT), TENSOR_FLOAT32);
    assert_int_equal(result2(i32v, (tensor_result_type_operand)PY_BOOL), TENSOR_INT32);
    assert_int_equal(result2(i8v, f64z), TENSOR_FLOAT64);
    assert_int_equal(result2(i8v, (tensor_result_type_operand)PY_FLOAT), TENSOR_FLOAT32);
    assert_int_equal(result2(u8v, i8z), TENSOR_UINT8);
    assert_int_equal(result2(i8v, i64z), TENSOR_INT8);
    assert_int_equal(result2(u8z, i8z), TENSOR_INT16);
    assert_int_equal(result2(bv, (tensor_result_type_operand)PY_INT), TENSOR_INT64);
    assert_int_equal(result2(bv, (tensor_result_type_operand)PY_FLOAT), TENSOR_FLOAT32);
    assert_int_equal(result2(bv, (tensor_result_type_operand)PY_BOOL), TENSOR_BOOL);
    assert_int_equal(result2(bv, bv), TENSOR_BOOL);
    assert_int_equal(result2(u8v, (tensor_result_type_operand)DIM(INT8)), TENSOR_INT16);
    assert_int_equal(result2((tensor_result_type_operand)DIM(FLOAT16), (tensor_result_type_operand)DIM(BFLOAT16)),
                     TENSOR_FLOAT32);
    assert_int_equal(result2((tensor_result_type_operand)DIM(INT64), (tensor_result_type_operand)DIM(FLOAT16)),
                     TENSOR_FLOAT16);
    assert_int_equal(result2((tensor_result_type_operand)ZD(FLOAT16), i32v), TENSOR_FLOAT16);
    assert_int_equal(result2((tensor_result_type_operand)DIM(FLOAT16), f64z), TENSOR_FLOAT16);
    assert_int_equal(result2((tensor_result_type_operand)DIM(UINT8), (tensor_result_type_operand)PY_FLOAT),
                     TENSOR_FLOAT32);
    /* both 0-d: the lattice between them, scalars still weak */
    assert_int_equal(result2((tensor_result_type_operand)ZD(INT32), i64z), TENSOR_INT64);
    assert_int_equal(result2((tensor_result_type_operand)ZD(FLOAT16), (tensor_result_type_operand)ZD(BFLOAT16)),
                     TENSOR_FLOAT32);
    assert_int_equal(result2((tensor_result_type_operand)ZD(FLOAT32), f64z), TENSOR_FLOAT64);
    assert_int_equal(result2((tensor_result_type_operand)ZD(INT32), (tensor_result_type_operand)PY_FLOAT),
                     TENSOR_FLOAT32);
    /* scalars alone: the category defaults */
    assert_int_equal(result2((tensor_result_type_operand)PY_INT, (tensor_result_type_operand)PY_BOOL), TENSOR_INT64);
    assert_int_equal(result2((tensor_result_type_operand)PY_FLOAT, (tensor_result_type_operand)PY_INT), TENSOR_FLOAT32);
    assert_int_equal(result2((tensor_result_type_operand)PY_BOOL, (tensor_result_type_operand)PY_BOOL), TENSOR_BOOL);

    /* one operand */
    const tensor_result_type_operand one[1] = {ZD(BFLOAT16)};
    tensor_dtype out;
    assert_int_equal(tensor_result_type(one, 1, &out), TENSOR_OK);
    assert_int_equal(out, TENSOR_BFLOAT16);
    const tensor_result_type_operand onesc[1] = {PY_FLOAT};
    assert_int_equal(tensor_result_type(onesc, 1, &out), TENSOR_OK);
    assert_int_equal(out, TENSOR_FLOAT32);
    /* three tiers at once: dimensioned int8, 0-d float16, python float -> the 0-d float16 */
    const tensor_result_type_operand three[3] = {DIM(INT8), ZD(FLOAT16), PY_FLOAT};
    assert_int_equal(tensor_result_type(three, 3, &out), TENSOR_OK);
    assert_int_equal(out, TENSOR_FLOAT16);
    const tensor_result_type_operand four[4] = {DIM(BOOL), ZD(UINT8), ZD(INT8), PY_INT};
    assert_int_equal(tensor_result_type(four, 4, &out), TENSOR_OK);
    assert_int_equal(out, TENSOR_INT16);
}

/* torch.result_type(1-D row dtype, other), PyTorch's table, complex columns dropped and
 * the "..." spelled out (0-d integer columns give the row's dtype in int and float rows). */
static void test_result_type_table(void **state) {
    (void)state;
    static const tensor_result_type_operand cols[13] = {
        PY_BOOL, PY_INT,   PY_FLOAT, ZD(BOOL),    ZD(UINT8),   ZD(INT8),   ZD(INT16),
        ZD(INT32), ZD(INT64), ZD(FLOAT16), ZD(BFLOAT16), ZD(FLOAT32), ZD(FLOAT64),
    };
    static const struct { const char *row; const char *vals; } table[] = {
        {"b", "b i64 f32 b u8 i8 i16 i32 i64 f16 bf16 f32 f64"},
        {"u8", "u8 u8 f32 u8 u8 u8 u8 u8 u8 f16 bf16 f32 f64"},
        {"i8", "i8 i8 f32 i8 i8 i8 i8 i8 i8 f16 bf16 f32 f64"},
        {"i32", "i32 i32 f32 i32 i32 i32 i32 i32 i32 f16 bf16 f32 f64"},
        {"i64", "i64 i64 f32 i64 i64 i64 i64 i64 i64 f16 bf16 f32 f64"},
        {"f16", "f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16"},
        {"bf16", "bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16 bf16"},
        {"f32", "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32"},
        {"f64", "f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64"},
    };
    for (int r = 0; r < NELEM(table); r++) {
        tensor_dtype want[13];
        assert_int_equal(parse_row(table[r].vals, want, 13), 13);
        const tensor_result_type_operand row = {by_abbrev(table[r].row), TENSOR_OPERAND_DIMENSIONED};
        for (int c = 0; c < 13; c++) {
            const tensor_dtype got = result2(row, cols[c]);
            if (got != want[c])
                fail_msg("result_type(%s[2], column %d) = %s, want %s", table[r].row, c, tensor_dtype_name(got),
                         tensor_dtype_name(want[c]));
        }
    }
}

/* PyTorch's three-step rule written out directly (category, then dimensioned > 0-d >
 * scalar default), compared with tensor_result_type over every 1-, 2- and 3-operand list of
 * non-float8 dtypes and kinds. */
static tensor_dtype tier_reference(const tensor_result_type_operand *ops, int n) {
    int cat = 0;
    for (int i = 0; i < n; i++) {
        const int c = (int)tensor_dtype_category_of(ops[i].dtype);
        cat = c > cat ? c : cat;
    }
    for (int kind = TENSOR_OPERAND_DIMENSIONED; kind <= TENSOR_OPERAND_ZERO_DIM; kind++) {
        int found = -1;
        for (int i = 0; i < n; i++) {
            if ((int)ops[i].kind != kind || (int)tensor_dtype_category_of(ops[i].dtype) != cat) continue;
            int idx = 0;
            while (lattice_order[idx] != ops[i].dtype) idx++;
            if (found < 0) {
                found = idx;
            } else {
                int f2 = 0;
                while (lattice_order[f2] != lattice[found][idx]) f2++;
                found = f2;
            }
        }
        if (found >= 0) return lattice_order[found];
    }
    return cat == TENSOR_CATEGORY_FLOATING ? TENSOR_FLOAT32 : cat == TENSOR_CATEGORY_INTEGER ? TENSOR_INT64 : TENSOR_BOOL;
}

static void test_result_type_matches_tier_rule(void **state) {
    (void)state;
    load_lattice();
    tensor_result_type_operand choices[23];
    int nc = 0;
    for (int d = 0; d < 10; d++) {
        choices[nc++] = (tensor_result_type_operand){lattice_order[d], TENSOR_OPERAND_DIMENSIONED};
        choices[nc++] = (tensor_result_type_operand){lattice_order[d], TENSOR_OPERAND_ZERO_DIM};
    }
    choices[nc++] = (tensor_result_type_operand)PY_BOOL;
    choices[nc++] = (tensor_result_type_operand)PY_INT;
    choices[nc++] = (tensor_result_type_operand)PY_FLOAT;
    int checked = 0;
    for (int n = 1; n <= 3; n++) {
        int total = 1;
        for (int k = 0; k < n; k++) total *= nc;
        for (int code = 0; code < total; code++) {
            tensor_result_type_operand ops[3];
            int rest = code;
            for (int k = 0; k < n; k++) {
                ops[k] = choices[rest % nc];
                rest /= nc;
            }
            tensor_dtype got = TENSOR_DTYPE_DEFAULT;
            if (tensor_result_type(ops, n, &got) != TENSOR_OK) fail_msg("failed: %s", tensor_last_error());
            const tensor_dtype want = tier_reference(ops, n);
            if (got != want)
                fail_msg("operands %d (%s/%d, ...): got %s, want %s", n, tensor_dtype_name(ops[0].dtype),
                         (int)ops[0].kind, tensor_dtype_name(got), tensor_dtype_name(want));
            checked++;
        }
    }
    assert_int_equal(checked, 23 + 23 * 23 + 23 * 23 * 23);
}

/* Float8 follows ATen: a float8 tier stands over a weaker float tier (no promotion), but a
 * float8 that must be promoted with anything else is the promotion error. */
static void test_result_type_float8(void **state) {
    (void)state;
    const tensor_result_type_operand f8v = DIM(FLOAT8_E4M3FN);
    assert_int_equal(result2(f8v, (tensor_result_type_operand)PY_FLOAT), TENSOR_FLOAT8_E4M3FN);
    assert_int_equal(result2(f8v, (tensor_result_type_operand)PY_INT), TENSOR_FLOAT8_E4M3FN);
    assert_int_equal(result2(f8v, (tensor_result_type_operand)ZD(FLOAT32)), TENSOR_FLOAT8_E4M3FN);
    assert_int_equal(result2(f8v, (tensor_result_type_operand)ZD(INT32)), TENSOR_FLOAT8_E4M3FN);
    assert_int_equal(result2(f8v, f8v), TENSOR_FLOAT8_E4M3FN);
    assert_int_equal(result2((tensor_result_type_operand)ZD(FLOAT8_E5M2), (tensor_result_type_operand)PY_FLOAT),
                     TENSOR_FLOAT8_E5M2);

    const tensor_result_type_operand bad[][2] = {
        {DIM(FLOAT8_E4M3FN), DIM(FLOAT32)},
        {DIM(INT32), ZD(FLOAT8_E4M3FN)},
        {DIM(BOOL), ZD(FLOAT8_E5M2)},
        {ZD(FLOAT8_E4M3FN), ZD(FLOAT8_E5M2)},
        {DIM(FLOAT8_E5M2), DIM(BOOL)},
    };
    for (int i = 0; i < NELEM(bad); i++) {
        tensor_dtype out = TENSOR_DTYPE_DEFAULT;
        tensor_clear_error();
        assert_int_equal(tensor_result_type(bad[i], 2, &out), TENSOR_ERR_DTYPE);
        assert_error(TENSOR_ERR_DTYPE, "tensor_result_type: Promotion for Float8 Types is not supported");
        assert_int_equal(out, TENSOR_DTYPE_DEFAULT);
    }
}

static void test_result_type_errors(void **state) {
    (void)state;
    tensor_dtype out;
    const tensor_result_type_operand ok[1] = {DIM(INT8)};
    tensor_clear_error();
    assert_int_equal(tensor_result_type(NULL, 1, &out), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_result_type");
    assert_int_equal(tensor_result_type(ok, 1, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "out");
    assert_int_equal(tensor_result_type(ok, 0, &out), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_result_type: n must be >= 1");
    assert_int_equal(tensor_result_type(ok, -3, &out), TENSOR_ERR_INVALID_ARGUMENT);
    const tensor_result_type_operand bad_dtype[2] = {DIM(INT8), {(tensor_dtype)99, TENSOR_OPERAND_ZERO_DIM}};
    assert_int_equal(tensor_result_type(bad_dtype, 2, &out), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "tensor_result_type: operand 1 has invalid dtype 99");
    const tensor_result_type_operand dflt[1] = {{TENSOR_DTYPE_DEFAULT, TENSOR_OPERAND_SCALAR}};
    assert_int_equal(tensor_result_type(dflt, 1, &out), TENSOR_ERR_DTYPE);
    const tensor_result_type_operand bad_kind[1] = {{TENSOR_INT8, (tensor_operand_kind)7}};
    assert_int_equal(tensor_result_type(bad_kind, 1, &out), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "invalid kind 7");
}

/* ---- load / store ---- */

static double rt_double(tensor_dtype d, double v) {
    unsigned char buf[9];
    tensor_dtype_store_double(d, buf + 1, v); /* unaligned on purpose */
    return tensor_dtype_load_double(d, buf + 1);
}

static int64_t rt_int64(tensor_dtype d, int64_t v) {
    unsigned char buf[9];
    tensor_dtype_store_int64(d, buf + 1, v);
    return tensor_dtype_load_int64(d, buf + 1);
}

static void test_load_store_round_trip(void **state) {
    (void)state;
    /* values every dtype holds exactly, through both paths */
    const double common[] = {0.0, 1.0, 2.0, 3.0, 64.0, 96.0};
    for (int d = 0; d < TENSOR_NUM_DTYPES; d++) {
        for (int i = 0; i < NELEM(common); i++) {
            const double want = d == TENSOR_BOOL ? (common[i] != 0) : common[i];
            if (rt_double((tensor_dtype)d, common[i]) != want) fail_msg("%s: %g", tensor_dtype_name((tensor_dtype)d), common[i]);
            if (rt_int64((tensor_dtype)d, (int64_t)common[i]) != (int64_t)want)
                fail_msg("%s: int %g", tensor_dtype_name((tensor_dtype)d), common[i]);
        }
    }
    /* each integer dtype's range ends, exactly */
    static const struct { tensor_dtype d; int64_t lo, hi; } ranges[] = {
        {TENSOR_UINT8, 0, 255},          {TENSOR_INT8, -128, 127},
        {TENSOR_INT16, -32768, 32767},   {TENSOR_INT32, INT32_MIN, INT32_MAX},
        {TENSOR_INT64, INT64_MIN, INT64_MAX},
    };
    for (int i = 0; i < NELEM(ranges); i++) {
        assert_true(rt_int64(ranges[i].d, ranges[i].lo) == ranges[i].lo);
        assert_true(rt_int64(ranges[i].d, ranges[i].hi) == ranges[i].hi);
        assert_true(rt_int64(ranges[i].d, -1) == (ranges[i].d == TENSOR_UINT8 ? 255 : -1));
        if (ranges[i].d != TENSOR_INT64) {
            assert_true(rt_double(ranges[i].d, (double)ranges[i].lo) == (double)ranges[i].lo);
            assert_true(rt_double(ranges[i].d, (double)ranges[i].hi) == (double)ranges[i].hi);
        }
    }
    /* every narrow float value survives store/load through double */
    static const struct { tensor_dtype d; const fmt *f; } narrow[] = {
        {TENSOR_FLOAT16, &FMT_F16}, {TENSOR_BFLOAT16, &FMT_BF16},
        {TENSOR_FLOAT8_E4M3FN, &FMT_E4M3}, {TENSOR_FLOAT8_E5M2, &FMT_E5M2},
    };
    for (int i = 0; i < NELEM(narrow); i++) {
        const fmt *f = narrow[i].f;
        const uint32_t n = 1u << fmt_width(f);
        for (uint32_t b = 0; b < n; b++) {
            /* elements are stored in native byte order, as a uint16_t or a byte */
            const uint16_t in16 = (uint16_t)b;
            unsigned char buf[2];
            if (fmt_width(f) == 16) memcpy(buf, &in16, 2);
            else buf[0] = (unsigned char)b;
            const double v = tensor_dtype_load_double(narrow[i].d, buf);
            unsigned char back[2] = {0, 0};
            tensor_dtype_store_double(narrow[i].d, back, v);
            uint16_t out16;
            memcpy(&out16, back, 2);
            const uint32_t bb = fmt_width(f) == 16 ? out16 : back[0];
            const uint32_t want = ref_is_nan(f, b) ? (b & fmt_sign(f)) | f->nan_code : b;
            if (bb != want) fail_msg("%s 0x%x -> %g -> 0x%x", f->name, b, v, bb);
        }
    }
    /* float32/float64 specials and signed zero */
    const double specials[] = {-0.0, INFINITY, -INFINITY, 0x1p-149, FLT_MAX, -1.5};
    for (int i = 0; i < NELEM(specials); i++) {
        const double g32 = rt_double(TENSOR_FLOAT32, specials[i]), g64 = rt_double(TENSOR_FLOAT64, specials[i]);
        assert_true(g32 == specials[i] && signbit(g32) == signbit(specials[i]));
        assert_true(g64 == specials[i] && signbit(g64) == signbit(specials[i]));
    }
    assert_true(isnan(rt_double(TENSOR_FLOAT64, NAN)) && isnan(rt_double(TENSOR_FLOAT32, NAN)));
    assert_true(rt_double(TENSOR_FLOAT64, 0.1) == 0.1);
    assert_true(rt_double(TENSOR_FLOAT32, 0.1) == (double)0.1f);
    assert_true(rt_int64(TENSOR_INT64, INT64_MAX - 1) == INT64_MAX - 1); /* no trip through double */
}

static void test_store_casts(void **state) {
    (void)state;
    /* float -> int truncates toward zero, then wraps like an int64 */
    assert_true(rt_double(TENSOR_INT32, 2.7) == 2.0);
    assert_true(rt_double(TENSOR_INT32, -2.7) == -2.0);
    assert_true(rt_double(TENSOR_INT8, 300.5) == 44.0);
    assert_true(rt_double(TENSOR_UINT8, -1.5) == 255.0);
    assert_true(rt_double(TENSOR_INT16, 70000.0) == 4464.0);
    assert_true(rt_double(TENSOR_UINT8, -0.9) == 0.0);
    /* NaN and out of int64 range: INT64_MIN (x86 and torch), whose low bits are 0 */
    assert_true(rt_int64(TENSOR_INT64, 0) == 0);
    unsigned char buf[8];
    tensor_dtype_store_double(TENSOR_INT64, buf, NAN);
    assert_true(tensor_dtype_load_int64(TENSOR_INT64, buf) == INT64_MIN);
    tensor_dtype_store_double(TENSOR_INT64, buf, 1e30);
    assert_true(tensor_dtype_load_int64(TENSOR_INT64, buf) == INT64_MIN);
    tensor_dtype_store_double(TENSOR_INT64, buf, -INFINITY);
    assert_true(tensor_dtype_load_int64(TENSOR_INT64, buf) == INT64_MIN);
    tensor_dtype_store_double(TENSOR_INT64, buf, 0x1p63);
    assert_true(tensor_dtype_load_int64(TENSOR_INT64, buf) == INT64_MIN);
    tensor_dtype_store_double(TENSOR_INT64, buf, -0x1p63);
    assert_true(tensor_dtype_load_int64(TENSOR_INT64, buf) == INT64_MIN);
    tensor_dtype_store_double(TENSOR_INT64, buf, 0x1p62);
    assert_true(tensor_dtype_load_int64(TENSOR_INT64, buf) == (int64_t)1 << 62);
    assert_true(rt_double(TENSOR_INT32, NAN) == 0.0);
    /* -> bool is != 0 (NaN is true) */
    assert_true(rt_double(TENSOR_BOOL, 0.0) == 0.0 && rt_double(TENSOR_BOOL, -0.0) == 0.0);
    assert_true(rt_double(TENSOR_BOOL, 0.25) == 1.0 && rt_double(TENSOR_BOOL, NAN) == 1.0);
    assert_true(rt_int64(TENSOR_BOOL, -7) == 1 && rt_int64(TENSOR_BOOL, 0) == 0);
    const unsigned char two = 2;
    assert_true(tensor_dtype_load_int64(TENSOR_BOOL, &two) == 1);
    assert_true(tensor_dtype_load_double(TENSOR_BOOL, &two) == 1.0);
    /* int64 -> int wraps */
    assert_true(rt_int64(TENSOR_UINT8, 256) == 0);
    assert_true(rt_int64(TENSOR_INT8, 128) == -128);
    assert_true(rt_int64(TENSOR_INT16, 70000) == 4464);
    assert_true(rt_int64(TENSOR_INT32, (int64_t)1 << 32 | 5) == 5);
    /* float loads as int64 truncate */
    assert_true(rt_int64(TENSOR_FLOAT32, 0) == 0);
    tensor_dtype_store_double(TENSOR_FLOAT32, buf, -2.9);
    assert_true(tensor_dtype_load_int64(TENSOR_FLOAT32, buf) == -2);
    tensor_dtype_store_double(TENSOR_FLOAT16, buf, 2.9);
    assert_true(tensor_dtype_load_int64(TENSOR_FLOAT16, buf) == 2);
    tensor_dtype_store_double(TENSOR_FLOAT32, buf, NAN);
    assert_true(tensor_dtype_load_int64(TENSOR_FLOAT32, buf) == INT64_MIN);
    /* int64 -> float32 rounds once: via double, 2^60 + 2^36 + 1 would tie down to 2^60 */
    const int64_t big = ((int64_t)1 << 60) + ((int64_t)1 << 36) + 1;
    tensor_dtype_store_int64(TENSOR_FLOAT32, buf, big);
    assert_true(tensor_dtype_load_double(TENSOR_FLOAT32, buf) == 0x1p60 + 0x1p37);
    tensor_dtype_store_int64(TENSOR_FLOAT64, buf, ((int64_t)1 << 53) + 1);
    assert_true(tensor_dtype_load_double(TENSOR_FLOAT64, buf) == 0x1p53);
    /* double -> float16 goes through float, as c10's Half(float) does: 1 + 2^-11 + 2^-40
     * becomes the tie 1 + 2^-11 in float, then 1.0 (even), not 1 + 2^-10 */
    tensor_dtype_store_double(TENSOR_FLOAT16, buf, 1.0 + 0x1p-11 + 0x1p-40);
    assert_true(tensor_dtype_load_double(TENSOR_FLOAT16, buf) == 1.0);
    /* overflow rules per format */
    assert_true(isinf(rt_double(TENSOR_FLOAT16, 1e6)) && isinf(rt_double(TENSOR_BFLOAT16, 1e39)));
    assert_true(isinf(rt_double(TENSOR_FLOAT8_E5M2, -1e6)) && isnan(rt_double(TENSOR_FLOAT8_E4M3FN, 1e6)));
    assert_true(rt_int64(TENSOR_FLOAT8_E4M3FN, 448) == 448);
    assert_true(rt_int64(TENSOR_FLOAT8_E4M3FN, 1000) == INT64_MIN); /* NaN */
    assert_true(rt_int64(TENSOR_FLOAT16, 2049) == 2048);
}

static void test_load_store_null(void **state) {
    (void)state;
    for (int d = 0; d < TENSOR_NUM_DTYPES; d++) {
        assert_true(tensor_dtype_load_double((tensor_dtype)d, NULL) == 0.0);
        assert_true(tensor_dtype_load_int64((tensor_dtype)d, NULL) == 0);
        tensor_dtype_store_double((tensor_dtype)d, NULL, 1.0);
        tensor_dtype_store_int64((tensor_dtype)d, NULL, 1);
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_f16_to_f32_exhaustive),
    cmocka_unit_test(test_bf16_to_f32_exhaustive),
    cmocka_unit_test(test_e4m3fn_to_f32_exhaustive),
    cmocka_unit_test(test_e5m2_to_f32_exhaustive),
    cmocka_unit_test(test_round_trip),
    cmocka_unit_test(test_f32_to_f16_structured),
    cmocka_unit_test(test_f32_to_bf16_structured),
    cmocka_unit_test(test_f32_to_e4m3fn_structured),
    cmocka_unit_test(test_f32_to_e5m2_structured),
    cmocka_unit_test(test_f32_nan_to_narrow),
    cmocka_unit_test(test_f32_to_narrow_random),
    cmocka_unit_test(test_out_of_line_conversions),
    cmocka_unit_test(test_names_sizes_categories),
    cmocka_unit_test(test_invalid_dtype_queries),
    cmocka_unit_test(test_promote_lattice),
    cmocka_unit_test(test_promote_float8),
    cmocka_unit_test(test_promote_invalid),
    cmocka_unit_test(test_result_type_examples),
    cmocka_unit_test(test_result_type_table),
    cmocka_unit_test(test_result_type_matches_tier_rule),
    cmocka_unit_test(test_result_type_float8),
    cmocka_unit_test(test_result_type_errors),
    cmocka_unit_test(test_load_store_round_trip),
    cmocka_unit_test(test_store_casts),
    cmocka_unit_test(test_load_store_null),
};

TENSOR_TEST_GROUP(dtype, tests, NULL, NULL)
