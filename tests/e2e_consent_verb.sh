#!/usr/bin/env bash
# ctest: e2e_consent_verb
# The consent says what will happen to the box (issue 29.8): "repair" for a
# broken runtime (its interpreter deleted), "install" for an empty box, at
# 80x23.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup consent_verb fixtures
. "$(dirname "$0")/lib/tui.sh"
box=$work/box
pins=$fx/pins.yaml
o=(--box-root "$box" --pins "$pins" --from-file "$fx/runtime.tar.gz" --no-baseline)

size=80x23 start fresh -- install "${o[@]}"
check "empty box: the consent says install" \
  wait_for fresh 15 'pyrt is about to install a managed Python runtime:'
T send-keys -t fresh n
wait_exit fresh 10

run install --yes "${o[@]}"
check "setup: installed (rc $rc)" rc_is 0
rm -f "$box/runtime/python/current/bin/python3.11"
size=80x23 start broken -- install "${o[@]}"
check "broken runtime: the consent says repair" \
  wait_for broken 15 'pyrt is about to repair the managed Python runtime \(it is broken\):'
check "... and its Runtime row too" shows '(build fixture) (repair)'
T send-keys -t broken n
wait_exit broken 10
e2e_finish
