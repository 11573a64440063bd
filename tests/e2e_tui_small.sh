#!/usr/bin/env bash
# ctest: e2e_tui_small
# The TUI in a 60x16 tmux pane: the doctor screen puts failures first and
# says how many checks are below the fold ("N more ↓"), so the one ✗ is on
# screen when the tally says "1 failed"; the ? overlay fits; and (at 80x23)
# the progress bar shows the extraction's own numbers once it begins; F1
# opens the keys and F10 quits, as in htop.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup tui_small fixtures
. "$(dirname "$0")/lib/tui.sh"
box=$work/box
pins=$fx/pins.yaml
# A runtime without the baseline: doctor's baseline check fails, the rest
# mostly pass.
"$pyrt" install --yes --no-baseline --box-root "$box" --pins "$pins" \
  --from-file "$fx/runtime.tar.gz" >/dev/null 2>&1
check "the fixture runtime installs (no baseline)" [ -x "$box/runtime/python/current/bin/python3" ]

size=60x16 start dash -- --box-root "$box" --pins "$pins"
wait_for dash 20 'PLUGIN|State' >/dev/null
T send-keys -t dash d
check "60x16: doctor runs" wait_for dash 60 'doctor: [0-9]+ passed, [0-9]+ warnings?, 1 failed'
check "the failed check is on screen, first" \
  eval 'grep -m1 -E "^│? *[✓✗!-] " "$work/screen" | grep -q "✗"'
check "the checks below the fold are counted" grep -qE '[0-9]+ more ↓' "$work/screen"
cp "$work/screen" "$work/doctor.screen"
T send-keys -t dash G
check "at the end, nothing more below" wait_for dash 10 'doctor: '
check "... and no 'more ↓'" eval '! grep -q "more ↓" "$work/screen"'

T send-keys -t dash Escape
wait_for dash 10 'PLUGIN|State' >/dev/null
T send-keys -t dash '?'
check "? opens the key overlay" wait_for dash 10 'Keys'
settle dash 'Keys'
cp "$work/screen" "$work/help.screen"
check "the overlay fits 60x16: its box is closed at the bottom" \
  eval 'grep -qE "└─+┘|\+-+\+" "$work/help.screen"'
check "... and every line is within 60 columns" \
  eval '[ "$(wc -L <"$work/help.screen")" -le 60 ]'
check "... with every key: the last ones (t, q) too" \
  eval 'grep -qE "│ t +next colour theme" "$work/help.screen" && grep -qE "│ q F10 +quit" "$work/help.screen"'
check "... no description cut short" eval '! grep -q "…" "$work/help.screen"'
check "... and it says how to close it" grep -q "any key closes" "$work/help.screen"
# htop's keys (issue 29.8): F1 opens the keys, F10 quits.
T send-keys -t dash Escape
wait_for dash 10 'PLUGIN|State' >/dev/null
T send-keys -t dash F1
check "F1 opens the key overlay" wait_for dash 10 'Keys'
T send-keys -t dash Escape
wait_for dash 10 'PLUGIN|State' >/dev/null
T send-keys -t dash F10
check "F10 quits" wait_exit dash 10

# --- the bar during and after extraction is the extraction's ------------------
# Paused after the tree is extracted (before its check): the bar says what
# extraction did, not "downloaded ... 100%" under the Extract step.
e2e_mirror
sed "s#url: .*#url: $mirror/fixture/runtime.tar.gz#" "$pins" >"$work/pins-mirror.yaml"
xbox=$work/xbox
size=80x23 start wiz PYRT_TEST_HOOK=before-check:pause PYRT_TEST_HOOK_FILE="$work/xhook" -- \
  --box-root "$xbox" --pins "$work/pins-mirror.yaml" --cacert "$fx/ca.pem" --no-baseline
wait_for wiz 15 'What will happen' >/dev/null
T send-keys -t wiz y
for _ in $(seq 300); do grep -q before-check "$work/xhook" 2>/dev/null && break; sleep 0.1; done
check "the install paused after extraction" grep -q before-check "$work/xhook"
check "the bar is the extraction's: what it read and how long" \
  wait_for wiz 10 'extracted the 7\.[0-9] MiB archive in [0-9.]+s'
check "... not the download's line" eval '! grep -q "downloaded 7" "$work/screen"'
rm -f "$work/xhook"
check "the install then completes" wait_for wiz 60 'Install complete'
T send-keys -t wiz q q

# --- during the baseline the bar is the baseline's (issue 29.8) ---------------
bbox=$work/bbox
size=80x23 start bwiz PYRT_TEST_HOOK=baseline-repaired:pause PYRT_TEST_HOOK_FILE="$work/bhook" -- \
  --box-root "$bbox" --pins "$work/pins-mirror.yaml" --cacert "$fx/ca.pem" --wheelhouse "$fx/wheelhouse"
wait_for bwiz 15 'What will happen' >/dev/null
T send-keys -t bwiz y
for _ in $(seq 300); do [ -s "$work/bhook" ] && break; sleep 0.1; done
check "the install paused in the baseline" test -s "$work/bhook"
check "the bar says the baseline runs" wait_for bwiz 10 'installing the baseline: step [0-9] of [0-9]'
check "... not the extraction's last words" eval '! grep -q "extracted the" "$work/screen"'
rm -f "$work/bhook"
check "... and then that it is done" wait_for bwiz 90 'Install complete'
T send-keys -t bwiz q q
[ "$fail" -eq 0 ] && [ -z "${SHOW:-}" ] || sed 's/^/# /' "$work/doctor.screen" "$work/help.screen"
e2e_finish
