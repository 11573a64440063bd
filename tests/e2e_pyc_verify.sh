#!/usr/bin/env bash
# ctest: e2e_pyc_verify
# pyrt verify checks the bytecode caches the archive shipped (issue 26,
# door 5): each is the cache shipped (its digest in the manifest), or a
# timestamp cache that records its source's mtime and size (CPython runs
# one only then, and rewrites a stale one).  An unchecked-hash cache, or a
# timestamp cache compiled from other code, put in place of a shipped one
# fails verify (exit 1) naming it with the fix; caches CPython rewrote
# pass.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup pyc_verify fixtures
bash "$src/tests/fixtures/make-pyc-runtime.sh" "$fx" "$work" ||
  { echo "FAIL - pyc fixture"; exit 1; }
box=$work/box
stage=$work/pyc-stage/python
opts=(--box-root "$box" --pins "$work/pins-pyc.yaml")
run install --yes "${opts[@]}" --from-file "$work/runtime-pyc.tar.gz" --no-baseline
check "setup: an archive shipping caches installs (exit 0)" rc_is 0
cur=$box/runtime/python/current
lib=$(cd "$stage/lib" && echo python3.*)
tag=${lib#python}; tag=${tag/./}
ssl_cache=lib/$lib/__pycache__/ssl.cpython-$tag.pyc
str_cache=lib/$lib/__pycache__/string.cpython-$tag.pyc
check "setup: the archive shipped ssl's cache" [ -f "$cur/$ssl_cache" ]
"$cur/bin/python3" -I -c 'import string' || true
check "setup: CPython rewrote string's stale cache" \
  eval '! cmp -s "$stage/$str_cache" "$cur/$str_cache"'
run verify "${opts[@]}"
check "verify passes: shipped caches and caches CPython rewrote (exit 0)" rc_is 0

# An unchecked-hash cache in place of ssl's.
printf 'X = 1\n' >"$work/payload.py"
"$cur/bin/python3" -I -c '
import py_compile, sys
py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True,
                   invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)' \
  "$work/payload.py" "$cur/$ssl_cache"
run verify "${opts[@]}"
check "an unchecked-hash cache for ssl fails verify (exit 1)" rc_is 1
check "naming it as a hash-based cache that changed" \
  has "ssl.cpython-$tag.pyc.*a hash-based bytecode cache that changed" out
cp -p "$stage/$ssl_cache" "$cur/$ssl_cache"
run verify "${opts[@]}"
check "the shipped cache put back: verify passes again" rc_is 0

# A timestamp cache compiled from other code: its header records another
# source's mtime and size.  CPython would not run it (it rebuilds it from
# ssl.py), but it is neither the shipped cache nor one CPython wrote from
# the source: verify names it, with the fix.
"$cur/bin/python3" -I -c '
import py_compile, sys
py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' \
  "$work/payload.py" "$cur/$ssl_cache"
run verify "${opts[@]}"
check "a timestamp cache that does not fit its source fails verify (exit 1)" rc_is 1
check "naming it, what is wrong and the fix" \
  has "ssl.cpython-$tag.pyc.*a timestamp bytecode cache that changed and does not record its source's mtime and size.*remove it (CPython rebuilds it)" out
check "CPython does not run it: ssl imports as ssl (and rewrites the cache)" \
  "$cur/bin/python3" -I -c 'import ssl; assert hasattr(ssl, "SSLContext")'
run verify "${opts[@]}"
check "the cache CPython rewrote from ssl.py passes verify (exit 0)" rc_is 0

# Removing a cache, as the fix says, is no fault either.
rm -f "$cur/$ssl_cache"
run verify "${opts[@]}"
check "a shipped cache removed passes verify (exit 0)" rc_is 0
e2e_finish
