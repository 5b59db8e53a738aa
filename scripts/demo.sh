#!/usr/bin/env bash
# Builds and runs the README demo (examples/demo.c) on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# The demo's tensors are tiny: nvcc's fast-compile mode for the device code keeps the first
# build to minutes on a small machine (full optimisation of every reduction and elementwise
# kernel takes most of an hour on 2 cores). Host code is Release either way. Its own build
# folder, so the release preset's folder keeps fully optimised kernels.
cmake --preset release -B build/demo -DTENSOR_CUDA_FAST_COMPILE=ON >/dev/null
cmake --build build/demo --target demo -j "$(nproc)" >/dev/null
./build/demo/examples/demo
