#!/usr/bin/env bash
# ctest: e2e_declared_lockdigest
# End to end, issue 25: declared.json records the digest of the wheel lock
# the box's packages were installed under (the SHA-256 of the lock's lines
# "file sha256 size\n" in file-name order, recomputed here from the pins
# file), and status (plain, --json), the API and doctor say when the lock
# of the pins in effect is not that one: a box installed without a lock
# and read with locked pins, or installed locked and read with the plain
# pins.  With the same pins, nothing is said.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup declared-lockdigest fixtures

box=$work/box
wh=$fx/wheelhouse
plain=(--box-root "$box" --pins "$fx/pins.yaml")
locked=$work/locked.yaml
lk=(--box-root "$box" --pins "$locked")
declared_lock() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["lock_sha256"])' \
    "$box/runtime/python/declared.json"
}
# The digest as the issue defines it, from the pins file's wheel lock.
want_digest() {
  python3 - "$locked" <<'EOF'
import hashlib, re, sys
t = open(sys.argv[1]).read()
t = t[t.index("\nwheels:"):]
rows = re.findall(r"- file: (\S+)\n\s+sha256: (\S+)\n\s+size: (\d+)", t)
lines = sorted("%s %s %s\n" % r for r in rows)
print(hashlib.sha256("".join(lines).encode()).hexdigest())
EOF
}
status_lock() { # PINS...: differs declared in_effect, from status --json
  "$pyrt" status --json "$@" </dev/null 2>/dev/null | python3 -c '
import json, sys
l = json.load(sys.stdin)["baseline"]["lock"]
print(l["differs"], l["declared"], l["in_effect"])'
}

run lock --pins "$fx/pins.yaml" --wheelhouse "$wh" --out "$locked"
check "pyrt lock writes the locked pins (rc $rc)" rc_is 0

run install "${plain[@]}" --from-file "$fx/runtime.tar.gz" --wheelhouse "$wh" --yes
check "install with the plain pins and the baseline (rc $rc)" rc_is 0
check "declared.json: no lock (the pins lock nothing)" [ -z "$(declared_lock)" ]
check "status --json with the same pins: the lock does not differ" \
  [ "$(status_lock "${plain[@]}")" = "False None None" ]
run status "${plain[@]}"
check "status says nothing about a differing lock" eval '! has "wheel lock:" out'

run status "${lk[@]}"
check "status with locked pins: the lock in effect differs from the declared one" \
  has "wheel lock: *the wheel lock in effect ($(want_digest | cut -c1-12)) is not the one the box declares its packages were installed under (none)" out
check "status --json with locked pins: differs, declared null" \
  [ "$(status_lock "${lk[@]}")" = "True None $(want_digest)" ]

run baseline "${lk[@]}" --wheelhouse "$wh"
check "pyrt baseline with the locked pins (rc $rc)" rc_is 0
check "declared.json records the lock's digest" [ "$(declared_lock)" = "$(want_digest)" ]
check "status --json with the locked pins: the same lock" \
  [ "$(status_lock "${lk[@]}")" = "False $(want_digest) $(want_digest)" ]
run doctor "${lk[@]}" --json
check "doctor with the locked pins: no declared_lock row" \
  eval '! grep -q "\"declared_lock\"" "$work/out"'

check "status --json with the plain pins: differs, in effect null" \
  [ "$(status_lock "${plain[@]}")" = "True $(want_digest) None" ]
run doctor "${plain[@]}" --json
check "doctor with the plain pins: a declared_lock warning, fix pyrt baseline" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d["checks"] if c["id"] == "declared_lock"]
assert c and c[0]["verdict"] == "warn" and c[0]["fix"].startswith("pyrt baseline"), c' "$work/out"

sock=$short/api.sock
"$pyrt" serve --listen "unix:$sock" "${plain[@]}" 2>"$work/serve.log" &
spid=$!
e2e_wait_socket "$sock" "$spid" "$work/serve.log"
check "GET /api/runtime/python: the lock differs" eval '
  curl -s --unix-socket "$sock" http://localhost/api/runtime/python | python3 -c "
import json, sys
l = json.load(sys.stdin)[\"baseline\"][\"lock\"]
assert l[\"differs\"] is True, l"'
kill "$spid"; wait "$spid" 2>/dev/null

e2e_finish
