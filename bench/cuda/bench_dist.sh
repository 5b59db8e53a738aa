#!/usr/bin/env bash
# The dist module's targets on a machine with 2 or more GPUs, ours and torch's in the same run,
# on GPUs 0 and 1:
#  - all-reduce of 256 MiB float32: tensor_dist_all_reduce (one rank per process through
#    scripts/dist-launch.sh, as torch; and one process driving both GPUs) against
#    torch.distributed.all_reduce (NCCL), bus bandwidth; target >= 95% of torch's
#  - the full sum of 2^30 float32 sharded in halves over 2 GPUs against the same sum on one GPU;
#    target >= 1.8x
#  - the mean over dim 1 of [65536, 16384] float32 sharded on dim 0, likewise; target >= 1.8x
# Usage (after a CUDA build): BUILD_DIR=build/device OUT=... bash bench/cuda/bench_dist.sh
# Writes $OUT/bench_dist.md (the table) and $OUT/bench_dist.jsonl (the raw lines).
# TENSOR_NCCL_LIBRARY defaults to scripts/nccl-path.sh's answer (torch's NCCL when it has one,
# so both sides run the same NCCL).
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD_DIR:-build/device}
OUT=${OUT:-$PWD/build/device-out}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$OUT"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${ngpu:-0}" -lt 2 ]; then
  echo "bench_dist: needs 2 GPUs, found ${ngpu:-0}: skipped"
  exit 77
fi
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0,1}
if [ -z "${TENSOR_NCCL_LIBRARY:-}" ]; then
  TENSOR_NCCL_LIBRARY=$(bash scripts/nccl-path.sh) || { echo "bench_dist: no libnccl.so.2 found"; exit 1; }
  export TENSOR_NCCL_LIBRARY
fi
echo "bench_dist: NCCL for tinytensor: $TENSOR_NCCL_LIBRARY"

gcc -O2 -std=c11 bench/cuda/bench_dist.c -I. -Iinclude -I"$BUILD/generated" -I"$CUDA_HOME/include" \
  "$BUILD/libtinytensor.a" -L"$CUDA_HOME/lib64" -lcudart -lstdc++ -lgomp -lm -lpthread -ldl -o "$BUILD/bench_dist" || exit 1

raw=$OUT/bench_dist.jsonl
: >"$raw"
run() { echo "+ $*" >&2; "$@" | tee /dev/stderr | grep '^{' >>"$raw"; }
run python3 bench/cuda/bench_dist_torch.py allreduce 2 256 20 10
run bash -c "scripts/dist-launch.sh -n 2 '$BUILD/bench_dist' allreduce 256 20 10 | sed 's/^\[rank [0-9]*\] //'"
run "$BUILD/bench_dist" allreduce-local 256 20 10
run "$BUILD/bench_dist" sum 30 20
run python3 bench/cuda/bench_dist_torch.py sum 30 20
run "$BUILD/bench_dist" mean 65536 16384 20
run python3 bench/cuda/bench_dist_torch.py mean 65536 16384 20

python3 - "$raw" "$OUT/bench_dist.md" <<'PY'
import json, subprocess, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def find(case, **kw):
    for r in rows:
        if r.get("case") == case and all(r.get(k) == v for k, v in kw.items()):
            return r
    return None
try:
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True).stdout.split("\n")[0]
except OSError:
    gpu = "GPU"
out = [f"## dist targets ({gpu} x2, same run)", ""]
t = find("allreduce", impl="torch")
out += ["| all-reduce, 256 MiB float32, 2 GPUs | time (ms) | bus bandwidth (GB/s) | of torch's |", "| --- | ---: | ---: | ---: |"]
if t:
    out.append(f"| torch.distributed.all_reduce (NCCL {t.get('nccl', '?')}, torch {t.get('torch', '?')}) | {t['ms']:.3f} | {t['busbw']:.1f} | 100% |")
for mode in ("one rank per process", "one process"):
    r = find("allreduce", impl="tinytensor", mode=mode)
    if r:
        share = f"{100 * r['busbw'] / t['busbw']:.1f}%" if t else "?"
        out.append(f"| tensor_dist_all_reduce, {mode} | {r['ms']:.3f} | {r['busbw']:.1f} | {share} |")
out += ["", "Target: at least 95% of torch's bus bandwidth.", ""]
out += ["| sharded reduction | one GPU (ms) | two GPUs (ms) | speedup | torch, one GPU (ms) |", "| --- | ---: | ---: | ---: | ---: |"]
for case, label in (("sum", "sum of 2^30 float32, all dims, halves on 2 GPUs"), ("mean", "mean over dim 1 of [65536, 16384] float32, sharded on dim 0")):
    r = next((x for x in rows if x.get("case") == case and "speedup" in x), None)
    tt = find(case, impl="torch")
    if r:
        out.append(f"| {label} | {r['ms_one_gpu']:.3f} | {r['ms_two_gpus']:.3f} | {r['speedup']:.2f}x | {tt['ms_one_gpu']:.3f} |" if tt else
                   f"| {label} | {r['ms_one_gpu']:.3f} | {r['ms_two_gpus']:.3f} | {r['speedup']:.2f}x | - |")
out += ["", "Target: at least 1.8x. Times are from the call to every GPU used having synchronised (the all-gather of the partials and the fold included), medians."]
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
