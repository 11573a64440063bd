#!/usr/bin/env bash
# bench/status-truth.sh [BUILD_DIR]: `pyrt status` on a box with the full
# fixture baseline against `true` (issue 25: status reads the declared
# baseline against every installed distribution's RECORD on each call).
# Timings are reported, never asserted.  Needs hyperfine and the fixtures
# (tests/fixtures/build-fixtures.sh BUILD_DIR/fixtures).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
pyrt=$build/pyrt
fx=$build/fixtures
bash "$src/tests/fixtures/build-fixtures.sh" "$fx" >&2
work=$(mktemp -d "${PYRT_TEST_TMP:-/tmp}/pyrt-bench-status.XXXXXX")
trap 'rm -rf "$work"' EXIT
box=$work/box
common=(--box-root "$box" --pins "$fx/pins.yaml")
"$pyrt" install "${common[@]}" --from-file "$fx/runtime.tar.gz" \
  --wheelhouse "$fx/wheelhouse" --yes >/dev/null 2>&1
# The observed-state memo (core/runtime/dists_memo.h) keeps only folders
# left alone 2 s: settle, then one status writes it.
sleep 2.5
"$pyrt" status "${common[@]}" | grep -E "^ready|baseline:"
echo "load before: $(cat /proc/loadavg)"
hyperfine -N --warmup 20 --runs 300 \
  "true" \
  "$pyrt --version" \
  "$pyrt status ${common[*]}" \
  "$pyrt status --json ${common[*]}"
echo "load after: $(cat /proc/loadavg)"
# hyperfine runs each command's runs back to back, and this VM's speed
# drifts by tens of percent over seconds: the ratio to trust comes from
# runs interleaved round-robin (bench/interleave.c), each round every
# command once.
cc -O2 -o "$work/interleave" "$src/bench/interleave.c"
echo "interleaved, 500 rounds (load $(cut -d' ' -f1 /proc/loadavg)):"
"$work/interleave" 500 "true" "$pyrt --version" "$pyrt status ${common[*]}" \
  "$pyrt status --json ${common[*]}" | tee "$work/interleave.txt"

# Where the time goes, counted rather than timed: syscalls and pages
# touched (one page fault costs microseconds in a VM: bench/pagefault.c).
strace -o "$work/strace.txt" "$pyrt" status "${common[@]}" >/dev/null
echo "status: $(grep -vc '^+++' "$work/strace.txt") syscalls," \
  "$(grep -c '^newfstatat' "$work/strace.txt") of them newfstatat"
if command -v perf >/dev/null; then
  for cmd in "true" "$pyrt --version" "$pyrt status ${common[*]}"; do
    # shellcheck disable=SC2086 # the command splits into its words
    faults=$(perf stat -x, -r 100 -e page-faults $cmd 2>&1 >/dev/null |
      awk -F, '/page-faults/ {print $1}')
    echo "page faults: $faults  $cmd"
  done
fi

# The floor of a correct per-call check: the memo stats every folder that
# holds a file some RECORD lists, relative to the site folder; this is what
# those stats alone cost here, outside pyrt.
site=$("$box/runtime/python/current/bin/python3" -I -c \
  'import sysconfig; print(sysconfig.get_paths()["purelib"])')
sed -n 's/^newfstatat([0-9]\+, "\([^"]\+\)".*/\1/p' "$work/strace.txt" \
  >"$work/folders"
cc -O2 -o "$work/statcost" "$src/bench/statcost.c"
echo "floor: status's relative stats (memo folders and RECORDs) alone:"
"$work/statcost" "$site" 2000 <"$work/folders" | tee "$work/statcost.txt"
# The ratio a status that did nothing but start (as --version does) and
# stat those folders would reach against true: the interleaved medians
# plus the stats' round.
python3 - "$work/interleave.txt" "$work/statcost.txt" <<'EOF'
import re, sys
med = [float(l.split()[0]) for l in open(sys.argv[1]) if l.strip()]
stats = float(re.search(r"([0-9.]+) us a round", open(sys.argv[2]).read()).group(1)) / 1e3
print(f"medians (ms): true {med[0]:.3f}, --version {med[1]:.3f}, "
      f"status {med[2]:.3f} ({med[2] / med[0]:.2f}x), --json {med[3]:.3f} ({med[3] / med[0]:.2f}x)")
print(f"floor: --version + the stats = {med[1] + stats:.3f} ms = "
      f"{(med[1] + stats) / med[0]:.2f}x true (goal 1.5x)")
EOF
