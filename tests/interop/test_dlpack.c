/* DLPack on the CPU: the ABI, the dtype table, export and import round trips for every dtype
 * and layout, and lifetimes (each deleter once, after the last reference on either side, in
 * either order of release). */
#include <stddef.h>

#include "dlpack_test_util.h"

/* The official header's layout on LP64 (the header also checks it at compile time). */
static void test_abi_layout(void **state) {
    (void)state;
    assert_int_equal(sizeof(DLDevice), 8);
    assert_int_equal(sizeof(DLDataType), 4);
    assert_int_equal(sizeof(DLTensor), 48);
    assert_int_equal(offsetof(DLTensor, byte_offset), 40);
    assert_int_equal(sizeof(DLManagedTensor), 64);
    assert_int_equal(offsetof(DLManagedTensor, deleter), 56);
    assert_int_equal(sizeof(DLManagedTensorVersioned), 80);
    assert_int_equal(offsetof(DLManagedTensorVersioned, deleter), 16);
    assert_int_equal(offsetof(DLManagedTensorVersioned, flags), 24);
    assert_int_equal(offsetof(DLManagedTensorVersioned, dl_tensor), 32);
    assert_int_equal(DLPACK_MAJOR_VERSION, 1);
    assert_int_equal(kDLCUDA, 2);
    assert_int_equal(kDLBool, 6);
    assert_int_equal(kDLFloat8_e4m3fn, 10);
    assert_int_equal(kDLFloat8_e5m2, 12);
    assert_int_equal(DLPACK_FLAG_BITMASK_READ_ONLY, 1);
}

static void test_dtype_table(void **state) {
    (void)state;
    static const struct {
        tensor_dtype dt;
        uint8_t code, bits;
    } expect[] = {
        {TENSOR_BOOL, kDLBool, 8},          {TENSOR_UINT8, kDLUInt, 8},     {TENSOR_INT8, kDLInt, 8},
        {TENSOR_INT16, kDLInt, 16},         {TENSOR_INT32, kDLInt, 32},     {TENSOR_INT64, kDLInt, 64},
        {TENSOR_FLOAT16, kDLFloat, 16},     {TENSOR_BFLOAT16, kDLBfloat, 16}, {TENSOR_FLOAT32, kDLFloat, 32},
        {TENSOR_FLOAT64, kDLFloat, 64},     {TENSOR_FLOAT8_E4M3FN, kDLFloat8_e4m3fn, 8},
        {TENSOR_FLOAT8_E5M2, kDLFloat8_e5m2, 8},
    };
    assert_int_equal(sizeof expect / sizeof expect[0], TENSOR_NUM_DTYPES);
    for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        DLDataType d;
        assert_int_equal(tensor_dtype_to_dlpack(expect[i].dt, &d), TENSOR_OK);
        assert_int_equal(d.code, expect[i].code);
        assert_int_equal(d.bits, expect[i].bits);
        assert_int_equal(d.lanes, 1);
        tensor_dtype back;
        assert_int_equal(tensor_dtype_from_dlpack(d, &back), TENSOR_OK);
        assert_int_equal(back, expect[i].dt);
    }
    DLDataType d;
    assert_int_equal(tensor_dtype_to_dlpack(TENSOR_NUM_DTYPES, &d), TENSOR_ERR_DTYPE);
    assert_int_equal(tensor_dtype_to_dlpack(TENSOR_DTYPE_DEFAULT, &d), TENSOR_ERR_DTYPE);
    assert_int_equal(tensor_dtype_to_dlpack(TENSOR_FLOAT32, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    tensor_dtype out;
    assert_int_equal(tensor_dtype_from_dlpack(dl_dtype(kDLFloat, 32, 1), NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tensor_dtype_from_dlpack(dl_dtype(kDLFloat, 32, 4), &out), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "lanes != 1");
    assert_int_equal(tensor_dtype_from_dlpack(dl_dtype(kDLComplex, 64, 1), &out), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "complex");
    assert_int_equal(tensor_dtype_from_dlpack(dl_dtype(kDLUInt, 16, 1), &out), TENSOR_ERR_DTYPE);
    assert_int_equal(tensor_dtype_from_dlpack(dl_dtype(kDLFloat, 128, 1), &out), TENSOR_ERR_DTYPE);
    assert_int_equal(tensor_dtype_from_dlpack(dl_dtype(kDLBool, 1, 1), &out), TENSOR_ERR_DTYPE);
    assert_int_equal(tensor_dtype_from_dlpack(dl_dtype(kDLFloat8_e4m3fnuz, 8, 1), &out), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "float8_e4m3fnuz");
    assert_int_equal(tensor_dtype_from_dlpack(dl_dtype(kDLFloat4_e2m1fn, 4, 1), &out), TENSOR_ERR_DTYPE);
    assert_int_equal(tensor_dtype_from_dlpack(dl_dtype(200, 8, 1), &out), TENSOR_ERR_DTYPE);
    assert_error(TENSOR_ERR_DTYPE, "unknown");
}

/* The fields of an export of t. */
static void assert_export_fields(const tensor_t *t, const DLTensor *dl) {
    DLDataType want;
    assert_int_equal(tensor_dtype_to_dlpack(tensor_get_dtype(t), &want), TENSOR_OK);
    assert_int_equal(dl->dtype.code, want.code);
    assert_int_equal(dl->dtype.bits, want.bits);
    assert_int_equal(dl->dtype.lanes, 1);
    assert_int_equal(dl->device.device_type, kDLCPU);
    assert_int_equal(dl->device.device_id, 0);
    assert_int_equal(dl->ndim, tensor_ndim(t));
    assert_non_null(dl->shape);
    assert_non_null(dl->strides);
    for (int d = 0; d < dl->ndim; d++) {
        assert_int_equal(dl->shape[d], tensor_size(t, d));
        assert_int_equal(dl->strides[d], tensor_stride(t, d));
    }
    assert_int_equal(dl->byte_offset, 0);
    if (tensor_numel(t) > 0) assert_ptr_equal(dl->data, tensor_data(t));
    else assert_null(dl->data);
}

/* Every dtype and layout: our export read back through a foreign struct (the general import)
 * and directly (our own export: a view of the same storage). Zero copy both ways. */
static void test_roundtrip_every_dtype_and_layout(void **state) {
    (void)state;
    for (int k = 0; k < IT_NUM_DTYPES; k++) {
        tensor_t *base = it_random(3, (const int64_t[]){4, 5, 6}, it_all_dtypes[k], 100 + (uint64_t)k);
        for (int l = 0; l < IT_NUM_LAYOUTS; l++) {
            char what[96];
            snprintf(what, sizeof what, "%s %s", tensor_dtype_name(it_all_dtypes[k]), it_layout_names[l]);
            tensor_t *v = it_view(base, (it_layout)l);

            int deletes = 0;
            foreign *f = foreign_wrap_export(v, &deletes);
            assert_export_fields(v, &f->inner->dl_tensor);
            assert_int_equal(f->inner->version.major, 1);
            assert_int_equal(f->inner->version.minor, 1);
            assert_int_equal(f->inner->flags, 0);
            tensor_t *u = tensor_from_dlpack_versioned(&f->v);
            if (u == NULL) fail_msg("%s: import: %s", what, tensor_last_error());
            it_assert_same(v, u, what);
            for (int d = 0; d < tensor_ndim(v); d++) assert_int_equal(tensor_stride(u, d), tensor_stride(v, d));
            if (tensor_numel(v) > 0) assert_ptr_equal(tensor_data(u), tensor_data(v));
            assert_false(tensor_shares_storage(u, v));
            assert_int_equal(deletes, 0);
            tensor_release(u);
            assert_int_equal(deletes, 1);

            DLManagedTensor *lm = NULL;
            assert_int_equal(tensor_to_dlpack(v, TENSOR_DLPACK_STREAM_NONE, &lm), TENSOR_OK);
            assert_export_fields(v, &lm->dl_tensor);
            tensor_t *w = tensor_from_dlpack(lm);
            if (w == NULL) fail_msg("%s: own legacy import: %s", what, tensor_last_error());
            it_assert_same(v, w, what);
            assert_true(tensor_shares_storage(w, v));
            assert_int_equal(tensor_storage_offset(w), tensor_storage_offset(v));
            tensor_release(w);

            DLManagedTensorVersioned *vm = NULL;
            assert_int_equal(tensor_to_dlpack_versioned(v, DLPACK_FLAG_BITMASK_READ_ONLY, 0, &vm), TENSOR_OK);
            assert_int_equal(vm->flags, DLPACK_FLAG_BITMASK_READ_ONLY);
            tensor_t *x = tensor_from_dlpack_versioned(vm);
            if (x == NULL) fail_msg("%s: own import: %s", what, tensor_last_error());
            it_assert_same(v, x, what);
            assert_true(tensor_shares_storage(x, v));
            tensor_release(x);
            tensor_release(v);
        }
        tensor_release(base);
    }
}

/* A legacy foreign struct over a plain buffer: byte_offset honoured, NULL strides row-major,
 * writes through the tensor land in the producer's memory. */
static void test_import_legacy_byte_offset_null_strides(void **state) {
    (void)state;
    int deletes = 0;
    float *buf = malloc(16 * sizeof *buf);
    assert_non_null(buf);
    for (int i = 0; i < 16; i++) buf[i] = (float)i;
    foreign *f = foreign_new(buf, 2, (const int64_t[]){3, 4}, NULL, dl_dtype(kDLFloat, 32, 1), dl_cpu(), &deletes);
    f->owned = buf;
    f->legacy.dl_tensor.byte_offset = 2 * sizeof(float);
    tensor_t *t = tensor_from_dlpack(&f->legacy);
    assert_non_null(t);
    assert_ptr_equal(tensor_data(t), buf + 2);
    assert_true(tensor_is_contiguous(t));
    assert_int_equal(tensor_stride(t, 0), 4);
    float out[12];
    assert_int_equal(tensor_to_buffer(t, out, sizeof out), TENSOR_OK);
    for (int i = 0; i < 12; i++) assert_true(out[i] == (float)(i + 2));
    assert_int_equal(tensor_fill_(t, tensor_scalar_float(7.0)), TENSOR_OK);
    assert_true(buf[2] == 7.0f && buf[13] == 7.0f && buf[1] == 1.0f && buf[14] == 14.0f);
    assert_int_equal(deletes, 0);
    tensor_release(t);
    assert_int_equal(deletes, 1);

    /* A legacy struct without a deleter: nothing to call, nothing breaks. */
    int never = 0;
    int64_t v = 5;
    foreign *g = foreign_new(&v, 0, NULL, NULL, dl_dtype(kDLInt, 64, 1), dl_cpu(), &never);
    g->legacy.deleter = NULL;
    tensor_t *s = tensor_from_dlpack(&g->legacy);
    assert_non_null(s);
    assert_int_equal(tensor_ndim(s), 0);
    assert_int_equal(*(int64_t *)tensor_data(s), 5);
    tensor_release(s);
    assert_int_equal(never, 0);
    free(g);
}

/* Dims of one element may carry any stride, negative ones included; so may empty tensors. A
 * later minor version is read; only the major must match. */
static void test_import_lenient_cases(void **state) {
    (void)state;
    int deletes = 0;
    double buf[6] = {0, 1, 2, 3, 4, 5};
    foreign *f = foreign_new(buf, 3, (const int64_t[]){2, 1, 3}, (const int64_t[]){3, -7, 1}, dl_dtype(kDLFloat, 64, 1),
                             dl_cpu(), &deletes);
    f->v.version.minor = 9;
    tensor_t *t = tensor_from_dlpack_versioned(&f->v);
    if (t == NULL) fail_msg("%s", tensor_last_error());
    assert_true(tensor_is_contiguous(t));
    assert_true(tensor_stride(t, 1) >= 0);
    tensor_release(t);
    assert_int_equal(deletes, 1);

    foreign *e = foreign_new(NULL, 2, (const int64_t[]){0, 3}, (const int64_t[]){-1, -1}, dl_dtype(kDLInt, 32, 1),
                             dl_cpu(), &deletes);
    tensor_t *z = tensor_from_dlpack_versioned(&e->v);
    if (z == NULL) fail_msg("%s", tensor_last_error());
    assert_int_equal(tensor_numel(z), 0);
    assert_int_equal(tensor_size(z, 1), 3);
    tensor_release(z);
    assert_int_equal(deletes, 2);

    /* Stride 0 (a broadcast producer) over a single row. */
    int16_t row[3] = {1, 2, 3};
    foreign *b = foreign_new(row, 2, (const int64_t[]){4, 3}, (const int64_t[]){0, 1}, dl_dtype(kDLInt, 16, 1), dl_cpu(),
                             &deletes);
    tensor_t *bt = tensor_from_dlpack_versioned(&b->v);
    assert_non_null(bt);
    int16_t out[12];
    assert_int_equal(tensor_to_buffer(bt, out, sizeof out), TENSOR_OK);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[11], 3);
    tensor_release(bt);
    assert_int_equal(deletes, 3);
}

static int blob_frees;
static void blob_free(void *data, void *ctx) {
    (void)ctx;
    blob_frees++;
    free(data);
}

/* A tensor over memory whose end we can see (tensor_from_blob's deleter). */
static tensor_t *watched(int64_t n) {
    float *p = malloc((size_t)n * sizeof *p);
    assert_non_null(p);
    for (int64_t i = 0; i < n; i++) p[i] = (float)i;
    tensor_t *t = tensor_from_blob(p, 1, &n, NULL, TENSOR_FLOAT32, tensor_cpu(), blob_free, NULL);
    assert_non_null(t);
    return t;
}

/* Export: the memory lives until both the tensor's views and the export are gone. */
static void test_export_lifetime_both_orders(void **state) {
    (void)state;
    blob_frees = 0;
    tensor_t *t = watched(10);
    DLManagedTensorVersioned *m = NULL;
    assert_int_equal(tensor_to_dlpack_versioned(t, 0, -1, &m), TENSOR_OK);
    tensor_release(t); /* tensor first */
    assert_int_equal(blob_frees, 0);
    assert_true(((float *)m->dl_tensor.data)[9] == 9.0f); /* still readable */
    m->deleter(m);
    assert_int_equal(blob_frees, 1);

    t = watched(10);
    tensor_t *view = tensor_narrow(t, 0, 2, 5);
    DLManagedTensor *lm = NULL;
    assert_int_equal(tensor_to_dlpack(view, 0, &lm), TENSOR_OK);
    assert_true(((float *)lm->dl_tensor.data)[0] == 2.0f);
    lm->deleter(lm); /* export first */
    tensor_release(t);
    assert_int_equal(blob_frees, 1);
    tensor_release(view);
    assert_int_equal(blob_frees, 2);

    /* several exports of one storage, released interleaved with its views */
    t = watched(4);
    DLManagedTensorVersioned *a = NULL, *b = NULL;
    assert_int_equal(tensor_to_dlpack_versioned(t, 0, -1, &a), TENSOR_OK);
    assert_int_equal(tensor_to_dlpack_versioned(t, 0, -1, &b), TENSOR_OK);
    a->deleter(a);
    tensor_release(t);
    assert_int_equal(blob_frees, 2);
    b->deleter(b);
    assert_int_equal(blob_frees, 3);
}

/* Import: the producer's deleter runs once, when the last view of the import goes, in either
 * order; re-exporting an import chains the two lifetimes. */
static void test_import_lifetime_both_orders(void **state) {
    (void)state;
    for (int order = 0; order < 2; order++) {
        int deletes = 0;
        float *buf = calloc(12, sizeof *buf);
        assert_non_null(buf);
        foreign *f = foreign_new(buf, 2, (const int64_t[]){3, 4}, (const int64_t[]){4, 1}, dl_dtype(kDLFloat, 32, 1),
                                 dl_cpu(), &deletes);
        f->owned = buf;
        tensor_t *t = tensor_from_dlpack_versioned(&f->v);
        assert_non_null(t);
        tensor_t *v = tensor_transpose(t, 0, 1);
        assert_non_null(v);
        DLManagedTensorVersioned *re = NULL; /* our export of the import */
        assert_int_equal(tensor_to_dlpack_versioned(v, 0, -1, &re), TENSOR_OK);
        assert_ptr_equal(re->dl_tensor.data, buf);
        if (order == 0) {
            tensor_release(t);
            tensor_release(v);
            assert_int_equal(deletes, 0);
            re->deleter(re);
        } else {
            re->deleter(re);
            tensor_release(v);
            assert_int_equal(deletes, 0);
            tensor_release(t);
        }
        assert_int_equal(deletes, 1);
    }
}

/* While an export lives, the storage must not move: growing it is refused, then allowed. */
static void test_export_pins_storage(void **state) {
    (void)state;
    tensor_t *t = tensor_zeros(1, (const int64_t[]){4}, TENSOR_FLOAT32, tensor_cpu());
    assert_non_null(t);
    DLManagedTensorVersioned *m = NULL;
    assert_int_equal(tensor_to_dlpack_versioned(t, 0, -1, &m), TENSOR_OK);
    assert_int_equal(tensor_resize_(t, 1, (const int64_t[]){1000}), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "DLPack");
    assert_int_equal(tensor_size(t, 0), 4);
    assert_int_equal(tensor_resize_(t, 1, (const int64_t[]){2}), TENSOR_OK); /* shrinking moves nothing */
    m->deleter(m);
    assert_int_equal(tensor_resize_(t, 1, (const int64_t[]){1000}), TENSOR_OK);
    tensor_release(t);
}

/* Our own export, narrowed by a consumer before it came back, is still a view of our storage;
 * one pointing outside it is imported the general way. */
static void test_own_export_modified_by_consumer(void **state) {
    (void)state;
    tensor_t *t = it_random(2, (const int64_t[]){4, 6}, TENSOR_INT32, 5);
    DLManagedTensorVersioned *m = NULL;
    assert_int_equal(tensor_to_dlpack_versioned(t, 0, -1, &m), TENSOR_OK);
    m->dl_tensor.shape[0] = 2;
    m->dl_tensor.byte_offset = 6 * sizeof(int32_t); /* row 1 */
    tensor_t *u = tensor_from_dlpack_versioned(m);
    assert_non_null(u);
    assert_true(tensor_shares_storage(u, t));
    assert_int_equal(tensor_storage_offset(u), 6);
    tensor_t *rows = tensor_narrow(t, 0, 1, 2);
    it_assert_same(rows, u, "narrowed by the consumer");
    tensor_release(rows);
    tensor_release(u);

    assert_int_equal(tensor_to_dlpack_versioned(t, 0, -1, &m), TENSOR_OK);
    m->dl_tensor.shape[0] = 5; /* beyond our storage: not ours to view */
    int32_t *outside = m->dl_tensor.data;
    tensor_t *w = tensor_from_dlpack_versioned(m);
    assert_non_null(w);
    assert_false(tensor_shares_storage(w, t));
    assert_ptr_equal(tensor_data(w), outside);
    tensor_release(w); /* calls our export's deleter */
    tensor_release(t);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_abi_layout),
    cmocka_unit_test(test_dtype_table),
    cmocka_unit_test(test_roundtrip_every_dtype_and_layout),
    cmocka_unit_test(test_import_legacy_byte_offset_null_strides),
    cmocka_unit_test(test_import_lenient_cases),
    cmocka_unit_test(test_export_lifetime_both_orders),
    cmocka_unit_test(test_import_lifetime_both_orders),
    cmocka_unit_test(test_export_pins_storage),
    cmocka_unit_test(test_own_export_modified_by_consumer),
};

TENSOR_TEST_GROUP(dlpack, tests, NULL, NULL)
