#!/usr/bin/env bash
# ctest: e2e_shared_box
# One box, every user of the machine (issue 21.2), with a second uid
# (65534, through setpriv):
#  (b) a box root installs and owns is trusted by every user (OpenSSH's
#      rule): its runtime tree, marker and status are readable by all, so
#      uid 65534 gets read-only answers from status, plugins, doctor, verify,
#      smoke (its .docx in its own folder) and runs the interpreter; a change
#      (install, baseline, plugins install, rollback, uninstall) is refused
#      with exit 16 and "run it as root"; nothing of the box changes and
#      logs, downloads, caches, pip's home stay private (0700);
#  (a) the box of the user who runs the app: uid 65534 installs its own box
#      and uses it;
#  and a box owned by another non-root user (uid 1234) is still refused
#  (exit 14), by root and by uid 65534.
# Needs root (to act as several users).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup shared_box fixtures
[ "$(id -u)" -eq 0 ] || { echo "FAIL - e2e_shared_box needs root (two users)"; exit 1; }
command -v setpriv >/dev/null || { echo "FAIL - setpriv (util-linux) is missing"; exit 1; }
chmod 0755 "$work"
other=65534
ohome=$work/other-home
mkdir -m 0700 "$ohome"
chown "$other:$other" "$ohome"
# uid 65534 in its own environment: its HOME, its TMPDIR.
as_other() {
  setpriv --reuid=$other --regid=$other --clear-groups \
    env HOME="$ohome" TMPDIR="$ohome" "$@"
}
run_other() {
  as_other "$pyrt" "$@" </dev/null >"$work/out" 2>"$work/err"
  rc=$?
}
pins=(--pins "$fx/pins.yaml")
not_has() { ! has "$1" "$2"; }
snapshot() { find "$1" -printf '%p %u %m %s %T@ %C@\n' | LC_ALL=C sort; }

# --- (b) a root-owned shared box ----------------------------------------------
mkdir -m 0755 "$work/opt"
box=$work/opt/agent
run install --box-root "$box" "${pins[@]}" --from-file "$fx/runtime.tar.gz" \
  --wheelhouse "$fx/wheelhouse" --yes
check "setup: root installs the shared box with its baseline" rc_is 0
mkdir -p -m 0755 "$box/plugins/cowork"
printf 'name: cowork\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - python-docx\n' \
  >"$box/plugins/cowork/plugin.yaml"
chmod 0644 "$box/plugins/cowork/plugin.yaml"
# Root's caches (digests remembered once files are 2 s old, parsed plugin
# manifests) exist before the other user looks, so their privacy is tested.
sleep 2.2
run status --box-root "$box" "${pins[@]}"
check "setup: root's status is ready" rc_is 0
run plugins --box-root "$box" "${pins[@]}"

before=$(snapshot "$box")

run_other status --json --box-root "$box" "${pins[@]}"
check "uid $other: status --json exits 0" rc_is 0
check "... and says ready" has '"state": *"ready"' out
check "... with the baseline complete" has '"state": *"complete"' out
run_other status --box-root "$box" "${pins[@]}"
check "uid $other: plain status exits 0 and is not refused" \
  eval 'rc_is 0 && not_has "owned by uid 0" err'
run_other status --deep --box-root "$box" "${pins[@]}"
check "uid $other: status --deep (the interpreter started) exits 0" rc_is 0
run_other plugins --json --box-root "$box" "${pins[@]}"
check "uid $other: plugins exits 0" rc_is 0
check "... cowork is ready" has '"verdict": *"ready"' out
run_other doctor --box-root "$box" "${pins[@]}"
check "uid $other: doctor exits 0 (every check passes read-only)" rc_is 0
[ "$rc" -eq 0 ] || { cat "$work/out" "$work/err"; }
run_other verify --box-root "$box" "${pins[@]}"
check "uid $other: verify exits 0 (the tree and its manifest are readable)" rc_is 0
[ "$rc" -eq 0 ] || cat "$work/out" "$work/err"
mkdir -m 0700 "$ohome/docs"
chown "$other:$other" "$ohome/docs"
run_other smoke --box-root "$box" "${pins[@]}" --out "$ohome/docs/smoke.docx"
check "uid $other: smoke exits 0" rc_is 0
[ "$rc" -eq 0 ] || cat "$work/err"
check "... its .docx is in its own folder, owned by it" \
  eval '[ "$(stat -c %u "$ohome/docs/smoke.docx" 2>/dev/null)" = "$other" ]'
as_other "$box/runtime/python/current/bin/python3" -c \
  'import docx, sys; print(sys.version_info[:2])' >"$work/out" 2>"$work/err"
rc=$?
check "uid $other: the interpreter runs and imports the baseline" rc_is 0

refused_as_root() {
  rc_is 16 && has 'run it as root' err && has 'sudo pyrt' err &&
    not_has 'owned by uid 0' err
}
run_other install --box-root "$box" "${pins[@]}" --from-file "$fx/runtime.tar.gz" --yes
check "uid $other: install is refused with exit 16 and the fix (run it as root)" refused_as_root
run_other install --box-root "$box" "${pins[@]}" --from-file "$fx/runtime.tar.gz" --yes --json
check "... and in JSON its code is read_only" has '"code": *"read_only"' out
run_other baseline --box-root "$box" "${pins[@]}" --wheelhouse "$fx/wheelhouse" --yes
check "uid $other: baseline is refused with exit 16" refused_as_root
run_other plugins install cowork --box-root "$box" "${pins[@]}" --wheelhouse "$fx/wheelhouse" --yes
check "uid $other: plugins install is refused with exit 16" refused_as_root
run_other rollback --box-root "$box" "${pins[@]}" --yes
check "uid $other: rollback is refused with exit 16" refused_as_root
run_other uninstall --box-root "$box" "${pins[@]}" --yes
check "uid $other: uninstall is refused with exit 16" refused_as_root
run_other uninstall --box-root "$box" "${pins[@]}"
check "... and without --yes too, before any question" \
  eval 'refused_as_root && not_has "Uninstall?" out && not_has "Uninstall?" err'

# pyrt serve: its default socket would be in root's folder.
run_other serve --box-root "$box" "${pins[@]}"
check "uid $other: serve with the default socket is refused with exit 16 and both fixes" \
  eval 'rc_is 16 && has "sudo pyrt serve --box-root $box" err && has "--listen unix:" err'
odir=$(mktemp -d /tmp/pyrt-o.XXXX)
chown "$other:$other" "$odir"
chmod 0755 "$odir"
# Not through as_other: a function in the background is a subshell, and
# its pid is not the server's (a kill of it left the server running).
setpriv --reuid=$other --regid=$other --clear-groups \
  env HOME="$ohome" TMPDIR="$ohome" \
  "$pyrt" serve --box-root "$box" "${pins[@]}" --listen "unix:$odir/api.sock" \
  </dev/null >"$work/serve.out" 2>"$work/serve.err" &
spid=$!
e2e_wait_socket "$odir/api.sock" "$spid" "$work/serve.err"
check "uid $other: serve --listen on its own socket answers status: ready" \
  sh -c "curl -sf --unix-socket '$odir/api.sock' http://localhost/api/runtime/python | grep -q '\"state\": *\"ready\"'"
# A change it may not make is refused at once (403 read_only with the
# sudo line), never a 202 whose job fails later with exit 16.
api_post() { # PATH BODY -> code in $work/api.code, body in $work/api.json
  curl -s --unix-socket "$odir/api.sock" -o "$work/api.json" -w '%{http_code}' \
    -H 'Content-Type: application/json' -d "$2" "http://localhost$1" >"$work/api.code"
}
api_post /api/runtime/python/install '{"consent": true}'
check "uid $other: POST install through its server: 403 read_only with the sudo line, no job" \
  python3 -c '
import json, sys
code = open(sys.argv[1]).read().strip()
b = json.load(open(sys.argv[2]))
assert code == "403", code
assert b["error"]["code"] == "read_only", b
assert b["error"]["fix"].startswith("sudo pyrt install --box-root " + sys.argv[3]), b
' "$work/api.code" "$work/api.json" "$box"
api_post /api/runtime/python/baseline '{}'
check "uid $other: POST baseline: 403 read_only" \
  sh -c "grep -qx 403 '$work/api.code' && grep -q '\"read_only\"' '$work/api.json'"
kill -TERM "$spid"; wait "$spid"
# The server removes its socket as it exits: gone means it stopped.
check "the server stopped on SIGTERM (its socket is gone)" [ ! -e "$odir/api.sock" ]
rm -rf "$odir"

after=$(snapshot "$box")
check "nothing in the box changed while uid $other used it" [ "$before" = "$after" ]
[ "$before" = "$after" ] || diff <(echo "$before") <(echo "$after") | head -20
check "nothing in the box belongs to uid $other" \
  eval '[ -z "$(find "$box" -uid $other)" ]'

rp=$box/runtime/python
check "the marker is readable by every user (0644)" \
  eval 'as_other cat "$(readlink -f "$rp/current")/../marker.json" >/dev/null'
for private in logs downloads cache pip-home; do
  check "$private is root's alone (0700)" \
    eval '[ "$(stat -c "%a %u" "$rp/$private")" = "700 0" ]'
  check "... uid $other cannot list it" eval '! as_other ls "$rp/$private" >/dev/null 2>&1'
done
log=$(find "$rp/logs" -type f | head -1)
check "a log file exists and uid $other cannot read it" \
  eval '[ -n "$log" ] && ! as_other cat "$log" >/dev/null 2>&1'

# Root still changes it, and the box stays shared; a box an older pyrt made
# 0700 is opened up (r-x, never w) by root's next install.
chmod 0700 "$box" "$box/runtime" "$rp" "$rp/installs"
run_other status --box-root "$box" "${pins[@]}"
check "setup: a 0700 box is out of uid $other's reach" eval '! rc_is 0'
run install --box-root "$box" "${pins[@]}" --from-file "$fx/runtime.tar.gz" \
  --wheelhouse "$fx/wheelhouse" --yes --force
check "root reinstalls the shared box" rc_is 0
run_other status --json --box-root "$box" "${pins[@]}"
check "uid $other: ready again after root's reinstall" \
  eval 'rc_is 0 && has "\"state\": *\"ready\"" out'
check "... the runtime tree is 0755, private state still 0700" \
  eval '[ "$(stat -c %a "$box" "$rp" "$rp/installs" "$rp/logs" "$rp/downloads" | tr "\n" " ")" = "755 755 755 700 700 " ]'

# --- a box another non-root user owns: refused ---------------------------------
mkdir -m 0755 "$work/u1234"
cp -a "$box" "$work/u1234/box"
chown -R 1234:1234 "$work/u1234/box"
run_other status --box-root "$work/u1234/box" "${pins[@]}"
check "uid $other: a box owned by uid 1234 is refused (exit 14)" \
  eval 'rc_is 14 && has "owned by uid 1234" out'
run status --box-root "$work/u1234/box" "${pins[@]}"
check "root: a box owned by uid 1234 is refused (exit 14)" rc_is 14

# --- (a) the box belongs to the user who runs the app --------------------------
mkdir -m 0755 "$work/users"
mkdir -m 0700 "$work/users/other"
chown "$other:$other" "$work/users/other"
mine=$work/users/other/box
run_other install --box-root "$mine" "${pins[@]}" --from-file "$fx/runtime.tar.gz" \
  --wheelhouse "$fx/wheelhouse" --yes
check "uid $other installs a box of its own" rc_is 0
[ "$rc" -eq 0 ] || cat "$work/err"
check "... owned by it" eval '[ "$(stat -c %u "$mine/runtime/python")" = "$other" ]'
run_other status --json --box-root "$mine" "${pins[@]}"
check "... its status is ready" eval 'rc_is 0 && has "\"state\": *\"ready\"" out'
run_other baseline --box-root "$mine" "${pins[@]}" --wheelhouse "$fx/wheelhouse" --yes
check "... and it may change it (baseline exits 0)" rc_is 0
run_other smoke --box-root "$mine" "${pins[@]}" --out "$ohome/docs/mine.docx"
check "... smoke exits 0" rc_is 0
run status --box-root "$mine" "${pins[@]}"
check "root refuses uid $other's box (exit 14: root trusts only its own)" rc_is 14

e2e_finish
