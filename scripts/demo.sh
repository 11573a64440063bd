#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build pyrt, and provision a
# managed runtime into ./demo-box from a loopback HTTPS mirror.  Works with no
# internet: the mirror serves a real CPython runtime archive built here from
# Debian's python3.11 (install_only layout), signed for by a CA made here.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
bash scripts/deps.sh
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
