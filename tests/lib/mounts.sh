# Mounts a test made under its own folders; sourced by tests/e2e_package.sh
# and tests/e2e_package_cross.sh after tests/lib/e2e.sh.
#
#   unmount_under DIR...   unmount, by path and deepest first, whatever is
#                          mounted at or under each DIR (the root's /proc,
#                          and anything a failed debootstrap left); returns
#                          1 when a mount would not go, so the caller keeps
#                          the work folder rather than remove through it
# shellcheck shell=bash

unmount_under() {
  local dir m left=0
  for dir in "$@"; do
    while read -r m; do
      umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || left=1
    done < <(awk -v d="$dir" '$2 == d || index($2, d "/") == 1 {print $2}' /proc/self/mounts | sort -r)
  done
  return $left
}
