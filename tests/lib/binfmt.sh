# qemu-aarch64 registered with binfmt_misc for one test's duration; sourced
# by tests/e2e_cross.sh and tests/e2e_package_cross.sh after tests/lib/e2e.sh.
#
#   binfmt_aarch64_register      mount binfmt_misc if needed and register
#                                qemu-aarch64-static as pyrt-e2e-aarch64-<pid>;
#                                on failure says why and ends the test (FAIL)
#   binfmt_aarch64_cleanup       remove exactly that entry, and the mount if
#                                this test made it and nothing else was
#                                registered since (call it from the EXIT trap)
#   binfmt_aarch64_others        other enabled entries that run aarch64 programs
# shellcheck shell=bash disable=SC2034
binfmt=/proc/sys/fs/binfmt_misc
binfmt_entry=pyrt-e2e-aarch64-$$
binfmt_mounted=""
binfmt_registered=""

binfmt_aarch64_cleanup() {
  if [ -n "$binfmt_registered" ] && [ -e "$binfmt/$binfmt_entry" ]; then
    echo -1 >"$binfmt/$binfmt_entry" || echo "# could not remove $binfmt/$binfmt_entry" >&2
  fi
  if [ -n "$binfmt_mounted" ] &&
     [ "$(find "$binfmt" -mindepth 1 -maxdepth 1 ! -name register ! -name status | wc -l)" -eq 0 ]; then
    umount "$binfmt" || echo "# could not unmount $binfmt" >&2
  fi
}

binfmt_give_up() { bad "$*"; e2e_finish; exit 1; }

binfmt_aarch64_register() {
  local qemu magic mask
  [ "$(id -u)" -eq 0 ] || binfmt_give_up "binfmt_misc registration needs root (run the test as root)"
  qemu=$(command -v qemu-aarch64-static) ||
    binfmt_give_up "qemu-aarch64-static is installed (bash scripts/deps.sh --arch arm64)"
  if [ ! -e "$binfmt/register" ]; then
    mount -t binfmt_misc binfmt_misc "$binfmt" 2>"$work/mount.err" ||
      binfmt_give_up "binfmt_misc can be mounted on $binfmt ($(cat "$work/mount.err")): the arm64 test cannot run without it"
    binfmt_mounted=1
  fi
  [ "$(cat "$binfmt/status" 2>/dev/null)" = enabled ] ||
    binfmt_give_up "binfmt_misc is enabled ($binfmt/status says '$(cat "$binfmt/status" 2>/dev/null)')"
  # qemu's own aarch64 magic and mask (ELF64, little endian, e_machine 183);
  # F: the kernel opens qemu now, so it works inside a chroot too.
  magic='\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00'
  mask='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'
  printf ':%s:M::%s:%s:%s:F' "$binfmt_entry" "$magic" "$mask" "$qemu" \
    >"$binfmt/register" 2>"$work/reg.err" ||
    binfmt_give_up "qemu-aarch64 can be registered in $binfmt ($(cat "$work/reg.err"))"
  binfmt_registered=1
  check "binfmt_misc entry $binfmt_entry is enabled" grep -qx enabled "$binfmt/$binfmt_entry"
}

binfmt_aarch64_others() {
  grep -l 'qemu-aarch64' "$binfmt"/* 2>/dev/null | grep -v "/$binfmt_entry\$" |
    xargs -r grep -lx enabled 2>/dev/null | tr '\n' ' '
}
