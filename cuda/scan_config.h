/* Launch planning of the CUDA scans (cuda/scan_kernel.cuh), host C with no CUDA runtime, so CI
 * tests it without a GPU (tests/cuda_host).
 *
 * A scan runs `nlines` independent lines of `len` elements. Two kernels:
 *   TT_SCAN_CONTIG   every operand dense along the line: a block of TT_SCAN_BLOCK threads scans
 *                    a tile of TT_SCAN_TILE(acc_size) consecutive elements of one line, each warp a
 *                    contiguous stretch, with vector loads; a line longer than a tile is cut
 *                    into tiles chained by decoupled look-back.
 *   TT_SCAN_STRIDED  anything else (the scanned dim is not the innermost, or lines are short):
 *                    a block is tx consecutive lines x ty chunks of ch elements; consecutive
 *                    threads take consecutive lines, so the loads are coalesced along the
 *                    dense dim; a line longer than ty*ch (a slab) is cut into slabs chained by
 *                    look-back per line.
 * Tiles are numbered so that a tile's predecessors along its line have smaller numbers, and
 * blocks take numbers from a counter in launch order: a tile that waits on a predecessor waits
 * on a block that already runs. */
#ifndef TENSOR_CUDA_SCAN_CONFIG_H
#define TENSOR_CUDA_SCAN_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TT_SCAN_BLOCK /* overridable for tuning probes */
#define TT_SCAN_BLOCK 256
#endif
/* Elements per thread of the contiguous kernel: 32 for accumulators of 4 bytes, else 16 (the
 * registers that hold them). Large tiles matter for long lines: the look-back's latency is paid
 * per tile. */
#ifndef TT_SCAN_ITEMS /* overridable for tuning probes (bench/cuda/probes/scan_probe.cu) */
#define TT_SCAN_ITEMS(acc_size) ((acc_size) <= 4 ? 32 : 16)
#endif
#define TT_SCAN_TILE(acc_size) (TT_SCAN_BLOCK * TT_SCAN_ITEMS(acc_size))
#define TT_SCAN_MAX_CH 16 /* elements per thread of the strided kernel */
/* Lines at least this long take the contiguous kernel when they are dense: shorter ones would
 * leave most of a tile's threads idle. */
#define TT_SCAN_CONTIG_MIN_LEN 2048
/* Blocks launched at most; each takes tiles until none is left. */
#define TT_SCAN_MAX_GRID 1048576

enum { TT_SCAN_CONTIG = 0, TT_SCAN_STRIDED = 1 };

typedef struct tt_scan_config {
    int variant;
    int64_t nlines, len;
    int64_t tiles_per_line; /* CONTIG */
    int tx, ty, ch;         /* STRIDED: lines per block, chunks per line, elements per chunk */
    int64_t ngroups;        /* STRIDED: blocks across the lines */
    int64_t nslabs;         /* STRIDED: blocks along a line */
    int64_t ntiles;         /* tiles in all */
    int lookback;           /* tiles chained along a line (state buffer and tile counter needed) */
    int lane_per_line;      /* STRIDED look-back: a thread per line (a line's tiles are far apart
                               in launch order, so its predecessors are usually done), else a
                               warp per line reading 32 predecessors at once */
    unsigned grid;
    /* The look-back state (lookback only), offsets in bytes from the start of one buffer: a
     * 16-byte tile counter, then per record (a tile of a line)
     *   packed (4-byte accumulators, and int64 ones whose values fit 62 bits): one 64-bit
     *     word, the flag beside the value, so that a single load sees both (at flags_offset);
     *   else: a 32-bit flag (the flags rounded to 16 bytes), and an aggregate and an inclusive
     *     prefix of acc_size bytes each (at agg_offset, incl_offset).
     * The counter and the flags (or packed words) are zeroed before each launch. */
    int packed;
    size_t flags_offset, agg_offset, incl_offset, state_bytes, zero_bytes;
} tt_scan_config;

/* Plans a scan of nlines lines of len elements (both >= 1); dense: every operand's elements
 * are adjacent along the line; acc_size: bytes of the kernel's accumulator (the look-back's
 * records); item_size: bytes the contiguous kernel keeps per element (its tile is
 * TT_SCAN_TILE(item_size); acc_size unless the Op has narrower items, at most acc_size);
 * packed: the records are 64-bit words holding flag and value (4-byte accumulators, and int64
 * ones whose values fit 62 bits; acc_size at most 8). Errors (an element count or a state size
 * that overflows) name func. */
tensor_status tt_scan_config_make(int64_t nlines, int64_t len, int dense, size_t acc_size, size_t item_size,
                                  int packed, tt_scan_config *cfg, const char *func);

#ifdef __cplusplus
}
#endif
#endif
