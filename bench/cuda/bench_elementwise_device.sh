#!/usr/bin/env bash
# One device call for the elementwise engine: build (Release, CUDA sm_90), every ctest test,
# the elementwise benchmark against torch, then compute-sanitizer memcheck + racecheck over
# test_cuda (TENSOR_TEST_QUICK=1). A narrower scripts/device.sh (no reduction benchmark).
# Usage (device tool): bash bench/cuda/bench_elementwise_device.sh   (logs and tables in $OUT)
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-$PWD/build/device-out}
BUILD=${BUILD_DIR:-build/device}
mkdir -p "$OUT"
S=$OUT/summary.txt
: >"$S"
say() { echo "$*" | tee -a "$S"; }
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
args=()
if [ ! -f /usr/include/cmocka.h ]; then
  for f in .deps/libcmocka*.deb; do dpkg -x "$f" /tmp/cmocka; done
  args=(-DCMOCKA_ROOT=/tmp/cmocka/usr)
fi
t0=$(date +%s)
if cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTENSOR_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
     -DTENSOR_WERROR=OFF "${args[@]}" >"$OUT/build.log" 2>&1 && cmake --build "$BUILD" -j 16 ${BUILD_TARGETS:+--target $BUILD_TARGETS} >>"$OUT/build.log" 2>&1; then
  say "build: OK ($(($(date +%s) - t0)) s), $(grep -c 'warning:' "$OUT/build.log") warning(s)"
  grep 'warning:' "$OUT/build.log" | sort -u | head -5 | tee -a "$S"
else
  say "build: FAILED"; grep -E 'error' "$OUT/build.log" | head -30; exit 1
fi
t0=$(date +%s)
(cd "$BUILD" && timeout ${CTEST_TIMEOUT:-220} ctest --output-on-failure --timeout 200 ${CTEST_ARGS:-}) >"$OUT/ctest.log" 2>&1
say "ctest: rc=$? ($(($(date +%s) - t0)) s): $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1)"
grep -E '^ *[0-9]+/[0-9]+ Test' "$OUT/ctest.log" | tee -a "$S"
grep -E 'FAILED|fail|Error' "$OUT/ctest.log" | head -20 | tee -a "$S"
t0=$(date +%s)
BUILD_DIR=$BUILD OUT=$OUT bash bench/cuda/bench_elementwise.sh "${BENCH_REPS:-30}" >"$OUT/bench_elementwise.log" 2>&1
say "bench_elementwise: rc=$? ($(($(date +%s) - t0)) s)"
cat "$OUT/bench_elementwise.md" 2>/dev/null || tail -20 "$OUT/bench_elementwise.log"
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
for tool in memcheck racecheck; do
  extra=(); [ $tool = memcheck ] && extra=(--leak-check full); [ $tool = racecheck ] && extra=(--racecheck-report analysis)
  t0=$(date +%s)
  TENSOR_TEST_QUICK=1 timeout ${SAN_TIMEOUT:-100} "$SAN" --tool $tool "${extra[@]}" "$BUILD/tests/test_cuda" >"$OUT/$tool.log" 2>&1
  say "$tool test_cuda: rc=$? ($(($(date +%s) - t0)) s): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool.log" | tail -1); API notes: $(grep -c 'Program hit' "$OUT/$tool.log")"
  grep 'Program hit' "$OUT/$tool.log" | sed 's/^=* *//' | sort | uniq -c | head -5 | tee -a "$S"
done
