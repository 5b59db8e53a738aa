#!/usr/bin/env bash
# Installs a cpu-only build into a temporary prefix, then builds and runs consumers with
# find_package(tinytensor) and with pkg-config (one of them with its own ops/ops.h and
# runtime/tensor.h first on its include path), compiles every installed header on its own, and
# builds examples/custom_reduction against the install.
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
LD_LIBRARY_PATH="$prefix/lib" ./build/package-consumer/consumer_capture
# The same application through pkg-config: its own folder first on the include path.
pc_cflags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags tinytensor)
case " $pc_cflags " in
  *"/include/tinytensor "*) echo "check-install: pkg-config --cflags still names include/tinytensor: $pc_cflags"; exit 1 ;;
esac
cc -std=c11 -Wall -Werror -Itests/package/app_include tests/package/consumer_capture.c \
  -o build/package-consumer/consumer_capture_pc $pc_cflags \
  $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --libs tinytensor)
LD_LIBRARY_PATH="$prefix/lib" ./build/package-consumer/consumer_capture_pc
# Installed headers reach each other only as "tinytensor/..." (tinytensor.h also reaches its
# neighbour tinytensor_version.h, which the including file's own folder always supplies).
if grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$prefix/include" |
   grep -vE '#[[:space:]]*include[[:space:]]*"(tinytensor/|tinytensor_version\.h")'; then
  echo "check-install: the installed headers above include a path outside tinytensor/"; exit 1
fi
# Every installed header compiles on its own, as C11 and as C++17, with only <prefix>/include on
# the include path.
headers=$(cd "$prefix/include" && find . -name '*.h' | sed 's|^\./||' | sort | paste -sd ';')
cmake -DCC=cc -DCXX="$(command -v c++ || true)" -DINCLUDES="$prefix/include" -DHEADERS="$headers" \
  -DWORK=build/install-check/headers -P cmake/check_headers.cmake
# An out-of-tree program with its own reductions (examples/custom_reduction), against the install.
cmake -S examples/custom_reduction -B build/custom-reduction -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build build/custom-reduction >/dev/null
LD_LIBRARY_PATH="$prefix/lib" ./build/custom-reduction/custom_reduction
echo "check-install: find_package and pkg-config consumers (one with its own ops/ and runtime/ headers first) and examples/custom_reduction OK"
