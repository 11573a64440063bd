#!/usr/bin/env bash
# ctest: e2e_cross (label cross)
# End to end on a second platform: the arm64 pyrt (scripts/build-cross.sh
# arm64) runs under qemu-aarch64, registered with binfmt_misc for this
# test only, so pyrt and the arm64 interpreter it installs exec each other
# as they would on an arm64 host.  It installs the arm64 fixture runtime
# (tests/fixtures/make-cross-runtime.sh) from a loopback HTTPS mirror with
# the platform it detects itself (linux-aarch64-gnu), then status, plugins,
# smoke (a real .docx written by the arm64 interpreter), verify, rollback
# and uninstall.  Needs root (binfmt_misc) and scripts/deps.sh --arch arm64;
# when binfmt_misc cannot be mounted or written it fails saying so.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup cross
bin=${PYRT_BINARY_DIR:?PYRT_BINARY_DIR must name the build directory}
host_pyrt=$pyrt
fx=$bin/fixtures-arm64
. "$(dirname "$0")/lib/binfmt.sh"
trap 'binfmt_aarch64_cleanup; e2e_cleanup' EXIT

give_up() { bad "$*"; e2e_finish; exit 1; }

# --- the arm64 build and fixture --------------------------------------------
for t in aarch64-linux-gnu-gcc qemu-aarch64-static; do
  command -v "$t" >/dev/null || give_up "$t is installed (bash scripts/deps.sh --arch arm64)"
done
SECONDS=0
bash "$src/scripts/build-cross.sh" arm64 "$bin/cross-arm64" >"$work/build.log" 2>&1 ||
  { sed 's/^/#   /' "$work/build.log" | tail -30; give_up "the arm64 pyrt builds (scripts/build-cross.sh arm64)"; }
pyrt=$bin/cross-arm64/pyrt
bash "$src/tests/fixtures/make-ca.sh" "$fx" && \
  bash "$src/tests/fixtures/make-cross-runtime.sh" arm64 "$fx" ||
  give_up "the arm64 fixture builds (tests/fixtures/make-cross-runtime.sh arm64)"
echo "# arm64 build and fixture: ${SECONDS}s"
SECONDS=0
check "the pyrt under test is an aarch64 program" \
  eval 'LC_ALL=C readelf -h "$pyrt" | grep -q "Machine: *AArch64"'

# --- binfmt_misc: qemu-aarch64 for this test only ---------------------------
binfmt_aarch64_register

# --- the arm64 pyrt, run as on an arm64 host --------------------------------
e2e_mirror
box=$work/box
current=$box/runtime/python/current
common=(--box-root "$box" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem")

run --version
check "the arm64 pyrt runs through binfmt_misc and detects linux-aarch64-gnu" \
  eval 'rc_is 0 && has "platform: *linux-aarch64-gnu" out'
# The host's pyrt reads the same pins and refuses: the key is the running
# binary's, not a guess from the pins.
"$host_pyrt" install --yes "${common[@]}" --mirror "$mirror" </dev/null >"$work/out" 2>"$work/err"
rc=$?
check "the x86_64 pyrt refuses the arm64-only pins (exit 8) naming its key" \
  eval 'rc_is 8 && has "linux-x86_64-gnu" err && [ ! -e "$current" ]'

run install --yes "${common[@]}" --mirror "$mirror" --wheelhouse "$fx/wheelhouse"
check "arm64 pyrt install --yes exits 0" rc_is 0
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$work/err" | tail -20
check "the mirror served the arm64 archive" grep -q 'runtime.tar.gz' "$work/requests.log"
check "the installed interpreter is aarch64" \
  eval 'LC_ALL=C readelf -h "$(readlink -f "$current/bin/python3")" | grep -q "Machine: *AArch64"'
check "the baseline imports in the arm64 interpreter (lxml aarch64)" \
  "$current/bin/python3" -I -c '
import platform, docx, openpyxl, lxml.etree
assert platform.machine() == "aarch64", platform.machine()
assert lxml.etree.__file__.endswith("aarch64-linux-gnu.so"), lxml.etree.__file__'

run status --json "${common[@]}"
check "status --json: ready on linux-aarch64-gnu, baseline complete" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); sha=open(sys.argv[2]).read().strip()
assert d["state"]=="ready" and d["platform"]=="linux-aarch64-gnu", d
assert d["sha256"]==sha and d["baseline"]["state"]=="complete", d' "$work/out" "$fx/runtime.sha256"
check "status exits 0" rc_is 0

mkdir -p "$box/plugins"
cp -R "$src/tests/fixtures/sample-box/plugins/careercoach" "$src/tests/fixtures/sample-box/plugins/notes" "$box/plugins/"
run plugins --json "${common[@]}"
check "plugins: careercoach (python-docx) is ready on the arm64 runtime" python3 -c '
import json,sys; rows={p["name"]: p for p in json.load(open(sys.argv[1]))["plugins"]}
assert rows["careercoach"]["verdict"]=="ready", rows["careercoach"]
assert rows["notes"]["verdict"]=="no_runtime_needed", rows["notes"]' "$work/out"
check "plugins exits 0" rc_is 0

run smoke "${common[@]}" --out "$work/smoke.docx"
check "smoke exits 0" rc_is 0
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$work/err" | tail -20
check "smoke wrote a real .docx" python3 -c '
import sys, zipfile; z=zipfile.ZipFile(sys.argv[1]); assert "word/document.xml" in z.namelist()' "$work/smoke.docx"
# With the entry disabled the arm64 interpreter cannot start: the smoke
# above was the arm64 interpreter's work, not some host python's.  Only
# when no other entry runs aarch64 programs (a host's systemd-binfmt may
# have registered qemu-aarch64 for good; that one is not ours to touch).
others=$(binfmt_aarch64_others)
if [ -z "$others" ]; then
  echo 0 >"$binfmt/$binfmt_entry"
  "$host_pyrt" smoke "${common[@]}" --out "$work/smoke2.docx" </dev/null >"$work/out" 2>"$work/err"
  rc=$?
  echo 1 >"$binfmt/$binfmt_entry"
  check "without the binfmt entry the same smoke fails (the interpreter is arm64)" \
    eval '! rc_is 0 && [ ! -s "$work/smoke2.docx" ]'
else
  echo "# not checked: smoke without our entry (also registered for aarch64: $others)"
fi

run verify "${common[@]}"
check "verify passes" eval 'rc_is 0 && has "match" out'

first=$(readlink -f "$current")
sed 's/^  build: .*/  build: "fixture2"/' "$fx/pins.yaml" >"$work/pins2.yaml"
run install --yes --no-baseline --box-root "$box" --pins "$work/pins2.yaml" --cacert "$fx/ca.pem" --mirror "$mirror"
check "a second build installs" eval 'rc_is 0 && [ "$(readlink -f "$current")" != "$first" ]'
run rollback --box-root "$box"
check "rollback exits 0 and returns to the first install" \
  eval 'rc_is 0 && has "rolled back" out && [ "$(readlink -f "$current")" = "$first" ]'

run uninstall --yes --box-root "$box"
check "uninstall --yes exits 0 and removes current" eval 'rc_is 0 && [ ! -e "$current" ] && [ ! -L "$current" ]'
run status "${common[@]}"
check "status after uninstall is not_provisioned (exit 1)" eval 'rc_is 1 && grep -q "^not_provisioned: " "$work/out"'

echo "# under emulation: ${SECONDS}s"
e2e_finish
