#!/usr/bin/env bash
# Builds bench/cuda/bench_sum.c and bench_host_cost.c against a CUDA build tree, runs
# bench/cuda/run.py (ours vs torch.sum, same run) and bench_host_cost (host cost per tiny
# asynchronous call). Usage: BUILD_DIR=build/device OUT=... bash bench/cuda/run.sh [REPS]
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD_DIR:-build/device}
OUT=${OUT:-$PWD/build/device-out}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
for b in bench_sum bench_host_cost; do
  gcc -O2 -std=c11 bench/cuda/$b.c -I. -Iinclude -I"$BUILD/generated" -I"$CUDA_HOME/include" \
    "$BUILD/libtinytensor.a" -L"$CUDA_HOME/lib64" -lcudart -lstdc++ -lgomp -lm -lpthread -o "$BUILD/$b"
done
"$CUDA_HOME/bin/nvcc" -O2 -arch=sm_90 bench/cuda/launch_cost.cu -o "$BUILD/launch_cost" -lcuda
{ "$BUILD/bench_host_cost" 200; "$BUILD/launch_cost"; } | tee "$OUT/host_cost.txt"
PYTHONUNBUFFERED=1 python3 bench/cuda/run.py "$BUILD" "$OUT" "${1:-50}"
cat "$OUT/host_cost.txt"
