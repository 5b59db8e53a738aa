#!/usr/bin/env bash
# Builds and passes the tests on a fresh machine.
#   ./scripts/test.sh          the quick tier, before a commit (about 3 minutes on 2 cores
#                              without nvcc): the dev preset (CUDA code compiled and linked
#                              when nvcc is present; GPU tests skip without a GPU), the
#                              installed-package check and the Python package's tests.
#   ./scripts/test.sh --full   what CI runs (.ci/run; about 10 minutes on 2 cores): also the
#                              asan preset (the whole CPU suite under AddressSanitizer +
#                              UndefinedBehaviorSanitizer) and, where clang has libFuzzer, the
#                              fuzz preset (each libFuzzer target of tests/fuzz for
#                              TENSOR_FUZZ_SECONDS, 8 by default).
# TENSOR_TEST_PRESETS picks the presets instead, e.g. "tsan" (ThreadSanitizer, 6 to 7 minutes
# on 2 cores). Tests run on every core (CTEST_PARALLEL_LEVEL, default: all).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
export CTEST_PARALLEL_LEVEL="${CTEST_PARALLEL_LEVEL:-$(nproc)}"
presets="dev"
case "${1:-}" in
  --full) presets="dev asan fuzz" ;;
  "") ;;
  *) echo "usage: $0 [--full]" >&2; exit 2 ;;
esac
has_libfuzzer() {
  command -v clang >/dev/null 2>&1 &&
    echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }' |
      clang -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1
}
for preset in ${TENSOR_TEST_PRESETS:-$presets}; do
  if [ "$preset" = fuzz ] && ! has_libfuzzer; then
    echo "== preset fuzz: skipped (no clang with libFuzzer here)"
    continue
  fi
  echo "== preset $preset"
  cmake --workflow --preset "$preset"
done
# The installed package must work for a consumer (find_package and pkg-config).
bash scripts/check-install.sh
# The Python package against that build (skipped, with the reason, without Python 3 and pip).
bash scripts/test-python.sh
