/* The CUDA scans' launch plan (cuda/scan_config.h), host code: which kernel, the tile counts
 * and the look-back state's layout, and the errors. */
#include <stdint.h>
#include <string.h>

#include "test_main.h"
#include "cuda/scan_config.h"

static void test_contig_plan(void **state) {
    (void)state;
    tt_scan_config c;
    /* one long dense line: tiles chained by look-back */
    assert_int_equal(tt_scan_config_make(1, 256 << 20, 1, 4, 4, 1, &c, "t"), TENSOR_OK);
    assert_int_equal(c.variant, TT_SCAN_CONTIG);
    assert_int_equal(c.tiles_per_line, (256 << 20) / TT_SCAN_TILE(4));
    assert_int_equal(TT_SCAN_TILE(4), 8192);
    assert_int_equal(TT_SCAN_TILE(8), 4096);
    assert_int_equal(c.ntiles, c.tiles_per_line);
    assert_true(c.lookback);
    /* 4-byte accumulators: a 64-bit word per tile holds the flag and the value */
    assert_true(c.packed);
    assert_int_equal(c.flags_offset, 16);
    assert_int_equal(c.state_bytes, 16 + (size_t)c.ntiles * 8);
    assert_int_equal(c.zero_bytes, c.state_bytes);
    /* 8-byte ones: flags, then aggregates and inclusive prefixes */
    assert_int_equal(tt_scan_config_make(1, 256 << 20, 1, 8, 8, 0, &c, "t"), TENSOR_OK);
    assert_false(c.packed);
    assert_int_equal(c.agg_offset % 16, 0);
    assert_int_equal(c.incl_offset, c.agg_offset + (size_t)c.ntiles * 8);
    assert_int_equal(c.state_bytes, c.incl_offset + (size_t)c.ntiles * 8);
    assert_int_equal(c.zero_bytes, c.agg_offset);
    const int64_t wide_tiles = c.tiles_per_line;
    /* 8-byte accumulators over 4-byte items, records packed in 64 bits (int8 cumsum into
     * int64): float32's tile and record layout */
    assert_int_equal(tt_scan_config_make(1, 256 << 20, 1, 8, 4, 1, &c, "t"), TENSOR_OK);
    assert_int_equal(c.tiles_per_line, (256 << 20) / TT_SCAN_TILE(4));
    assert_int_equal(c.tiles_per_line * TT_SCAN_TILE(4), wide_tiles * TT_SCAN_TILE(8));
    assert_true(c.packed);
    assert_int_equal(c.state_bytes, 16 + (size_t)c.ntiles * 8);
    assert_int_equal(c.zero_bytes, c.state_bytes);
    /* rows of one tile: no look-back, no state */
    assert_int_equal(tt_scan_config_make(4096, 4096, 1, 8, 8, 0, &c, "t"), TENSOR_OK);
    assert_int_equal(c.variant, TT_SCAN_CONTIG);
    assert_int_equal(c.ntiles, 4096);
    assert_false(c.lookback);
    assert_int_equal(c.state_bytes, 0);
    /* a partial last tile */
    assert_int_equal(tt_scan_config_make(3, TT_SCAN_TILE(16) + 1, 1, 16, 16, 0, &c, "t"), TENSOR_OK);
    assert_int_equal(c.tiles_per_line, 2);
    assert_int_equal(c.ntiles, 6);
    assert_int_equal(c.incl_offset - c.agg_offset, 6 * 16);
}

static void test_strided_plan(void **state) {
    (void)state;
    tt_scan_config c;
    /* dense but short lines go to the strided kernel */
    assert_int_equal(tt_scan_config_make(1 << 20, 32, 1, 4, 4, 1, &c, "t"), TENSOR_OK);
    assert_int_equal(c.variant, TT_SCAN_STRIDED);
    assert_int_equal(c.ch, 16);
    assert_int_equal(c.ty, 2);
    assert_int_equal(c.tx, 128);
    assert_int_equal(c.nslabs, 1);
    assert_false(c.lookback);
    /* columns of a square matrix: a warp across lines, slabs chained */
    assert_int_equal(tt_scan_config_make(4096, 4096, 0, 4, 4, 1, &c, "t"), TENSOR_OK);
    assert_int_equal(c.tx * c.ty, TT_SCAN_BLOCK);
    assert_true(c.tx >= 32);
    assert_int_equal(c.nslabs, 4096 / (c.ty * c.ch));
    assert_int_equal(c.ngroups, 4096 / c.tx);
    assert_true(c.lookback);
    assert_true(c.lane_per_line); /* 128 groups: a line's slabs are 128 tiles apart */
    /* one record per (line, slab) */
    assert_int_equal(c.state_bytes, 16 + (size_t)4096 * c.nslabs * 8);
    /* few lines: the block narrows to them and goes deeper along the line */
    assert_int_equal(tt_scan_config_make(3, 100000, 0, 8, 8, 0, &c, "t"), TENSOR_OK);
    assert_int_equal(c.tx, 4);
    assert_true(c.tx * c.ty <= TT_SCAN_BLOCK);
    assert_int_equal(c.ngroups, 1);
    assert_false(c.lane_per_line); /* consecutive tiles chain: a warp reads 32 at once */
    /* a single short element */
    assert_int_equal(tt_scan_config_make(1, 1, 0, 4, 4, 1, &c, "t"), TENSOR_OK);
    assert_int_equal(c.ch, 1);
    assert_int_equal(c.ty, 1);
    assert_int_equal(c.ntiles, 1);
    assert_true(c.grid >= 1);
}

static void test_errors(void **state) {
    (void)state;
    tt_scan_config c;
    assert_int_equal(tt_scan_config_make(0, 5, 1, 4, 4, 1, &c, "f"), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "f: a scan of 0 lines");
    assert_int_equal(tt_scan_config_make(INT64_MAX / 2, 4, 0, 4, 4, 1, &c, "f"), TENSOR_ERR_OVERFLOW);
    assert_error(TENSOR_ERR_OVERFLOW, "f:");
    assert_int_equal(tt_scan_config_make(1, 5, 1, 4, 4, 1, NULL, "f"), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "argument 'cfg' is NULL");
    assert_int_equal(tt_scan_config_make(1, 5, 1, 4, 8, 1, &c, "f"), TENSOR_ERR_INVALID_ARGUMENT);
    assert_error(TENSOR_ERR_INVALID_ARGUMENT, "items 8 bytes");
    assert_int_equal(tt_scan_config_make(1, 5, 1, 4, 0, 1, &c, "f"), TENSOR_ERR_INVALID_ARGUMENT);
    assert_int_equal(tt_scan_config_make(1, 5, 1, 16, 16, 1, &c, "f"), TENSOR_ERR_INVALID_ARGUMENT);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_contig_plan),
    cmocka_unit_test(test_strided_plan),
    cmocka_unit_test(test_errors),
};

TENSOR_TEST_GROUP(scan_config, tests, NULL, NULL)
