#!/usr/bin/env bash
# End to end: faults at the install's named crash points (a build with
# -DPYRT_TEST_HOOKS=ON; see core/util/testhook.h).  A cancel is honoured before
# the swap of `current` or not at all; a SIGKILL at any point leaves nothing
# that the next run does not repair, under the lock, while a reader running
# status and verify all along never sees a missing or partial runtime; a
# pause at any point keeps status ready (an upgrade in progress).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup faults fixtures
. "$src/tests/lib/faults.sh"
fault_box "$work/box"
started=$SECONDS

run "${inst[@]}" "${opts[@]}"
check "setup: a first install" rc_is 0
first=$(readlink "$current")

absent() { ! grep -qE -- "$1" "$2"; }
staging_empty() { [ -z "$(ls -A "$rt/staging")" ]; }
installs() { ls "$rt/installs" | wc -l; }

# --- a cancel just before the swap: honoured, nothing changes -------------
at before-swap 'kill -INT $pid'
check "SIGINT before the swap exits 130" rc_is 130
check "current still points at the old install" [ "$(readlink "$current")" = "$first" ]
check "the result says cancelled and not ok" result_is false 130
check "no activate:end event was sent" absent '"step": *"activate", *"state": *"end"' "$work/out"
check "the moved tree is removed again (one install left)" [ "$(installs)" -eq 1 ]
check "staging is empty" staging_empty

# --- a cancel just after the swap: too late, reported as the success it is -
at after-swap 'kill -TERM $pid'
check "SIGTERM after the swap: the install succeeded (exit 0)" rc_is 0
check "current points at the new install" [ "$(readlink "$current")" != "$first" ]
check "the result says ok" result_is true 0
check "stderr does not claim the previous runtime is still active" \
  absent "previous runtime is still active" "$work/err"
check "downloads/ is empty (the private copy consumed)" \
  [ -z "$(ls -A "$rt/downloads")" ]
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
  check "$point: and downloads/ empty" [ -z "$(ls -A "$rt/downloads")" ]
  check "$point: at most the install and its rollback target remain" [ "$(installs)" -le 2 ]
  second=$(readlink "$current")
done

# --- finding 8: killed between the two link moves --------------------------
# A box with one install and no rollback target yet; the upgrade is killed
# once `current` has moved and before `previous` has.
fault_box "$work/box8"
run "${inst[@]}" "${opts[@]}"
a=$(link_id "$current")
at between-swaps 'kill -KILL $pid'
check "between-swaps: killed (rc $rc)" [ "$rc" -eq 137 ]
b=$(link_id "$current")
check "between-swaps: current is the new install" [ -n "$b" ] && [ "$b" != "$a" ]
run rollback "${opts[@]}"
check "rollback finds the install that was current before the kill (rc $rc: $(tail -1 "$work/err"))" rc_is 0
check "and makes it current again" [ "$(link_id "$current")" = "$a" ]
check "with the killed run's install as the rollback target" [ "$(link_id "$rt/previous")" = "$b" ]
settled "between-swaps, then rollback"
# Again over an existing rollback target, repaired by the next install.
at between-swaps 'kill -KILL $pid'
c=$(link_id "$current")
check "between-swaps again: current moved on" [ -n "$c" ] && [ "$c" != "$a" ] && [ "$c" != "$b" ]
run install --yes --no-baseline --from-file "$archive" "${opts[@]}"
check "the next install (a no-op) succeeds" rc_is 0
check "and keeps the install current before the kill as the rollback target" \
  [ "$(link_id "$rt/previous")" = "$a" ]
check "the superseded rollback target is gone" [ ! -e "$rt/installs/$b" ]
settled "between-swaps, then a no-op install"

# A kill between creating the temporary link and renaming it.
at link-made 'kill -KILL $pid'
check "link-made: killed (rc $rc)" [ "$rc" -eq 137 ]
check "link-made: a temporary .link.<pid> was left" ls "$rt"/.link.*
check "link-made: current unchanged" [ "$(link_id "$current")" = "$c" ]
run install --yes --no-baseline --from-file "$archive" "${opts[@]}"
check "link-made: the next install succeeds" rc_is 0
check "link-made: and removes the stray link" [ -z "$(ls -A "$rt" | grep '^\.link\.')" ]
settled "link-made, then a no-op install"

# --- SIGKILL at every crash point, a reader running all along -------------
fault_box "$work/box"
reader_start
install_points="locked after-download staging-made mid-extract before-check before-marker
  before-move before-swap link-made between-swaps after-swap"
for point in $install_points; do
  before=$(link_id "$current")
  at "$point" 'kill -KILL $pid'
  check "kill at $point (rc $rc)" [ "$rc" -eq 137 ]
  case $point in
    between-swaps | after-swap)
      check "$point: current is the new install" [ "$(link_id "$current")" != "$before" ] ;;
    *)
      check "$point: current unchanged" [ "$(link_id "$current")" = "$before" ] ;;
  esac
  run install --yes --no-baseline --from-file "$archive" "${opts[@]}"
  check "$point: the rerun ends ready (rc $rc)" rc_is 0
  [ "$point" = between-swaps ] &&
    check "$point: the rollback target is the install current before the kill" \
      [ "$(link_id "$rt/previous")" = "$before" ]
  settled "kill at $point"
done
wh=(--wheelhouse "$fx/wheelhouse")
for point in baseline-begin mid-baseline; do
  before=$(link_id "$current")
  at "$point" 'kill -KILL $pid' install --yes --force --from-file "$archive" "${wh[@]}"
  check "kill at $point (rc $rc)" [ "$rc" -eq 137 ]
  check "$point: the new runtime is active" [ "$(link_id "$current")" != "$before" ]
  run install --yes --from-file "$archive" "${wh[@]}" "${opts[@]}"
  check "$point: the rerun ends ready with the baseline complete (rc $rc)" rc_is 0
  check "$point: status says the baseline is complete" [ "$(baseline_state)" = complete ]
  settled "kill at $point"
done

# --- a pause at every crash point: status stays ready, an upgrade running -
# (finding 9: "installing" is for a box with no usable runtime).
during_pause() {
  "$pyrt" status "${opts[@]}" --json >"$work/pause.json" 2>/dev/null
  echo "$point $? $pid $(tr -d '\n ' <"$work/pause.json")" >>"$work/pauses"
}
: >"$work/pauses"
for point in $install_points; do
  at "$point" 'during_pause'
  check "pause at $point: the install ends ready (rc $rc)" rc_is 0
done
for point in baseline-begin mid-baseline; do
  at "$point" 'during_pause' install --yes --force --from-file "$archive" "${wh[@]}"
  check "pause at $point: the install ends ready (rc $rc)" rc_is 0
done
settled "after the pauses"
check "status during every pause: ready (exit 0), an upgrade in progress, by the installer" \
  python3 -c '
import json,sys
bad=[]
for line in open(sys.argv[1]):
    point, rc, pid, doc = line.split(" ", 3)
    st = json.loads(doc)
    if not (rc == "0" and st["state"] == "ready" and st["upgrade_in_progress"] is True
            and st["installer_pid"] == int(pid)):
        bad.append(f"{point}: exit {rc}, {doc.strip()[:200]}")
assert not bad, bad' "$work/pauses"
reader_stop
reader_verdict "kills and pauses at every crash point" need_upgrade

# --- SIGKILL mid-download: the partial is kept and resumed ---------------
e2e_mirror
fault_box "$work/box-dl"
slow=$work/pins-slow.yaml
sed "s#url: .*#url: https://127.0.0.1:$port/pbs/fixture/runtime.tar.gz?fault=slow:400000#" \
  "$fx/pins.yaml" >"$slow"
"$pyrt" install --yes --no-baseline --box-root "$box" --pins "$slow" --cacert "$fx/ca.pem" \
  </dev/null >"$work/out" 2>&1 &
pid=$!
for _ in $(seq 150); do
  s=$(stat -c %s "$rt"/downloads/*.partial 2>/dev/null || echo 0)
  [ "$s" -gt 500000 ] && break
  sleep 0.1
done
kill -KILL "$pid"; wait "$pid"
check "mid-download: killed with a partial download on disk ($s bytes)" [ "$s" -gt 500000 ]
check "mid-download: only the resumable partial is left" [ -z "$(box_problems partial | grep -v 'current\|status\|verify')" ]
: >"$work/requests.log"
run install --yes --no-baseline --mirror "$mirror" "${opts[@]}"
check "mid-download: the rerun ends ready (rc $rc)" rc_is 0
check "mid-download: the rerun resumed with a Range request" grep -q 'bytes=[1-9][0-9]*-' "$work/requests.log"
settled "kill mid-download"

echo "# e2e_faults: $((SECONDS - started)) s"
e2e_finish
