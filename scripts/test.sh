#!/usr/bin/env bash
# Installs dependencies, builds ossa with -Wall -Wextra -Wpedantic -Wconversion -Werror under
# AddressSanitizer + UndefinedBehaviorSanitizer, and runs the whole test suite. Ends,
# pass or fail, with every case that was skipped and why (scripts/skipped.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
BUILD=${OSSA_TEST_BUILD:-build-asan}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DOSSA_SANITIZE=ON -DOSSA_WERROR=ON
cmake --build "$BUILD"
# Every test appends its skipped cases to $BUILD/skipped.log (CMake sets OSSA_SKIP_LOG);
# the scripts below add theirs (fuzz_assimp without Assimp).
export OSSA_SKIP_LOG=$(cd "$BUILD" && pwd)/skipped.log
rm -f "$OSSA_SKIP_LOG"
# (|| true: the list is a report; under set -e a failing trap command would replace the run's status)
trap 'bash scripts/skipped.sh "$OSSA_SKIP_LOG" "$BUILD/Testing/Temporary/LastTest.log" || true' EXIT
ctest --test-dir "$BUILD" --output-on-failure -j2
# Hostile input (issue #6): each libFuzzer target for a short fixed number of runs
# (clang, ASan + UBSan; about a minute), then the suite once under valgrind
# (no leaks, no invalid reads; a few minutes; GL-driving tests excluded, see the script).
bash scripts/fuzz.sh --runs 20000
bash scripts/valgrind.sh  # lists its own skips (build-valgrind/skipped.log)
bash scripts/check_install.sh
# A build without GL (-DOSSA_BUILD_GL=OFF, tools on): the GL-free commands work and the
# drawing ones say the build has no GL and exit non-zero.
NOGL=${OSSA_NOGL_BUILD:-build-nogl}
cmake -S . -B "$NOGL" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOSSA_BUILD_GL=OFF -DOSSA_BUILD_TESTS=OFF \
      -DOSSA_BUILD_BENCH=OFF -DOSSA_WERROR=ON > /dev/null
cmake --build "$NOGL" > /dev/null
printf '{"asset": {"version": "2.0"}, "nodes": [{"name": "root"}]}' > "$NOGL/one_node.gltf"
info=$("$NOGL/ossa" info "$NOGL/one_node.gltf")
[[ $info == *root* ]]
"$NOGL/ossa" sample "$NOGL/one_node.gltf" > /dev/null
if "$NOGL/ossa" render --out "$NOGL/x.png" 2> "$NOGL/render.err"; then
  echo "no-GL build: ossa render should fail" >&2; exit 1
fi
grep -q "built without GL" "$NOGL/render.err"
echo "no-GL build: ossa info works, ossa render reports the missing GL"
# A scalar-only build (-DOSSA_SIMD_KERNELS=OFF: no *_sse.c / *_avx2.c / *_avx512.c compiled, every
# dispatcher scalar; issue #23), Release, no GL, tools on for the tests that drive the tool: the
# whole CTest suite on the scalar path. Skipped cases go to $SCALAR/skipped.log.
SCALAR=${OSSA_SCALAR_BUILD:-build-scalar}
cmake -S . -B "$SCALAR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOSSA_SIMD_KERNELS=OFF -DOSSA_WERROR=ON \
      -DOSSA_BUILD_GL=OFF -DOSSA_BUILD_TOOLS=ON -DOSSA_BUILD_EXAMPLES=OFF -DOSSA_BUILD_BENCH=OFF > /dev/null
cmake --build "$SCALAR" > /dev/null
rm -f "$SCALAR/skipped.log"
ctest --test-dir "$SCALAR" --output-on-failure -j2
echo "scalar-only build: the suite passes with no SIMD kernel built"
