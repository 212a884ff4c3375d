#!/usr/bin/env bash
# Installs ossa into a scratch prefix and builds a consumer with find_package(ossa)
# and with pkg-config, then runs both.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-install}
PREFIX=$(mktemp -d)
trap 'rm -rf "$PREFIX"' EXIT
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOSSA_BUILD_TESTS=OFF -DOSSA_BUILD_BENCH=OFF \
      -DOSSA_BUILD_EXAMPLES=OFF -DOSSA_BUILD_TOOLS=OFF -DCMAKE_INSTALL_PREFIX="$PREFIX" > /dev/null
cmake --build "$BUILD" > /dev/null
cmake --install "$BUILD" > /dev/null
cmake -S tests/install -B "$PREFIX/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$PREFIX" > /dev/null
cmake --build "$PREFIX/consumer" > /dev/null
"$PREFIX/consumer/consumer" > /dev/null
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig:$PREFIX/lib/x86_64-linux-gnu/pkgconfig"
cc -std=c11 examples/01_sample_clip.c $(pkg-config --cflags --libs --static ossa) -o "$PREFIX/consumer_pc"
LD_LIBRARY_PATH="$(pkg-config --variable=libdir ossa)" "$PREFIX/consumer_pc" > /dev/null
echo "install check: headers, libossa, ossaConfig.cmake and ossa.pc work from $PREFIX"
