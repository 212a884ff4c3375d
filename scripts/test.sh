#!/usr/bin/env bash
# Installs dependencies, builds ossa with -Wall -Wextra -Werror under
# AddressSanitizer + UndefinedBehaviorSanitizer, and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
BUILD=${OSSA_TEST_BUILD:-build-asan}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DOSSA_SANITIZE=ON -DOSSA_WERROR=ON
cmake --build "$BUILD"
ctest --test-dir "$BUILD" --output-on-failure -j2
# Hostile input (issue #6): each libFuzzer target for a short fixed number of runs
# (clang, ASan + UBSan; about a minute), then the suite once under valgrind
# (no leaks, no invalid reads; a few minutes; GL-driving tests excluded, see the script).
bash scripts/fuzz.sh --runs 20000
bash scripts/valgrind.sh
bash scripts/check_install.sh
