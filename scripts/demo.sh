#!/usr/bin/env bash
# Installs dependencies, builds ossa (Release), and runs the main job: renders the
# built-in demo character (or FILE, when given) to out/demo.gif.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
mkdir -p out
if [ $# -gt 0 ]; then
  ./build/ossa render "$@" --out out/demo.gif
else
  ./build/ossa demo --out out/demo.gif
fi
