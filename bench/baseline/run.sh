#!/bin/bash
# Calibrates issue #10's targets to this machine. The issue gives its targets next to the
# figures it measured for "ossa today" (commit 2f1c564's editable clips) on its own machine:
# this script builds that commit (a temporary git worktree, Release, library only), measures
# the same three workloads here (editable_2f1c564.c), takes the median ratio of here to
# there as this machine's factor, runs bench_built and prints its rows divided by that
# factor next to the targets: an estimate of the figures on the issue's machine.
# usage (from anywhere in the repository): bash bench/baseline/run.sh [BUILD_DIR (Release, default build-rel)]
set -euo pipefail
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
build=${1:-$root/build-rel}
assets=${OSSA_ASSETS:-$root/../shared/assets}
woman=$assets/Woman/Woman.gltf
[ -f "$woman" ] || { echo "skipped: $woman not found"; exit 0; }
[ -x "$build/bench_built" ] || { echo "no $build/bench_built: build the Release tree first"; exit 1; }
work=$(mktemp -d)
cleanup() { git -C "$root" worktree remove --force "$work/src" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
git -C "$root" worktree add -q --detach "$work/src" 2f1c564
cmake -S "$work/src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOSSA_BUILD_TESTS=OFF \
    -DOSSA_BUILD_TOOLS=OFF -DOSSA_BUILD_EXAMPLES=OFF -DOSSA_BUILD_BENCH=OFF -DOSSA_BUILD_GL=OFF >/dev/null
ninja -C "$work/build" ossa >/dev/null
cc -O2 -I "$work/src/include" "$root/bench/baseline/editable_2f1c564.c" "$work/build/libossa.a" -lm -o "$work/baseline"
"$work/baseline" "$woman" Running | tee "$work/baseline.txt"
(cd "$root" && OSSA_ASSETS=$assets "$build/bench_built") > "$work/now.txt"
awk -v issue="790 1283 1525" '
    FNR == NR { split(issue, there, " "); n++; med = $0; sub(/.*median /, "", med); sub(/ .*/, "", med);
                r[n] = med / there[n]; lab = $0; sub(/:.*/, "", lab);
                printf "  %-20s %5d ns here, %5d ns there: x %.2f\n", lab, med, there[n], r[n]; next }
    FNR == 1 { lo = r[1] < r[2] ? r[1] : r[2]; hi = r[1] < r[2] ? r[2] : r[1];
               f = r[3] < lo ? lo : r[3] > hi ? hi : r[3];
               printf "machine factor (the median ratio): %.2f\n\n", f;
               printf "%-40s %9s %11s  %s\n", "bench_built / factor (ns)", "lossless", "compressed", "target" }
    /^(forward|random) .*(sampling|palette)/ {
        label = $0; sub(/  +[0-9].*/, "", label); rest = substr($0, length(label) + 1);
        split(rest, w, " +"); t = $0; if (!sub(/.*target /, "", t)) t = "-";
        printf "%-40s %9.0f %11.0f  %s\n", label, w[3] / f, w[4] / f, t }
' "$work/baseline.txt" "$work/now.txt"
