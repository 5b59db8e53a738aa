#!/usr/bin/env bash
# A compiler launcher that logs each translation unit's wall time (seconds, then the source) to
# $TENSOR_UNIT_TIMES: configure with -DCMAKE_CUDA_COMPILER_LAUNCHER=bench/cuda/time_unit.sh to
# see which units bound a parallel build.
start=$(date +%s%N)
"$@"
rc=$?
src=""
for a in "$@"; do case "$a" in *.cu|*.c) src=$a ;; esac; done
echo "$(( ($(date +%s%N) - start) / 1000000 )) ms $src" >>"${TENSOR_UNIT_TIMES:-/tmp/tensor_unit_times.txt}"
exit $rc
