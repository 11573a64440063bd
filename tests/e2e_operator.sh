#!/usr/bin/env bash
# End to end: what an operator sees when the network is not there or not
# plain, with the real fixture runtime and its real pip.
#  - without network (a dead proxy, a dead index) the baseline ends after
#    pip's first run: no per-requirement retries, bounded pip retries, and a
#    message naming the fixes and the proxy that failed;
#  - --index-url URL (and PYRT_INDEX_URL) reach pip, with credentials that
#    never appear in output or logs;
#  - a download through a dead proxy names the proxy; -v shows each attempt
#    (URL redacted, HTTP status);
#  - the text consent shows the whole URL and the whole digest;
#  - a failed baseline after activation is not reported as "install failed".
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup operator fixtures
e2e_mirror

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
dead=$(free_port)   # nothing listens there: connections are refused at once

box=$work/box
logs=$box/runtime/python/logs
common=(--box-root "$box" --pins "$fx/pins.yaml")
run install --yes --no-baseline --from-file "$fx/runtime.tar.gz" "${common[@]}"
check "setup: the fixture runtime is installed without a baseline" rc_is 0

# --- no network: the baseline gives up after one pip run ---------------------
before=$(ls "$logs" | grep -c '^pip-')
t0=$(date +%s.%N)
https_proxy=http://ops:pr0xy-pw@127.0.0.1:$dead run baseline "${common[@]}"
t1=$(date +%s.%N)
check "offline baseline: exit 10" rc_is 10
check "offline baseline: one pip run, no per-requirement retries" \
  [ "$(( $(ls "$logs" | grep -c '^pip-') - before ))" -eq 1 ]
check "offline baseline: pip retried at most once" \
  [ "$(grep -c 'WARNING: Retrying' "$work/err")" -le 1 ]
check "offline baseline: over in under 20 s" \
  python3 -c 'import sys; sys.exit(float(sys.argv[2]) - float(sys.argv[1]) >= 20)' "$t0" "$t1"
check "pip was given bounded retries and timeout" \
  grep -q -- '--retries 1 --timeout 15' "$(ls -t "$logs"/pip-* | head -1)"
check "the message says pip could not reach the index" has "pip could not reach the package index" err
check "the message names the proxy that failed, without its password" \
  has "through the proxy http://127.0.0.1:$dead (https_proxy)" err
check "the message names the fixes" \
  eval 'has "--wheelhouse DIR" err && has "https_proxy" err && has "--index-url URL" err && has "--cacert FILE" err'
check "the failure is printed once" [ "$(grep -c 'could not reach the package index' "$work/err")" -eq 1 ]
check "the proxy password appears nowhere" \
  eval '! grep -rq "pr0xy-pw" "$work/out" "$work/err" "$logs"'
run status --json "${common[@]}"
check "the marker says none, every requirement missing" python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert {k: d["baseline"][k] for k in ("state","missing")}=={"state":"none","missing":["python-docx","openpyxl"]}, d' "$work/out"

# A dead index named by PYRT_INDEX_URL: the same fast end, no credential.
before=$(ls "$logs" | grep -c '^pip-')
PYRT_INDEX_URL=http://bob:hunter2-pw@127.0.0.1:$dead/simple run baseline "${common[@]}"
check "a dead PYRT_INDEX_URL: exit 10 after one pip run" \
  eval 'rc_is 10 && [ "$(( $(ls "$logs" | grep -c "^pip-") - before ))" -eq 1 ]'
check "pip got the index from PYRT_INDEX_URL (in its environment), named by host in its log" \
  grep -q -- "^# index (PIP_INDEX_URL): http://127.0.0.1:$dead/\*\*\*$" "$(ls -t "$logs"/pip-* | head -1)"
check "the index credentials appear nowhere" \
  eval '! grep -rq "hunter2-pw" "$work/out" "$work/err" "$logs"'

# --- --index-url reaches pip: a PEP 503 index over loopback http --------------
idx=$work/index
e2e_simple_index "$idx"
iport=$(free_port)
python3 -m http.server --bind 127.0.0.1 --directory "$idx" "$iport" 2>"$work/index.log" >/dev/null &
index_pid=$!
for _ in $(seq 100); do grep -q . "$work/index.log" 2>/dev/null && break
  python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),1)' "$iport" 2>/dev/null && break
  sleep 0.1; done
run baseline "${common[@]}" --index-url "http://alice:s3cret-pw@127.0.0.1:$iport/simple"
check "--index-url: the baseline completes from that index (exit 0)" rc_is 0
check "--index-url: pip asked that index" grep -q 'GET /simple/python-docx/' "$work/index.log"
check "--index-url: the credentials appear nowhere" \
  eval '! grep -rq "s3cret-pw" "$work/out" "$work/err" "$logs"'
kill "$index_pid" 2>/dev/null; wait "$index_pid" 2>/dev/null

# --- downloads: a dead proxy is named; -v shows each attempt -------------------
box2=$work/box2
https_proxy=http://127.0.0.1:$dead run install --yes --no-baseline --box-root "$box2" \
  --pins "$fx/pins.yaml" --mirror https://mirror.example/pbs
check "a download through a dead proxy: exit 4" rc_is 4
check "... naming the proxy" has "through the proxy http://127.0.0.1:$dead (https_proxy)" err

run install -v --yes --no-baseline --box-root "$box2" --pins "$fx/pins.yaml" \
  --cacert "$fx/ca.pem" --mirror "https://mir:m1rror-pw@127.0.0.1:$port/pbs?sig=s1gnature"
check "-v install from the mirror: exit 0" rc_is 0
check "-v shows the attempt: URL without credentials or query values, HTTP 200, no proxy" \
  has "debug: GET https://127.0.0.1:$port/pbs/fixture/runtime.tar.gz?sig=\*\*\* (attempt 1, from byte 0, no proxy): HTTP 200" err
check "-v shows no mirror credential" eval '! has "m1rror-pw" err && ! has "s1gnature" err'
run install --yes --no-baseline --box-root "$box2" --pins "$fx/pins.yaml" --from-file "$fx/runtime.tar.gz" --force
check "without -v there is no debug line" eval 'rc_is 0 && ! has "^debug:" err'

# --- the text consent shows the whole URL and the whole digest -----------------
box3=$work/box3
printf 'n\n' | TERM=dumb script -qec "'$pyrt' install --no-baseline --box-root '$box3' \
  --pins '$fx/pins.yaml' --cacert '$fx/ca.pem' --mirror 'https://127.0.0.1:$port/pbs'" /dev/null \
  >"$work/consent" 2>&1
check "the consent names the whole URL" \
  grep -q "Source: *https://127.0.0.1:$port/pbs/fixture/runtime.tar.gz" "$work/consent"
check "the consent shows the whole digest" grep -q "SHA-256: *$(cat "$fx/runtime.sha256")" "$work/consent"
check "answering n installs nothing" [ ! -e "$box3/runtime/python/current" ]

# --- a failed baseline after activation is not "install failed" ---------------
box4=$work/box4
https_proxy=http://127.0.0.1:$dead run install --yes --box-root "$box4" --pins "$fx/pins.yaml" \
  --from-file "$fx/runtime.tar.gz"
check "install with an unreachable baseline: exit 10" rc_is 10
check "... not reported as 'install failed'" eval '! has "install failed" err'
check "... the first error line is the baseline's" \
  eval 'grep "^pyrt: " "$work/err" | head -1 | grep -q "^pyrt: baseline none: "'
check "... and says the runtime is active" has "the runtime itself is installed and active" err
check "... stdout is empty (no success line)" [ ! -s "$work/out" ]

e2e_finish
