#!/usr/bin/env bash
# ctest: e2e_settle
# End to end, issue 25: every package run first settles what a stopped run
# left in the site folders (core/runtime/settle.h).
#  item 6: the wheelhouse installer killed (-9, with pyrt) while it moves
#          relpkg-a 1.0 in leaves .pyrt-fastwheel/; doctor sees it; a
#          baseline from an index then installs relpkg-a 2.0; the next
#          `baseline --wheelhouse` drops the stale 1.0 staging instead of
#          committing it over 2.0: one .dist-info, 2.0's files, complete.
#  item 7: pip's stash folders (~ocx/, ~ython_docx-….dist-info/, what a
#          pip killed during an uninstall leaves) are not a distribution to
#          status ("missing ~ython-docx") and the next baseline removes
#          them and reinstalls what they held.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup settle fixtures
. "$src/tests/lib/faults.sh"

fault_box "$work/box"
py=$current/bin/python3
site() { "$py" -I -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'; }
py_pid() { awk '{print $1}' "$hookfile"; }

# relpkg-a 1.0 (wheelhouse) and 2.0 (a PEP 503 index on loopback).
wh=$work/wh idx=$work/index
mkdir -p "$wh" "$idx/simple/relpkg-a"
python3 - "$wh" "$idx/simple/relpkg-a" <<'EOF'
import sys, zipfile
def wheel(out, version):
    info = f"relpkg_a-{version}.dist-info"
    with zipfile.ZipFile(f"{out}/relpkg_a-{version}-py3-none-any.whl", "w") as z:
        for i in range(4):
            z.writestr(f"relpkg_a/m{i}.py", f"VERSION = {version!r}\n")
        z.writestr("relpkg_a/__init__.py", f"VERSION = {version!r}\n")
        z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: relpkg-a\nVersion: {version}\n")
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", "")
wheel(sys.argv[1], "1.0")
wheel(sys.argv[2], "2.0")
EOF
printf '<a href="relpkg_a-2.0-py3-none-any.whl">relpkg_a-2.0-py3-none-any.whl</a>\n' \
  >"$idx/simple/relpkg-a/index.html"
e2e_serve_index "$idx"
printf 'relpkg-a\n' >"$work/reqs.txt"

# --- item 6 ------------------------------------------------------------------
run "${inst[@]}" "${opts[@]}"
check "setup: a runtime without baseline (rc $rc)" rc_is 0
S=$(site)
at fw-move-3 'kill -KILL $(py_pid) $pid' baseline --wheelhouse "$wh" --requirements "$work/reqs.txt"
check "item 6: pyrt and its installer killed while moving files in (rc $rc)" [ "$rc" -eq 137 ]
check "item 6: the stopped run left its staging" test -d "$S/.pyrt-fastwheel/relpkg_a-1.0"
run doctor "${opts[@]}" --json
check "item 6: doctor's staging check sees .pyrt-fastwheel" json_doc '
c = [c for c in r["checks"] if c["id"] == "staging"][0]
assert c["verdict"] == "warn" and ".pyrt-fastwheel" in c["detail"], c'
run baseline "${opts[@]}" --index-url "http://127.0.0.1:$iport/simple/" --requirements "$work/reqs.txt"
check "item 6: a baseline from the index installs relpkg-a 2.0 (rc $rc)" eval '
  rc_is 0 && [ "$("$py" -I -c "import importlib.metadata as m; print(m.version(\"relpkg-a\"))")" = 2.0 ]'
run baseline "${opts[@]}" --wheelhouse "$wh" --requirements "$work/reqs.txt"
check "item 6: the next wheelhouse baseline succeeds (rc $rc)" rc_is 0
check "item 6: it dropped the stale staging, never committed it" eval '
  [ ! -e "$S/.pyrt-fastwheel/relpkg_a-1.0" ] && grep -q "dropped the staging" "$work/err"'
check "item 6: one relpkg-a .dist-info, 2.0" eval '
  [ "$(cd "$S" && ls -d relpkg_a-*.dist-info)" = relpkg_a-2.0.dist-info ]'
check "item 6: every relpkg-a file is 2.0s" python3 -c '
import glob, os, sys
for f in glob.glob(os.path.join(sys.argv[1], "relpkg_a", "*.py")):
    assert "2.0" in open(f).read(), f' "$S"
run status "${opts[@]}" --json
check "item 6: status says complete" json_doc '
assert r["baseline"]["state"] == "complete", r'

# --- item 7 ------------------------------------------------------------------
run baseline "${opts[@]}" --wheelhouse "$fx/wheelhouse"
check "setup: the baseline is complete (rc $rc)" rc_is 0
# What pip's uninstall of python-docx stashes before a kill.
mv "$S/docx" "$S/~ocx"
mv "$S/python_docx-0.8.11.dist-info" "$S/~ython_docx-0.8.11.dist-info"
run status "${opts[@]}" --json
check "item 7: status names python-docx missing, not ~ython-docx" json_doc '
b = r["baseline"]
assert b["state"] == "partial" and b["missing"] == ["python-docx"], b'
run doctor "${opts[@]}" --json
check "item 7: doctor's staging check sees the stash folders" json_doc '
c = [c for c in r["checks"] if c["id"] == "staging"][0]
assert c["verdict"] == "warn" and "~" in c["detail"], c'
run baseline "${opts[@]}" --wheelhouse "$fx/wheelhouse"
check "item 7: the next baseline completes (rc $rc)" rc_is 0
check "item 7: no stash folder is left" eval '! ls -d "$S"/~* 2>/dev/null'
check "item 7: python-docx imports" "$py" -I -c "import docx"
run status "${opts[@]}" --json
check "item 7: status says complete" json_doc '
assert r["baseline"]["state"] == "complete" and r["baseline"]["missing"] == [], r'

e2e_finish
