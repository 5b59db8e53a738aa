set -o pipefail
export PYTHONUNBUFFERED=1
SKIP_SAN=1 SKIP_BENCH=1 bash scripts/device.sh 2>&1 | grep -v "^  [0-9]*/[0-9]* Test.*Passed" | tail -30
cd bench/cuda && timeout 200 python3 bench_scan.py ../../build/device $OUT 10 2>&1 | tail -19
