#!/usr/bin/env bash
# Builds and runs the README demo (examples/demo.c) on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target demo -j "$(nproc)" >/dev/null
./build/release/examples/demo
