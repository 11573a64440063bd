#!/usr/bin/env bash
# Screenshots of the terminal UI, made from the real program: build pyrt,
# serve the fixture runtime from the loopback HTTPS mirror, run pyrt in a
# private tmux server at 100x30, capture each screen with its colours
# (capture-pane -e), render it to HTML (scripts/ansi2html.py) and take the
# PNG with headless Chromium.  Writes screenshots/<screen>.png, and the main
# screens again at 80x23 (an SSH terminal under tmux or screen) as
# <screen>-80x23.png and in the compact layout at 60x16 as <screen>-60x16.png.
#
#   bash scripts/screenshots.sh [THEME]    # second theme, default solarized-dark
#
# Chromium and the DejaVu fonts are installed here when missing (apt), not
# by scripts/deps.sh, so the build and test path never pulls a browser.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
theme2=${1:-solarized-dark}
out=$root/screenshots
cols=100 rows=30

bash scripts/deps.sh
need=()
command -v chromium >/dev/null || need+=(chromium)
dpkg-query -W -f='${Status}' fonts-dejavu-core 2>/dev/null | grep -q 'install ok installed' ||
  need+=(fonts-dejavu-core)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${need[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target pyrt >/dev/null
pyrt=$root/build/pyrt
fx=$root/build/fixtures
bash tests/fixtures/build-fixtures.sh "$fx" >/dev/null

# A fixed, short work dir: its paths show on the screens.
work=${TMPDIR:-/tmp}/pyrt-screenshots
rm -rf "$work"
mkdir -m 700 "$work"
sock=pyrt-shots-$$
mirror=
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  [ -n "$mirror" ] && kill "$mirror" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
unset TMUX TMUX_PANE PYRT_BOX_ROOT PYRT_PINS PYRT_THEME PYRT_THEME_DIR NO_COLOR
export LANG=C.UTF-8 LC_ALL=C.UTF-8

python3 tests/fixtures/mirror.py --root "$fx/www" --cert "$fx/server.pem" \
  --key "$fx/server.key" --port-file "$work/port" >/dev/null 2>&1 &
mirror=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "screenshots: the loopback mirror did not start" >&2; exit 1; }
port=$(cat "$work/port")
base=https://127.0.0.1:$port/pbs
# The download is throttled so the progress screen can be caught mid-way.
# The baseline goes to pip, whose output pane is the picture: pyrt's own
# wheelhouse installer finishes in a blink, and it leaves a requirement to
# pip when it cannot decide its marker (a string compared with >=; true
# for pip, as os_name is "posix").
sed -e "s#url: .*#url: $base/fixture/runtime.tar.gz?fault=slow:400000#" \
    -e 's#^  - openpyxl$#  - openpyxl; os_name >= "posix"#' \
  "$fx/pins.yaml" >"$work/pins.yaml"
grep -q 'os_name >= "posix"' "$work/pins.yaml" ||
  { echo "screenshots: the fixture pins no longer list openpyxl" >&2; exit 1; }
cp -r "$fx/wheelhouse" "$work/wheelhouse" # pip would print the link's target
box=$work/box
mkdir -p "$box/plugins"
cp -r tests/fixtures/sample-box/plugins/. "$box/plugins/"

T() { tmux -L "$sock" "$@"; }
# A session that outlives the others: a server left with none exits, and a
# new session started while it is exiting fails ("server exited
# unexpectedly").
T new-session -d -s keep "sleep 86400"
# run NAME pyrt-args...: pyrt in a new session at cols x rows.
run() {
  local name=$1; shift
  printf 'cd %q && exec %q' "$work" "$pyrt" >"$work/$name.run"
  printf ' %q' "$@" --cacert "$fx/ca.pem" --wheelhouse "$work/wheelhouse" >>"$work/$name.run"
  T new-session -d -x "$cols" -y "$rows" -s "$name" "bash $work/$name.run"
}
screen() { T capture-pane -p -t "$1" "${@:2}"; }
# wait_for NAME SECONDS ERE
wait_for() {
  local i
  for ((i = 0; i < $2 * 20; i++)); do
    screen "$1" >"$work/screen" 2>/dev/null && grep -qE -- "$3" "$work/screen" && return 0
    sleep 0.05
  done
  echo "screenshots: timed out waiting for /$3/ on $1; the screen:" >&2
  cat "$work/screen" >&2
  exit 1
}
# shot SESSION NAME: the screen as it is now, with colours (and its size,
# for the HTML).
shot() {
  screen "$1" -e >"$caps/$2.ans"
  T display-message -p -t "$1" '#{window_width} #{window_height}' >"$caps/$2.size"
  echo "captured $2"
}
# resized SESSION COLSxROWS ERE NAME: the same screen at another size, shot
# once it has redrawn.
resized() {
  T resize-window -t "$1" -x "${2%x*}" -y "${2#*x}"
  sleep 0.3
  wait_for "$1" 20 "$3"
  shot "$1" "$4"
}

# The captures and their HTML stay in build/screenshots for a look.
caps=$root/build/screenshots
rm -rf "$caps"
mkdir -p "$out" "$caps"

# Consent: the mirror's plain URL (nothing is fetched before consent).
run consent --box-root "$box" --pins "$fx/pins.yaml" --mirror "$base"
wait_for consent 20 'What will happen'
shot consent consent
resized consent 80x23 'What will happen' consent-80x23
resized consent 60x16 'What will happen' consent-60x16
T kill-session -t consent

# Progress, mid-download and then during the baseline; result; dashboard.
run main --box-root "$box" --pins "$work/pins.yaml"
wait_for main 20 'What will happen'
T send-keys -t main y
wait_for main 30 ' (3[0-9]|[4-9][0-9])% *$'
shot main progress-download
resized main 80x23 '[0-9]+% *$' progress-download-80x23
resized main 60x16 '[0-9]+% *$' progress-download-60x16
T resize-window -t main -x "$cols" -y "$rows"
# While the baseline runs, keep the fullest pip pane seen.
got=
for _ in $(seq 2400); do
  screen main -e >"$work/frame.ans"
  plain=$(sed 's/\x1b\[[0-9;:]*m//g' "$work/frame.ans") # the same frame, as text
  if grep -qE '^  [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Baseline' <<<"$plain"; then
    grep -q 'Processing' <<<"$plain" && { cp "$work/frame.ans" "$caps/progress-baseline.ans"; got=1; }
  elif [ -n "$got" ] || grep -q 'Install complete\|Install failed' <<<"$plain"; then
    break
  fi
  sleep 0.05
done
[ -n "$got" ] || { echo "screenshots: never saw pip's output pane" >&2; exit 1; }
echo "$cols $rows" >"$caps/progress-baseline.size"
echo "captured progress-baseline"
wait_for main 120 'Install complete'
T send-keys -t main Enter
wait_for main 30 'State +✓ ready'
T send-keys -t main j j
wait_for main 10 '^ │ cowork: '
shot main dashboard
resized main 80x23 '^ │ cowork: ' dashboard-80x23
resized main 60x16 '^ │ cowork: ' dashboard-60x16
T resize-window -t main -x "$cols" -y "$rows"
T send-keys -t main d
wait_for main 60 'doctor: [0-9]+ passed'
shot main doctor
resized main 80x23 'doctor: [0-9]+ passed' doctor-80x23
T kill-session -t main

# The dashboard in a second theme.
run themed --box-root "$box" --pins "$work/pins.yaml" --theme "$theme2"
wait_for themed 30 'State +✓ ready'
T send-keys -t themed j j
wait_for themed 10 '^ │ cowork: '
shot themed "dashboard-$theme2"
T kill-session -t themed

# Error: an archive whose SHA-256 is not the pinned one.
run error --box-root "$work/box2" --pins "$fx/pins-tampered.yaml" --mirror "$base"
wait_for error 20 'What will happen'
T send-keys -t error y
wait_for error 60 'Install failed'
shot error error
T kill-session -t error

# HTML (which says its size), then PNG.
profile=$(mktemp -d "$work/chromium.XXXXXX")
for ans in "$caps"/*.ans; do
  name=$(basename "$ans" .ans)
  read -r w h <"$caps/$name.size"
  read -r width height < <(python3 scripts/ansi2html.py --width "$w" \
    --height "$h" --font-px 15 --title "pyrt: $name" "$ans" "$caps/$name.html")
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --hide-scrollbars --window-size="$width,$height" \
    --screenshot="$out/$name.png" "file://$caps/$name.html" >/dev/null 2>&1
  [ -s "$out/$name.png" ] || { echo "screenshots: chromium made no $name.png" >&2; exit 1; }
  echo "wrote screenshots/$name.png"
done
