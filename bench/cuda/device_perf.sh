#!/usr/bin/env bash
# One device call for CUDA performance work: build (Release, CUDA sm_90, ptxas spill warnings),
# the CUDA benchmark FIRST (bench/cuda/run.sh: ours vs torch.sum, host cost), then every ctest
# test and compute-sanitizer memcheck + racecheck over the CUDA test executables, as
# scripts/device.sh does (which runs the benchmark last: a slow build can push it past the
# device tool's time limit). At most 8 files under $OUT (the tool's limit): summary.txt,
# bench_cuda.md, bench_cuda.json, host_cost.txt, build_tail.log, ctest.log, memcheck.log, racecheck.log.
# Usage (device tool, from a carried tree): OUT=... bash bench/cuda/device_perf.sh [REPS]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/build/device-out}
BUILD=${BUILD_DIR:-build/device}
mkdir -p "$OUT" "$(dirname "$BUILD")"
S=$OUT/summary.txt
: >"$S"
say() { echo "$*" | tee -a "$S"; }
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
cm=()
if [ ! -f /usr/include/cmocka.h ]; then
  for f in .deps/libcmocka*.deb; do dpkg -x "$f" /tmp/cmocka; done
  cm=(-DCMOCKA_ROOT=/tmp/cmocka/usr)
fi
t0=$(date +%s)
CUDAFLAGS="-Xptxas -warn-spills --resource-usage" cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTENSOR_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DTENSOR_WERROR=OFF "${cm[@]}" >"$BUILD.log" 2>&1
if cmake --build "$BUILD" -j 16 >>"$BUILD.log" 2>&1; then
  say "build: OK ($(($(date +%s) - t0)) s), spill warnings: $(grep -c 'spilled' "$BUILD.log")"
  grep 'spilled' "$BUILD.log" | grep -oE "(short_rows_kernel|reduce_kernel)I[^ ']*" | sed 's/_GLOBAL__N__[0-9a-f_]*//' | head -12 | tee -a "$S"
  tail -5 "$BUILD.log" >"$OUT/build_tail.log"
  # Registers of the sum kernels the benchmark runs (float32, float16 in, float32 accumulators).
  for k in 'reduce_kernelI.*SumF32EffEELi1E' 'reduce_kernelI.*SumF32EffEELi4E' 'reduce_kernelI.*SumF32ENS1_4HalfES4_EELi8E' \
           'reduce_kernelI.*SumF32ENS1_4HalfES4_EELi1E' 'short_rows_kernelI.*SumF32EffEE' 'short_rows_kernelI.*SumF32ENS1_4HalfES4_EE'; do
    r=$(grep -A4 "Compiling entry function '_ZN9tt_reduce[0-9]*$k" "$BUILD.log" | grep -m1 -oE 'Used [0-9]+ registers')
    say "  $k: ${r:-?}"
  done
else
  say "build: FAILED"
  tail -60 "$BUILD.log" | tee "$OUT/build_tail.log"
  exit 1
fi
t0=$(date +%s)
BUILD_DIR=$BUILD OUT=$OUT bash bench/cuda/run.sh "${1:-30}" >"$BUILD/bench.log" 2>&1
say "bench: rc=$? ($(($(date +%s) - t0)) s)"
tail -12 "$BUILD/bench.log" | tee -a "$S"
rm -f "$OUT"/cases_*.txt
t0=$(date +%s)
(cd "$BUILD" && ctest --output-on-failure --timeout 600) >"$OUT/ctest.log" 2>&1
say "ctest: rc=$? ($(($(date +%s) - t0)) s): $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1)"
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
for tool in memcheck racecheck; do
  extra=(); [ $tool = memcheck ] && extra=(--leak-check full); [ $tool = racecheck ] && extra=(--racecheck-report analysis)
  t0=$(date +%s)
  TENSOR_TEST_QUICK=1 "$SAN" --tool $tool "${extra[@]}" "$BUILD/tests/test_cuda" >"$OUT/$tool.log" 2>&1
  say "$tool test_cuda: rc=$? ($(($(date +%s) - t0)) s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool.log" | tail -1); API-error notes: $(grep -c 'Program hit' "$OUT/$tool.log")"
done
wait
