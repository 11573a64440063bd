# The preamble the end-to-end scripts share; sourced by tests/e2e_*.sh
# (ctest runs those, not this file):
#
#   . "$(dirname "$0")/lib/e2e.sh"
#   e2e_setup NAME [fixtures]
#   ... checks ...
#   e2e_finish
#
# It gives: $pyrt; $src (the source tree); with "fixtures" $bin and $fx (the
# fixture set, built once per build directory); $work, a private directory
# on PYRT_TEST_TMP removed on exit, with HOME inside it; $short, a private
# directory with a short path under /tmp for sockets and ssh control paths
# (AF_UNIX paths end at 108 bytes, and a CI checkout may be deep); an
# environment that
# cannot pick a box, pins, CA bundle or proxy for the test; the counters
# ok/bad/check; run/has/rc_is over the files out and err; and e2e_mirror,
# the loopback HTTPS mirror of the fixtures.
# shellcheck shell=bash disable=SC2034  # the variables are the scripts'
set -uo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mirror_pid=
pass=0 fail=0

ok()    { pass=$((pass + 1)); echo "ok - $*"; }
bad()   { fail=$((fail + 1)); echo "FAIL - $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }

# run ARGS...: run pyrt without a terminal; sets $rc, files out and err.
run() {
  "$pyrt" "$@" </dev/null >"$work/out" 2>"$work/err"
  rc=$?
}
has()   { grep -q -- "$1" "$work/$2"; }
rc_is() { [ "$rc" -eq "$1" ]; }

# The mirror is stopped by its pid, the work directory removed.
e2e_cleanup() {
  [ -n "$mirror_pid" ] && kill "$mirror_pid" 2>/dev/null && wait "$mirror_pid" 2>/dev/null
  rm -rf "$work"
  [ -n "${short:-}" ] && rm -rf "$short"
}

# e2e_setup NAME [fixtures]: work directory pyrt-e2e-NAME.XXXXXX and a
# clean environment; with "fixtures", the fixture set in $fx first.
e2e_setup() {
  local name=$1
  pyrt=${PYRT_BIN:-${PYRT_BINARY_DIR:?PYRT_BIN or PYRT_BINARY_DIR must be set}/pyrt}
  if [ "${2:-}" = fixtures ]; then
    bin=${PYRT_BINARY_DIR:?PYRT_BINARY_DIR must name the build directory}
    fx=$bin/fixtures
    bash "$src/tests/fixtures/build-fixtures.sh" "$fx" >&2 ||
      { echo "FAIL - fixtures"; exit 1; }
  fi
  work=$(mktemp -d "${PYRT_TEST_TMP:-/tmp}/pyrt-e2e-$name.XXXXXX")
  short=$(mktemp -d /tmp/pyrt.XXXX)
  trap e2e_cleanup EXIT
  # Never let the caller's environment pick a box, pins, CA bundle or
  # proxy for us.
  unset PYRT_BOX_ROOT PYRT_PINS PYRT_THEME CURL_CA_BUNDLE SSL_CERT_FILE XDG_DATA_HOME \
        http_proxy https_proxy all_proxy no_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY NO_PROXY
  export HOME=$work/home
  mkdir -p "$HOME"
  # doctor tries the archive's host and the index; a test never leaves
  # loopback, so it asks for that by unsetting this (e2e_doctor's network
  # block).
  export PYRT_DOCTOR_OFFLINE=1
}

# e2e_mirror: serve $fx/www over HTTPS on a loopback port (requests logged
# to $work/requests.log); sets $port and $mirror, the --mirror base URL.
e2e_mirror() {
  python3 "$src/tests/fixtures/mirror.py" --root "$fx/www" --cert "$fx/server.pem" \
    --key "$fx/server.key" --port-file "$work/port" --log "$work/requests.log" 2>/dev/null &
  mirror_pid=$!
  for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
  port=$(cat "$work/port")
  mirror="https://127.0.0.1:$port/pbs"
}

# json_doc PY: run PY with r the JSON document in $work/out (assert there).
json_doc() {
  python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[2])' "$work/out" "$@"
}

# json_last PY: the same over the last NDJSON line of $work/out.
json_last() {
  python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
exec(sys.argv[2])' "$work/out" "$@"
}

# e2e_simple_index DIR: the fixture wheelhouse as a PEP 503 index under
# DIR/simple/NAME/ (serve it with tests/helpers/slow_index.py or
# python3 -m http.server).
e2e_simple_index() {
  local idx=$1
  e2e_index_add "$idx" "$fx"/wheelhouse/*.whl
}

# e2e_index_add DIR WHEEL...: add each wheel to the PEP 503 index in DIR.
e2e_index_add() {
  local idx=$1 whl f name
  shift
  for whl in "$@"; do
    f=$(basename "$whl")
    name=$(printf '%s' "${f%%-*}" | tr '_A-Z' '-a-z')
    mkdir -p "$idx/simple/$name"
    cp "$whl" "$idx/simple/$name/"
    printf '<a href="%s">%s</a>\n' "$f" "$f" >>"$idx/simple/$name/index.html"
  done
}

# e2e_serve_index DIR: serve DIR over loopback HTTP (pip's index) until the
# test ends; sets iport and http_pid, and stops that pid on exit.  A
# server that names no port within 10 s ends the test with its log.
e2e_serve_index() {
  python3 -m http.server --bind 127.0.0.1 0 --directory "$1" >"$work/http.log" 2>&1 &
  http_pid=$!
  trap stop_http EXIT
  iport=
  for _ in $(seq 100); do
    iport=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$work/http.log" | head -1)
    [ -n "$iport" ] && return 0
    sleep 0.1
  done
  echo "FAIL - the loopback index did not start:"
  sed 's/^/#   /' "$work/http.log"
  exit 1
}
stop_http() { kill "$http_pid" 2>/dev/null; wait "$http_pid" 2>/dev/null; e2e_cleanup; }

# e2e_wait_socket PATH PID LOG: wait up to 5 s for a server (pid PID,
# stderr in LOG) to listen on the Unix socket PATH. When it cannot start,
# say why with its log and end the test now rather than let every later
# check wait out its own timeout.
e2e_wait_socket() {
  local path=$1 pid=$2 log=$3
  # 10 s: a loaded 2-core CI machine starts a server slowly.
  for _ in $(seq 200); do
    [ -S "$path" ] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  bad "the server (pid $pid) listens on $path"
  sed 's/^/#   /' "$log"
  kill "$pid" 2>/dev/null
  e2e_finish
  exit 1
}

# The tally; its status is the script's.
e2e_finish() {
  echo "# $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
