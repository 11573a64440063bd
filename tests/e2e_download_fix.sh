#!/usr/bin/env bash
# ctest: e2e_download_fix
# A failed download says what to do (issue 29.3).  Offline (the fixture
# pins name upstream.invalid), `pyrt install --yes` with --box-root and
# --pins exits 4 with a fix: doctor's words (/etc/resolv.conf, the proxy
# variable, --mirror, --from-file) and `run "pyrt doctor …"` with the box
# and pins in effect; that doctor line, run as printed, checks that box
# with those pins.  --json's result carries the same "fix".  The TUI's
# "Download failed" screen shows it too, at 80x23.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup download_fix fixtures
. "$(dirname "$0")/lib/tui.sh"
box="$work/my box"
pins=$fx/pins.yaml

run install --yes --box-root "$box" --pins "$pins"
check "offline install exits 4 (network)" rc_is 4
check "... says the download failed" has 'download of https://upstream.invalid/.* failed' err
check "... its fix names resolv.conf, the proxy variable, --mirror and --from-file" \
  eval 'grep "^fix: " "$work/err" | grep "/etc/resolv.conf" | grep "https_proxy" | grep -- "--mirror URL" | grep -q -- "--from-file ARCHIVE"'
check "... and doctor with the box and the pins in effect" \
  grep -qF "fix: run \"pyrt doctor --box-root '$box' --pins $pins\"" "$work/err"
doctor_line=$(sed -n 's/^fix: run "\(pyrt doctor [^"]*\)".*/\1/p' "$work/err")
mkdir -p "$work/bin"
ln -s "$pyrt" "$work/bin/pyrt"
PATH="$work/bin:$PATH" bash -c "$doctor_line" </dev/null >"$work/out" 2>"$work/err"
rc=$?
check "the doctor line runs as printed (rc $rc)" rc_is 1
check "... on that box, with those pins" \
  eval 'has "$box" out && has "pins from $pins" out'
check "... not on ~/.local/share/pyrt" [ ! -e "$HOME/.local/share/pyrt" ]

run install --json --yes --box-root "$box" --pins "$pins"
check "--json: the result carries the fix" \
  python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]; sys.exit(0 if r["exit_code"] == 4 and "pyrt doctor --box-root" in r["fix"] and "--from-file" in r["fix"] else 1)' "$work/out"

# --- the TUI, 80x23 ------------------------------------------------------------
# Short paths here: the fix repeats the box and the pins, and under CI's
# 128-character checkout the two alone fill the rows the result screen
# gives the fix (the rest is in View log); what is checked is that the
# screen shows the ways around the network at all.
tbox="$short/my box"
tpins=$short/pins.yaml
cp "$pins" "$tpins"
size=80x23 start dl -- install --box-root "$tbox" --pins "$tpins"
wait_for dl 15 'What will happen'
T send-keys -t dl y
check "TUI: the download fails" wait_for dl 30 'Download failed'
check "TUI: the result shows the fix: doctor with the box" shows 'pyrt doctor --box-root'
check "TUI: ... and the ways around the network" \
  eval 'shows "resolv.conf" && shows "--from-file"'
check "TUI: the buttons still fit" shows '[ Retry ]'
T send-keys -t dl q

# 60x16: the fix keeps a row, and the log path does not run into the buttons.
size=60x16 start small -- install --box-root "$tbox" --pins "$tpins"
wait_for small 15 'What will happen'
T send-keys -t small y
check "TUI 60x16: the download fails" wait_for small 30 'Download failed'
check "TUI 60x16: the fix's row starts with doctor" shows 'Fix             run "pyrt doctor'
check "TUI 60x16: the buttons' row is whole" \
  on_screen grep -qE '^ +\[ Retry \] +\[ View log \] +\[ Quit \] *$' "$work/screen"
T send-keys -t small q

e2e_finish
