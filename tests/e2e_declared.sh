#!/usr/bin/env bash
# ctest: e2e_declared
# End to end, issue 25: the box declares what the runtime should hold
# (runtime/python/declared.json) and every surface reads the one verdict,
# declared against installed.
#  item 1: a baseline package uninstalled with pip is missing in status,
#          status --json, doctor and the install result, and `pyrt install
#          --yes` repairs it instead of "nothing to do";
#  item 9: a baseline killed after every distribution is installed (before
#          the marker was written) reads complete, not none;
#  item 10: PYRT_WHEELHOUSE names the source once, and the source the box
#          remembers makes the printed fix `pyrt baseline` and `install
#          --force` work without naming it again (an air-gapped box).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup declared fixtures
. "$src/tests/lib/faults.sh"

wh=$fx/wheelhouse
box=$work/box
mkdir -p "$box"
common=(--box-root "$box" --pins "$fx/pins.yaml")
py=$box/runtime/python/current/bin/python3

run install "${common[@]}" --from-file "$archive" --wheelhouse "$wh" --yes --json
check "setup: install with the wheelhouse completes the baseline (rc $rc)" rc_is 0
decl=$box/runtime/python/declared.json
check "the box declares the baseline and its source, readable by all" python3 -c '
import json, os, stat, sys
p = sys.argv[1]
d = json.load(open(p))
assert d["baseline"] == ["python-docx", "openpyxl"], d
assert d["source"] == {"wheelhouse": os.path.realpath(sys.argv[2])}, d
assert d["pending"] == [], d
assert stat.S_IMODE(os.stat(p).st_mode) == 0o644, oct(os.stat(p).st_mode)' "$decl" "$wh"

# --- item 1: a baseline package removed with pip ------------------------------
"$py" -I -m pip uninstall -y -q openpyxl >/dev/null 2>&1
check "openpyxl is gone" eval '! "$py" -I -c "import openpyxl" 2>/dev/null'
run status "${common[@]}" --json
check "item 1: status --json says partial, missing openpyxl" json_doc '
assert r["baseline"]["state"] == "partial", r
assert r["baseline"]["missing"] == ["openpyxl"], r'
run status "${common[@]}"
check "item 1: status text says partial (missing: openpyxl)" \
  grep -Eq "baseline: +partial \(missing: openpyxl\)" "$work/out"
run status "${common[@]}" --deep --json
check "item 1: status --deep --json says partial" json_doc '
assert r["baseline"]["state"] == "partial" and r["baseline"]["missing"] == ["openpyxl"], r'
run doctor "${common[@]}" --json
check "item 1: doctor fails the baseline naming openpyxl" json_doc '
c = [c for c in r["checks"] if c["id"] == "baseline"][0]
assert c["verdict"] == "fail" and "openpyxl" in c["detail"], c'
# The remembered wheelhouse: no source named on the command line.
run install "${common[@]}" --from-file "$archive" --yes --json
check "item 1: install --yes repairs instead of \"nothing to do\" (rc $rc)" rc_is 0
check "item 1: the install ran the baseline" eval '! grep -q "nothing to do" "$work/out"'
check "item 1: openpyxl imports again" "$py" -I -c "import openpyxl"
run status "${common[@]}" --json
check "item 1: status says complete after the repair" json_doc '
assert r["baseline"] == dict(r["baseline"], state="complete", missing=[]), r'

# --- item 10: the printed fix `pyrt baseline`, no source named -----------------
rm -rf "$("$py" -I -c 'import openpyxl, os; print(os.path.dirname(openpyxl.__file__))')"
run status "${common[@]}" --json
check "a deleted package folder is missing in status" json_doc '
assert r["baseline"]["state"] == "partial" and r["baseline"]["missing"] == ["openpyxl"], r'
run baseline "${common[@]}"
check "item 10: pyrt baseline repairs from the remembered wheelhouse (rc $rc)" rc_is 0
check "item 10: openpyxl imports again" "$py" -I -c "import openpyxl"

# --- item 10: install --force for a deleted interpreter -----------------------
rm -f "$py"
run install "${common[@]}" --from-file "$archive" --yes --force --json
check "item 10: install --force without a source completes the baseline (rc $rc)" rc_is 0
check "item 10: the result says complete" json_last '
assert r["baseline"]["state"] == "complete", r'

# --- item 10: PYRT_WHEELHOUSE, no --wheelhouse ------------------------------
box3=$work/box3
mkdir -p "$box3"
PYRT_WHEELHOUSE=$wh run install --box-root "$box3" --pins "$fx/pins.yaml" \
  --from-file "$archive" --yes --json
check "item 10: install with PYRT_WHEELHOUSE alone completes the baseline (rc $rc)" rc_is 0
check "item 10: the result says complete" json_last '
assert r["event"] == "result" and r["baseline"]["state"] == "complete", r'

run uninstall --box-root "$box3" --pins "$fx/pins.yaml" --yes
check "uninstall removes the declared state with the runtime (rc $rc)" eval '
  rc_is 0 && [ ! -e "$box3/runtime/python/declared.json" ]'

# --- item 9: a baseline killed after every distribution is installed ---------
box2=$work/box2
mkdir -p "$box2"
fault_box "$box2"
run install "${opts[@]}" --from-file "$archive" --yes --no-baseline
at mid-baseline 'kill -KILL $pid' baseline --wheelhouse "$wh"
check "item 9: the baseline was killed after pip (rc $rc)" [ "$rc" -eq 137 ]
check "item 9: the marker never said so" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["baseline"]["state"] == "none"' "$current/../marker.json"
run status "${opts[@]}" --json
check "item 9: status says complete, not none" json_doc '
assert r["baseline"]["state"] == "complete" and r["baseline"]["missing"] == [], r'
run doctor "${opts[@]}" --json
check "item 9: doctor passes the baseline" json_doc '
c = [c for c in r["checks"] if c["id"] == "baseline"][0]
assert c["verdict"] == "pass", c'

e2e_finish
