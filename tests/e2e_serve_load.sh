#!/usr/bin/env bash
# ctest: e2e_serve_load (label load, run alone)
# `pyrt serve` under 300 keep-alive pollers (issue 19, item 1): every GET
# of every round is answered, none hangs.  tests/serve_load.py is the
# client (asyncio, one connection per poller, GET /api/runtime/python
# again and again on it, a 5 s deadline on every connect and request, a
# bound on every round), so the whole test is bounded: about a minute.
#
# What it caught on the old server (libmicrohttpd's epoll loop, 256
# connections, the untrusted cap applied at the accept):
#   - a pool thread whose 128 connections all asked at once slept in its
#     second epoll_wait until the 30 s timeout, then closed them (the
#     "frozen" rounds make that moment certain: the server is stopped while
#     every client asks, so each thread wakes to all of its connections
#     ready; on one pool thread, 128 and 256 pollers);
#   - 44 of 300 pollers were never accepted (256 connections);
#   - 300 clients connecting at once were cut to the 64 of the untrusted
#     cap before their requests were read.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup serve_load fixtures
box=$work/box
spid=

# A server stopped by a frozen round must get its SIGCONT before the
# SIGTERM of the cleanup can act.
serve_stop() {
  [ -n "$spid" ] || return 0
  kill -CONT "$spid" 2>/dev/null
  kill -TERM "$spid" 2>/dev/null
  wait "$spid"
  local rc=$?
  spid=
  return $rc
}
trap 'serve_stop; e2e_cleanup' EXIT

# serve_start LOG [PREFIX...] -- ARGS...: start pyrt serve on $box (with
# PREFIX before it, e.g. taskset), wait until it listens.
serve_start() {
  local log=$1; shift
  local pre=()
  while [ "$1" != -- ]; do pre+=("$1"); shift; done
  shift
  "${pre[@]}" "$pyrt" serve --box-root "$box" --pins "$fx/pins.yaml" "$@" 2>"$log" &
  spid=$!
  for _ in $(seq 100); do grep -q 'listening on' "$log" && return 0; sleep 0.05; done
  bad "the server listens ($log)"
  sed 's/^/#   /' "$log"
  exit 1
}

# load WHAT ARGS...: one check, the driver's rounds as its detail.
load() {
  local what=$1; shift
  timeout 150 python3 "$src/tests/serve_load.py" --timeout 5 --round-limit 30 --stop-early "$@" \
    >"$work/load.out" 2>&1
  local rc=$?
  sed 's/^/#   /' "$work/load.out"
  check "$what" [ "$rc" -eq 0 ]
}

health() {
  curl -sf --max-time 5 "$@" | grep -q '"status": "ok"'
}

run install --box-root "$box" --pins "$fx/pins.yaml" --from-file "$fx/runtime.tar.gz" \
  --no-baseline --yes
check "a ready runtime to poll" rc_is 0

# 1. The Unix socket (no token: every request passes the gate at once),
# the server on every CPU it may use.
sock=$short/load.sock
serve_start "$work/serve-unix.log" -- --listen "unix:$sock"
load "300 clients connecting at once, 3 rounds of 10 GETs each: every GET answered" \
  --unix "$sock" --clients 300 --rounds 3 --requests 10
load "300 clients connected one by one, then asking together while the server is stopped for 0.5 s, 3 rounds: every GET answered" \
  --unix "$sock" --clients 300 --rounds 3 --requests 10 --ramp --freeze "$spid"
check "the server still answers /api/health" health --unix-socket "$sock" http://localhost/api/health
serve_stop
check "SIGTERM after the load exits 0" [ $? -eq 0 ]

# 2. Loopback TCP with the bearer token: each poller's connection is
# trusted after its first request.
serve_start "$work/serve-tcp.log" -- --listen 127.0.0.1:0 --token-file "$work/tok"
tport=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/serve-tcp.log")
load "TCP with the token: 300 clients connecting at once, 2 rounds: every GET answered" \
  --tcp "127.0.0.1:$tport" --token-file "$work/tok" --clients 300 --rounds 2 --requests 10
load "TCP with the token: 300 clients, frozen start, 2 rounds: every GET answered" \
  --tcp "127.0.0.1:$tport" --token-file "$work/tok" --clients 300 --rounds 2 --requests 10 \
  --ramp --freeze "$spid"
serve_stop
check "the TCP server exits 0" [ $? -eq 0 ]

# 3. One pool thread (the server pinned to one CPU sizes its pool to it):
# every connection on one event loop, 128 and 256 of them ready at once
# (the epoll loop's 128-event edge), then 300.
cpu=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
serve_start "$work/serve-one.log" taskset -c "$cpu" -- --listen "unix:$sock"
for n in 128 256 300; do
  load "one pool thread: $n clients asking together after a stop, 2 rounds: every GET answered" \
    --unix "$sock" --clients "$n" --rounds 2 --requests 10 --ramp --freeze "$spid"
done
check "the one-thread server still answers /api/health" health --unix-socket "$sock" http://localhost/api/health
serve_stop
check "the one-thread server exits 0" [ $? -eq 0 ]
e2e_finish
