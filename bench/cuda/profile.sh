#!/usr/bin/env bash
# Nsight Compute side by side: for each case, our tensor_sum kernel(s) and torch.sum's, with
# the metrics that explain a time gap (duration, DRAM bytes and % of peak, grid, block,
# registers, achieved occupancy, instructions). One ncu process per case and engine, so each
# CSV row is known to belong to its case. Needs a CUDA build tree with bench_sum built
# (bench/cuda/run.sh builds it).
# Usage: BUILD_DIR=build/device OUT=... CASES=seed_gdb,seed_mid bash bench/cuda/profile.sh
# (EXTRA_CASES=file.json: cases outside the suite, a JSON list in cases.json's format; see cases.py)
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD_DIR:-build/device}
OUT=${OUT:-$PWD/build/device-out}
CASES=${CASES:-seed_tiny,seed_gdb,seed_mid,f16_outer_4096sq,f16_inner_4096sq,outer_4Mx3,i8_full_256M}
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,lts__t_sectors_srcunit_tex_op_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
tmp=$(mktemp -d)
python3 - "$CASES" "$tmp" <<'PY'
import sys
sys.path.insert(0, "bench/cuda")
import cases
names, tmp, by_name = sys.argv[1].split(","), sys.argv[2], cases.by_name()
for n in names:
    c = by_name[n]
    open(f"{tmp}/{n}.txt", "w").write(cases.line(c) + "\n")
    dims = c["dims"] or []
    call = f'x.sum({tuple(dims)}, keepdim={bool(c["keepdim"])})' if dims else "x.sum()"
    open(f"{tmp}/{n}.py", "w").write("import sys, torch\nsys.path.insert(0, 'bench/cuda')\nimport cases\n"
        f"x = cases.torch_input(torch, cases.by_name()[{n!r}], 'cuda')\ntorch.cuda.synchronize()\n"
        f"for _ in range(3): y = {call}\ntorch.cuda.synchronize()\n")
PY
for n in ${CASES//,/ }; do
  "$NCU" --csv --metrics "$METRICS" -k 'regex:reduce|short_rows' --launch-skip 2 --launch-count 2 \
    "$BUILD/bench_sum" "$tmp/$n.txt" 1 >"$tmp/$n.ours.csv" 2>"$tmp/$n.ours.err"
  "$NCU" --csv --metrics "$METRICS" -k 'regex:reduce' --launch-skip 1 --launch-count 2 \
    python3 "$tmp/$n.py" >"$tmp/$n.torch.csv" 2>"$tmp/$n.torch.err"
done
python3 - "$CASES" "$tmp" <<'PY' | tee "$OUT/profile.md"
import csv, io, sys
names, tmp = sys.argv[1].split(","), sys.argv[2]
def rows(path):
    txt = open(path).read()
    i = txt.find('"ID"')
    if i < 0: return {}
    k = {}
    for r in csv.DictReader(io.StringIO(txt[i:])):
        k.setdefault((r["ID"], r["Kernel Name"][:60]), {})[r["Metric Name"]] = r["Metric Value"]
    return k
cols = ["gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
        "launch__grid_size", "launch__block_size", "launch__registers_per_thread",
        "sm__warps_active.avg.pct_of_peak_sustained_active", "smsp__inst_executed.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed"]
short = ["time", "dram rd", "dram wr", "dram %", "grid", "block", "regs", "warps act %", "inst", "sm %"]
print("| case | engine | kernel | " + " | ".join(short) + " |")
print("|---|---|---|" + "---|" * len(short))
for n in names:
    for eng in ("ours", "torch"):
        for (id_, kn), m in rows(f"{tmp}/{n}.{eng}.csv").items():
            print(f"| {n} | {eng} | {kn} | " + " | ".join(m.get(c, "?") for c in cols) + " |")
PY
for n in ${CASES//,/ }; do tail -3 "$tmp/$n.ours.err" "$tmp/$n.torch.err" 2>/dev/null; done | grep -v '^$' | head -20
