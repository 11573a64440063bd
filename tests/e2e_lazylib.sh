#!/usr/bin/env bash
# ctest: e2e_lazylib
# End to end: libcurl, libarchive, zlib and libmicrohttpd are loaded only by the commands that
# download or extract (core/util/lazylib.h), libcrypto only by those that hash,
# libyaml only by those that read a YAML file (the built-in pins are parsed
# when pyrt is built).
# status, status --json, plugins, --help and --version on a ready box never
# map them (the dynamic loader's own account, LD_DEBUG=files; status once
# the box remembers its digests, core/dist/digest_memo.h); an install does.  A library that cannot be
# loaded is a refusal naming it and its Debian package (exit 8), never a
# crash: PYRT_TEST_LIBCURL / PYRT_TEST_LIBARCHIVE (test builds only, like
# the crash points) name a library that does not exist.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup lazylib fixtures

box=$work/box
common=(--box-root "$box" --pins "$fx/pins.yaml")
# loaded LIB ARGS...: did pyrt ARGS map a shared object named LIB*?
loaded() {
  local lib=$1; shift
  # grep -c reads all: -q would stop early and fail the pipe (pipefail).
  [ "$(LD_DEBUG=files "$pyrt" "$@" </dev/null 2>&1 >/dev/null | grep -c "file=$lib")" -gt 0 ]
}

"$pyrt" install "${common[@]}" --yes --no-baseline --from-file "$fx/runtime.tar.gz" \
  >"$work/out" 2>&1
check "the fixture runtime installs" [ $? -eq 0 ]
cp -R "$src/tests/fixtures/sample-box/plugins" "$box/"
# A status once the install's files are 2 s old remembers their digests.
sleep 3
"$pyrt" status "${common[@]}" </dev/null >/dev/null 2>&1

check "LD_DEBUG=files shows what is mapped (libc)" loaded libc.so status "${common[@]}"
for args in "status" "status --json" "plugins --json" "--help" "--version" "--version --json"; do
  # shellcheck disable=SC2086  # args are words
  check "pyrt $args maps no libcurl" eval '! loaded libcurl $args "${common[@]}"'
  # shellcheck disable=SC2086
  check "pyrt $args maps no libarchive" eval '! loaded libarchive $args "${common[@]}"'
  # shellcheck disable=SC2086
  check "pyrt $args maps no libmicrohttpd (nor its GnuTLS)" eval '! loaded libmicrohttpd $args "${common[@]}" && ! loaded libgnutls $args "${common[@]}"'
  # shellcheck disable=SC2086
  check "pyrt $args maps no libcrypto" eval '! loaded libcrypto $args "${common[@]}"'
  # shellcheck disable=SC2086
  check "pyrt $args maps no libncursesw (nor libtinfo)" eval '! loaded libncursesw $args "${common[@]}" && ! loaded libtinfo $args "${common[@]}"'
  # shellcheck disable=SC2086
  check "pyrt $args maps no zlib" eval '! loaded libz.so $args "${common[@]}"'
done
# With the built-in pins (parsed when pyrt was built) nothing reads YAML.
for args in "status" "status --json" "--help" "--version"; do
  # shellcheck disable=SC2086
  check "pyrt $args, built-in pins: maps no libyaml" eval '! loaded libyaml $args --box-root "$box"'
done
rm -f "$box/runtime/python/cache/plugin-manifests.json" "$box/runtime/python/cache/plugins-scan"
check "pyrt plugins, nothing remembered, maps libyaml (it parses plugin.yaml)" loaded libyaml plugins --box-root "$box"
check "... and once they are remembered, does not" eval '! loaded libyaml plugins --box-root "$box"'
check "pyrt status --pins FILE maps libyaml (it reads the file)" loaded libyaml status "${common[@]}"
check "an install maps zlib (it inflates)" loaded libz.so \
  install --box-root "$work/box2z" --pins "$fx/pins.yaml" --yes --no-baseline \
  --from-file "$fx/runtime.tar.gz"
check "pyrt verify maps libcrypto (it hashes every file)" loaded libcrypto verify "${common[@]}"
check "an install maps libarchive (it extracts)" loaded libarchive \
  install --box-root "$work/box2" --pins "$fx/pins.yaml" --yes --no-baseline \
  --from-file "$fx/runtime.tar.gz"
run --version
check "--version still names both libraries" eval 'has "libcurl:" out && has "libarchive:" out'

# A library that cannot be loaded: the refusal names it and the package.
PYRT_TEST_LIBARCHIVE=libpyrt-absent.so.13 "$pyrt" install --box-root "$work/box3" \
  --pins "$fx/pins.yaml" --yes --no-baseline --from-file "$fx/runtime.tar.gz" \
  </dev/null >"$work/out" 2>"$work/err"
rc=$?
if grep -q "libpyrt-absent" "$work/err" || [ "$rc" -ne 0 ]; then
  check "missing libarchive: exit 8 (unsupported)" rc_is 8
  check "missing libarchive: names libarchive.so.13 and the package" \
    eval 'has "libarchive.so.13 could not be loaded" err && has "apt-get install libarchive13" err'
  check "missing libarchive: nothing was activated" [ ! -e "$work/box3/runtime/python/current" ]
  PYRT_TEST_LIBCURL=libpyrt-absent.so.4 "$pyrt" install --box-root "$work/box4" \
    --pins "$fx/pins.yaml" --yes --no-baseline --mirror https://127.0.0.1:9/pbs \
    </dev/null >"$work/out" 2>"$work/err"
  rc=$?
  check "missing libcurl: exit 8 (unsupported)" rc_is 8
  check "missing libcurl: names libcurl.so.4 and the package" \
    eval 'has "libcurl.so.4 could not be loaded" err && has "apt-get install libcurl4" err'
  check "missing libcurl: status still answers" eval \
    'PYRT_TEST_LIBCURL=libpyrt-absent.so.4 "$pyrt" status "${common[@]}" >/dev/null'
  PYRT_TEST_LIBMHD=libpyrt-absent.so.12 "$pyrt" serve "${common[@]}" \
    --listen 127.0.0.1:0 </dev/null >"$work/out" 2>"$work/err"
  rc=$?
  check "missing libmicrohttpd: serve exits 8" rc_is 8
  check "missing libmicrohttpd: names libmicrohttpd.so.12 and the package" \
    eval 'has "libmicrohttpd.so.12 could not be loaded" err && has "apt-get install libmicrohttpd12" err'
  PYRT_TEST_LIBCRYPTO=libpyrt-absent.so.3 "$pyrt" install --box-root "$work/box5" \
    --pins "$fx/pins.yaml" --yes --no-baseline --from-file "$fx/runtime.tar.gz" \
    </dev/null >"$work/out" 2>"$work/err"
  rc=$?
  check "missing libcrypto: exit 8 (unsupported)" rc_is 8
  check "missing libcrypto: names libcrypto.so.3 and the package" \
    eval 'has "libcrypto.so.3 could not be loaded" err && has "apt-get install libssl3" err'
  check "missing libcrypto: nothing was activated" [ ! -e "$work/box5/runtime/python/current" ]
  check "missing libcrypto: status of a remembered box still answers" eval \
    'PYRT_TEST_LIBCRYPTO=libpyrt-absent.so.3 "$pyrt" status "${common[@]}" >/dev/null'
  rm -f "$box/runtime/python/cache/digests"
  PYRT_TEST_LIBCRYPTO=libpyrt-absent.so.3 "$pyrt" status "${common[@]}" \
    </dev/null >"$work/out" 2>"$work/err"
  rc=$?
  check "missing libcrypto, nothing remembered: status exits 8 naming it (not \"broken\")" \
    eval 'rc_is 8 && has "libcrypto.so.3 could not be loaded" err && ! has broken out'
  PYRT_TEST_LIBCRYPTO=libpyrt-absent.so.3 "$pyrt" verify "${common[@]}" \
    </dev/null >"$work/out" 2>"$work/err"
  rc=$?
  check "missing libcrypto: verify exits 8 naming it" eval 'rc_is 8 && has "libcrypto.so.3 could not be loaded" err'
  PYRT_TEST_LIBZ=libpyrt-absent.so.1 "$pyrt" install --box-root "$work/box6" \
    --pins "$fx/pins.yaml" --yes --no-baseline --from-file "$fx/runtime.tar.gz" \
    </dev/null >"$work/out" 2>"$work/err"
  rc=$?
  check "missing zlib: exit 8 (unsupported)" rc_is 8
  check "missing zlib: names libz.so.1 and the package" \
    eval 'has "libz.so.1 could not be loaded" err && has "apt-get install zlib1g" err'
  check "missing zlib: nothing was activated" [ ! -e "$work/box6/runtime/python/current" ]
  PYRT_TEST_LIBYAML=libpyrt-absent.so.2 "$pyrt" status "${common[@]}" \
    </dev/null >"$work/out" 2>"$work/err"
  rc=$?
  check "missing libyaml, --pins FILE: exit 8 naming libyaml-0.so.2 and the package (not 11, the file is fine)" \
    eval 'rc_is 8 && has "libyaml-0.so.2 could not be loaded" err && has "apt-get install libyaml-0-2" err'
  check "missing libyaml: status with the built-in pins still answers" eval \
    'PYRT_TEST_LIBYAML=libpyrt-absent.so.2 "$pyrt" status --box-root "$box" >/dev/null'
  check "missing libyaml: plugins with the manifests remembered still answers" eval \
    'PYRT_TEST_LIBYAML=libpyrt-absent.so.2 "$pyrt" plugins --box-root "$box" >"$work/out" 2>&1; ! has "libyaml" out && has "careercoach" out'
  rm -f "$box/runtime/python/cache/plugin-manifests.json" "$box/runtime/python/cache/plugins-scan"
  PYRT_TEST_LIBYAML=libpyrt-absent.so.2 "$pyrt" plugins --box-root "$box" \
    </dev/null >"$work/out" 2>"$work/err"
  check "missing libyaml, nothing remembered: plugins names it on the plugins' rows" \
    eval 'has "libyaml-0.so.2 could not be loaded" out || has "libyaml-0.so.2 could not be loaded" err'
  # `pyrt` on a terminal without libncursesw: the status lines instead of
  # the dashboard, and one line saying why (script(1) gives it a pty).
  TERM=xterm PYRT_TEST_LIBNCURSES=libpyrt-absent.so.6 script -qec \
    "$(printf '%q ' "$pyrt" "${common[@]}")" /dev/null </dev/null >"$work/out" 2>&1
  rc=$?
  check "missing libncursesw: pyrt on a terminal falls back to the status lines" \
    eval 'has "^ready: " out || has "ready: managed" out'
  check "... saying why, naming libncursesw.so.6 and the package" \
    eval 'has "no terminal UI: libncursesw.so.6 could not be loaded" out && has "apt-get install libncursesw6" out'
else
  echo "# skipped the missing-library cases: built without -DPYRT_TEST_HOOKS=ON"
fi

e2e_finish
