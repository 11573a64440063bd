#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build pyrt, and provision a
# managed runtime into ./demo-box from a loopback HTTPS mirror.  Works with no
# internet: the mirror serves a real CPython runtime archive built here from
# Debian's python3.11 (install_only layout), signed for by a CA made here.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bash scripts/deps.sh
echo "== building pyrt and its fixtures (a runtime archive, a CA, wheels): about two minutes the first time…"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target pyrt >/dev/null

fx=$root/build/fixtures
bash tests/fixtures/build-fixtures.sh "$fx"

portfile=$(mktemp -u /tmp/pyrt-demo-port.XXXXXX)
python3 tests/fixtures/mirror.py --root "$fx/www" --cert "$fx/server.pem" \
  --key "$fx/server.key" --port-file "$portfile" 2>/dev/null &
mirror=$!
trap 'kill "$mirror" 2>/dev/null || true; rm -f "$portfile"' EXIT
for _ in $(seq 100); do [ -s "$portfile" ] && break; sleep 0.1; done
[ -s "$portfile" ] || { echo "demo: the loopback mirror did not start" >&2; exit 1; }
port=$(cat "$portfile")

box=$root/demo-box
pyrt=$root/build/pyrt
export PYRT_BOX_ROOT=$box PYRT_PINS=$fx/pins.yaml
# The seven plugins of the desktop app's bug report, for the readiness matrix.
mkdir -p "$box/plugins"
cp -r tests/fixtures/sample-box/plugins/. "$box/plugins/"

echo "== pyrt install (pins $fx/pins.yaml, mirror https://127.0.0.1:$port, box $box)"
"$pyrt" install --yes --mirror "https://127.0.0.1:$port/pbs" --cacert "$fx/ca.pem" \
  --wheelhouse "$fx/wheelhouse"
echo "== pyrt status"
"$pyrt" status
echo "== pyrt plugins (cowork needs python-pptx, which Debian 12 does not package)"
"$pyrt" plugins || true
echo "== pyrt smoke: a real .docx made by the managed runtime"
"$pyrt" smoke --out "$box/smoke.docx"

# The dashboard on the demo box: the one command, run here while the
# mirror is still up (its reinstall and baseline actions fetch from it).
dash="PYRT_BOX_ROOT=$box PYRT_PINS=$fx/pins.yaml PYRT_MIRROR_URL=https://127.0.0.1:$port/pbs CURL_CA_BUNDLE=$fx/ca.pem $pyrt"
if [ -t 0 ] && [ -t 1 ] && [ -z "${PYRT_DEMO_NO_DASHBOARD:-}" ]; then
  echo "== the dashboard (q quits; the mirror stays up while it runs):"
  echo "   $dash"
  PYRT_MIRROR_URL="https://127.0.0.1:$port/pbs" CURL_CA_BUNDLE="$fx/ca.pem" "$pyrt" || true
else
  # This mirror stops as the script ends: name no URL of it, but how to
  # start one (mirror.py exits by itself after 15 minutes).
  echo "== the dashboard, on a terminal (showing the box needs no mirror):"
  echo "   PYRT_BOX_ROOT=$box PYRT_PINS=$fx/pins.yaml $pyrt"
  echo "   The demo's mirror stops now.  Its reinstall and baseline actions fetch"
  echo "   from one: run bash scripts/demo.sh on a terminal (the mirror stays up"
  echo "   while the dashboard runs), or start one yourself (it stops after 15 min):"
  echo "   python3 $root/tests/fixtures/mirror.py --root $fx/www --cert $fx/server.pem --key $fx/server.key --port-file /tmp/pyrt-port &"
  echo "   PYRT_BOX_ROOT=$box PYRT_PINS=$fx/pins.yaml PYRT_MIRROR_URL=https://127.0.0.1:\$(cat /tmp/pyrt-port)/pbs CURL_CA_BUNDLE=$fx/ca.pem $pyrt"
fi
