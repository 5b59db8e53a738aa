/* Launch planning of the CUDA scans: cuda/scan_config.h. */
#include <string.h>

#include "cuda/scan_config.h"
#include "runtime/error.h"

static int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

static int pow2_at_least(int64_t n, int cap) {
    int p = 1;
    while (p < n && p < cap) p *= 2;
    return p;
}

tensor_status tt_scan_config_make(int64_t nlines, int64_t len, int dense, size_t acc_size, size_t item_size,
                                  int packed, tt_scan_config *cfg, const char *func) {
    if (cfg == NULL) return tensor_error(TENSOR_ERR_INVALID_ARGUMENT, "%s: argument 'cfg' is NULL", func);
    memset(cfg, 0, sizeof *cfg);
    if (nlines < 1 || len < 1 || acc_size == 0 || acc_size > 64 || item_size == 0 || item_size > acc_size ||
        (packed && acc_size > 8))
        return tensor_error(TENSOR_ERR_INVALID_ARGUMENT,
                            "%s: a scan of %lld lines of %lld elements (accumulator %zu bytes, items %zu bytes)", func,
                            (long long)nlines, (long long)len, acc_size, item_size);
    if (nlines > INT64_MAX / len)
        return tensor_error(TENSOR_ERR_OVERFLOW, "%s: %lld lines of %lld elements overflow int64", func,
                            (long long)nlines, (long long)len);
    cfg->nlines = nlines;
    cfg->len = len;
    if (dense && len >= TT_SCAN_CONTIG_MIN_LEN) {
        cfg->variant = TT_SCAN_CONTIG;
        cfg->tiles_per_line = ceil_div(len, TT_SCAN_TILE(item_size));
        cfg->ntiles = nlines * cfg->tiles_per_line; /* <= nlines * len */
        cfg->lookback = cfg->tiles_per_line > 1;
    } else {
        cfg->variant = TT_SCAN_STRIDED;
        cfg->ch = (int)(len < TT_SCAN_MAX_CH ? len : TT_SCAN_MAX_CH);
        const int64_t chunks = ceil_div(len, cfg->ch);
        /* Up to 8 chunks of a line per block; the rest of the block's threads go across lines
         * (at least a warp of them when there are that many lines, for coalesced loads). */
        cfg->ty = (int)(chunks < 8 ? chunks : 8);
        cfg->tx = TT_SCAN_BLOCK / cfg->ty;
        if (nlines < cfg->tx) {
            cfg->tx = pow2_at_least(nlines, TT_SCAN_BLOCK);
            const int64_t ty_max = TT_SCAN_BLOCK / cfg->tx;
            cfg->ty = (int)(chunks < ty_max ? chunks : ty_max);
        }
        cfg->ngroups = ceil_div(nlines, cfg->tx);
        cfg->nslabs = ceil_div(len, (int64_t)cfg->ty * cfg->ch);
        if (cfg->ngroups > INT64_MAX / cfg->nslabs)
            return tensor_error(TENSOR_ERR_OVERFLOW, "%s: too many tiles", func);
        cfg->ntiles = cfg->ngroups * cfg->nslabs;
        cfg->lookback = cfg->nslabs > 1;
        cfg->lane_per_line = cfg->ngroups >= 32;
    }
    cfg->grid = (unsigned)(cfg->ntiles < TT_SCAN_MAX_GRID ? cfg->ntiles : TT_SCAN_MAX_GRID);
    if (cfg->lookback) {
        /* One record per (line, tile along it); strided tiles count the group's lines. */
        const int64_t records = cfg->variant == TT_SCAN_CONTIG ? cfg->ntiles : nlines * cfg->nslabs;
        const uint64_t flag_bytes = ((uint64_t)records * 4 + 15) / 16 * 16;
        if ((uint64_t)records > (SIZE_MAX / 4) / (2 * acc_size + 4))
            return tensor_error(TENSOR_ERR_OVERFLOW, "%s: the look-back state of %lld tiles overflows", func,
                                (long long)records);
        cfg->flags_offset = 16;
        cfg->packed = packed != 0;
        if (cfg->packed) {
            cfg->agg_offset = cfg->incl_offset = 16;
            cfg->state_bytes = cfg->zero_bytes = 16 + (size_t)records * 8;
        } else {
            cfg->agg_offset = 16 + (size_t)flag_bytes;
            cfg->incl_offset = cfg->agg_offset + (size_t)records * acc_size;
            cfg->state_bytes = cfg->incl_offset + (size_t)records * acc_size;
            cfg->zero_bytes = cfg->agg_offset; /* the counter and the flags */
        }
    }
    return TENSOR_OK;
}
