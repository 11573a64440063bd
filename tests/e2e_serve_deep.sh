#!/usr/bin/env bash
# ctest: e2e_serve_deep
# End to end, issue 25 (every surface says the same): `pyrt serve` answers
# GET /api/runtime/python from memory while nothing it watches changed
# (serve/status_memo.c).  A file deleted deep inside a package folder
# (openpyxl/chart/picture.py) changes that folder only, not site-packages:
# the memo watches every folder below the site-packages folders, so the
# next GET says partial, missing openpyxl, as `pyrt status --json` does;
# after `pyrt baseline` repairs it, complete again.  The answer is still
# remembered while nothing changes (the same ETag, 304 on If-None-Match).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup serve-deep fixtures

box=$work/box
common=(--box-root "$box" --pins "$fx/pins.yaml")
run install --yes --from-file "$fx/runtime.tar.gz" --wheelhouse "$fx/wheelhouse" "${common[@]}"
check "the fixture runtime and its baseline install (rc $rc)" rc_is 0
site=$(ls -d "$box"/runtime/python/current/local/lib/python3.11/dist-packages)

sock=$short/api.sock
"$pyrt" serve --listen "unix:$sock" "${common[@]}" 2>"$work/serve.log" &
spid=$!
e2e_wait_socket "$sock" "$spid" "$work/serve.log"
stop_serve() { kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; e2e_cleanup; }
trap stop_serve EXIT
api_baseline() { curl -s --unix-socket "$sock" http://localhost/api/runtime/python |
  python3 -c 'import json, sys; b = json.load(sys.stdin)["baseline"]; print(b["state"], *b["missing"])'; }
etag() { curl -s -D - -o /dev/null --unix-socket "$sock" http://localhost/api/runtime/python |
  tr -d '\r' | sed -n 's/^[Ee][Tt][Aa][Gg]: *//p'; }

check "GET: baseline complete" [ "$(api_baseline)" = complete ]
tag=$(etag)
check "the answer is remembered: 304 for its ETag" eval '
  [ "$(curl -s -o /dev/null -w "%{http_code}" -H "If-None-Match: $tag" \
       --unix-socket "$sock" http://localhost/api/runtime/python)" = 304 ]'

rm -f "$site/openpyxl/chart/picture.py"
check "a file deleted deep inside openpyxl: GET says partial, missing openpyxl" \
  [ "$(api_baseline)" = "partial openpyxl" ]
run status --json "${common[@]}"
check "as status --json does" python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))["baseline"]
assert b["state"] == "partial" and b["missing"] == ["openpyxl"], b' "$work/out"

run baseline "${common[@]}"
check "pyrt baseline repairs it (rc $rc)" rc_is 0
check "GET: complete again" [ "$(api_baseline)" = complete ]

e2e_finish
