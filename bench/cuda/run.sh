#!/usr/bin/env bash
# Builds bench/cuda/bench_sum.c against a CUDA build tree and runs bench/cuda/run.py (ours vs
# torch.sum). Usage: BUILD_DIR=build/device OUT=... bash bench/cuda/run.sh [REPS]
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD_DIR:-build/device}
OUT=${OUT:-$PWD/build/device-out}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
gcc -O2 -std=c11 bench/cuda/bench_sum.c -I. -Iinclude -I"$BUILD/generated" -I"$CUDA_HOME/include" \
  "$BUILD/libtinytensor.a" -L"$CUDA_HOME/lib64" -lcudart -lstdc++ -lgomp -lm -lpthread -o "$BUILD/bench_sum"
PYTHONUNBUFFERED=1 python3 bench/cuda/run.py "$BUILD/bench_sum" "$OUT" "${1:-50}"
