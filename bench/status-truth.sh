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
  "$pyrt status ${common[*]}" \
  "$pyrt status --json ${common[*]}"
echo "load after: $(cat /proc/loadavg)"
