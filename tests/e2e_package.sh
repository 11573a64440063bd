#!/usr/bin/env bash
# ctest e2e_package (label "package"): the .deb on a clean Debian 12.
# scripts/deb.sh builds pyrt_<version>_<arch>.deb (lintian: no errors); a
# minimal bookworm root made by debootstrap from the Debian archive gets it
# with `apt-get install ./pyrt_*.deb` (so Depends must pull in every
# library), and in that root (chroot, /proc mounted by this test):
# pyrt --version, man -w pyrt, the completions, the user units (their
# ExecStart= is /usr/bin/pyrt; systemd-analyze verify), the themes found in
# /usr/share/pyrt/themes (there is no source tree in the root), and a full
# `pyrt install --yes --from-file ... --wheelhouse ...` of the test fixture
# ends ready; then `apt-get remove pyrt` leaves no file of the package (as
# `dpkg -L` listed it before).
#
# Needs root and deb.deb.debian.org (PYRT_DEBIAN_MIRROR to use another).
# Cached in <build>/package so a rerun is fast: the debootstrap tarball,
# the installed root as a tar, and the .debs apt fetched.  Everything this
# test mounts it unmounts on exit, by path, before the work folder is
# removed.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup package fixtures
. "$(dirname "$0")/lib/tui.sh"
. "$(dirname "$0")/lib/mounts.sh"
[ "$(id -u)" -eq 0 ] || { echo "FAIL - the package test needs root (debootstrap, chroot, mount)"; exit 1; }
for t in debootstrap chroot dpkg-deb lintian cpack scdoc; do
  command -v "$t" >/dev/null || { echo "FAIL - $t is not installed (bash scripts/deps.sh)"; exit 1; }
done

suite=bookworm
debian=${PYRT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=$bin/package
mkdir -p "$cache/apt-archives"
root=$work/root
mkroot=$cache/mkroot

# Unmount, by path and deepest first, whatever is mounted under the roots
# (our /proc, and anything a failed debootstrap left); only then remove the
# work folder.  A mount that will not go keeps the folder and fails the run.
package_cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null
  if unmount_under "$root" "$mkroot"; then
    e2e_cleanup
  else
    echo "FAIL - still mounted under $root or $mkroot; not removing $work"
    exit 1
  fi
}
trap package_cleanup EXIT

# --- the package --------------------------------------------------------------
ver=$(sed -n 's/^project(pyrt VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
arch=$(dpkg --print-architecture)
deb=$(bash "$src/scripts/deb.sh" "$bin/deb" 2>"$work/deb.err" | tail -1)
check "scripts/deb.sh builds pyrt_${ver}_${arch}.deb" \
  eval '[ "$(basename "$deb")" = "pyrt_${ver}_${arch}.deb" ] && [ -f "$deb" ] || { cat "$work/deb.err" >&2; false; }'
[ -f "$deb" ] || { e2e_finish; exit 1; }
lintian "$deb" >"$work/lintian" 2>&1
sed 's/^/# lintian: /' "$work/lintian"
check "lintian reports no errors" eval '! grep -q "^E:" "$work/lintian"'
# (Output goes to a file before grep: with pipefail, a grep -q that stops
# reading early can turn a negated check into a pass.)
dpkg-deb -f "$deb" Depends >"$work/depends"
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/pyrt/copyright >"$work/copyright"
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/pyrt/api.yaml >"$work/api.yaml" 2>/dev/null
check "the package ships the API contract (/usr/share/doc/pyrt/api.yaml)" \
  cmp "$src/docs/api.yaml" "$work/api.yaml"
check "Depends are computed from the shared libraries" \
  eval 'grep -q "libjansson4 (>=" "$work/depends"'
# libcurl, libarchive, libcrypto (libssl3), libmicrohttpd, libncursesw, libyaml and zlib are dlopen()ed
# (core/util/lazylib.h): shlibdeps cannot see them, cmake/package.cmake names them.
check "Depends name the libraries pyrt dlopen()s" \
  eval 'grep -q "libcurl4" "$work/depends" && grep -q "libarchive13" "$work/depends" && grep -q "libmicrohttpd12" "$work/depends" && grep -q "libssl3 (>= 3.0.0)" "$work/depends" && grep -q "libncursesw6 (>= 6)" "$work/depends" && grep -q "libyaml-0-2" "$work/depends" && grep -q "zlib1g" "$work/depends"'
check "the packaged binary names no build path" \
  eval '[ "$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/pyrt | grep -c -a "$src")" -eq 0 ]'
check "the copyright file is machine-readable (DEP-5)" \
  eval '[ "$(head -1 "$work/copyright")" = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" ]'

# --- a clean Debian 12 root ------------------------------------------------
# The base debs once (--make-tarball), the root installed from them once
# (--unpack-tarball), kept as root.tar; each run unpacks a fresh copy.
tarball=$cache/$suite-minbase.tgz
if [ ! -f "$cache/root.tar" ]; then
  dbs=(--variant=minbase --include=man-db)
  rm -rf "$mkroot"
  if [ ! -f "$tarball" ]; then
    debootstrap "${dbs[@]}" --make-tarball="$tarball.tmp" "$suite" "$mkroot" "$debian" \
      >"$work/debootstrap.log" 2>&1 && mv "$tarball.tmp" "$tarball"
    rm -rf "$mkroot"
  fi
  debootstrap "${dbs[@]}" --unpack-tarball="$tarball" "$suite" "$mkroot" "$debian" \
    >>"$work/debootstrap.log" 2>&1
  st=$?
  unmount_under "$mkroot"
  [ $st -eq 0 ] && tar -C "$mkroot" -cf "$cache/root.tar.tmp" . && mv "$cache/root.tar.tmp" "$cache/root.tar"
  rm -rf "$mkroot"
  check "debootstrap makes a Debian 12 root" [ -f "$cache/root.tar" ]
  [ -f "$cache/root.tar" ] || { tail -20 "$work/debootstrap.log" | sed 's/^/# /'; e2e_finish; exit 1; }
fi
mkdir "$root" && tar -C "$root" -xf "$cache/root.tar"
check "the root is Debian 12" grep -q '^12\.' "$root/etc/debian_version"
check "the root has no pyrt and no libcurl yet" \
  eval '[ ! -e "$root/usr/bin/pyrt" ] && ! ls "$root"/usr/lib/*/libcurl.so.4 2>/dev/null'
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
check "/proc is mounted in the root" mountpoint -q "$root/proc"
in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"
}

# --- apt-get install ./pyrt_*.deb -------------------------------------------
cp "$cache"/apt-archives/*.deb "$root/var/cache/apt/archives/" 2>/dev/null
cp "$deb" "$root/tmp/"
check "apt-get update in the root" in_root apt-get update -qq
check "apt-get install ./$(basename "$deb") pulls in its Depends" \
  eval 'in_root sh -c "cd /tmp && apt-get install -y -qq ./$(basename "$deb")" >"$work/apt.log" 2>&1 || { tail -20 "$work/apt.log" >&2; false; }'
cp "$root"/var/cache/apt/archives/*.deb "$cache/apt-archives/" 2>/dev/null
in_root dpkg -L pyrt >"$work/dpkg-L"
check "dpkg -L pyrt lists the binary and the man page" \
  eval 'grep -qx /usr/bin/pyrt "$work/dpkg-L" && grep -qx /usr/share/man/man1/pyrt.1.gz "$work/dpkg-L"'
check "pyrt --version runs in the root" eval 'in_root pyrt --version >"$work/version" && grep -q "^pyrt $ver " "$work/version"'
in_root ldd /usr/bin/pyrt >"$work/ldd-pyrt" 2>&1
check "pyrt links against no missing library" \
  eval 'grep -q "libc.so.6 => /" "$work/ldd-pyrt" && ! grep "not found" "$work/ldd-pyrt" >&2'
check "the dlopen()ed libraries are in the root" \
  eval 'ls "$root"/usr/lib/*/libcurl.so.4 "$root"/usr/lib/*/libarchive.so.13 "$root"/usr/lib/*/libmicrohttpd.so.12 "$root"/usr/lib/*/libcrypto.so.3 "$root"/usr/lib/*/libncursesw.so.6 >/dev/null'
check "man -w pyrt finds the page" eval '[ "$(in_root man -w pyrt)" = /usr/share/man/man1/pyrt.1.gz ]'
in_root man -P cat pyrt >"$work/man.txt" 2>/dev/null
check "man pyrt renders" grep -q "EXIT STATUS" "$work/man.txt"
check "the bash completion is installed and binds pyrt" \
  eval '[ "$(in_root bash -c ". /usr/share/bash-completion/completions/pyrt && complete -p pyrt")" = "complete -F _pyrt pyrt" ]'
check "the zsh completion is installed" [ -f "$root/usr/share/zsh/vendor-completions/_pyrt" ]
check "the changelog and copyright are in /usr/share/doc/pyrt" \
  eval 'in_root zcat /usr/share/doc/pyrt/changelog.gz >"$work/changelog" && grep -q "^pyrt ($ver)" "$work/changelog" && [ -f "$root/usr/share/doc/pyrt/copyright" ]'

# The user units: generated with the package's bindir, and systemd itself
# (installed in the root for this, with its man-db check of Documentation=)
# finds nothing wrong in them: every ExecStart= binary exists, every
# directive is known.
# The TCP units are templates (the instance is the port, issue 26 door 6):
# installed as pyrt-serve-tcp@.*, verified as one instance of them.
units="pyrt-serve.socket pyrt-serve.service pyrt-serve-tcp@.socket pyrt-serve-tcp@.service"
instances="pyrt-serve.socket pyrt-serve.service pyrt-serve-tcp@18765.socket pyrt-serve-tcp@18765.service"
check "the units are in /usr/lib/systemd/user" \
  eval 'r=0; for u in $units; do grep -qx "/usr/lib/systemd/user/$u" "$work/dpkg-L" || r=1; done; [ $r -eq 0 ]'
check "the services start /usr/bin/pyrt, the packaged binary" \
  eval 'grep -qx "ExecStart=/usr/bin/pyrt serve" "$root/usr/lib/systemd/user/pyrt-serve.service" && grep -qx "ExecStart=/usr/bin/pyrt serve" "$root/usr/lib/systemd/user/pyrt-serve-tcp@.service"'
check "systemd is installed in the root (for systemd-analyze)" \
  eval 'in_root apt-get install -y -qq systemd >"$work/apt-systemd.log" 2>&1 || { tail "$work/apt-systemd.log" >&2; false; }'
cp "$root"/var/cache/apt/archives/*.deb "$cache/apt-archives/" 2>/dev/null
mkdir -p -m 0700 "$root/tmp/xdg"
# shellcheck disable=SC2086  # the list of unit names
check "systemd-analyze verify --user finds nothing wrong in the installed units" \
  eval 'in_root env XDG_RUNTIME_DIR=/tmp/xdg sh -c "cd /usr/lib/systemd/user && systemd-analyze verify --user $instances" >"$work/verify.log" 2>&1 || { cat "$work/verify.log" >&2; false; }'
sed 's/^/# systemd-analyze: /' "$work/verify.log"
# (An unknown directive is only a warning to verify: looked for by name.)
check "systemd-analyze warns of no unknown or invalid directive" \
  eval '! grep -Ei "unknown (key|section|lvalue)|invalid|failed to parse|ignoring" "$work/verify.log" >&2'

# Themes: the root has no source tree, so a theme found is the package's.
theme_notice() { # name: the consent screen's theme notice in $work/notice.NAME;
  # fails when the consent screen never shows
  start "t$1" -- "$root" /usr/bin/env -i HOME=/root TERM=screen LANG=C.UTF-8 \
    /usr/bin/pyrt --box-root "/tmp/tbox-$1" --theme "$1"
  wait_for "t$1" 20 'What will happen' || return 1
  grep -E 'default theme' "$work/screen" >"$work/notice.$1"
  T kill-session -t "t$1"
}
pyrt_host=$pyrt
pyrt=chroot size=200x30
check "a theme that does not exist is reported (the check can fail)" \
  eval 'theme_notice nosuch && grep -q "theme .nosuch. not found" "$work/notice.nosuch"'
check "--theme solarized-dark is found in /usr/share/pyrt/themes" \
  eval 'theme_notice solarized-dark && [ ! -s "$work/notice.solarized-dark" ]'
pyrt=$pyrt_host

# --- a full install of the fixture in the root --------------------------------
# The fixture runtime is the host's Debian python3.11 relaid (a real
# python-build-standalone archive carries its libraries): the root gets the
# Debian packages that hold the libraries it loads on the host, the same
# bookworm versions.
# (dpkg knows a file by the path its package shipped: /lib or /usr/lib.)
fxlibs=$(ldd /usr/bin/python3.11 /usr/lib/python3.11/lib-dynload/*.so 2>/dev/null |
  awk '/=> \//{print $3}' | sort -u | xargs -r realpath | while read -r f; do
    dpkg -S "$f" 2>/dev/null || dpkg -S "${f#/usr}" 2>/dev/null
  done | cut -d: -f1 | sort -u | tr '\n' ' ')
echo "# the fixture interpreter's libraries come from: $fxlibs"
# shellcheck disable=SC2086  # a list of package names
check "the root gets the fixture interpreter's libraries" \
  eval 'in_root apt-get install -y -qq $fxlibs >"$work/apt-fx.log" 2>&1 || { tail "$work/apt-fx.log" >&2; false; }'
cp "$root"/var/cache/apt/archives/*.deb "$cache/apt-archives/" 2>/dev/null
mkdir -p "$root/srv/fx"
cp "$fx/runtime.tar.gz" "$fx/pins.yaml" "$root/srv/fx/"
cp -r "$fx/wheelhouse" "$root/srv/fx/"
in_root pyrt install --yes --box-root /srv/box --pins /srv/fx/pins.yaml \
  --from-file /srv/fx/runtime.tar.gz --wheelhouse /srv/fx/wheelhouse </dev/null \
  >"$work/install.out" 2>"$work/install.err"
rc=$?
check "pyrt install --yes --from-file --wheelhouse exits 0 in the root" \
  eval '[ $rc -eq 0 ] || { tail -15 "$work/install.err" >&2; false; }'
check "the installed interpreter finds every library it links in the root" \
  eval 'in_root sh -c "ldd /srv/box/runtime/python/current/bin/python3 /srv/box/runtime/python/current/lib/python3*/lib-dynload/*.so" >"$work/ldd" 2>&1 && ! grep -E "not found|No such file" "$work/ldd" >&2'
in_root pyrt status --json --box-root /srv/box --pins /srv/fx/pins.yaml >"$work/status.json"
check "pyrt status says ready, baseline complete" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert s["state"] == "ready", s
assert s["baseline"]["state"] == "complete", s["baseline"]' "$work/status.json"

# --- apt-get remove leaves nothing of the package ------------------------------
check "apt-get remove pyrt" eval 'in_root apt-get remove -y -qq pyrt >"$work/remove.log" 2>&1'
# A file or link of the list must be gone; a directory too, unless another
# package still owns it (/usr, /usr/share, ...).
left=$(while read -r f; do
  if [ -L "$root$f" ] || [ -f "$root$f" ]; then
    echo "$f"
  elif [ -d "$root$f" ] && ! in_root dpkg-query -S "$f" >/dev/null 2>&1; then
    echo "$f/"
  fi
done <"$work/dpkg-L")
check "no file of the package is left (dpkg -L before removal)" \
  eval '[ -z "$left" ] || { echo "# left: $left" >&2; false; }'
in_root dpkg -s pyrt >"$work/dpkg-s" 2>&1
check "dpkg knows pyrt as removed" eval '! grep -q "Status: install ok installed" "$work/dpkg-s"'
check "the box the install made is the user's, left in place" [ -x "$root/srv/box/runtime/python/current/bin/python3" ]

umount "$root/proc"
check "/proc is unmounted again" eval '! mountpoint -q "$root/proc"'
e2e_finish
