#!/usr/bin/env bash
# Builds the Python package (python/) against the library and runs its tests (python/tests)
# in the virtual environment that scripts/install-deps.sh makes. Skipped, with the reason, where
# that environment could not be made (no python3 with venv, or PyPI out of reach).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${TENSOR_PY_VENV:-build/python-venv}"
py="$venv/bin/python"
if [ ! -x "$py" ] || ! "$py" -c 'import cffi, numpy, pytest, setuptools, wheel' 2>/dev/null; then
  echo "== python: skipped (no Python 3 environment with cffi, numpy and pytest at $venv;" \
    "scripts/install-deps.sh makes one where python3 and PyPI are available)"
  exit 0
fi
echo "== python: build the package and run python/tests"
# scripts/check-install.sh leaves a cpu-only Release build of the library in build/install-check:
# the package links that one rather than configuring and compiling the library a second time.
# Without it, setup.py builds its own (build/python-cpu).
if [ -z "${TINYTENSOR_BUILD_DIR:-}" ] && [ -f build/install-check/CMakeCache.txt ]; then
  export TINYTENSOR_BUILD_DIR=build/install-check
fi
# --no-build-isolation: the build dependencies are the environment's own, so a failure here is
# the package's, not the network's.
"$py" -m pip install -q --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall ./python
# From the repository's root, where the source folder python/tinytensor cannot shadow the
# installed package.
"$py" -m pytest -q -p no:cacheprovider python/tests
