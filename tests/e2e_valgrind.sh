#!/usr/bin/env bash
# End to end under valgrind memcheck: the real pyrt binary (the normal
# build) installs the fixture runtime from the loopback HTTPS mirror with
# the baseline from the fixture wheelhouse, then runs status, doctor,
# plugins and verify; then the TUI installs into a second box in tmux
# (consent y, Install complete, Enter to the dashboard, q).  Every run must
# end with zero memcheck errors and zero definitely lost bytes: valgrind
# exits 99 on either (--errors-for-leak-kinds=definite), and its log is read
# for the summary too.  Only pyrt is traced: python and pip run natively
# (--trace-children=no), and a forked child says nothing before its exec.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup valgrind fixtures
command -v valgrind >/dev/null || { echo "FAIL - valgrind is not installed (scripts/deps.sh)"; exit 1; }
command -v tmux >/dev/null || { echo "FAIL - tmux is not installed (scripts/deps.sh)"; exit 1; }
sock=pyrt-vg-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null; e2e_cleanup' EXIT
unset TMUX TMUX_PANE PYRT_THEME_DIR NO_COLOR
export LANG=C.UTF-8 LC_ALL=C.UTF-8
e2e_mirror

vg_opts=(--tool=memcheck --error-exitcode=99 --leak-check=full
         --errors-for-leak-kinds=definite --show-leak-kinds=definite
         --trace-children=no --child-silent-after-fork=yes --num-callers=30)

# vg NAME ARGS...: pyrt under memcheck, no terminal; $rc, files out and err,
# the log in $work/vg-NAME.log.
vg() {
  local name=$1; shift
  valgrind "${vg_opts[@]}" --log-file="$work/vg-$name.log" "$pyrt" "$@" \
    </dev/null >"$work/out" 2>"$work/err"
  rc=$?
}

# vg_clean NAME: the log says no errors and nothing definitely lost (a
# run that freed everything prints no "definitely lost" line at all).
# Prints the figures; on failure, the first errors go to stderr.
vg_clean() {
  local log=$work/vg-$1.log errs lost
  errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9,]*\) errors.*/\1/p' "$log" | tail -1)
  lost=$(sed -n 's/.*definitely lost: \([0-9,]*\) bytes.*/\1/p' "$log" | tail -1)
  echo "# valgrind $1: ${errs:-?} errors, ${lost:-0} bytes definitely lost"
  if [ "${errs:-x}" = 0 ] && [ "${lost:-0}" = 0 ]; then return 0; fi
  grep -A25 -m3 -E 'Invalid|uninitialised|definitely lost in' "$log" | head -80 | sed 's/^/# | /' >&2
  return 1
}

box=$work/box
common=(--box-root "$box" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem")
mkdir -p "$box/plugins"
chmod 700 "$box"
cp -r "$src/tests/fixtures/sample-box/plugins/." "$box/plugins/"

# --- headless ----------------------------------------------------------------
vg install install "${common[@]}" --mirror "$mirror" --wheelhouse "$fx/wheelhouse" --yes
check "install under memcheck exits 0" rc_is 0
check "install: no memcheck errors, no definite leaks" vg_clean install

vg status status "${common[@]}" --json
check "status under memcheck exits 0" rc_is 0
check "status says ready with the baseline complete" python3 -c '
import json, sys; d = json.load(open(sys.argv[1]))
assert d["state"] == "ready" and d["baseline"]["state"] == "complete", d' "$work/out"
check "status: no memcheck errors, no definite leaks" vg_clean status

vg doctor doctor "${common[@]}"
check "doctor under memcheck ran (exit 0 or 1)" eval '[ "$rc" -le 1 ]'
check "doctor: no memcheck errors, no definite leaks" vg_clean doctor

vg plugins plugins "${common[@]}"
check "plugins under memcheck ran (exit 0 or 1)" eval '[ "$rc" -le 1 ]'
check "plugins shows the ready row" has 'careercoach.*ready' out
check "plugins: no memcheck errors, no definite leaks" vg_clean plugins

vg verify verify "${common[@]}"
check "verify under memcheck exits 0" rc_is 0
check "verify: no memcheck errors, no definite leaks" vg_clean verify

# --- the TUI in tmux ----------------------------------------------------------
T() { tmux -L "$sock" "$@"; }
tbox=$work/tbox
mkdir -p "$tbox/plugins"
chmod 700 "$tbox"
cp -r "$src/tests/fixtures/sample-box/plugins/." "$tbox/plugins/"
{
  printf 'cd %q || exit 1\n' "$work"
  printf 'valgrind'; printf ' %q' "${vg_opts[@]}" "--log-file=$work/vg-tui.log" \
    "$pyrt" --box-root "$tbox" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem" \
    --mirror "$mirror" --wheelhouse "$fx/wheelhouse"; printf '\n'
  printf 'echo $? >%q\n' "$work/tui.rc"
} >"$work/tui.run"
T new-session -d -x 100 -y 30 -s tui "bash $work/tui.run"
T set-option -t tui remain-on-exit on >/dev/null 2>&1

# wait_for SECONDS ERE: poll the screen until it matches.
wait_for() {
  local i
  for ((i = 0; i < $1 * 10; i++)); do
    T capture-pane -p -t tui >"$work/screen" 2>/dev/null
    grep -qE -- "$2" "$work/screen" && return 0
    sleep 0.1
  done
  echo "# timed out after $1 s waiting for /$2/; the screen:" >&2
  sed 's/^/# | /' "$work/screen" >&2
  return 1
}

check "TUI under memcheck: the consent screen" wait_for 120 'What will happen'
T send-keys -t tui y
check "TUI under memcheck: Install complete" wait_for 600 'Install complete'
T send-keys -t tui Enter
check "TUI under memcheck: the dashboard's matrix" wait_for 120 'PLUGIN +ENABLED +RUNTIME'
check "TUI under memcheck: the ready row" wait_for 120 'careercoach +yes +yes +1/1 ok +ready'
T send-keys -t tui q
for _ in $(seq 600); do [ -s "$work/tui.rc" ] && break; sleep 0.1; done
check "the TUI under memcheck exits 0" [ "$(cat "$work/tui.rc" 2>/dev/null)" = 0 ]
check "TUI: no memcheck errors, no definite leaks" vg_clean tui

e2e_finish
