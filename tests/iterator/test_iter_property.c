/* Property tests: for random shapes (ranks 0..5, some empty), layouts (permuted, sliced with
 * steps, expanded, offset), dims and keepdim, the iterator visits exactly the (output, input)
 * element pairs a naive index loop visits; the offset calculator agrees; splitting into
 * pieces under a small index limit covers every element exactly once, with the
 * accumulate/final_output protocol and the index base right. */
#include "iter_test_util.h"

#include "iterator/offset_calc.h"
#include "iterator/iter_internal.h"

#define PROP_CASES 300
#define PROP_MAX_RANK 5

typedef struct geom {
    int ndim;
    int64_t sizes[TENSOR_MAX_DIMS];
    int64_t strides[TENSOR_MAX_DIMS];
    int64_t offset;
} geom;

static const tensor_dtype prop_dtypes[] = {TENSOR_FLOAT32, TENSOR_FLOAT64, TENSOR_INT16, TENSOR_UINT8};

/* A random layout for sizes: dims stored in a random order (permute), with steps (slices),
 * padding, expanded dims (stride 0) when allowed, arbitrary strides on size-1 dims, and an
 * offset. Returns a view over a fresh storage big enough for it. */
static tensor_t *random_tensor(uint64_t *rng, int ndim, const int64_t *sizes, tensor_dtype dtype, bool allow_expand) {
    geom g;
    g.ndim = ndim;
    int order[TENSOR_MAX_DIMS];
    for (int d = 0; d < ndim; d++) order[d] = d;
    for (int d = ndim - 1; d > 0; d--) {
        int k = (int)itest_range(rng, 0, d), t = order[d];
        order[d] = order[k];
        order[k] = t;
    }
    int64_t running = 1;
    for (int k = 0; k < ndim; k++) {
        int d = order[k];
        g.sizes[d] = sizes[d];
        if (sizes[d] == 1 && itest_range(rng, 0, 2) == 0) {
            g.strides[d] = itest_range(rng, 0, 40);
        } else if (allow_expand && itest_range(rng, 0, 5) == 0) {
            g.strides[d] = 0;
        } else {
            g.strides[d] = running * itest_range(rng, 1, 2);
            running = g.strides[d] * (sizes[d] > 1 ? sizes[d] : 1) + itest_range(rng, 0, 1);
        }
    }
    g.offset = itest_range(rng, 0, 3);
    int64_t extent = g.offset + 1;
    for (int d = 0; d < ndim; d++)
        if (sizes[d] > 0) extent += (sizes[d] - 1) * g.strides[d];
    tensor_t *base = itest_empty(1, &extent, dtype);
    tensor_t *v = itest_view(base, g.offset, ndim, g.sizes, g.strides);
    tensor_release(base);
    return v;
}

static void random_shape(uint64_t *rng, int ndim, int64_t *sizes) {
    for (int d = 0; d < ndim; d++) sizes[d] = itest_range(rng, 0, 12) == 0 ? 0 : itest_range(rng, 1, 4);
}

static int64_t elem_offset(const tensor_t *t, const int64_t *idx) {
    int64_t off = t->offset;
    for (int d = 0; d < t->ndim; d++) off += idx[d] * t->strides[d];
    return off * (int64_t)tensor_dtype_size(t->dtype);
}

/* Next multi-index in row-major order; false after the last. */
static bool next_index(int ndim, const int64_t *sizes, int64_t *idx) {
    for (int d = ndim - 1; d >= 0; d--) {
        if (++idx[d] < sizes[d]) return true;
        idx[d] = 0;
    }
    return false;
}

static int64_t numel_of(int ndim, const int64_t *sizes) {
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= sizes[d];
    return n;
}

/* Records every element through the offset calculator (64-bit variant). */
static void record_with_offset_calc(const tensor_iter_t *it, itest_record *rec) {
    assert_true(it->num_operands <= TENSOR_OFFSET_CALC_MAX_ARGS);
    const int64_t *strides[TENSOR_OFFSET_CALC_MAX_ARGS];
    for (int a = 0; a < it->num_operands; a++) strides[a] = it->operands[a].strides;
    tensor_offset_calc64 calc;
    assert_int_equal(tensor_offset_calc_make64(it->ndim, it->shape, it->num_operands, strides, &calc), TENSOR_OK);
    int64_t n = tensor_iter_numel(it), off[TENSOR_OFFSET_CALC_MAX_ARGS], tuple[TENSOR_ITER_MAX_OPERANDS];
    for (int64_t i = 0; i < n; i++) {
        tensor_offset_calc_get64(&calc, i, off);
        for (int a = 0; a < it->num_operands; a++) tuple[a] = (it->operands[a].data - rec->bases[a]) + off[a];
        itest_record_push(rec, tuple);
    }
}

/* Structural invariants of a built reduction iterator. */
static void check_reduction_invariants(const tensor_iter_t *it) {
    int r = tensor_iter_num_reduce_dims(it);
    for (int d = 0; d < it->ndim; d++)
        for (int a = 0; a < it->num_outputs; a++) {
            if (d < r) assert_int_equal(it->operands[a].strides[d], 0);
            else if (it->shape[d] > 1) assert_true(it->operands[a].strides[d] != 0);
        }
    bool seen[TENSOR_MAX_DIMS] = {false};
    for (int p = 0; p < it->logical_ndim; p++) {
        assert_true(it->perm[p] >= 0 && it->perm[p] < it->logical_ndim && !seen[it->perm[p]]);
        seen[it->perm[p]] = true;
    }
    assert_int_equal(it->perm_groups[0], 0);
    if (it->logical_ndim > 0) assert_int_equal(it->perm_groups[it->ndim], it->logical_ndim);
}

/* One random reduction case; returns the iterator (caller frees) and fills `naive`. */
static tensor_iter_t *random_reduction(uint64_t *rng, itest_record *naive, tensor_t **in_out, tensor_t **out_out) {
    int ndim = (int)itest_range(rng, 0, PROP_MAX_RANK);
    int64_t sizes[TENSOR_MAX_DIMS];
    random_shape(rng, ndim, sizes);
    tensor_t *in = random_tensor(rng, ndim, sizes, prop_dtypes[itest_range(rng, 0, 3)], true);
    /* dims: a random subset in random order, some negative; none = all dims. */
    int dims[TENSOR_MAX_DIMS], nd = 0;
    bool mask[TENSOR_MAX_DIMS] = {false};
    int nd_want = (int)itest_range(rng, 0, ndim > 0 ? ndim : 1);
    while (nd < nd_want) {
        int n = ndim > 0 ? ndim : 1;
        int d = (int)itest_range(rng, 0, n - 1);
        if (mask[d]) continue;
        mask[d] = true;
        dims[nd++] = itest_range(rng, 0, 1) ? d : d - n;
    }
    if (nd == 0)
        for (int d = 0; d < ndim; d++) mask[d] = true;
    bool keepdim = itest_range(rng, 0, 1);
    /* Output: undefined, or given in the keepdim or squeezed shape in a random dense layout. */
    tensor_t *out = NULL;
    int64_t ks[TENSOR_MAX_DIMS], ss[TENSOR_MAX_DIMS];
    int nss = 0;
    for (int d = 0; d < ndim; d++) {
        ks[d] = mask[d] ? 1 : sizes[d];
        if (!mask[d]) ss[nss++] = sizes[d];
    }
    int choice = (int)itest_range(rng, 0, 2);
    if (choice == 1) out = random_tensor(rng, ndim, ks, TENSOR_FLOAT64, false);
    if (choice == 2) out = keepdim ? random_tensor(rng, ndim, ks, TENSOR_FLOAT64, false)
                                   : random_tensor(rng, nss, ss, TENSOR_FLOAT64, false);
    tensor_iter_t *it;
    if (itest_range(rng, 0, 3) > 0) {
        it = tensor_iter_reduce_new("prop_reduce", out, in, dims, nd, keepdim, TENSOR_FLOAT64);
    } else {
        tensor_iter_config *cfg = tensor_iter_config_new("prop_reduce_linear");
        tensor_iter_config_add_output_dtype(cfg, out, TENSOR_FLOAT64);
        tensor_iter_config_add_input(cfg, in);
        tensor_iter_config_enable(cfg, TENSOR_ITER_LINEAR);
        tensor_iter_config_reduce_dims(cfg, dims, nd, keepdim);
        it = tensor_iter_build(cfg);
        tensor_iter_config_free(cfg);
    }
    if (it == NULL) fail_msg("build failed: %s", tensor_last_error());
    tensor_release(out);
    out = it->operands[0].tensor;
    /* The naive loop: every input index, its output index (reduced dims at 0). */
    itest_record_init(naive, it);
    int64_t idx[TENSOR_MAX_DIMS] = {0}, oidx[TENSOR_MAX_DIMS];
    if (numel_of(ndim, sizes) > 0) {
        do {
            int k = 0;
            for (int d = 0; d < ndim; d++) {
                if (out->ndim == ndim) oidx[k++] = mask[d] ? 0 : idx[d];
                else if (!mask[d]) oidx[k++] = idx[d];
            }
            int64_t tuple[2] = {elem_offset(out, oidx), elem_offset(in, idx)};
            itest_record_push(naive, tuple);
        } while (next_index(ndim, sizes, idx));
    }
    *in_out = in;
    *out_out = out;
    return it;
}

static void test_reduction_pairs(void **state) {
    (void)state;
    uint64_t rng = 0x1234;
    for (int c = 0; c < PROP_CASES; c++) {
        itest_record naive, got, calc;
        tensor_t *in, *out;
        tensor_iter_t *it = random_reduction(&rng, &naive, &in, &out);
        check_reduction_invariants(it);
        if (tensor_iter_numel(it) > 0) assert_int_equal(tensor_iter_num_output_elements(it), tensor_numel(out));
        itest_record_init(&got, it);
        assert_int_equal(tensor_iter_serial_for_each(it, itest_record_loop, &got, 0, INT64_MAX), TENSOR_OK);
        itest_record_init(&calc, it);
        record_with_offset_calc(it, &calc);
        itest_record_assert_equal(&got, &naive, "for_each vs naive");
        itest_record_assert_equal(&calc, &naive, "offset calculator vs naive");
        /* Split ranges: any [begin, end) partition visits the same elements. */
        int64_t n = tensor_iter_numel(it), cut = n > 0 ? itest_range(&rng, 0, n) : 0;
        itest_record parts;
        itest_record_init(&parts, it);
        tensor_iter_serial_for_each(it, itest_record_loop, &parts, 0, cut);
        tensor_iter_serial_for_each(it, itest_record_loop, &parts, cut, n);
        itest_record_assert_equal(&parts, &naive, "two ranges vs naive");
        itest_record_free(&parts);
        itest_record_free(&naive);
        itest_record_free(&got);
        itest_record_free(&calc);
        tensor_iter_free(it);
        tensor_release(in);
    }
}

/* Elementwise with 1-3 broadcast inputs of mixed dtypes, and a given or allocated output. */
static tensor_iter_t *random_elementwise(uint64_t *rng, itest_record *naive, tensor_t **ins, int *nin_out) {
    int ndim = (int)itest_range(rng, 0, PROP_MAX_RANK);
    int64_t shape[TENSOR_MAX_DIMS];
    random_shape(rng, ndim, shape);
    int nin = (int)itest_range(rng, 1, 3);
    int in_ndim[3];
    int64_t in_sizes[3][TENSOR_MAX_DIMS];
    for (int i = 0; i < nin; i++) {
        in_ndim[i] = (int)itest_range(rng, 0, ndim);
        for (int k = 0; k < in_ndim[i]; k++) {
            int64_t s = shape[ndim - in_ndim[i] + k];
            in_sizes[i][k] = itest_range(rng, 0, 3) == 0 ? 1 : s;
        }
    }
    /* Make sure the inputs produce the whole shape: the first input spans it. */
    in_ndim[0] = ndim;
    for (int d = 0; d < ndim; d++) in_sizes[0][d] = shape[d];
    for (int i = 0; i < nin; i++)
        ins[i] = random_tensor(rng, in_ndim[i], in_sizes[i], prop_dtypes[itest_range(rng, 0, 3)], true);
    tensor_t *out = itest_range(rng, 0, 1) ? random_tensor(rng, ndim, shape, TENSOR_FLOAT64, false) : NULL;
    tensor_iter_config *cfg = tensor_iter_config_new("prop_elementwise");
    tensor_iter_config_add_output_dtype(cfg, out, TENSOR_FLOAT64);
    for (int i = 0; i < nin; i++) tensor_iter_config_add_input(cfg, ins[i]);
    tensor_iter_config_enable(cfg, TENSOR_ITER_PROMOTE_INPUTS | (itest_range(rng, 0, 4) == 0 ? TENSOR_ITER_LINEAR : 0));
    tensor_iter_t *it = tensor_iter_build(cfg);
    if (it == NULL) fail_msg("build failed: %s", tensor_last_error());
    tensor_iter_config_free(cfg);
    tensor_release(out);
    out = it->operands[0].tensor;
    itest_record_init(naive, it);
    int64_t idx[TENSOR_MAX_DIMS] = {0}, sub[TENSOR_MAX_DIMS];
    if (numel_of(ndim, shape) > 0) {
        do {
            int64_t tuple[4];
            tuple[0] = elem_offset(out, idx);
            for (int i = 0; i < nin; i++) {
                for (int k = 0; k < in_ndim[i]; k++)
                    sub[k] = in_sizes[i][k] == 1 ? 0 : idx[ndim - in_ndim[i] + k];
                tuple[1 + i] = elem_offset(ins[i], sub);
            }
            itest_record_push(naive, tuple);
        } while (next_index(ndim, shape, idx));
    }
    *nin_out = nin;
    return it;
}

static void test_elementwise_tuples(void **state) {
    (void)state;
    uint64_t rng = 0xBEEF;
    for (int c = 0; c < PROP_CASES; c++) {
        itest_record naive, got, calc;
        tensor_t *ins[3];
        int nin;
        tensor_iter_t *it = random_elementwise(&rng, &naive, ins, &nin);
        itest_record_init(&got, it);
        assert_int_equal(tensor_iter_serial_for_each(it, itest_record_loop, &got, 0, INT64_MAX), TENSOR_OK);
        itest_record_assert_equal(&got, &naive, "for_each vs naive");
        itest_record_init(&calc, it);
        record_with_offset_calc(it, &calc);
        itest_record_assert_equal(&calc, &naive, "offset calculator vs naive");
        /* An allocated output is dense: its elements are exactly [0, numel) * size. */
        if (it->operands[0].is_allocated) {
            int64_t n = tensor_iter_numel(it);
            for (int64_t k = 0; k < n; k++) assert_int_equal(naive.tuples[k * naive.n], k * 8);
        }
        itest_record_free(&naive);
        itest_record_free(&got);
        itest_record_free(&calc);
        tensor_iter_free(it);
        for (int i = 0; i < nin; i++) tensor_release(ins[i]);
    }
}

/* ---- splitting ---- */

typedef struct {
    itest_record *rec;
    char *in_base;
    int64_t index_base;
} index_ctx;

/* For iterators with exactly one reduced dim (dim 0): (input offset, reduced index). */
static void record_index_loop(char **data, const int64_t *strides, int64_t size0, int64_t size1, void *ctx) {
    index_ctx *c = ctx; /* operands: output 0, input 1; strides[1] inner, strides[3] outer */
    for (int64_t j = 0; j < size1; j++)
        for (int64_t i = 0; i < size0; i++) {
            int64_t tuple[2] = {(data[1] - c->in_base) + i * strides[1] + j * strides[3], c->index_base + i};
            itest_record_push(c->rec, tuple);
        }
}

static void check_pieces(uint64_t *rng, tensor_iter_t *it, itest_record *full) {
    int64_t limit = itest_range(rng, 1, 300);
    tensor_iter_splitter *s = tensor_iter_splitter_new(it, limit);
    assert_non_null(s);
    itest_record all, flags, idx_full, idx_pieces;
    itest_record_init(&all, it);
    /* (output offset, piece number, accumulate, final_output) per output element per piece. */
    memset(&flags, 0, sizeof flags);
    flags.n = 4;
    bool single_reduced = it->is_reduction && tensor_iter_num_reduce_dims(it) == 1 && it->num_operands == 2;
    if (single_reduced) {
        memset(&idx_full, 0, sizeof idx_full);
        memset(&idx_pieces, 0, sizeof idx_pieces);
        idx_full.n = idx_pieces.n = 2;
        index_ctx c = {&idx_full, (char *)it->operands[1].tensor->storage->data, 0};
        tensor_iter_serial_for_each(it, record_index_loop, &c, 0, INT64_MAX);
    }
    const tensor_iter_t *p;
    int64_t piece = 0;
    for (;;) {
        assert_int_equal(tensor_iter_splitter_next(s, &p), TENSOR_OK);
        if (p == NULL) break;
        if (tensor_iter_numel(p) > 0) assert_true(tensor_iter_fits_index_limit(p, limit));
        itest_record mine;
        itest_record_init(&mine, p);
        tensor_iter_serial_for_each(p, itest_record_loop, &mine, 0, INT64_MAX);
        for (int64_t k = 0; k < mine.count; k++) itest_record_push(&all, mine.tuples + k * mine.n);
        if (it->is_reduction) {
            itest_record_sort(&mine);
            for (int64_t k = 0; k < mine.count; k++) {
                if (k > 0 && mine.tuples[k * mine.n] == mine.tuples[(k - 1) * mine.n]) continue;
                int64_t t[4] = {mine.tuples[k * mine.n], piece, p->accumulate, p->final_output};
                itest_record_push(&flags, t);
            }
        }
        if (single_reduced) {
            index_ctx c = {&idx_pieces, (char *)p->operands[1].tensor->storage->data, tensor_iter_reduce_index_base(p)};
            tensor_iter_serial_for_each(p, record_index_loop, &c, 0, INT64_MAX);
        }
        itest_record_free(&mine);
        piece++;
    }
    assert_int_equal(piece, tensor_iter_count_pieces(it, limit));
    itest_record_assert_equal(&all, full, "pieces vs whole");
    if (it->is_reduction) {
        /* Per output element, in piece order: first !accumulate, then accumulate; only the
         * last piece writes final output. */
        itest_record_sort(&flags);
        for (int64_t k = 0; k < flags.count; k++) {
            const int64_t *t = flags.tuples + 4 * k;
            bool first = k == 0 || t[-4] != t[0];
            bool last = k == flags.count - 1 || t[4] != t[0];
            if (t[2] != !first || t[3] != last)
                fail_msg("output offset %lld piece %lld: accumulate %lld final %lld (first %d last %d)", (long long)t[0],
                         (long long)t[1], (long long)t[2], (long long)t[3], first, last);
        }
    }
    if (single_reduced) {
        itest_record_assert_equal(&idx_pieces, &idx_full, "reduced indices of pieces");
        itest_record_free(&idx_full);
        itest_record_free(&idx_pieces);
    }
    itest_record_free(&flags);
    itest_record_free(&all);
    tensor_iter_splitter_free(s);
}

static void test_split_property(void **state) {
    (void)state;
    uint64_t rng = 0x5EED;
    for (int c = 0; c < PROP_CASES; c++) {
        itest_record naive;
        tensor_iter_t *it;
        tensor_t *ins[3] = {NULL, NULL, NULL};
        int nin = 0;
        if (c % 2 == 0) {
            tensor_t *out;
            it = random_reduction(&rng, &naive, &ins[0], &out);
            nin = 1;
        } else {
            it = random_elementwise(&rng, &naive, ins, &nin);
        }
        check_pieces(&rng, it, &naive);
        itest_record_free(&naive);
        tensor_iter_free(it);
        for (int i = 0; i < nin; i++) tensor_release(ins[i]);
    }
}

/* The design's 2^31 case: a 4 GiB float input splits in two along the reduced dim. */
static void test_split_32bit_seed(void **state) {
    (void)state;
    tensor_t *x = itest_huge(2, I64(1 << 20, 1 << 10), TENSOR_FLOAT32);
    tensor_iter_t *it = tensor_iter_reduce_new("test_sum", NULL, x, INTS(0), 1, false, TENSOR_FLOAT32);
    assert_non_null(it);
    assert_false(tensor_iter_can_use_32bit_indexing(it));
    assert_iter_shape(it, 1 << 20, 1 << 10);
    assert_int_equal(tensor_iter_dim_to_split(it), 0);
    tensor_iter_splitter *s = tensor_iter_splitter_new(it, TENSOR_ITER_INDEX32_LIMIT);
    const tensor_iter_t *p;
    int n = 0;
    while (tensor_iter_splitter_next(s, &p) == TENSOR_OK && p != NULL) {
        assert_true(tensor_iter_can_use_32bit_indexing(p));
        assert_int_equal(p->shape[0], 1 << 19);
        assert_int_equal(p->view_offsets[0], n << 19);
        assert_int_equal(tensor_iter_reduce_index_base(p), (int64_t)n << 19);
        assert_int_equal(p->accumulate, n == 1);
        assert_int_equal(p->final_output, n == 1);
        n++;
    }
    assert_int_equal(n, 2);
    tensor_iter_splitter_free(s);
    tensor_iter_free(it);
    tensor_release(x);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_reduction_pairs),
    cmocka_unit_test(test_elementwise_tuples),
    cmocka_unit_test(test_split_property),
    cmocka_unit_test(test_split_32bit_seed),
};

TENSOR_TEST_GROUP(iter_property, tests, NULL, NULL)
