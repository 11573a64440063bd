#!/usr/bin/env bash
# bench/plugins-scale.sh [BUILD_DIR]: `pyrt status` and `pyrt plugins --json`
# against `true` on a box with the full fixture baseline and 10, 100 and
# 1,000 plugins (issue 28's matrix goal; the plugin kinds of bench/run's
# plugin_scale), alone, without the rest of bench/run.  Everything is left
# 2.5 s to settle and answered once untimed, so the timed runs are "nothing
# changed since the last answer".  Timings are reported, never asserted.
# Needs hyperfine and the fixtures (tests/fixtures/build-fixtures.sh).
# PYRT_BENCH_RUNS (default 200) runs each; PYRT_BENCH_JSON=FILE keeps
# hyperfine's JSON (medians, user and system times).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
pyrt=$build/pyrt
fx=$build/fixtures
runs=${PYRT_BENCH_RUNS:-200}
bash "$src/tests/fixtures/build-fixtures.sh" "$fx" >&2
work=$(mktemp -d "${PYRT_TEST_TMP:-/tmp}/pyrt-bench-pscale.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$pyrt" install --box-root "$work/pbox10" --pins "$fx/pins.yaml" \
  --from-file "$fx/runtime.tar.gz" --wheelhouse "$fx/wheelhouse" --yes >/dev/null 2>&1
cmds=()
for n in 10 100 1000; do
  d=$work/pbox$n
  [ -d "$d" ] || { mkdir -p "$d"; cp -a "$work/pbox10/runtime" "$d/"; }
  mkdir -p "$d/plugins"
  for ((i = 1; i <= n; i++)); do
    mkdir "$d/plugins/p$i"
    case $((i % 4)) in
    0) printf 'name: p%s\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - python-docx>=0.8\n  - lxml\n' "$i" ;;
    1) printf 'name: p%s\nrequires_tools: []\nrequires_pip: []\n' "$i" ;;
    2) printf 'name: p%s\nrequires_tools: [execute_code]\nrequires_pip:\n  - openpyxl<4\n' "$i" ;;
    3) printf 'name: p%s\nenabled: false\nrequires_tools: [save_file_artifact]\n' "$i" ;;
    esac >"$d/plugins/p$i/plugin.yaml"
  done
  cmds+=("$pyrt plugins --json --box-root $d --pins $fx/pins.yaml")
done
sleep 2.5
for c in "${cmds[@]}"; do $c >/dev/null 2>&1 || true; done
"$pyrt" status --box-root "$work/pbox10" --pins "$fx/pins.yaml" | grep -E "^ready|baseline:"
echo "load before: $(cat /proc/loadavg)"
hyperfine -N --warmup 10 --runs "$runs" --export-json "${PYRT_BENCH_JSON:-/dev/null}" \
  true "$pyrt status --box-root $work/pbox10 --pins $fx/pins.yaml" "${cmds[@]}"
echo "load after: $(cat /proc/loadavg)"
