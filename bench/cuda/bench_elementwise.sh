#!/usr/bin/env bash
# Builds bench/cuda/bench_elementwise.c against a CUDA build tree and runs bench_elementwise.py
# (ours vs torch, same run). Usage: BUILD_DIR=build/device OUT=... bash bench/cuda/bench_elementwise.sh [REPS]
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD_DIR:-build/device}
OUT=${OUT:-$PWD/build/device-out}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$OUT"
gcc -O2 -std=c11 bench/cuda/bench_elementwise.c -I. -Iinclude -I"$BUILD/generated" -I"$CUDA_HOME/include" \
  "$BUILD/libtinytensor.a" -L"$CUDA_HOME/lib64" -lcudart -lstdc++ -lgomp -lm -lpthread -o "$BUILD/bench_elementwise"
PYTHONUNBUFFERED=1 python3 bench/cuda/bench_elementwise.py "$BUILD/bench_elementwise" "$OUT" "${1:-50}"
