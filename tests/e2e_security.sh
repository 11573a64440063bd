#!/usr/bin/env bash
# End to end: a local attacker against root.  A second user (nobody, via
# setpriv) swaps a --from-file archive the moment pyrt closes it, plants a
# box (with an interpreter that would run as root) or a symlinked partial
# download.  pyrt must activate only the pinned bytes, run nothing from a
# box it does not own, and never write through a planted link.  Needs root
# (to act as two users); elsewhere it says so and fails.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup security fixtures
[ "$(id -u)" -eq 0 ] || { echo "FAIL - e2e_security needs root (two users)"; exit 1; }
command -v setpriv >/dev/null || { echo "FAIL - setpriv (util-linux) is missing"; exit 1; }
chmod 0711 "$work"          # nobody may pass through to its own folder
# The watcher runs as nobody, who may not read the checkout.
install -m 0644 "$src/tests/helpers/swap_on_close.py" "$work/swap_on_close.py"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
opts=(--pins "$fx/pins.yaml" --cacert "$fx/ca.pem")
pins=("${opts[@]}" --no-baseline)

# An archive that verifies nowhere but runs: the fixture plus one file.
mkdir "$work/evil"
tar -xzf "$fx/runtime.tar.gz" -C "$work/evil"
echo planted >"$work/evil/python/EVIL"
tar -czf "$work/evil.tar.gz" -C "$work/evil" python
rm -rf "$work/evil"

# --- 1. --from-file swapped between pyrt's reads ----------------------------
# The archive sits in a folder nobody owns (/tmp, a shared folder, a USB
# stick).  The watcher renames the evil archive over it the moment pyrt
# first closes it: a tool that hashes by path and reopens by path extracts
# the evil bytes under the pinned digest.
swap_round() {
  local n=$1 drop=$work/drop$1 box=$work/box-swap$1
  mkdir "$drop"
  cp "$fx/runtime.tar.gz" "$drop/runtime.tar.gz"
  cp "$work/evil.tar.gz" "$drop/evil.tar.gz"
  chown -R 65534:65534 "$drop"
  as_nobody /usr/bin/python3 "$work/swap_on_close.py" "$drop/runtime.tar.gz" \
    "$drop/evil.tar.gz" "$drop/ready" >"$work/swap$n.log" 2>&1 &
  local watcher=$!
  for _ in $(seq 50); do [ -s "$drop/ready" ] && break; sleep 0.1; done
  "$pyrt" install --yes --box-root "$box" "${pins[@]}" \
    --from-file "$drop/runtime.tar.gz" </dev/null >"$work/out$n" 2>&1
  rc=$?
  wait "$watcher"; cat "$work/swap$n.log" >&2
  swapped=$(grep -c swapped "$work/swap$n.log")
  current=$box/runtime/python/current
}
for n in 1 2 3 4; do
  swap_round $n
  check "round $n: the attacker did swap the file after pyrt's first read" [ "$swapped" = 1 ]
  check "round $n: the install of the pinned bytes succeeds (rc $rc)" [ "$rc" -eq 0 ]
  check "round $n: the active runtime has none of the swapped archive's files" \
    [ ! -e "$current/EVIL" ]
  check "round $n: the active runtime is the pinned one" \
    "$pyrt" verify --box-root "$work/box-swap$n" "${opts[@]}"
  check "round $n: the private copy is gone from downloads/" \
    [ -z "$(ls -A "$work/box-swap$n/runtime/python/downloads")" ]
done
check "the copy was never readable by others while it existed" \
  [ "$(stat -c %a "$work/box-swap1/runtime/python/downloads")" = 700 ]

# --- 2. a box planted by another user ---------------------------------------
# A real install, then handed to nobody, with an interpreter that records
# whoever runs it: as if nobody had made the box before root ran pyrt.
pbox=$work/planted
"$pyrt" install --yes --box-root "$pbox" "${pins[@]}" --from-file "$fx/runtime.tar.gz" \
  </dev/null >/dev/null 2>&1 || bad "setup: install into the box to plant"
interp=$pbox/runtime/python/current/bin/python3
real=$(readlink -f "$interp")
rm -f "$interp"
printf '#!/bin/sh\ntouch %q\nexec %q "$@"\n' "$work/ran-as-root" "$real" >"$interp"
chmod 0755 "$interp"
chown -R 65534:65534 "$pbox"
snapshot() { (cd "$pbox" && find . -printf '%p %m %s %T@\n' | sort); }
snapshot >"$work/before"
for cmd in "status" "status --deep" "status --json" "doctor" "plugins" "verify" \
           "smoke" "baseline --yes" "rollback --yes" "uninstall --yes"; do
  # shellcheck disable=SC2086
  "$pyrt" $cmd --box-root "$pbox" "${opts[@]}" </dev/null >"$work/out" 2>&1
  rc=$?
  check "$cmd on a planted box is refused (exit $rc)" [ "$rc" -ne 0 ]
  check "$cmd names the owner and the fix" \
    eval 'grep -q "owned by uid 65534 (nobody)" "$work/out" && grep -qE "run pyrt as|box root of your own" "$work/out"'
  check "$cmd ran nothing from the planted box" [ ! -e "$work/ran-as-root" ]
done
"$pyrt" install --yes --force --box-root "$pbox" "${pins[@]}" \
  --from-file "$fx/runtime.tar.gz" </dev/null >"$work/out" 2>&1
rc=$?
check "install into a planted box exits 14 (untrusted)" [ "$rc" -eq 14 ]
check "install ran nothing from the planted box" [ ! -e "$work/ran-as-root" ]
"$pyrt" status --json --box-root "$pbox" "${opts[@]}" >"$work/st.json" 2>/dev/null
check "status --json says untrusted, with the message" python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert d["state"]=="untrusted", d
assert "nobody" in d["message"], d' "$work/st.json"
snapshot >"$work/after"
check "nothing in the planted box changed" cmp -s "$work/before" "$work/after"

# Writable by others is refused too, with the chmod that fixes it.
gbox=$work/groupbox
"$pyrt" install --yes --box-root "$gbox" "${pins[@]}" --from-file "$fx/runtime.tar.gz" \
  </dev/null >/dev/null 2>&1 || bad "setup: install into the box to open up"
chmod 0775 "$gbox/runtime/python"
run status --box-root "$gbox" "${opts[@]}"
check "a group-writable box directory is refused (exit 14)" rc_is 14
check "the refusal gives the chmod" has "chmod go-w $gbox/runtime/python" out
chmod 0755 "$gbox/runtime/python"
run status --box-root "$gbox" "${opts[@]}"
check "after the chmod the box is ready again" rc_is 0

# A box under a folder another user owns can be renamed away and swapped.
mkdir "$work/theirs" && chown 65534:65534 "$work/theirs"
run install --yes --box-root "$work/theirs/box" "${pins[@]}" --from-file "$fx/runtime.tar.gz"
check "a box under another user's folder is refused (exit 14)" rc_is 14
check "and nothing was created there" [ ! -e "$work/theirs/box" ]

# --- 2b. root's box, looked at by another user: shared, read-only ---------
# A box owned by root is trusted by every user (OpenSSH's rule): the other
# user is not refused and not told "broken"; e2e_shared_box tests the rest.
install -m 0755 "$pyrt" "$work/pyrt-copy"
install -m 0644 "$fx/pins.yaml" "$work/pins-copy.yaml"
as_nobody env HOME=/nonexistent "$work/pyrt-copy" status --box-root "$work/box-swap1" \
  --pins "$work/pins-copy.yaml" </dev/null >"$work/out" 2>&1
rc=$?
check "another user's status on root's box is not refused (not 14)" [ "$rc" -ne 14 ]
check "... and never says untrusted, broken or --force" \
  eval '! grep -qE "untrusted|broken|--force" "$work/out"'

# --- 3. a planted symlink as the partial download ---------------------------
e2e_mirror
lbox=$work/linkbox
mkdir -p "$lbox/runtime/python/downloads"
chmod -R 0700 "$lbox"
echo "precious" >"$work/victim"
sha=$(cut -c1-16 "$fx/runtime.sha256")
ln -s "$work/victim" "$lbox/runtime/python/downloads/$sha.partial"
run install --yes --box-root "$lbox" "${pins[@]}" --mirror "$mirror"
check "a symlinked partial is refused (exit 14)" rc_is 14
check "the refusal names the link" has "is a symbolic link" err
check "the link's target was not written" [ "$(cat "$work/victim")" = precious ]
check "nothing was activated" [ ! -e "$lbox/runtime/python/current" ]
rm "$lbox/runtime/python/downloads/$sha.partial"
# ... and so is a partial someone else owns (a hard link to their file).
echo "theirs" >"$work/their-partial"; chown 65534 "$work/their-partial"
mv "$work/their-partial" "$lbox/runtime/python/downloads/$sha.partial"
run install --yes --box-root "$lbox" "${pins[@]}" --mirror "$mirror"
check "a partial owned by another user is refused (exit 14)" rc_is 14
check "that file was not appended to" \
  [ "$(cat "$lbox/runtime/python/downloads/$sha.partial")" = theirs ]
rm "$lbox/runtime/python/downloads/$sha.partial"
run install --yes --box-root "$lbox" "${pins[@]}" --mirror "$mirror"
check "with the plant removed the install succeeds" rc_is 0

e2e_finish
