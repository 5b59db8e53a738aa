#!/usr/bin/env bash
# Builds and passes the tests on a fresh machine: the dev preset (CUDA code compiled and linked
# when nvcc is present; GPU tests skip without a GPU) and the asan preset (the whole CPU suite
# under AddressSanitizer + UndefinedBehaviorSanitizer).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
for preset in ${TENSOR_TEST_PRESETS:-dev asan}; do
  echo "== preset $preset"
  cmake --workflow --preset "$preset"
done
# The installed package must work for a consumer (find_package and pkg-config).
bash scripts/check-install.sh
