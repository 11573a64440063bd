#!/usr/bin/env bash
# Install the Debian 12 packages pyrt needs to build, test and run its demo.
# Quiet when everything is already there; needs root (or sudo) otherwise.
set -euo pipefail
pkgs=(
  build-essential cmake pkg-config git
  libcurl4-openssl-dev libarchive-dev libssl-dev libyaml-dev libjansson-dev zlib1g-dev
  libncurses-dev libcriterion-dev
  openssl ca-certificates python3 python3.11 python3-pip-whl
  libarchive-tools tmux hyperfine
  # strace: e2e_plugins proves `pyrt plugins` starts no interpreter
  strace
  # time (GNU): e2e_fastwheel measures the installer's peak RSS
  time
  clang valgrind
  libmicrohttpd-dev python3-jsonschema python3-yaml curl systemd wrk
  python3-docx python3-lxml python3-openpyxl python3-et-xmlfile python3-pil
  python3-reportlab python3-reportlab-accel python3-renderpm
  # test_py_lint and test_py_unit: the Python in py/ (tests/CMakeLists.txt)
  python3-pyflakes python3-packaging
  # packaging: the man page, the .deb (dpkg-shlibdeps), its checks and the
  # package test's Debian 12 root; zsh for the completion test
  scdoc dpkg-dev lintian debootstrap man-db zsh
  # the fleet: tests/e2e_fleet.sh (sshds on loopback, ansible over SSH),
  # bench/fleet.sh, and ansible-lint for ansible/
  ansible-core ansible-lint openssh-server openssh-client bc
)
# --arch arm64: also what the linux-aarch64 build and its emulated test need
# (scripts/build-cross.sh, tests/e2e_cross.sh): the cross gcc, the arm64
# -dev packages through multiarch, qemu, and the arm64 shared libraries the
# arm64 fixture runtime (Debian's python3.11 and lxml, unpacked by
# tests/fixtures/make-cross-runtime.sh) loads under emulation.  Multi-Arch:
# same packages move their amd64 twin to the same version; nothing amd64 is
# removed (checked with apt-get -s).
cross=""
if [ "${1:-}" = --arch ]; then
  [ "${2:-}" = arm64 ] || { echo "deps.sh: --arch knows arm64 only" >&2; exit 2; }
  cross=arm64
  a=:$cross
  pkgs+=(gcc-aarch64-linux-gnu qemu-user-static
    "libcurl4-openssl-dev$a" "libarchive-dev$a" "libssl-dev$a" "libyaml-dev$a"
    "libjansson-dev$a" "zlib1g-dev$a" "libncurses-dev$a" "libmicrohttpd-dev$a"
    "libexpat1$a" "libbz2-1.0$a" "libcrypt1$a" "libdb5.3$a" "libffi8$a"
    "liblzma5$a" "libncursesw6$a" "libnsl2$a" "libreadline8$a"
    "libsqlite3-0$a" "libtinfo6$a" "libtirpc3$a" "libuuid1$a" "libssl3$a"
    "libxml2$a" "libxslt1.1$a")
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh VM's unattended-upgrades holds the dpkg lock for minutes: wait
# for it (PYRT_DEPS_LOCK_WAIT seconds) rather than fail at once.
wait=${PYRT_DEPS_LOCK_WAIT:-900}
lock=(-o "DPkg::Lock::Timeout=$wait")
echo "(waiting up to ${wait}s if another apt or dpkg holds the lock)" >&2
if [ -n "$cross" ] && ! dpkg --print-foreign-architectures | grep -qx "$cross"; then
  $sudo dpkg --add-architecture "$cross"
fi
$sudo apt-get "${lock[@]}" update -qq
$sudo apt-get "${lock[@]}" install -y -qq "${missing[@]}" >/dev/null
