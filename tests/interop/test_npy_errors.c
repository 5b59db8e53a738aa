/* .npy errors: every malformed, truncated, oversized or unsupported file is an error with its
 * reason (never a crash or an over-read: the asan preset runs these), and so are bad
 * arguments and files that cannot be opened, read or written. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "npy_test_util.h"
#include "interop/npy_internal.h"

/* A literal's bytes, embedded NULs included, without its terminator. */
#define write_lit(path, lit) write_bytes(path, lit, sizeof(lit) - 1)

static void expect_load_error(const char *path, tensor_status status, const char *needle) {
    tensor_clear_error();
    tensor_t *t = tensor_load_npy(path, tensor_cpu());
    if (t != NULL) fail_msg("expected an error containing \"%s\", the file loaded", needle);
    assert_error(status, needle);
    assert_non_null(strstr(tensor_last_error(), "tensor_load_npy: "));
}

/* A header text with data of `n` bytes: must fail with status/needle. */
static void expect_header_error(int major, const char *dict, size_t n, tensor_status status, const char *needle) {
    const char *path = npy_path("bad.npy");
    unsigned char data[64] = {0};
    write_npy(path, major, dict, true, data, n);
    expect_load_error(path, status, needle);
}

static void test_bad_headers(void **state) {
    (void)state;
    static const struct {
        const char *dict;
        tensor_status status;
        const char *needle;
    } cases[] = {
        {"", TENSOR_ERR_FORMAT, "must be a dict"},
        {"[1, 2]", TENSOR_ERR_FORMAT, "must be a dict"},
        {"{'descr': '<f4', 'fortran_order': False}", TENSOR_ERR_FORMAT, "missing key 'shape'"},
        {"{'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_FORMAT, "missing key 'descr'"},
        {"{'descr': '<f4', 'shape': (2,)}", TENSOR_ERR_FORMAT, "missing key 'fortran_order'"},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_FORMAT, "duplicate key"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", TENSOR_ERR_FORMAT, "unknown key"},
        {"{descr: '<f4', 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_FORMAT, "expected a quoted string"},
        {"{'descr' '<f4', 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_FORMAT, "expected ':'"},
        {"{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_FORMAT, "expected ',' or '}'"},
        {"{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}", TENSOR_ERR_FORMAT, "True or False"},
        {"{'descr': '<f4', 'fortran_order': 1, 'shape': (2,)}", TENSOR_ERR_FORMAT, "True or False"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': [2]}", TENSOR_ERR_FORMAT, "must be a tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}", TENSOR_ERR_FORMAT, "negative size"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,)}", TENSOR_ERR_FORMAT, "expected ',' or ')'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,,)}", TENSOR_ERR_FORMAT, "expected a size"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,", TENSOR_ERR_FORMAT, "expected a size"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", TENSOR_ERR_FORMAT, "expected ',' or '}'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", TENSOR_ERR_FORMAT, "unexpected bytes after"},
        {"{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_DTYPE, "'<f4, ' is not a type"},
        {"{'descr': '<f4", TENSOR_ERR_FORMAT, "control character"}, /* the padding's '\n' */
        {"{'descr': '\\x3cf4', 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_FORMAT, "escape sequences"},
        {"{'descr': '', 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_FORMAT, "malformed .npy descr"},
        {"{'descr': '<', 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_FORMAT, "malformed .npy descr"},
        {"{'descr': '<c8', 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_DTYPE, "'<c8' has no tinytensor dtype"},
        {"{'descr': '<u2', 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_DTYPE, "'<u2'"},
        {"{'descr': '<f16', 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_DTYPE, "'<f16'"},
        {"{'descr': '|O', 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_DTYPE, "not a fixed-size number type"},
        {"{'descr': '<U10', 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_DTYPE, "'<U10'"},
        {"{'descr': '|V2', 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_DTYPE, "'|V2'"},
        {"{'descr': '<f4x', 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_DTYPE, "not a type tinytensor has"},
        {"{'descr': '<f99999999999', 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_DTYPE, "not a type"},
        {"{'descr': \"\xc3\xa9" "f4\", 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_DTYPE, "not a type"},
        {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", TENSOR_ERR_DTYPE, "structured dtype"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", TENSOR_ERR_OVERFLOW,
         "overflows int64"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 4)}", TENSOR_ERR_OVERFLOW,
         "product of sizes"},
        {"{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,)}", TENSOR_ERR_OVERFLOW,
         "overflow the byte count"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)}",
         TENSOR_ERR_INVALID_ARGUMENT, "more than 16 dims"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tensor_clear_error();
        const char *path = npy_path("bad.npy");
        unsigned char data[16] = {0};
        write_npy(path, 1 + (int)(i % 3), cases[i].dict, true, data, sizeof data);
        tensor_t *t = tensor_load_npy(path, tensor_cpu());
        if (t != NULL) fail_msg("case %zu (%s) loaded", i, cases[i].dict);
        if (tensor_last_status() != cases[i].status || strstr(tensor_last_error(), cases[i].needle) == NULL)
            fail_msg("case %zu (%s): got %s \"%s\", expected %s \"%s\"", i, cases[i].dict,
                     tensor_status_name(tensor_last_status()), tensor_last_error(), tensor_status_name(cases[i].status),
                     cases[i].needle);
    }
    /* the offset of the problem is in the message */
    expect_header_error(1, "{'descr': '<f4', 'fortran_order': nope, 'shape': (2,)}", 8, TENSOR_ERR_FORMAT, "at byte 44");
}

static void test_bad_preambles(void **state) {
    (void)state;
    const char *path = npy_path("pre.npy");
    write_lit(path, "");
    expect_load_error(path, TENSOR_ERR_FORMAT, "empty file");
    write_lit(path, "PK\x03\x04 a zip, not an array");
    expect_load_error(path, TENSOR_ERR_FORMAT, "not a .npy file");
    write_lit(path, "\x93NUMP");
    expect_load_error(path, TENSOR_ERR_FORMAT, "not a .npy file");
    write_lit(path, "\x93NUMPY\x01");
    expect_load_error(path, TENSOR_ERR_FORMAT, "truncated .npy preamble");
    write_lit(path, "\x93NUMPY\x01\x00\x40");
    expect_load_error(path, TENSOR_ERR_FORMAT, "truncated .npy preamble");
    write_lit(path, "\x93NUMPY\x02\x00\x40\x00\x00");
    expect_load_error(path, TENSOR_ERR_FORMAT, "truncated .npy preamble");
    write_lit(path, "\x93NUMPY\x04\x00\x40\x00\x00\x00");
    expect_load_error(path, TENSOR_ERR_FORMAT, "version 4.0");
    write_lit(path, "\x93NUMPY\x01\x01\x40\x00\x00\x00");
    expect_load_error(path, TENSOR_ERR_FORMAT, "version 1.1");
    write_lit(path, "\x93NUMPY\x00\x00\x40\x00\x00\x00");
    expect_load_error(path, TENSOR_ERR_FORMAT, "version 0.0");
    /* a length beyond the limit (version 2: 4-byte lengths) */
    write_lit(path, "\x93NUMPY\x02\x00\x01\x00\x01\x00");
    expect_load_error(path, TENSOR_ERR_FORMAT, "exceeds the limit of 65536");
    write_lit(path, "\x93NUMPY\x03\x00\xff\xff\xff\xff");
    expect_load_error(path, TENSOR_ERR_FORMAT, "4294967295");
    /* a length longer than the file */
    write_lit(path, "\x93NUMPY\x01\x00\x00\x01{'descr'");
    expect_load_error(path, TENSOR_ERR_FORMAT, "truncated .npy file: the header needs 266 bytes, the file has 18");
    /* a length shorter than the preamble read */
    write_lit(path, "\x93NUMPY\x01\x00\x01\x00{}");
    expect_load_error(path, TENSOR_ERR_FORMAT, "too short");
}

/* Data shorter than the header says: refused before memory for it is taken, so a 2^40-element
 * shape in a tiny file costs nothing. */
static void test_truncated_data(void **state) {
    (void)state;
    const float v[5] = {1, 2, 3, 4, 5};
    expect_header_error(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", sizeof v, TENSOR_ERR_FORMAT,
                        "needs 24 bytes of data, the file has 20");
    expect_header_error(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }", 8,
                        TENSOR_ERR_FORMAT, "needs 4398046511104 bytes of data");
    expect_header_error(2, "{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", 0, TENSOR_ERR_FORMAT,
                        "the file has 0");
    /* a file that ends inside the header text */
    const char *path = npy_path("cut.npy");
    write_npy(path, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", true, v, 8);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), 40), 0);
    fclose(f);
    expect_load_error(path, TENSOR_ERR_FORMAT, "the header needs 128 bytes, the file has 40");
}

/* A stream that cannot seek (a pipe): the size is not known up front, so a short data read is
 * what finds the truncation. */
static void test_unseekable_stream(void **state) {
    (void)state;
    const char *path = npy_path("pipe_src.npy");
    const int32_t v[3] = {7, 8, 9};
    write_npy(path, 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", true, v, sizeof v);
    unsigned char bytes[128 + 12];
    FILE *src = fopen(path, "rb");
    size_t n = fread(bytes, 1, sizeof bytes, src);
    fclose(src);
    for (int cut = 0; cut < 2; cut++) {
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        size_t len = cut ? n - 2 : n;
        assert_int_equal(write(fds[1], bytes, len), (ssize_t)len);
        close(fds[1]);
        FILE *f = fdopen(fds[0], "rb");
        assert_non_null(f);
        tensor_t *t = tt_npy_read(f, tensor_cpu(), "pipe");
        fclose(f);
        if (cut) {
            assert_null(t);
            assert_error(TENSOR_ERR_FORMAT, "pipe: truncated .npy file: the data needs 12 bytes, the file has 10");
        } else {
            assert_non_null(t);
            assert_int_equal(((int32_t *)tensor_data(t))[2], 9);
            tensor_release(t);
        }
    }
}

static void test_arguments_and_files(void **state) {
    (void)state;
    tensor_t *t = tensor_zeros(1, (const int64_t[]){3}, TENSOR_FLOAT32, tensor_cpu());
    assert_null(tensor_load_npy(NULL, tensor_cpu()));
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_load_npy: argument 'path' is NULL");
    assert_int_equal(tensor_save_npy(NULL, npy_path("x.npy")), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "tensor_save_npy: argument 't' is NULL");
    assert_int_equal(tensor_save_npy(t, NULL), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "argument 'path' is NULL");
    const tensor_device bad = {(tensor_device_type)9, 0};
    assert_null(tensor_load_npy(npy_path("x.npy"), bad));
    assert_error(TENSOR_ERR_DEVICE, "unknown device type 9");

    expect_load_error(npy_path("does-not-exist.npy"), TENSOR_ERR_IO, "No such file or directory");
    expect_load_error(npy_path(NULL), TENSOR_ERR_IO, "cannot read the header"); /* a directory */
    char missing_dir[300];
    snprintf(missing_dir, sizeof missing_dir, "%s/no/such/dir.npy", npy_path(NULL));
    assert_int_equal(tensor_save_npy(t, missing_dir), TENSOR_ERR_IO);
    assert_error(TENSOR_ERR_IO, "cannot open");
    assert_int_equal(tensor_save_npy(t, npy_path(NULL)), TENSOR_ERR_IO);
    assert_error(TENSOR_ERR_IO, "Is a directory");

    /* a full disk: the error surfaces at the write or the close; the device is left alone */
    struct stat sb;
    if (stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode)) {
        assert_int_equal(tensor_save_npy(t, "/dev/full"), TENSOR_ERR_IO);
        assert_error(TENSOR_ERR_IO, "No space left on device");
        assert_int_equal(stat("/dev/full", &sb), 0);
        assert_true(S_ISCHR(sb.st_mode));
    }
    /* a failed save removes what it had written of a regular file */
    if (getuid() != 0) {
        const char *ro = npy_path("readonly.npy");
        write_bytes(ro, "x", 1);
        chmod(ro, 0444);
        assert_int_equal(tensor_save_npy(t, ro), TENSOR_ERR_IO);
        assert_error(TENSOR_ERR_IO, "Permission denied");
    }
    tensor_release(t);
}

/* The in-memory parser never reads past its buffer: every prefix of a valid file is refused
 * (under ASan an over-read would stop the test), and the whole file is accepted. */
static void test_parser_prefixes(void **state) {
    (void)state;
    char hdr[256];
    size_t len;
    assert_int_equal(tt_npy_format_header(TENSOR_INT16, true, 3, (const int64_t[]){2, 3, 4}, hdr, sizeof hdr, &len, "t"),
                     TENSOR_OK);
    assert_int_equal(len % 64, 0);
    for (size_t n = 0; n < len; n++) {
        uint8_t *copy = malloc(n ? n : 1); /* exactly n bytes: ASan sees one more */
        memcpy(copy, hdr, n);
        tt_npy_header h;
        assert_int_not_equal(tt_npy_parse_header(copy, n, &h, "t"), TENSOR_OK);
        assert_int_equal(tensor_last_status(), TENSOR_ERR_FORMAT);
        free(copy);
    }
    tt_npy_header h;
    assert_int_equal(tt_npy_parse_header((const uint8_t *)hdr, len, &h, "t"), TENSOR_OK);
    assert_int_equal(h.major, 1);
    assert_int_equal(h.dtype, TENSOR_INT16);
    assert_true(h.fortran_order);
    assert_false(h.swap);
    assert_int_equal(h.ndim, 3);
    assert_int_equal(h.shape[2], 4);
    assert_int_equal(h.numel, 24);
    assert_int_equal(h.data_bytes, 48);
    assert_int_equal(h.data_offset, len);
    /* the formatter's own errors */
    assert_int_equal(tt_npy_format_header(TENSOR_INT16, false, 1, (const int64_t[]){2}, hdr, 63, &len, "t"),
                     TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tt_npy_format_header(TENSOR_INT16, false, 17, (const int64_t[17]){0}, hdr, sizeof hdr, &len, "t"),
                     TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tt_npy_format_header(TENSOR_NUM_DTYPES, false, 0, NULL, hdr, sizeof hdr, &len, "t"),
                     TENSOR_ERR_DTYPE);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bad_headers),
    cmocka_unit_test(test_bad_preambles),
    cmocka_unit_test(test_truncated_data),
    cmocka_unit_test(test_unseekable_stream),
    cmocka_unit_test(test_arguments_and_files),
    cmocka_unit_test(test_parser_prefixes),
};

TENSOR_TEST_GROUP(npy_errors, tests, NULL, npy_cleanup)
