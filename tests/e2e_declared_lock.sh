#!/usr/bin/env bash
# ctest: e2e_declared_lock
# End to end, issue 25: a plugin's writes to declared.json happen under the
# box lock.  A baseline reads declared.json when it takes the lock and
# writes its copy back when it ends; a `plugins install` that declared its
# plugin outside the lock, between its pip run and a baseline's start, was
# lost when that baseline ended.  Here `plugins install imgplug` is paused
# at its declaration (crash point plugin-declare) while `pyrt baseline`
# starts (paused at mid-baseline if it gets the lock); both are let go in
# turn, and imgplug's requirement must still be declared at the end, with
# imgplug ready.  The crash points need -DPYRT_TEST_HOOKS=ON.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup declared-lock fixtures
. "$src/tests/lib/faults.sh"

fault_box "$work/box"
wh=(--wheelhouse "$fx/wheelhouse")
mkdir -p "$box/plugins/imgplug"
printf 'name: imgplug\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - pillow\n' \
  >"$box/plugins/imgplug/plugin.yaml"
run install "${opts[@]}" --from-file "$archive" "${wh[@]}" --yes
check "setup: install with the baseline (rc $rc)" rc_is 0
declared_imgplug() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["plugins"].get("imgplug") == ["pillow"], d["plugins"]' "$rt/declared.json"
}
check "setup: imgplug is not declared yet" eval '! declared_imgplug 2>/dev/null'

# wait_for FILE PID: until FILE announces a pause (or PID is gone, or 5 s).
wait_for() {
  local i
  for ((i = 0; i < 100; i++)); do
    [ -s "$1" ] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

ha=$work/hook-a hb=$work/hook-b
PYRT_TEST_HOOK=plugin-declare:pause PYRT_TEST_HOOK_FILE=$ha \
  "$pyrt" plugins install imgplug "${opts[@]}" "${wh[@]}" </dev/null >"$work/a.out" 2>&1 &
apid=$!
check "plugins install reaches its declaration" wait_for "$ha" "$apid"
PYRT_TEST_HOOK=mid-baseline:pause PYRT_TEST_HOOK_FILE=$hb \
  "$pyrt" baseline "${opts[@]}" </dev/null >"$work/b.out" 2>&1 &
bpid=$!
# With the plugin's write under the lock the baseline waits for it and
# never gets here while the plugin is paused; without, it does.
if wait_for "$hb" "$bpid"; then
  echo "# the baseline got the lock while the plugin's declaration was pending"
fi
rm -f "$ha"
wait "$apid"
arc=$?
check "plugins install ends (rc $arc)" [ "$arc" -eq 0 ]
wait_for "$hb" "$bpid"
rm -f "$hb"
wait "$bpid"
brc=$?
check "the baseline ends (rc $brc)" [ "$brc" -eq 0 ]
check "imgplug's pillow is still declared after both" declared_imgplug
run plugins "${opts[@]}"
check "imgplug is ready" eval 'awk "\$1 == \"imgplug\"" "$work/out" | grep -q " ready "'

e2e_finish
