#!/usr/bin/env bash
# ctest: e2e_baseline
# End to end: the doc-library baseline through the real pyrt binary, offline.
# `pyrt install --wheelhouse` with the real five-item baseline (python-docx,
# openpyxl, python-pptx, reportlab, pillow) against the fixture wheelhouse
# (Debian 12's libraries; no python-pptx): the runtime activates, the
# baseline is partial naming python-pptx, exit 10, and status and the
# install result say so; the plugins that became ready are listed.  Then
# `pyrt baseline` reruns install only what is missing, and --no-baseline,
# --requirements and the EXTERNALLY-MANAGED refusal behave as documented.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup baseline fixtures

# json_result PY: assert over the last NDJSON line of out as `r`.
json_result() {
  python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])][-1]
exec(sys.argv[2])' "$work/out" "$1"
}

# The fixture pins with DESIGN.md's real baseline list.
pins=$work/pins.yaml
{
  sed '/^baseline:/,$d' "$fx/pins.yaml"
  printf 'baseline:\n'
  for r in python-docx openpyxl python-pptx reportlab pillow; do
    printf '  - %s\n' "$r"
  done
} >"$pins"

box=$work/box
mkdir -p "$box"
cp -R "$src/tests/fixtures/sample-box/plugins" "$box/"
current=$box/runtime/python/current
py=$current/bin/python3
common=(--box-root "$box" --pins "$pins")

# --- install with a wheelhouse: runtime active, baseline partial -------------
run install "${common[@]}" --from-file "$fx/runtime.tar.gz" \
  --wheelhouse "$fx/wheelhouse" --yes --json
check "install with an incomplete wheelhouse exits 10" rc_is 10
check "the result says partial, missing python-pptx" json_result '
assert r["event"] == "result" and r["exit_code"] == 10 and r["code"] == "baseline", r
assert r["baseline"]["state"] == "partial", r
assert r["baseline"]["missing"] == ["python-pptx"], r
assert "python-pptx" in r["error"] and r["baseline"]["log"] in r["error"], r
assert r["install_dir"] and "/installs/" in r["install_dir"], r'
check "the result lists the plugins that became ready" json_result '
assert "careercoach" in r["ready_plugins"], r
assert "cowork" not in r["ready_plugins"], r'
check "the baseline is one step that failed" python3 -c '
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
b = [e["state"] for e in ev if e["event"] == "step" and e["step"] == "baseline"]
assert b == ["begin", "fail"], b
assert any(e["event"] == "log" and "Successfully installed" in e["message"] for e in ev)' \
  "$work/out"
check "stderr says the runtime itself is active" has "the runtime itself is installed and active" err
check "the runtime is active" "$py" -I -c pass
check "what the wheelhouse has is installed" "$py" -I -c 'import docx, openpyxl, reportlab, PIL'
check "python-pptx is not" eval '! "$py" -I -c "import pptx" 2>/dev/null'

run status "${common[@]}" --json
check "status stays ready (exit 0)" rc_is 0
check "status JSON: baseline partial, missing python-pptx" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["state"] == "ready", d
assert {k: d["baseline"][k] for k in ("state", "missing")} == {"state": "partial", "missing": ["python-pptx"]}, d' "$work/out"
run status "${common[@]}"
check "status text shows the partial baseline" \
  has "baseline:      partial (missing: python-pptx)" out

log=$(ls -t "$box"/runtime/python/logs/pip-baseline-python-pptx-*.log | head -1)
check "the pip log of python-pptx exists, owner-only" [ "$(stat -c %a "$log")" = 600 ]
check "the pip log holds pip's reason" grep -q "No matching distribution found for python-pptx" "$log"

# --- pyrt baseline: a rerun installs only what is missing --------------------
run baseline "${common[@]}" --wheelhouse "$fx/wheelhouse"
check "a rerun is still partial (exit 10)" rc_is 10
check "the rerun installs nothing already there" eval '! has "Installing collected packages" err'
check "the rerun says already satisfied" has "Requirement already satisfied: python-docx" err

wh=$work/wheelhouse
cp -R "$fx/wheelhouse" "$wh"
python3 "$src/tests/fixtures/tiny-wheel.py" "$wh" python-pptx:0.6.21
run baseline "${common[@]}" --wheelhouse "$wh" --json
check "with python-pptx available the baseline completes (exit 0)" rc_is 0
check "the result says complete" json_result '
assert r["ok"] is True and r["baseline"] == {"state": "complete", "missing": [], "log": r["baseline"]["log"]}, r'
check "only python-pptx was installed" python3 -c '
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
inst = [e["message"] for e in ev if e["event"] == "log" and e["message"].startswith("Installing collected packages")]
assert inst == ["Installing collected packages: python-pptx"], inst' "$work/out"
run status "${common[@]}" --json
check "status JSON: baseline complete" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert {k: d["baseline"][k] for k in ("state", "missing")} == {"state": "complete", "missing": []}, d' "$work/out"

# --- install again: already current and complete: the baseline is skipped ---
run install "${common[@]}" --from-file "$fx/runtime.tar.gz" --yes
check "a second install exits 0" rc_is 0
check "it skips the complete baseline" has "baseline: skipped (already complete)" err

# --- --requirements, --no-baseline -------------------------------------------
printf '# docs\npython-docx>=0.8\n\nopenpyxl  # sheets\n' >"$work/req.txt"
run baseline "${common[@]}" --wheelhouse "$fx/wheelhouse" --requirements "$work/req.txt"
check "pyrt baseline --requirements FILE exits 0" rc_is 0
check "it read the file's two requirements" has "baseline: begin (2 requirements from $work/req.txt" err
check "pip got them after --, never the file" \
  eval 'log=$(ls -t "$box"/runtime/python/logs/pip-baseline-*.log | head -1) &&
        head -1 "$log" | grep -q -- " -- python-docx>=0.8 openpyxl$" &&
        ! grep -q -- " -r " "$log"'

# --- requirement strings that are not PEP 508 requirements -------------------
printf 'python-docx\n--log=%s/pwned.log\n' "$work" >"$work/bad-req.txt"
run baseline "${common[@]}" --wheelhouse "$fx/wheelhouse" --requirements "$work/bad-req.txt"
check "an option line in --requirements exits 2 naming FILE:LINE and the rule" \
  eval 'rc_is 2 && has "$work/bad-req.txt:2: \"--log=" err && has "\" is a pip option" err && has "PEP 508" err'
check "pip did not run, so it wrote no log there" eval '[ ! -e "$work/pwned.log" ]'
run install --box-root "$work/box3" --pins "$pins" --from-file "$fx/runtime.tar.gz" --yes \
  --requirements "$work/bad-req.txt"
check "install refuses the file before anything is installed (exit 2)" \
  eval 'rc_is 2 && has "bad-req.txt:2:" err && [ ! -e "$work/box3/runtime/python/current" ]'
{
  sed '/^baseline:/,$d' "$fx/pins.yaml"
  printf 'baseline:\n  - python-docx\n  - "pillow @ file://%s/pillow.whl"\n' "$work"
} >"$work/bad-pins.yaml"
line=$(grep -n 'pillow @' "$work/bad-pins.yaml" | cut -d: -f1)
run baseline --box-root "$box" --pins "$work/bad-pins.yaml" --wheelhouse "$fx/wheelhouse"
check "a direct reference in the pins' baseline exits 11 (pins) naming file:line" \
  eval 'rc_is 11 && has "$work/bad-pins.yaml:$line: baseline\[1\]: \"pillow @ file://" err && has "direct reference" err'

box2=$work/box2
run install --box-root "$box2" --pins "$pins" --from-file "$fx/runtime.tar.gz" --yes --no-baseline
check "install --no-baseline exits 0" rc_is 0
check "it says the baseline was skipped" has "baseline: skipped (--no-baseline)" err
check "no pip ran" eval '! ls "$box2"/runtime/python/logs/pip-* >/dev/null 2>&1'
run status --box-root "$box2" --pins "$pins" --json
check "status JSON: baseline none" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert {k: d["baseline"][k] for k in ("state", "missing")} == {"state": "none", "missing": []}, d' "$work/out"

# --- a foreign runtime with EXTERNALLY-MANAGED: one sentence with the fix ----
printf '[externally-managed]\nError=use apt\n' >"$box2/runtime/python/current/lib/python3.11/EXTERNALLY-MANAGED"
run baseline --box-root "$box2" --pins "$pins" --wheelhouse "$fx/wheelhouse"
check "an EXTERNALLY-MANAGED runtime exits 10" rc_is 10
check "the refusal names PEP 668 and the fix" \
  eval 'has "EXTERNALLY-MANAGED marker (PEP 668)" err && has "pyrt install --force" err'
check "pip's own refusal is not passed through" eval '! has "use apt" err'

e2e_finish
