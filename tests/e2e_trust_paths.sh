#!/usr/bin/env bash
# ctest: e2e_trust_paths
# The files that decide what runs are checked like the box (issue 17.3):
# --pins, --requirements and --wheelhouse that a second user (uid 1234,
# through setpriv) can change, or that sit in a folder that user owns, are
# refused with exit 14 and one message naming the path, the owner and the
# fix; the same files owned by root 0644 in root's 0755 folder are taken.
# Paths are walked as typed: a link owned by uid 1234 in a sticky folder is
# refused in --box-root (so root's uninstall cannot be led to another box)
# and in `serve --listen unix:`; root's own link there is followed.
# Needs root (to act as two users).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup trust_paths fixtures
[ "$(id -u)" -eq 0 ] || { echo "FAIL - e2e_trust_paths needs root (two users)"; exit 1; }
command -v setpriv >/dev/null || { echo "FAIL - setpriv (util-linux) is missing"; exit 1; }
chmod 0755 "$work"
as_other() { setpriv --reuid=1234 --regid=1234 --clear-groups "$@"; }
refused_naming() { rc_is 14 && has 'refusing' err && has "$1" err; }
not_has() { ! has "$1" err; }
exited_early() { [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; }

ok=$work/ok theirs=$work/theirs sticky=$work/sticky
mkdir -m 0755 "$ok" "$theirs"
mkdir -m 1777 "$sticky"
chown 1234:1234 "$theirs"
install -m 0644 "$fx/pins.yaml" "$ok/pins.yaml"
install -m 0644 "$fx/pins.yaml" "$ok/pins-other.yaml"
chown 1234 "$ok/pins-other.yaml"
install -m 0666 "$fx/pins.yaml" "$ok/pins-ww.yaml"
install -m 0644 "$fx/pins.yaml" "$theirs/pins.yaml"

# --- --pins -------------------------------------------------------------------
run status --box-root "$work/box0" --pins "$ok/pins.yaml"
check "root's 0644 pins in root's 0755 folder are taken (not provisioned: 1)" rc_is 1
check "and nothing is refused" not_has refusing
run status --box-root "$work/box0" --pins "$ok/pins-other.yaml"
check "pins owned by uid 1234 are refused (exit 14)" refused_naming 'uid 1234'
check "the message names the file and the fix" \
  has "pins-other.yaml: it is owned by uid 1234, who could change it — use a copy owned by root" err
run status --box-root "$work/box0" --pins "$ok/pins-ww.yaml"
check "pins writable by everyone are refused (exit 14)" refused_naming 'mode 0666'
check "the fix is chmod go-w" has "chmod go-w $ok/pins-ww.yaml" err
run status --box-root "$work/box0" --pins "$theirs/pins.yaml"
check "root's pins in a folder uid 1234 owns are refused (exit 14)" \
  refused_naming "the folder $theirs is owned by uid 1234"
PYRT_PINS=$theirs/pins.yaml run status --box-root "$work/box0"
check "PYRT_PINS is held to the same rule" rc_is 14

# --- --requirements and --wheelhouse: the baseline of a real runtime ---------
box=$work/box
run install --box-root "$box" --pins "$ok/pins.yaml" --from-file "$fx/runtime.tar.gz" --no-baseline --yes
check "setup: a runtime to put a baseline into" rc_is 0
printf 'python-docx\n' >"$ok/req.txt"
install -m 0644 "$ok/req.txt" "$ok/req-other.txt"
chown 1234 "$ok/req-other.txt"
install -m 0644 "$ok/req.txt" "$theirs/req.txt"
base=(baseline --box-root "$box" --pins "$ok/pins.yaml" --yes)
run "${base[@]}" --wheelhouse "$fx/wheelhouse" --requirements "$ok/req-other.txt"
check "--requirements owned by uid 1234 is refused (exit 14)" refused_naming 'req-other.txt: it is owned by uid 1234'
run "${base[@]}" --wheelhouse "$fx/wheelhouse" --requirements "$theirs/req.txt"
check "--requirements in uid 1234's folder is refused (exit 14)" refused_naming "the folder $theirs is owned by uid 1234"
cp -a "$fx/wheelhouse" "$work/wh-theirs"
chown -R 1234:1234 "$work/wh-theirs"
run "${base[@]}" --wheelhouse "$work/wh-theirs" --requirements "$ok/req.txt"
check "a --wheelhouse uid 1234 owns is refused (exit 14)" refused_naming 'wh-theirs: it is owned by uid 1234'
cp -a "$fx/wheelhouse" "$work/wh-onefile"
chown 1234 "$work/wh-onefile/python_docx-0.8.11-py3-none-any.whl"
run "${base[@]}" --wheelhouse "$work/wh-onefile" --requirements "$ok/req.txt"
check "a root wheelhouse holding one wheel uid 1234 owns is refused (exit 14)" \
  refused_naming 'python_docx-0.8.11-py3-none-any.whl: it is owned by uid 1234'
cp -a "$fx/wheelhouse" "$work/wh-ww"
chmod 0777 "$work/wh-ww"
run "${base[@]}" --wheelhouse "$work/wh-ww" --requirements "$ok/req.txt"
check "a wheelhouse writable by everyone is refused (exit 14)" refused_naming 'mode 0777'
check "nothing was installed from the refused sources" \
  [ -z "$(ls "$box"/runtime/python/current/lib/python3*/site-packages 2>/dev/null | grep -i docx)" ]
run "${base[@]}" --wheelhouse "$fx/wheelhouse" --requirements "$ok/req.txt"
check "root's requirements and wheelhouse in root's folders are taken (exit 0)" rc_is 0

# --- --box-root walked as typed -------------------------------------------------
# uid 1234 points a link in a sticky folder at root's box: root's uninstall
# through it must not remove that box.
as_other ln -s "$box" "$sticky/link"
run uninstall --yes --box-root "$sticky/link"
check "a --box-root through uid 1234's link is refused (exit 14)" \
  refused_naming "$sticky/link is a symbolic link owned by uid 1234"
check "the box the link pointed at is still there" [ -L "$box/runtime/python/current" ]
PYRT_BOX_ROOT=$sticky/link/ run status
check "PYRT_BOX_ROOT through it is refused too (exit 14)" rc_is 14
run status --box-root "$sticky/link/sub/box"
check "a link in the middle of the path is refused too (exit 14)" rc_is 14
ln -s "$box" "$sticky/rlink"
run status --box-root "$sticky/rlink" --pins "$ok/pins.yaml"
check "root's own link in the sticky folder is followed (ready: 0)" rc_is 0

# --- serve --listen unix: through another user's link --------------------------
# A 0700 folder of root's, reached through uid 1234's link: uid 1234 could
# re-point it at a folder where its own server answers.
mkdir -m 0700 "$work/sock"
as_other ln -s "$work/sock" "$sticky/socklink"
timeout 10 "$pyrt" serve --box-root "$box" --pins "$ok/pins.yaml" \
  --listen "unix:$sticky/socklink/api.sock" </dev/null >"$work/out" 2>"$work/err"
rc=$?
check "serve refuses a socket path through uid 1234's link (exits, not 124)" exited_early
check "the refusal names the link and its owner" \
  has "$sticky/socklink is a symbolic link owned by uid 1234" err
check "no socket was made" [ ! -e "$work/sock/api.sock" ]

e2e_finish
