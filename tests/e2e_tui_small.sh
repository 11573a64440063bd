#!/usr/bin/env bash
# ctest: e2e_tui_small
# The TUI in a 60x16 tmux pane: the doctor screen puts failures first and
# says how many checks are below the fold ("N more ↓"), so the one ✗ is on
# screen when the tally says "1 failed"; the ? overlay fits.
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
  eval 'grep -qE "│ t +next colour theme" "$work/help.screen" && grep -qE "│ q +quit" "$work/help.screen"'
check "... no description cut short" eval '! grep -q "…" "$work/help.screen"'
check "... and it says how to close it" grep -q "any key closes" "$work/help.screen"
T send-keys -t dash q q
[ "$fail" -eq 0 ] && [ -z "${SHOW:-}" ] || sed 's/^/# /' "$work/doctor.screen" "$work/help.screen"
e2e_finish
