#!/usr/bin/env bash
# ctest: e2e_mirror
# `pyrt mirror DIR`: the pinned archive fetched from the fixture HTTPS
# mirror through the verified download, the baseline's wheels copied from
# the fixture wheelhouse, an index; DIR served over HTTPS feeds a real
# `pyrt install --mirror --wheelhouse`; a tampered file fails --verify
# (exit 5, named) and the install from it (exit 5); an unknown --platform
# is refused before anything is written; a failed fetch leaves no file
# under its final name.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup mirror fixtures
e2e_mirror
dir=$work/mirror
from=(--pins "$fx/pins.yaml" --cacert "$fx/ca.pem" --mirror "$mirror")

# An unknown platform: exit 2 before DIR exists or a request is made.
run mirror "$dir" "${from[@]}" --platform linux-riscv64-gnu
check "unknown --platform exits 2" rc_is 2
check "the refusal names the key and the pinned ones" \
  has 'linux-riscv64-gnu is not in the pins.*pinned: linux-x86_64-gnu' err
check "the refusal creates no DIR" [ ! -e "$dir" ]
check "the refusal fetches nothing" [ ! -s "$work/requests.log" ]
run mirror "$dir" --verify --platform linux-x86_64-gnu
check "--verify with --platform is a usage error" rc_is 2

# The mirror itself.
run mirror "$dir" "${from[@]}" --platform linux-x86_64-gnu --wheelhouse-from "$fx/wheelhouse"
check "mirror exits 0" rc_is 0
check "mirror says what it fetched" has '1 fetched' out
check "the archive is at <build>/<file>, byte for byte" \
  cmp "$dir/fixture/runtime.tar.gz" "$fx/runtime.tar.gz"
check "files are 0644 and directories 0755 (servable)" \
  [ "$(stat -c %a "$dir/fixture/runtime.tar.gz" "$dir/fixture" "$dir/pyrt-mirror.json")" = "644
755
644" ]
check "no partial file is left" [ -z "$(find "$dir" -name '.*')" ]
check "the wheels the baseline needs, and only those, are copied" \
  [ "$(cd "$dir/wheels" && ls | tr '\n' ' ')" = "et_xmlfile-1.0.1-py3-none-any.whl lxml-4.9.2-cp311-cp311-linux_x86_64.whl openpyxl-3.0.9-py3-none-any.whl python_docx-0.8.11-py3-none-any.whl " ]
check "the index maps platform to file, sha256, size" python3 -c '
import json,sys
d=json.load(open(sys.argv[1]+"/pyrt-mirror.json"))
a=d["archives"]["linux-x86_64-gnu"]
assert a=={"file":"fixture/runtime.tar.gz","sha256":sys.argv[2],"size":int(sys.argv[3])}, a
assert len(d["wheels"])==4 and d["wheels_missing"]==[], d' \
  "$dir" "$(cat "$fx/runtime.sha256")" "$(cat "$fx/runtime.size")"
run mirror --verify "$dir"
check "--verify of a fresh mirror exits 0" rc_is 0
check "--verify counts the files" has '5 files .* match its index' out

# A second run keeps what matches and downloads nothing.
lines=$(wc -l <"$work/requests.log")
run mirror "$dir" "${from[@]}"
check "a rerun exits 0" rc_is 0
check "a rerun fetches nothing" [ "$(wc -l <"$work/requests.log")" -eq "$lines" ]
check "a rerun keeps the indexed wheels" python3 -c '
import json,sys; assert len(json.load(open(sys.argv[1]))["wheels"])==4' "$dir/pyrt-mirror.json"

# DIR served as is by a static HTTPS server: a real install from it.
python3 "$src/tests/fixtures/mirror.py" --root "$dir" --cert "$fx/server.pem" \
  --key "$fx/server.key" --port-file "$work/port2" --log "$work/served.log" 2>/dev/null &
served_pid=$!
trap '[ -n "$served_pid" ] && kill "$served_pid" 2>/dev/null; e2e_cleanup' EXIT
for _ in $(seq 100); do [ -s "$work/port2" ] && break; sleep 0.1; done
served=https://127.0.0.1:$(cat "$work/port2")
run install --box-root "$work/box" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem" \
  --mirror "$served" --wheelhouse "$dir/wheels" --yes
check "install from the served mirror exits 0" rc_is 0
check "the archive came from the served mirror" grep -q 'GET /fixture/runtime.tar.gz' "$work/served.log"
run status --box-root "$work/box" --pins "$fx/pins.yaml" --json
check "the runtime is ready with the baseline complete" python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert d["state"]=="ready" and d["baseline"]["state"]=="complete", d' "$work/out"

# Tampered: one byte of the archive and one of a wheel, sizes unchanged.
printf 'X' | dd of="$dir/fixture/runtime.tar.gz" bs=1 seek=4096 conv=notrunc 2>/dev/null
printf 'X' | dd of="$dir/wheels/openpyxl-3.0.9-py3-none-any.whl" bs=1 seek=100 conv=notrunc 2>/dev/null
run mirror --verify "$dir"
check "--verify of a tampered mirror exits 5" rc_is 5
check "--verify names the tampered archive" has '^fixture/runtime.tar.gz: SHA-256 mismatch' out
check "--verify names the tampered wheel" has '^wheels/openpyxl-3.0.9-py3-none-any.whl: SHA-256 mismatch' out
check "--verify counts them" has '2 of 5 files' err
run mirror --verify "$dir" --json
check "--verify --json exits 5 and lists the files" python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert d["ok"] is False and sorted(p["file"] for p in d["problems"])==["fixture/runtime.tar.gz","wheels/openpyxl-3.0.9-py3-none-any.whl"], d' "$work/out"
run install --box-root "$work/box2" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem" \
  --mirror "$served" --wheelhouse "$dir/wheels" --yes
check "install from the tampered mirror exits 5" rc_is 5
check "it says the archive failed verification" has 'SHA-256 mismatch' err
check "nothing was activated" [ ! -e "$work/box2/runtime/python/current" ]
# Rerunning the mirror repairs it: the mismatching file is fetched anew.
run mirror "$dir" "${from[@]}" --wheelhouse-from "$fx/wheelhouse"
check "a rerun over a tampered mirror exits 0" rc_is 0
run mirror --verify "$dir"
check "and the mirror verifies again" rc_is 0

# A source that serves the wrong bytes: exit 5, no file under its name.
run mirror "$work/bad" --pins "$fx/pins-tampered.yaml" --cacert "$fx/ca.pem" --mirror "$mirror"
check "a mismatching download exits 5" rc_is 5
check "the message names the file and the digests" has 'SHA-256 mismatch for .*tampered.tar.gz' err
check "no file is kept under the final name" [ ! -e "$work/bad/fixture/tampered.tar.gz" ]
check "and no partial either" [ -z "$(find "$work/bad" -name '*.partial')" ]

# A download cut short on every try: exit 4, still nothing under the name.
run mirror "$work/cut" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem" \
  --mirror "$mirror?fault=short:100000"
check "a download that never completes exits 4" rc_is 4
check "nothing is under the final name" [ ! -e "$work/cut/fixture/runtime.tar.gz" ]
check "no index is left for --verify to accept" [ ! -e "$work/cut/pyrt-mirror.json" ]
run mirror --verify "$work/cut"
check "--verify of the unfinished mirror fails" rc_is 1

kill "$served_pid" 2>/dev/null && wait "$served_pid" 2>/dev/null
served_pid=
e2e_finish
