#!/usr/bin/env bash
# ctest: e2e_advice
# End to end: the fix a refusal names is safe to follow.  A box root that is
# a shared sticky folder (/tmp) or not a folder (/etc/passwd) is answered
# with a folder of its own, never "chmod go-w /tmp" or "remove it"; a box of
# our own with a bad mode gets the exact chmod; a read-only box is called
# read-only, and installing onto it when it is current is "nothing to do";
# a --cacert already given is not advised again.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup advice fixtures
pins=$fx/pins.yaml
box=$work/box
# status puts the refusal on stdout, install on stderr: either will do.
says() { has "$1" out || has "$1" err; }

# --- a shared sticky folder, a file, a box of our own --------------------------
run status --box-root /tmp --pins "$pins"
check "/tmp as the box root is refused (exit 14)" rc_is 14
check "the fix is a folder of its own in it" says "e.g. --box-root /tmp/pyrt-box"
check "never chmod on /tmp" eval '! says chmod'
run doctor --box-root /tmp --pins "$pins"
check "doctor gives the same advice for /tmp" eval 'has "/tmp/pyrt-box" out && ! grep -q "chmod" "$work/out"'
sticky=$short/sticky; mkdir -m 1777 "$sticky"
run status --box-root "$sticky" --pins "$pins"
check "any sticky shared folder: a folder in it" says "e.g. --box-root $sticky/pyrt-box"
run status --box-root /etc/passwd --pins "$pins"
check "/etc/passwd as the box root is refused (exit 14)" rc_is 14
check "the refusal names the file, unredacted" says "refusing the box root /etc/passwd: it is not a directory"
check "never remove it" eval '! says "remove it"'
check "the fix is a folder of the box's own" says "naming a folder of the box's own"
mkdir -m 0777 "$work/own"
run status --box-root "$work/own" --pins "$pins"
check "our own box with a bad mode: the exact chmod" says "chmod go-w $work/own\""
rmdir "$work/own"

# --- --cacert given, and the server's CA is not in it ---------------------------
e2e_mirror
run install --yes --no-baseline --box-root "$box" --pins "$pins" --mirror "$mirror" \
  --cacert "$fx/other.pem"
check "a wrong --cacert fails as a network error (exit 4)" rc_is 4
check "the advice names the bundle in use" has "the CA bundle in use ($fx/other.pem) does not hold" err
check "and does not ask for the --cacert already given" eval '! has "pass its certificate with --cacert" err'
run install --yes --no-baseline --box-root "$box" --pins "$pins" --mirror "$mirror"
check "without --cacert the advice is --cacert" has "pass its certificate with --cacert FILE" err

# --- a read-only box ------------------------------------------------------------
run install --yes --box-root "$box" --pins "$pins" --from-file "$fx/runtime.tar.gz" \
  --wheelhouse "$fx/wheelhouse"
check "fixture install with the baseline" rc_is 0
if mount --bind "$box" "$box" 2>/dev/null; then
  if mount -o remount,ro,bind "$box"; then
    run install --yes --box-root "$box" --pins "$pins" --from-file "$fx/runtime.tar.gz" \
      --wheelhouse "$fx/wheelhouse"
    check "install --yes on a current read-only box exits 0" rc_is 0
    check "and says nothing to do" has "nothing to do" out
    run doctor --box-root "$box" --pins "$pins"
    check "doctor says read-only file system" has "$box is on a read-only file system" out
    check "not 'not writable by this user'" eval '! has "not writable by this user" out'
    run status --box-root "$box" --pins "$pins"
    check "status works on the read-only box" rc_is 0
  else
    bad "remount the box read-only (needs root)"
  fi
  umount "$box"
else
  bad "bind-mount the box (the read-only checks need root)"
fi

e2e_finish
