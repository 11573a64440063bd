#!/usr/bin/env bash
# Build the libFuzzer targets of tests/fuzz with clang in build-fuzz and run
# each for SECONDS (default 20), one after the other.  New inputs go to
# build-fuzz/corpus/<name>, never into the source tree; a crash or a broken
# property leaves its input in build-fuzz/crashes/<name>/ and fails the run
# (the input then belongs in tests/fuzz/<name>/crashes/ with the fix).
# One line per target: executions, rate, coverage.
#
#   bash scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
shift $(( $# > 0 ? 1 : 0 ))
jobs=$(nproc 2>/dev/null || echo 2)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.c; do
    t=${f#tests/fuzz/fuzz_}; t=${t%.c}
    [ "$t" = util ] || targets+=("$t")
  done
fi

cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DPYRT_FUZZ=ON -DPYRT_WERROR=ON \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"$jobs" --target fuzz >/dev/null

# The extraction target writes a tree per input: on the tests' tmpfs when
# there is one.
tmp=${PYRT_TEST_TMP:-$(pwd)/build-fuzz/tmp}
mkdir -p "$tmp"
failed=0
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$t crashes=build-fuzz/crashes/$t log=build-fuzz/fuzz-$t.log
  mkdir -p "$corpus" "$crashes"
  status=ok
  PYRT_TEST_TMP=$tmp ASAN_OPTIONS=detect_leaks=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "build-fuzz/tests/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=20 \
      -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$crashes/" \
      "$corpus" "tests/fuzz/$t/corpus" "tests/fuzz/$t/crashes" >"$log" 2>&1 ||
    status=FAILED
  execs=$(awk '/^stat::number_of_executed_units:/ {print $2}' "$log")
  rate=$(awk '/^stat::average_exec_per_sec:/ {print $2}' "$log")
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2 || true)
  if [ -z "$execs" ]; then # no final stats after a crash: the last status line
    execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
  fi
  printf 'fuzz %-9s %s: %s executions in %s s (%s/s), coverage %s edges\n' \
    "$t" "$status" "${execs:-0}" "$secs" "${rate:-?}" "${cov:-?}"
  if [ "$status" != ok ]; then
    failed=1
    grep -E '^fuzz: |^==[0-9]+== ?ERROR|^SUMMARY: |Test unit written' "$log" | head -8 | sed 's/^/  | /' || true
    echo "  the full log: $log"
  fi
done
exit "$failed"
