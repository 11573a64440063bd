#!/usr/bin/env bash
# ctest: e2e_index_wheelcheck
# Wheels from an index carry only themselves too (issue 26, door 1, index
# mode).  With --index-url, pyrt has pip download the wheels into a private
# folder, inspects each one, and only then has pip install from that folder
# with --no-index.  A PEP 503 index on loopback serves the fixture wheels and
# hostile carriers built here: a wheel carrying another distribution's
# .dist-info under .data/platlib, a top-level foreign .egg-info, a
# __pycache__/ member, and a clean-looking wheel whose dependency is such a
# carrier.  Each is refused by name (exit 6, as from a wheelhouse), nothing
# of the runtime changes and the private folder is gone; a clean wheel from
# the same index still installs.  On main pip installs the carriers straight
# from the index (exit 0).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup index_wheelcheck fixtures

box=$work/box
common=(--box-root "$box" --pins "$fx/pins.yaml")
run install "${common[@]}" --from-file "$fx/runtime.tar.gz" --no-baseline --yes
check "setup: a runtime (exit 0)" rc_is 0
cur=$box/runtime/python/current
tmpd=$box/runtime/python/pip-home/tmp

# --- the index: the fixture wheels and the hostile ones -----------------------
idx=$work/index
e2e_simple_index "$idx"
extra=$work/extra
mkdir -p "$extra"
for kind in data-dist-info egg-info pycache clean; do
  python3 "$src/tests/helpers/hostile_wheel.py" "$extra" "$kind" >/dev/null
done
# innocent 1.0 looks clean and needs evilpyc, the __pycache__ carrier.
python3 "$src/tests/fixtures/tiny-wheel.py" "$extra" innocent:1.0:evilpyc >/dev/null
e2e_index_add "$idx" "$extra"/*.whl
e2e_serve_index "$idx"
from_index=(--index-url "http://127.0.0.1:$iport/simple/")

# installed NAME-GLOB: a folder or file so named anywhere in the runtime.
installed() { [ -n "$(find -L "$cur/" -iname "$1" -print -quit)" ]; }
# snapshot FILE: every path of the runtime with its size and mtime.
snapshot() { (cd "$cur/" && find -L . -printf '%p %s %T@\n' | LC_ALL=C sort) >"$1"; }
logs=$box/runtime/python/logs
last_log() { ls -t "$logs"/pip-*.log | head -1; }

# --- a clean wheel from the index installs, through the private folder ---------
# A folder a killed run left behind goes with the next run.
(umask 077; mkdir -p "$tmpd/wheels-Stale1")
: >"$tmpd/wheels-Stale1/left-1.0-py3-none-any.whl"
printf 'python-docx\nokwheel\n' >"$work/req-clean.txt"
run baseline "${common[@]}" "${from_index[@]}" --requirements "$work/req-clean.txt" --yes
check "clean wheels from the index install (exit 0)" rc_is 0
check "python-docx and okwheel are there" \
  eval 'installed "python_docx-0.8.11.dist-info" && installed "okwheel-1.0.dist-info"'
check "pip downloaded from the index into a private folder first" \
  grep -q -- " -m pip download .* -d $tmpd/wheels-[A-Za-z0-9]\{6\} .*-- python-docx okwheel$" "$(last_log)"
check "then installed from that folder alone (--no-index --find-links)" \
  grep -q -- " -m pip install .* --no-index --find-links $tmpd/wheels-[A-Za-z0-9]\{6\} -- python-docx okwheel$" "$(last_log)"
check "the private folder is gone afterwards, and the one a killed run left" \
  eval '[ -z "$(ls -A "$tmpd")" ]'

# --- each carrier is refused by name; nothing of the runtime changes -----------
snapshot "$work/before"
for case in data-dist-info:evilfd:'evilfd-1.0.data/platlib/python_docx-0.8.11.dist-info/' \
            egg-info:evilegg:'python_pptx.egg-info/PKG-INFO' \
            pycache:evilpyc:'docx/__pycache__/__init__.cpython-311.pyc' \
            dependency:innocent:'docx/__pycache__/__init__.cpython-311.pyc'; do
  kind=${case%%:*} rest=${case#*:}
  req=${rest%%:*} member=${rest#*:}
  whl=$([ "$kind" = dependency ] && echo evilpyc || echo "$req")-1.0-py3-none-any.whl
  printf '%s\n' "$req" >"$work/req.txt"
  run baseline "${common[@]}" "${from_index[@]}" --requirements "$work/req.txt" --yes
  check "$kind: the baseline from the index is refused (exit 6, rc $rc)" rc_is 6
  check "$kind: the refusal names the wheel and the member" \
    has "refusing the wheel $whl (from the index): its member $member" err
  check "$kind: and the fix for an index" has "remove it from the index" err
  check "$kind: pip never installed (its log has no pip install run)" \
    eval '! grep -q -- " -m pip install " "$(last_log)"'
  check "$kind: nothing of the carriers is in the runtime" \
    eval '! installed "evil*" && ! installed "innocent*" && ! installed "*pptx*"'
  snapshot "$work/after"
  check "$kind: the runtime is unchanged, file for file" cmp -s "$work/before" "$work/after"
  check "$kind: the private folder is gone" eval '[ -z "$(ls -A "$tmpd")" ]'
done

e2e_finish
