#!/usr/bin/env bash
# ctest: e2e_tui
# End to end: the ncurses front end driven through a private tmux server at
# a fixed size, against the loopback HTTPS mirror.  Each stage is checked by
# the text on the screen (capture-pane) and by the files in the box: the
# wizard's consent, progress, result and the dashboard's matrix; a declined
# consent; a cancel mid-download (with and without a previous runtime);
# resizing below 60x16 and back; NO_COLOR; LANG=C; a broken theme file.
# Every wait polls with a deadline; nothing sleeps for long.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup tui fixtures
. "$(dirname "$0")/lib/tui.sh"

e2e_mirror
url=$mirror/fixture/runtime.tar.gz
# A download that takes a few seconds (watchable), and one that takes ~25 s
# (there is time to resize and cancel in the middle of it).
sed "s#url: .*#url: $url?fault=slow:2000000#" "$fx/pins.yaml" >"$work/pins-quick.yaml"
sed "s#url: .*#url: $url?fault=slow:300000#" "$fx/pins.yaml" >"$work/pins-slow.yaml"


common=(--cacert "$fx/ca.pem" --wheelhouse "$fx/wheelhouse")
box=$work/box
current=$box/runtime/python/current
mkdir -p "$box/plugins"
cp -r "$src/tests/fixtures/sample-box/plugins/." "$box/plugins/"

# --- unprovisioned: consent, y, progress, result, dashboard ------------------
start wiz -- --box-root "$box" --pins "$work/pins-quick.yaml" "${common[@]}"
check "pyrt on an unprovisioned box opens the consent screen" \
  wait_for wiz 15 'What will happen'
check "consent names the runtime" shows 'CPython 3.11.2 (build fixture)'
check "consent shows the download size" shows_re 'Download +7\.5 MiB'
check "consent shows the source host and the destination" \
  eval 'shows_re "Source +127\.0\.0\.1" && shows_field Destination "$current"'
check "consent shows the short SHA-256" shows "$(head -c 16 "$fx/runtime.sha256")"
check "consent offers Install and Cancel" eval 'shows "[ Install ]" && shows "[ Cancel ]"'
check "nothing is written before consent" [ ! -e "$box/runtime" ]
T send-keys -t wiz y
check "y starts the install: the progress screen" \
  wait_for wiz 10 'Installing CPython 3\.11\.2'
check "the download shows bytes of the total, the rate and the ETA" \
  wait_for wiz 10 '[0-9.]+ [KM]iB of 7\.5 MiB · [0-9.]+ [KM]iB/s · ETA'
check "the download row runs with a spinner and its time" \
  shows_re '^  [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Download .*[0-9]\.[0-9]s'
check "the bar and its percentage" wait_for wiz 10 '█.*[0-9]+%'
check "later steps are pending" shows_re '^  · Activate'
check "the install ends on the result screen" wait_for wiz 120 'Install complete'
check "the result says what became ready" \
  eval 'shows_re "✓ installed CPython 3\.11\.2" && shows_re "Baseline +complete" && shows_re "Plugins ready +careercoach"'
check "the result offers Dashboard, View log, Quit" shows '[ Dashboard ]   [ View log ]   [ Quit ]'
check "current is active after the install" [ -x "$current/bin/python3" ]
T send-keys -t wiz Enter
check "Enter opens the dashboard with the matrix" wait_for wiz 15 'PLUGIN +ENABLED +RUNTIME +DEPS +VERDICT +FIX'
# The card keeps the state read before the install until the dashboard's
# own refresh ("checking…") has read it again.
check "the runtime card says ready" \
  wait_for wiz 15 '│ State +✓ ready: managed CPython 3\.11\.2'
check "the card shows the baseline state" shows_re 'Baseline +complete'
check "the matrix has a ready row" shows_re '│ careercoach +yes +yes +1/1 ok +ready'
check "the matrix has a row missing deps, with its fix" \
  shows_re '│ cowork +yes +yes +[0-9]/[0-9] ok +missing_deps +pyrt plugins install cowork'
check "the matrix has the disabled and no-runtime rows" \
  eval 'shows_re "execute_code +no +no .*disabled" && shows_re "artifact +yes +no .*no_runtime_needed"'
check "the footer lists the keys, I among them" shows 'Enter details  i deps  b baseline  I install  d doctor  l log  ? more keys  q quit'
T send-keys -t wiz q
check "q leaves the dashboard" wait_exit wiz 10
check "the TUI exits 0 after a successful install" [ "${rc:-x}" = 0 ]

# --- consent declined --------------------------------------------------------
requests_before=$(wc -l <"$work/requests.log")
# A box path longer than two rows of the consent box, wherever the
# checkout is: the destination wraps and is never cut.
nobox=$work/$(printf 'a-deeper-folder-%02d/' $(seq 1 12))nobox
start decline -- --box-root "$nobox" --pins "$work/pins-quick.yaml" "${common[@]}"
check "consent screen for the declined case" wait_for decline 15 'What will happen'
check "a destination longer than the row is shown whole, wrapped" \
  shows_field Destination "$nobox/runtime/python/current"
T send-keys -t decline n
check "n declines: the dashboard says nothing was changed" \
  wait_for decline 10 'install cancelled; nothing was changed'
check "the dashboard says not provisioned" shows 'not provisioned'
check "a declined consent creates nothing" [ ! -e "$nobox" ]
T send-keys -t decline q
wait_exit decline 10
check "the declined session exits 0" [ "${rc:-x}" = 0 ]

start decline2 -- install --box-root "$nobox" --pins "$work/pins-quick.yaml" "${common[@]}"
check "pyrt install on a terminal is the wizard" wait_for decline2 15 'What will happen'
T send-keys -t decline2 Escape
check "Esc declines pyrt install" wait_exit decline2 10
check "a declined pyrt install exits 3" [ "${rc:-x}" = 3 ]
check "a declined pyrt install creates nothing" [ ! -e "$nobox" ]
check "declining downloads nothing" [ "$(wc -l <"$work/requests.log")" -eq "$requests_before" ]

# --- too small: the hidden consent takes no key ------------------------------
# At 59x15 (below the 60x16 floor) only "terminal too small" is on the screen; the consent under it
# must not take Enter (install), y or Tab: nothing is downloaded or written,
# and back at full size the consent is still there, as it was.
sbox=$work/smallbox
requests_before=$(wc -l <"$work/requests.log")
start small -- --box-root "$sbox" --pins "$work/pins-quick.yaml" "${common[@]}"
check "the consent screen before shrinking" wait_for small 15 'What will happen'
T resize-window -t small -x 59 -y 15
check "at 59x15 over the consent: the too-small screen" \
  wait_for small 10 'terminal too small — need 60×16'
check "... saying the size it has" shows 'have 59×15'
T send-keys -t small Enter
T send-keys -t small y Tab Space
# The keys are read at once; the resize must come after them, else ncurses
# hands them over at the new size.
sleep 1
check "keys at the too-small screen leave it as it was" \
  wait_for small 5 'terminal too small — need 60×16'
T resize-window -t small -x 100 -y 30
check "back at 100x30 the consent is still there" wait_for small 10 'What will happen'
check "... with Install still selected (Tab did not reach it)" shows '[ Install ]'
check "... and says nothing has been downloaded" shows 'Nothing has been downloaded or written yet.'
check "keys at the too-small screen download nothing" \
  [ "$(wc -l <"$work/requests.log")" -eq "$requests_before" ]
check "keys at the too-small screen write nothing" [ ! -e "$sbox" ]
T resize-window -t small -x 59 -y 15
wait_for small 10 'terminal too small' >/dev/null
T send-keys -t small q
check "q at the too-small screen quits" wait_exit small 10
check "... with exit 0 (pyrt alone, nothing was started)" [ "${rc:-x}" = 0 ]
check "... having written nothing" [ ! -e "$sbox" ]

start small2 -- install --box-root "$sbox" --pins "$work/pins-quick.yaml" "${common[@]}"
check "pyrt install: the consent before shrinking" wait_for small2 15 'What will happen'
T resize-window -t small2 -x 59 -y 15
wait_for small2 10 'terminal too small' >/dev/null
T send-keys -t small2 C-c
check "Ctrl-C at the too-small screen leaves pyrt install" wait_exit small2 10
check "... as a declined consent: exit 3" [ "${rc:-x}" = 3 ]
check "... having downloaded and written nothing" \
  eval '[ ! -e "$sbox" ] && [ "$(wc -l <"$work/requests.log")" -eq "$requests_before" ]'

# --- resize mid-download, then cancel: nothing installed, partial kept ----
cbox=$work/cbox
start cancel -- --box-root "$cbox" --pins "$work/pins-slow.yaml" "${common[@]}"
wait_for cancel 15 'What will happen' >/dev/null 2>&1
T send-keys -t cancel y
check "the slow download is under way" wait_for cancel 20 '[KM]iB of 7\.5 MiB'
T resize-window -t cancel -x 59 -y 15
check "at 59x15 the too-small screen shows" \
  wait_for cancel 10 'terminal too small — need 60×16'
check "the too-small screen shows nothing else (its two lines)" \
  [ "$(grep -cv '^ *$' "$work/screen")" -eq 2 ]
check "the too-small message fits in 40 columns" \
  [ "$(text_width "$work/screen")" -le 40 ]
T resize-window -t cancel -x 100 -y 30
check "back at 100x30 the progress screen returns" \
  wait_for cancel 10 'Installing CPython 3\.11\.2'
check "the download is still running after the resize" \
  eval 'shows_re "^  [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Download" && shows_re "[KM]iB of 7\.5 MiB"'
T send-keys -t cancel Escape
check "Esc asks before cancelling" wait_for cancel 10 'Cancel the install\? \[y/N\]'
T send-keys -t cancel y
check "y cancels: the result says cancelled during the download" \
  wait_for cancel 20 'Cancelled during Download'
check "the cancel says nothing was installed" shows_re 'Unchanged +nothing was installed'
check "the cancelled result offers Retry" shows '[ Retry ]'
check "no current after a cancelled first install" [ ! -e "$cbox/runtime/python/current" ]
partial=$(ls "$cbox"/runtime/python/downloads/*.partial 2>/dev/null | head -1)
check "the partial download is kept" [ -s "${partial:-/nonexistent}" ]
check "staging is empty after the cancel" [ -z "$(ls -A "$cbox/runtime/python/staging" 2>/dev/null)" ]
T send-keys -t cancel q
wait_exit cancel 10

# A cancel with a runtime already active: current stays where it was.
before=$(readlink "$current")
start recancel -- install --force --box-root "$box" --pins "$work/pins-slow.yaml" "${common[@]}"
check "pyrt install --force shows the consent (reinstall)" wait_for recancel 15 'What will happen'
T send-keys -t recancel y
check "the reinstall downloads" wait_for recancel 20 '[KM]iB of 7\.5 MiB'
T send-keys -t recancel Escape
wait_for recancel 10 'Cancel the install' >/dev/null
T send-keys -t recancel y
check "the reinstall is cancelled" wait_for recancel 20 'Install cancelled'
check "the cancel says the previous runtime is still active" shows 'previous runtime is still active'
check "current unchanged after the cancel" [ "$(readlink "$current")" = "$before" ]
T send-keys -t recancel q
check "a cancelled pyrt install leaves" wait_exit recancel 10
check "a cancelled pyrt install exits 130" [ "${rc:-x}" = 130 ]

# A cancel that lands after `current` moved is too late: the runtime is
# installed and active, and the TUI says so and exits 0, as `pyrt install`
# does (e2e_signals).  The install is held at the after-swap crash point
# (a test-hooks build) while Esc, y asks to cancel; --no-baseline leaves
# only the skipped baseline step, which sees the cancel.
lbox=$work/latebox
start late PYRT_TEST_HOOK=after-swap:pause PYRT_TEST_HOOK_FILE="$work/late.hook" \
  -- install --no-baseline --box-root "$lbox" --pins "$work/pins-quick.yaml" --cacert "$fx/ca.pem"
wait_for late 15 'What will happen' >/dev/null
T send-keys -t late y
for _ in $(seq 600); do [ -e "$work/late.hook" ] && break; sleep 0.1; done
check "the install pauses after the swap (a -DPYRT_TEST_HOOKS=ON build)" \
  [ -e "$work/late.hook" ]
T send-keys -t late Escape
check "Esc after the swap still asks" wait_for late 10 'Cancel the install\? \[y/N\]'
T send-keys -t late y
sleep 0.3
rm -f "$work/late.hook"
check "a cancel after the swap: the result says the install is complete" \
  wait_for late 30 'Install complete'
check "... and not cancelled" eval '! shows "cancelled"'
check "... the runtime is active" [ -x "$lbox/runtime/python/current/bin/python3" ]
T send-keys -t late q
check "the late-cancelled pyrt install leaves" wait_exit late 10
check "a cancel after the swap exits 0, as the CLI does" [ "${rc:-x}" = 0 ]

# --- colours: NO_COLOR and --no-color leave no colour escapes -------------
dash() { # name, env..., -- : the installed box's dashboard, captured with -e
  local name=$1; shift
  start "$name" "$@" --box-root "$box" --pins "$work/pins-quick.yaml" "${common[@]}"
  wait_for "$name" 15 'PLUGIN +ENABLED' || return 1
  screen_still "$name" "$work/$name.sgr" -e
  screen_still "$name" "$work/$name.txt"
  T send-keys -t "$name" q
  wait_exit "$name" 10
}
check "the dashboard in colour" dash colour --
check "the colour dashboard does use colour escapes (the check can fail)" \
  has_colour_sgr "$work/colour.sgr"
check "NO_COLOR=1 dashboard" dash nocolour NO_COLOR=1 --
check "NO_COLOR=1: no colour escapes" no_colour_sgr "$work/nocolour.sgr"
check "NO_COLOR=1: the selection is still reverse video" has_sgr_attr "$work/nocolour.sgr" 7
check "--no-color dashboard" dash nocolour2 -- --no-color
check "--no-color: no colour escapes" no_colour_sgr "$work/nocolour2.sgr"

# --- LANG=C: ASCII only -----------------------------------------------------
check "the UTF-8 dashboard uses UTF-8 box drawing (the check can fail)" \
  eval 'non_ascii "$work/colour.txt" && grep -q "┌─ Runtime" "$work/colour.txt"'
check "LANG=C dashboard" dash cloc LANG=C LC_ALL=C --
check "LANG=C: no byte above 0x7f on the screen" ascii_only "$work/cloc.txt"
check "LANG=C: ASCII boxes and marks" \
  eval 'grep -q "^ +- Runtime -" "$work/cloc.txt" && grep -qE "^ \| State +\+ ready" "$work/cloc.txt"'
start csmall LANG=C LC_ALL=C -- --box-root "$box" --pins "$work/pins-quick.yaml" "${common[@]}"
wait_for csmall 15 'PLUGIN +ENABLED' >/dev/null
T resize-window -t csmall -x 59 -y 15
check "LANG=C: the too-small screen in ASCII" \
  wait_for csmall 10 'terminal too small - need 60x16'
check "LANG=C: ... and the size it has" shows 'have 59x15'
check "LANG=C: the too-small screen has no UTF-8" ascii_only "$work/screen"
T kill-session -t csmall

# --- a broken theme file: one line, then the default theme -------------------
mkdir -p "$work/themes"
printf 'name: broken\nroles:\n  text: { fg: no-such-colour }\n' >"$work/themes/broken.yaml"
theme_run() { # name theme [env...]: the consent screen's first rows with SGR
  local name=$1 theme=$2; shift 2
  start "$name" "$@" -- --box-root "$work/tbox" --pins "$work/pins-quick.yaml" \
    "${common[@]}" --theme "$theme"
  wait_for "$name" 15 'What will happen' || return 1
  screen_still "$name" "$work/$name.sgr" -e
  screen_still "$name" "$work/$name.txt"
  T kill-session -t "$name"
}
check "the consent screen with a broken theme" \
  theme_run tbroken broken PYRT_THEME_DIR="$work/themes"
check "the broken theme gets a one-line message" \
  grep -qE '^ using the default theme; broken\.yaml:3: text\.fg: unknown colour' "$work/tbroken.txt"
check "the message is one line" [ "$(grep -c 'default theme' "$work/tbroken.txt")" -eq 1 ]
check "the same screen in the default theme" theme_run tdefault default
check "the same screen in solarized-dark" theme_run tsolar solarized-dark
same_top() { cmp -s <(head -8 "$work/$1.sgr") <(head -8 "$work/$2.sgr"); }
differ_top() { ! same_top "$@"; }
check "the themes differ on screen (the check can fail)" differ_top tdefault tsolar
check "a broken theme draws in the default theme" same_top tdefault tbroken
check "a broken theme changes nothing in the box" [ ! -e "$work/tbox" ]

e2e_finish
