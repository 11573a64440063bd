#!/usr/bin/env bash
# ctest: e2e_pyc_checked
# Bytecode caches are not trusted blind (issue 26, door 5).  An
# unchecked-hash .pyc (PEP 552, check_source=0) planted for ssl in the
# runtime ran as root in doctor's interpreter check: CPython does not look
# at the source of such a cache.  Every interpreter pyrt starts now runs
# with --check-hash-based-pycs always, so the cache is checked against
# ssl.py, found stale and not run.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup pyc_checked fixtures

box=$work/box
opts=(--box-root "$box" --pins "$fx/pins.yaml")
run install "${opts[@]}" --from-file "$fx/runtime.tar.gz" --no-baseline --yes
check "setup: a runtime (exit 0)" rc_is 0
cur=$box/runtime/python/current
py=$cur/bin/python3
lib=$cur/lib/python3.11
marker=$work/payload-ran
printf 'open(%s, "w").write("ran")\nfrom _ssl import *\n' "'$marker'" >"$work/payload.py"
mkdir -p "$lib/__pycache__"
"$py" -I -c '
import py_compile, sys
py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True,
                   invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)' \
  "$work/payload.py" "$lib/__pycache__/ssl.cpython-311.pyc"
check "setup: the planted cache runs for a plain interpreter (the attack is real)" \
  eval '"$py" -I -c "import ssl" 2>/dev/null; [ -f "$marker" ]'
rm -f "$marker"
run doctor "${opts[@]}"
check "doctor's interpreter check ran (it imports ssl)" has 'Interpreter version' out
check "the unchecked cache did not run in any interpreter doctor started" [ ! -f "$marker" ]
run status "${opts[@]}" --deep
check "nor in status --deep's" [ ! -f "$marker" ]
e2e_finish
