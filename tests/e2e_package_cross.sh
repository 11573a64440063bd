#!/usr/bin/env bash
# ctest e2e_package_cross (label "package_cross"; not part of
# scripts/test.sh, see below): the arm64 .deb on a clean arm64 Debian 12.
# scripts/deb.sh --arch arm64 builds pyrt_<version>_arm64.deb (lintian: no
# errors or warnings; Depends from the arm64 libraries); an arm64 bookworm
# minbase root made with `debootstrap --foreign` and its second stage run
# under qemu-aarch64 (binfmt_misc, registered for this test only) gets it
# with `apt-get install ./pyrt_*_arm64.deb` (so Depends must pull in every
# arm64 library), and in that root: pyrt --version names linux-aarch64-gnu,
# dpkg -L lists the binary, status answers not_provisioned, and
# `apt-get purge pyrt` leaves no /usr/bin/pyrt.
#
# Needs root and deb.debian.org (PYRT_DEBIAN_MIRROR for another).  Cached
# in <build>/package-arm64: the arm64 root after its second stage, as a
# tar; each run unpacks a fresh copy.  The first run's second stage under
# emulation takes about 11 minutes on the 2-core machine at load 10, which
# is why scripts/test.sh (and so CI, which must stay under 60 minutes) does
# not run it: `ctest -L package_cross` does.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup package_cross
. "$(dirname "$0")/lib/binfmt.sh"
. "$(dirname "$0")/lib/mounts.sh"
bin=${PYRT_BINARY_DIR:?PYRT_BINARY_DIR must name the build directory}
[ "$(id -u)" -eq 0 ] || { echo "FAIL - the package test needs root (debootstrap, chroot, mount)"; exit 1; }
for t in debootstrap chroot dpkg-deb lintian cpack qemu-aarch64-static aarch64-linux-gnu-gcc; do
  command -v "$t" >/dev/null ||
    { echo "FAIL - $t is not installed (bash scripts/deps.sh --arch arm64)"; exit 1; }
done

suite=bookworm
debian=${PYRT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=$bin/package-arm64
mkdir -p "$cache"
root=$work/root
mkroot=$cache/mkroot

cross_package_cleanup() {
  local st=0
  unmount_under "$root" "$mkroot" || st=1
  binfmt_aarch64_cleanup
  if [ $st -eq 0 ]; then
    e2e_cleanup
  else
    echo "FAIL - still mounted under $root or $mkroot; not removing $work"
    exit 1
  fi
}
trap cross_package_cleanup EXIT

# --- the package ----------------------------------------------------------------
ver=$(sed -n 's/^project(pyrt VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
deb=$(bash "$src/scripts/deb.sh" --arch arm64 "$bin/deb-arm64" 2>"$work/deb.err" | tail -1)
check "scripts/deb.sh --arch arm64 builds pyrt_${ver}_arm64.deb" \
  eval '[ "$(basename "$deb")" = "pyrt_${ver}_arm64.deb" ] && [ -f "$deb" ]'
[ -f "$deb" ] || { sed 's/^/# /' "$work/deb.err" | tail -20; e2e_finish; exit 1; }
check "its Architecture is arm64" eval '[ "$(dpkg-deb -f "$deb" Architecture)" = arm64 ]'
check "Depends has the libraries dpkg-shlibdeps found in the arm64 binary" \
  eval 'dpkg-deb -f "$deb" Depends | grep -q "libc6 (>= " && dpkg-deb -f "$deb" Depends | grep -q "libjansson4"'
check "/usr/bin/pyrt in it is an aarch64 program" \
  eval 'dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/pyrt >"$work/pyrt.bin" &&
        LC_ALL=C readelf -h "$work/pyrt.bin" | grep -q "Machine: *AArch64"'
lintian "$deb" >"$work/lintian" 2>&1
sed 's/^/# lintian: /' "$work/lintian"
check "lintian reports no errors or warnings" eval '! grep -q "^[EW]:" "$work/lintian"'

# --- an arm64 Debian 12 root, run under qemu --------------------------------
binfmt_aarch64_register
if [ ! -f "$cache/root.tar" ]; then
  rm -rf "$mkroot"
  SECONDS=0
  debootstrap --foreign --arch=arm64 --variant=minbase "$suite" "$mkroot" "$debian" \
    >"$work/debootstrap.log" 2>&1 &&
    chroot "$mkroot" /debootstrap/debootstrap --second-stage >>"$work/debootstrap.log" 2>&1
  st=$?
  echo "# debootstrap --foreign + second stage under qemu: ${SECONDS}s"
  unmount_under "$mkroot"
  [ $st -eq 0 ] && tar -C "$mkroot" -cf "$cache/root.tar.tmp" . && mv "$cache/root.tar.tmp" "$cache/root.tar"
  rm -rf "$mkroot"
  check "debootstrap --foreign + second stage make an arm64 Debian 12 root" [ -f "$cache/root.tar" ]
  [ -f "$cache/root.tar" ] || { tail -20 "$work/debootstrap.log" | sed 's/^/# /'; e2e_finish; exit 1; }
fi
mkdir "$root" && tar -C "$root" -xf "$cache/root.tar"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"
}
check "the root is Debian 12 for arm64" \
  eval 'grep -q "^12\." "$root/etc/debian_version" && [ "$(in_root dpkg --print-architecture)" = arm64 ]'
check "the root runs arm64 programs (uname -m: aarch64)" eval '[ "$(in_root uname -m)" = aarch64 ]'
check "the root has no pyrt yet" [ ! -e "$root/usr/bin/pyrt" ]

# --- apt-get install ./pyrt_*_arm64.deb -------------------------------------
cp "$deb" "$root/tmp/"
SECONDS=0
check "apt-get update in the root" in_root apt-get update -qq
check "apt-get install ./$(basename "$deb") pulls in its arm64 Depends" \
  eval 'in_root sh -c "cd /tmp && apt-get install -y -qq --no-install-recommends ./$(basename "$deb")" >"$work/apt.log" 2>&1 || { tail -20 "$work/apt.log" >&2; false; }'
echo "# apt-get install under qemu: ${SECONDS}s"
in_root pyrt --version >"$work/out" 2>&1
check "pyrt --version in the root names linux-aarch64-gnu" grep -q 'platform: *linux-aarch64-gnu' "$work/out"
in_root dpkg -L pyrt >"$work/dpkg-L"
check "dpkg -L pyrt lists the binary and the man page" \
  eval 'grep -qx /usr/bin/pyrt "$work/dpkg-L" && grep -qx /usr/share/man/man1/pyrt.1.gz "$work/dpkg-L"'
in_root pyrt status --box-root /tmp/box >"$work/out" 2>&1
rc=$?
check "pyrt status on an empty box answers not_provisioned (exit 1)" \
  eval 'rc_is 1 && grep -q "^not_provisioned: " "$work/out"'
check "apt-get purge pyrt" eval 'in_root apt-get purge -y -qq pyrt >"$work/apt.log" 2>&1'
check "no /usr/bin/pyrt after the purge" [ ! -e "$root/usr/bin/pyrt" ]

e2e_finish
