#!/usr/bin/env bash
# Installs what building and testing tinytensor needs on a fresh Debian machine, and nothing
# that is already there. CUDA is optional: the build uses nvcc when it finds one.
set -euo pipefail
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v cc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
command -v pkg-config >/dev/null || need+=(pkg-config)
[ -f /usr/include/cmocka.h ] || need+=(libcmocka-dev)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "install-deps: installing ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

# Python (optional): a virtual environment under build/ with what the Python package's build and
# tests need (scripts/test-python.sh). It sees the system's packages, so only what is missing is
# downloaded. Where python3, venv or PyPI is unavailable, the Python tests are skipped and the C
# tests run as before.
venv="${TENSOR_PY_VENV:-$(cd "$(dirname "$0")/.." && pwd)/build/python-venv}"
if command -v python3 >/dev/null; then
  if ! python3 -c 'import ensurepip, venv, sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' 2>/dev/null &&
     [ "$(command -v python3)" = /usr/bin/python3 ] && command -v apt-get >/dev/null; then
    # Debian's python3 comes without venv and without the headers a C extension needs.
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "install-deps: installing python3-venv python3-dev"
    { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv python3-dev >/dev/null; } ||
      echo "install-deps: could not install python3-venv python3-dev (the Python tests will be skipped)"
  fi
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv --system-site-packages "$venv" >/dev/null 2>&1 ||
      { echo "install-deps: python3 cannot make a virtual environment (the Python tests will be skipped)"; rm -rf "$venv"; }
  fi
  if [ -x "$venv/bin/python" ] && ! "$venv/bin/python" -c 'import cffi, numpy, pytest, setuptools, wheel' 2>/dev/null; then
    echo "install-deps: installing the Python test dependencies into $venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "setuptools>=61" wheel "cffi>=1.15" \
      "numpy>=1.22" pytest ||
      echo "install-deps: pip could not install cffi, numpy and pytest (the Python tests will be skipped)"
  fi
fi
