#!/usr/bin/env bash
# Terminal bandwidth and key latency of the TUI during a download.
#
#   bash bench/tui-bandwidth.sh [BUILD_DIR]     # ~2 min; BUILD_DIR default build/
#
# 1. Bytes per second pyrt writes to the terminal while the progress screen
#    shows a download at 100x30: pyrt runs in a private tmux server and
#    `tmux pipe-pane -O` appends every byte the pane receives to a file,
#    counted over a window of WINDOW seconds while the throttled download
#    (fault=slow on the loopback mirror) is still running.  The same window
#    on the idle dashboard.  Target: at most 2 KB/s.
# 2. The same for the headless line mode: `pyrt install --yes` with stdout
#    and stderr in a file (no terminal).  Target: at most 200 B/s.
# 3. Key latency during the download: send a key that opens the cancel
#    dialog (Esc, and q, which has no escape delay), poll capture-pane every
#    10 ms until the dialog shows, close it with n; TRIES times each.  That
#    figure includes tmux's own send-keys and capture-pane work (a client
#    process each), so bench/tui-pty.py measures 1 and 3 again on a bare pty
#    of the same size: bytes pyrt writes, and the time from writing the key
#    to the pty until the dialog's text has been written back.
#    Target: within one frame (100 ms, TUI_FRAME_S).
#
# Prints the figures and writes bench/results-tui.md.  Never part of ctest:
# figures are reported, never asserted.
set -euo pipefail

die() { printf 'tui-bandwidth.sh: %s\n' "$*" >&2; exit 1; }
say() { printf '== %s\n' "$*" >&2; }

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
build=${1:-$src/build}
window=${PYRT_BENCH_WINDOW:-10}
tries=${PYRT_BENCH_TRIES:-10}
results=$here/results-tui.md
cols=100 rows=30

command -v tmux >/dev/null || die "tmux is missing (bash scripts/deps.sh)"
say "building pyrt in $build"
cmake -S "$src" -B "$build" >/dev/null
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target pyrt >/dev/null
pyrt=$build/pyrt
fx=$build/fixtures
bash "$src/tests/fixtures/build-fixtures.sh" "$fx" >/dev/null

work=$(mktemp -d "${TMPDIR:-/tmp}/pyrt-bench-tui.XXXXXX")
sock=pyrt-bench-$$
mirror_pid='' headless_pid=''
cleanup() {
	set +e
	tmux -L "$sock" kill-server 2>/dev/null
	if [ -n "$headless_pid" ]; then
		kill "$headless_pid" 2>/dev/null
		wait "$headless_pid" 2>/dev/null
	fi
	if [ -n "$mirror_pid" ]; then
		kill "$mirror_pid" 2>/dev/null
		wait "$mirror_pid" 2>/dev/null
	fi
	rm -rf "$work"
}
trap cleanup EXIT
unset TMUX TMUX_PANE PYRT_BOX_ROOT PYRT_PINS PYRT_THEME PYRT_THEME_DIR NO_COLOR
export LANG=C.UTF-8 LC_ALL=C.UTF-8

python3 "$src/tests/fixtures/mirror.py" --root "$fx/www" --cert "$fx/server.pem" \
	--key "$fx/server.key" --port-file "$work/port" >/dev/null 2>&1 &
mirror_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || die "the loopback mirror did not start"
port=$(cat "$work/port")
# ~7.9 MB at 100 kB/s: about 80 s, longer than every measurement below.
sed "s#url: .*#url: https://127.0.0.1:$port/pbs/fixture/runtime.tar.gz?fault=slow:100000#" \
	"$fx/pins.yaml" >"$work/pins.yaml"
common=(--pins "$work/pins.yaml" --cacert "$fx/ca.pem" --no-baseline)

T() { tmux -L "$sock" "$@"; }
screen() { T capture-pane -p -t "$1"; }
wait_for() { # NAME SECONDS ERE
	local i
	for ((i = 0; i < $2 * 20; i++)); do
		screen "$1" 2>/dev/null | grep -qE -- "$3" && return 0
		sleep 0.05
	done
	screen "$1" >&2 || true
	die "timed out waiting for /$3/ on $1"
}
size() { stat -c %s "$1"; }
downloading() { screen "$1" | grep -qE '^  [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Download'; }

# bytes_per_s FILE SECONDS: growth of FILE over the window, per second.
bytes_per_s() {
	local b0 b1 t0 t1
	b0=$(size "$1"); t0=$EPOCHREALTIME
	sleep "$2"
	b1=$(size "$1"); t1=$EPOCHREALTIME
	python3 -c "import sys; print('%.0f' % ((int(sys.argv[2]) - int(sys.argv[1])) / (float(sys.argv[4]) - float(sys.argv[3]))))" \
		"$b0" "$b1" "$t0" "$t1"
}

# --- 1. the TUI's progress screen ------------------------------------------------
say "TUI: progress screen during the download (${window}s window)"
printf 'exec %q --box-root %q' "$pyrt" "$work/box" >"$work/tui.run"
printf ' %q' "${common[@]}" >>"$work/tui.run"
T new-session -d -x "$cols" -y "$rows" -s tui "bash $work/tui.run"
wait_for tui 20 'What will happen'
: >"$work/tui.bytes"
T pipe-pane -O -t tui "cat >>$work/tui.bytes"
T send-keys -t tui y
wait_for tui 20 'KiB of 7\.5 MiB'
sleep 1 # past the first full draw of the screen
tui_bps=$(bytes_per_s "$work/tui.bytes" "$window")
downloading tui || die "the download ended inside the window; slow it down"
say "TUI: $tui_bps B/s"

# --- 3. keys during the same download --------------------------------------------
# key_ms KEY: ms from send-keys until the dialog shows, then close it.
key_ms() {
	local t0 t1 i
	t0=$EPOCHREALTIME
	T send-keys -t tui "$1"
	for ((i = 0; i < 500; i++)); do
		screen tui | grep -q 'Cancel the install?' && break
		sleep 0.01
	done
	t1=$EPOCHREALTIME
	[ "$i" -lt 500 ] || die "no cancel dialog after $1"
	T send-keys -t tui n
	for ((i = 0; i < 500; i++)); do
		screen tui | grep -q 'Cancel the install?' || break
		sleep 0.01
	done
	sleep "0.$((15 + RANDOM % 10))" # a random phase of the frame cycle
	python3 -c "import sys; print('%.0f' % ((float(sys.argv[2]) - float(sys.argv[1])) * 1000))" "$t0" "$t1"
}
# capture_ms: what one capture-pane poll costs (the floor of the figures).
capture_ms() {
	local t0 t1
	t0=$EPOCHREALTIME
	screen tui >/dev/null
	t1=$EPOCHREALTIME
	python3 -c "import sys; print('%.1f' % ((float(sys.argv[2]) - float(sys.argv[1])) * 1000))" "$t0" "$t1"
}
stats() { python3 -c '
import statistics, sys
v = sorted(float(x) for x in sys.argv[1:])
print("%.0f %.0f %.0f" % (statistics.median(v), v[0], v[-1]))' "$@"; }
say "TUI: key latency, $tries tries each of Esc and q"
esc=() q=() cap=()
for ((i = 0; i < tries; i++)); do
	esc+=("$(key_ms Escape)")
	q+=("$(key_ms q)")
	cap+=("$(capture_ms)")
done
downloading tui || die "the download ended during the key tries; slow it down"
read -r esc_med esc_min esc_max < <(stats "${esc[@]}")
read -r q_med q_min q_max < <(stats "${q[@]}")
cap_med=$(python3 -c 'import statistics,sys; print("%.1f" % statistics.median(float(x) for x in sys.argv[1:]))' "${cap[@]}")
say "TUI: Esc median $esc_med ms ($esc_min-$esc_max), q median $q_med ms ($q_min-$q_max), one capture ${cap_med} ms"
T kill-session -t tui

# --- 1 and 3 again on a bare pty (no tmux in between) ---------------------------
say "pty: progress screen (${window}s window) and $tries key tries each, TERM=xterm-256color"
python3 "$here/tui-pty.py" --cols "$cols" --rows "$rows" --window "$window" --tries "$tries" \
	--downloads "$work/pbox/runtime/python/downloads" -- \
	"$pyrt" --box-root "$work/pbox" "${common[@]}" >"$work/pty.json"
read -r pty_bps pesc_med pesc_min pesc_max pq_med pq_min pq_max < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
e, q = d["esc_ms"], d["q_ms"]
print("%.0f" % d["bytes_per_s"], *("%.0f" % x for x in
      (e["median"], e["min"], e["max"], q["median"], q["min"], q["max"])))' "$work/pty.json")
say "pty: $pty_bps B/s; Esc median $pesc_med ms ($pesc_min-$pesc_max), q median $pq_med ms ($pq_min-$pq_max)"

# --- 1b. the idle dashboard ---------------------------------------------------------
say "TUI: idle dashboard (${window}s window)"
printf 'exec %q --box-root %q --pins %q --cacert %q' "$pyrt" "$work/dbox" "$work/pins.yaml" \
	"$fx/ca.pem" >"$work/dash.run"
"$pyrt" install --yes --no-baseline --box-root "$work/dbox" --pins "$fx/pins.yaml" \
	--cacert "$fx/ca.pem" --mirror "https://127.0.0.1:$port/pbs" >/dev/null 2>&1 ||
	die "the install for the dashboard failed"
mkdir -p "$work/dbox/plugins"
cp -r "$src/tests/fixtures/sample-box/plugins/." "$work/dbox/plugins/"
T new-session -d -x "$cols" -y "$rows" -s dash "bash $work/dash.run"
: >"$work/dash.bytes"
T pipe-pane -O -t dash "cat >>$work/dash.bytes"
wait_for dash 30 'State +✓ ready'
sleep 1
dash_bps=$(bytes_per_s "$work/dash.bytes" "$window")
say "TUI idle dashboard: $dash_bps B/s"
T kill-session -t dash

# --- 2. headless line mode --------------------------------------------------------
say "headless: pyrt install --yes, no terminal (${window}s window)"
"$pyrt" install --yes --box-root "$work/hbox" "${common[@]}" </dev/null >"$work/headless.out" 2>&1 &
headless_pid=$!
for _ in $(seq 200); do
	p=$(ls "$work"/hbox/runtime/python/downloads/*.partial 2>/dev/null | head -1 || true)
	[ -n "$p" ] && [ "$(size "$p")" -gt 100000 ] && break
	sleep 0.1
done
sleep 1
head_bps=$(bytes_per_s "$work/headless.out" "$window")
kill -0 "$headless_pid" 2>/dev/null || die "the headless install ended inside the window"
kill -INT "$headless_pid"
wait "$headless_pid" 2>/dev/null || true
headless_pid=''
say "headless: $head_bps B/s"
tail -n 3 "$work/headless.out" | sed 's/^/   | /' >&2

verdict() { [ "$1" -le "$2" ] && echo met || echo "NOT met"; }
rev=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$src" status --porcelain -- tui cli core 2>/dev/null | grep -q . && echo " + uncommitted changes" || true)
load=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "# TUI bandwidth and key latency (bench/tui-bandwidth.sh)"
	echo
	echo "$(date -u +%Y-%m-%dT%H:%MZ), pyrt $rev$dirty, ${cols}x${rows}, tmux $(tmux -V | cut -d' ' -f2), load $load;"
	echo "download throttled to 100 kB/s by the mirror; windows of $window s; $tries tries per key."
	echo
	echo "| what | figure | target |"
	echo "|---|---:|---|"
	echo "| TUI progress screen during the download, bytes written to a pty | $pty_bps B/s | ≤ 2048 B/s: $(verdict "$pty_bps" 2048) |"
	echo "| the same in tmux (pipe-pane) | $tui_bps B/s | ≤ 2048 B/s: $(verdict "$tui_bps" 2048) |"
	echo "| TUI dashboard, idle, in tmux | $dash_bps B/s | - |"
	echo "| headless line mode during the download (stdout + stderr to a file) | $head_bps B/s | ≤ 200 B/s: $(verdict "$head_bps" 200) |"
	echo "| q → cancel dialog written to the pty, median (min–max) | $pq_med ms ($pq_min–$pq_max) | ≤ 100 ms: $(verdict "$pq_med" 100) |"
	echo "| Esc → cancel dialog written to the pty, median (min–max) | $pesc_med ms ($pesc_min–$pesc_max) | ≤ 100 ms: $(verdict "$pesc_med" 100) |"
	echo "| q → dialog seen by capture-pane (10 ms polls), median (min–max) | $q_med ms ($q_min–$q_max) | - (includes tmux) |"
	echo "| Esc → dialog seen by capture-pane, median (min–max) | $esc_med ms ($esc_min–$esc_max) | - (includes tmux) |"
	echo "| one capture-pane call (median) | $cap_med ms | - |"
} >"$results"
cat "$results"
