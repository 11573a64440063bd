#!/usr/bin/env bash
# ctest: e2e_verdict
# End to end (issue 21, items 3 and 4): one verdict, and fixes that fix.
# A baseline package whose files are moved away (its dist-info left) is
# missing for status, status --deep, plugins (C and the checker's memo
# alike), doctor and smoke; `pyrt baseline` reinstalls it and says so, and
# never calls "already present" installed.  A dist-info without RECORD is
# not installed.  status --deep refuses an interpreter that runs from
# outside its install, as doctor does.  A reinstall and a pins upgrade keep
# what `plugins install` added (cowork stays 3/4), and say so.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup verdict fixtures

box=$work/box
mkdir -p "$box"
cp -R "$src/tests/fixtures/sample-box/plugins" "$box/"
# A requirement C leaves to the checker (a marker): its answer is
# remembered in the box (plugins_memo.h), which must not hide the loss.
mkdir -p "$box/plugins/marked"
printf 'name: marked\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - "python-docx ; python_version >= \\"3\\""\n' \
  >"$box/plugins/marked/plugin.yaml"
common=(--box-root "$box" --pins "$fx/pins.yaml")
wh=(--wheelhouse "$fx/wheelhouse")

# json PY: a python assertion over the JSON in out as `d`.
json() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); exec(sys.argv[2])' "$work/out" "$1"; }
row() { awk -v n="$1" '$1 == n' "$work/out"; }

run install --yes --from-file "$fx/runtime.tar.gz" "${wh[@]}" "${common[@]}"
check "the fixture runtime and its baseline install" rc_is 0
site=$(ls -d "$box"/runtime/python/current/local/lib/python3.11/dist-packages)
run plugins "${common[@]}"
check "before: careercoach and marked are ready (the checker's answer is remembered)" \
  eval 'row careercoach | grep -q " ready " && row marked | grep -q " ready " &&
        [ -s "$box/runtime/python/cache/plugins-check.json" ]'

# The API answers status from memory while nothing it watches changed
# (serve/status_memo.c): the site-packages folders are watched too.
sock=$short/api.sock
"$pyrt" serve --listen "unix:$sock" "${common[@]}" 2>"$work/serve.log" &
spid=$!
e2e_wait_socket "$sock" "$spid" "$work/serve.log"
api_baseline() { curl -s --unix-socket "$sock" http://localhost/api/runtime/python |
  python3 -c 'import json, sys; b = json.load(sys.stdin)["baseline"]; print(b["state"], *b["missing"])'; }
check "GET /api/runtime/python: baseline complete (and remembered)"   eval '[ "$(api_baseline)" = complete ] && [ "$(api_baseline)" = complete ]'

# --- 4: files moved away, dist-info left ------------------------------------
mv "$site/docx" "$work/docx.away"
check "GET /api/runtime/python: the remembered answer is not served, partial python-docx" \
  eval '[ "$(api_baseline)" = "partial python-docx" ]'
kill "$spid"; wait "$spid" 2>/dev/null
run status "${common[@]}"
check "status: still ready (the runtime is), exit 0" rc_is 0
check "status: the baseline is partial, missing python-docx" has '^  baseline: *partial (missing: python-docx)' out
check "status: the message names what lacks files and the fix" \
  has "python-docx: docx/__init__.py is missing) — run \"pyrt baseline --box-root $box --pins $fx/pins.yaml\"" out
run status --json "${common[@]}"
check "status --json: baseline partial, missing [python-docx]" \
  json 'b = d["baseline"]; assert b["state"] == "partial" and b["missing"] == ["python-docx"], b'
run status --deep --json "${common[@]}"
check "status --deep --json: the same verdict" \
  json 'b = d["baseline"]; assert d["state"] == "ready" and b["state"] == "partial" and b["missing"] == ["python-docx"], d'
run plugins "${common[@]}"
check "plugins: careercoach misses python-docx (decided in C)" \
  eval 'row careercoach | grep -Eq "missing: python-docx +missing_deps"'
check "plugins: marked misses python-docx too (the checker's memo is not believed)" \
  eval 'row marked | grep -Eq "missing: python-docx +missing_deps"'
run doctor "${common[@]}"
check "doctor fails" rc_is 1
check "doctor: the baseline row names python-docx, fix pyrt baseline" \
  eval 'grep -A1 "Doc baseline" "$work/out" | grep -q "python-docx" &&
        grep -A1 "Doc baseline" "$work/out" | grep -q "fix: pyrt baseline"'
check "doctor: the import failure's fix is pyrt baseline, not a reinstall" \
  eval 'grep -A1 "cannot import: docx" "$work/out" | grep -q "fix: pyrt baseline"'
run smoke --out "$work/a.docx" "${common[@]}"
check "smoke fails and says pyrt baseline" eval '! rc_is 0 && has "pyrt baseline" err'

run baseline "${wh[@]}" "${common[@]}"
check "pyrt baseline repairs it (exit 0)" rc_is 0
check "baseline: it says what it reinstalled and why" \
  has 'reinstalled (its files were missing or it did not import): python-docx' out
check "baseline: the warning names the missing file" \
  has 'python-docx 0.8.11 is installed but not whole (docx/__init__.py is missing): reinstalling it' err
check "baseline: not '2 requirements installed' (openpyxl was already there)" \
  eval '! has "2 requirements installed" out && has "1 requirement installed .*1 already present" out'
check "the package's files are back" [ -f "$site/docx/__init__.py" ]
run smoke --out "$work/a.docx" "${common[@]}"
check "smoke passes after the repair" rc_is 0
run status --json "${common[@]}"
check "status: complete again" json 'assert d["baseline"] == {**d["baseline"], "state": "complete", "missing": []}, d'
run plugins "${common[@]}"
check "plugins: careercoach and marked ready again" \
  eval 'row careercoach | grep -q " ready " && row marked | grep -q " ready "'
run baseline "${wh[@]}" "${common[@]}"
check "a baseline with nothing to do says already present, nothing installed" \
  eval 'rc_is 0 && has "all 2 requirements already present, nothing installed" out'
run doctor "${common[@]}"
check "doctor: the baseline passes again" eval 'grep "Doc baseline" "$work/out" | grep -q "✓"'

# A dist-info without its RECORD is not installed either (issue 18.4).
rec=$(ls -d "$site"/openpyxl-*.dist-info)/RECORD
mv "$rec" "$work/RECORD.away"
run status --json "${common[@]}"
check "no RECORD: status names openpyxl missing" \
  json 'b = d["baseline"]; assert b["state"] == "partial" and b["missing"] == ["openpyxl"], b'
check "... and says the RECORD is what lacks" json 'assert "has no RECORD" in d["message"], d["message"]'
run plugins --json "${common[@]}"
check "no RECORD: cowork counts openpyxl missing" \
  json 'c = {p["name"]: p for p in d["plugins"]}["cowork"]; assert "openpyxl" in c["missing"], c'
mv "$work/RECORD.away" "$rec"

# Whole by its RECORD, yet it does not import (a file overwritten): doctor
# says so with fix `pyrt baseline`, and `pyrt baseline` reinstalls it.
printf 'raise ImportError("overwritten")\n' >"$site/docx/__init__.py"
run doctor "${common[@]}"
check "an overwritten module: doctor names it, fix pyrt baseline" \
  eval 'grep -A1 "cannot import: docx of python-docx" "$work/out" | grep -q "fix: pyrt baseline"'
run baseline "${wh[@]}" "${common[@]}"
check "pyrt baseline reinstalls a distribution that does not import" \
  eval 'rc_is 0 && has "it does not import: docx of python-docx" err &&
        has "reinstalled (its files were missing or it did not import): python-docx" out'
run smoke --out "$work/b.docx" "${common[@]}"
check "smoke passes after it" rc_is 0

# `pyrt install` on the current runtime runs the baseline when a package
# is not whole (the marker's "complete" is not enough) and repairs it.
mv "$site/docx" "$work/docx.away2"
run install --yes --from-file "$fx/runtime.tar.gz" "${wh[@]}" "${common[@]}"
check "install on a current runtime with a broken package repairs it" \
  eval 'rc_is 0 && has "reinstalling it" err && [ -f "$site/docx/__init__.py" ]'

# --- status --deep asks doctor's sys.prefix question -----------------------
# The system's python 3.11.2 behind the install's link: same version,
# but it runs from /usr, not from the install.
sys_python=/usr/bin/python3.11
if [ -x "$sys_python" ] && [ "$("$sys_python" -c 'import platform; print(platform.python_version())')" = 3.11.2 ]; then
  bin_py=$box/runtime/python/current/bin/python3
  cp -P "$bin_py" "$work/python3.link"
  ln -sfn "$sys_python" "$bin_py"
  run status --deep --json "${common[@]}"
  check "status --deep: an interpreter outside its install is broken" \
    json 'assert d["state"] == "broken" and "outside its install" in d["message"], d["message"]'
  rm -f "$bin_py"
  cp -P "$work/python3.link" "$bin_py"
  run status --deep "${common[@]}"
  check "... and ready once the install's own is back" rc_is 0
else
  bad "status --deep prefix check: needs Debian's python 3.11.2 at $sys_python"
fi

# --- 3: upgrades keep what plugins added ---------------------------------------
run plugins install cowork "${wh[@]}" "${common[@]}"
check "plugins install cowork gets 3 of 4 (the wheelhouse has no python-pptx)" rc_is 15
run plugins "${common[@]}"
check "cowork is 3/4" eval 'row cowork | grep -q "3/4 ok"'
sleep 1 # a new install directory name (its time stamp has seconds)
run install --yes --force --json --from-file "$fx/runtime.tar.gz" "${wh[@]}" "${common[@]}"
check "install --force succeeds" rc_is 0
check "--json: a log event says cowork's reportlab is re-applied" python3 -c '
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
logs = [e["message"] for e in evs if e["event"] == "log"]
assert any("plugin cowork: re-applying 1 requirement it had before the install: reportlab" in m for m in logs), logs
assert evs[-1]["event"] == "result" and evs[-1]["ok"] is True, evs[-1]
' "$work/out"
run plugins "${common[@]}"
check "after a reinstall cowork is still 3/4" eval 'row cowork | grep -q "3/4 ok"'

# A pins upgrade: another build, a new install beside the old one.
sed 's/build: "fixture"/build: "fixture2"/' "$fx/pins.yaml" >"$work/pins2.yaml"
common2=(--box-root "$box" --pins "$work/pins2.yaml")
run install --yes --from-file "$fx/runtime.tar.gz" "${wh[@]}" "${common2[@]}"
check "the upgrade to the new build succeeds" rc_is 0
check "it says what it re-applied" eval 'has "plugin cowork: re-applying 1 requirement" err &&
  has "the requirements of 1 plugin re-applied" out'
run plugins "${common2[@]}"
check "after a pins upgrade cowork is still 3/4" eval 'row cowork | grep -q "3/4 ok"'
run install --yes --from-file "$fx/runtime.tar.gz" "${wh[@]}" "${common2[@]}"
check "an install already current re-applies nothing" \
  eval 'rc_is 0 && ! has "re-applying" err'

e2e_finish
