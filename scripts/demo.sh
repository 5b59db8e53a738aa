#!/usr/bin/env bash
# Builds and runs the README demo (examples/demo.c) on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# The demo's tensors are tiny: nvcc's fast-compile mode for the device code keeps the first
# build to minutes on a small machine (full optimisation of every reduction and elementwise
# kernel takes most of an hour on 2 cores). Host code is Release either way.
cmake --preset release -DTENSOR_CUDA_FAST_COMPILE=ON >/dev/null
cmake --build --preset release --target demo -j "$(nproc)" >/dev/null
./build/release/examples/demo
