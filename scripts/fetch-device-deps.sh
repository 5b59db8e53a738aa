#!/usr/bin/env bash
# Run HERE (a Debian/Ubuntu machine with network), before scripts/device.sh runs on the device
# machine, which cannot reach any package registry. Downloads the CMocka packages into .deps/
# (git-ignored); the device tool carries them with carry [".deps"], and device.sh unpacks them
# with dpkg -x into a private prefix (nothing is installed on either machine).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps
cd .deps
rm -f libcmocka*.deb
pkgs=(libcmocka0 libcmocka-dev)
# apt-get download needs package lists; refresh them only when they are missing or stale.
if ! apt-get download "${pkgs[@]}" >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  apt-get download "${pkgs[@]}"
fi
ls -l libcmocka*.deb
