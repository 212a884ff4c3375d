#!/usr/bin/env bash
# Installs every Debian package ossa needs to build, test, render and view.
# Idempotent; run as root on Debian 12. Skips apt when everything is present.
set -euo pipefail
PKGS=(
  build-essential cmake ninja-build pkg-config clang   # compilers and build
  libclang-rt-14-dev                                   # libFuzzer + sanitizer runtimes for clang (only Recommended by clang)
  libjsmn-dev                                          # JSON tokenizer (glTF import, test support)
  libassimp-dev                                        # ossa_assimp: FBX, COLLADA, OBJ, ... (optional in CMake)
  assimp-utils                                         # `assimp info/dump` for the FBX checks in test_assimp
  libcmocka-dev                                        # unit tests
  libpng-dev libgif-dev                                # PNG / GIF output
  libjpeg-dev                                          # JPEG textures (Debian's libjpeg-turbo), decoded by the tools
  libepoxy-dev libegl-dev libgl-dev libgles-dev        # GL loading, EGL headless contexts
  libegl-mesa0 libgl1-mesa-dri                         # Mesa llvmpipe (software GL)
  libglfw3-dev                                         # viewer window
  xvfb xauth                                           # viewer test without a display
  valgrind                                             # one leak-checked run of the suite
  python3                                              # independent reference check of `ossa sample`
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
