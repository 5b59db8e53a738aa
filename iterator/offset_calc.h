/* Offset calculator: linear element index -> per-operand byte offsets, for kernels that walk
 * an iterator's shape one element per thread (PyTorch's OffsetCalculator).
 *
 *   tensor_offset_calc      32-bit: per dim a tensor_int_divider and uint32 byte strides. The
 *                           GPU's fast path; valid when the iterator fits 32-bit indexing.
 *   tensor_offset_calc64    64-bit: plain / and %, int64 byte strides. The fallback for
 *                           iterators that do not fit (and for host code, where a 64-bit
 *                           division is cheap enough).
 *
 * Layout: dim 0 is the FASTEST-moving dim (the iterator's order after permute/coalesce), so
 * get(i) peels the dims off i with divmod from dim 0 upwards.
 *
 * Guarantees, both variants, for ANY linear index (in range or not):
 *  - no trap and no undefined behaviour;
 *  - every digit is taken mod its dim size, the last dim's too, so an index >= numel wraps to
 *    index mod numel and every offset lies in [0, extent] where extent = sum (size-1)*stride;
 *    make() refuses calculators whose extent does not fit the offset type.
 *
 * make() is host code and records errors with tensor_error(); get() is inline
 * __host__ __device__. The header compiles as C11 and as CUDA C++. make() calls the
 * library-internal tensor_error(), so this header is for code built into the library
 * (iterator/, cpu/, cuda/), not for programs that link the shared library. */
#ifndef TENSOR_OFFSET_CALC_H
#define TENSOR_OFFSET_CALC_H

#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "iterator/int_divider.h"
#include "runtime/error.h"
#include "runtime/hostdevice.h"
#include "runtime/status.h"
#include "runtime/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A calculator is built from a tensor's (coalesced) dims, so it needs no more than a tensor has. */
#define TENSOR_OFFSET_CALC_MAX_DIMS 16

/* Operands per calculator, fixed at compile time so that get() unrolls and the offsets stay in
 * registers. 4 covers reductions (out, in), binary (out, a, b) and ternary ops (out, a, b, c).
 * A translation unit may define a larger value before including this header, but every unit
 * that passes a calculator to another (host code -> kernel) must agree: the value is part of
 * the struct layout. */
#ifndef TENSOR_OFFSET_CALC_MAX_ARGS
#define TENSOR_OFFSET_CALC_MAX_ARGS 4
#endif

#if defined(__cplusplus)
#define TENSOR_OFFSET_CALC_STATIC_ASSERT_(cond, msg) static_assert(cond, msg)
#else
#define TENSOR_OFFSET_CALC_STATIC_ASSERT_(cond, msg) _Static_assert(cond, msg)
#endif
TENSOR_OFFSET_CALC_STATIC_ASSERT_(TENSOR_OFFSET_CALC_MAX_DIMS == TENSOR_MAX_DIMS,
                                  "an offset calculator must hold every dim a tensor can have");
TENSOR_OFFSET_CALC_STATIC_ASSERT_(TENSOR_OFFSET_CALC_MAX_ARGS >= 1 && TENSOR_OFFSET_CALC_MAX_ARGS <= 64,
                                  "TENSOR_OFFSET_CALC_MAX_ARGS must be in [1, 64]");

/* Full unrolling turns offsets[a] and strides[d][a] into registers and constant-bank operands
 * on the GPU (a dynamically indexed array would go to local memory). Only the device pass sees
 * it: the host compiler (also in nvcc's host pass) warns about an unknown pragma, and on the
 * host the loop is cheap either way. */
#if defined(__CUDA_ARCH__)
#define TENSOR_OFFSET_CALC_UNROLL_ _Pragma("unroll")
#else
#define TENSOR_OFFSET_CALC_UNROLL_
#endif

typedef struct tensor_offset_calc {
    int ndim;  /* dims actually used; get() stops there */
    int nargs; /* operands actually used; the strides of the others are 0 */
    tensor_int_divider sizes[TENSOR_OFFSET_CALC_MAX_DIMS];
    uint32_t strides[TENSOR_OFFSET_CALC_MAX_DIMS][TENSOR_OFFSET_CALC_MAX_ARGS]; /* bytes */
} tensor_offset_calc;

typedef struct tensor_offset_calc64 {
    int ndim;
    int nargs;
    int64_t sizes[TENSOR_OFFSET_CALC_MAX_DIMS]; /* >= 1: a size-0 dim is stored as 1 */
    int64_t strides[TENSOR_OFFSET_CALC_MAX_DIMS][TENSOR_OFFSET_CALC_MAX_ARGS]; /* bytes */
} tensor_offset_calc64;

/* Shared argument checks of both make()s. Every bound is a uint64 so one routine serves both
 * offset widths: sizes, strides and each operand's extent must be <= max_value, the element
 * count <= max_numel. Strides of dims of size <= 1 are not checked: they only ever multiply a
 * zero digit (iterators may leave any stride there). */
static inline tensor_status tensor_offset_calc_check_(const char *func, int ndim, const int64_t *shape, int nargs,
                                                      const int64_t *const *byte_strides, uint64_t max_value,
                                                      uint64_t max_numel, const char *width) {
    if (ndim < 0 || ndim > TENSOR_OFFSET_CALC_MAX_DIMS)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: ndim %d is outside [0, %d] (TENSOR_OFFSET_CALC_MAX_DIMS)",
                            func, ndim, TENSOR_OFFSET_CALC_MAX_DIMS);
    if (nargs < 1 || nargs > TENSOR_OFFSET_CALC_MAX_ARGS)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: nargs %d is outside [1, %d] (TENSOR_OFFSET_CALC_MAX_ARGS)",
                            func, nargs, TENSOR_OFFSET_CALC_MAX_ARGS);
    if (ndim == 0) return TENSOR_OK; /* a scalar: shape and strides are never read */
    TENSOR_CHECK_NOT_NULL(shape, func, "shape");
    TENSOR_CHECK_NOT_NULL(byte_strides, func, "byte_strides");
    for (int a = 0; a < nargs; a++)
        if (byte_strides[a] == NULL)
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'byte_strides[%d]' is NULL", func, a);

    int empty = 0;
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0)
            return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: shape[%d] = %" PRId64 " is negative", func, d,
                                shape[d]);
        if ((uint64_t)shape[d] > max_value)
            return tensor_error(TENSOR_ERR_OVERFLOW, "%s: shape[%d] = %" PRId64 " does not fit %s", func, d, shape[d],
                                width);
        if (shape[d] == 0) empty = 1;
    }
    if (!empty) {
        /* Divide before multiplying so the check itself cannot overflow. */
        uint64_t numel = 1;
        for (int d = 0; d < ndim; d++) {
            uint64_t s = (uint64_t)shape[d];
            if (numel > max_numel / s)
                return tensor_error(TENSOR_ERR_OVERFLOW, "%s: the element count of the shape exceeds %" PRIu64
                                    " (linear indices must fit %s)", func, max_numel, width);
            numel *= s;
        }
    }
    for (int a = 0; a < nargs; a++) {
        uint64_t extent = 0; /* the largest offset get() can return for operand a */
        for (int d = 0; d < ndim; d++) {
            if (shape[d] <= 1) continue;
            int64_t st = byte_strides[a][d];
            if (st < 0)
                return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                                    "%s: byte_strides[%d][%d] = %" PRId64 " is negative (negative strides are not supported)",
                                    func, a, d, st);
            if ((uint64_t)st > max_value)
                return tensor_error(TENSOR_ERR_OVERFLOW, "%s: byte_strides[%d][%d] = %" PRId64 " does not fit %s", func,
                                    a, d, st, width);
            uint64_t digits = (uint64_t)shape[d] - 1;
            if (st != 0 && digits > (max_value - extent) / (uint64_t)st)
                return tensor_error(TENSOR_ERR_OVERFLOW,
                                    "%s: operand %d spans more than %" PRIu64 " bytes (its offsets do not fit %s)", func,
                                    a, max_value, width);
            extent += digits * (uint64_t)st;
        }
    }
    return TENSOR_OK;
}

/* Builds a 32-bit calculator. shape[ndim]: the iterator's sizes (dim 0 fastest);
 * byte_strides[arg][dim]: nargs arrays of ndim byte strides. Borrows everything; out must not
 * be NULL. Fails (and leaves *out a calculator with no dims and no operands, whose get() gives
 * zeros) with TENSOR_ERR_INVALID_ARGUMENT for NULL pointers, ndim outside [0, 16], nargs
 * outside [1, TENSOR_OFFSET_CALC_MAX_ARGS], negative sizes or strides; with
 * TENSOR_ERR_OVERFLOW when a size or stride exceeds 2^32-1, the element count exceeds 2^32,
 * or an operand's largest offset exceeds 2^32-1. A size-0 dim is accepted (no index is valid,
 * but get() stays total). */
static inline tensor_status tensor_offset_calc_make(int ndim, const int64_t *shape, int nargs,
                                                    const int64_t *const *byte_strides, tensor_offset_calc *out) {
    static const char func[] = "tensor_offset_calc_make";
    TENSOR_CHECK_NOT_NULL(out, func, "out");
    memset(out, 0, sizeof *out);
    tensor_status st = tensor_offset_calc_check_(func, ndim, shape, nargs, byte_strides, UINT32_MAX,
                                                 (uint64_t)UINT32_MAX + 1, "32 bits");
    if (st != TENSOR_OK) return st;
    /* The bound repeats check_()'s so the compiler can see the arrays are never overrun. */
    for (int d = 0; d < ndim && d < TENSOR_OFFSET_CALC_MAX_DIMS; d++) {
        /* 1 for an empty dim: the divider is exact there and the digit is always 0. */
        uint32_t size = shape[d] == 0 ? 1u : (uint32_t)shape[d];
        out->sizes[d] = tensor_int_divider_make(size);
        for (int a = 0; a < nargs; a++) out->strides[d][a] = size <= 1 ? 0u : (uint32_t)byte_strides[a][d];
    }
    out->ndim = ndim;
    out->nargs = nargs;
    return TENSOR_OK;
}

/* tensor_offset_calc_get and tensor_offset_calc_get_in_range, in_range a constant at each. */
TENSOR_INLINE void tensor_offset_calc_get_(const tensor_offset_calc *calc, uint32_t linear_idx,
                                           uint32_t offsets[TENSOR_OFFSET_CALC_MAX_ARGS], bool in_range) {
    TENSOR_OFFSET_CALC_UNROLL_
    for (int a = 0; a < TENSOR_OFFSET_CALC_MAX_ARGS; a++) offsets[a] = 0;
    /* Unrolled to the compile-time bound with an early exit, as PyTorch: the cost follows the
     * actual (coalesced) rank, and the bound keeps a corrupt ndim from walking off the arrays. */
    TENSOR_OFFSET_CALC_UNROLL_
    for (int d = 0; d < TENSOR_OFFSET_CALC_MAX_DIMS; d++) {
        if (d == calc->ndim) break;
        uint32_t q = 0, r = linear_idx;
        if (!in_range || d + 1 != calc->ndim) tensor_int_divider_divmod(calc->sizes[d], linear_idx, &q, &r);
        linear_idx = q;
        /* Unused operands have stride 0: a multiply-add of zero is cheaper than a branch. */
        TENSOR_OFFSET_CALC_UNROLL_
        for (int a = 0; a < TENSOR_OFFSET_CALC_MAX_ARGS; a++) offsets[a] += r * calc->strides[d][a];
    }
}

/* Byte offsets of element `linear_idx` for every operand. The caller's array has
 * TENSOR_OFFSET_CALC_MAX_ARGS entries; those at and past nargs are set to 0. */
TENSOR_INLINE void tensor_offset_calc_get(const tensor_offset_calc *calc, uint32_t linear_idx,
                                          uint32_t offsets[TENSOR_OFFSET_CALC_MAX_ARGS]) {
    tensor_offset_calc_get_(calc, linear_idx, offsets, false);
}

/* tensor_offset_calc_get for an index known to be below the element count: the last dim's
 * digit is what is left of the index, so it takes no division. Kernels whose first loads wait
 * on these offsets (a reduction's rows) save the latency of one divider; an index past the end
 * gives offsets past the end (get() wraps it instead). */
TENSOR_INLINE void tensor_offset_calc_get_in_range(const tensor_offset_calc *calc, uint32_t linear_idx,
                                                   uint32_t offsets[TENSOR_OFFSET_CALC_MAX_ARGS]) {
    tensor_offset_calc_get_(calc, linear_idx, offsets, true);
}

/* Builds a 64-bit calculator: same arguments and errors as tensor_offset_calc_make, with the
 * limits at INT64_MAX (sizes, strides, element count and each operand's largest offset). */
static inline tensor_status tensor_offset_calc_make64(int ndim, const int64_t *shape, int nargs,
                                                      const int64_t *const *byte_strides, tensor_offset_calc64 *out) {
    static const char func[] = "tensor_offset_calc_make64";
    TENSOR_CHECK_NOT_NULL(out, func, "out");
    memset(out, 0, sizeof *out);
    tensor_status st = tensor_offset_calc_check_(func, ndim, shape, nargs, byte_strides, (uint64_t)INT64_MAX,
                                                 (uint64_t)INT64_MAX, "63 bits");
    if (st != TENSOR_OK) return st;
    /* The bound repeats check_()'s so the compiler can see the arrays are never overrun. */
    for (int d = 0; d < ndim && d < TENSOR_OFFSET_CALC_MAX_DIMS; d++) {
        /* 1 for an empty dim: get64 divides by it, and x / 0 traps. */
        int64_t size = shape[d] == 0 ? 1 : shape[d];
        out->sizes[d] = size;
        for (int a = 0; a < nargs; a++) out->strides[d][a] = size <= 1 ? 0 : byte_strides[a][d];
    }
    out->ndim = ndim;
    out->nargs = nargs;
    return TENSOR_OK;
}

/* Byte offsets of element `linear_idx`; same contract as tensor_offset_calc_get. A negative
 * index is taken as its two's-complement uint64 value, so it too wraps into range. */
TENSOR_INLINE void tensor_offset_calc_get64(const tensor_offset_calc64 *calc, int64_t linear_idx,
                                            int64_t offsets[TENSOR_OFFSET_CALC_MAX_ARGS]) {
    /* Unsigned arithmetic: digits are never negative, and the extent check of make64 keeps
     * every sum <= INT64_MAX, so the final conversions are exact. */
    uint64_t acc[TENSOR_OFFSET_CALC_MAX_ARGS];
    uint64_t rem = (uint64_t)linear_idx;
    TENSOR_OFFSET_CALC_UNROLL_
    for (int a = 0; a < TENSOR_OFFSET_CALC_MAX_ARGS; a++) acc[a] = 0;
    TENSOR_OFFSET_CALC_UNROLL_
    for (int d = 0; d < TENSOR_OFFSET_CALC_MAX_DIMS; d++) {
        if (d == calc->ndim) break;
        /* make64 stores sizes >= 1; the guard is for a calculator that make64 did not build
         * (zero-initialised, say), where a division by 0 would trap. */
        uint64_t size = calc->sizes[d] > 0 ? (uint64_t)calc->sizes[d] : 1u;
        uint64_t q = rem / size;
        uint64_t r = rem - q * size;
        rem = q;
        TENSOR_OFFSET_CALC_UNROLL_
        for (int a = 0; a < TENSOR_OFFSET_CALC_MAX_ARGS; a++) acc[a] += r * (uint64_t)calc->strides[d][a];
    }
    TENSOR_OFFSET_CALC_UNROLL_
    for (int a = 0; a < TENSOR_OFFSET_CALC_MAX_ARGS; a++) offsets[a] = (int64_t)acc[a];
}

#ifdef __cplusplus
}
#endif
#endif
