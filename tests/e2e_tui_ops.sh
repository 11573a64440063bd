#!/usr/bin/env bash
# ctest: e2e_tui_ops
# End to end: the TUI for an operator over SSH, driven through tmux against
# the loopback HTTPS mirror.  The dashboard watches the box (another
# process's install ends, the card says so with no key pressed); every
# screen works at 80x23 and a compact layout keeps consent, progress and
# the verdicts at 60x16; long text is read whole (details dialogs, a
# wrapping and side-scrolling log viewer, the result's log path); wide
# characters keep the borders and the CLI's columns in place, and LANG=C
# gets ASCII from the CLI into a pipe too; the TUI's own keys for pip,
# reinstall, rollback, uninstall and the support bundle, each asked first.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup tui_ops fixtures
. "$(dirname "$0")/lib/tui.sh"

e2e_mirror
url=$mirror/fixture/runtime.tar.gz
sed "s#url: .*#url: $url#" "$fx/pins.yaml" >"$work/pins.yaml"
sed "s#url: .*#url: $url?fault=slow:600000#" "$fx/pins.yaml" >"$work/pins-slow.yaml"
# The CA and the wheelhouse from short paths: every fix repeats them, and
# with CI's 128-character checkout the box, pins, CA and wheelhouse paths
# together outgrew the plugin dialog at 80x23 (its whole text is checked).
cp "$fx/ca.pem" "$short/ca.pem"
cp -a "$fx/wheelhouse" "$short/wheelhouse"
common=(--cacert "$short/ca.pem" --wheelhouse "$short/wheelhouse")
box=$work/box
current=$box/runtime/python/current
mkdir -p "$box/plugins"
cp -r "$src/tests/fixtures/sample-box/plugins/." "$box/plugins/"
# A plugin whose one requirement is in the wheelhouse, and a directory
# named in Japanese (12 columns in 6 characters): an invalid row.
mkdir "$box/plugins/pdfs"
printf 'name: pdfs\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - reportlab\n' \
  >"$box/plugins/pdfs/plugin.yaml"
wide=$'\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x83\x84\xe3\x83\xbc\xe3\x83\xab'
mkdir "$box/plugins/$wide"
printf 'name: tool\nenabled: true\n' >"$box/plugins/$wide/plugin.yaml"
state() { "$pyrt" status --json --box-root "$box" --pins "$work/pins.yaml" 2>/dev/null |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["state"])'; }

# --- 5: the dashboard is never stale -------------------------------------------
# Another process installs slowly; the dashboard opened meanwhile says
# installing, then ready once that install ends, with no key pressed.
"$pyrt" install --yes --box-root "$box" --pins "$work/pins-slow.yaml" "${common[@]}" \
  </dev/null >"$work/bg.out" 2>&1 &
bg=$!
for _ in $(seq 200); do [ "$(state)" = installing ] && break; sleep 0.1; done
# tui-refresh:hold stops a dashboard check only when $work/hold exists
# (a test-hooks build), so the test can hold one check deterministically.
size=80x23 start dash PYRT_TEST_HOOK=tui-refresh:hold PYRT_TEST_HOOK_FILE="$work/hold" \
  -- --box-root "$box" --pins "$work/pins.yaml" "${common[@]}"
check "80x23: the dashboard opened during another's install says installing" \
  wait_for dash 20 'State +. installing'
check "... in TUI words: the card updates by itself" shows 'this card updates by itself'
wait "$bg"
check "the other process's install succeeded" [ $? -eq 0 ]
check "no key pressed: the card says ready after the install ended" \
  wait_for dash 15 'State +✓ ready'
check "... and the matrix was read again" wait_for dash 10 'careercoach +yes +yes +1/1 ok +ready'
mkdir "$box/plugins/aardvark"
printf 'name: aardvark\nenabled: true\n' >"$box/plugins/aardvark/plugin.yaml"
check "a plugin added to the box shows in the matrix by itself" \
  wait_for dash 10 '│ aardvark +yes +no'
# The interpreter is part of the verdict (issue 21.4): its file deleted
# (bin/python3 is a link to it), the card says broken with no key pressed,
# and ready again once it is back.
interp_real=$(readlink -f "$current/bin/python3")
mv "$interp_real" "$work/python.away"
check "the interpreter deleted: the card says broken by itself" \
  wait_for dash 10 'State +. broken'
mv "$work/python.away" "$interp_real"
check "... and ready again once it is back" wait_for dash 10 'State +✓ ready'

# --- 6: 80x23 and the compact layout down to 60x16 ----------------------------
check "80x23: the dashboard is drawn, not 'too small'" \
  eval 'shows_re "PLUGIN +ENABLED +RUNTIME +DEPS +VERDICT +FIX" && lacks "too small"'
check "80x23: every box row ends at column 79" borders_at 79
check "80x23: the footer shows I install and how to quit" \
  eval 'shows "I install" && shows "q quit"'
T resize-window -t dash -x 60 -y 16
check "60x16: the dashboard in its compact layout" wait_for dash 10 'PLUGIN +DEPS +VERDICT'
check "60x16: the verdicts are shown whole" \
  eval 'shows_re "artifact +- +no_runtime_needed" && shows_re "careercoach +1/1 ok +ready"'
check "60x16: the runtime's state is there" shows_re 'State +✓ ready'
check "60x16: every box row ends at column 59" borders_at 59
T resize-window -t dash -x 59 -y 16
check "59x16: too small" wait_for dash 10 'terminal too small'
T resize-window -t dash -x 80 -y 23
wait_for dash 10 'PLUGIN +ENABLED' >/dev/null

# --- 8: wide characters ---------------------------------------------------------
T send-keys -t dash G
check "the Japanese row is on the screen" wait_for dash 10 "│ $wide +- +- +- +invalid"
check "a row with wide characters keeps the border at column 79" borders_at 79
run plugins --box-root "$box" --pins "$work/pins.yaml"
check "pyrt plugins: the column after a wide name starts where its header does" \
  python3 - "$work/out" "$wide" <<'EOF'
import sys, unicodedata
w = lambda s: sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
head = [l for l in lines if l.startswith("PLUGIN")][0]
row = [l for l in lines if l.startswith(sys.argv[2])][0]
rest = row[len(sys.argv[2]):]
want = w(head[:head.index("ENABLED")])
got = w(row[:len(row) - len(rest.lstrip(" "))])
sys.exit(0 if got == want else 1)
EOF
LC_ALL=C LANG=C run status --box-root "$work/nobox" --pins "$work/pins.yaml"
check "LANG=C: pyrt status into a pipe is ASCII (its message has a dash)" \
  eval 'grep -q "not provisioned - run" "$work/out" && ascii_only "$work/out"'
# The same row at 100x30 (the size every version of pyrt draws in full).
start wide -- --box-root "$box" --pins "$work/pins.yaml" "${common[@]}"
wait_for wide 15 'PLUGIN +ENABLED' >/dev/null
T send-keys -t wide G
check "100x30: the Japanese row is on the screen" wait_for wide 10 "│ $wide +- +- +- +invalid"
check "100x30: ... and every box row ends at column 99" borders_at 99
T kill-session -t wide
LC_ALL=C LANG=C run plugins --box-root "$box" --pins "$work/pins.yaml"
check "LANG=C: pyrt plugins into a pipe is ASCII" ascii_only "$work/out"
check "LANG=C: ... with the table still aligned" \
  grep -qE '^\?+ {2,}- +- +- +invalid' "$work/out"

# --- 7: long text, read whole ---------------------------------------------------
T send-keys -t dash g l
check "l opens the install log" wait_for dash 10 'Log — install-'
T send-keys -t dash / python_docx-0.8.11 Enter
wait_for dash 10 '/python_docx-0.8.11: line' >/dev/null
T send-keys -t dash w
check "w wraps: the viewer says so" wait_for dash 10 'wrapped'
joined() { cut -c2-79 "$work/screen" | tr -d '\n'; }
check "wrapped, a long pip line is shown whole" \
  eval 'joined | grep -qF "wheelhouse/python_docx-0.8.11-py3-none-any.whl"'
T send-keys -t dash w Right
check "Right scrolls sideways" wait_for dash 10 'from column 21'
T send-keys -t dash q d
check "doctor runs" wait_for dash 60 'doctor: [0-9]+ passed'
"$pyrt" doctor --json --box-root "$box" --pins "$work/pins.yaml" --cacert "$fx/ca.pem" >"$work/doctor.json"
# The first check whose detail is longer than its row at 80 columns, as
# the screen lists them (failures, then warnings, then the rest), and its
# index in doctor --json.
read -r pos idx title < <(python3 - "$work/doctor.json" <<'EOF'
import json, sys
checks = json.load(open(sys.argv[1]))["checks"]
rank = {"fail": 0, "warn": 1}
order = sorted(range(len(checks)), key=lambda i: rank.get(checks[i]["verdict"], 2))
for pos, i in enumerate(order):
    # ASCII only: the dialog's wrap of wide characters is checked on the
    # Japanese plugin's dialog below.
    if len(checks[i]["detail"]) > 52 and checks[i]["detail"].isascii():
        print(pos, i, checks[i]["title"]); break
EOF
)
check "doctor --json has a check longer than its row" [ -n "${title:-}" ]
for ((k = 0; k < ${pos:-0}; k++)); do T send-keys -t dash j; done
T send-keys -t dash Enter
check "Enter on a check opens its whole text" wait_for dash 10 "┌─ $title"
detail_whole() {
  python3 - "$work/doctor.json" "$idx" "$(dialog_text "$title")" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))["checks"][int(sys.argv[2])]
# Wrapping breaks at spaces and splits a word longer than the row: the
# text is all there once blanks are set aside.
want = "".join(c["detail"].split())
ok = want in "".join(sys.argv[3].split())
if not ok:
    print("# want:", c["detail"], "\n# shown:", sys.argv[3], file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
}
check "... the detail whole, as doctor --json has it" on_screen detail_whole
T send-keys -t dash Escape q
wait_for dash 10 'PLUGIN +ENABLED' >/dev/null
check "j reaches the cowork row" select_row dash '^ │ cowork: '
T send-keys -t dash Enter
check "Enter on a plugin opens its whole text" wait_for dash 10 '┌─ Plugin cowork'
# The dialog wraps at spaces, and where depends on the box's path (CI's
# is 128 characters deep): the words are read with line ends as blanks.
check "... every requirement and the whole fix, in TUI words" \
  on_screen eval 'dialog_text "Plugin cowork" | tr -s " \n" "  " >"$work/cowork.txt" &&
        grep -qF "requires python-pptx: not installed" "$work/cowork.txt" &&
        grep -qF "fix: pyrt plugins install cowork --box-root" "$work/cowork.txt" &&
        grep -qF "(i here does it)" "$work/cowork.txt"'
T send-keys -t dash Escape

# --- 9: what the CLI does, asked first -----------------------------------------
check "j reaches the pdfs row" select_row dash '^ │ pdfs: '
T send-keys -t dash i
check "i asks before pip runs, naming what and from where" \
  wait_for dash 10 'Install the requirements of pdfs with the runtime'
check "... the wheelhouse, not the network" shows 'from: the wheelhouse'
T send-keys -t dash n
check "n: nothing was changed" wait_for dash 10 'Plugin install cancelled; nothing was changed'
check "... and pip did not run" eval '! "$current/bin/python3" -c "import reportlab" 2>/dev/null'
T send-keys -t dash i
wait_for dash 10 'Install the requirements of pdfs' >/dev/null
T send-keys -t dash y
check "y: the plugin install runs" wait_for dash 60 'Plugin install complete'
check "... and reportlab is in the runtime" "$current/bin/python3" -c 'import reportlab'
check "the result shows the pip log's path whole" on_screen eval 'shows "pip log" && [ -f "$(field_value "pip log")" ]'
T send-keys -t dash Enter
wait_for dash 15 'PLUGIN +ENABLED' >/dev/null
T send-keys -t dash b
check "b asks before the baseline runs" wait_for dash 10 'Install the doc-library baseline again'
T send-keys -t dash Escape
check "Esc: the baseline is not run" wait_for dash 10 'Baseline cancelled; nothing was changed'
T send-keys -t dash I
check "I on a ready runtime: the consent to reinstall (no --force)" \
  wait_for dash 10 'What will happen'
check "... which says reinstall" shows '(reinstall)'
T send-keys -t dash n
wait_for dash 10 'install cancelled; nothing was changed' >/dev/null
T send-keys -t dash R
check "R with no previous runtime says so" wait_for dash 10 'nothing to roll back to'
before=$(readlink "$current")
"$pyrt" install --force --yes --box-root "$box" --pins "$work/pins.yaml" "${common[@]}" \
  </dev/null >"$work/re.out" 2>&1
prev=$(readlink "$box/runtime/python/previous")
check "a reinstall elsewhere keeps the old runtime as previous" [ "$prev" = "$before" ]
wait_for dash 15 'State +✓ ready' >/dev/null
idle() { screen dash >"$work/screen"; ! grep -q 'checking…' "$work/screen"; }
for _ in $(seq 100); do idle && break; sleep 0.1; done
# A check that begins between the question and the y (the watcher's, as
# after the install above) must not drop the y: hold one check open.
: >"$work/hold"
T send-keys -t dash r
for _ in $(seq 100); do grep -q tui-refresh "$work/hold" 2>/dev/null && break; sleep 0.1; done
T send-keys -t dash R
check "R asks, naming the runtime that becomes active" wait_for dash 10 'Roll back to the previous runtime'
T send-keys -t dash y
check "y while a check runs: the rollback is queued, and says so" \
  wait_for dash 10 'queued: rolling back once checking has finished'
check "... the card says what waits" shows 'checking, then rolling back'
check "... and nothing moved yet" [ "$(readlink "$current")" != "$prev" ]
T send-keys -t dash R
wait_for dash 10 'Roll back to the previous runtime' >/dev/null
T send-keys -t dash y
check "a second y while one waits is refused, naming what waits" \
  wait_for dash 10 'busy: rolling back waits already'
rm -f "$work/hold"
check "y rolls back once the check ends" wait_for dash 20 'rolled back to CPython 3\.11\.2'
check "current points where previous did" [ "$(readlink "$current")" = "$prev" ]
# A key that starts a job (d: doctor) while the dashboard's own check runs
# waits for that check, saying so, instead of being refused as busy.
for _ in $(seq 100); do idle && break; sleep 0.1; done
: >"$work/hold"
T send-keys -t dash r
for _ in $(seq 100); do grep -q tui-refresh "$work/hold" 2>/dev/null && break; sleep 0.1; done
T send-keys -t dash d
check "d while the dashboard checks: doctor waits, and says so" \
  wait_for dash 10 'queued: running doctor once checking has finished'
rm -f "$work/hold"
check "... then doctor runs" wait_for dash 60 'doctor: [0-9]+ passed'
T send-keys -t dash q
wait_for dash 10 'PLUGIN +ENABLED' >/dev/null
# The dashboard reads the state again after the rollback; one job at a
# time, so B waits for that.
for _ in $(seq 100); do idle && break; sleep 0.1; done
T send-keys -t dash B
check "B runs doctor, then asks where the bundle goes" wait_for dash 60 'Write a support bundle'
T send-keys -t dash y
check "y writes the support bundle" wait_for dash 20 'support bundle written'
bundle=$(ls "$work"/pyrt-support-*.tar.gz 2>/dev/null | head -1)
check "the bundle is in the working directory, owner-only" \
  eval '[ -s "$bundle" ] && [ "$(stat -c %a "$bundle")" = 600 ]'
tar -tzf "$bundle" >"$work/bundle.list" 2>/dev/null
check "the bundle holds doctor.json" grep -qxE "([^/]+/)?doctor.json" "$work/bundle.list"
T send-keys -t dash Escape
wait_for dash 10 'PLUGIN +ENABLED' >/dev/null
for _ in $(seq 100); do idle && break; sleep 0.1; done
T send-keys -t dash U
check "U asks before uninstalling" wait_for dash 10 'Uninstall the managed Python runtime'
T send-keys -t dash n
check "n: nothing removed" eval 'wait_for dash 10 "Uninstall cancelled" && [ -e "$current" ]'
T send-keys -t dash U
wait_for dash 10 'Uninstall the managed Python runtime' >/dev/null
T send-keys -t dash y
check "y uninstalls" wait_for dash 30 'uninstalled the managed runtime'
check "... current is gone" [ ! -e "$current" ]
check "... and the card says not provisioned" wait_for dash 15 'State +! not provisioned'
T kill-session -t dash

# --- a wide name wrapped in a dialog; doctor's network checks (issue 21.7) ----
# A proxy that takes the connection and never answers: the probe waits its
# whole timeout there, so the screen says what it waits for, then marks the
# archive's host and the index failed, as `pyrt doctor` words them.  The
# proxy stands in front of the pins' own host, so no name is looked up.
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1])); time.sleep(120)' "$work/hport" &
hang_pid=$!
for _ in $(seq 100); do [ -s "$work/hport" ] && break; sleep 0.1; done
# The box's folder is 42 columns (under $short, 14 on every machine), so the
# wide plugin's path wraps in its details dialog right after "日本語": the
# dialog's text read back must still hold the name whole.
nbox=$short/$(printf 'w%.0s' $(seq 42))
mkdir -p "$nbox/plugins/$wide"
printf 'name: tool\nenabled: true\n' >"$nbox/plugins/$wide/plugin.yaml"
size=80x23 start net PYRT_DOCTOR_OFFLINE=0 "https_proxy=http://127.0.0.1:$(cat "$work/hport")" \
  -- --box-root "$nbox" --pins "$fx/pins.yaml" --index-url https://pypi.invalid/simple/
wait_for net 15 'What will happen' >/dev/null
T send-keys -t net Escape
wait_for net 10 'PLUGIN +ENABLED' >/dev/null
T send-keys -t net Enter
check "Enter on the Japanese row opens its whole text" wait_for net 10 "┌─ Plugin $wide"
check "... the path wrapped inside the wide name, every character kept" \
  on_screen eval 'dialog_text "Plugin $wide" | tr -d " " | grep -qF "/plugins/$wide/plugin.yaml:thedirectoryname"'
T send-keys -t net Escape
wait_for net 10 'PLUGIN +ENABLED' >/dev/null
T send-keys -t net d
check "doctor behind a silent proxy says it is checking the network" \
  wait_for net 15 'Checking the network'
check "... naming the host it waits for and for how long" \
  shows "checking the network: upstream.invalid (the pins' URL), 5 s at most"
check "the archive's host fails at the proxy, on the doctor screen" \
  wait_for net 30 '✗ Archive host reachable +upstream.invalid:443: no answer within 5 s, prox'
check "... and the index too" shows_re '✗ Package index reachable +pypi.invalid:443'
T kill-session -t net
kill "$hang_pid" 2>/dev/null; wait "$hang_pid" 2>/dev/null

# --- 6: consent and progress at 80x23 and 60x16 ---------------------------------
# At a short path, so "whole" holds at 60x16 from any checkout (a longer
# one is shortened in the middle there, and shown whole at 80x23).
cbox=$short/cbox
size=80x23 start cons -- --box-root "$cbox" --pins "$work/pins-slow.yaml" "${common[@]}"
check "80x23: the consent screen" wait_for cons 15 'What will happen'
check "80x23: consent shows every row, the buttons and the footer" \
  eval 'shows_re "Platform +linux" && shows_re "URL +https" && shows "[ Install ]" && shows "n/q/Esc cancel"'
T resize-window -t cons -x 60 -y 16
check "60x16: the consent in its compact layout" wait_for cons 10 'What will happen'
check "60x16: what, how big, from where" \
  eval 'shows_re "Runtime +CPython 3\.11\.2" && shows_re "Download +7\.5 MiB" && shows_re "Source +127\.0\.0\.1"'
check "60x16: where, whole" shows_field Destination "$cbox/runtime/python/current"
check "60x16: the digest" shows "$(head -c 16 "$fx/runtime.sha256")"
check "60x16: the buttons and how to decline" \
  eval 'shows "[ Install ]" && shows "[ Cancel ]" && shows "n/q/Esc cancel"'
T send-keys -t cons f
check "60x16: f shows the whole digest" wait_for cons 10 "$(head -c 32 "$fx/runtime.sha256")"
T send-keys -t cons y
check "60x16: the progress screen" wait_for cons 15 '[KM]iB of 7\.5 MiB'
check "60x16: the download row, the bar and the pane" \
  eval 'shows_re "^  [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Download" && shows_re "[█░]+ +[0-9]+%" && shows "┌─ Log"'
T resize-window -t cons -x 80 -y 23
check "80x23: the progress screen in full" wait_for cons 10 '^  · Baseline'
T send-keys -t cons Escape
wait_for cons 10 'Cancel the install' >/dev/null
T send-keys -t cons y
check "80x23: the result screen" wait_for cons 20 'Install cancelled'
check "... its buttons" shows '[ Retry ]'
T send-keys -t cons q

e2e_finish
