#!/usr/bin/env bash
# ctest: e2e_tui_card
# The dashboard's runtime card at 80x23 and 60x16 (issue 29.8): a card no
# taller than what it holds — no blank rows inside it while the plugin list
# below says "N more…" (its rows go to the list instead).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup tui_card fixtures
. "$(dirname "$0")/lib/tui.sh"
box=$work/box
pins=$fx/pins.yaml
"$pyrt" install --yes --box-root "$box" --pins "$pins" --from-file "$fx/runtime.tar.gz" \
  --wheelhouse "$fx/wheelhouse" >/dev/null 2>&1
mkdir -p "$box/plugins"
cp -r "$src/tests/fixtures/sample-box/plugins/." "$box/plugins/"
check "setup: a ready runtime and the seven sample plugins" \
  eval '[ -x "$box/runtime/python/current/bin/python3" ] && [ "$(ls "$box/plugins" | wc -l)" -ge 7 ]'

# blank_card_rows FILE: rows inside the Runtime box that hold nothing.
blank_card_rows() {
  python3 -c '
import sys
rows = open(sys.argv[1], encoding="utf-8").read().splitlines()
top = next(i for i, r in enumerate(rows) if "Runtime" in r)
n = 0
for r in rows[top + 1:]:
    if r.strip().startswith(("└", "+")):
        break
    n += r.strip().strip("│|").strip() == ""
print(n)' "$1"
}
for geom in 80x23 60x16; do
  size=$geom start "dash$geom" -- --box-root "$box" --pins "$pins"
  check "$geom: the dashboard shows the card and the plugins" wait_for "dash$geom" 30 'State +✓ ready'
  wait_for "dash$geom" 30 'PLUGIN' >/dev/null
  screen_still "dash$geom" "$work/$geom.screen"
  blanks=$(blank_card_rows "$work/$geom.screen")
  more=$(grep -c 'more…' "$work/$geom.screen")
  check "$geom: no blank row in the card ($blanks) while the list says 'more…' ($more)" \
    eval '[ "$blanks" -eq 0 ] || [ "$more" -eq 0 ]'
  check "$geom: the card still shows its first fact (Version)" grep -q "Version" "$work/$geom.screen"
  T kill-session -t "dash$geom"
done
e2e_finish
