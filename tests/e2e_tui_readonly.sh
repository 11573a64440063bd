#!/usr/bin/env bash
# ctest: e2e_tui_readonly
# "May I?" before a question (issue 27.4): another user (uid 1234) on
# root's shared box opens the dashboard at 80x23 and at 60x16.  U
# (uninstall), R (rollback), i (a plugin's requirements), b (the baseline)
# and I (install) never ask a question whose answer the box would refuse:
# each shows the refusal with the whole "sudo pyrt ..." line to type
# instead, wrapped and never cut, and nothing to retry; the footer offers
# only keys this user can use, and so does ? (the keys overlay); nothing
# of the box changes.
# Needs root (to act as a second user).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup tui_readonly fixtures
. "$(dirname "$0")/lib/tui.sh"
[ "$(id -u)" -eq 0 ] || { echo "FAIL - e2e_tui_readonly needs root (two users)"; exit 1; }
command -v setpriv >/dev/null || { echo "FAIL - setpriv (util-linux) is missing"; exit 1; }
chmod 0755 "$work"
other=1234
ohome=$work/other-home
mkdir -m 0700 "$ohome"
chown "$other:$other" "$ohome"

# --- root's shared box: ready, a rollback target, a plugin missing a package --
mkdir -m 0755 "$work/opt"
box=$work/opt/agent
pins=$fx/pins.yaml
wh=$fx/wheelhouse
for force in "" --force; do
  run install --box-root "$box" --pins "$pins" --from-file "$fx/runtime.tar.gz" \
    --wheelhouse "$wh" --yes $force
  check "setup: root installs the shared box${force:+ again ($force)}" rc_is 0
done
check "setup: a previous runtime is kept (something to roll back to)" \
  [ -L "$box/runtime/python/previous" ]
mkdir -p -m 0755 "$box/plugins/pdfs"
printf 'name: pdfs\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - reportlab\n' \
  >"$box/plugins/pdfs/plugin.yaml"
chmod 0644 "$box/plugins/pdfs/plugin.yaml"
run plugins --box-root "$box" --pins "$pins"
snapshot() { find "$1" -printf '%p %u %m %s %T@\n' | LC_ALL=C sort; }
before=$(snapshot "$box")

# pyrt as uid 1234, in its own HOME, for tmux's panes.
real=$pyrt
cat >"$work/as-other" <<EOF
#!/bin/sh
exec setpriv --reuid=$other --regid=$other --clear-groups env HOME=$ohome TMPDIR=$ohome $real "\$@"
EOF
chmod 0755 "$work/as-other"
pyrt=$work/as-other

# refused TITLE COMMAND: the dialog TITLE holds the refusal and the whole
# fix line "sudo pyrt COMMAND --box-root ... --pins ..." (read with its
# rows joined and blanks set aside: the dialog wraps it, anywhere; under a
# deep checkout it is longer than a 60x16 screen and scrolls, so every row
# is read), and no question and no Retry.  The whole text is left in
# $work/dialog.all.
refused() {
  on_screen drawn "$1" || { echo "# no dialog '$1'" >&2; return 1; }
  refused_now "$@"
}
drawn() { dialog_text "$1" >/dev/null && grep -qE 'Esc/Enter close|y: yes' "$work/screen"; }
refused_now() {
  local text
  text=$(dialog_whole "$name" "$1") || { echo "# dialog '$1' could not be read whole" >&2; return 1; }
  printf '%s\n' "$text" >"$work/dialog.all"
  text=${text// /}
  local want="fix:sudopyrt$2--box-root${box}--pins$pins"
  want=${want// /}
  case $text in
    *"$want"*"sharedread-only"*) ;;
    *) echo "# dialog '$1' lacks '$want': $text" >&2; return 1 ;;
  esac
  lacks 'y: yes' && lacks 'Retry' && lacks 'pip install failed'
}
# The footer (the last row) of the screen last read.
footer() { tail -n 1 "$work/screen"; }

for size in 80x23 60x16; do
  name=d${size/x/_}
  start "$name" -- --box-root "$box" --pins "$pins" --wheelhouse "$wh"
  check "$size: uid $other's dashboard says ready" wait_for "$name" 30 'ready'
  wait_for "$name" 30 'pdfs .*missing_deps' >/dev/null
  check "$size: the footer offers no change (no I, i, b)" \
    eval 'footer | grep -q "q quit" && ! footer | grep -qE "(^| )(I install|i deps|b baseline)( |$)"'
  footer | sed 's/^/# footer: /'
  T send-keys -t "$name" '?'
  check "$size: ? lists the keys that read, none that would change the box" \
    eval 'wait_for "$name" 10 "smoke test: write" && lacks "uninstall the managed runtime" && lacks "roll back to the previous" && lacks "rerun the doc-library baseline"'
  T send-keys -t "$name" Escape
  wait_for "$name" 10 'PLUGIN' >/dev/null

  T send-keys -t "$name" U
  check "$size: U shows the refusal and the whole sudo line, never the question" \
    eval 'wait_for "$name" 10 "Uninstall" && refused Uninstall uninstall && lacks "Uninstall the managed Python runtime?"'
  T send-keys -t "$name" Escape
  wait_for "$name" 10 'PLUGIN' >/dev/null

  T send-keys -t "$name" R
  check "$size: R shows the refusal and the whole sudo line, never the question" \
    eval 'wait_for "$name" 10 "Rollback" && refused Rollback rollback && lacks "Roll back to the previous runtime?"'
  T send-keys -t "$name" Escape
  wait_for "$name" 10 'PLUGIN' >/dev/null

  select_row "$name" 'pdfs' >/dev/null
  T send-keys -t "$name" i
  check "$size: i on a plugin missing a package: the refusal, no question, pip never runs" \
    eval 'wait_for "$name" 10 "Plugin install" && refused "Plugin install" "plugins install pdfs" && lacks "Install the requirements of"'
  check "... and its fix keeps the wheelhouse in effect" \
    eval '[[ "$(tr -d " " <"$work/dialog.all")" == *"--wheelhouse$wh"* ]]'
  T send-keys -t "$name" Escape
  wait_for "$name" 10 'PLUGIN' >/dev/null

  T send-keys -t "$name" b
  check "$size: b shows the refusal and the whole sudo line, never the question" \
    eval 'wait_for "$name" 10 "Baseline" && refused Baseline baseline && lacks "Install the doc-library baseline again"'
  T send-keys -t "$name" Escape
  wait_for "$name" 10 'PLUGIN' >/dev/null

  T send-keys -t "$name" I
  check "$size: I shows the refusal, not the install consent" \
    eval 'wait_for "$name" 10 "Install" && refused Install install && lacks "What will happen"'
  T send-keys -t "$name" Escape
  wait_for "$name" 10 'PLUGIN' >/dev/null
  T send-keys -t "$name" q
  check "$size: q leaves with status 0" eval 'wait_exit "$name" 10 && [ "$rc" -eq 0 ]'
done

after=$(snapshot "$box")
check "nothing in the box changed while uid $other used the dashboard" [ "$before" = "$after" ]
[ "$before" = "$after" ] || diff <(echo "$before") <(echo "$after") | head -20

# Root, who may change it, is still asked.
pyrt=$real
size=80x23 start root -- --box-root "$box" --pins "$pins" --wheelhouse "$wh"
wait_for root 30 'pdfs .*missing_deps' >/dev/null
check "root's footer offers I, i and b" \
  eval 'footer | grep -q "I install" && footer | grep -q "i deps" && footer | grep -q "b baseline"'
T send-keys -t root '?'
check "root: ? lists uninstall and rollback" \
  eval 'wait_for root 10 "uninstall the managed runtime" && shows "roll back to the previous"'
T send-keys -t root Escape
wait_for root 10 'PLUGIN' >/dev/null
T send-keys -t root U
check "root: U asks, with app/'s facts" \
  eval 'wait_for root 10 "Uninstall the managed Python runtime" && [[ "$(dialog_text Uninstall | tr -d " ")" == *"remove:$box/runtime/python/{current,previous,installs,staging,downloads}"* ]]'
T send-keys -t root n
check "root: n changes nothing" wait_for root 10 'Uninstall cancelled'
T send-keys -t root R
check "root: R asks, naming the runtime that becomes active" \
  wait_for root 10 'Roll back to the previous runtime'
T send-keys -t root n
T send-keys -t root q
wait_exit root 10

e2e_finish
