#!/usr/bin/env bash
# Cross-build pyrt for another Debian architecture on this one.
#   bash scripts/build-cross.sh arm64 [BUILD_DIR] [-DVAR=VALUE ...]
# BUILD_DIR defaults to build-arm64; the binary is BUILD_DIR/pyrt.  Needs
# `bash scripts/deps.sh --arch arm64` (the cross gcc and the arm64 -dev
# packages through multiarch).  The extra -D arguments go to CMake, e.g.
# -DPYRT_TEST_HOOKS=ON for a test build.
#
# pyrt_pins_embed, the one program the build runs (pins.yaml -> C), is
# built for this machine first, in BUILD_DIR/host-tools, and the cross
# build imports it (CMakeLists.txt, PYRT_HOST_PINS_EMBED).
set -euo pipefail
cd "$(dirname "$0")/.."
die() { printf 'build-cross.sh: %s\n' "$*" >&2; exit 1; }

arch=${1:-}
case $arch in
arm64) triplet=aarch64-linux-gnu ;;
"") die "usage: build-cross.sh ARCH [BUILD_DIR] [-DVAR=VALUE ...] (ARCH: arm64)" ;;
*) die "no cross toolchain for Debian architecture '$arch' (known: arm64)" ;;
esac
shift
dir=build-$arch
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  dir=$1
  shift
fi
toolchain=$PWD/cmake/toolchain-$triplet.cmake
command -v "$triplet-gcc" >/dev/null ||
  die "$triplet-gcc not found (bash scripts/deps.sh --arch $arch installs it)"
[ -f "/usr/lib/$triplet/pkgconfig/libcurl.pc" ] ||
  die "the $arch -dev packages are missing (bash scripts/deps.sh --arch $arch installs them)"
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

# The host tool: a native configure of its own with nothing cross in the
# environment (a PKG_CONFIG_LIBDIR for arm64 would hand it the wrong .pc
# files; scripts/deb.sh exports the target's CFLAGS/LDFLAGS).
host=$dir/host-tools
native=(env -u PKG_CONFIG_LIBDIR -u PKG_CONFIG_PATH -u CC -u CFLAGS -u CPPFLAGS
        -u LDFLAGS -u DEB_HOST_ARCH -u DEB_HOST_MULTIARCH -u DEB_HOST_GNU_TYPE)
"${native[@]}" cmake -S . -B "$host" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DBUILD_TESTING=OFF -DPYRT_WERROR=ON >/dev/null
# Its pyrt prints the completions (the same text on every architecture).
"${native[@]}" cmake --build "$host" -j"$jobs" --target pyrt_pins_embed pyrt >/dev/null

cmake -S . -B "$dir" --toolchain "$toolchain" \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF -DPYRT_WERROR=ON \
      -DPYRT_HOST_PINS_EMBED="$host/pyrt_pins_embed" \
      -DPYRT_HOST_PYRT="$host/pyrt" "$@" >/dev/null
cmake --build "$dir" -j"$jobs" --target pyrt
LC_ALL=C readelf -h "$dir/pyrt" | grep -q 'Machine: *AArch64' ||
  die "$dir/pyrt is not an aarch64 executable"
printf '%s\n' "$dir/pyrt"
