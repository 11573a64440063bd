#!/usr/bin/env bash
# ctest: e2e_install
# End to end: the real pyrt binary installs the fixture runtime from a
# loopback HTTPS mirror; tampering, consent, cancel+resume, the lock and the
# JSON outputs are checked through exit codes, files and output.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup install fixtures
e2e_mirror
box=$work/box
common=(--box-root "$box" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem")
current=$box/runtime/python/current

# Consent: no TTY and no --yes refuses and writes nothing.
"$pyrt" install "${common[@]}" --mirror "$mirror" </dev/null >"$work/out" 2>&1
check "no consent without a TTY exits 3" [ $? -eq 3 ]
check "refusal says how to consent" grep -q -- '--yes' "$work/out"
check "refusal leaves no box" [ ! -e "$box" ]

# Status before: not provisioned, exit 1, honest message.
"$pyrt" status "${common[@]}" --json >"$work/st.json"
check "status exits 1 when not provisioned" [ $? -eq 1 ]
check "status JSON says not_provisioned" python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert d["state"]=="not_provisioned", d
assert "pyrt install" in d["message"], d' "$work/st.json"

# Install with JSON events; the baseline (python-docx, openpyxl in the
# fixture pins) comes from the fixture wheelhouse.
"$pyrt" install "${common[@]}" --mirror "$mirror" --wheelhouse "$fx/wheelhouse" \
  --yes --json >"$work/events" 2>"$work/err"
rc=$?
check "install exits 0" [ $rc -eq 0 ]
check "every event line is JSON and the steps ran in order" python3 -c '
import json,sys
ev=[json.loads(l) for l in open(sys.argv[1])]
ends=[e["step"] for e in ev if e["event"]=="step" and e["state"]=="end"]
want=["lock","download","verify","extract","check","activate","baseline"]
assert ends[:7]==want, ends
res=ev[-1]; assert res["event"]=="result" and res["ok"] is True, res
assert res["baseline"]["state"]=="complete" and res["baseline"]["missing"]==[], res
assert any(e["event"]=="progress" for e in ev)' "$work/events"
log=$(ls "$box"/runtime/python/logs/install-*.log 2>/dev/null | head -1)
check "the install log exists" [ -n "$log" ]
check "the install log is owner-only" [ "$(stat -c %a "$log" 2>/dev/null)" = 600 ]
check "the install log holds the steps and the result" grep -q 'step activate end' "$log"
check "the managed interpreter runs" "$current/bin/python3" -I -c 'import ssl, json, sqlite3'
check "pip runs in the managed interpreter" "$current/bin/python3" -I -m pip --version
"$pyrt" status "${common[@]}" --json >"$work/st.json"
check "status exits 0 when ready" [ $? -eq 0 ]
check "status JSON has the contract fields" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); sha=open(sys.argv[2]).read().strip()
assert d["state"]=="ready", d
for k in ("message","version","build","platform","path","interpreter","sha256","installed_at","pins","baseline"):
    assert k in d, k
assert d["sha256"]==sha and d["build"]=="fixture" and d["pins"].endswith("pins.yaml"), d
assert d["path"].endswith("/runtime/python/current")
assert {k: d["baseline"][k] for k in ("state","missing")}=={"state":"complete","missing":[]} and d["baseline"]["locked"] is False, d' "$work/st.json" "$fx/runtime.sha256"
check "the baseline is importable in the managed interpreter" \
  "$current/bin/python3" -I -c 'import docx, openpyxl' 
"$pyrt" verify "${common[@]}" >"$work/out" 2>&1
check "verify passes on a fresh install" [ $? -eq 0 ]

# A second install of the same pin is a fast no-op.
"$pyrt" install "${common[@]}" --mirror "$mirror" --yes >"$work/out" 2>&1
check "second install exits 0" [ $? -eq 0 ]
check "second install says nothing to do" grep -qi 'nothing to do\|already' "$work/out"
check "second install skips the complete baseline" grep -q 'baseline: skipped (already complete)' "$work/out"

# Pins that moved to another build: status stays ready (exit 0) and says
# what "pyrt install" would take (update_available), so a check mode can
# tell without installing; with the pins in use it is null.
check "update_available is null while the pins are the installed ones" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); assert d["update_available"] is None, d' "$work/st.json"
sed 's/^  build: .*/  build: "fixture2"/' "$fx/pins.yaml" >"$work/pins-moved.yaml"
"$pyrt" status --box-root "$box" --pins "$work/pins-moved.yaml" --json >"$work/st.json"
check "status with moved pins exits 0 (still ready)" [ $? -eq 0 ]
check "status JSON names the pinned build as update_available" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); sha=open(sys.argv[2]).read().strip()
assert d["state"]=="ready" and d["build"]=="fixture", d
assert d["update_available"]=={"version":"3.11.2","build":"fixture2","sha256":sha}, d
assert "run \"pyrt install --box-root %s --pins %s\" to update" % (sys.argv[3], sys.argv[4]) in d["message"], d' "$work/st.json" "$fx/runtime.sha256" "$box" "$work/pins-moved.yaml"
check "that object is docs/api.yaml's Status (JSON schema)" /usr/bin/python3 -c '
import json, sys, jsonschema, yaml
spec = yaml.safe_load(open(sys.argv[2]))
schema = {"$ref": "#/components/schemas/Status", "components": spec["components"]}
jsonschema.Draft202012Validator(schema).validate(json.load(open(sys.argv[1])))' \
  "$work/st.json" "$src/docs/api.yaml"

# Tampered archive: exit 5, both digests shown, current unchanged.
before=$(readlink "$current")
"$pyrt" install --box-root "$box" --pins "$fx/pins-tampered.yaml" --cacert "$fx/ca.pem" \
  --mirror "$mirror" --yes --force >"$work/out" 2>&1
check "tampered archive exits 5" [ $? -eq 5 ]
check "the refusal shows the expected digest" grep -q "$(cat "$fx/runtime.sha256")" "$work/out"
check "current unchanged after a refused archive" [ "$(readlink "$current")" = "$before" ]

# Cancel mid-download with SIGINT, then resume.
slow=$work/pins-slow.yaml
sed "s#url: .*#url: https://127.0.0.1:$port/pbs/fixture/runtime.tar.gz?fault=slow:300000#" \
  "$fx/pins.yaml" >"$slow"
box2=$work/box2
"$pyrt" install --box-root "$box2" --pins "$slow" --cacert "$fx/ca.pem" --yes >"$work/out" 2>&1 &
inst=$!
for _ in $(seq 100); do
  ls "$box2"/runtime/python/downloads/*.partial >/dev/null 2>&1 && [ "$(stat -c %s "$box2"/runtime/python/downloads/*.partial)" -gt 500000 ] && break
  sleep 0.1
done
# While it runs: a second installer with --no-wait is refused as busy.
"$pyrt" install --box-root "$box2" --pins "$slow" --cacert "$fx/ca.pem" --yes --no-wait >"$work/busy" 2>&1
check "a concurrent install with --no-wait exits 7" [ $? -eq 7 ]
check "busy message names the holder pid" grep -q "pid $inst" "$work/busy"
"$pyrt" status --box-root "$box2" --pins "$slow" --json >"$work/st.json"
check "status says installing while the lock is held" python3 -c '
import json,sys; assert json.load(open(sys.argv[1]))["state"]=="installing"' "$work/st.json"
kill -INT "$inst"
wait "$inst"
check "SIGINT cancels with exit 130" [ $? -eq 130 ]
check "no current after a cancelled first install" [ ! -e "$box2/runtime/python/current" ]
check "the partial download is kept" ls "$box2"/runtime/python/downloads/*.partial
check "staging is empty after cancel" [ -z "$(ls -A "$box2/runtime/python/staging")" ]
: >"$work/requests.log"
"$pyrt" install --box-root "$box2" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem" \
  --mirror "$mirror" --no-baseline --yes >"$work/out" 2>&1
check "the next run completes" [ $? -eq 0 ]
check "the next run resumed with a Range request" grep -q 'bytes=[1-9][0-9]*-' "$work/requests.log"
check "resumed install runs" "$box2/runtime/python/current/bin/python3" -I -c pass

# A dropped SSH session (SIGHUP) cancels like SIGTERM: a result event,
# exit 130, staging empty, the partial kept, no child left behind.
box4=$work/box4
"$pyrt" install --box-root "$box4" --pins "$slow" --cacert "$fx/ca.pem" --yes --json \
  >"$work/hup.events" 2>"$work/hup.err" &
inst=$!
for _ in $(seq 100); do
  ls "$box4"/runtime/python/downloads/*.partial >/dev/null 2>&1 && [ "$(stat -c %s "$box4"/runtime/python/downloads/*.partial)" -gt 200000 ] && break
  sleep 0.1
done
kill -HUP "$inst"
wait "$inst"
check "SIGHUP cancels with exit 130 (not 129)" [ $? -eq 130 ]
check "SIGHUP still emits the result event" python3 -c '
import json,sys
res=[json.loads(l) for l in open(sys.argv[1])][-1]
assert res["event"]=="result" and res["ok"] is False and res["exit_code"]==130, res' "$work/hup.events"
check "staging is empty after SIGHUP" [ -z "$(ls -A "$box4/runtime/python/staging")" ]
check "the partial is kept after SIGHUP for the next run" ls "$box4"/runtime/python/downloads/*.partial
check "no current after SIGHUP" [ ! -e "$box4/runtime/python/current" ]

# Offline install from a local archive into a third box.
"$pyrt" install --box-root "$work/box3" --pins "$fx/pins.yaml" --yes --no-baseline \
  --from-file "$fx/runtime.tar.gz" >"$work/out" 2>&1
check "--from-file installs without a network" [ $? -eq 0 ]

e2e_finish
