#!/usr/bin/env bash
# ctest: e2e_progress
# Progress arrives while the work happens: pip's lines stream out of
# `pyrt baseline --json` while pip is still running (its stdout into a pipe
# was block-buffered: every line came at the end, all with one "t"), and
# the extract step reports its own progress, not the download's 100 %.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup progress fixtures
box=$work/box
common=(--box-root "$box" --pins "$fx/pins.yaml")
run install "${common[@]}" --yes --no-baseline --from-file "$fx/runtime.tar.gz"
check "the fixture runtime installs (no baseline)" rc_is 0

# --- the wheelhouse installer's output streams -----------------------------------
# py/fastwheel.py prints a line per wheel as it installs it; into pyrt's
# pipe its stdout was block-buffered, so all came at the exit with one "t".
run baseline --json "${common[@]}" --wheelhouse "$fx/wheelhouse"
check "the baseline from the wheelhouse (fast path) completes" rc_is 0
check "its lines carry more than one time" python3 -c '
import json, sys
ev = [e for e in map(json.loads, open(sys.argv[1])) if e.get("event") == "log"]
first = [e["t"] for e in ev if e["message"].startswith("Installing python_docx")]
last = [e["t"] for e in ev if e["message"].startswith("Successfully installed")]
sys.exit(0 if first and last and first[0] < last[0] else 1)' "$work/out"
"$box/runtime/python/current/bin/python3" -I -m pip uninstall -y -q python-docx openpyxl lxml et-xmlfile \
  >/dev/null 2>&1

# --- pip's output streams -------------------------------------------------------
# An index that holds its first answer: pip has printed its first lines and
# waits, so they must already be out.
idx=$work/index
e2e_simple_index "$idx"
python3 "$src/tests/helpers/slow_index.py" --root "$idx" --prefix /i \
  --port-file "$work/iport" --hit "$work/hit" --release "$work/release" \
  --log "$work/index.log" &
index_pid=$!
trap 'touch "$work/release"; kill "$index_pid" 2>/dev/null; e2e_cleanup' EXIT
for _ in $(seq 100); do [ -s "$work/iport" ] && break; sleep 0.1; done
"$pyrt" baseline --json "${common[@]}" \
  --index-url "http://127.0.0.1:$(cat "$work/iport")/i/simple/" >"$work/events" 2>"$work/err" &
pid=$!
for _ in $(seq 300); do [ -e "$work/hit" ] && break; sleep 0.1; done
check "pip asked the index" [ -e "$work/hit" ]
# pip prints "Looking in indexes" before it asks; give
# the pipe a moment, then look while the index still holds its answer.
sleep 1
cp "$work/events" "$work/events.early"
check "pip's lines are out while pip waits for the index" \
  grep -q '"message": *"Looking in indexes' "$work/events.early"
sleep 1
touch "$work/release"
wait "$pid"; rc=$?
check "the baseline then completes" rc_is 0
check "pip's log events carry more than one time" python3 -c '
import json, sys
ts = {e["t"] for e in map(json.loads, open(sys.argv[1])) if e.get("event") == "log"}
sys.exit(0 if len(ts) > 1 else 1)' "$work/events"
kill "$index_pid" 2>/dev/null; wait "$index_pid" 2>/dev/null

e2e_finish
