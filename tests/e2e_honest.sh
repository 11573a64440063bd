#!/usr/bin/env bash
# ctest: e2e_honest
# End to end, issue 10 (honest diagnosis on real runtimes): bytecode caches
# the archive shipped and CPython rewrites are not damage, while a changed
# .py, a missing file and a changed binary still are (doctor and verify);
# the baseline check and the interpreter check look at what is installed;
# rollback refuses a broken target.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup honest fixtures
pins=$fx/pins.yaml

json()  { python3 -c "import json, sys; d = json.load(open('$work/out')); sys.exit(0 if ($1) else 1)"; }
verdict() { json "{c['id']: c['verdict'] for c in d['checks']}.get('$1') == '$2'"; }
# fix_of ID CMD: the check's fix is CMD with the run's options (app/fix.h:
# every fix repeats the box, pins and CA bundle, in that order).
fix_of() { json "{c['id']: c['fix'] for c in d['checks']}.get('$1') == '$2 ${opts[*]}'"; }

# --- 1. bytecode caches are not damage -------------------------------------------
bash "$src/tests/fixtures/make-pyc-runtime.sh" "$fx" "$work" ||
  { echo "FAIL - pyc fixture"; exit 1; }
box=$work/box-pyc
stage=$work/pyc-stage/python
opts=(--box-root "$box" --pins "$work/pins-pyc.yaml" --cacert "$fx/ca.pem")
run install --yes "${opts[@]}" --from-file "$work/runtime-pyc.tar.gz" --wheelhouse "$fx/wheelhouse"
check "an archive shipping stale caches installs with its baseline (rc $rc)" rc_is 0
cur=$box/runtime/python/current
lib=$(cd "$stage/lib" && echo python3.*)
tag=${lib#python}
cache=lib/$lib/__pycache__/string.cpython-${tag/./}.pyc
# -I: a PYTHONDONTWRITEBYTECODE in the caller's environment must not keep
# CPython from rewriting (pip no longer runs for this baseline to do it).
"$cur/bin/python3" -I -c 'import string, textwrap' || true
check "the shipped cache of string.py was rewritten by CPython" \
  eval '[ -f "$cur/$cache" ] && ! cmp -s "$stage/$cache" "$cur/$cache"'
run verify "${opts[@]}"
check "verify passes with rewritten caches (rc $rc: $(head -1 "$work/out"))" rc_is 0
check "verify says how caches are checked" has "bytecode caches: as shipped or made from their source" out
run doctor --json "${opts[@]}"
check "doctor's marker check passes with rewritten caches" verdict marker pass

# restore F: put the archive's copy back (content and mode).
restore() { cp -p "$stage/$1" "$cur/$1"; }
py_file=lib/$lib/string.py
printf '# changed\n' >>"$cur/$py_file"
run verify "${opts[@]}"
check "a changed stdlib .py fails verify, named" eval 'rc_is 1 && has "$py_file: size" out'
run verify -q "${opts[@]}"
check "verify -q: one line, the result naming the first difference and the fix" \
  eval 'rc_is 1 && [ "$(wc -l <"$work/out")" -eq 1 ] && has "^verify: 1 of .*; first: python/$py_file: size .*pyrt install --force" out && [ ! -s "$work/err" ]'
run doctor --json "${opts[@]}"
check "a changed stdlib .py fails doctor's marker check" eval 'verdict marker fail && fix_of marker "pyrt install --force"'
restore "$py_file"
rm "$cur/lib/$lib/textwrap.py"
run verify "${opts[@]}"
check "a missing file fails verify, named" eval 'rc_is 1 && has "textwrap.py: missing" out'
run doctor --json "${opts[@]}"
check "a missing file fails doctor's marker check" verdict marker fail
restore "lib/$lib/textwrap.py"
binary=$(cd "$cur" && ls bin/python3.* | head -1)
printf '\0' >>"$cur/$binary"
run verify "${opts[@]}"
check "a changed binary fails verify, named" eval 'rc_is 1 && has "$binary: size" out'
run doctor --json "${opts[@]}"
check "a changed binary fails doctor's marker check" verdict marker fail
restore "$binary"
run verify "${opts[@]}"
check "restored: verify passes again" rc_is 0

# --- 2. the baseline and interpreter checks look at what is installed ----------
box=$work/box-bl
opts=(--box-root "$box" --pins "$pins" --cacert "$fx/ca.pem")
run install --yes "${opts[@]}" --from-file "$fx/runtime.tar.gz" --wheelhouse "$fx/wheelhouse"
check "install with the baseline (rc $rc)" rc_is 0
cur=$box/runtime/python/current
site=$(cd "$cur/" && find . -type d -name python_docx-*.dist-info -printf '%h\n' | head -1)
site=$cur/${site#./}
check "python-docx is installed" [ -d "$site/docx" ]
run doctor --json "${opts[@]}"
check "doctor passes with the baseline installed (rc $rc)" eval 'rc_is 0 && verdict baseline pass && verdict interpreter pass'
check "the interpreter check imported ssl and the baseline" \
  json "'imports ssl and the installed baseline' in {c['id']: c['detail'] for c in d['checks']}['interpreter']"
# A baseline module that no longer imports fails the interpreter check.
cp -p "$site/docx/__init__.py" "$work/docx-init.py"
printf 'raise ImportError("planted by the test")\n' >>"$site/docx/__init__.py"
run doctor --json "${opts[@]}"
check "a baseline module that fails to import fails the interpreter check, named" \
  eval '! rc_is 0 && verdict interpreter fail && json "\"docx of python-docx (ImportError: planted by the test)\" in {c[\"id\"]: c[\"detail\"] for c in d[\"checks\"]}[\"interpreter\"]"'
cp -p "$work/docx-init.py" "$site/docx/__init__.py"
# ssl removed: the runtime starts but pip could not reach an index.
ssl_so=$(cd "$cur/" && ls lib/python3.*/lib-dynload/_ssl.*.so | head -1)
mv "$cur/$ssl_so" "$work/ssl.so"
run doctor "${opts[@]}"
check "without _ssl the interpreter check fails naming ssl (rc $rc)" \
  eval '! rc_is 0 && grep -A1 "Interpreter" "$work/out" | grep -q "cannot import: ssl (ModuleNotFoundError"'
mv "$work/ssl.so" "$cur/$ssl_so"
# python-docx deleted behind the marker's back.
rm -rf "$site/docx" "$site"/python_docx-*.dist-info
run doctor "${opts[@]}"
check "doctor fails (rc $rc)" eval '! rc_is 0 && rc_is 1'
check "the baseline check names python-docx" eval 'grep "Doc baseline" "$work/out" | grep -q "missing python-docx"'
check "with the fix pyrt baseline" eval 'grep -A1 "Doc baseline" "$work/out" | grep -qF "fix: pyrt baseline ${opts[*]}"'
run doctor --json "${opts[@]}"
check "doctor --json: baseline fail, fix pyrt baseline" eval 'verdict baseline fail && fix_of baseline "pyrt baseline"'
run baseline "${opts[@]}" --wheelhouse "$fx/wheelhouse"
check "pyrt baseline puts it back (rc $rc)" rc_is 0
run doctor --json "${opts[@]}"
check "and doctor passes again" eval 'rc_is 0 && verdict baseline pass'

# --- 3. rollback checks its target -------------------------------------------------
box=$work/box-rb
opts=(--box-root "$box" --pins "$pins")
rt=$box/runtime/python
run install --yes --no-baseline "${opts[@]}" --from-file "$fx/runtime.tar.gz"
check "first install" rc_is 0
sleep 1 # install ids carry a timestamp
run install --yes --no-baseline --force "${opts[@]}" --from-file "$fx/runtime.tar.gz"
check "second install keeps the first as the rollback target" eval 'rc_is 0 && [ -L "$rt/previous" ]'
cur_before=$(readlink "$rt/current") prev_before=$(readlink "$rt/previous")
target=$(readlink -f "$rt/previous")
rm "$target/bin/python3"
run rollback "${opts[@]}"
cat "$work/out" "$work/err" >"$work/all"
check "rollback to a broken install is refused (rc $rc)" eval '! rc_is 0 && rc_is 1'
check "the refusal names what is broken" eval 'has "rollback target" all && has "interpreter" all && has "bin/python3 is missing" all'
check "the refusal gives the fixes" eval 'has "pyrt install --force" all && has "pyrt rollback --force" all'
check "the refusal says the active runtime was not changed" has "not changed" all
check "current and previous are exactly as they were" \
  eval '[ "$(readlink "$rt/current")" = "$cur_before" ] && [ "$(readlink "$rt/previous")" = "$prev_before" ]'
run status "${opts[@]}"
check "status still ready after the refusal" rc_is 0
run rollback --json "${opts[@]}"
check "rollback --json: refused, result not ok" eval 'rc_is 1 && tail -1 "$work/out" | grep -q "\"ok\": *false"'
run rollback --force "${opts[@]}"
check "rollback --force insists (rc $rc)" rc_is 0
check "current now names the broken install" [ "$(readlink "$rt/current")" = "$prev_before" ]
run status "${opts[@]}"
check "and status says broken, naming the interpreter" eval 'rc_is 1 && has "interpreter" out'
run rollback "${opts[@]}"
check "rolling back to the sound install is allowed" eval 'rc_is 0 && [ "$(readlink "$rt/current")" = "$cur_before" ]'

e2e_finish
