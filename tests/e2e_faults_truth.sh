#!/usr/bin/env bash
# ctest: e2e_faults_truth (label faults)
# Issue 25's randomized check.  A box with the baseline (python-docx,
# openpyxl and what they require), a plugin the baseline satisfies
# (relplug: openpyxl) and one made ready by `plugins install` (imgplug:
# pillow, declared in declared.json) goes through a seeded run of steps.
# Each step mutates the box (pip uninstall, a file its RECORD lists
# deleted, a RECORD removed or cut in half — a half-written .dist-info —,
# pip's stash folders or the wheelhouse installer's staging planted) and
# then kills a run of `pyrt baseline`, `pyrt plugins install imgplug` or
# `pyrt install --force` (whose re-apply restores imgplug) — at one of the
# crash points (core/util/testhook.h; py/fastwheel.py's numbered ones) or
# at a random moment, with SIGKILL to its whole process group (pip and the
# installer too) or SIGTERM to pyrt.  After every step, status (plain and
# --json), plugins --json, doctor --json and the API (pyrt serve on a Unix
# socket: GET /api/runtime/python and /api/plugins) are compared with the
# truth the runtime itself computes (tests/helpers/pkg_truth.py:
# importlib.metadata, RECORDs, Requires-Dist, and an import of every top
# module of what is installed whole): 0 disagreements.  Every few steps
# one `pyrt baseline` (no source named: the box remembers it) must restore
# the whole declared state: the baseline and every declared plugin's
# requirements installed whole, no stash or staging left, everything
# imports, nothing pending.
# The steps go on until 50 kills have landed (a run that reached its point,
# or was still running at its moment): about 57 steps, 7-10 minutes on 2
# loaded CPUs (TIMEOUT 1800 in tests/CMakeLists.txt).  PYRT_FAULT_SEED
# repeats a run; PYRT_TRUTH_KILLS sets how many kills (a shorter run).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup faults-truth fixtures
. "$src/tests/lib/faults.sh"

seed=${PYRT_FAULT_SEED:-$(( $(date +%s) % 32768 ))}
want_kills=${PYRT_TRUTH_KILLS:-50}
RANDOM=$seed
echo "# seed $seed (PYRT_FAULT_SEED=$seed repeats it), steps until $want_kills kills land"

fault_box "$work/box"
py=$current/bin/python3
wh=$fx/wheelhouse
plugin() { # NAME REQ: a plugin that needs REQ
  mkdir -p "$box/plugins/$1"
  printf 'name: %s\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - %s\n' \
    "$1" "$2" >"$box/plugins/$1/plugin.yaml"
}
plugin relplug openpyxl
plugin imgplug pillow
run install "${opts[@]}" --from-file "$archive" --wheelhouse "$wh" --yes
check "setup: install with the baseline (rc $rc)" rc_is 0
run plugins install imgplug "${opts[@]}" --wheelhouse "$wh"
check "setup: plugins install imgplug (rc $rc)" rc_is 0
check "setup: declared.json declares imgplug's pillow" \
  grep -q '"imgplug"' "$rt/declared.json"
S=$("$py" -I -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
pool=(python-docx openpyxl lxml et-xmlfile pillow)

sock=$short/api.sock
"$pyrt" serve --listen "unix:$sock" "${opts[@]}" 2>"$work/serve.log" &
spid=$!
e2e_wait_socket "$sock" "$spid" "$work/serve.log"
stop_serve() { kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null; }

truth() {
  "$current/bin/python3" -I "$src/tests/helpers/pkg_truth.py" \
    --plugin relplug=openpyxl --plugin imgplug=pillow -- python-docx openpyxl
}
info_of() { # the .dist-info folder of distribution $1, "" when none
  "$py" -I -c '
import importlib.metadata as md, sys
try:
    p = md.distribution(sys.argv[1])._path
    print(p if not p.name.startswith("~") else "")
except Exception:
    print("")' "$1"
}

disagree=0
# compare TAG: every surface against the truth.
compare() {
  local tag=$1
  truth >"$work/truth.json" 2>"$work/truth.err"
  "$pyrt" status "${opts[@]}" </dev/null >"$work/status.txt" 2>&1
  "$pyrt" status "${opts[@]}" --json </dev/null >"$work/status.json" 2>/dev/null
  "$pyrt" plugins "${opts[@]}" --json </dev/null >"$work/plugins.json" 2>/dev/null
  "$pyrt" doctor "${opts[@]}" --json </dev/null >"$work/doctor.json" 2>/dev/null
  curl -s --max-time 30 --unix-socket "$sock" http://localhost/api/runtime/python \
    >"$work/api.json" 2>/dev/null
  curl -s --max-time 30 --unix-socket "$sock" http://localhost/api/plugins \
    >"$work/api-plugins.json" 2>/dev/null
  if ! python3 - "$work" <<'EOF' >"$work/why" 2>&1; then
import json, re, sys
w = sys.argv[1]
def load(f):
    return json.load(open(w + "/" + f))
t = load("truth.json")
want = set(t["missing"])
complete = not want
for f in ("status.json", "api.json"):
    b = load(f)["baseline"]
    assert set(b["missing"]) == want, f"{f}: missing {sorted(b['missing'])}, truth {sorted(want)}"
    assert (b["state"] == "complete") == complete, (f, b["state"], sorted(want))
plain = open(w + "/status.txt").read()
m = re.search(r"^  baseline: +(\S+)", plain, re.M)
assert m, "status prints no baseline line"
assert (m.group(1) == "complete") == complete, ("status", m.group(1), sorted(want))
for f in ("plugins.json", "api-plugins.json"):
    rows = {r["name"]: r for r in load(f)["plugins"]}
    for name, gaps in t["plugins"].items():
        v = rows[name]["verdict"]
        assert (v == "ready") == (not gaps), (f, name, v, "truth misses", gaps)
d = load("doctor.json")
b = [c for c in d["checks"] if c["id"] == "baseline"][0]
assert (b["verdict"] == "pass") == complete, ("doctor", b["verdict"], sorted(want))
assert not t["import_failed"], ("installed whole, but does not import", t["import_failed"])
EOF
    disagree=$((disagree + 1))
    bad "$tag: the surfaces disagree with the truth: $(tail -1 "$work/why")"
  fi
}

mutate() {
  local what=$((RANDOM % 8)) name=${pool[$((RANDOM % ${#pool[@]}))]} info
  info=$(info_of "$name")
  case $what in
  0 | 1) echo "uninstall $name"; "$py" -I -m pip uninstall -y -q "$name" >/dev/null 2>&1 ;;
  2) [ -n "$info" ] || { echo "nothing to delete of $name"; return; }
     local f
     f=$(python3 -c '
import csv, random, sys
random.seed(int(sys.argv[2]))
rows = [r[0] for r in csv.reader(open(sys.argv[1] + "/RECORD"))
        if r and ".dist-info/" not in r[0] and not r[0].endswith(".pyc")
        and not r[0].startswith("/") and not r[0].startswith("..")]
print(random.choice(rows) if rows else "")' "$info" "$RANDOM" 2>/dev/null)
     echo "delete $name's $f"; [ -n "$f" ] && rm -f "$S/$f" ;;
  3) [ -n "$info" ] || { echo "no RECORD of $name"; return; }
     echo "remove $name's RECORD"; rm -f "$info/RECORD" ;;
  4) [ -n "$info" ] || { echo "no RECORD of $name"; return; }
     echo "cut $name's RECORD in half (a half-written .dist-info)"
     local size
     size=$(stat -c %s "$info/RECORD" 2>/dev/null || echo 0)
     truncate -s $((size / 2)) "$info/RECORD" ;;
  5) [ -n "$info" ] || { echo "no stash of $name"; return; }
     local b
     b=$(basename "$info")
     echo "stash $b as pip does"; mv "$info" "$S/~${b:1}" ;;
  6) echo "plant staging"
     mkdir -p "$S/.pyrt-fastwheel/junk-1.0/purelib/junk"
     echo x >"$S/.pyrt-fastwheel/junk-1.0/purelib/junk/__init__.py" ;;
  7) echo "no mutation" ;;
  esac
}

# The crash points of each command (testhook.h); fw-* are the wheelhouse
# installer's, numbered per installer run.
fw=(fw-member-1 fw-member-3 fw-member-40 fw-installer-1 fw-installer-2
    fw-record-1 fw-record-2 fw-move-1 fw-move-2 fw-move-30 fw-dist-info-1
    fw-dist-info-2 fw-compile-1)
bl_points=(baseline-begin baseline-repaired mid-baseline "${fw[@]}")
pl_points=(fw-member-1 fw-member-3 fw-member-40 fw-installer-1 fw-record-1
           fw-move-1 fw-move-2 fw-move-30 fw-dist-info-1 fw-compile-1)
in_points=(locked after-download staging-made mid-extract before-check
           before-marker before-move before-swap between-swaps after-swap
           baseline-begin mid-baseline plugin-reapply "${fw[@]}")
kills=0

# killrun: one command, killed at a crash point or a random moment.
killrun() {
  local cmd=$((RANDOM % 3)) how=$((RANDOM % 3)) sig=KILL point args label
  ((RANDOM % 4 == 0)) && sig=TERM
  case $cmd in
  0) args=(baseline "${opts[@]}"); label=baseline; point=${bl_points[$((RANDOM % ${#bl_points[@]}))]} ;;
  1) args=(plugins install imgplug "${opts[@]}" --wheelhouse "$wh")
     label="plugins install imgplug"
     point=${pl_points[$((RANDOM % ${#pl_points[@]}))]} ;;
  2) args=(install --yes --force --from-file "$archive" "${opts[@]}" --wheelhouse "$wh")
     label="install --force"
     point=${in_points[$((RANDOM % ${#in_points[@]}))]} ;;
  esac
  local ms=$((RANDOM % 2500)) gone=""
  # Half the baseline and plugin runs find work to do: what they would
  # install is uninstalled first.
  if ((cmd < 2 && RANDOM % 2)); then
    gone=pillow
    ((cmd == 0)) && gone=${pool[$((RANDOM % 4))]}
    "$py" -I -m pip uninstall -y -q "$gone" >/dev/null 2>&1
    gone=" ($gone uninstalled first)"
  fi
  rm -f "$hookfile"
  if ((how == 0)); then
    echo "$label$gone: SIG$sig at ${ms} ms"
    setsid "$pyrt" "${args[@]}" </dev/null >"$work/kill.out" 2>&1 &
  else
    echo "$label$gone: SIG$sig at $point"
    PYRT_TEST_HOOK=$point:pause PYRT_TEST_HOOK_FILE=$hookfile \
      setsid "$pyrt" "${args[@]}" </dev/null >"$work/kill.out" 2>&1 &
  fi
  local pid=$! i landed=0
  if ((how == 0)); then
    sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
    kill -0 "$pid" 2>/dev/null && landed=1
  else
    for ((i = 0; i < 1200; i++)); do
      [ -s "$hookfile" ] && { landed=1; break; }
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.05
    done
  fi
  if ((landed)); then
    if [ "$sig" = KILL ]; then kill -KILL -- "-$pid" 2>/dev/null
    else kill -TERM "$pid" 2>/dev/null; rm -f "$hookfile"; fi
    echo "  landed"
  fi
  { wait "$pid"; } 2>/dev/null
  # A SIGTERM'd run stops its children; one paused child of a run that
  # went on is let go by its file, and any left of the group killed.
  rm -f "$hookfile"
  sleep 0.2
  kill -KILL -- "-$pid" 2>/dev/null
  return 0
}

reconcile() {
  local tag=$1
  run baseline "${opts[@]}"
  check "$tag: one baseline restores the declared state (rc $rc)" rc_is 0
  truth >"$work/truth.json"
  check "$tag: the truth says nothing declared is missing" python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
assert not t["missing"], t["missing"]
assert not any(t["plugins"].values()), t["plugins"]
assert not t["import_failed"], t["import_failed"]' "$work/truth.json"
  check "$tag: no stash or staging left" eval '! ls -d "$S"/~* "$S/.pyrt-fastwheel" 2>/dev/null'
  check "$tag: everything imports" "$py" -I -c "import docx, openpyxl, lxml, et_xmlfile, PIL"
  check "$tag: nothing pending" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["pending"], d["pending"]
assert d["plugins"].get("imgplug") == ["pillow"], d["plugins"]' "$rt/declared.json"
}

compare "start"
# A kill whose run ended before its point or moment is no kill: the steps
# go on until want_kills have landed (twice as many steps at most).
for ((i = 1; kills < want_kills && i <= 2 * want_kills; i++)); do
  mutate >"$work/what" # not in $(...): RANDOM must advance here
  echo "# step $i: $(cat "$work/what")"
  killrun >"$work/what"
  grep -q landed "$work/what" && kills=$((kills + 1))
  echo "#   $(head -1 "$work/what")$(grep -q landed "$work/what" || echo ' (finished first)')"
  compare "step $i ($(cat "$work/what" | head -1))"
  if ((i % 5 == 0)); then
    reconcile "step $i"
    compare "step $i, after the reconcile"
  fi
done
reconcile "end"
compare "end"
stop_serve
steps=$((i - 1))
echo "# $steps steps, $kills kills landed, $disagree disagreements (seed $seed)"
check "at least $want_kills kills landed ($kills)" [ "$kills" -ge "$want_kills" ]
check "0 disagreements" [ "$disagree" -eq 0 ]

e2e_finish
