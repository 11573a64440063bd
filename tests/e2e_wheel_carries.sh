#!/usr/bin/env bash
# ctest: e2e_wheel_carries
# Wheels carry only themselves (issue 26, door 1).  pyrt reads every wheel's
# central directory itself before any installer sees it: a wheel carrying
# another distribution's .dist-info under .data/platlib (with a RECORD row
# that leaves the scheme folders), a top-level foreign .egg-info, or a
# __pycache__/ member is refused by name, and nothing of the baseline is
# installed; the same wheelhouse without it installs.  On main the first
# is handed to pip, which installs the foreign .dist-info.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup wheel_carries fixtures

box=$work/box
common=(--box-root "$box" --pins "$fx/pins.yaml")
run install "${common[@]}" --from-file "$fx/runtime.tar.gz" --no-baseline --yes
check "setup: a runtime (exit 0)" rc_is 0
cur=$box/runtime/python/current
site=$cur/local/lib/python3.11/dist-packages
check "setup: the runtime's site folder is there" [ -d "$site" ]
# installed NAME-GLOB: a folder or file so named anywhere in the runtime.
installed() { [ -n "$(find -L "$cur/" -iname "$1" -print -quit)" ]; }
printf 'python-docx\n' >"$work/req.txt"

for kind in data-dist-info egg-info pycache; do
  wh=$work/wh-$kind
  cp -a "$fx/wheelhouse" "$wh"
  whl=$(python3 "$src/tests/helpers/hostile_wheel.py" "$wh" "$kind")
  case $kind in
    data-dist-info) member='evilfd-1.0.data/platlib/python_docx-0.8.11.dist-info/' ;;
    egg-info) member='python_pptx.egg-info/PKG-INFO' ;;
    pycache) member='docx/__pycache__/__init__.cpython-311.pyc' ;;
  esac
  run baseline "${common[@]}" --wheelhouse "$wh" --requirements "$work/req.txt" --yes
  check "$kind: the baseline is refused (not 0)" eval '! rc_is 0'
  check "$kind: the refusal names the wheel and the member" \
    eval 'has "refusing the wheel $whl: its member $member" err'
  check "$kind: nothing was installed (no docx, no foreign .dist-info)" \
    eval '! installed "*docx*" && ! installed "evil*" && ! installed "*pptx*"'
done

# The control: the same wheelhouse with a clean extra wheel installs.
wh=$work/wh-clean
cp -a "$fx/wheelhouse" "$wh"
python3 "$src/tests/helpers/hostile_wheel.py" "$wh" clean >/dev/null
# In the "C" locale, where libarchive cannot convert the clean wheel's
# UTF-8 member name: the check reads it as UTF-8, not as unreadable.
LC_ALL=C LANG=C run baseline "${common[@]}" --wheelhouse "$wh" --requirements "$work/req.txt" --yes
check "a wheelhouse of wheels that carry only themselves installs (exit 0)" rc_is 0
check "a member name that is not ASCII is no unreadable table of contents" \
  eval '! has "table of contents cannot be read" err'
check "and python-docx is there" installed "python_docx-*.dist-info"

e2e_finish
