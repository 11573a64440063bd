#!/usr/bin/env bash
# End to end (ctest label "faults"): corrupt and odd state files.  Seeded
# mutations of marker.json, manifest.tsv, the lock file and the install log
# (bit flips, truncation, whole lines cut or removed, non-UTF-8, empty, 1 GiB,
# a symlink to /dev/zero, a FIFO, a directory, deleted), each run through
# status, status --deep, verify and doctor with a timeout.  Never a crash
# (no sanitizer report, no signal), never a hang, never "out of memory".
#
#   marker.json, manifest.tsv: a finding every time — status, status --deep
#     and verify exit 1 naming the file; doctor exits 1 with a failed check
#     whose detail names it.
#   lock file: the runtime is still ready (status, verify exit 0); doctor
#     fails its lock check, naming the file, when it is not a regular file.
#   install log: nothing reads it but doctor --bundle, which still writes
#     its bundle.
#
# Environment: PYRT_STATE_BIN, the pyrt to test (e.g. build-asan/pyrt for
# ASan + UBSan; default the build's); PYRT_STATE_SEED (default: the time);
# PYRT_STATE_RANDOM, how many random mutations after the fixed ones
# (default 30); PYRT_STATE_TIMEOUT, seconds a run may take (default 30).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup state fixtures
pyrt=${PYRT_STATE_BIN:-$pyrt}
seed=${PYRT_STATE_SEED:-$(date +%s)}
nrandom=${PYRT_STATE_RANDOM:-30}
limit=${PYRT_STATE_TIMEOUT:-30}
# A sanitizer report must not look like a finding (exit 1).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}:exitcode=86
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}:halt_on_error=1:exitcode=87
echo "# pyrt: $pyrt"
echo "# seed: $seed (PYRT_STATE_SEED=$seed reproduces this run)"

box=$work/box
opts=(--box-root "$box" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem")
mutate="$src/tests/helpers/mutate_state.py"
"$pyrt" install --yes --wheelhouse "$fx/wheelhouse" --from-file "$fx/runtime.tar.gz" \
  "${opts[@]}" </dev/null >"$work/out" 2>"$work/err"
rc=$?
check "setup: an install with its baseline" rc_is 0
install=$(dirname "$(readlink -f "$box/runtime/python/current")")
rt=$box/runtime/python
declare -A path=(
  [marker]=$install/marker.json [manifest]=$install/manifest.tsv
  [lock]=$rt/lock [log]=$(ls "$rt"/logs/install-*.log | head -1)
)
declare -A name=([marker]=marker.json [manifest]=manifest.tsv [lock]=lock [log]=install-)
mkdir -p "$work/orig"
for f in marker manifest lock log; do cp -p "${path[$f]}" "$work/orig/$f"; done

# go TAG ARGS...: one timed run of pyrt; $work/TAG.out, .err, .rc.
go() {
  local tag=$1; shift
  timeout -k 5 "$limit" "$pyrt" "$@" "${opts[@]}" </dev/null \
    >"$work/$tag.out" 2>"$work/$tag.err"
  echo $? >"$work/$tag.rc"
}
rc_of() { cat "$work/$1.rc"; }
names() { grep -qaF -- "$2" "$work/$1.out" "$work/$1.err"; }
# doctor_fails_naming FILE: a failed check whose detail names FILE.
doctor_fails_naming() {
  python3 - "$work/doctor.out" "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if any(c["verdict"] == "fail" and sys.argv[2] in c["detail"]
                  for c in d["checks"]) else 1)
EOF
}
doctor_passes() {
  python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["ok"] else 1)' \
    "$work/doctor.out"
}

runs=0 cases=0 failed_cases=0
# judge FILE KIND WHAT: every run of one mutation against its promise;
# prints one FAIL line per broken promise.
judge() {
  local f=$1 kind=$2 what=$3 t problems=()
  for t in status deep verify doctor bundle; do
    [ -f "$work/$t.rc" ] || continue
    local r; r=$(rc_of "$t")
    case $r in
      124|137) problems+=("$t hung (killed after ${limit}s)") ;;
      86|87) problems+=("$t: sanitizer report") ;;
      13) problems+=("$t exit 13 (internal/out of memory)") ;;
    esac
    [ "$r" -gt 128 ] && [ "$r" -ne 137 ] && problems+=("$t died of signal $((r - 128))")
    if grep -qaE 'AddressSanitizer|LeakSanitizer|runtime error:' "$work/$t.err"; then
      problems+=("$t: sanitizer report")
    fi
    grep -qa 'out of memory' "$work/$t.out" "$work/$t.err" && problems+=("$t said out of memory")
  done
  local n=${name[$f]}
  case $f in
    marker|manifest)
      for t in status deep verify; do
        [ "$(rc_of $t)" -eq 1 ] || problems+=("$t exit $(rc_of $t), expected 1")
        names $t "$n" || problems+=("$t does not name $n")
      done
      [ "$(rc_of doctor)" -eq 1 ] || problems+=("doctor exit $(rc_of doctor), expected 1")
      doctor_fails_naming "$n" || problems+=("doctor has no failed check naming $n")
      ;;
    lock)
      for t in status deep verify; do
        [ "$(rc_of $t)" -eq 0 ] || problems+=("$t exit $(rc_of $t), expected 0 (the runtime is fine)")
      done
      case $kind in
        zero|fifo|directory)
          doctor_fails_naming "$rt/lock" || problems+=("doctor does not fail the lock check naming it") ;;
        *)
          doctor_passes || problems+=("doctor fails for a lock file that is still usable") ;;
      esac
      ;;
    log)
      for t in status deep verify doctor; do
        [ "$(rc_of $t)" -eq 0 ] || problems+=("$t exit $(rc_of $t), expected 0 (a log is not state)")
      done
      [ "$(rc_of bundle)" -eq 0 ] && [ -s "$work/b.tar.gz" ] ||
        problems+=("doctor --bundle exit $(rc_of bundle), no bundle")
      ;;
  esac
  cases=$((cases + 1))
  if [ ${#problems[@]} -eq 0 ]; then
    return 0
  fi
  failed_cases=$((failed_cases + 1))
  local p
  for p in "${problems[@]}"; do bad "$f $kind ($what): $p"; done
  for t in status verify; do sed 's/^/#   '"$t"': /' "$work/$t.out" "$work/$t.err" | head -3; done
}

# one FILE KIND SEED: mutate, run everything, judge, restore.
one() {
  local f=$1 kind=$2 s=$3 what
  rm -f "$work"/*.rc "$work/b.tar.gz"
  what=$(python3 "$mutate" "$kind" "$work/orig/$f" "${path[$f]}" "$s") ||
    { bad "$f $kind: the mutation failed"; return; }
  # They only read: run side by side, each under its own timeout.
  go status status & go deep status --deep & go verify verify &
  go doctor doctor --json &
  [ "$f" = log ] && go bundle doctor --bundle "$work/b.tar.gz" &
  wait
  runs=$((runs + 4))
  judge "$f" "$kind" "$what"
  rm -rf "${path[$f]}"
  cp -p "$work/orig/$f" "${path[$f]}"
}

# --- the pristine box: every command passes, so a failure below is news ----
go status status; go deep status --deep; go verify verify; go doctor doctor --json
check "pristine: status, status --deep and verify exit 0" \
  eval '[ "$(rc_of status)$(rc_of deep)$(rc_of verify)" = 000 ]'
check "pristine: doctor passes" doctor_passes

start=$SECONDS
# --- every odd kind, and the reported cases, once per file ------------------
for f in marker manifest lock log; do
  for kind in empty huge zero fifo directory missing; do
    one "$f" "$kind" "$seed"
  done
done
one marker badsha "$seed"
one marker bitflip "$seed"
one marker truncate "$seed"
one manifest cutline "$seed"
one manifest dropline "$seed"
one manifest nonutf8 "$seed"
fixed=$cases

# --- seeded random mutations -------------------------------------------------
files=(marker marker manifest manifest lock log)
kinds=(bitflip bitflip truncate cutline nonutf8 dropline dupline empty huge zero fifo directory missing)
RANDOM=$seed
for ((i = 0; i < nrandom; i++)); do
  f=${files[RANDOM % ${#files[@]}]}
  kind=${kinds[RANDOM % ${#kinds[@]}]}
  one "$f" "$kind" "$((seed + i))"
done

check "$cases mutations ($fixed fixed, $nrandom random, seed $seed): every promise kept ($failed_cases broken)" \
  [ "$failed_cases" -eq 0 ]
echo "# $cases mutations, $runs runs in $((SECONDS - start)) s, seed $seed"

# --- a pins build longer than a marker field: refused at its line ---------
# (it was cut to 31 bytes in the marker, so every install reinstalled; at
# 300 bytes the install id lost its stamp and a second install collided)
sed 's/build: "fixture"/build: "fixture-0123456789012345678901234567890"/' \
  "$fx/pins.yaml" >"$work/pins-long.yaml"
"$pyrt" install --yes --no-baseline --from-file "$fx/runtime.tar.gz" --box-root "$box" \
  --pins "$work/pins-long.yaml" </dev/null >"$work/out" 2>"$work/err"
rc=$?
check "a 40-byte build: install refused as a pins error (exit 11)" rc_is 11
check "... naming the file, line and field" \
  has "pins-long.yaml:7: runtime.build: expected a build like 20260814" err
check "... and the runtime was not touched" \
  [ "$(dirname "$(readlink -f "$box/runtime/python/current")")" = "$install" ]

# --- the restored box passes again: the loop left nothing behind -----------
go status status; go verify verify; go doctor doctor --json
check "restored: status and verify exit 0" eval '[ "$(rc_of status)$(rc_of verify)" = 00 ]'
check "restored: doctor passes" doctor_passes
e2e_finish
