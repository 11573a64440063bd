#!/usr/bin/env bash
# The pins' layout.interpreter is the one place that says where the
# runtime's interpreter is (pyrt_box_interpreter): an archive that has
# python/bin/python3.11 and no python3, pinned with that layout, is
# installed, checked, given its baseline, smoke-tested and diagnosed
# through python3.11 everywhere.  Before, status said ready and doctor
# passed while baseline and smoke called the runtime broken (issue 27.2).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup layout fixtures

rt=$work/rt
mkdir -p "$rt"
tar -xzf "$fx/runtime.tar.gz" -C "$rt"
rm -f "$rt/python/bin/python3"
[ -x "$rt/python/bin/python3.11" ] || { echo "FAIL - the fixture has no python3.11"; exit 1; }
tar -czf "$work/rt311.tar.gz" -C "$rt" python
sha=$(sha256sum "$work/rt311.tar.gz" | cut -d' ' -f1)
size=$(stat -c %s "$work/rt311.tar.gz")
pins=$work/pins.yaml
{
  sed -e "s/^    sha256: .*/    sha256: $sha/" -e "s/^    size: .*/    size: $size/" \
    "$fx/pins.yaml"
  printf 'layout:\n  interpreter: python/bin/python3.11\n'
} >"$pins"
box=$work/box
common=(--box-root "$box" --pins "$pins")

run install "${common[@]}" --from-file "$work/rt311.tar.gz" --no-baseline --yes
check "install of the python3.11-only archive exits 0" rc_is 0
check "it has no bin/python3" eval '[ ! -e "$box/runtime/python/current/bin/python3" ]'
run status "${common[@]}"
check "status: ready" rc_is 0
run baseline "${common[@]}" --wheelhouse "$fx/wheelhouse"
check "baseline through python3.11 exits 0" rc_is 0
check "baseline does not call the runtime broken" eval '! has "broken" err'
run smoke "${common[@]}"
check "smoke through python3.11 exits 0" rc_is 0
check "smoke made its .docx" has "smoke test passed" out
run doctor "${common[@]}"
check "doctor does not call the interpreter missing" eval '! has "python/bin/python3 is missing" out'
run status "${common[@]}" --json
check "status --json: baseline complete" eval 'has "\"complete\"" out'

e2e_finish
