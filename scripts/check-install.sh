#!/usr/bin/env bash
# Installs a cpu-only build into a temporary prefix, then builds and runs a consumer with
# find_package(tinytensor) and another with pkg-config.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(mktemp -d)
trap 'rm -rf "$prefix" build/package-consumer build/custom-reduction' EXIT
# Its own build folder: a user's build/cpu-only keeps its settings.
cmake --preset cpu-only -B build/install-check -DTENSOR_BUILD_TESTS=OFF -DTENSOR_BUILD_BENCH=OFF \
  -DTENSOR_BUILD_EXAMPLES=OFF >/dev/null
cmake --build build/install-check -j "$(nproc)" >/dev/null
cmake --install build/install-check --prefix "$prefix" >/dev/null
cmake -S tests/package -B build/package-consumer -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build build/package-consumer >/dev/null
LD_LIBRARY_PATH="$prefix/lib" ./build/package-consumer/consumer
./build/package-consumer/consumer_static
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cc tests/package/consumer.c -o build/package-consumer/consumer_pc \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tinytensor)
LD_LIBRARY_PATH="$prefix/lib" ./build/package-consumer/consumer_pc
# A static link through pkg-config: the archive and its private dependencies (OpenMP, libm).
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cc tests/package/consumer.c -o build/package-consumer/consumer_pc_static \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags tinytensor) "$prefix/lib/libtinytensor.a" \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --static --libs-only-other --libs-only-l tinytensor | sed 's/-ltinytensor//')
./build/package-consumer/consumer_pc_static
# Every installed header compiles on its own, as C11 and as C++17.
for h in $(cd "$prefix/include" && find . -name '*.h' | sort); do
  printf '#include "%s"\n' "${h#./}" >build/install-check/one_header.c
  cc -std=c11 -Wall -Werror -fsyntax-only -I"$prefix/include" -I"$prefix/include/tinytensor" build/install-check/one_header.c ||
    { echo "check-install: $h does not compile on its own as C11"; exit 1; }
  if command -v c++ >/dev/null; then
    c++ -std=c++17 -Wall -Werror -fsyntax-only -x c++ -I"$prefix/include" -I"$prefix/include/tinytensor" \
      build/install-check/one_header.c || { echo "check-install: $h does not compile on its own as C++17"; exit 1; }
  fi
done
echo "check-install: every installed header compiles alone (C11, C++17)"
# An out-of-tree program with its own reductions (examples/custom_reduction), against the install.
cmake -S examples/custom_reduction -B build/custom-reduction -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build build/custom-reduction >/dev/null
LD_LIBRARY_PATH="$prefix/lib" ./build/custom-reduction/custom_reduction
echo "check-install: find_package and pkg-config consumers and examples/custom_reduction OK"
