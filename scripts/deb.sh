#!/usr/bin/env bash
# Build the Debian package: a release build of its own (no test crash
# points, no source-tree theme path, Debian's hardening flags, prefix /usr)
# and `cpack -G DEB`.  Prints the path of pyrt_<version>_<arch>.deb.
#   bash scripts/deb.sh [BUILD_DIR]        (default build-deb)
#   bash scripts/deb.sh --arch arm64 [BUILD_DIR]   (default build-deb-arm64)
# --arch cross-builds for that Debian architecture (scripts/build-cross.sh;
# bash scripts/deps.sh --arch arm64 first) with dpkg-buildflags and
# dpkg-shlibdeps answering for it, so Depends name the arm64 libraries.
# Depends beyond the ones dpkg-shlibdeps computes (a library pyrt dlopens,
# say) go in cmake/package.cmake's PYRT_DEB_EXTRA_DEPENDS; this script sets
# it from the environment on every run, so a rerun never keeps an old one:
#   PYRT_DEB_EXTRA_DEPENDS="libcurl4 (>= 7.63.0)" bash scripts/deb.sh
set -euo pipefail
cd "$(dirname "$0")/.."
arch=""
if [ "${1:-}" = --arch ]; then
  arch=${2:?usage: deb.sh --arch ARCH [BUILD_DIR]}
  shift 2
  [ "$arch" != "$(dpkg --print-architecture)" ] || arch=""
fi
dir=${1:-build-deb${arch:+-$arch}}
jobs=$(nproc 2>/dev/null || echo 2)
# A cross package: dpkg-buildflags, and later dpkg-shlibdeps (run by cpack),
# answer for the host architecture dpkg-architecture exports.
[ -z "$arch" ] || eval "$(dpkg-architecture -a"$arch" -s 2>/dev/null)"
# dpkg-buildflags: -D_FORTIFY_SOURCE=2, -fstack-protector-strong, relro/now,
# the flags lintian's hardening checks look for.
# CMake reads no CPPFLAGS (where _FORTIFY_SOURCE is): they join CFLAGS.
eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)"
opts=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr
      -DPYRT_TEST_HOOKS=OFF -DPYRT_SOURCE_THEMES=OFF -DBUILD_TESTING=OFF
      -DPYRT_WERROR=ON "-DCMAKE_C_FLAGS=$CFLAGS $CPPFLAGS"
      "-DCMAKE_EXE_LINKER_FLAGS=$LDFLAGS"
      "-DPYRT_DEB_EXTRA_DEPENDS=${PYRT_DEB_EXTRA_DEPENDS:-}")
if [ -n "$arch" ]; then
  bash scripts/build-cross.sh "$arch" "$dir" "${opts[@]}" -DPYRT_DEB_ARCH="$arch" >/dev/null
else
  cmake -S . -B "$dir" "${opts[@]}" >/dev/null
fi
grep -q '^SCDOC:FILEPATH=.*scdoc$' "$dir/CMakeCache.txt" ||
  { echo "scdoc not found: the package needs the man page (bash scripts/deps.sh)" >&2; exit 1; }
cmake --build "$dir" -j"$jobs" >/dev/null
(cd "$dir" && rm -f pyrt_*.deb && cpack -G DEB >cpack.log 2>&1) ||
  { cat "$dir/cpack.log" >&2; exit 1; }
(cd "$dir" && ls "$PWD"/pyrt_*.deb)
