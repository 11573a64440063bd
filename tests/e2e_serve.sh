#!/usr/bin/env bash
# ctest: e2e_serve
# `pyrt serve` end to end with real clients on loopback only: curl (over the
# Unix socket and TCP) here, Python's http.client in tests/serve_test.py
# (every endpoint, the Host/Origin/token gate, bodies, the install job with
# SSE, cancel, 409, SIGTERM, socket activation; every JSON response checked
# against docs/api.yaml).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup serve fixtures
e2e_mirror
# A box at a short path, so curl reaches its default socket directly.
box=$short/box-curl
sock=$box/runtime/python/api.sock

# curl over the default Unix socket.
"$pyrt" serve --box-root "$box" --pins "$fx/pins.yaml" 2>"$work/curl-serve.log" &
spid=$!
e2e_wait_socket "$sock" "$spid" "$work/curl-serve.log"
check "curl: GET /api/health over the Unix socket" \
  sh -c "curl -sf --unix-socket '$sock' http://localhost/api/health | grep -q '\"status\": \"ok\"'"
curl -s --unix-socket "$sock" http://localhost/api/runtime/python >"$work/api-st.json"
"$pyrt" status --box-root "$box" --pins "$fx/pins.yaml" --json >"$work/cli-st.json"
check "curl: GET /api/runtime/python is pyrt status --json" python3 -c '
import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a==b,(a,b)' \
  "$work/api-st.json" "$work/cli-st.json"
code=$(curl -s -o "$work/o" -w '%{http_code}' --unix-socket "$sock" -H 'Host: evil.example' http://localhost/api/health)
check "curl: Host evil.example is 421" [ "$code" = 421 ]
code=$(curl -s -o "$work/o" -w '%{http_code}' --unix-socket "$sock" -H 'Host: :8080' http://localhost/api/health)
check "curl: empty host (:8080) is refused" [ "$code" = 421 ]
code=$(curl -s -D "$work/h" -o "$work/o" -w '%{http_code}' --unix-socket "$sock" \
  -H 'Origin: https://evil.example' http://localhost/api/runtime/python)
check "curl: a web page's Origin is 403" [ "$code" = 403 ]
check "curl: no CORS header on the refusal" sh -c "! grep -qi '^access-control-' '$work/h'"
code=$(curl -s -o "$work/o" -w '%{http_code}' --unix-socket "$sock" -X POST \
  -H 'Content-Type: application/json' -d '{}' http://localhost/api/runtime/python/install)
check "curl: POST install without consent is 400" [ "$code" = 400 ]
check "curl: the refusal says consent" grep -q consent "$work/o"
head -c 20000 /dev/zero | tr '\0' a >"$work/big"
code=$(curl -s -o "$work/o" -w '%{http_code}' --unix-socket "$sock" -X POST \
  -H 'Content-Type: application/json' --data-binary @"$work/big" http://localhost/api/runtime/python/install)
check "curl: a 20 KB body is 413" [ "$code" = 413 ]
check "curl: the 413 is the JSON error" grep -q '"too_large"' "$work/o"
kill -TERM "$spid"; wait "$spid"
check "curl server: SIGTERM exits 0" [ $? -eq 0 ]

# curl over TCP with the token.
"$pyrt" serve --box-root "$box" --pins "$fx/pins.yaml" --listen 127.0.0.1:0 \
  --token-file "$work/tok" 2>"$work/curl-tcp.log" &
spid=$!
for _ in $(seq 100); do grep -q 'listening on' "$work/curl-tcp.log" && break; sleep 0.05; done
tport=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/curl-tcp.log")
code=$(curl -s -o "$work/o" -w '%{http_code}' "http://127.0.0.1:$tport/api/health")
check "curl: TCP without the token is 401" [ "$code" = 401 ]
code=$(curl -s -o "$work/o" -w '%{http_code}' -H "Authorization: Bearer $(cat "$work/tok")" \
  "http://127.0.0.1:$tport/api/runtime/python")
check "curl: TCP with the token is 200" [ "$code" = 200 ]
code=$(curl -s -o "$work/o" -w '%{http_code}' -H "Authorization: Bearer $(cat "$work/tok")" \
  -H "Host: evil.example:$tport" "http://127.0.0.1:$tport/api/health")
check "curl: Host evil.example:PORT is 421" [ "$code" = 421 ]
kill -TERM "$spid"; wait "$spid"

# A box deeper than a Unix socket path can be (107 bytes), as under a CI
# workspace: the default socket is still made in the box (bound through its
# directory's descriptor) and answers through a short symlink.
deep=$work/$(printf 'd%.0s' $(seq 120))/box
dsock=$deep/runtime/python/api.sock
"$pyrt" serve --box-root "$deep" --pins "$fx/pins.yaml" 2>"$work/deep-serve.log" &
spid=$!
e2e_wait_socket "$dsock" "$spid" "$work/deep-serve.log"
check "a box path over 107 bytes: the socket is in the box" [ "${#dsock}" -gt 107 ]
# The socket exists a moment before its start-up line is written.
for _ in $(seq 100); do
  grep -q "shorter symlink" "$work/deep-serve.log" && break
  sleep 0.05
done
check "the log names the socket and how clients reach it" \
  eval 'grep -q "listening on unix:$dsock" "$work/deep-serve.log" &&
        grep -q "give them a shorter symlink to it" "$work/deep-serve.log"'
ln -s "$dsock" "$short/deep.sock"
check "curl through a short symlink gets /api/health" \
  sh -c "curl -sf --unix-socket '$short/deep.sock' http://localhost/api/health | grep -q '\"status\": \"ok\"'"
check "the socket is 0600" [ "$(stat -c %a "$dsock")" = 600 ]
"$pyrt" serve --box-root "$deep" --pins "$fx/pins.yaml" 2>"$work/deep-serve2.log"
check "a second server on the deep box is refused: another is listening" \
  grep -q "another server is listening on $dsock" "$work/deep-serve2.log"
kill -TERM "$spid"; wait "$spid"
check "the deep server stops with exit 0 and removes its socket" \
  sh -c "[ $? -eq 0 ] && [ ! -e '$dsock' ]"

PYRT=$pyrt SRC=$src FX=$fx WORK=$work MIRROR=$mirror PORT=$port SHORT=$short \
  python3 "$src/tests/serve_test.py"
check "python client: every scenario passed" [ $? -eq 0 ]
e2e_finish
