#!/usr/bin/env bash
# ctest: e2e_doctor_airgap
# doctor on an air-gapped box (issue 29.2): a box installed from a
# wheelhouse remembers it (declared.json), and doctor checks that folder
# (it exists, passes the gate, holds a wheel of each baseline requirement)
# instead of failing "✗ Package index reachable" against an index the box
# never reaches; `doctor --wheelhouse DIR` and PYRT_WHEELHOUSE are taken;
# a box installed with --index-url has that index tried, not pip's default.
# The network checks run (PYRT_DOCTOR_OFFLINE unset), on loopback only:
# PIP_INDEX_URL names a dead loopback port, so an index probe fails here
# instead of reaching PyPI.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup doctor_airgap fixtures
e2e_mirror
unset PYRT_DOCTOR_OFFLINE
export PIP_INDEX_URL=https://127.0.0.1:9/simple/

# json_check ID PY: assert over the doctor check ID in out as `c`.
json_check() {
  python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
c = [c for c in r["checks"] if c["id"] == sys.argv[2]]
c = c[0] if c else None
exec(sys.argv[3])' "$work/out" "$1" "$2"
}

wh=$work/wheels
cp -r "$fx/wheelhouse" "$wh"
chmod -R go-w "$wh"
box=$work/box
mkdir -p "$box"
o=(--box-root "$box" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem")
run install "${o[@]}" --from-file "$fx/runtime.tar.gz" --wheelhouse "$wh" --yes
check "setup: an install from a wheelhouse (rc $rc)" rc_is 0

# --- the box's declared wheelhouse, the network checks on ----------------------
PYRT_MIRROR_URL=$mirror run doctor "${o[@]}"
check "a wheelhouse box passes doctor (rc $rc)" rc_is 0
check "... with no index row (the box reaches no index)" eval '! has "Package index reachable" out'
check "... and its wheelhouse checked, named as the box's source" \
  has "✓ Wheelhouse usable *$wh (the box's declared source) holds a wheel for each" out
PYRT_MIRROR_URL=$mirror run doctor "${o[@]}" --json
check "--json: the check 'wheelhouse' passes, no net_index" json_check wheelhouse '
assert c and c["verdict"] == "pass", c
assert not [x for x in r["checks"] if x["id"] == "net_index"], r'
PYRT_DOCTOR_OFFLINE=1 run doctor "${o[@]}" --json
check "offline too (PYRT_DOCTOR_OFFLINE=1): the wheelhouse is checked on disk" json_check wheelhouse '
assert c and c["verdict"] == "pass", c'

# --- the archive host, needed only to install again: a warning ----------------
PYRT_MIRROR_URL=https://127.0.0.1:9/pbs run doctor "${o[@]}" --json
check "an unreachable archive host on a ready wheelhouse box warns (rc $rc)" json_check net_archive '
assert c and c["verdict"] == "warn" and "only to install the runtime again" in c["detail"], c
assert r["ok"], r'

# --- doctor --wheelhouse DIR and PYRT_WHEELHOUSE -------------------------------
run doctor "${o[@]}" --mirror "$mirror" --wheelhouse "$wh"
check "doctor --wheelhouse DIR is accepted (rc $rc, not a usage error)" \
  eval 'rc_is 0 && has "Wheelhouse usable *$wh (--wheelhouse)" out'
part=$work/part
mkdir -m 0755 "$part"
cp "$wh"/*.whl "$part/"
rm -f "$part"/python_docx-*.whl
run doctor "${o[@]}" --mirror "$mirror" --wheelhouse "$part"
check "a wheelhouse without the baseline's python-docx fails (rc $rc)" \
  eval 'rc_is 1 && has "✗ Wheelhouse usable *$part (--wheelhouse) lacks a wheel of python-docx" out'
check "... and the fix names the copy" has "fix: copy the wheels of python-docx into $part" out
PYRT_WHEELHOUSE=$part run doctor "${o[@]}" --mirror "$mirror"
check "PYRT_WHEELHOUSE is doctor's --wheelhouse (rc $rc)" \
  eval 'rc_is 1 && has "$part (PYRT_WHEELHOUSE) lacks a wheel of python-docx" out'

# --- the declared wheelhouse gone, or writable by others -----------------------
chmod o+w "$wh"
run doctor "${o[@]}" --mirror "$mirror"
check "a declared wheelhouse others can write fails the gate (rc $rc)" \
  eval 'rc_is 1 && has "✗ Wheelhouse usable" out && has "writable by" out'
chmod o-w "$wh"
mv "$wh" "$wh.gone"
run doctor "${o[@]}" --mirror "$mirror"
check "a declared wheelhouse that is gone fails, naming it (rc $rc)" \
  eval 'rc_is 1 && has "✗ Wheelhouse usable *$wh (the box.s declared source) does not exist" out'
mv "$wh.gone" "$wh"

# --- a box installed from an index: that index is tried ------------------------
idx=$work/index
e2e_simple_index "$idx"
e2e_serve_index "$idx"
ibox=$work/ibox
mkdir -p "$ibox"
io=(--box-root "$ibox" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem")
run install "${io[@]}" --from-file "$fx/runtime.tar.gz" --index-url "http://127.0.0.1:$iport/simple/" --yes
check "setup: an install from a loopback index (rc $rc)" rc_is 0
PYRT_MIRROR_URL=$mirror run doctor "${io[@]}"
check "an index box has its own index tried, not PIP_INDEX_URL's (rc $rc)" \
  eval 'rc_is 0 && has "✓ Package index reachable *127.0.0.1:$iport.*(the box.s declared source)" out'

e2e_finish
