"""The cases of the vecdot benchmarks (bench_vecdot.py times them, profile_vecdot.py profiles
them) and their inputs, in one place."""


def lists(torch):
    """(CASES, SWEEP): tuples (name, shape of a, shape of b, dim, dtype[, "ta" | "tb"])."""
    # name, shape of a, shape of b, dim, dtype
    CASES = [
        ("f32_8192sq_dim1", [8192, 8192], [8192, 8192], 1, torch.float32),
        ("f32_4096sq_dim0", [4096, 4096], [4096, 4096], 0, torch.float32),
        ("f32_1Mx32_dim1", [1048576, 32], [1048576, 32], 1, torch.float32),
        ("f32_1000x8192_dim1", [1000, 8192], [1000, 8192], 1, torch.float32),
        ("f32_1000x8192_b8192_dim1", [1000, 8192], [8192], 1, torch.float32),
        ("f32_65536x1024_dim1", [65536, 1024], [65536, 1024], 1, torch.float32),
        ("f32_16384x2048_dim1", [16384, 2048], [16384, 2048], 1, torch.float32),
        ("f32_32768x512_dim1", [32768, 512], [32768, 512], 1, torch.float32),
        ("f32_1024x65536_dim0", [1024, 65536], [1024, 65536], 0, torch.float32),
        ("f16_8192sq_dim1", [8192, 8192], [8192, 8192], 1, torch.float16),
        ("bf16_4096sq_dim0", [4096, 4096], [4096, 4096], 0, torch.bfloat16),
        # one output (a 1-D dot), a few long rows, a middle dim, b broadcast along the reduced dim
        ("f32_16M_dot", [16777216], [16777216], 0, torch.float32),
        ("f32_1M_dot", [1048576], [1048576], 0, torch.float32),
        ("f32_64x1M_dim1", [64, 1048576], [64, 1048576], 1, torch.float32),
        ("f32_64x512x512_dim1", [64, 512, 512], [64, 512, 512], 1, torch.float32),
        ("f32_8192sq_b8192x1_dim1", [8192, 8192], [8192, 1], 1, torch.float32),
        ("f16_4096x8192_b8192_dim1", [4096, 8192], [8192], 1, torch.float16),
        # b constant along the outputs of an outer reduction (a weighted sum of rows)
        ("f32_4096sq_b4096x1_dim0", [4096, 4096], [4096, 1], 0, torch.float32),
        ("f32_64x512x512_b64x512x1_dim1", [64, 512, 512], [64, 512, 1], 1, torch.float32),
        # float64 columns of a width that takes two outputs a load (the OVS 2 kernel)
        ("f64_4096x4098_dim0", [4096, 4098], [4096, 4098], 0, torch.float64),
        ("f64_4096x4098_b4096x1_dim0", [4096, 4098], [4096, 1], 0, torch.float64),
    ]
    # VECDOT_SET=sweep: shapes the planner was not tuned on, to find where it falls behind. A sixth
    # field "ta" makes a the transpose of a contiguous tensor of the shape given ("tb": b).
    SWEEP = [
        ("s_f32_2048x4096_dim1", [2048, 4096], [2048, 4096], 1, torch.float32),
        ("s_f32_4000x3000_dim1", [4000, 3000], [4000, 3000], 1, torch.float32),
        ("s_f32_100000x100_dim1", [100000, 100], [100000, 100], 1, torch.float32),
        ("s_f32_262144x64_dim1", [262144, 64], [262144, 64], 1, torch.float32),
        ("s_f32_2Mx16_dim1", [2097152, 16], [2097152, 16], 1, torch.float32),
        ("s_bf16_8192x4096_dim1", [8192, 4096], [8192, 4096], 1, torch.bfloat16),
        ("s_f16_16384x1024_dim1", [16384, 1024], [16384, 1024], 1, torch.float16),
        ("s_f32_128x262144_dim1", [128, 262144], [128, 262144], 1, torch.float32),
        ("s_f32_8x2M_dim1", [8, 2097152], [8, 2097152], 1, torch.float32),
        ("s_f32_1000x8192_b1x8192_dim1", [1000, 8192], [1, 8192], -1, torch.float32),
        ("s_bf16_4096x8192_b8192_dim1", [4096, 8192], [8192], 1, torch.bfloat16),
        ("s_f64_4096sq_dim1", [4096, 4096], [4096, 4096], 1, torch.float64),
        ("s_i32_4096sq_dim1", [4096, 4096], [4096, 4096], 1, torch.int32),
        ("s_f32_8192x2048_dim0", [8192, 2048], [8192, 2048], 0, torch.float32),
        ("s_f32_2048x8192_dim0", [2048, 8192], [2048, 8192], 0, torch.float32),
        ("s_f32_65536x256_dim0", [65536, 256], [65536, 256], 0, torch.float32),
        ("s_f16_8192x4096_dim0", [8192, 4096], [8192, 4096], 0, torch.float16),
        ("s_f32_100000x100_dim0", [100000, 100], [100000, 100], 0, torch.float32),
        ("s_f32_4096sq_b4096_dim0", [4096, 4096], [4096], 0, torch.float32),
        ("s_f32_256c_dim1", [256, 256, 256], [256, 256, 256], 1, torch.float32),
        ("s_f32_256c_dim0", [256, 256, 256], [256, 256, 256], 0, torch.float32),
        ("s_f32_32x1024x1024_dim1", [32, 1024, 1024], [32, 1024, 1024], 1, torch.float32),
        ("s_f32_1024x64x256_dim1", [1024, 64, 256], [1024, 64, 256], 1, torch.float32),
        ("s_f32_64x1024x256_dimm1", [64, 1024, 256], [64, 1024, 256], -1, torch.float32),
        ("s_f32_4M_dot", [4194304], [4194304], 0, torch.float32),
        ("s_f32_3M_dot", [3000000], [3000000], 0, torch.float32),
        ("s_bf16_8M_dot", [8388608], [8388608], 0, torch.bfloat16),
        ("s_f32_64K_dot", [65536], [65536], 0, torch.float32),
        ("s_f32_t4096x8192_dim1", [8192, 4096], [4096, 8192], 1, torch.float32, "ta"),
        ("s_bf16_t8192x4096_dim1", [4096, 8192], [8192, 4096], 1, torch.bfloat16, "ta"),
        ("s_f32_4096x8192_tb_dim0", [4096, 8192], [8192, 4096], 0, torch.float32, "tb"),
        ("s_f32_t64x1M_dim1", [1048576, 64], [64, 1048576], 1, torch.float32, "ta"),
        ("s_f32_t3000x5000_dim1", [5000, 3000], [3000, 5000], 1, torch.float32, "ta"),
    ]
    return CASES, SWEEP


def ints(torch):
    """VECDOT_SET=ints: integer dtypes of 8 to 64 bits (the products wrap in the inputs' dtype,
    the sums are int64), over rows, columns and one output."""
    return [
        ("i_i8_4096sq_dim1", [4096, 4096], [4096, 4096], 1, torch.int8),
        ("i_u8_8192x4096_dim1", [8192, 4096], [8192, 4096], 1, torch.uint8),
        ("i_i16_4096sq_dim1", [4096, 4096], [4096, 4096], 1, torch.int16),
        ("i_i64_4096sq_dim1", [4096, 4096], [4096, 4096], 1, torch.int64),
        ("i_i8_8192x4096_dim0", [8192, 4096], [8192, 4096], 0, torch.int8),
        ("i_i16_4096sq_dim0", [4096, 4096], [4096, 4096], 0, torch.int16),
        ("i_i8_16M_dot", [16777216], [16777216], 0, torch.int8),
        ("i_i32_2000x6000_dim1", [2000, 6000], [2000, 6000], 1, torch.int32),
        ("i_i32_8000x1500_b1500_dim1", [8000, 1500], [1500], 1, torch.int32),
        ("i_i8_6000x3000_dim1", [6000, 3000], [6000, 3000], 1, torch.int8),
        ("i_u8_3000x8000_dim1", [3000, 8000], [3000, 8000], 1, torch.uint8),
        ("i_i32_1000x8192_b8192_dim1", [1000, 8192], [8192], 1, torch.int32),
    ]


def layouts(torch):
    """VECDOT_SET=layouts: inputs of two layouts (one contiguous along the outputs, the other
    along the reduced dim: a.t() x b over dim 1, a x b.t() over dim 0), from 16 to 1024 outputs,
    outputs and reduced lengths that are not multiples of a tile, every dtype size."""
    f32, f64, bf16 = torch.float32, torch.float64, torch.bfloat16
    return [
        ("l_f32_t16x4M_dim1", [4194304, 16], [16, 4194304], 1, f32, "ta"),
        ("l_f32_t32x2M_dim1", [2097152, 32], [32, 2097152], 1, f32, "ta"),
        ("l_f32_t64x1M_dim1", [1048576, 64], [64, 1048576], 1, f32, "ta"),
        ("l_f32_t128x512K_dim1", [524288, 128], [128, 524288], 1, f32, "ta"),
        ("l_f32_t256x256K_dim1", [262144, 256], [256, 262144], 1, f32, "ta"),
        ("l_f32_t512x128K_dim1", [131072, 512], [512, 131072], 1, f32, "ta"),
        ("l_f32_t1024x64K_dim1", [65536, 1024], [1024, 65536], 1, f32, "ta"),
        ("l_f32_t100x700001_dim1", [700001, 100], [100, 700001], 1, f32, "ta"),
        ("l_f32_t40x20000_dim1", [20000, 40], [40, 20000], 1, f32, "ta"),
        ("l_f32_1Mx64_tb_dim0", [1048576, 64], [64, 1048576], 0, f32, "tb"),
        ("l_bf16_t64x1M_dim1", [1048576, 64], [64, 1048576], 1, bf16, "ta"),
        ("l_bf16_t128x512K_dim1", [524288, 128], [128, 524288], 1, bf16, "ta"),
        ("l_f64_t64x1M_dim1", [1048576, 64], [64, 1048576], 1, f64, "ta"),
        ("l_i8_t64x1M_dim1", [1048576, 64], [64, 1048576], 1, torch.int8, "ta"),
    ]


def rows(torch):
    """VECDOT_SET=rows: contiguous rows of one to a few thousand elements over dim 1, lengths
    that are not a power of two and rows of 16-bit values times a broadcast row, where a CTA a
    row lives a few microseconds and its start and fold weigh most."""
    f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16
    return [
        ("r_f32_8000x1500_dim1", [8000, 1500], [8000, 1500], 1, f32),
        ("r_f32_5000x2500_dim1", [5000, 2500], [5000, 2500], 1, f32),
        ("r_f32_2500x5000_dim1", [2500, 5000], [2500, 5000], 1, f32),
        ("r_f32_2000x6000_dim1", [2000, 6000], [2000, 6000], 1, f32),
        ("r_f32_1000x12000_dim1", [1000, 12000], [1000, 12000], 1, f32),
        ("r_f32_3000x4000_b4000_dim1", [3000, 4000], [4000], 1, f32),
        ("r_f16_6000x3000_dim1", [6000, 3000], [6000, 3000], 1, f16),
        ("r_bf16_4000x6000_b6000_dim1", [4000, 6000], [6000], 1, bf16),
        ("r_f16_2048x16384_b16384_dim1", [2048, 16384], [16384], 1, f16),
        ("r_i16_6000x3000_dim1", [6000, 3000], [6000, 3000], 1, torch.int16),
        ("r_i32_4000x3000_dim1", [4000, 3000], [4000, 3000], 1, torch.int32),
        ("r_f32_3000x3001_dim1", [3000, 3001], [3000, 3001], 1, f32),
        ("r_f16_4000x5001_b5001_dim1", [4000, 5001], [5001], 1, f16),
        ("r_f32_1000x8191_b8191_dim1", [1000, 8191], [8191], 1, f32),
        ("r_bf16_3000x3001_b3001_dim1", [3000, 3001], [3001], 1, bf16),
    ]


def odd(torch):
    """VECDOT_SET=odd: rows whose inputs do not start alike modulo a 16-byte vector, so that one
    is read by elements within the other's vectors: rows of odd length times a broadcast row, and
    a starting one element into its buffer ("off1") beside an aligned b."""
    f32, f16, bf16 = torch.float32, torch.float16, torch.bfloat16
    return [
        ("o_f16_2000x7003_b7003_dim1", [2000, 7003], [7003], 1, f16),
        ("o_bf16_8000x1001_b1001_dim1", [8000, 1001], [1001], 1, bf16),
        ("o_f16_1000x20001_b20001_dim1", [1000, 20001], [20001], 1, f16),
        ("o_f32_4000x2001_b2001_dim1", [4000, 2001], [2001], 1, f32),
        ("o_f32_2000x12001_b12001_dim1", [2000, 12001], [12001], 1, f32),
        ("o_bf16_4000x4000_off1_dim1", [4000, 4000], [4000, 4000], 1, bf16, "off1"),
        ("o_f32_4000x4000_off1_dim1", [4000, 4000], [4000, 4000], 1, f32, "off1"),
        ("o_f16_8M_dot_off1", [8388608], [8388608], 0, f16, "off1"),
    ]


def make_inputs(torch, case, dev):
    """(a, b, dim) of a case: uniform in [-0.5, 0.5) for floating dtypes, integers in [-8, 8)
    otherwise ([0, 16) for uint8), the same every run; "ta" / "tb" make a / b the transpose of a contiguous tensor
    of the shape given; "off1" makes a start one element into its buffer."""
    name, sa, sb, dim, dt, *flags = case
    g = torch.Generator(device=dev).manual_seed(0)
    if dt.is_floating_point:
        a = torch.rand(sa, device=dev, generator=g, dtype=torch.float32).to(dt) - 0.5
        b = torch.rand(sb, device=dev, generator=g, dtype=torch.float32).to(dt) - 0.5
    else:
        lo = 0 if dt == torch.uint8 else -8
        a = torch.randint(lo, lo + 16, sa, device=dev, generator=g, dtype=dt)
        b = torch.randint(lo, lo + 16, sb, device=dev, generator=g, dtype=dt)
    if "off1" in flags:
        buf = torch.empty(a.numel() + 1, device=dev, dtype=dt)
        buf[1:].copy_(a.reshape(-1))
        a = buf[1:].view(sa)
    return (a.t() if "ta" in flags else a), (b.t() if "tb" in flags else b), dim
