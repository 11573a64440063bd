#!/usr/bin/env bash
# ctest: e2e_faults_truth (label faults)
# Issue 25's randomized check, first version: a seeded run of mutations of a
# box with the baseline (python-docx, openpyxl and what they require) and a
# plugin (relplug: openpyxl) — pip uninstall, a file its RECORD lists
# deleted, a RECORD removed (a half-written .dist-info), pip's stash folders
# and the wheelhouse installer's staging planted, a baseline killed
# (SIGKILL) at a random crash point — and after each step status --json,
# plugins --json and doctor are compared with the truth the runtime itself
# computes (tests/helpers/pkg_truth.py: importlib.metadata, RECORDs,
# Requires-Dist): 0 disagreements.  Every few steps one `pyrt baseline`
# (no source named: the box remembers it) must restore the declared state:
# nothing missing, no stash or staging left, everything imports.
# PYRT_FAULT_SEED repeats a run; PYRT_TRUTH_STEPS sets its length.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup faults-truth fixtures
. "$src/tests/lib/faults.sh"

seed=${PYRT_FAULT_SEED:-$(( $(date +%s) % 32768 ))}
steps=${PYRT_TRUTH_STEPS:-40}
RANDOM=$seed
echo "# seed $seed (PYRT_FAULT_SEED=$seed repeats it), $steps steps"

fault_box "$work/box"
py=$current/bin/python3
wh=$fx/wheelhouse
mkdir -p "$box/plugins/relplug"
printf 'name: relplug\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - openpyxl\n' \
  >"$box/plugins/relplug/plugin.yaml"
run install "${opts[@]}" --from-file "$archive" --wheelhouse "$wh" --yes
check "setup: install with the baseline (rc $rc)" rc_is 0
S=$("$py" -I -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
pool=(python-docx openpyxl lxml et-xmlfile)
points=(baseline-begin baseline-repaired mid-baseline fw-member-3 fw-member-40
        fw-record-1 fw-move-2 fw-move-30 fw-dist-info-1 fw-dist-info-2)

truth() { "$py" -I "$src/tests/helpers/pkg_truth.py" python-docx openpyxl; }
info_of() { # the .dist-info folder of distribution $1, "" when none
  "$py" -I -c '
import importlib.metadata as md, sys
try:
    print(md.distribution(sys.argv[1])._path)
except Exception:
    print("")' "$1"
}

disagree=0
# compare TAG: every surface against the truth.
compare() {
  local tag=$1
  truth >"$work/truth.json"
  "$pyrt" status "${opts[@]}" --json </dev/null >"$work/status.json" 2>/dev/null
  "$pyrt" plugins "${opts[@]}" --json </dev/null >"$work/plugins.json" 2>/dev/null
  "$pyrt" doctor "${opts[@]}" --json </dev/null >"$work/doctor.json" 2>/dev/null
  if ! python3 - "$work" <<'EOF' >"$work/why" 2>&1; then
import json, sys
w = sys.argv[1]
t = json.load(open(w + "/truth.json"))
s = json.load(open(w + "/status.json"))
p = json.load(open(w + "/plugins.json"))
d = json.load(open(w + "/doctor.json"))
want = set(t["missing"])
got = set(s["baseline"]["missing"])
assert got == want, f"status missing {sorted(got)}, truth {sorted(want)}"
assert (s["baseline"]["state"] == "complete") == (not want), s["baseline"]
rel = [r for r in p["plugins"] if r["name"] == "relplug"][0]
ready = t["whole"].get("openpyxl", False)
assert (rel["verdict"] == "ready") == ready, (rel["verdict"], "openpyxl whole" if ready else "openpyxl not whole")
b = [c for c in d["checks"] if c["id"] == "baseline"][0]
assert (b["verdict"] == "pass") == (not want), (b, sorted(want))
EOF
    disagree=$((disagree + 1))
    bad "$tag: the surfaces disagree with the truth: $(tail -1 "$work/why")"
  fi
}

mutate() {
  local what=$((RANDOM % 6)) name=${pool[$((RANDOM % ${#pool[@]}))]} info
  info=$(info_of "$name")
  case $what in
  0) echo "uninstall $name"; "$py" -I -m pip uninstall -y -q "$name" >/dev/null 2>&1 ;;
  1) [ -n "$info" ] || { echo "nothing to delete of $name"; return; }
     local f
     f=$(python3 -c '
import csv, random, sys
random.seed(int(sys.argv[2]))
rows = [r[0] for r in csv.reader(open(sys.argv[1] + "/RECORD"))
        if r and ".dist-info/" not in r[0] and not r[0].endswith(".pyc")
        and not r[0].startswith("/") and not r[0].startswith("..")]
print(random.choice(rows) if rows else "")' "$info" "$RANDOM" 2>/dev/null)
     echo "delete $name's $f"; [ -n "$f" ] && rm -f "$S/$f" ;;
  2) [ -n "$info" ] || { echo "no RECORD of $name"; return; }
     echo "remove $name's RECORD"; rm -f "$info/RECORD" ;;
  3) [ -n "$info" ] || { echo "no stash of $name"; return; }
     local b
     b=$(basename "$info")
     echo "stash $b as pip does"; mv "$info" "$S/~${b:1}" ;;
  4) echo "plant staging"
     mkdir -p "$S/.pyrt-fastwheel/junk-1.0/purelib/junk"
     echo x >"$S/.pyrt-fastwheel/junk-1.0/purelib/junk/__init__.py" ;;
  5) local point=${points[$((RANDOM % ${#points[@]}))]}
     echo "baseline killed at $point"
     PYRT_TEST_HOOK=$point:kill "$pyrt" baseline "${opts[@]}" </dev/null >/dev/null 2>&1 ;;
  esac
}

reconcile() {
  local tag=$1
  run baseline "${opts[@]}"
  check "$tag: one baseline restores the declared state (rc $rc)" rc_is 0
  truth >"$work/truth.json"
  check "$tag: the truth says nothing is missing" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
assert not t["missing"], t["missing"]' "$work/truth.json"
  check "$tag: no stash or staging left" eval '! ls -d "$S"/~* "$S/.pyrt-fastwheel" 2>/dev/null'
  check "$tag: everything imports" "$py" -I -c "import docx, openpyxl, lxml, et_xmlfile"
}

compare "start"
for ((i = 1; i <= steps; i++)); do
  mutate >"$work/what" # not in $(...): RANDOM must advance here
  what=$(cat "$work/what")
  echo "# step $i: $what"
  compare "step $i ($what)"
  if ((i % 5 == 0)); then
    reconcile "step $i"
    compare "step $i, after the reconcile"
  fi
done
reconcile "end"
compare "end"
echo "# $steps steps, $disagree disagreements (seed $seed)"
check "0 disagreements" [ "$disagree" -eq 0 ]

e2e_finish
