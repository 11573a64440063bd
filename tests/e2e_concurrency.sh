#!/usr/bin/env bash
# End to end: many pyrt processes on one box, and on two.
#   - 8 installers on a new box: one installs, seven wait and find it done;
#   - 8 with --no-wait: exactly one succeeds, seven exit 7 naming it;
#   - status probing the lock in a loop never makes an install --no-wait
#     fail (finding 9);
#   - status during installs and upgrades: never not_provisioned or broken
#     once a runtime is current, ready (exit 0) during an upgrade;
#   - two box roots do not block each other.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup concurrency fixtures
. "$src/tests/lib/faults.sh"
started=$SECONDS
plain=(install --yes --no-baseline --from-file "$archive")

# --- 8 installers, all waiting --------------------------------------------
fault_box "$work/box-a"
reader_start
pids=()
for i in 1 2 3 4 5 6 7 8; do
  "$pyrt" "${plain[@]}" "${opts[@]}" --json </dev/null >"$work/w$i.out" 2>"$work/w$i.err" &
  pids+=($!)
done
rcs=()
for p in "${pids[@]}"; do wait "$p"; rcs+=($?); done
check "8 waiting installers: all exit 0 (${rcs[*]})" [ "${rcs[*]}" = "0 0 0 0 0 0 0 0" ]
installed=$(cat "$work"/w?.out | grep '"event": *"result"' | grep -c '"already_current": *false')
noop=$(cat "$work"/w?.out | grep '"event": *"result"' | grep -c '"already_current": *true')
check "one installed ($installed), seven found it done ($noop)" [ "$installed" -eq 1 ] && [ "$noop" -eq 7 ]
check "one install tree" [ "$(ls "$rt/installs" | wc -l)" -eq 1 ]
settled "8 waiting installers"
reader_stop
reader_verdict "8 waiting installers"

# --- 8 installers with --no-wait -------------------------------------------
# The one that gets the lock pauses there until the seven others are done.
fault_box "$work/box-b"
rm -f "$hookfile"
pids=()
for i in 1 2 3 4 5 6 7 8; do
  PYRT_TEST_HOOK=locked:pause PYRT_TEST_HOOK_FILE=$hookfile \
    "$pyrt" "${plain[@]}" --no-wait "${opts[@]}" --json </dev/null >"$work/n$i.out" 2>"$work/n$i.err" &
  pids+=($!)
done
wait_hook 60 || bad "no installer reached the lock"
winner=$(awk '{print $1}' "$hookfile")
"$pyrt" status "${opts[@]}" --json >"$work/st.json" 2>/dev/null
st_rc=$?
check "status while the first install runs on an empty box: installing (exit $st_rc)" \
  eval '[ "$st_rc" -eq 1 ] && grep -q "\"state\": \"installing\"" "$work/st.json" &&
        grep -q "\"installer_pid\": $winner" "$work/st.json" &&
        grep -q "\"upgrade_in_progress\": false" "$work/st.json"'
rcs=() ok_n=0 busy_n=0 named=0
for i in 1 2 3 4 5 6 7 8; do
  p=${pids[$((i - 1))]}
  [ "$p" = "$winner" ] && continue
  wait "$p"
  r=$?
  rcs+=($r)
  [ "$r" -eq 7 ] && busy_n=$((busy_n + 1))
  grep -q "pid $winner" "$work/n$i.err" && named=$((named + 1))
done
rm -f "$hookfile"
wait "$winner"
wrc=$?
check "--no-wait: the one holding the lock succeeds (rc $wrc)" [ "$wrc" -eq 0 ]
check "--no-wait: the seven others exit 7 (${rcs[*]})" [ "$busy_n" -eq 7 ]
check "--no-wait: and name the holder's pid" [ "$named" -eq 7 ]
settled "8 no-wait installers"

# --- status probing never turns away an install --no-wait ------------------
fault_box "$work/box-a"
prober() { while [ ! -e "$work/probe.stop" ]; do "$pyrt" status "${opts[@]}" >/dev/null 2>&1; done; }
rm -f "$work/probe.stop"
prober & p1=$!
prober & p2=$!
busy=0 tries=40
for ((i = 0; i < tries; i++)); do
  "$pyrt" "${plain[@]}" --no-wait "${opts[@]}" </dev/null >/dev/null 2>"$work/nw.err"
  [ $? -eq 7 ] && busy=$((busy + 1))
done
touch "$work/probe.stop"
wait "$p1" "$p2"
check "$tries installs --no-wait while status loops probe the lock: none busy ($busy)" [ "$busy" -eq 0 ]

# --- status during installs and upgrades -----------------------------------
fault_box "$work/box-c"
reader_start
run "${inst[@]}" "${opts[@]}"
check "a first install under the reader" rc_is 0
for ((i = 0; i < 4; i++)); do
  run "${inst[@]}" "${opts[@]}"
  check "upgrade $i under the reader" rc_is 0
done
# An upgrade that lingers before the swap, and one with a baseline (pip).
at before-swap 'sleep 1'
check "a slow upgrade under the reader" rc_is 0
run install --yes --force --from-file "$archive" --wheelhouse "$fx/wheelhouse" "${opts[@]}"
check "an upgrade with the baseline under the reader" rc_is 0
reader_stop
reader_verdict "status during installs and upgrades" need_upgrade
check "status during installs: never not_provisioned or broken once ready" \
  eval '! sed -n "/ready/,\$p" "$work/reader.log" | grep -qE "not_provisioned|broken"'
settled "after the upgrades"

# --- two box roots in parallel ---------------------------------------------
fault_box "$work/box-d"
box_d_opts=("${opts[@]}")
at locked '
  fault_box "$work/box-e"
  t0=$SECONDS
  "$pyrt" "${plain[@]}" --no-wait "${opts[@]}" </dev/null >/dev/null 2>"$work/e.err"
  e_rc=$?
  e_secs=$((SECONDS - t0))
  fault_box "$work/box-d"'
check "box E installs (--no-wait, rc $e_rc) while box D's installer holds D's lock" [ "$e_rc" -eq 0 ]
check "without waiting for D (${e_secs} s)" [ "$e_secs" -lt 20 ]
check "box D's install then ends ready (rc $rc)" rc_is 0
settled "box D"
fault_box "$work/box-e"
settled "box E"

echo "# e2e_concurrency: $((SECONDS - started)) s"
e2e_finish
