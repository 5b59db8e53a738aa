#!/usr/bin/env bash
# Runs a program as N processes, one NCCL rank each, the way tensor_comm_init_env expects:
# every process gets TENSOR_DIST_RANK, TENSOR_DIST_NRANKS and TENSOR_DIST_ID_FILE (a fresh file
# in a temporary folder, through which rank 0 hands the others NCCL's unique id). The device is
# the library's choice (the rank modulo the GPU count) unless TENSOR_DIST_DEVICE is set.
#
#     scripts/dist-launch.sh [-n N|auto] [-t SECONDS] program [args...]
#
# -n auto (the default): one rank per GPU nvidia-smi lists; none: exit 77 (skipped, for ctest).
# Each line of output is prefixed with its rank. When a rank fails, the others are stopped (they
# would wait for it in their next collective forever), as they are after -t seconds (default 600).
# Exit status: 0 when every rank exited 0, 77 when every rank exited 77, 1 otherwise.
set -u
n=auto
limit=600
usage() { echo "usage: $0 [-n N|auto] [-t SECONDS] program [args...]" >&2; exit 2; }
while getopts "n:t:" o; do
  case $o in
    n) n=$OPTARG ;;
    t) limit=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
if [ "$n" = auto ]; then
  n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  if [ "${n:-0}" -lt 1 ]; then
    echo "dist-launch: no GPU: skipped"
    exit 77
  fi
fi
case $n in '' | *[!0-9]* | 0) usage ;; esac

dir=$(mktemp -d "${TMPDIR:-/tmp}/dist-launch.XXXXXX")
pids=()
stop_all() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
}
trap 'stop_all; rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM

for ((r = 0; r < n; r++)); do
  TENSOR_DIST_RANK=$r TENSOR_DIST_NRANKS=$n TENSOR_DIST_ID_FILE=$dir/nccl.id \
    "$@" > >(sed -u "s/^/[rank $r] /") 2>&1 &
  pids+=($!)
done

rc=()
for ((r = 0; r < n; r++)); do rc+=(""); done
finished=0
start=$SECONDS
while [ $finished -lt "$n" ]; do
  for ((r = 0; r < n; r++)); do
    [ -n "${rc[$r]}" ] && continue
    if ! kill -0 "${pids[$r]}" 2>/dev/null; then
      wait "${pids[$r]}"
      rc[$r]=$?
      finished=$((finished + 1))
      if [ "${rc[$r]}" -ne 0 ] && [ "${rc[$r]}" -ne 77 ]; then
        echo "dist-launch: rank $r exited ${rc[$r]}: stopping the others"
        stop_all
      fi
    fi
  done
  if [ $((SECONDS - start)) -ge "$limit" ]; then
    echo "dist-launch: still running after $limit s: stopping every rank"
    stop_all
    limit=$((limit + 30)) # give them time to go; a killed rank counts as failed
  fi
  sleep 0.2
done
wait 2>/dev/null # the output filters

skipped=0
failed=0
for ((r = 0; r < n; r++)); do
  case ${rc[$r]} in
    0) ;;
    77) skipped=$((skipped + 1)) ;;
    *) failed=$((failed + 1)) ;;
  esac
done
if [ $failed -gt 0 ]; then
  echo "dist-launch: $failed of $n ranks failed"
  exit 1
fi
if [ $skipped -eq "$n" ]; then exit 77; fi
if [ $skipped -gt 0 ]; then
  echo "dist-launch: $skipped of $n ranks skipped, the others passed"
  exit 1
fi
echo "dist-launch: all $n ranks passed"
exit 0
