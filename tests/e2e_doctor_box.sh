#!/usr/bin/env bash
# ctest: e2e_doctor_box
# doctor's words for box problems (issue 29.4): /etc/passwd as box root is
# "not a folder", not "owned by you"; your own box with a folder's mode
# changed by hand gets that exact chmod as its fix (and typing it repairs
# the box); another user on root's box is told it is root's, shared
# read-only, not "✓ Box root writable"; on a read-only file system smoke
# works (in a private temporary folder) as doctor says; and a proxy that
# does not answer is one ✗, not a ✓ three rows above the ✗.
# Needs root (a second user, a tmpfs to remount read-only).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup doctor_box fixtures
[ "$(id -u)" -eq 0 ] || { echo "FAIL - e2e_doctor_box needs root"; exit 1; }
command -v setpriv >/dev/null || { echo "FAIL - setpriv (util-linux) is missing"; exit 1; }
chmod 0755 "$work"
ro=$work/ro
cleanup() { mountpoint -q "$ro" && umount "$ro"; e2e_cleanup; }
trap cleanup EXIT
opt=$work/opt
mkdir -m 0755 "$opt"
cp "$fx/pins.yaml" "$fx/runtime.tar.gz" "$opt/"
chmod 0644 "$opt/pins.yaml" "$opt/runtime.tar.gz"
pins=$opt/pins.yaml
other=1234
uhome=$opt/uhome
mkdir -m 0755 "$uhome"
chown "$other:$other" "$uhome"
run_u() {
  setpriv --reuid=$other --regid=$other --clear-groups \
    env HOME="$uhome" TMPDIR="$uhome" "$pyrt" "$@" </dev/null >"$work/out" 2>"$work/err"
  rc=$?
}

# --- a file as the box root ------------------------------------------------------
run doctor --box-root /etc/passwd --pins "$pins"
check "/etc/passwd: the row says the box root must be a folder" \
  eval 'rc_is 1 && grep -q "Box root is a folder" "$work/out" && ! grep -q "owned by you" "$work/out"'
check "... and the fix names --box-root DIR" has 'fix: pass --box-root DIR naming a folder' out

# --- your own box, a mode changed by hand -------------------------------------
ubox=$uhome/box
run_u install --yes --box-root "$ubox" --pins "$pins" --from-file "$opt/runtime.tar.gz" --no-baseline
check "setup: uid $other installs its own box (rc $rc)" rc_is 0
chmod 000 "$ubox/runtime/python"
run_u doctor --box-root "$ubox" --pins "$pins"
check "bad mode: the row is about reading your own folders" \
  eval 'grep -q "Box folders readable by you" "$work/out" && ! grep -q "run pyrt as the box" "$work/out"'
check "... the fix is the exact chmod" has "fix: chmod u+rwx '$ubox/runtime/python'" out
fix=$(sed -n "s/.*fix: \(chmod u+rwx '[^']*'\).*/\1/p" "$work/out")
setpriv --reuid=$other --regid=$other --clear-groups bash -c "$fix"
run_u status --box-root "$ubox" --pins "$pins"
check "... and typed as printed it repairs the box (status rc $rc)" rc_is 0

# --- another user on root's box ---------------------------------------------
rbox=$opt/agent
run install --yes --box-root "$rbox" --pins "$pins" --from-file "$opt/runtime.tar.gz" --no-baseline
check "setup: root installs its box (rc $rc)" rc_is 0
run_u doctor --box-root "$rbox" --pins "$pins"
check "another user on root's box: told it is root's, read-only" \
  has "✓ Box root shared read-only .*root's box" out
check "... never \"Box root writable\"" eval '! has "Box root writable" out'

# plugins/ made private by root's umask of 077: the fix opens it
(umask 077; mkdir -p "$rbox/plugins/cw" &&
  printf 'name: cw\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip: [python-docx]\n' \
    >"$rbox/plugins/cw/plugin.yaml")
run_u plugins --box-root "$rbox" --pins "$pins"
check "private plugins/: another user's plugins fails (rc $rc) with the chmod fix" \
  eval 'rc_is 9 && has "fix: sudo chmod -R go+rX '"'$rbox/plugins'"'" err'
run_u doctor --box-root "$rbox" --pins "$pins"
check "... doctor's Plugins row has the same fix" \
  eval 'grep -A1 "Plugins" "$work/out" | grep -qF "fix: sudo chmod -R go+rX '"'$rbox/plugins'"'"'
fix=$(sed -n "s/.*fix: sudo \(chmod -R go+rX '[^']*'\).*/\1/p" "$work/out" | head -1)
bash -c "$fix"
run_u plugins --box-root "$rbox" --pins "$pins"
check "... typed as printed (as root), the other user reads the plugins (rc $rc)" \
  eval 'rc_is 1 && has "^cw " out'
# the other user's support bundle says whose the install log is
run_u doctor --box-root "$rbox" --pins "$pins" --bundle "$uhome/b.tar.gz"
tar xzOf "$uhome/b.tar.gz" pyrt-bundle/platform.txt >"$work/facts"
check "another user's bundle: the install log is root's, and how to include it" \
  eval 'grep "^install log: " "$work/facts" | grep -q "(root)" &&
        grep "^install log: " "$work/facts" | grep -qF "sudo pyrt doctor --bundle FILE --box-root $rbox"'

# --- a read-only file system ------------------------------------------------
mkdir -m 0755 "$ro"
mount -t tmpfs -o size=300m,mode=0755 tmpfs "$ro"
run install --yes --box-root "$ro/box" --pins "$pins" --from-file "$opt/runtime.tar.gz" \
  --wheelhouse "$fx/wheelhouse"
check "setup: a box with its baseline on the tmpfs (rc $rc)" rc_is 0
mount -o remount,ro "$ro"
run doctor --box-root "$ro/box" --pins "$pins"
check "read-only: doctor says smoke works as it is" \
  eval 'has "read-only file system" out && has "smoke work as it is" out'
run smoke --box-root "$ro/box" --pins "$pins"
check "read-only: pyrt smoke works (rc $rc), in a private temporary folder" rc_is 0
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$work/err"
umount "$ro"

# --- a proxy that does not answer ----------------------------------------------
unset PYRT_DOCTOR_OFFLINE
https_proxy=http://127.0.0.1:9 run doctor --box-root "$work/nobox" --pins "$pins"
check "dead proxy: the proxy row fails" has '^✗ Proxy variables .*does not answer' out
check "... and is not a ✓ above the network's ✗" eval '! has "^✓ Proxy variables" out'
export PYRT_DOCTOR_OFFLINE=1

e2e_finish
