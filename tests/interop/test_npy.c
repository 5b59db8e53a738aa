/* .npy files: save/load round trips for every dtype numpy has and every layout, the exact
 * header we write, and hand-made files of each format version, order and byte order. */
#define _POSIX_C_SOURCE 200809L

#include "npy_test_util.h"

static const tensor_dtype numpy_dtypes[] = {TENSOR_BOOL,  TENSOR_UINT8,   TENSOR_INT8,    TENSOR_INT16,  TENSOR_INT32,
                                            TENSOR_INT64, TENSOR_FLOAT16, TENSOR_FLOAT32, TENSOR_FLOAT64};

static void test_roundtrip_every_dtype_and_layout(void **state) {
    (void)state;
    const char *path = npy_path("roundtrip.npy");
    for (size_t k = 0; k < sizeof numpy_dtypes / sizeof numpy_dtypes[0]; k++) {
        tensor_t *base = it_random(3, (const int64_t[]){4, 5, 6}, numpy_dtypes[k], 200 + k);
        for (int l = 0; l < IT_NUM_LAYOUTS; l++) {
            char what[96];
            snprintf(what, sizeof what, "%s %s", tensor_dtype_name(numpy_dtypes[k]), it_layout_names[l]);
            tensor_t *v = it_view(base, (it_layout)l);
            if (tensor_save_npy(v, path) != TENSOR_OK) fail_msg("%s: save: %s", what, tensor_last_error());
            tensor_t *u = tensor_load_npy(path, tensor_cpu());
            if (u == NULL) fail_msg("%s: load: %s", what, tensor_last_error());
            it_assert_same(v, u, what);
            /* the layout comes back: column-major stays column-major, the rest is row-major */
            if (l == IT_TRANSPOSED) {
                assert_false(tensor_is_contiguous(u));
                for (int d = 0; d < 3; d++) assert_int_equal(tensor_stride(u, d), tensor_stride(v, d));
            } else {
                assert_true(tensor_is_contiguous(u));
            }
            tensor_release(u);
            tensor_release(v);
        }
        tensor_release(base);
    }
}

/* The header numpy writes, byte for byte, padded to 64 and ending in '\n'. */
static void expect_header(const tensor_t *t, const char *dict, long data_bytes) {
    const char *path = npy_path("header.npy");
    assert_int_equal(tensor_save_npy(t, path), TENSOR_OK);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char buf[256];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(n >= 64);
    assert_memory_equal(buf, "\x93NUMPY\x01\x00", 8);
    size_t hlen = buf[8] | (size_t)buf[9] << 8;
    assert_int_equal((10 + hlen) % 64, 0);
    assert_memory_equal(buf + 10, dict, strlen(dict));
    for (size_t i = 10 + strlen(dict); i < 10 + hlen - 1; i++) assert_int_equal(buf[i], ' ');
    assert_int_equal(buf[10 + hlen - 1], '\n');
    assert_int_equal(file_size(path), (long)(10 + hlen) + data_bytes);
}

static void test_header_as_numpy_writes_it(void **state) {
    (void)state;
    tensor_t *a = tensor_zeros(2, (const int64_t[]){2, 3}, TENSOR_FLOAT32, tensor_cpu());
    expect_header(a, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24);
    tensor_t *at = tensor_transpose(a, 0, 1);
    expect_header(at, "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 2), }", 24);
    tensor_t *b = tensor_zeros(1, (const int64_t[]){5}, TENSOR_BOOL, tensor_cpu());
    expect_header(b, "{'descr': '|b1', 'fortran_order': False, 'shape': (5,), }", 5);
    tensor_t *c = tensor_zeros(0, NULL, TENSOR_INT64, tensor_cpu());
    expect_header(c, "{'descr': '<i8', 'fortran_order': False, 'shape': (), }", 8);
    tensor_t *d = tensor_zeros(2, (const int64_t[]){0, 7}, TENSOR_UINT8, tensor_cpu());
    expect_header(d, "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 7), }", 0);
    int64_t big[TENSOR_MAX_DIMS];
    for (int i = 0; i < TENSOR_MAX_DIMS; i++) big[i] = 1;
    big[0] = 0;
    big[15] = INT64_MAX;
    tensor_t *e = tensor_empty(TENSOR_MAX_DIMS, big, TENSOR_FLOAT16, tensor_cpu());
    assert_non_null(e);
    expect_header(e, "{'descr': '<f2', 'fortran_order': False, 'shape': (0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
                     "9223372036854775807), }", 0);
    tensor_t *e2 = tensor_load_npy(npy_path("header.npy"), tensor_cpu());
    it_assert_same(e, e2, "16 dims, one of them huge, no elements");
    tensor_release(e2);
    tensor_release(e);
    tensor_release(d);
    tensor_release(c);
    tensor_release(b);
    tensor_release(at);
    tensor_release(a);
}

static tensor_t *load(const char *path) {
    tensor_t *t = tensor_load_npy(path, tensor_cpu());
    if (t == NULL) fail_msg("load: %s", tensor_last_error());
    return t;
}

static void assert_shape(const tensor_t *t, int ndim, const int64_t *sizes) {
    assert_int_equal(tensor_ndim(t), ndim);
    for (int i = 0; i < ndim; i++) assert_int_equal(tensor_size(t, i), sizes[i]);
}

static void assert_values(const tensor_t *t, const void *want, size_t n) {
    unsigned char got[256];
    assert_true(n <= sizeof got);
    assert_int_equal(tensor_to_buffer(t, got, n), TENSOR_OK);
    assert_memory_equal(got, want, n);
}

/* Versions 1.0, 2.0 and 3.0 of the same array. */
static void test_versions(void **state) {
    (void)state;
    const float v[6] = {0, 1, 2, 3, 4, 5};
    const char *path = npy_path("v.npy");
    for (int major = 1; major <= 3; major++) {
        write_npy(path, major, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", true, v, sizeof v);
        tensor_t *t = load(path);
        assert_int_equal(tensor_get_dtype(t), TENSOR_FLOAT32);
        assert_shape(t, 2, (const int64_t[]){2, 3});
        assert_true(tensor_is_contiguous(t));
        assert_values(t, v, sizeof v);
        tensor_release(t);
    }
}

/* A Fortran-order file: the bytes are column-major; they load as a column-major tensor. */
static void test_fortran_order(void **state) {
    (void)state;
    const int32_t file[6] = {0, 10, 1, 11, 2, 12}; /* a[i][j] = 10 i + j, column by column */
    const int32_t rowmajor[6] = {0, 1, 2, 10, 11, 12};
    const char *path = npy_path("f.npy");
    write_npy(path, 1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }", true, file, sizeof file);
    tensor_t *t = load(path);
    assert_shape(t, 2, (const int64_t[]){2, 3});
    assert_int_equal(tensor_stride(t, 0), 1);
    assert_int_equal(tensor_stride(t, 1), 2);
    assert_values(t, rowmajor, sizeof rowmajor);
    tensor_t *c = tensor_contiguous(t);
    assert_memory_equal(tensor_data(c), rowmajor, sizeof rowmajor);
    tensor_release(c);
    tensor_release(t);

    /* 3-D, and a 1-D Fortran file (the same as C order) */
    int16_t cube[24];
    for (int i = 0; i < 24; i++) cube[i] = (int16_t)i;
    write_npy(path, 2, "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3, 4), }", true, cube, sizeof cube);
    t = load(path);
    assert_shape(t, 3, (const int64_t[]){2, 3, 4});
    int16_t got[24];
    assert_int_equal(tensor_to_buffer(t, got, sizeof got), TENSOR_OK);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++) assert_int_equal(got[(i * 3 + j) * 4 + k], i + 2 * j + 6 * k);
    tensor_release(t);
    write_npy(path, 1, "{'descr': '<i2', 'fortran_order': True, 'shape': (5,), }", true, cube, 10);
    t = load(path);
    assert_true(tensor_is_contiguous(t));
    assert_values(t, cube, 10);
    tensor_release(t);
}

/* Big-endian data is swapped; '=' and a missing order are the host's; '|' for bytes. */
static void test_byte_orders(void **state) {
    (void)state;
    const char *path = npy_path("e.npy");
    const unsigned char be_i4[] = {0x00, 0x00, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFE, 0x01, 0x02, 0x03, 0x04};
    const int32_t want_i4[] = {1, -2, 0x01020304};
    write_npy(path, 1, "{'descr': '>i4', 'fortran_order': False, 'shape': (3,), }", true, be_i4, sizeof be_i4);
    tensor_t *t = load(path);
    assert_values(t, want_i4, sizeof want_i4);
    tensor_release(t);

    const unsigned char be_f8[] = {0x3F, 0xF8, 0, 0, 0, 0, 0, 0, 0xC0, 0x02, 0, 0, 0, 0, 0, 0};
    const double want_f8[] = {1.5, -2.25};
    write_npy(path, 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", true, be_f8, sizeof be_f8);
    t = load(path);
    assert_values(t, want_f8, sizeof want_f8);
    tensor_release(t);

    const unsigned char be_f2[] = {0x3C, 0x00, 0xC0, 0x00};
    const uint16_t want_f2[] = {0x3C00, 0xC000}; /* 1.0, -2.0 */
    write_npy(path, 3, "{'descr': '>f2', 'fortran_order': False, 'shape': (2,), }", true, be_f2, sizeof be_f2);
    t = load(path);
    assert_int_equal(tensor_get_dtype(t), TENSOR_FLOAT16);
    assert_values(t, want_f2, sizeof want_f2);
    tensor_release(t);

    const int64_t be_fortran_src[] = {1, 2, 3, 4}; /* swapped below: a big-endian Fortran (2, 2) */
    unsigned char be_fortran[32];
    for (int i = 0; i < 4; i++)
        for (int b = 0; b < 8; b++) be_fortran[i * 8 + b] = (unsigned char)(be_fortran_src[i] >> (56 - 8 * b));
    write_npy(path, 1, "{'descr': '>i8', 'fortran_order': True, 'shape': (2, 2), }", true, be_fortran,
              sizeof be_fortran);
    t = load(path);
    const int64_t want_fortran[] = {1, 3, 2, 4};
    assert_values(t, want_fortran, sizeof want_fortran);
    tensor_release(t);

    const int16_t native[] = {-7, 300};
    write_npy(path, 1, "{'descr': '=i2', 'fortran_order': False, 'shape': (2,), }", true, native, sizeof native);
    t = load(path);
    assert_values(t, native, sizeof native);
    tensor_release(t);
    write_npy(path, 1, "{'descr': 'i2', 'fortran_order': False, 'shape': (2,), }", true, native, sizeof native);
    t = load(path);
    assert_values(t, native, sizeof native);
    tensor_release(t);

    const int8_t bytes[] = {-128, 127, 0};
    write_npy(path, 1, "{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }", true, bytes, sizeof bytes);
    t = load(path);
    assert_int_equal(tensor_get_dtype(t), TENSOR_INT8);
    assert_values(t, bytes, sizeof bytes);
    tensor_release(t);
    write_npy(path, 1, "{'descr': '>u1', 'fortran_order': False, 'shape': (3,), }", true, bytes, sizeof bytes);
    t = load(path);
    assert_int_equal(tensor_get_dtype(t), TENSOR_UINT8);
    assert_values(t, bytes, sizeof bytes);
    tensor_release(t);
}

/* Bool bytes other than 0 and 1 are true (numpy's reading), stored as 1. */
static void test_bool_bytes(void **state) {
    (void)state;
    const char *path = npy_path("b.npy");
    const unsigned char raw[] = {0, 1, 2, 255, 0x80, 0};
    const unsigned char want[] = {0, 1, 1, 1, 1, 0};
    write_npy(path, 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (6,), }", true, raw, sizeof raw);
    tensor_t *t = load(path);
    assert_int_equal(tensor_get_dtype(t), TENSOR_BOOL);
    assert_values(t, want, sizeof want);
    tensor_release(t);
}

/* Whatever literal_eval would read: either quote, any key order, spacing, no trailing comma,
 * Python 2 longs, no padding or newline, 0-d and empty shapes; and bytes after the data. */
static void test_header_variants(void **state) {
    (void)state;
    const char *path = npy_path("h.npy");
    const int32_t v[6] = {1, 2, 3, 4, 5, 6};
    static const struct {
        const char *dict;
        bool pad;
        int ndim;
        int64_t shape[2];
    } cases[] = {
        {"{\"descr\": \"<i4\", \"fortran_order\": False, \"shape\": (2, 3)}", true, 2, {2, 3}},
        {"{'shape': (6,), 'fortran_order': False, 'descr': '<i4'}", true, 1, {6}},
        {"{ 'descr' :'<i4' ,\t'fortran_order':False,'shape':( 3 , 2 , ) , }  \r\n", false, 2, {3, 2}},
        {"{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 3L), }", true, 2, {2, 3}},
        {"{'descr': '<i4', 'fortran_order': False, 'shape': (6), }", true, 1, {6}},
        {"{'descr': '<i4', 'fortran_order': False, 'shape': (6,)}", false, 1, {6}},
        {"{'descr': '<i4', 'fortran_order': False, 'shape': (), }", true, 0, {0}},
        {"{'descr': '<i4', 'fortran_order': False, 'shape': (0, 3), }", true, 2, {0, 3}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_npy(path, 1, cases[i].dict, cases[i].pad, v, sizeof v);
        tensor_t *t = tensor_load_npy(path, tensor_cpu());
        if (t == NULL) fail_msg("case %zu (%s): %s", i, cases[i].dict, tensor_last_error());
        assert_shape(t, cases[i].ndim, cases[i].shape);
        size_t n = (size_t)tensor_numel(t) * sizeof(int32_t);
        if (n > 0) assert_values(t, v, n); /* the 0-d one reads the first value; extra bytes ignored */
        tensor_release(t);
    }
}

/* bfloat16 and float8 have no numpy dtype: refused, and the file is not touched; the float32
 * detour the message suggests brings the bits back. */
static void test_dtypes_numpy_lacks(void **state) {
    (void)state;
    char path[256]; /* npy_path's buffer is reused by the next call */
    snprintf(path, sizeof path, "%s", npy_path("keep.npy"));
    write_bytes(path, "previous", 8);
    const tensor_dtype lacking[] = {TENSOR_BFLOAT16, TENSOR_FLOAT8_E4M3FN, TENSOR_FLOAT8_E5M2};
    for (size_t i = 0; i < 3; i++) {
        tensor_t *t = tensor_rand(2, (const int64_t[]){3, 4}, 9, lacking[i], tensor_cpu());
        assert_non_null(t);
        assert_int_equal(tensor_save_npy(t, path), TENSOR_ERR_DTYPE);
        assert_error(TENSOR_ERR_DTYPE, "no numpy dtype");
        assert_int_equal(file_size(path), 8);
        tensor_t *f32 = tensor_to_dtype(t, TENSOR_FLOAT32);
        const char *p2 = npy_path("detour.npy");
        assert_int_equal(tensor_save_npy(f32, p2), TENSOR_OK);
        tensor_t *back = tensor_load_npy(p2, tensor_cpu());
        assert_non_null(back);
        tensor_t *again = tensor_to_dtype(back, lacking[i]);
        it_assert_same(t, again, tensor_dtype_name(lacking[i]));
        tensor_release(again);
        tensor_release(back);
        tensor_release(f32);
        tensor_release(t);
    }
}

/* A CUDA tensor cannot exist here; a CUDA load says so. */
static void test_cuda_device_without_cuda(void **state) {
    (void)state;
    if (tensor_cuda_device_count() > 0) skip();
    const char *path = npy_path("c.npy");
    const float v[2] = {1, 2};
    write_npy(path, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", true, v, sizeof v);
    assert_null(tensor_load_npy(path, tensor_cuda(0)));
    assert_error(TENSOR_ERR_DEVICE, "tensor_load_npy: device cuda:0");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_roundtrip_every_dtype_and_layout),
    cmocka_unit_test(test_header_as_numpy_writes_it),
    cmocka_unit_test(test_versions),
    cmocka_unit_test(test_fortran_order),
    cmocka_unit_test(test_byte_orders),
    cmocka_unit_test(test_bool_bytes),
    cmocka_unit_test(test_header_variants),
    cmocka_unit_test(test_dtypes_numpy_lacks),
    cmocka_unit_test(test_cuda_device_without_cuda),
};

TENSOR_TEST_GROUP(npy, tests, NULL, npy_cleanup)
