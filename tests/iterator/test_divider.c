/* Tests of iterator/int_divider.h (magic-number division) and iterator/offset_calc.h.
 *
 * The divider is checked against the hardware's / and % on dividends chosen where a
 * multiply-high division goes wrong first: small n, both sides of every multiple k*d near the
 * bottom and the top of the range, the top of the 32-bit range, around 2^31 (where PyTorch's
 * 32-bit add overflows), and, for every divisor, the largest n < 2^32 with n mod d == d-1 (the
 * dividend with the largest rounding error: see the proof in int_divider.h).
 *
 * The default run takes a few seconds even in a Debug + ASan build. A slow sweep of all 2^32
 * dividends for a handful of divisors, plus the worst-case dividend of EVERY divisor in
 * [1, 2^32), runs only when the environment has TENSOR_TEST_EXHAUSTIVE=1 (minutes in an
 * optimised build); otherwise that test reports itself skipped:
 *     TENSOR_TEST_EXHAUSTIVE=1 ./tests/test_iterator */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_main.h"

#include "iterator/int_divider.h"
#include "iterator/offset_calc.h"

/* ---- helpers ---- */

/* splitmix64: fixed seeds make every failure reproducible. */
static uint64_t rng_next(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]; the modulo bias is irrelevant for test inputs. */
static uint64_t rng_range(uint64_t *state, uint64_t lo, uint64_t hi) {
    return lo + rng_next(state) % (hi - lo + 1);
}

/* Mismatches are counted rather than asserted one by one: a CMocka assertion per check would
 * dominate the run time, and the first failure is the informative one. */
typedef struct div_check {
    uint64_t checks;
    uint64_t failures;
    uint32_t bad_divisor, bad_n, bad_q, bad_r;
} div_check;

static void check_divide(div_check *c, tensor_int_divider d, uint32_t n) {
    uint32_t q, r;
    tensor_int_divider_divmod(d, n, &q, &r);
    uint32_t q_div = tensor_int_divider_div(d, n);
    uint32_t r_mod = tensor_int_divider_mod(d, n);
    c->checks++;
    if (q != n / d.divisor || r != n % d.divisor || q_div != q || r_mod != r) {
        if (c->failures++ == 0) {
            c->bad_divisor = d.divisor;
            c->bad_n = n;
            c->bad_q = q;
            c->bad_r = r;
        }
    }
}

static void assert_no_failures(const div_check *c) {
    if (c->failures != 0)
        fail_msg("%" PRIu64 " of %" PRIu64 " divisions wrong; first: %" PRIu32 " / %" PRIu32 " gave q=%" PRIu32
                 " r=%" PRIu32 ", expected q=%" PRIu32 " r=%" PRIu32,
                 c->failures, c->checks, c->bad_n, c->bad_divisor, c->bad_q, c->bad_r, c->bad_n / c->bad_divisor,
                 c->bad_n % c->bad_divisor);
}

/* The dividend with the largest rounding error for d: the largest n < 2^32 with n mod d == d-1. */
static uint32_t worst_dividend(uint32_t d) {
    uint64_t top = (uint64_t)UINT32_MAX + 1; /* 2^32 */
    return (uint32_t)((top / d) * d - 1);
}

static void check_multiple(div_check *c, tensor_int_divider d, uint64_t k) {
    uint64_t m = k * (uint64_t)d.divisor;
    if (m - 1 <= UINT32_MAX) check_divide(c, d, (uint32_t)(m - 1));
    if (m <= UINT32_MAX) check_divide(c, d, (uint32_t)m);
    if (m + 1 <= UINT32_MAX) check_divide(c, d, (uint32_t)(m + 1));
}

/* The structured dividend set for one divisor (about 9000 dividends). */
static void check_divisor(div_check *c, uint32_t divisor, uint64_t *rng) {
    tensor_int_divider d = tensor_int_divider_make(divisor);
    for (uint32_t n = 0; n <= 4096; n++) check_divide(c, d, n);
    uint64_t kmax = (uint64_t)UINT32_MAX / divisor;
    for (uint64_t k = 1; k <= 64; k++) check_multiple(c, d, k);
    for (uint64_t k = kmax > 64 ? kmax - 63 : 1; k <= kmax + 1; k++) check_multiple(c, d, k);
    for (int i = 0; i < 64; i++) check_multiple(c, d, rng_range(rng, 1, kmax));
    for (uint32_t i = 0; i < 4096; i++) check_divide(c, d, UINT32_MAX - i);
    for (uint32_t n = (1u << 31) - 64; n <= (1u << 31) + 64; n++) check_divide(c, d, n);
    check_divide(c, d, worst_dividend(divisor));
}

/* 1, small primes, every power of two with its neighbours, the Fermat-number factors 641 and
 * 6700417 (2^32 + 1 = 641 * 6700417: their magic numbers are extreme), and divisors above
 * 2^31, which the divider supports although the offset calculator rarely needs them. */
static size_t edge_divisors(uint32_t *out) {
    size_t n = 0;
    static const uint32_t fixed[] = {1,          2,          3,          5,          7,          10,
                                     11,         13,         25,         100,        641,        1000,
                                     6700417,    65535,      65537,      1000000007, 2147483647, 0x80000001u,
                                     3000000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) out[n++] = fixed[i];
    for (int k = 1; k <= 31; k++) {
        out[n++] = (1u << k) - 1;
        out[n++] = 1u << k;
        out[n++] = (1u << k) + 1;
    }
    return n;
}

/* ---- divider ---- */

static void test_divider_constants(void **state) {
    (void)state;
    tensor_int_divider d = tensor_int_divider_make(1);
    assert_int_equal(d.divisor, 1);
    assert_int_equal(d.magic, 1);
    assert_int_equal(d.shift, 0);
    /* A power of two needs no correction: magic 1, shift k. */
    for (int k = 1; k <= 31; k++) {
        d = tensor_int_divider_make(1u << k);
        assert_int_equal(d.magic, 1);
        assert_int_equal(d.shift, k);
    }
    /* 7: s = 3, magic = floor(2^32 * (8 - 7) / 7) + 1, the value PyTorch's IntDivider computes. */
    d = tensor_int_divider_make(7);
    assert_int_equal(d.shift, 3);
    assert_int_equal(d.magic, 613566757u);
    /* d > 2^31 needs shift 32 (exercises the 64-bit shift). */
    d = tensor_int_divider_make(0x80000001u);
    assert_int_equal(d.shift, 32);
    d = tensor_int_divider_make(UINT32_MAX);
    assert_int_equal(d.shift, 32);
    assert_int_equal(tensor_int_divider_div(d, UINT32_MAX), 1);
    assert_int_equal(tensor_int_divider_div(d, UINT32_MAX - 1), 0);
}

/* Divisor 0 is outside the domain but must not trap: q = 0, r = n. */
static void test_divider_zero_is_total(void **state) {
    (void)state;
    tensor_int_divider d = tensor_int_divider_make(0);
    static const uint32_t ns[] = {0, 1, 2, 12345, 1u << 31, UINT32_MAX};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        uint32_t q = 99, r = 99;
        tensor_int_divider_divmod(d, ns[i], &q, &r);
        assert_int_equal(q, 0);
        assert_int_equal(r, ns[i]);
        assert_int_equal(tensor_int_divider_div(d, ns[i]), 0);
        assert_int_equal(tensor_int_divider_mod(d, ns[i]), ns[i]);
    }
}

static void test_divider_edge_divisors(void **state) {
    (void)state;
    uint32_t divisors[128];
    size_t n = edge_divisors(divisors);
    uint64_t rng = 1;
    div_check c = {0};
    for (size_t i = 0; i < n; i++) check_divisor(&c, divisors[i], &rng);
    assert_no_failures(&c);
    print_message("edge divisors: %zu divisors, %" PRIu64 " divisions\n", n, c.checks);
}

/* 2000 divisors below 2^31 from a fixed seed: half uniform (mostly large), half log-uniform so
 * that every magnitude gets its share. */
static void test_divider_random_divisors(void **state) {
    (void)state;
    uint64_t rng = 2;
    div_check c = {0};
    for (int i = 0; i < 2000; i++) {
        uint32_t divisor;
        if (i % 2 == 0) {
            divisor = (uint32_t)rng_range(&rng, 1, INT32_MAX);
        } else {
            int bits = (int)rng_range(&rng, 1, 31);
            divisor = (uint32_t)rng_range(&rng, 1, ((uint64_t)1 << bits) - 1);
        }
        check_divisor(&c, divisor, &rng);
    }
    assert_no_failures(&c);
    print_message("random divisors: 2000 divisors, %" PRIu64 " divisions\n", c.checks);
}

/* 200k uniformly random 32-bit dividends for each of a few divisors. */
static void test_divider_random_dividends(void **state) {
    (void)state;
    static const uint32_t divisors[] = {3, 7, 641, 6700417, 65537, 1000000007, 2147483647, 0xFFFFFFFFu};
    uint64_t rng = 3;
    div_check c = {0};
    for (size_t i = 0; i < sizeof divisors / sizeof divisors[0]; i++) {
        tensor_int_divider d = tensor_int_divider_make(divisors[i]);
        for (int j = 0; j < 200000; j++) check_divide(&c, d, (uint32_t)rng_next(&rng));
    }
    assert_no_failures(&c);
    print_message("random dividends: %" PRIu64 " divisions\n", c.checks);
}

/* The worst-case dividend (and its neighbours, and 2^32-1) of every divisor up to 2^20, and of
 * 2^20 divisors spread evenly over the rest of the 32-bit range. */
static void check_worst(div_check *c, uint32_t divisor) {
    tensor_int_divider d = tensor_int_divider_make(divisor);
    uint32_t w = worst_dividend(divisor);
    check_divide(c, d, w);
    check_divide(c, d, w - 1);
    check_divide(c, d, w + 1); /* wraps to 0 for powers of two: still a valid dividend */
    check_divide(c, d, UINT32_MAX);
}

static void test_divider_worst_cases(void **state) {
    (void)state;
    div_check c = {0};
    for (uint32_t divisor = 1; divisor <= (1u << 20); divisor++) check_worst(&c, divisor);
    for (uint64_t divisor = (1u << 20) + 1; divisor <= UINT32_MAX; divisor += 4093) check_worst(&c, (uint32_t)divisor);
    check_worst(&c, UINT32_MAX);
    assert_no_failures(&c);
    print_message("worst cases: %" PRIu64 " divisions\n", c.checks);
}

static int exhaustive_enabled(void) {
    const char *v = getenv("TENSOR_TEST_EXHAUSTIVE");
    return v != NULL && strcmp(v, "1") == 0;
}

/* Opt-in (TENSOR_TEST_EXHAUSTIVE=1): every 32-bit dividend for a handful of divisors, and the
 * worst-case dividend of every divisor in [1, 2^32). Together with the proof in the header
 * this leaves nothing to chance. */
static void test_divider_exhaustive(void **state) {
    (void)state;
    if (!exhaustive_enabled()) {
        print_message("exhaustive sweep skipped: set TENSOR_TEST_EXHAUSTIVE=1 to run it\n");
        skip();
    }
    static const uint32_t divisors[] = {3, 7, 641, 6700417, 2147483647, 0xFFFFFFFFu};
    div_check c = {0};
    for (size_t i = 0; i < sizeof divisors / sizeof divisors[0]; i++) {
        tensor_int_divider d = tensor_int_divider_make(divisors[i]);
        uint32_t n = 0;
        do check_divide(&c, d, n);
        while (n++ != UINT32_MAX);
        assert_no_failures(&c);
    }
    for (uint32_t divisor = 1;; divisor++) {
        check_divide(&c, tensor_int_divider_make(divisor), worst_dividend(divisor));
        if (divisor == UINT32_MAX) break;
    }
    assert_no_failures(&c);
    print_message("exhaustive: %" PRIu64 " divisions\n", c.checks);
}

/* ---- offset calculator ---- */

typedef struct calc_case {
    int ndim;
    int nargs;
    int64_t shape[TENSOR_OFFSET_CALC_MAX_DIMS];
    int64_t strides[TENSOR_OFFSET_CALC_MAX_ARGS][TENSOR_OFFSET_CALC_MAX_DIMS];
    const int64_t *stride_ptrs[TENSOR_OFFSET_CALC_MAX_ARGS];
} calc_case;

static void case_link(calc_case *cc) {
    for (int a = 0; a < TENSOR_OFFSET_CALC_MAX_ARGS; a++) cc->stride_ptrs[a] = cc->strides[a];
}

/* The reference: peel digits off the index, dim 0 fastest, in plain 64-bit arithmetic. */
static void naive_offsets(const calc_case *cc, uint64_t linear, uint64_t *offsets) {
    for (int a = 0; a < cc->nargs; a++) offsets[a] = 0;
    for (int d = 0; d < cc->ndim; d++) {
        uint64_t size = cc->shape[d] == 0 ? 1 : (uint64_t)cc->shape[d];
        uint64_t digit = linear % size;
        linear /= size;
        for (int a = 0; a < cc->nargs; a++) offsets[a] += digit * (uint64_t)cc->strides[a][d];
    }
}

static int64_t case_numel(const calc_case *cc) {
    int64_t n = 1;
    for (int d = 0; d < cc->ndim; d++) n *= cc->shape[d];
    return n;
}

/* Compares both calculators with the reference at one index; operands past nargs must read 0. */
static void check_calc_at(const calc_case *cc, const tensor_offset_calc *c32, const tensor_offset_calc64 *c64,
                          uint64_t linear) {
    uint64_t want[TENSOR_OFFSET_CALC_MAX_ARGS];
    uint32_t got32[TENSOR_OFFSET_CALC_MAX_ARGS];
    int64_t got64[TENSOR_OFFSET_CALC_MAX_ARGS];
    naive_offsets(cc, linear, want);
    /* The in-range form, for indices below the element count only (past it, it need not wrap). */
    const bool in_range = linear < (uint64_t)case_numel(cc);
    uint32_t got_in[TENSOR_OFFSET_CALC_MAX_ARGS];
    if (c32 != NULL) tensor_offset_calc_get(c32, (uint32_t)linear, got32);
    if (c32 != NULL && in_range) tensor_offset_calc_get_in_range(c32, (uint32_t)linear, got_in);
    tensor_offset_calc_get64(c64, (int64_t)linear, got64);
    for (int a = 0; a < TENSOR_OFFSET_CALC_MAX_ARGS; a++) {
        uint64_t w = a < cc->nargs ? want[a] : 0;
        if (c32 != NULL && got32[a] != w)
            fail_msg("ndim %d: get(%" PRIu64 ")[%d] = %" PRIu32 ", expected %" PRIu64, cc->ndim, linear, a, got32[a], w);
        if (c32 != NULL && in_range && got_in[a] != w)
            fail_msg("ndim %d: get_in_range(%" PRIu64 ")[%d] = %" PRIu32 ", expected %" PRIu64, cc->ndim, linear, a,
                     got_in[a], w);
        if ((uint64_t)got64[a] != w)
            fail_msg("ndim %d: get64(%" PRIu64 ")[%d] = %" PRId64 ", expected %" PRIu64, cc->ndim, linear, a, got64[a],
                     w);
    }
}

/* Random shapes of every rank 0..16 with size-1, size-0 and stride-0 dims and 1..MAX_ARGS
 * operands, every index checked, plus out-of-range indices (they must wrap). */
static void test_offset_calc_random_shapes(void **state) {
    (void)state;
    uint64_t rng = 4;
    int cases = 0;
    for (int iter = 0; iter < 17 * 30; iter++) {
        calc_case cc;
        memset(&cc, 0, sizeof cc);
        case_link(&cc);
        cc.ndim = iter % 17;
        cc.nargs = (int)rng_range(&rng, 1, TENSOR_OFFSET_CALC_MAX_ARGS);
        int64_t numel = 1;
        for (int d = 0; d < cc.ndim; d++) {
            uint64_t roll = rng_range(&rng, 0, 99);
            int64_t size = roll < 3 ? 0 : roll < 30 ? 1 : (int64_t)rng_range(&rng, 2, 7);
            if (size > 1 && numel * size > 3000) size = 1; /* keep every case cheap */
            cc.shape[d] = size;
            numel *= size > 0 ? size : 1;
        }
        for (int a = 0; a < cc.nargs; a++) {
            int64_t contiguous = (int64_t)(1u << rng_range(&rng, 0, 3)); /* element size 1..8 bytes */
            for (int d = 0; d < cc.ndim; d++) {
                uint64_t roll = rng_range(&rng, 0, 99);
                if (roll < 20) {
                    cc.strides[a][d] = 0; /* broadcast */
                } else if (roll < 60) {
                    cc.strides[a][d] = contiguous;
                } else {
                    cc.strides[a][d] = (int64_t)rng_range(&rng, 1, 1u << 20);
                }
                contiguous *= cc.shape[d] > 0 ? cc.shape[d] : 1;
            }
        }
        tensor_offset_calc c32;
        tensor_offset_calc64 c64;
        assert_int_equal(tensor_offset_calc_make(cc.ndim, cc.shape, cc.nargs, cc.stride_ptrs, &c32), TENSOR_OK);
        assert_int_equal(tensor_offset_calc_make64(cc.ndim, cc.shape, cc.nargs, cc.stride_ptrs, &c64), TENSOR_OK);
        assert_int_equal(c32.ndim, cc.ndim);
        assert_int_equal(c32.nargs, cc.nargs);
        int64_t real_numel = case_numel(&cc);
        for (int64_t i = 0; i < real_numel; i++) check_calc_at(&cc, &c32, &c64, (uint64_t)i);
        /* Past the end, and for an empty shape at all: the digits wrap, offsets stay in range. */
        uint64_t wrap = real_numel > 0 ? (uint64_t)real_numel : 1;
        static const uint64_t far[] = {0, 1, 12345, (1u << 31) - 1, 1u << 31, UINT32_MAX};
        for (size_t i = 0; i < sizeof far / sizeof far[0]; i++) {
            check_calc_at(&cc, &c32, &c64, far[i]);
            check_calc_at(&cc, &c32, &c64, wrap + far[i] % wrap);
        }
        cases++;
    }
    print_message("offset calculator: %d random shapes\n", cases);
}

/* Shapes at the 32-bit limits: numel exactly 2^32, offsets up to 2^32-1, divisors near 2^31
 * and 2^32; sampled indices including the last one. */
static void test_offset_calc_32bit_limits(void **state) {
    (void)state;
    static const struct {
        int ndim;
        int64_t shape[3];
        int64_t strides[2][3];
    } cases[] = {
        {2, {65536, 65536}, {{1, 65536}, {0, 65536}}},                                      /* numel 2^32 */
        {2, {3, 1431655765}, {{1431655765, 1}, {1, 3}}},                                      /* 3 * 1431655765 = 2^32-1 */
        {2, {2147483647, 2}, {{1, 2147483647}, {2, 0}}},                                      /* a divisor of 2^31-1 */
        {1, {4294967295}, {{1}, {0}}},                                                        /* one dim of 2^32-1 */
        {3, {2, 2147483648, 1}, {{2147483648, 1, 0}, {0, 1, 4294967295}}},                   /* size-1 dim, huge stride */
        {3, {641, 6700417, 1}, {{1, 641, 1}, {6700417, 1, 0}}}, /* numel 641 * 6700417 = 2^32+1: 64-bit only */
    };
    uint64_t rng = 5;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        calc_case cc;
        memset(&cc, 0, sizeof cc);
        case_link(&cc);
        cc.ndim = cases[i].ndim;
        cc.nargs = 2;
        memcpy(cc.shape, cases[i].shape, sizeof cases[i].shape);
        for (int a = 0; a < 2; a++) memcpy(cc.strides[a], cases[i].strides[a], sizeof cases[i].strides[a]);
        tensor_offset_calc c32;
        tensor_offset_calc64 c64;
        tensor_status want = case_numel(&cc) > (int64_t)UINT32_MAX + 1 ? TENSOR_ERR_OVERFLOW : TENSOR_OK;
        assert_int_equal(tensor_offset_calc_make(cc.ndim, cc.shape, cc.nargs, cc.stride_ptrs, &c32), want);
        assert_int_equal(tensor_offset_calc_make64(cc.ndim, cc.shape, cc.nargs, cc.stride_ptrs, &c64), TENSOR_OK);
        uint64_t numel = (uint64_t)case_numel(&cc);
        const tensor_offset_calc *p32 = want == TENSOR_OK ? &c32 : NULL;
        for (int j = 0; j < 20000; j++) check_calc_at(&cc, p32, &c64, rng_range(&rng, 0, numel - 1));
        for (uint64_t j = 0; j < 64; j++) {
            check_calc_at(&cc, p32, &c64, j);
            check_calc_at(&cc, p32, &c64, numel - 1 - j);
        }
    }
}

/* 64-bit calculator past the 32-bit range: extents up to 2^63-1. */
static void test_offset_calc64_limits(void **state) {
    (void)state;
    calc_case cc;
    memset(&cc, 0, sizeof cc);
    case_link(&cc);
    cc.ndim = 3;
    cc.nargs = 2;
    int64_t m = (int64_t)1 << 20;
    cc.shape[0] = m;
    cc.shape[1] = m;
    cc.shape[2] = m;
    /* (2^20-1) * (8 + 2^23 + 2^43) = 2^63 - 8: the largest offset just fits. */
    cc.strides[0][0] = 8;
    cc.strides[0][1] = (int64_t)1 << 23;
    cc.strides[0][2] = (int64_t)1 << 43;
    cc.strides[1][0] = 0;
    cc.strides[1][1] = 8;
    cc.strides[1][2] = (int64_t)1 << 23;
    tensor_offset_calc64 c64;
    assert_int_equal(tensor_offset_calc_make64(cc.ndim, cc.shape, cc.nargs, cc.stride_ptrs, &c64), TENSOR_OK);
    uint64_t rng = 6;
    uint64_t numel = (uint64_t)1 << 60;
    for (int j = 0; j < 20000; j++) check_calc_at(&cc, NULL, &c64, rng_range(&rng, 0, numel - 1));
    check_calc_at(&cc, NULL, &c64, numel - 1);
    int64_t off[TENSOR_OFFSET_CALC_MAX_ARGS];
    tensor_offset_calc_get64(&c64, (int64_t)(numel - 1), off);
    assert_true(off[0] == INT64_MAX - 7);
    /* A negative index is its uint64 value: it wraps like any other out-of-range index. */
    tensor_offset_calc_get64(&c64, -1, off);
    assert_true(off[0] == INT64_MAX - 7);

    /* One byte more and it does not. */
    cc.strides[0][2] += 1;
    assert_int_equal(tensor_offset_calc_make64(cc.ndim, cc.shape, cc.nargs, cc.stride_ptrs, &c64),
                     TENSOR_ERR_OVERFLOW);
    assert_error(TENSOR_ERR_OVERFLOW, "operand 0 spans more than");
    /* 32 bits refuse it at once: each size fits, the element count (2^60) does not. */
    tensor_offset_calc c32;
    assert_int_equal(tensor_offset_calc_make(cc.ndim, cc.shape, cc.nargs, cc.stride_ptrs, &c32), TENSOR_ERR_OVERFLOW);
    assert_error(TENSOR_ERR_OVERFLOW, "element count of the shape exceeds 4294967296");
}

/* A zero-initialised calculator (or one left behind by a failed make) is harmless. */
static void assert_calc_is_empty(const tensor_offset_calc *c32, const tensor_offset_calc64 *c64) {
    uint32_t o32[TENSOR_OFFSET_CALC_MAX_ARGS];
    int64_t o64[TENSOR_OFFSET_CALC_MAX_ARGS];
    if (c32 != NULL) {
        assert_int_equal(c32->ndim, 0);
        assert_int_equal(c32->nargs, 0);
        tensor_offset_calc_get(c32, 12345, o32);
        for (int a = 0; a < TENSOR_OFFSET_CALC_MAX_ARGS; a++) assert_int_equal(o32[a], 0);
    }
    if (c64 != NULL) {
        assert_int_equal(c64->ndim, 0);
        assert_int_equal(c64->nargs, 0);
        tensor_offset_calc_get64(c64, 12345, o64);
        for (int a = 0; a < TENSOR_OFFSET_CALC_MAX_ARGS; a++) assert_int_equal(o64[a], 0);
    }
}

/* Runs make and make64 on the same arguments; both must fail with (status, needle), except that
 * 64-bit limits are wider: want64 says what make64 must return. */
static void expect_make(int ndim, const int64_t *shape, int nargs, const int64_t *const *strides, tensor_status want32,
                        const char *needle32, tensor_status want64, const char *needle64) {
    tensor_offset_calc c32;
    tensor_offset_calc64 c64;
    memset(&c32, 0x5A, sizeof c32); /* garbage, which a failing make must overwrite */
    memset(&c64, 0x5A, sizeof c64);
    tensor_clear_error();
    tensor_status got = tensor_offset_calc_make(ndim, shape, nargs, strides, &c32);
    if (got != want32)
        fail_msg("make: status %s (\"%s\"), expected %s", tensor_status_name(got), tensor_last_error(),
                 tensor_status_name(want32));
    if (want32 != TENSOR_OK) {
        assert_error(want32, needle32);
        assert_error(want32, "tensor_offset_calc_make:");
        assert_calc_is_empty(&c32, NULL);
    }
    tensor_clear_error();
    got = tensor_offset_calc_make64(ndim, shape, nargs, strides, &c64);
    if (got != want64)
        fail_msg("make64: status %s (\"%s\"), expected %s", tensor_status_name(got), tensor_last_error(),
                 tensor_status_name(want64));
    if (want64 != TENSOR_OK) {
        assert_error(want64, needle64);
        assert_error(want64, "tensor_offset_calc_make64:");
        assert_calc_is_empty(NULL, &c64);
    }
}

static void test_offset_calc_errors(void **state) {
    (void)state;
    int64_t shape[TENSOR_OFFSET_CALC_MAX_DIMS + 1];
    int64_t st[TENSOR_OFFSET_CALC_MAX_ARGS + 1][TENSOR_OFFSET_CALC_MAX_DIMS + 1];
    const int64_t *sp[TENSOR_OFFSET_CALC_MAX_ARGS + 1];
    for (int d = 0; d <= TENSOR_OFFSET_CALC_MAX_DIMS; d++) shape[d] = 2;
    for (int a = 0; a <= TENSOR_OFFSET_CALC_MAX_ARGS; a++) {
        for (int d = 0; d <= TENSOR_OFFSET_CALC_MAX_DIMS; d++) st[a][d] = 4;
        sp[a] = st[a];
    }
    const tensor_status OK = TENSOR_OK, INV = TENSOR_ERR_INVALID_ARGUMENT, OVF = TENSOR_ERR_OVERFLOW;

    /* NULL out */
    tensor_clear_error();
    assert_int_equal(tensor_offset_calc_make(1, shape, 1, sp, NULL), INV);
    assert_error(INV, "tensor_offset_calc_make: argument 'out' is NULL");
    tensor_clear_error();
    assert_int_equal(tensor_offset_calc_make64(1, shape, 1, sp, NULL), INV);
    assert_error(INV, "tensor_offset_calc_make64: argument 'out' is NULL");

    /* ranks and operand counts */
    expect_make(TENSOR_OFFSET_CALC_MAX_DIMS + 1, shape, 1, sp, INV, "ndim 17 is outside [0, 16]", INV, "ndim 17");
    expect_make(-1, shape, 1, sp, INV, "ndim -1", INV, "ndim -1");
    expect_make(TENSOR_OFFSET_CALC_MAX_DIMS, shape, 1, sp, OK, NULL, OK, NULL); /* 16 dims of 2: fine */
    expect_make(1, shape, 0, sp, INV, "nargs 0 is outside", INV, "nargs 0");
    expect_make(1, shape, TENSOR_OFFSET_CALC_MAX_ARGS + 1, sp, INV, "TENSOR_OFFSET_CALC_MAX_ARGS", INV, "nargs");
    expect_make(1, shape, TENSOR_OFFSET_CALC_MAX_ARGS, sp, OK, NULL, OK, NULL);

    /* NULL arrays: only read when ndim > 0 */
    expect_make(2, NULL, 1, sp, INV, "argument 'shape' is NULL", INV, "argument 'shape' is NULL");
    expect_make(2, shape, 1, NULL, INV, "argument 'byte_strides' is NULL", INV, "'byte_strides' is NULL");
    const int64_t *holes[2] = {st[0], NULL};
    expect_make(2, shape, 2, holes, INV, "argument 'byte_strides[1]' is NULL", INV, "'byte_strides[1]' is NULL");
    expect_make(0, NULL, 2, NULL, OK, NULL, OK, NULL);

    /* bad sizes */
    int64_t neg_shape[2] = {2, -3};
    expect_make(2, neg_shape, 1, sp, INV, "shape[1] = -3 is negative", INV, "shape[1] = -3 is negative");
    int64_t big_shape[2] = {(int64_t)1 << 32, 1};
    expect_make(2, big_shape, 1, sp, OVF, "shape[0] = 4294967296 does not fit 32 bits", OK, NULL);
    int64_t zst[2] = {0, 0};
    const int64_t *zsp[1] = {zst};
    int64_t max_shape[2] = {UINT32_MAX, 1};
    expect_make(2, max_shape, 1, zsp, OK, NULL, OK, NULL);
    expect_make(2, max_shape, 1, sp, OVF, "operand 0 spans more than", OK, NULL); /* 4-byte elements */
    int64_t wide_shape[2] = {65536, 65537}; /* numel 2^32 + 2^16 */
    expect_make(2, wide_shape, 1, zsp, OVF, "element count of the shape exceeds 4294967296", OK, NULL);
    int64_t huge_shape[2] = {(int64_t)1 << 32, (int64_t)1 << 32}; /* numel 2^64 */
    expect_make(2, huge_shape, 1, zsp, OVF, "does not fit 32 bits", OVF, "element count of the shape exceeds");
    int64_t empty_huge[3] = {(int64_t)1 << 32, 0, (int64_t)1 << 32}; /* numel 0: the count is fine */
    int64_t zst3[3] = {0, 0, 0};
    const int64_t *zsp3[1] = {zst3};
    expect_make(3, empty_huge, 1, zsp3, OVF, "shape[0]", OK, NULL);

    /* bad strides */
    int64_t neg_st[2] = {4, -4};
    const int64_t *neg_sp[2] = {st[0], neg_st};
    expect_make(2, shape, 2, neg_sp, INV, "byte_strides[1][1] = -4 is negative", INV, "byte_strides[1][1] = -4");
    int64_t big_st[2] = {4, (int64_t)1 << 32};
    const int64_t *big_sp[1] = {big_st};
    expect_make(2, shape, 1, big_sp, OVF, "byte_strides[0][1] = 4294967296 does not fit 32 bits", OK, NULL);
    /* ... but a dim of size 1 never multiplies its stride by anything but 0 */
    int64_t one_shape[2] = {2, 1};
    expect_make(2, one_shape, 1, big_sp, OK, NULL, OK, NULL);
    int64_t neg_one[2] = {4, -1};
    const int64_t *neg_one_sp[1] = {neg_one};
    expect_make(2, one_shape, 1, neg_one_sp, OK, NULL, OK, NULL);
    int64_t i64max_st[2] = {4, INT64_MAX};
    const int64_t *i64max_sp[1] = {i64max_st};
    expect_make(2, shape, 1, i64max_sp, OVF, "does not fit 32 bits", OVF, "operand 0 spans more than");

    /* extents: each stride fits, their sum does not */
    int64_t half_st[2] = {(int64_t)1 << 31, (int64_t)1 << 31};
    const int64_t *half_sp[2] = {st[0], half_st};
    expect_make(2, shape, 2, half_sp, OVF, "operand 1 spans more than 4294967295 bytes", OK, NULL);
    int64_t exact_st[2] = {(int64_t)1 << 31, ((int64_t)1 << 31) - 1}; /* extent exactly 2^32-1 */
    const int64_t *exact_sp[1] = {exact_st};
    expect_make(2, shape, 1, exact_sp, OK, NULL, OK, NULL);
    tensor_offset_calc c;
    assert_int_equal(tensor_offset_calc_make(2, shape, 1, exact_sp, &c), TENSOR_OK);
    uint32_t off[TENSOR_OFFSET_CALC_MAX_ARGS];
    tensor_offset_calc_get(&c, 3, off);
    assert_int_equal(off[0], UINT32_MAX);
}

/* The 64-bit getter tolerates a calculator it did not build (sizes 0). */
static void test_offset_calc_zeroed(void **state) {
    (void)state;
    tensor_offset_calc c32;
    tensor_offset_calc64 c64;
    memset(&c32, 0, sizeof c32);
    memset(&c64, 0, sizeof c64);
    c32.ndim = 3;
    c64.ndim = 3;
    uint32_t o32[TENSOR_OFFSET_CALC_MAX_ARGS];
    int64_t o64[TENSOR_OFFSET_CALC_MAX_ARGS];
    tensor_offset_calc_get(&c32, UINT32_MAX, o32);
    tensor_offset_calc_get64(&c64, INT64_MAX, o64);
    for (int a = 0; a < TENSOR_OFFSET_CALC_MAX_ARGS; a++) {
        assert_int_equal(o32[a], 0);
        assert_int_equal(o64[a], 0);
    }
    /* A corrupt rank cannot walk off the arrays: the loop stops at the compile-time bound. */
    c32.ndim = 1000;
    c64.ndim = -5;
    tensor_offset_calc_get(&c32, 77, o32);
    tensor_offset_calc_get64(&c64, 77, o64);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_divider_constants),
    cmocka_unit_test(test_divider_zero_is_total),
    cmocka_unit_test(test_divider_edge_divisors),
    cmocka_unit_test(test_divider_random_divisors),
    cmocka_unit_test(test_divider_random_dividends),
    cmocka_unit_test(test_divider_worst_cases),
    cmocka_unit_test(test_divider_exhaustive),
    cmocka_unit_test(test_offset_calc_random_shapes),
    cmocka_unit_test(test_offset_calc_32bit_limits),
    cmocka_unit_test(test_offset_calc64_limits),
    cmocka_unit_test(test_offset_calc_errors),
    cmocka_unit_test(test_offset_calc_zeroed),
};

TENSOR_TEST_GROUP(divider, tests, NULL, NULL)
