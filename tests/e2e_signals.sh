#!/usr/bin/env bash
# End to end: SIGINT, SIGTERM and SIGHUP at every step of an install,
# the baseline included (a build with -DPYRT_TEST_HOOKS=ON pauses the install
# at a crash point and the signal is sent there); a reader that closes
# pyrt's output (SIGPIPE); a second Ctrl-C during the cleanup.
#
# Before `current` moves a signal cancels: exit 130, a result event that
# says so, current untouched, nothing left behind.  From the temporary link
# of the swap on it is too late, and the install is reported as the success
# it is; in the baseline, pip is stopped (130, the runtime stays active)
# unless it has already finished.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup signals fixtures
. "$src/tests/lib/faults.sh"
fault_box "$work/box"
started=$SECONDS
wh=(--wheelhouse "$fx/wheelhouse")

run "${inst[@]}" "${opts[@]}"
check "setup: a first install" rc_is 0

absent() { ! grep -qE -- "$1" "$2"; }

cancelled_points="locked after-download staging-made mid-extract before-check before-marker
  before-move before-swap"
late_points="link-made between-swaps after-swap"
for sig in INT TERM HUP; do
  for point in $cancelled_points; do
    before=$(link_id "$current")
    n=$(ls "$rt/installs" | wc -l)
    at "$point" "kill -$sig \$pid"
    check "SIG$sig at $point: exit 130 (rc $rc)" rc_is 130
    check "SIG$sig at $point: a result event that says cancelled" result_is false 130
    check "SIG$sig at $point: no activate:end event" \
      absent '"step": *"activate", *"state": *"end"' "$work/out"
    check "SIG$sig at $point: current untouched" [ "$(link_id "$current")" = "$before" ]
    check "SIG$sig at $point: no install tree added" [ "$(ls "$rt/installs" | wc -l)" -eq "$n" ]
    settled "SIG$sig at $point"
  done
  for point in $late_points; do
    before=$(link_id "$current")
    at "$point" "kill -$sig \$pid"
    check "SIG$sig at $point: too late to cancel, exit 0 (rc $rc)" rc_is 0
    check "SIG$sig at $point: a result event that says ok" result_is true 0
    check "SIG$sig at $point: the new install is current" [ "$(link_id "$current")" != "$before" ]
    settled "SIG$sig at $point"
  done
done

# The baseline: before pip starts the signal stops it; once pip is done it
# is too late, and the marker says complete.
for sig in INT TERM HUP; do
  at baseline-begin "kill -$sig \$pid" install --yes --force --from-file "$archive" "${wh[@]}"
  check "SIG$sig at baseline-begin: exit 130 (rc $rc)" rc_is 130
  check "SIG$sig at baseline-begin: a result event that says cancelled" result_is false 130
  check "SIG$sig at baseline-begin: the error says only the baseline is incomplete" \
    grep -q "only the doc-library baseline is incomplete" "$work/err"
  check "SIG$sig at baseline-begin: the baseline is not recorded as complete" \
    [ "$(baseline_state)" != complete ]
  settled "SIG$sig at baseline-begin"
  at mid-baseline "kill -$sig \$pid" install --yes --force --from-file "$archive" "${wh[@]}"
  check "SIG$sig at mid-baseline: pip had finished, exit 0 (rc $rc)" rc_is 0
  check "SIG$sig at mid-baseline: a result event that says ok" result_is true 0
  check "SIG$sig at mid-baseline: the baseline is complete" [ "$(baseline_state)" = complete ]
  settled "SIG$sig at mid-baseline"
done

# --- a second Ctrl-C during the cleanup is ignored, the cleanup completes --
for point in before-move before-swap; do
  before=$(link_id "$current")
  at "$point:pause,cleanup:pause" 'kill -INT $pid'
  check "double Ctrl-C ($point, then cleanup): exit 130 (rc $rc)" rc_is 130
  check "double Ctrl-C ($point): a result event that says cancelled" result_is false 130
  check "double Ctrl-C ($point): one 'cancelling' line" \
    [ "$(grep -c 'cancelling' "$work/err")" -eq 1 ]
  check "double Ctrl-C ($point): current untouched" [ "$(link_id "$current")" = "$before" ]
  settled "double Ctrl-C ($point)"
done

# --- SIGPIPE: the reader of pyrt's output goes away -----------------------
# pyrt ignores SIGPIPE; the install carries on to a true end.
for extra in --no-baseline --wheelhouse; do
  args=(install --yes --json --force --from-file "$archive")
  if [ "$extra" = --no-baseline ]; then args+=(--no-baseline); else args+=("${wh[@]}"); fi
  before=$(link_id "$current")
  "$pyrt" "${args[@]}" "${opts[@]}" </dev/null 2>"$work/err" | head -1 >"$work/first"
  rcs=("${PIPESTATUS[@]}")
  check "SIGPIPE ($extra): pyrt was not killed by it and ended ok (rc ${rcs[0]})" [ "${rcs[0]}" -eq 0 ]
  check "SIGPIPE ($extra): head got one whole JSON event" python3 -c '
import json,sys; json.loads(open(sys.argv[1]).read())' "$work/first"
  check "SIGPIPE ($extra): the new install is current" [ "$(link_id "$current")" != "$before" ]
  check "SIGPIPE ($extra): the install log has the whole run" \
    grep -q "installed CPython" "$(ls -t "$rt"/logs/install-* | head -1)"
  settled "SIGPIPE ($extra)"
done
check "SIGPIPE: the baseline is complete" [ "$(baseline_state)" = complete ]

echo "# e2e_signals: $((SECONDS - started)) s"
e2e_finish
