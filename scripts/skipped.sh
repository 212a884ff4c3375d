#!/usr/bin/env bash
# Prints what the test suite skipped, grouped by reason, from the log every test appends
# to (CMake sets OSSA_SKIP_LOG=<build>/skipped.log; tests/support/test_support.h, and
# tests/reference/compare_sample.py). Each log line is "<test>: <case>: <reason>"; a reason
# starting "part not tried: " is a case that ran but left a part out.
#
#   scripts/skipped.sh build-asan/skipped.log
#
# Also compares with cmocka's own count of skipped cases in CTest's log (when given as the
# second argument, <build>/Testing/Temporary/LastTest.log), so a skip that bypassed the log
# is reported too.
set -euo pipefail
LOG=${1:?usage: scripts/skipped.sh <build>/skipped.log [<build>/Testing/Temporary/LastTest.log]}
CTEST_LOG=${2:-}
touch "$LOG"
# one line per skip: kind TAB reason TAB "test: case"
rows=$(awk '
  {
    i = index($0, ": "); if (i == 0) next
    test = substr($0, 1, i - 1); rest = substr($0, i + 2)
    j = index(rest, ": "); if (j == 0) next
    name = substr(rest, 1, j - 1); reason = substr(rest, j + 2)
    kind = "case"
    if (index(reason, "part not tried: ") == 1) { kind = "part"; reason = substr(reason, 17) }
    if (name == "(every case)") kind = "test"  # a test this build has not (ossa_skipped_test)
    printf "%s\t%s\t%s: %s\n", kind, reason, test, name
  }' "$LOG" | sort -t "$(printf '\t')" -k1,1 -k2,2 -k3,3)
cases=$(printf '%s\n' "$rows" | grep -c '^case' || true)
parts=$(printf '%s\n' "$rows" | grep -c '^part' || true)
tests=$(printf '%s\n' "$rows" | grep -c '^test' || true)
echo "== $cases cases skipped, $parts cases with a part not tried, $tests tests not built (log: $LOG)"
printf '%s\n' "$rows" | awk -F '\t' '
  NF < 3 { next }
  $1 != kind || $2 != reason {
    kind = $1; reason = $2
    print "  " (kind == "part" ? "part not tried: " : kind == "test" ? "test not built: " : "") reason ":"
  }
  { print "      " $3 }'
if [ -n "$CTEST_LOG" ] && [ -f "$CTEST_LOG" ]; then
  # cmocka prints "[  SKIPPED ] <case>" once when it skips and again in its closing list
  cmocka=$(grep -cE '^\[  SKIPPED \] [A-Za-z_][A-Za-z0-9_]*$' "$CTEST_LOG" || true)  # grep -c: 0 and status 1 when none
  cmocka=$((cmocka / 2))
  if [ "$cmocka" -ne "$cases" ]; then
    echo "!! cmocka reports $cmocka skipped cases, the skip log $cases: some skip bypassed the log" \
         "(or a case ran twice); see $CTEST_LOG"
  fi
fi
