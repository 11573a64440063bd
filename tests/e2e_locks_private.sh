#!/usr/bin/env bash
# ctest: e2e_locks_private
# Locks no one else can hold (issue 26, door 4).  flock needs only a read
# descriptor: a box lock every user can open (0644) let uid 1234 hold it and
# stall root's baseline and uninstall for ever, and the mirror's lock on
# the 0755 DIR itself the same for `pyrt mirror`.  Now the box lock is 0600
# and who holds it is published beside it (lock.state, 0644 whatever the
# umask), which other users' `status --json` reads; the mirror's lock is a
# private file beside DIR.  Needs root (two users) and a test-hooks build.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup locks_private fixtures
[ "$(id -u)" -eq 0 ] || { echo "FAIL - e2e_locks_private needs root (two users)"; exit 1; }
command -v setpriv >/dev/null || { echo "FAIL - setpriv (util-linux) is missing"; exit 1; }
chmod 0755 "$work"
as_other() { setpriv --reuid=1234 --regid=1234 --clear-groups "$@"; }
# The holders are started without a shell function between, so $! is
# the sleep itself (setpriv and flock -F exec it) and stop_holder ends it.
holder=
stop_holder() {
  [ -n "$holder" ] && kill "$holder" 2>/dev/null && wait "$holder" 2>/dev/null
  holder=
}

box=$work/box
opts=(--box-root "$box" --pins "$fx/pins.yaml")
run install "${opts[@]}" --from-file "$fx/runtime.tar.gz" --no-baseline --yes
check "setup: a runtime (exit 0)" rc_is 0
lock=$box/runtime/python/lock
check "the box lock is there" [ -f "$lock" ]
check "the box lock is private (0600)" [ "$(stat -c %a "$lock")" = 600 ]

# --- uid 1234 tries to hold the box lock ---------------------------------------
setpriv --reuid=1234 --regid=1234 --clear-groups flock -F -s "$lock" sleep 60 2>"$work/flock.err" &
holder=$!
sleep 1
printf 'python-docx\n' >"$work/req.txt"
run baseline "${opts[@]}" --wheelhouse "$fx/wheelhouse" --requirements "$work/req.txt" --no-wait --yes
check "root's baseline --no-wait is not turned away by uid 1234 (exit 0, not busy)" rc_is 0
stop_holder

# An older pyrt's 0644 lock is made private by the next install.
chmod 0644 "$lock"
run baseline "${opts[@]}" --wheelhouse "$fx/wheelhouse" --requirements "$work/req.txt" --no-wait --yes
check "a 0644 lock left by an older pyrt is made 0600 again" \
  eval 'rc_is 0 && [ "$(stat -c %a "$lock")" = 600 ]'

# --- the published state: other users see the install, whatever the umask ----
hookfile=$work/hook
( umask 077
  PYRT_TEST_HOOK=locked:pause PYRT_TEST_HOOK_FILE=$hookfile \
    "$pyrt" install "${opts[@]}" --from-file "$fx/runtime.tar.gz" --no-baseline --force --yes \
    </dev/null >"$work/inst.out" 2>"$work/inst.err" ) &
inst=$!
for _ in $(seq 200); do [ -s "$hookfile" ] && break; sleep 0.1; done
check "setup: root's install (umask 077) holds the lock" [ -s "$hookfile" ]
check "the published state is readable by everyone (0644)" \
  [ "$(stat -c %a "$lock.state")" = 644 ]
as_other "$pyrt" status "${opts[@]}" --json </dev/null >"$work/st.json" 2>"$work/st.err"
check "uid 1234's status --json says upgrade_in_progress: true" \
  grep -q '"upgrade_in_progress": true' "$work/st.json"
rm -f "$hookfile"
wait "$inst"
check "the install finished (exit 0)" [ $? -eq 0 ]
as_other "$pyrt" status "${opts[@]}" --json </dev/null >"$work/st.json" 2>"$work/st.err"
check "and then uid 1234's status says upgrade_in_progress: false" \
  grep -q '"upgrade_in_progress": false' "$work/st.json"

# --- the mirror's lock ---------------------------------------------------------
e2e_mirror
mdir=$work/mirror
mkdir -m 0755 "$mdir"
setpriv --reuid=1234 --regid=1234 --clear-groups flock -F -s "$mdir" sleep 120 2>"$work/flock2.err" &
holder=$!
sleep 1
timeout 120 "$pyrt" mirror "$mdir" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem" \
  --mirror "$mirror" --platform linux-x86_64-gnu </dev/null >"$work/out" 2>"$work/err"
rc=$?
check "root's pyrt mirror is not stalled by uid 1234 holding DIR (exit 0, not 124)" rc_is 0
stop_holder
check "its lock is a private file beside DIR" \
  eval '[ "$(stat -c %a:%u "$work/.mirror.lock")" = 600:0 ]'

e2e_finish
