/* The CPU kernel of user reductions (ops/reduction.h): the deterministic reduction driver
 * (tensor_iter_reduce_run) around the user's callbacks. When the reduced dim is the inner one
 * the user's fold sees whole runs where it can read them as they are (dense values, or dense
 * bfloat16 / float16 for a fold_stored, or a built-in's integers narrower than int64), else
 * tiles converted into stack buffers through the output dtype's value set (the built-ins'
 * converters), cut at multiples of TENSOR_REDUCTION_BLOCK of the reduced index. Where the
 * outputs lie along the rows instead (a reduced dim 0 strided, a kept dim dense: a sum over
 * dim 0 of a row-major matrix; or a kept dim 0), fold_columns takes whole rows of outputs: read
 * in place where they are dense values (or stored elements for fold_stored), else staged a few
 * columns at a time into a buffer of dense rows first (an input that is dense along the row
 * read in place beside them; float32 dense along the reduced dim, a transposed input,
 * transposed in 8x8 tiles); without fold_columns each output's elements are gathered into
 * tiles (single elements when dim 0 is kept). */
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_reduce.h"
#include "cpu/transpose.h"
#include "contract/user_reduction.h"
#include "runtime/alloc.h"
#include "runtime/error.h"

/* Elements converted per input before a fold call (the stack buffers: 16 KB per input of
 * doubles); in-place runs are not cut. */
#define USER_TILE TENSOR_REDUCTION_BLOCK
/* Bytes per input of the rows that the staged column path converts before a fold_columns call:
 * a block of up to TENSOR_REDUCTION_BLOCK rows times some columns (64 floats: pieces of four
 * cache lines a row, which the prefetchers follow; 16 floats ran 2.5x slower,
 * docs/perf_log.md). More where the input is narrower than the value (see the width). */
#define USER_STAGE_BYTES (512 * 1024)
/* Rows (a reduced dim 0) at least this long go to the inner path when every input is dense or
 * constant along them, whatever lies along dim 1; shorter ones to the staged columns, which
 * measured faster below it (docs/perf_log.md). */
#define USER_INNER_MIN_RUN 64

/* Inner rows of float32 values of at most this many elements go to fold_columns in groups of
 * USER_SHORT_GROUP rows, transposed (user_short_rows). fold folds rows under 64 elements (two
 * blocks of the kit's 32 lanes) in order, one dependent chain a row; up to 32 the transposed
 * groups measured faster, at 63 slower (docs/perf_log.md). */
#define USER_SHORT_MAX_RUN 32
#define USER_SHORT_GROUP 32

typedef struct user_ctx {
    const tensor_user_reduce_call *call;
    int nin;
    size_t acc_stride; /* the accumulators' spacing in the driver's buffers (acc_stride_of) */
    size_t val_size;
    cpu_cvt_fn cvt[TENSOR_REDUCTION_MAX_INPUTS];
    bool plain[TENSOR_REDUCTION_MAX_INPUTS]; /* the input's elements are already values */
    tensor_dtype out_dtype;
    /* Every input is bfloat16 (or every one float16) with values the result holds, and the
     * callbacks have fold_stored: dense runs go to it whole, converted in the user's loop. */
    tensor_dtype stored;
    bool use_stored;
    tensor_dtype value_dtype; /* the value type's dtype, for fold_columns */
    size_t in_size[TENSOR_REDUCTION_MAX_INPUTS]; /* each input's element size */
    int64_t stored_size;                         /* the element size of `stored` */
} user_ctx;

/* acc_size rounded up to a multiple of the smaller of 16 and acc_size rounded up to a power of
 * two: the alignment the contract promises (enough for any type of acc_size bytes), in
 * buffers the driver aligns to 64. Packed this tight, a row of float accumulators is
 * consecutive floats, which a kit-made fold_columns vectorises; 16 bytes apart it could not. */
static size_t acc_stride_of(size_t acc_size) {
    size_t a = 1;
    while (a < acc_size && a < 16) a *= 2;
    return (acc_size + a - 1) / a * a;
}

static void user_init(void *acc, int64_t n, void *ctx) {
    const user_ctx *c = ctx;
    if (c->call->plain_ends) { /* zero bytes: one memset, not a call per output (short rows) */
        memset(acc, 0, (size_t)n * c->acc_stride);
        return;
    }
    for (int64_t i = 0; i < n; i++) c->call->fns->init((char *)acc + (size_t)i * c->acc_stride, c->call->user);
}

/* One input's piece of the staged block (m rows of the reduced dim from src, w columns) into
 * dst as m dense rows of w values. An input dense along the reduced dim (b beside a transposed
 * a) has each column as a run in memory: its block is transposed (float32 values in 8x8 AVX2
 * tiles, other elements in 8x8 blocks into `raw` first, then converted in one pass), not
 * gathered an element (a cache line) at a time down the columns. */
static void stage_piece(const user_ctx *c, int k, char *dst, char *raw, const char *src, int64_t row_stride,
                        int64_t col_stride, int64_t m, int64_t w) {
    if (row_stride == (int64_t)c->in_size[k]) {
        if (c->plain[k]) {
            if ((c->value_dtype == TENSOR_FLOAT32 && tt_cpu_transpose_f32((float *)dst, w, src, col_stride, m, w)) ||
                tt_cpu_transpose_elems(dst, w, src, col_stride, m, w, c->val_size))
                return;
        } else if (raw != NULL && tt_cpu_transpose_elems(raw, w, src, col_stride, m, w, c->in_size[k])) {
            c->cvt[k](dst, raw, (int64_t)c->in_size[k], m * w);
            return;
        }
    }
    for (int64_t r = 0; r < m; r++) c->cvt[k](dst + (size_t)(r * w) * c->val_size, src + r * row_stride, col_stride, w);
}

/* The outer block of user_columns whose rows need converting (another dtype than the value
 * type) or are not dense along the row: per block of rows (cut where fold cuts its blocks, at
 * multiples of TENSOR_REDUCTION_BLOCK of the reduced index, so each call gives fold's
 * arithmetic for whole blocks), a few columns at a time are staged into dense rows
 * (stage_piece) and handed to fold_columns; inputs of values dense along the row are handed
 * over in place. Either way fold_columns sees the same values in the same places as it would
 * from rows converted one by one, so the bits do not depend on the staging. Reading row pieces
 * in order replaces the gather of each output's strided elements, a cache line and often a
 * page per element. False (nothing done) when the buffer cannot be had: the caller gathers
 * instead. */
static bool user_columns_staged(const user_ctx *c, char **data, const int64_t *strides, int64_t size0,
                                int64_t size1, int64_t index0) {
    const tensor_reduction_fns *f = c->call->fns;
    const int nt = 1 + c->nin;
    const int64_t first_rows = USER_TILE - index0 % USER_TILE;
    const int64_t max_rows = size0 < USER_TILE ? size0 : USER_TILE;
    int64_t width = USER_STAGE_BYTES / (max_rows * (int64_t)c->val_size);
    /* at least 256 bytes of each row of the narrowest input per piece: with fewer (bfloat16 into
     * double: 32 columns, one cache line) the reads wait on memory */
    size_t min_elem = c->in_size[0];
    for (int k = 1; k < c->nin; k++)
        if (c->in_size[k] < min_elem) min_elem = c->in_size[k];
    if (width < 256 / (int64_t)min_elem) width = 256 / (int64_t)min_elem;
    if (width < 1) width = 1;
    if (width > size1) width = size1;
    /* the raw elements of a transposed input that needs converting, before they are */
    size_t raw_elem = 0;
    for (int k = 0; k < c->nin; k++)
        if (!c->plain[k] && strides[1 + k] == (int64_t)c->in_size[k] && c->in_size[k] > raw_elem) raw_elem = c->in_size[k];
    const size_t per_input = (size_t)(max_rows * width) * c->val_size;
    /* raw after the staged values, at a multiple of 16 bytes: 4-byte values may leave their
     * end only 4-aligned, and raw holds 8-byte elements too (int64 or float64 into floats) */
    const size_t raw_at = ((size_t)c->nin * per_input + 15) / 16 * 16;
    char *buf = tt_malloc(raw_at + (size_t)(max_rows * width) * raw_elem);
    if (buf == NULL) return false;
    char *raw = raw_elem > 0 ? buf + raw_at : NULL;
    const void *rows[TENSOR_REDUCTION_MAX_INPUTS];
    int64_t row_strides[TENSOR_REDUCTION_MAX_INPUTS];
    for (int64_t t = 0; t < size0;) {
        int64_t m = t == 0 ? first_rows : USER_TILE;
        if (m > size0 - t) m = size0 - t;
        for (int64_t j0 = 0; j0 < size1; j0 += width) {
            const int64_t w = size1 - j0 < width ? size1 - j0 : width;
            for (int k = 0; k < c->nin; k++) {
                const char *src = data[1 + k] + j0 * strides[nt + 1 + k] + t * strides[1 + k];
                if (c->plain[k] && strides[nt + 1 + k] == (int64_t)c->val_size) { /* dense along the row */
                    rows[k] = src;
                    row_strides[k] = strides[1 + k];
                    continue;
                }
                char *dst = buf + (size_t)k * per_input;
                stage_piece(c, k, dst, raw, src, strides[1 + k], strides[nt + 1 + k], m, w);
                rows[k] = dst;
                row_strides[k] = w * (int64_t)c->val_size;
            }
            f->fold_columns(data[0] + j0 * strides[nt], (size_t)strides[nt], w, rows, row_strides, m, index0 + t,
                            c->value_dtype, c->call->user);
        }
        t += m;
    }
    free(buf);
    return true;
}

/* An outer block (dim 0 reduced, a row of size1 outputs per reduced index, iterator.h) whose
 * inputs all lie dense along the row, as values or as 16-bit floats for fold_stored, goes to
 * fold_columns whole: the rows are read in place, as they lie in memory. Gathering each
 * output's strided elements into a tile (the fallback below) touches a cache line and a page
 * per element. Returns false, doing nothing, for any other block. */
static bool user_columns(const user_ctx *c, char **data, const int64_t *strides, int64_t size0, int64_t size1,
                         const tensor_iter_reduce_pos *pos) {
    const tensor_reduction_fns *f = c->call->fns;
    const int nt = 1 + c->nin;
    if (f->fold_columns == NULL || strides[0] != 0 || strides[nt] == 0 || pos->index_stride0 != 1 ||
        pos->index_stride1 != 0)
        return false;
    bool in_place = true, stored = c->use_stored, rows_in_place = true, rows_stored = c->use_stored, inner = true;
    for (int k = 0; k < c->nin; k++) {
        in_place = in_place && c->plain[k] && strides[1 + k] == (int64_t)c->val_size;
        stored = stored && strides[1 + k] == c->stored_size;
        inner = inner && (strides[1 + k] == 0 || strides[1 + k] == (int64_t)c->in_size[k]);
        rows_in_place = rows_in_place && c->plain[k] && strides[nt + 1 + k] == (int64_t)c->val_size;
        rows_stored = rows_stored && strides[nt + 1 + k] == c->stored_size;
    }
    /* Dense along dim 0 too: the whole runs of the inner path read better. So do inputs that
     * are dense or constant along dim 0 (b of [R, N] x [R, 1]) in rows of USER_INNER_MIN_RUN
     * or more: the inner path reads each row in order, where staging gathers every row's
     * elements a column at a time; shorter rows cost the inner path a fold call each. */
    if (in_place || stored || (inner && size0 >= USER_INNER_MIN_RUN)) return false;
    const void *rows[TENSOR_REDUCTION_MAX_INPUTS];
    if (rows_in_place || rows_stored) {
        for (int k = 0; k < c->nin; k++) rows[k] = data[1 + k];
        f->fold_columns(data[0], (size_t)strides[nt], size1, rows, strides + 1, size0, pos->index0,
                        rows_in_place ? c->value_dtype : c->stored, c->call->user);
        return true;
    }
    return user_columns_staged(c, data, strides, size0, size1, pos->index0);
}

/* The n values of each input at (dim 0 = t.., dim 1 = j) for a fold: a dense run already in
 * the value type is read in place, anything else converted into buf, except the inputs in
 * `ready`, whose buf already holds their values. */
static inline void load_values(const user_ctx *c, char **data, const int64_t *strides, int64_t j, int64_t t,
                               int64_t n, char (*buf)[USER_TILE * sizeof(double)], const void **vals,
                               uint32_t ready) {
    const int nt = 1 + c->nin;
    for (int k = 0; k < c->nin; k++) {
        if (ready >> k & 1u) {
            vals[k] = buf[k];
            continue;
        }
        const char *src = data[1 + k] + j * strides[nt + 1 + k] + t * strides[1 + k];
        if (c->plain[k] && strides[1 + k] == (int64_t)c->val_size) vals[k] = src;
        else {
            c->cvt[k](buf[k], src, strides[1 + k], n);
            vals[k] = buf[k];
        }
    }
}

/* dst[0] (one value of `size` bytes) copied into dst[1 .. n - 1], in doubling steps. */
static void repeat_value(char *dst, size_t size, int64_t n) {
    for (int64_t have = 1; have < n; have *= 2) {
        const int64_t m = have < n - have ? have : n - have;
        memcpy(dst + (size_t)have * size, dst, (size_t)m * size);
    }
}

/* Every other block, through fold (and fold_stored, and fold_columns for a kept dim 0). Not
 * inlined: its stack buffers stay off the stack of the fold_columns path, which has its own. */
__attribute__((noinline)) static void user_blocks(const user_ctx *c, char **data, const int64_t *strides,
                                                  int64_t size0, int64_t size1, const tensor_iter_reduce_pos *pos) {
    const tensor_reduction_fns *f = c->call->fns;
    const int nt = 1 + c->nin;
    alignas(16) char buf[TENSOR_REDUCTION_MAX_INPUTS][USER_TILE * sizeof(double)];
    const void *vals[TENSOR_REDUCTION_MAX_INPUTS];
    /* Dim 0 reduced and inputs that are all dense runs of values: each row folded in place, the
     * whole run in one call: a call costs the fold's set-up and its lanes' tree, which on
     * 256-element tiles made a user sum 1.5x slower than tensor_sum. Dense 16-bit floats go
     * whole to fold_stored: converting through a buffer cost a store and a reload per element,
     * and the conversion was not in the user's vectorised loop. Decided once for the block of
     * rows (the strides are the block's): deciding it again for every row showed in the time of
     * rows of a hundred floats (docs/perf_log.md). */
    if (strides[0] == 0) {
        bool in_place = true, stored = c->use_stored;
        for (int k = 0; k < c->nin; k++) {
            in_place = in_place && c->plain[k] && strides[1 + k] == (int64_t)c->val_size;
            stored = stored && strides[1 + k] == c->stored_size;
        }
        if (in_place || stored) {
            for (int64_t j = 0; j < size1; j++) {
                char *acc = data[0] + j * strides[nt];
                const int64_t index = pos->index0 + j * pos->index_stride1;
                for (int k = 0; k < c->nin; k++) vals[k] = data[1 + k] + j * strides[nt + 1 + k];
                if (in_place) f->fold(acc, vals, size0, index, c->call->user);
                else f->fold_stored(acc, vals, size0, index, c->stored, c->call->user);
            }
            return;
        }
    }
    for (int64_t j = 0; j < size1; j++) {
        char *acc = data[0] + j * strides[nt];
        const int64_t index = pos->index0 + j * pos->index_stride1;
        if (strides[0] == 0) { /* dim 0 reduced: one accumulator takes the row, tile by tile */
            /* An input constant along the row (stride 0: b of [R, N] x [R, 1]) is one value
             * repeated: converted once into a whole tile for the row (once for the call when
             * its place does not move either), not once per tile element by element. */
            uint32_t ready = 0;
            for (int k = 0; k < c->nin; k++) {
                if (strides[1 + k] != 0) continue;
                const char *src = data[1 + k] + j * strides[nt + 1 + k];
                if (j == 0 || strides[nt + 1 + k] != 0) {
                    c->cvt[k](buf[k], src, 0, 1);
                    repeat_value(buf[k], c->val_size, size0 < USER_TILE ? size0 : USER_TILE);
                }
                ready |= 1u << k;
            }
            /* Tiles end at multiples of USER_TILE of the reduced index (index_stride0 is 1 when
             * dim 0 is reduced), where a kit-made fold cuts its blocks anyway: the same
             * arithmetic as a whole run. */
            for (int64_t t = 0; t < size0;) {
                const int64_t first = index + t * pos->index_stride0;
                int64_t n = USER_TILE - first % USER_TILE;
                if (n > size0 - t) n = size0 - t;
                load_values(c, data, strides, j, t, n, buf, vals, ready);
                f->fold(acc, vals, n, first, c->call->user);
                t += n;
            }
        } else if (f->fold_columns != NULL) { /* dim 0 kept: one element per accumulator */
            /* A row of accumulators per call, each input converted in one go (or read in
             * place), rather than a conversion and a fold call per element. The row's elements
             * share one reduced index. */
            static const int64_t no_strides[TENSOR_REDUCTION_MAX_INPUTS] = {0};
            for (int64_t t = 0; t < size0;) {
                const int64_t n = size0 - t < USER_TILE ? size0 - t : USER_TILE;
                load_values(c, data, strides, j, t, n, buf, vals, 0u);
                f->fold_columns(acc + t * strides[0], (size_t)strides[0], n, vals, no_strides, 1, index,
                                c->value_dtype, c->call->user);
                t += n;
            }
        } else {
            for (int k = 0; k < c->nin; k++) vals[k] = buf[k];
            for (int64_t i = 0; i < size0; i++) {
                for (int k = 0; k < c->nin; k++)
                    c->cvt[k](buf[k], data[1 + k] + j * strides[nt + 1 + k] + i * strides[1 + k], 0, 1);
                f->fold(acc + i * strides[0], vals, 1, index + i * pos->index_stride0, c->call->user);
            }
        }
    }
}

/* Short inner rows (dim 0 reduced, size0 <= USER_SHORT_MAX_RUN) of float32 values dense along
 * them, one output each: fold would take each row alone, in order, one dependent chain of
 * additions a row ([524288, 32] vecdot ran at a fifth of numpy's speed). Groups of
 * USER_SHORT_GROUP rows are transposed into columns in a buffer and handed to fold_columns,
 * which runs the same in-order chains side by side across the outputs: by its contract each
 * accumulator ends as fold leaves it, so the bits are the same. Without AVX2 the groups are
 * transposed element by element: still 30-45% faster than the rows' chains (docs/perf_log.md).
 * Returns the outputs done (whole groups; 0 when this does not apply). */
static int64_t user_short_rows(const user_ctx *c, char **data, const int64_t *strides, int64_t size0, int64_t size1,
                               const tensor_iter_reduce_pos *pos) {
    const tensor_reduction_fns *f = c->call->fns;
    const int nt = 1 + c->nin;
    if (f->fold_columns == NULL || strides[0] != 0 || pos->index_stride1 != 0 || size0 > USER_SHORT_MAX_RUN ||
        size1 < USER_SHORT_GROUP || c->value_dtype != TENSOR_FLOAT32)
        return 0;
    for (int k = 0; k < c->nin; k++)
        if (!c->plain[k] || strides[1 + k] != (int64_t)sizeof(float)) return 0;
    const int64_t per_input = size0 * USER_SHORT_GROUP;
    /* at most 16 KB: on the stack, as user_blocks' tiles (no allocation per call) */
    alignas(32) float buf[TENSOR_REDUCTION_MAX_INPUTS * USER_SHORT_MAX_RUN * USER_SHORT_GROUP];
    const void *rows[TENSOR_REDUCTION_MAX_INPUTS];
    int64_t row_strides[TENSOR_REDUCTION_MAX_INPUTS];
    int64_t j = 0;
    for (; j + USER_SHORT_GROUP <= size1; j += USER_SHORT_GROUP) {
        bool done = true;
        for (int k = 0; k < c->nin && done; k++) {
            float *dst = buf + (size_t)k * (size_t)per_input;
            const char *src = data[1 + k] + j * strides[nt + 1 + k];
            done = tt_cpu_transpose_f32(dst, USER_SHORT_GROUP, src, strides[nt + 1 + k], size0, USER_SHORT_GROUP) ||
                   tt_cpu_transpose_elems(dst, USER_SHORT_GROUP, src, strides[nt + 1 + k], size0, USER_SHORT_GROUP,
                                          sizeof(float));
            rows[k] = dst;
            row_strides[k] = USER_SHORT_GROUP * (int64_t)sizeof(float);
        }
        if (!done) break;
        f->fold_columns(data[0] + j * strides[nt], (size_t)strides[nt], USER_SHORT_GROUP, rows, row_strides, size0,
                        pos->index0, TENSOR_FLOAT32, c->call->user);
    }
    return j;
}

/* Inner rows (dim 0 reduced) of values dense along them through a built-in's fold_rows, which
 * folds many at once (short ones). Returns the outputs done. */
static int64_t user_fold_rows(const user_ctx *c, char **data, const int64_t *strides, int64_t size0, int64_t size1,
                              const tensor_iter_reduce_pos *pos) {
    const int nt = 1 + c->nin;
    /* each row its own output (dim 1 kept): rows that continue one accumulator fold in turn */
    if (c->call->fold_rows == NULL || strides[0] != 0 || pos->index_stride1 != 0) return 0;
    const void *rows[TENSOR_REDUCTION_MAX_INPUTS];
    for (int k = 0; k < c->nin; k++) {
        if (!c->plain[k] || strides[1 + k] != (int64_t)c->val_size) return 0;
        rows[k] = data[1 + k];
    }
    return c->call->fold_rows(data[0], (size_t)strides[nt], size1, rows, strides + nt + 1, size0, pos->index0);
}

static void user_loop(char **data, const int64_t *strides, int64_t size0, int64_t size1,
                      const tensor_iter_reduce_pos *pos, void *ctx) {
    const user_ctx *c = ctx;
    if (user_columns(c, data, strides, size0, size1, pos)) return;
    int64_t done = user_fold_rows(c, data, strides, size0, size1, pos);
    if (done == size1) return;
    if (done == 0) done = user_short_rows(c, data, strides, size0, size1, pos);
    if (done == size1) return;
    char *rest[1 + TENSOR_REDUCTION_MAX_INPUTS];
    for (int k = 0; k <= c->nin; k++) rest[k] = data[k] + done * strides[1 + c->nin + k];
    user_blocks(c, rest, strides, size0, size1 - done, pos);
}

static void user_combine(void *acc, const void *later, int64_t n, void *ctx) {
    const user_ctx *c = ctx;
    for (int64_t i = 0; i < n; i++)
        c->call->fns->combine((char *)acc + (size_t)i * c->acc_stride, (const char *)later + (size_t)i * c->acc_stride,
                              c->call->user);
}

static void user_project(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *ctx) {
    const user_ctx *c = ctx;
    const tensor_reduction_value value = c->call->value;
    if (c->call->plain_ends && ((value == TENSOR_REDUCTION_F32 && c->out_dtype == TENSOR_FLOAT32) ||
                                (value == TENSOR_REDUCTION_F64 && c->out_dtype == TENSOR_FLOAT64) ||
                                (value == TENSOR_REDUCTION_I64 && c->out_dtype == TENSOR_INT64))) {
        /* the accumulator is the result: copied, not a project call and a dtype switch per
         * output, which on rows of 32 took as long as the rows' fold (docs/perf_log.md) */
        const size_t size = value == TENSOR_REDUCTION_F32 ? sizeof(float) : 8;
        for (int64_t j = 0; j < size1; j++)
            for (int64_t i = 0; i < size0; i++)
                memcpy(data[0] + i * strides[0] + j * strides[2], data[1] + i * strides[1] + j * strides[3], size);
        return;
    }
    for (int64_t j = 0; j < size1; j++)
        for (int64_t i = 0; i < size0; i++) {
            char *out = data[0] + i * strides[0] + j * strides[2];
            const char *acc = data[1] + i * strides[1] + j * strides[3];
            alignas(8) char v[8];
            c->call->fns->project(acc, c->call->count, v, c->call->user);
            switch (c->call->value) {
            case TENSOR_REDUCTION_F32: {
                float x;
                memcpy(&x, v, sizeof x);
                tt_cpu_store_f32(c->out_dtype, out, x);
                break;
            }
            case TENSOR_REDUCTION_F64: {
                double x;
                memcpy(&x, v, sizeof x);
                tt_cpu_store_f64(c->out_dtype, out, x);
                break;
            }
            default: {
                int64_t x;
                memcpy(&x, v, sizeof x);
                tt_cpu_store_i64(c->out_dtype, out, x);
                break;
            }
            }
        }
}

tensor_status tt_cpu_user_reduce_kernel(struct tensor_iter *iter, const tensor_kernel_params *params) {
    static const char func[] = "tensor_reduce (CPU)";
    if (iter == NULL || params == NULL || params->reduction == NULL)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument '%s' is NULL", func,
                            iter == NULL ? "iter" : params == NULL ? "params" : "params->reduction");
    const tensor_user_reduce_call *call = params->reduction;
    const int nin = tensor_iter_ninputs(iter);
    if (tensor_iter_noutputs(iter) != 1 || nin < 1 || nin > TENSOR_REDUCTION_MAX_INPUTS)
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: expected 1 output and 1 to %d inputs", func,
                            TENSOR_REDUCTION_MAX_INPUTS);
    static const cpu_val_kind kinds[] = {CPU_VAL_F32, CPU_VAL_F64, CPU_VAL_I64};
    static const size_t sizes[] = {sizeof(float), sizeof(double), sizeof(int64_t)};
    static const tensor_dtype value_dtypes[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_INT64};
    user_ctx c = {call, nin, acc_stride_of(call->acc_size), sizes[call->value], {NULL}, {false},
                  tensor_iter_dtype(iter, 0), tensor_iter_dtype(iter, 1), false, value_dtypes[call->value], {0}, 0};
    c.stored_size = (int64_t)tensor_dtype_size(c.stored);
    const cpu_val_kind stored_kind = call->value == TENSOR_REDUCTION_I64 ? CPU_VAL_I64 : CPU_VAL_F32;
    const bool half = c.stored == TENSOR_BFLOAT16 || c.stored == TENSOR_FLOAT16;
    const bool narrow_int = c.stored == TENSOR_INT32 || c.stored == TENSOR_INT16 || c.stored == TENSOR_INT8 ||
                            c.stored == TENSOR_UINT8;
    c.use_stored = call->fns->fold_stored != NULL &&
                   ((call->value == TENSOR_REDUCTION_F32 && half) ||
                    (call->value == TENSOR_REDUCTION_I64 && call->int_stored && narrow_int));
    for (int k = 0; k < nin; k++) {
        const tensor_dtype in = tensor_iter_dtype(iter, 1 + k);
        c.in_size[k] = tensor_dtype_size(in);
        c.cvt[k] = tt_cpu_converter(in, kinds[call->value], c.out_dtype);
        c.plain[k] = tt_cpu_converter_is_plain(in, kinds[call->value], c.out_dtype) && tensor_dtype_size(in) == c.val_size;
        c.use_stored = c.use_stored && in == c.stored && tt_cpu_converter_is_plain(in, stored_kind, c.out_dtype);
        if (c.cvt[k] == NULL)
            return tensor_error(TENSOR_ERR_DTYPE, "%s: '%s' cannot load input %d of dtype %s", func, call->name, k,
                                tensor_dtype_name(tensor_iter_dtype(iter, 1 + k)));
    }
    tensor_iter_reduce_ops ops = {c.acc_stride, user_init, user_loop, user_combine, user_project, &c};
    return tensor_iter_reduce_run(iter, &ops);
}
