#!/usr/bin/env bash
# Builds bench/cuda/bench_jit.c and bench_graph.c against a CUDA build tree. bench_jit runs twice
# with one empty cache directory: the first process compiles each kernel variant it needs
# (NVRTC), the second loads them from the disk cache. bench_graph: eager calls against their
# CUDA-graph replay. Usage: BUILD_DIR=build/device OUT=... bash bench/cuda/run_jit_graph.sh [REPS]
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD_DIR:-build/device}
OUT=${OUT:-$PWD/build/device-out}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
for b in bench_jit bench_graph; do
  gcc -O2 -std=c11 bench/cuda/$b.c -I. -Iinclude -I"$BUILD/generated" -I"$CUDA_HOME/include" \
    "$BUILD/libtinytensor.a" -L"$CUDA_HOME/lib64" -lcudart -lstdc++ -lgomp -lm -ldl -lpthread -o "$BUILD/$b"
done
dir=$(mktemp -d)
{
  echo "== first process (empty cache: $dir)"
  TENSOR_JIT_CACHE_DIR=$dir "$BUILD/bench_jit" "${1:-30}"
  echo "== second process (the cache filled)"
  TENSOR_JIT_CACHE_DIR=$dir "$BUILD/bench_jit" "${1:-30}"
  echo "== CUDA graph replay"
  "$BUILD/bench_graph" "${1:-30}"
} | tee "$OUT/bench_jit_graph.txt"
rm -rf "$dir"
