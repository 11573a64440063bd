#!/usr/bin/env bash
# ctest: e2e_serve_tui
# The front ends stay in step: an install started over `pyrt serve`'s API
# holds the box lock like any other, so `pyrt status` says installing while
# it runs, and the dashboard (which watches the box) says installing, then
# ready when the API job ends, with no key pressed.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup serve_tui fixtures
. "$(dirname "$0")/lib/tui.sh"
e2e_mirror
url=$mirror/fixture/runtime.tar.gz
sed "s#url: .*#url: $url?fault=slow:600000#" "$fx/pins.yaml" >"$work/pins-slow.yaml"
box=$work/box
asock=$box/runtime/python/api.sock
state() { "$pyrt" status --json --box-root "$box" --pins "$work/pins-slow.yaml" 2>/dev/null |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["state"])'; }

# Where code comes from is the server's option, never a request field.
"$pyrt" serve --box-root "$box" --pins "$work/pins-slow.yaml" --cacert "$fx/ca.pem" \
  --wheelhouse "$fx/wheelhouse" 2>"$work/serve.log" &
spid=$!
e2e_wait_socket "$asock" "$spid" "$work/serve.log"
ln -s "$asock" "$short/api.sock"
asock=$short/api.sock
curl -s -D "$work/h" -o "$work/job.json" --unix-socket "$asock" \
  -d '{"consent": true}' \
  http://localhost/api/runtime/python/install
check "the API started an install job (202)" grep -q '^HTTP/1.1 202' "$work/h"
for _ in $(seq 200); do [ "$(state)" = installing ] && break; sleep 0.1; done
check "pyrt status says installing while the API job runs" [ "$(state)" = installing ]
size=80x23 start dash -- --box-root "$box" --pins "$work/pins-slow.yaml" --cacert "$fx/ca.pem"
check "the dashboard opened during the API install says installing" \
  wait_for dash 20 'State +. installing'
check "no key pressed: the dashboard says ready when the API job ends" \
  wait_for dash 60 'State +✓ ready'
loc=$(sed -n 's/^Location: \([^\r]*\).*/\1/p' "$work/h")
# The runtime is ready at activation; the job ends after the baseline.
for _ in $(seq 600); do
  curl -s --unix-socket "$asock" "http://localhost$loc" >"$work/job.json"
  grep -q '"state": "running"' "$work/job.json" || break
  sleep 0.1
done
check "the API job succeeded" grep -q '"state": "succeeded"' "$work/job.json"
T send-keys -t dash q
kill -TERM "$spid"; wait "$spid"
check "the server stops cleanly" [ $? -eq 0 ]
e2e_finish
