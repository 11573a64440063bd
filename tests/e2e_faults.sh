#!/usr/bin/env bash
# End to end: faults at the activation's named crash points (a build with
# -DPYRT_TEST_HOOKS=ON; see core/testhook.h).  A cancel is honoured before
# the swap of `current` or not at all; a kill anywhere leaves nothing that
# the next install does not clean up, and doctor sees what was left.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup faults fixtures
box=$work/box
current=$box/runtime/python/current
opts=(--box-root "$box" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem")
inst=(install --yes --no-baseline --force --from-file "$fx/runtime.tar.gz")
hookfile=$work/hook

run "${inst[@]}" "${opts[@]}"
check "setup: a first install" rc_is 0
first=$(readlink "$current")

# at POINT ACTION: start an install that pauses at POINT; when it is there,
# do ACTION (a shell command) and let it go on.  Sets $rc, out, err.
at() {
  local point=$1 action=$2
  rm -f "$hookfile"
  PYRT_TEST_HOOK="$point:pause" PYRT_TEST_HOOK_FILE=$hookfile \
    "$pyrt" "${inst[@]}" "${opts[@]}" --json </dev/null >"$work/out" 2>"$work/err" &
  local pid=$! i
  for ((i = 0; i < 300; i++)); do [ -s "$hookfile" ] && break; sleep 0.1; done
  if [ ! -s "$hookfile" ]; then
    bad "the install never reached $point (built without -DPYRT_TEST_HOOKS=ON?)"
    kill "$pid"; wait "$pid"; rc=255; return
  fi
  eval "$action"
  rm -f "$hookfile"
  wait "$pid"
  rc=$?
}
result() { tail -1 "$work/out"; }
absent() { ! grep -qE -- "$1" "$2"; }
staging_empty() { [ -z "$(ls -A "$box/runtime/python/staging")" ]; }
installs() { ls "$box/runtime/python/installs" | wc -l; }

# --- a cancel just before the swap: honoured, nothing changes -------------
at before-swap 'kill -INT $pid'
check "SIGINT before the swap exits 130" rc_is 130
check "current still points at the old install" [ "$(readlink "$current")" = "$first" ]
check "the result says cancelled and not ok" python3 -c '
import json,sys; r=json.loads(sys.argv[1])
assert r["event"]=="result" and r["ok"] is False and r["exit_code"]==130, r' "$(result)"
check "no activate:end event was sent" absent '"step": *"activate", *"state": *"end"' "$work/out"
check "the moved tree is removed again (one install left)" [ "$(installs)" -eq 1 ]
check "staging is empty" staging_empty

# --- a cancel just after the swap: too late, reported as the success it is -
at after-swap 'kill -TERM $pid'
check "SIGTERM after the swap: the install succeeded (exit 0)" rc_is 0
check "current points at the new install" [ "$(readlink "$current")" != "$first" ]
check "the result says ok" python3 -c '
import json,sys; r=json.loads(sys.argv[1])
assert r["event"]=="result" and r["ok"] is True, r' "$(result)"
check "stderr does not claim the previous runtime is still active" \
  absent "previous runtime is still active" "$work/err"
check "downloads/ is empty (the private copy consumed)" \
  [ -z "$(ls -A "$box/runtime/python/downloads")" ]
check "the new runtime verifies" "$pyrt" verify "${opts[@]}"
second=$(readlink "$current")

# --- SIGKILL before the tree leaves staging: doctor and the next run know --
for point in staging-made before-marker before-move; do
  at "$point" 'kill -KILL $pid'
  check "$point: killed (rc $rc)" [ "$rc" -eq 137 ]
  check "$point: current unchanged" [ "$(readlink "$current")" = "$second" ]
  "$pyrt" doctor "${opts[@]}" --json >"$work/doc.json" 2>/dev/null
  check "$point: doctor reports the dead installer's staging" python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
c=[c for c in d["checks"] if c["id"]=="staging"][0]
assert c["verdict"]=="warn" and "1" in c["detail"], c' "$work/doc.json"
  run "${inst[@]}" "${opts[@]}"
  check "$point: the next install succeeds" rc_is 0
  check "$point: and leaves staging empty" staging_empty
  check "$point: and downloads/ empty" [ -z "$(ls -A "$box/runtime/python/downloads")" ]
  check "$point: at most the install and its rollback target remain" [ "$(installs)" -le 2 ]
  second=$(readlink "$current")
done

e2e_finish
