#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/fuzz_*.c) with clang, ASan and UBSan, and runs
# each one, one after the other on one core.
#
#   scripts/fuzz.sh                     # CI: every target, 20000 runs each (fuzz_assimp: 2000; about two minutes)
#   scripts/fuzz.sh --runs 100000       # a fixed number of runs per target
#   scripts/fuzz.sh --time 1800 fuzz_load   # a campaign: 30 minutes of one target
#   scripts/fuzz.sh --time 1800 --assets    # also seed from ../shared/assets (local only)
#   scripts/fuzz.sh --valgrind              # replay the seeds and working corpora under valgrind
#
# Seeds: fuzz/corpus/<target>/ (written by fuzz/gen_seeds.py); the working corpus
# grows in $BUILD/work/<target>/ and is never written back into the repository.
# Crashes land in $BUILD/artifacts/<target>/ and make the script fail; reproduce
# one with: $BUILD/<target> $BUILD/artifacts/<target>/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${OSSA_FUZZ_BUILD:-build-fuzz}
RUNS=20000
TIME=""
ASSETS=0
VALGRIND=0
TARGETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS=$2; shift 2 ;;
    --time) TIME=$2; shift 2 ;;
    --assets) ASSETS=1; shift ;;
    --valgrind) VALGRIND=1; shift ;;
    -h|--help) sed -n 2,14p "$0"; exit 0 ;;
    *) TARGETS+=("$1"); shift ;;
  esac
done
if [ ${#TARGETS[@]} -eq 0 ]; then
  for f in fuzz/fuzz_*.c; do TARGETS+=("$(basename "$f" .c)"); done
fi
# fuzz_assimp needs Assimp (libassimp-dev); without it the target is not built
if ! pkg-config --exists assimp; then
  NEW=(); for t in "${TARGETS[@]}"; do [ "$t" = fuzz_assimp ] || NEW+=("$t"); done; TARGETS=("${NEW[@]}")
  echo "== fuzz_assimp skipped: built without Assimp"
  if [ -n "${OSSA_SKIP_LOG:-}" ]; then  # scripts/test.sh lists it at the end
    echo "fuzz.sh: fuzz_assimp: part not tried: built without Assimp (libassimp-dev absent)" >> "$OSSA_SKIP_LOG"
  fi
fi
# Assimp parses slowly: its target runs a bounded, smaller number of inputs (CI: 2000)
ASSIMP_RUNS=${OSSA_FUZZ_ASSIMP_RUNS:-2000}

if [ "$VALGRIND" = 1 ]; then
  # non-sanitized library (gcc), plain driver, every corpus file once under memcheck
  VBUILD=${OSSA_FUZZ_REPLAY_BUILD:-build-fuzz-replay}
  cmake -S . -B "$VBUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOSSA_SANITIZE=OFF -DOSSA_BUILD_TESTS=OFF \
        -DOSSA_BUILD_TOOLS=OFF -DOSSA_BUILD_EXAMPLES=OFF -DOSSA_BUILD_BENCH=OFF -DOSSA_BUILD_GL=OFF >/dev/null
  cmake --build "$VBUILD" --target ossa_import ossa_retarget  # every importer, the builder, the writer, retargeting, the runtime
  libs=("$VBUILD/libossa_import.a" "$VBUILD/libossa_gltf.a")
  if pkg-config --exists assimp; then libs+=("$VBUILD/libossa_assimp.a"); fi
  libs+=("$VBUILD/libossa_retarget.a" "$VBUILD/libossa_offline.a" "$VBUILD/libossa.a")
  if pkg-config --exists assimp; then libs+=($(pkg-config --libs assimp)); fi
  status=0
  for t in "${TARGETS[@]}"; do
    cc -O1 -g -std=c11 -D_POSIX_C_SOURCE=200809L -Iinclude "fuzz/$t.c" fuzz/replay_main.c "${libs[@]}" \
       -lm -lpthread -o "$VBUILD/${t}_replay"
    files=$(find fuzz/corpus/"$t" "$BUILD/work/$t" -type f 2>/dev/null | wc -l)
    echo "== $t: $files inputs under valgrind (log: $VBUILD/${t}_replay.log)"
    if ! find fuzz/corpus/"$t" "$BUILD/work/$t" -type f -print0 2>/dev/null | \
         xargs -0 valgrind --quiet --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
           --track-origins=yes "$VBUILD/${t}_replay" >"$VBUILD/${t}_replay.log" 2>&1; then
      status=1; echo "!! $t: valgrind reported errors"; grep -m5 -E '^==[0-9]+== [A-Z]' "$VBUILD/${t}_replay.log" || true
    fi
  done
  exit $status
fi

CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DOSSA_BUILD_FUZZ=ON -DOSSA_SANITIZE=ON -DOSSA_WERROR=ON -DOSSA_BUILD_TESTS=OFF -DOSSA_BUILD_TOOLS=OFF \
  -DOSSA_BUILD_EXAMPLES=OFF -DOSSA_BUILD_BENCH=OFF -DOSSA_BUILD_GL=OFF \
  -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link" >/dev/null
cmake --build "$BUILD" -j1 --target "${TARGETS[@]}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Assimp 5.2 leaks on some malformed files; those leaks are not ossa's (fuzz/lsan.supp, docs/hostile-input.md)
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/fuzz/lsan.supp:print_suppressions=0}
status=0
for t in "${TARGETS[@]}"; do
  work="$BUILD/work/$t"; art="$BUILD/artifacts/$t"
  mkdir -p "$work" "$art"
  cp -n fuzz/corpus/"$t"/* "$work"/ 2>/dev/null || true
  if [ "$ASSETS" = 1 ] && [ -d ../shared/assets ]; then
    # small glTF/GLB files only (the fuzzer's max_len); fuzz_sample wants 32 parameter bytes after the file
    while IFS= read -r -d '' f; do
      dst="$work/asset-$(echo "$f" | tr '/' '_')"
      [ -e "$dst" ] && continue
      if [ "$t" = fuzz_sample ]; then { cat "$f"; head -c 32 /dev/zero; } >"$dst"; else cp "$f" "$dst"; fi
    done < <(find ../shared/assets \( -name '*.gltf' -o -name '*.glb' \) -size -64k -print0)
    if [ "$t" = fuzz_assimp ]; then  # byte 0 = format hint (1 = fbx); local only, never committed
      for f in ../shared/assets/fbx/*.fbx; do { printf '\001'; cat "$f"; } >"$work/asset-$(basename "$f")"; done
    fi
  fi
  args=(-max_len=65536 -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$art/")
  runs=$RUNS
  if [ "$t" = fuzz_assimp ] && [ "$runs" -gt "$ASSIMP_RUNS" ]; then runs=$ASSIMP_RUNS; fi
  if [ -n "$TIME" ]; then args+=(-max_total_time="$TIME"); else args+=(-runs="$runs"); fi
  if [ -n "$TIME" ]; then what="$TIME s"; else what="$runs runs"; fi
  if [ "$t" = fuzz_assimp ]; then
    # Assimp's own readers can abort (ai_assert) or crash on malformed files: fork mode keeps
    # going; every crash is classified below (ossa's code fails the run, Assimp's is listed)
    args+=(-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
    # the target's bounded import caps each load at 512 MiB in a probe process (fuzz_assimp.c):
    # -rss_limit_mb 2048 stays above it plus ASan's quarantine; -malloc_limit_mb above any single
    # allocation, so that libFuzzer's per-malloc check (inherited by the probe) never fires first
    args+=(-malloc_limit_mb=1048576)
  fi
  echo "== $t: $what (log: $BUILD/$t.log)"
  if ! "$BUILD/$t" "${args[@]}" "$work" >"$BUILD/$t.log" 2>&1 && \
     { [ "$t" != fuzz_assimp ] || [ -z "$(ls "$art" 2>/dev/null)" ]; }; then  # fuzz_assimp: crashes classified below
    status=1
    echo "!! $t FAILED; last lines of $BUILD/$t.log:"; tail -40 "$BUILD/$t.log"
  fi
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE|^INFO: fuzzed for' "$BUILD/$t.log" | tr '\n' ' '; echo
  if [ "$t" = fuzz_assimp ]; then
    # the bounded import (issue #28): an out-of-memory is a failure, not an Assimp-internal one
    grep -hoE 'oom/timeout/crash: [0-9]+/[0-9]+/[0-9]+' "$BUILD/$t.log" | tail -1 | sed 's/^/   /' || true
    if ls "$art"/oom-* >/dev/null 2>&1 || grep -q 'ERROR: libFuzzer: out-of-memory' "$BUILD/$t.log"; then
      status=1; echo "!! $t: out-of-memory despite the bounded import: $(ls "$art"/oom-* 2>/dev/null | tr '\n' ' ')"
    fi
    for a in "$art"/crash-* "$art"/leak-* "$art"/timeout-*; do
      [ -e "$a" ] || continue
      "$BUILD/$t" "$a" >"$a.log" 2>&1 || true
      # first stack frame that is not the signal/abort/sanitizer/runtime machinery
      frame=$(grep -E '^ +#[0-9]+ ' "$a.log" | grep -vE '__sanitizer|fuzzer::|libc\.so|libstdc\+\+|/nptl/|raise|abort|__interceptor|__asan|__ubsan|operator new|malloc|calloc|realloc' | head -1)
      if echo "$frame" | grep -q 'libassimp'; then
        echo "   Assimp-internal failure (not ossa's; see docs/hostile-input.md): $a"
        grep -m1 -E 'ai_assert|ERROR:' "$a.log" | sed 's/^/     /'
      else
        status=1; echo "!! $t: failure in ossa's code: $a"; echo "   $frame"
      fi
    done
  fi
done
exit $status
