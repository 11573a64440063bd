#!/usr/bin/env bash
# ctest: e2e_baseline_half
# End to end: pip failing part-way through a distribution.  A directory
# stands where et_xmlfile's dist-info RECORD goes (openpyxl's dependency),
# so pip writes its files and METADATA and then fails; the retry one
# requirement at a time finds METADATA and says "already satisfied".  The
# baseline must not say complete over it: the marker, `pyrt baseline`'s
# result and `pyrt status` say partial, naming et-xmlfile (a folder where
# RECORD goes is no RECORD).  pip runs from a PEP 503 index on loopback;
# pyrt's wheelhouse installer installs each distribution atomically
# (e2e_faults_wheel), so it leaves no such state to find.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup baseline_half fixtures

idx=$work/index
e2e_simple_index "$idx"
e2e_serve_index "$idx"

for via in pip; do
  box=$work/box-$via
  mkdir -p "$box"
  common=(--box-root "$box" --pins "$fx/pins.yaml")
  if [ $via = wheelhouse ]; then
    source_opts=(--wheelhouse "$fx/wheelhouse")
  else
    source_opts=(--index-url "http://127.0.0.1:$iport/simple/")
  fi
  run install "${common[@]}" --from-file "$fx/runtime.tar.gz" --no-baseline --yes
  check "$via: the runtime installs without its baseline (rc $rc)" rc_is 0
  current=$box/runtime/python/current
  site=$current/local/lib/python3.11/dist-packages
  info=$site/et_xmlfile-1.0.1.dist-info
  # The obstacle goes in once pyrt's own repair has looked (it would drop
  # a dist-info without RECORD), just before pip runs.
  hookfile=$work/hook-$via
  PYRT_TEST_HOOK=baseline-repaired:pause PYRT_TEST_HOOK_FILE=$hookfile \
    "$pyrt" baseline "${common[@]}" "${source_opts[@]}" --json \
    </dev/null >"$work/out" 2>"$work/err" &
  bpid=$!
  for _ in $(seq 300); do [ -s "$hookfile" ] && break; sleep 0.1; done
  mkdir -p "$info/RECORD/in-the-way"
  rm -f "$hookfile"
  wait "$bpid"
  rc=$?
  check "$via: a distribution left half-installed fails the baseline (rc $rc)" rc_is 10
  check "$via: the installer did fail part-way, after METADATA" \
    test -f "$info/METADATA" -a -d "$info/RECORD"
  check "$via: the result says partial, naming et-xmlfile" json_last '
assert r["event"] == "result" and r["code"] == "baseline", r
assert r["baseline"]["state"] == "partial", r
assert r["baseline"]["missing"] == ["et-xmlfile"], r
assert "et-xmlfile is installed but not whole" in r["error"], r
assert "et_xmlfile-1.0.1.dist-info has no RECORD" in r["error"], r'
  check "$via: the marker says partial, naming et-xmlfile" python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))["baseline"]
assert b["state"] == "partial" and b["missing"] == ["et-xmlfile"], b
assert "et_xmlfile-1.0.1.dist-info has no RECORD" in b["error"], b' "$current/../marker.json"
  run status "${common[@]}" --json
  check "$via: status says the baseline is partial, naming et-xmlfile" json_doc '
b = r["baseline"]
assert b["state"] == "partial" and b["missing"] == ["et-xmlfile"], r'
  run status "${common[@]}"
  check "$via: status text says partial" grep -Eq "baseline: +partial.*et-xmlfile" "$work/out"

  # pip cannot uninstall a dist-info without RECORD, so a plain
  # --force-reinstall failed again on every rerun: the rerun drops it.
  run baseline "${common[@]}" "${source_opts[@]}"
  check "$via: a rerun repairs it (rc $rc)" eval 'rc_is 0 &&
    grep -q "et-xmlfile: its metadata had no RECORD" "$work/err"'
  check "$via: et-xmlfile now has its RECORD, every file in it present" python3 -c '
import csv, os, sys
site, info = sys.argv[1], sys.argv[2]
rows = list(csv.reader(open(os.path.join(info, "RECORD"))))
assert len(rows) > 3, rows
for row in rows:
    assert os.path.exists(os.path.join(site, row[0])), row' "$site" "$info"
  run status "${common[@]}" --json
  check "$via: status says the baseline is complete" json_doc '
assert r["baseline"]["state"] == "complete", r'

done

e2e_finish
