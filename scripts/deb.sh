#!/usr/bin/env bash
# Build the Debian package: a release build of its own (no test crash
# points, no source-tree theme path, Debian's hardening flags, prefix /usr)
# and `cpack -G DEB`.  Prints the path of pyrt_<version>_<arch>.deb.
#   bash scripts/deb.sh [BUILD_DIR]        (default build-deb)
# Depends beyond the ones dpkg-shlibdeps computes (a library pyrt dlopens,
# say) go in cmake/package.cmake's PYRT_DEB_EXTRA_DEPENDS; this script sets
# it from the environment on every run, so a rerun never keeps an old one:
#   PYRT_DEB_EXTRA_DEPENDS="libcurl4 (>= 7.63.0)" bash scripts/deb.sh
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-deb}
jobs=$(nproc 2>/dev/null || echo 2)
# dpkg-buildflags: -D_FORTIFY_SOURCE=2, -fstack-protector-strong, relro/now,
# the flags lintian's hardening checks look for.
# CMake reads no CPPFLAGS (where _FORTIFY_SOURCE is): they join CFLAGS.
eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)"
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
      -DPYRT_TEST_HOOKS=OFF -DPYRT_SOURCE_THEMES=OFF -DBUILD_TESTING=OFF \
      -DPYRT_WERROR=ON -DCMAKE_C_FLAGS="$CFLAGS $CPPFLAGS" \
      -DCMAKE_EXE_LINKER_FLAGS="$LDFLAGS" \
      -DPYRT_DEB_EXTRA_DEPENDS="${PYRT_DEB_EXTRA_DEPENDS:-}" >/dev/null
grep -q '^SCDOC:FILEPATH=.*scdoc$' "$dir/CMakeCache.txt" ||
  { echo "scdoc not found: the package needs the man page (bash scripts/deps.sh)" >&2; exit 1; }
cmake --build "$dir" -j"$jobs" >/dev/null
(cd "$dir" && rm -f pyrt_*.deb && cpack -G DEB >cpack.log 2>&1) ||
  { cat "$dir/cpack.log" >&2; exit 1; }
(cd "$dir" && ls "$PWD"/pyrt_*.deb)
