/* float16/bfloat16 opmath with host scalars (PyTorch's original_scalar_value<opmath_t>), and
 * gelu's tanh form, on the CPU backend (tests/cuda/test_cuda_elementwise.c checks CUDA against
 * these results).
 *
 * Opmath: add/sub/mul (host scalar on either side, alpha too) and div/floor_divide/div_trunc
 * (host scalar divisor) compute in float32 with the scalar rounded once to float32 and round
 * the result once; every other use of a host scalar rounds it to the common dtype first. Each
 * check also counts the elements where the other order gives another result: a test that
 * could not tell the two orders apart would prove nothing. */
#include "ew_test_util.h"

static tensor_scalar I(int64_t v) { return tensor_scalar_int(v); }
static tensor_scalar F(double v) { return tensor_scalar_float(v); }

/* v rounded to dtype d's value set (v a float value: one rounding). */
static double rnd(tensor_dtype d, double v) {
    unsigned char buf[8];
    tensor_dtype_store_double(d, buf, v);
    return tensor_dtype_load_double(d, buf);
}

/* 1999 positive values 0.01 .. 19.99 in dtype d */
#define NV 1999
static tensor_t *values(tensor_dtype d) {
    double v[NV];
    for (int i = 0; i < NV; i++) v[i] = (i + 1) * 0.01;
    return ew_vec(d, v, NV);
}

/* c10::div_floor_floating in float */
static float floordiv_f(float a, float b) {
    float mod = fmodf(a, b), div = (a - mod) / b;
    if (mod != 0.0f && ((b < 0.0f) != (mod < 0.0f))) div -= 1.0f;
    if (div == 0.0f) return copysignf(0.0f, a / b);
    float fl = floorf(div);
    if (div - fl > 0.5f) fl += 1.0f;
    return fl;
}

typedef enum { ADD_R, ADD_L, SUB_R, SUB_L, MUL_R, MUL_L, DIV_R, FLOOR_R, TRUNC_R, ADD_ALPHA, NCASES } opm_case;
static const char *const case_names[NCASES] = {"t + s", "s + t", "t - s", "s - t", "t * s", "s * t",
                                               "t / s", "t // s", "trunc(t / s)", "t + 0.1 * s"};

static float ref_case(opm_case k, float x, float s) {
    switch (k) {
    case ADD_R: case ADD_L: return x + s;
    case SUB_R: return x - s;
    case SUB_L: return s - x;
    case MUL_R: case MUL_L: return x * s;
    case DIV_R: return x / s;
    case FLOOR_R: return floordiv_f(x, s);
    case TRUNC_R: return truncf(x / s);
    default: return x + 0.1f * s;
    }
}

static tensor_t *run_case(opm_case k, const tensor_t *t, tensor_scalar s) {
    switch (k) {
    case ADD_R: return tensor_add_scalar(t, s, I(1));
    case ADD_L: return tensor_binary_scalar_lhs(TENSOR_EW_ADD, s, t);
    case SUB_R: return tensor_sub_scalar(t, s, I(1));
    case SUB_L: return tensor_binary_scalar_lhs(TENSOR_EW_SUB, s, t);
    case MUL_R: return tensor_mul_scalar(t, s);
    case MUL_L: return tensor_binary_scalar_lhs(TENSOR_EW_MUL, s, t);
    case DIV_R: return tensor_div_scalar(t, s, TENSOR_ROUNDING_NONE);
    case FLOOR_R: return tensor_div_scalar(t, s, TENSOR_ROUNDING_FLOOR);
    case TRUNC_R: return tensor_div_scalar(t, s, TENSOR_ROUNDING_TRUNC);
    default: return tensor_add_scalar(t, s, F(0.1));
    }
}

/* Every case and dtype: exactly the opmath result; and some element where rounding the scalar
 * to the 16-bit dtype first would give another result. */
static void test_host_scalar_opmath(void **state) {
    (void)state;
    static const tensor_dtype dts[] = {TENSOR_FLOAT16, TENSOR_BFLOAT16};
    const tensor_scalar scalars[] = {F(0.1), F(0.3), F(1.0 / 3.0), F(0.7), I(2049), F(-1e-3)};
    const int ns = (int)(sizeof scalars / sizeof scalars[0]);
    for (int di = 0; di < 2; di++) {
        const tensor_dtype d = dts[di];
        tensor_t *t = values(d);
        double *x = ew_values(t);
        for (int k = 0; k < NCASES; k++) {
            int differs = 0;
            for (int si = 0; si < ns; si++) {
                const tensor_scalar s = scalars[si];
                const double sv = s.type == TENSOR_SCALAR_FLOAT ? s.f : (double)s.i;
                const float s32 = (float)sv, s16 = (float)rnd(d, sv);
                tensor_t *r = run_case((opm_case)k, t, s);
                if (r == NULL) fail_msg("%s %s: %s", tensor_dtype_name(d), case_names[k], tensor_last_error());
                assert_int_equal(tensor_get_dtype(r), d);
                double *got = ew_values(r);
                for (int i = 0; i < NV; i++) {
                    const double want = rnd(d, ref_case((opm_case)k, (float)x[i], s32));
                    if (!(got[i] == want || (isnan(got[i]) && isnan(want))))
                        fail_msg("%s %s, s = %.17g, x = %.17g: got %.17g, want %.17g", tensor_dtype_name(d),
                                 case_names[k], sv, x[i], got[i], want);
                    const double old = rnd(d, ref_case((opm_case)k, (float)x[i], s16));
                    differs += old != want && !(isnan(old) && isnan(want));
                }
                free(got);
                tensor_release(r);
            }
            if (differs == 0) fail_msg("%s %s: no value tells opmath from rounding the scalar first",
                                       tensor_dtype_name(d), case_names[k]);
        }
        free(x);
        tensor_release(t);
    }
}

/* The in-place and generic forms take the same path. */
static void test_inplace_and_generic(void **state) {
    (void)state;
    tensor_t *t = values(TENSOR_FLOAT16), *u = values(TENSOR_FLOAT16);
    tensor_t *want = tensor_add_scalar(t, F(0.1), I(1));
    assert_int_equal(tensor_add_scalar_(u, F(0.1), I(1)), TENSOR_OK);
    double *w = ew_values(want);
    ew_expect(u, TENSOR_FLOAT16, w, NV);
    tensor_t *g = tensor_binary_scalar(TENSOR_EW_ADD, t, F(0.1));
    ew_expect(g, TENSOR_FLOAT16, w, NV);
    free(w);
    tensor_t *m = tensor_mul_scalar(t, F(0.1));
    w = ew_values(m);
    tensor_t *v = values(TENSOR_FLOAT16);
    assert_int_equal(tensor_mul_scalar_(v, F(0.1)), TENSOR_OK);
    ew_expect(v, TENSOR_FLOAT16, w, NV);
    assert_int_equal(tensor_binary_scalar_(TENSOR_EW_SUB, u, F(0.1)), TENSOR_OK);
    free(w);
    tensor_release(t); tensor_release(u); tensor_release(want); tensor_release(g); tensor_release(m);
    tensor_release(v);
}

/* alpha of a tensor-tensor add/sub is float32 too (never rounded to float16). */
static void test_alpha_opmath(void **state) {
    (void)state;
    for (int di = 0; di < 2; di++) {
        const tensor_dtype d = di ? TENSOR_BFLOAT16 : TENSOR_FLOAT16;
        tensor_t *a = values(d), *b = values(d);
        double *x = ew_values(a);
        tensor_t *r = tensor_add(a, b, F(0.1)), *q = tensor_sub(a, b, F(0.3));
        double *vr = ew_values(r), *vq = ew_values(q);
        int differs = 0;
        for (int i = 0; i < NV; i++) {
            const float f = (float)x[i];
            assert_true(vr[i] == rnd(d, f + 0.1f * f));
            assert_true(vq[i] == rnd(d, f - 0.3f * f));
            differs += rnd(d, f + (float)rnd(d, 0.1) * f) != vr[i];
        }
        assert_true(differs > 0);
        free(x); free(vr); free(vq);
        tensor_release(a); tensor_release(b); tensor_release(r); tensor_release(q);
    }
}

/* The other ops round the host scalar to the common dtype first, as PyTorch does: comparisons
 * (f16(0.1) == 0.1 is true), maximum, pow, a scalar dividend, clamp's bounds; and a 0-d TENSOR
 * operand (not a host scalar) is rounded too. */
static void test_rounded_scalar_ops(void **state) {
    (void)state;
    const tensor_dtype d = TENSOR_FLOAT16;
    tensor_t *t = values(d);
    double *x = ew_values(t);
    const float s16 = (float)rnd(d, 0.1), s32 = 0.1f;
    tensor_t *eq = tensor_eq_scalar(t, F(0.1)), *lt = tensor_lt_scalar(t, F(0.1));
    tensor_t *dl = tensor_binary_scalar_lhs(TENSOR_EW_DIV, F(0.1), t);
    tensor_t *mx = tensor_maximum_scalar(t, F(0.1));
    const tensor_scalar lo = F(0.1), hi = F(0.7);
    tensor_t *cl = tensor_clamp_scalar(t, &lo, &hi);
    tensor_t *z = ew_scalar0d(TENSOR_FLOAT32, 0.1);
    tensor_t *a0 = tensor_add(t, z, I(1));
    double *veq = ew_values(eq), *vlt = ew_values(lt), *vdl = ew_values(dl), *vmx = ew_values(mx);
    double *vcl = ew_values(cl), *va0 = ew_values(a0);
    int eq_true = 0, dl_differs = 0, a0_differs = 0;
    for (int i = 0; i < NV; i++) {
        const float f = (float)x[i];
        assert_true(veq[i] == (double)(f == s16));
        eq_true += f == s16;
        assert_true(vlt[i] == (double)(f < s16));
        assert_true(vdl[i] == rnd(d, s16 / f));
        dl_differs += rnd(d, s32 / f) != vdl[i];
        assert_true(vmx[i] == rnd(d, f < s16 ? s16 : f));
        const float hi16 = (float)rnd(d, 0.7);
        assert_true(vcl[i] == rnd(d, f < s16 ? s16 : (f > hi16 ? hi16 : f)));
        assert_true(va0[i] == rnd(d, f + s16));
        a0_differs += rnd(d, f + s32) != va0[i];
    }
    assert_int_equal(eq_true, 1); /* x[9] is f16(0.1) */
    assert_true(dl_differs > 0);
    assert_true(a0_differs > 0);
    free(x); free(veq); free(vlt); free(vdl); free(vmx); free(vcl); free(va0);
    tensor_release(t); tensor_release(eq); tensor_release(lt); tensor_release(dl); tensor_release(mx);
    tensor_release(cl); tensor_release(z); tensor_release(a0);
}

/* float32 and float64 are unchanged (their scalar is already in the compute type), integer
 * results still wrap, and bool/int tensors with a float scalar still give float32. */
static void test_other_dtypes_unchanged(void **state) {
    (void)state;
    tensor_t *f = ew_vec(TENSOR_FLOAT32, (double[]){1, 2}, 2);
    tensor_t *r = tensor_add_scalar(f, F(0.1), I(1));
    ew_expect(r, TENSOR_FLOAT32, (double[]){(double)(1.0f + 0.1f), (double)(2.0f + 0.1f)}, 2);
    tensor_t *i8 = ew_ivec(TENSOR_INT8, (int64_t[]){1, 100}, 2);
    tensor_t *ri = tensor_mul_scalar(i8, I(3));
    ew_expect_i(ri, TENSOR_INT8, (int64_t[]){3, 44}, 2);
    tensor_t *rf = tensor_mul_scalar(i8, F(0.1));
    ew_expect(rf, TENSOR_FLOAT32, (double[]){(double)0.1f, (double)(100.0f * 0.1f)}, 2);
    /* an f16 tensor with an integer scalar the f16 grid cannot hold: 1 + 2049 is 2050 in
     * float32, 2048 if 2049 were rounded to float16 first */
    tensor_t *h = ew_vec(TENSOR_FLOAT16, (double[]){1}, 1);
    tensor_t *rh = tensor_add_scalar(h, I(2049), I(1));
    ew_expect(rh, TENSOR_FLOAT16, (double[]){2050}, 1);
    tensor_release(f); tensor_release(r); tensor_release(i8); tensor_release(ri); tensor_release(rf);
    tensor_release(h); tensor_release(rh);
}

/* ---- gelu, approximate='tanh' ---- */

static double gelu_tanh_ref(double x) {
    return 0.5 * x * (1.0 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
}

static void test_gelu_tanh(void **state) {
    (void)state;
    enum { N = 4001 };
    static double v[N];
    for (int i = 0; i < N; i++) v[i] = -10.0 + i * 0.005;
    v[0] = -INFINITY, v[1] = INFINITY, v[2] = NAN, v[3] = -0.0;
    static const tensor_dtype dts[] = {TENSOR_FLOAT64, TENSOR_FLOAT32, TENSOR_FLOAT16, TENSOR_BFLOAT16};
    for (int di = 0; di < 4; di++) {
        const tensor_dtype d = dts[di];
        tensor_t *t = ew_vec(d, v, N);
        double *x = ew_values(t);
        tensor_t *g = tensor_gelu_tanh(t), *e = tensor_gelu(t);
        assert_non_null(g);
        assert_int_equal(tensor_get_dtype(g), d);
        double *vg = ew_values(g), *ve = ew_values(e);
        int differs_from_erf = 0;
        for (int i = 0; i < N; i++) {
            const double want = gelu_tanh_ref(x[i]);
            if (isnan(want)) {
                assert_true(isnan(vg[i]));
                continue;
            }
            /* a few ulps of the compute type, relative to |x| too: for x << 0, 1 + tanh(.)
             * cancels and its rounding error is relative to 1, i.e. to x / 2 in the result;
             * 16-bit results add one ulp of their own */
            const double eps = d == TENSOR_FLOAT64 ? 0x1p-52 : 0x1p-23;
            double tol = 4 * eps * (fabs(want) + fabs(x[i]));
            if (d == TENSOR_FLOAT16) tol += 0x1p-10 * fabs(want) + 0x1p-24;
            if (d == TENSOR_BFLOAT16) tol += 0x1p-7 * fabs(want);
            if (!(fabs(vg[i] - want) <= tol || vg[i] == want))
                fail_msg("gelu_tanh %s x = %.17g: got %.17g, want %.17g", tensor_dtype_name(d), x[i], vg[i], want);
            differs_from_erf += vg[i] != ve[i];
        }
        assert_true(differs_from_erf > 50); /* not the erf form (close to it: ~1e-3 apart at most) */
        /* in place and out= give the same bits */
        tensor_t *o = tensor_empty(1, (int64_t[]){N}, d, tensor_cpu());
        assert_int_equal(tensor_gelu_tanh_out(o, t), TENSOR_OK);
        assert_int_equal(tensor_unary_(TENSOR_EW_GELU_TANH, t), TENSOR_OK);
        ew_expect(o, d, vg, N);
        ew_expect(t, d, vg, N);
        free(x); free(vg); free(ve);
        tensor_release(t); tensor_release(g); tensor_release(e); tensor_release(o);
    }
    /* a few exact float32 anchors from the float32 formula */
    tensor_t *t = ew_vec(TENSOR_FLOAT32, (double[]){1.0, -1.0, 0.0}, 3);
    tensor_t *g = tensor_gelu_tanh(t);
    const float one = 0.5f * 1.0f * (1.0f + tanhf(0.7978845608f * (1.0f + 0.044715f * 1.0f)));
    const float mone = 0.5f * -1.0f * (1.0f + tanhf(0.7978845608f * (-1.0f + 0.044715f * -1.0f)));
    ew_expect(g, TENSOR_FLOAT32, (double[]){one, mone, 0.0}, 3);
    tensor_release(t); tensor_release(g);
    /* integers and bool are rejected, as gelu */
    tensor_t *i = ew_ivec(TENSOR_INT32, (int64_t[]){1}, 1);
    assert_null(tensor_gelu_tanh(i));
    assert_error(TENSOR_ERR_DTYPE, "tensor_gelu_tanh: \"gelu\" not implemented for 'int32'");
    assert_int_equal(tensor_gelu_tanh_(i), TENSOR_ERR_DTYPE);
    assert_int_equal(tensor_gelu_tanh_out(NULL, i), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_gelu_tanh_out: argument 'out' is NULL");
    assert_null(tensor_gelu_tanh(NULL));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_gelu_tanh: argument 'a' is NULL");
    tensor_release(i);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_host_scalar_opmath), cmocka_unit_test(test_inplace_and_generic),
    cmocka_unit_test(test_alpha_opmath),       cmocka_unit_test(test_rounded_scalar_ops),
    cmocka_unit_test(test_other_dtypes_unchanged), cmocka_unit_test(test_gelu_tanh),
};

TENSOR_TEST_GROUP(ew_opmath, tests, NULL, NULL)
