#!/usr/bin/env bash
# Builds and runs the README demo (examples/demo.c) on a fresh machine, in its own build folder
# (build/demo: no folder of yours is touched).
#   - With a GPU (nvidia-smi lists one) and nvcc: the CUDA backend too, its device code in
#     nvcc's fast-compile mode (the demo's tensors are tiny; full optimisation is the release
#     preset's), and the demo runs on the GPU.
#   - Without a GPU: CPU only, about a minute or less on 2 cores, whether or not nvcc is
#     installed (compiling kernels for a GPU that is not there would take many minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cuda=OFF
if command -v nvcc >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then cuda=ON; fi
echo "demo: configuring build/demo (CUDA backend: $cuda)"
cmake --preset release -B build/demo --no-warn-unused-cli -DTENSOR_CUDA=$cuda -DTENSOR_CUDA_FAST_COMPILE=ON \
  -DTENSOR_BUILD_TESTS=OFF -DTENSOR_BUILD_BENCH=OFF >/dev/null
echo "demo: building"
cmake --build build/demo --target demo -j "$(nproc)" | grep --line-buffered -E '^\[ *[0-9]+%\] (Building|Linking)' |
  sed -u -E 's#^(\[ *[0-9]+%\]) [A-Za-z]+ [A-Za-z]+ [a-z]+ .*/([^/]+)$#  \1 \2#'
./build/demo/examples/demo
