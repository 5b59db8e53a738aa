#!/usr/bin/env bash
# Everything that needs the GPU, in one run on the device machine: build (Release, CUDA, sm_90),
# every ctest test (the GPU ones for real), compute-sanitizer memcheck, racecheck, initcheck and
# synccheck over the
# CUDA test executables, then bench/run_device.sh when it exists.
#
# The device machine has no package registry: run scripts/fetch-device-deps.sh here first, then
# through the device tool, from the repository root:
#     run(command="bash scripts/device.sh", carry=[".deps"])
# Logs go to $OUT (the device tool brings back at most 8 files), a short summary to stdout.
# Knobs (environment): BUILD_DIR, JOBS, CMAKE_EXTRA, CTEST_TIMEOUT, SAN_TIMEOUT, SAN_TOOLS (default
# "memcheck racecheck initcheck synccheck"), BENCH_REPS, and
# PROFILE=1 (bench/cuda/profile.sh after the benchmarks), SKIP_TESTS / SKIP_SAN / SKIP_BENCH = 1 to leave a step out (split a long run over two calls:
# the build folder stays on a warm machine).
# Exit status: 0 when the build, ctest and both sanitizers passed, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."

OUT=${OUT:-$PWD/build/device-out}
BUILD=${BUILD_DIR:-build/device}
JOBS=${JOBS:-16}
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
failed=0
# The device tool brings back at most 8 files: on exit, everything but the summary and the
# tables goes into one archive, logs.tgz.
pack_logs() {
  (cd "$OUT" && ls | grep -vxE 'summary.txt|bench_cuda.md|bench_elementwise.md|bench_dist.md|profile.md|logs.tgz' |
     tar czf logs.tgz --remove-files -T - 2>/dev/null)
}
trap pack_logs EXIT

# ---- the machine ----
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv,noheader 2>&1
  nvcc --version 2>&1 | tail -2
  cmake --version 2>&1 | head -1
  command -v compute-sanitizer || echo "compute-sanitizer: not on PATH"
  uname -r
} >"$OUT/env.txt" 2>&1
say "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

# ---- CMocka: the system's if there is one, else the carried Debian packages ----
cmocka_args=()
if [ ! -f /usr/include/cmocka.h ]; then
  prefix=/tmp/cmocka
  debs=(.deps/libcmocka*.deb)
  if [ ! -f "${debs[0]}" ]; then
    say "FAIL: no CMocka here and no .deps/libcmocka*.deb: run scripts/fetch-device-deps.sh and carry .deps"
    exit 1
  fi
  for f in "${debs[@]}"; do dpkg -x "$f" "$prefix"; done
  # tests/CMakeLists.txt looks under CMOCKA_ROOT when neither a CMake config nor pkg-config
  # finds CMocka. Not CMAKE_PREFIX_PATH: pkg_check_modules would then read the packages'
  # cmocka.pc, which says -I/usr/include, and the build would look for cmocka.h there.
  cmocka_args=(-DCMOCKA_ROOT="$prefix/usr")
fi

# ---- build ----
t0=$(date +%s)
# Warnings are not errors here: this machine's compiler is not CI's, and a new warning should
# not cost the GPU run. They are counted and listed in the summary instead.
if cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTENSOR_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
     -DTENSOR_WERROR=OFF "${cmocka_args[@]}" ${CMAKE_EXTRA:-} >"$OUT/build.log" 2>&1 &&
   cmake --build "$BUILD" -j "$JOBS" >>"$OUT/build.log" 2>&1; then
  say "build: OK ($(($(date +%s) - t0)) s), $(grep -c 'warning:' "$OUT/build.log") warning(s)"
  grep 'warning:' "$OUT/build.log" | sort -u | head -10 | sed 's/^/  /' | tee -a "$SUMMARY"
  lib=$(readlink -f "$BUILD/libtinytensor.so")
  say "library: $(basename "$lib") $(stat -c %s "$lib") bytes, libtinytensor.a $(stat -c %s "$BUILD/libtinytensor.a") bytes"
  if command -v cuobjdump >/dev/null; then
    say "kernels (cuobjdump -res-usage): $(cuobjdump -res-usage "$lib" 2>/dev/null | grep -c 'Function ') in all," \
        "$(cuobjdump -res-usage "$lib" 2>/dev/null | grep 'Function ' | grep -cE 'reduce_kernel|short_rows_kernel') reduction"
  fi
else
  say "build: FAILED (last lines of build.log follow)"
  tail -40 "$OUT/build.log"
  exit 1
fi

# ---- NCCL for the dist module (loaded at run time): torch's copy or the system's ----
if [ -z "${TENSOR_NCCL_LIBRARY:-}" ] && TENSOR_NCCL_LIBRARY=$(bash scripts/nccl-path.sh); then
  export TENSOR_NCCL_LIBRARY
fi
say "NCCL: ${TENSOR_NCCL_LIBRARY:-not found (the dist GPU tests skip)}"

# ---- every test (SKIP_TESTS=1: none; a build + benchmark call) ----
if [ "${SKIP_TESTS:-0}" = 1 ]; then
  say "ctest: skipped (SKIP_TESTS=1)"
else
  t0=$(date +%s)
  (cd "$BUILD" && ctest --output-on-failure --timeout "${CTEST_TIMEOUT:-600}") >"$OUT/ctest.log" 2>&1
  ctest_rc=$?
  say "ctest: rc=$ctest_rc ($(($(date +%s) - t0)) s): $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1)"
  grep -E '^ *[0-9]+/[0-9]+ Test' "$OUT/ctest.log" | sed 's/^/  /' | tee -a "$SUMMARY"
  if [ "$ctest_rc" -ne 0 ]; then
    failed=1
    # What failed, with the assertion lines around it.
    grep -B3 -A1 -E '\[  FAILED  \]|\[  ERROR   \]|Failure!|fail_msg|error:' "$OUT/ctest.log" | head -60 | sed 's/^/  | /' | tee -a "$SUMMARY"
  fi
fi

# ---- compute-sanitizer over the CUDA test executables ----
# memcheck with --leak-check full: the caching allocator keeps segments until empty_cache, and
# the CUDA tests end with one, so a reported leak is a real one. The tests' planted failures
# (a 1 PiB cudaMalloc, and the cudaGetLastError that clears its error) appear as API-error
# notes ("Program hit cudaErrorMemoryAllocation");
# they are listed apart from memory errors below.
sanitize() { # tool, extra args...
  local tool=$1; shift
  local log=$OUT/$tool.log
  : >"$log"
  for exe in "$BUILD"/tests/test_cuda "$BUILD"/tests/test_cuda_*; do
    [ -x "$exe" ] || continue
    # Host-only planning tests make no CUDA calls: nothing to check.
    case "$exe" in *test_cuda_host) continue ;; esac
    local one=$OUT/.one.log
    t0=$(date +%s)
    # TENSOR_TEST_QUICK: tests with long sweeps (test_cuda_reduce.c) run a subset here.
    TENSOR_TEST_QUICK=1 timeout "${SAN_TIMEOUT:-900}" "$SANITIZER" --tool "$tool" "$@" "$exe" >"$one" 2>&1
    local rc=$?
    { echo "==== $tool: $exe (rc=$rc)"; cat "$one"; } >>"$log"
    local errs api
    # memcheck ends with "ERROR SUMMARY: N errors", racecheck with
    # "RACECHECK SUMMARY: H hazards displayed (N errors, W warnings)".
    local last
    last=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$one" | tail -1 | sed 's/^=* *//')
    errs=$(echo "$last" | grep -oE 'ERROR SUMMARY: [0-9]+|\([0-9]+ errors' | grep -oE '[0-9]+' | head -1)
    api=$(grep -c 'Program hit' "$one")
    say "$tool $(basename "$exe"): rc=$rc ($(($(date +%s) - t0)) s): ${last:-no summary line}; API-error notes: $api"
    grep 'Program hit' "$one" | sed 's/^=* *//; s/ *$//' | sort | uniq -c | sed 's/^/    /' | tee -a "$SUMMARY"
    # Anything beyond the planted API errors is a finding.
    if [ "$rc" -ne 0 ] || [ -z "$errs" ] || [ "$errs" -gt "$api" ]; then failed=1; fi
    rm -f "$one"
  done
}
SANITIZER=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer 2>/dev/null | head -1)
if [ "${SKIP_SAN:-0}" = 1 ]; then
  say "compute-sanitizer: skipped (SKIP_SAN=1)"
elif [ -n "$SANITIZER" ]; then
  tools=" ${SAN_TOOLS:-memcheck racecheck initcheck synccheck} "
  case "$tools" in *" memcheck "*) sanitize memcheck --leak-check full ;; esac
  case "$tools" in *" racecheck "*) sanitize racecheck --racecheck-report analysis ;; esac
  # initcheck: a read of device memory nothing wrote; synccheck: barriers and warp syncs used
  # where not every thread that must reach them does.
  case "$tools" in *" initcheck "*) sanitize initcheck ;; esac
  case "$tools" in *" synccheck "*) sanitize synccheck ;; esac
else
  say "compute-sanitizer: not found"
  failed=1
fi

# ---- benchmarks, when they exist (SKIP_BENCH=1: tests and sanitizers only) ----
if [ "${SKIP_BENCH:-0}" = 1 ]; then
  say "benchmarks: skipped (SKIP_BENCH=1)"
elif [ -f bench/run_device.sh ]; then
  t0=$(date +%s)
  BUILD_DIR=$BUILD bash bench/run_device.sh >"$OUT/bench.log" 2>&1
  say "bench: rc=$? ($(($(date +%s) - t0)) s), log bench.log"
  tail -30 "$OUT/bench.log"
else
  say "bench: bench/run_device.sh absent, skipped"
fi

# ---- CUDA reduction benchmark: ours vs torch.sum, same run (bench/cuda/run.sh) ----
if [ "${SKIP_BENCH:-0}" != 1 ] && [ -f bench/cuda/run.sh ]; then
  t0=$(date +%s)
  BUILD_DIR=$BUILD OUT=$OUT bash bench/cuda/run.sh "${BENCH_REPS:-30}" >"$OUT/bench_cuda.log" 2>&1
  say "bench_cuda: rc=$? ($(($(date +%s) - t0)) s), table bench_cuda.md, log bench_cuda.log"
  if [ -f "$OUT/bench_cuda.md" ]; then cat "$OUT/bench_cuda.md"; else tail -20 "$OUT/bench_cuda.log"; fi
fi

# ---- CUDA elementwise benchmark: ours vs torch, same run (bench/cuda/bench_elementwise.sh) ----
if [ "${SKIP_BENCH:-0}" != 1 ] && [ -f bench/cuda/bench_elementwise.sh ]; then
  t0=$(date +%s)
  BUILD_DIR=$BUILD OUT=$OUT bash bench/cuda/bench_elementwise.sh "${BENCH_REPS:-30}" >"$OUT/bench_elementwise.log" 2>&1
  say "bench_elementwise: rc=$? ($(($(date +%s) - t0)) s), table bench_elementwise.md, log bench_elementwise.log"
  if [ -f "$OUT/bench_elementwise.md" ]; then cat "$OUT/bench_elementwise.md"; else tail -20 "$OUT/bench_elementwise.log"; fi
fi

# ---- dist: all-reduce against torch.distributed, sharded sum and mean on 2 GPUs (bench/cuda/bench_dist.sh) ----
if [ "${SKIP_BENCH:-0}" != 1 ] && [ -f bench/cuda/bench_dist.sh ]; then
  t0=$(date +%s)
  BUILD_DIR=$BUILD OUT=$OUT bash bench/cuda/bench_dist.sh >"$OUT/bench_dist.log" 2>&1
  say "bench_dist: rc=$? ($(($(date +%s) - t0)) s), table bench_dist.md, log bench_dist.log"
  if [ -f "$OUT/bench_dist.md" ]; then cat "$OUT/bench_dist.md"; else tail -20 "$OUT/bench_dist.log"; fi
fi

# ---- Nsight Compute, ours next to torch on chosen cases (PROFILE=1; CASES=... to choose) ----
if [ "${PROFILE:-0}" = 1 ]; then
  t0=$(date +%s)
  BUILD_DIR=$BUILD OUT=$OUT bash bench/cuda/profile.sh >"$OUT/profile.log" 2>&1
  say "profile: rc=$? ($(($(date +%s) - t0)) s), table profile.md"
  cat "$OUT/profile.md" 2>/dev/null
fi

say "overall: $([ $failed -eq 0 ] && echo PASS || echo FAIL)"
exit $failed
