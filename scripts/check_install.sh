#!/usr/bin/env bash
# Installs ossa into a scratch prefix that is NOT the one it was configured with
# (`cmake --install --prefix`), then builds consumers of both libraries (ossa, ossa_gl)
# with find_package(ossa) and with pkg-config, and runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-install}
PREFIX=$(mktemp -d)
trap 'rm -rf "$PREFIX"' EXIT
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOSSA_BUILD_TESTS=OFF -DOSSA_BUILD_BENCH=OFF \
      -DOSSA_BUILD_EXAMPLES=OFF -DOSSA_BUILD_TOOLS=OFF -DCMAKE_INSTALL_PREFIX=/usr/local > /dev/null
cmake --build "$BUILD" > /dev/null
cmake --install "$BUILD" --prefix "$PREFIX" > /dev/null
# find_package: both targets
cmake -S tests/install -B "$PREFIX/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$PREFIX" > /dev/null
cmake --build "$PREFIX/consumer" > /dev/null
"$PREFIX/consumer/consumer" > /dev/null
test -x "$PREFIX/consumer/consumer_gl" || { echo "install check: ossa::ossa_gl target missing" >&2; exit 1; }
"$PREFIX/consumer/consumer_gl" > /dev/null
if pkg-config --exists assimp; then  # ossa::ossa_assimp: the consumer loads a model and its animation
  test -x "$PREFIX/consumer/consumer_assimp" || { echo "install check: ossa::ossa_assimp target missing" >&2; exit 1; }
  rc=0; "$PREFIX/consumer/consumer_assimp" 2>/dev/null || rc=$?  # no arguments: usage, exit 2
  test $rc -eq 2 || { echo "install check: consumer_assimp exited $rc" >&2; exit 1; }
fi
# pkg-config: ossa.pc and ossa_gl.pc resolve to the scratch prefix, not the configured one
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig:$PREFIX/lib/x86_64-linux-gnu/pkgconfig"
case "$(pkg-config --variable=libdir ossa)" in
  "$PREFIX"/*) ;;
  *) echo "install check: ossa.pc libdir $(pkg-config --variable=libdir ossa) is outside $PREFIX" >&2; exit 1 ;;
esac
cc -std=c11 examples/01_sample_clip.c $(pkg-config --cflags --libs --static ossa) -o "$PREFIX/consumer_pc"
LD_LIBRARY_PATH="$(pkg-config --variable=libdir ossa)" "$PREFIX/consumer_pc" > /dev/null
cc -std=c11 examples/03_gpu_skin.c $(pkg-config --cflags --libs --static ossa_gl) -lm -o "$PREFIX/consumer_gl_pc"
LD_LIBRARY_PATH="$(pkg-config --variable=libdir ossa)" "$PREFIX/consumer_gl_pc" > /dev/null
echo "install check: headers, libossa, libossa_gl, ossaConfig.cmake (ossa::ossa, ossa::ossa_gl), ossa.pc and ossa_gl.pc work from $PREFIX"
