#!/usr/bin/env bash
# `pyrt serve` throughput, latency, memory and SSE delay (issue 11).  Never a
# timed test: figures go to bench/README.md with the load average.
#
#   bench/serve-bench.sh [BUILD_DIR]   # default build/, needs its fixtures
#
# Writes bench/results-serve.md (bench/serve-report.py) with the figures and
# the load average; bench/run's RESULTS.md quotes its verdict line.
#
# 1. A ready runtime (the fixture archive, --from-file) in a box on a tmpfs.
# 2. pyrt serve on 127.0.0.1 (token), RSS read before.
# 3. wrk: GET /api/runtime/python, keep-alive, 64 connections, 2 threads,
#    10 s, --latency (p50/p99); RSS after, and again after a second run
#    (flat = no growth between the runs); then 300 connections (issue 19),
#    timeouts (no answer in 5 s) counted.
# 4. SSE delay: an install job on a slow loopback mirror; for each progress
#    event, (time received - time of the POST) - the event's t (seconds since
#    the job began, stamped when the engine emitted it).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
pyrt=$build/pyrt
fx=$build/fixtures
[ -x "$pyrt" ] && [ -f "$fx/pins.yaml" ] || { echo "build pyrt and its fixtures first (ctest -R e2e_install)"; exit 1; }
work=$(mktemp -d /tmp/pyrt-serve-bench.XXXXXX)
spid= mpid=
cleanup() {
  [ -n "$spid" ] && kill "$spid" 2>/dev/null && wait "$spid" 2>/dev/null
  [ -n "$mpid" ] && kill "$mpid" 2>/dev/null && wait "$mpid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
box=$work/box
meta() { printf '%s=%s\n' "$1" "$2" >>"$work/meta"; }
load_now() { cut -d' ' -f1-3 /proc/loadavg; }
echo "# $(date -u +%FT%TZ) $(nproc) CPUs; load: $(load_now)"
meta date "$(date -u '+%F %H:%M')"
meta cpus "$(nproc)"
meta load_before "$(load_now)"
meta rev "$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)"
meta build "$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)"
# Server and load generator each on its own CPUs, as on two machines: on
# shared CPUs the tail is the scheduler's turn-taking, not the server's.
# The server sizes its thread pool to the CPUs it may use.
pin_server="" pin_client="" wrk_threads=2
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
  half=$(( $(nproc) / 2 ))
  pin_server="taskset -c 0-$((half - 1))"
  pin_client="taskset -c $half-$(( $(nproc) - 1 ))"
  wrk_threads=$(( $(nproc) - half ))
  echo "# server on CPUs 0-$((half - 1)), wrk on CPUs $half-$(( $(nproc) - 1 ))"
  meta pinning "server on CPUs 0-$((half - 1)), wrk on CPUs $half-$(( $(nproc) - 1 ))"
fi
"$pyrt" install --box-root "$box" --pins "$fx/pins.yaml" \
  --from-file "$fx/runtime.tar.gz" --no-baseline --yes -q >/dev/null
$pin_server "$pyrt" serve --box-root "$box" --pins "$fx/pins.yaml" --listen 127.0.0.1:0 \
  --token-file "$work/tok" 2>"$work/serve.log" &
spid=$!
for _ in $(seq 100); do grep -q 'listening on' "$work/serve.log" && break; sleep 0.05; done
port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/serve.log")
tok=$(cat "$work/tok")
rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$spid/status"; }
echo "state: $(curl -s -H "Authorization: Bearer $tok" "http://127.0.0.1:$port/api/runtime/python" | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')"
cpu() { awk '{print $14 + $15}' "/proc/$spid/stat"; }  # utime+stime, ticks
echo "RSS at start: $(rss)"
meta rss_start "$(rss)"
cmd=($pin_client wrk -t$wrk_threads -c64 -d10s --latency -H "Authorization: Bearer $tok" "http://127.0.0.1:$port/api/runtime/python")
echo "\$ ${cmd[*]/$tok/<token>}"
c0=$(cpu)
"${cmd[@]}" | tee "$work/wrk1" | sed -n '/Latency Distribution/,/requests in/p;/Requests\/sec/p;/Non-2xx/p'
c1=$(cpu)
n=$(sed -n 's/^ *\([0-9]*\) requests in.*/\1/p' "$work/wrk1")
# The server's own CPU per request, which the machine's load does not
# inflate much: 2 CPUs / this = the ceiling on a quiet machine.
awk -v c="$((c1 - c0))" -v n="$n" -v hz="$(getconf CLK_TCK)" \
  'BEGIN { printf "server CPU per request: %.1f us (%d requests)\n", c / hz / n * 1e6, n }' |
  tee "$work/cpu"
meta cpu_per_request "$(sed -n 's/server CPU per request: \([0-9.]* us\).*/\1/p' "$work/cpu")"
echo "RSS after run 1: $(rss)"
meta rss_1 "$(rss)"
"${cmd[@]}" | tee "$work/wrk2" | sed -n '/99%/p;/Requests\/sec/p'
echo "RSS after run 2: $(rss); load: $(load_now)"
meta rss_2 "$(rss)"
# Issue 19: 300 keep-alive connections (more than the old 256 limit, and
# more than the 128 events an epoll loop took at once); a request with no
# answer in 5 s is a wrk timeout.
cmd300=($pin_client wrk -t$wrk_threads -c300 -d10s --timeout 5s --latency -H "Authorization: Bearer $tok" "http://127.0.0.1:$port/api/runtime/python")
echo "\$ ${cmd300[*]/$tok/<token>}"
"${cmd300[@]}" | tee "$work/wrk300" | sed -n '/Latency Distribution/,/requests in/p;/Requests\/sec/p;/Non-2xx/p;/Socket errors/p'
echo "RSS after the 300-connection run: $(rss); load: $(load_now)"
meta rss_300 "$(rss)"
kill "$spid"; wait "$spid" 2>/dev/null || true; spid=

# SSE delay on a fresh box, through a slow mirror (the download emits
# progress for a few seconds).
python3 "$src/tests/fixtures/mirror.py" --root "$fx/www" --cert "$fx/server.pem" \
  --key "$fx/server.key" --port-file "$work/mport" --log /dev/null 2>/dev/null &
mpid=$!
for _ in $(seq 100); do [ -s "$work/mport" ] && break; sleep 0.05; done
sed "s#url: .*#url: https://127.0.0.1:$(cat "$work/mport")/pbs/fixture/runtime.tar.gz?fault=slow:2000000#" \
  "$fx/pins.yaml" >"$work/pins-slow.yaml"
"$pyrt" serve --box-root "$work/box2" --pins "$work/pins-slow.yaml" --cacert "$fx/ca.pem" \
  2>"$work/serve2.log" &
spid=$!
for _ in $(seq 100); do [ -S "$work/box2/runtime/python/api.sock" ] && break; sleep 0.05; done
{
python3 - "$work/box2/runtime/python/api.sock" <<'PY'
import http.client, json, socket, sys, time
class U(http.client.HTTPConnection):
    def __init__(s, p): super().__init__("localhost", timeout=120); s.p = p
    def connect(s):
        s.sock = socket.socket(socket.AF_UNIX); s.sock.connect(s.p)
c = U(sys.argv[1]); t0 = time.monotonic()
c.request("POST", "/api/runtime/python/install", body=json.dumps({"consent": True, "no_baseline": True}),
          headers={"Content-Type": "application/json"})
r = c.getresponse(); loc = r.getheader("Location"); r.read()
e = U(sys.argv[1]); e.request("GET", loc + "/events"); r = e.getresponse()
delays = []
for line in r:
    line = line.decode().strip()
    if line.startswith("data: "):
        ev = json.loads(line[6:])
        if ev["event"] == "progress":
            delays.append((time.monotonic() - t0 - ev["t"]) * 1000)
        if ev["event"] == "result":
            break
delays.sort()
print(f"SSE progress events: {len(delays)}; delay ms: median {delays[len(delays)//2]:.2f}, "
      f"max {delays[-1]:.2f} (includes the POST round trip)")
PY
} | tee "$work/sse"
meta load_after "$(load_now)"
python3 "$src/bench/serve-report.py" "$work" >"$src/bench/results-serve.md.tmp"
mv "$src/bench/results-serve.md.tmp" "$src/bench/results-serve.md"
echo "wrote bench/results-serve.md"
