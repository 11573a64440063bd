#!/usr/bin/env bash
# ctest: e2e_fix_literal
# Every fix pyrt prints is typed as printed (issue 29.1).  With --box-root
# (a path with a space), --pins and --cacert on the command line and the
# mirror and index in PYRT_MIRROR_URL / PYRT_INDEX_URL, the fix lines of
# status, doctor (text and --json), plugins (text and --json), smoke,
# verify and baseline, and the exit-16 refusals another user gets on
# root's box, are collected ("fix: …", run "…", "sudo pyrt …" and every
# JSON "fix"), and each one is run exactly as printed, in an environment
# without those variables (so the line alone must carry them), with a
# `pyrt` on PATH and `sudo` meaning "as root" (this test runs as root).  A
# fix that asks for consent is run again with --yes, as its refusal says.
# Each must act on the box in the sandbox: the box gets repaired, and
# ~/.local/share/pyrt never appears (nor would the built-in pins' download
# work: the machine is offline).
# Needs root (a second user for the exit-16 lines).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup fix_literal fixtures
[ "$(id -u)" -eq 0 ] || { echo "FAIL - e2e_fix_literal needs root (two users)"; exit 1; }
command -v setpriv >/dev/null || { echo "FAIL - setpriv (util-linux) is missing"; exit 1; }
chmod 0755 "$work"
e2e_mirror

# pip's index: the fixture wheelhouse over loopback HTTP.
idx=$work/index
e2e_simple_index "$idx"
e2e_serve_index "$idx"
export PYRT_MIRROR_URL=$mirror PYRT_INDEX_URL=http://127.0.0.1:$iport/simple/

mkdir -m 0755 "$work/opt"
box="$work/opt/my box"
pins=$work/opt/pins.yaml
ca=$work/opt/ca.pem
cp "$fx/pins.yaml" "$pins"
cp "$fx/ca.pem" "$ca"
chmod 0644 "$pins" "$ca"
o=(--box-root "$box" --pins "$pins" --cacert "$ca")
mkdir -m 0755 "$box" "$box/plugins" "$box/plugins/pdf"
# A plugin whose requirement is not in the baseline: its fix installs it.
printf 'name: pdf\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - reportlab\n' \
  >"$box/plugins/pdf/plugin.yaml"
chmod 0644 "$box/plugins/pdf/plugin.yaml"
bindir=$work/bin
mkdir -m 0755 "$bindir"
ln -s "$pyrt" "$bindir/pyrt"
default_box=$HOME/.local/share/pyrt

# collect: every fix line in out, err and (when JSON) its "fix" fields,
# appended to fixes (one per line, no duplicates).
collect() {
  python3 - "$work/out" "$work/err" >>"$work/fixes" <<'EOF'
import json, re, sys
found = []
for path in sys.argv[1:]:
    text = open(path, errors="replace").read()
    for m in re.finditer(r'fix: ((?:sudo )?pyrt [^\n]*)', text):
        found.append(m.group(1).strip())
    try:
        docs = [json.loads(text)]
    except ValueError:
        docs = []
    def quoted(t):
        # run "…", with "…" and "sudo pyrt …": what pyrt tells the user
        # to type (a quoted .docx paragraph is not one).
        for m in re.finditer(r'(?:(?:run|with) "|")((?:sudo pyrt |(?<=run ")pyrt |(?<=with ")pyrt )[^"\n]*)"', t):
            found.append(m.group(1))
    if not docs:
        quoted(text)
    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                if k == "fix" and isinstance(x, str) and re.match(r'(sudo )?pyrt ', x):
                    found.append(x)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str):
            quoted(v)
    for d in docs:
        walk(d)
for f in found:
    print(f)
EOF
  sort -u -o "$work/fixes" "$work/fixes"
}

# The fix lines of the reading commands, and of baseline, into fixes.
collect_all() {
  : >"$work/fixes"
  local args
  for args in "status" "status --json" "doctor" "doctor --json" "plugins" \
              "plugins --json" "smoke" "verify" "$@"; do
    # shellcheck disable=SC2086  # the command's words
    run $args "${o[@]}"
    collect
  done
}

# A fix with a placeholder (DIR, FILE, NAME, URL, ARCHIVE) is advice to
# fill in, not a command to run as it stands.
placeholder() { grep -Eq '(^| )(DIR|FILE|NAME|URL|ARCHIVE|KEY)( |$)' <<<"$1"; }

# follow FIX: run it as printed in this shell (whose PYRT_MIRROR_URL and
# PYRT_INDEX_URL stay where the user put them: pyrt never echoes them, they
# may hold credentials; with bare=1, without them), `sudo` being root (we
# are); once more with --yes when it asks for consent.  Sets rc, out, err.
bare=0
follow() {
  local fix=$1 yes
  local strip=()
  [ "$bare" = 1 ] && strip=(-u PYRT_MIRROR_URL -u PYRT_INDEX_URL)
  for yes in "" " --yes"; do
    env "${strip[@]}" PATH="$bindir:$PATH" \
      bash -c 'sudo() { "$@"; }; eval "$1$2"' _ "$fix" "$yes" </dev/null >"$work/out" 2>"$work/err"
    rc=$?
    grep -q 'needs consent' "$work/err" || break
  done
}

# follow_all WHAT: follow every runnable fix; each must end with 0 or 1 (a
# reading command's "not ready"), never a usage error or another box.
follow_all() {
  local what=$1 fix n=0
  while IFS= read -r fix; do
    placeholder "$fix" && continue
    n=$((n + 1))
    follow "$fix"
    check "$what: '$fix' runs as printed (rc $rc)" eval '[ "$rc" -le 1 ]'
    [ "$rc" -le 1 ] || sed 's/^/#   /' "$work/err" | head -5
    check "$what: ... and left ~/.local/share/pyrt alone" [ ! -e "$default_box" ]
  done <"$work/fixes"
  check "$what: there were fixes to follow ($n)" [ "$n" -gt 0 ]
}

every_fix_names_the_box() {
  local fix bad=0
  while IFS= read -r fix; do
    placeholder "$fix" && continue
    case $fix in
      *"--box-root '$box'"*"--pins $pins"*) ;;
      *) echo "# without the box or pins: $fix"; bad=1 ;;
    esac
  done <"$work/fixes"
  [ "$bad" -eq 0 ]
}

# --- 1. an empty box: every fix installs into it ------------------------------
collect_all baseline
check "empty box: the fixes name the box (quoted) and the pins" every_fix_names_the_box
check "empty box: no fix echoes the mirror or index of the environment" \
  eval '! grep -q -e "$mirror" -e "127.0.0.1:$iport" "$work/fixes"'
follow_all "empty box"
run status "${o[@]}"
check "empty box: after the fixes the box's runtime is ready" rc_is 0
run status --json "${o[@]}"
check "... installed from the pins given (build fixture)" has '"build": *"fixture"' out

# --- 2. a plugin that lacks its requirement -----------------------------------
collect_all
check "missing plugin deps: a fix installs the plugin" \
  grep -q "^pyrt plugins install pdf --box-root '$box' --pins $pins" "$work/fixes"
check "missing plugin deps: the fixes name the box and the pins" every_fix_names_the_box
follow_all "missing plugin deps"
run plugins --json "${o[@]}"
check "missing plugin deps: after the fixes pdf is ready" \
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if [p for p in d["plugins"] if p["name"]=="pdf"][0]["verdict"]=="ready" else 1)' "$work/out"

# --- 3. the interpreter deleted: the fix reinstalls --------------------------
rm -f "$box/runtime/python/current/bin/python3.11"
collect_all
check "broken runtime: the fix is install --force with the box and pins" \
  grep -q "^pyrt install --force --box-root '$box' --pins $pins" "$work/fixes"
check "broken runtime: the fixes name the box and the pins" every_fix_names_the_box
follow_all "broken runtime"
run status "${o[@]}"
check "broken runtime: after the fixes the runtime is ready again" rc_is 0

# --- 3b. the source options given as flags are repeated -----------------------
rm -f "$box/runtime/python/current/bin/python3.11"
: >"$work/fixes"
run doctor "${o[@]}" --mirror "$mirror" --index-url "http://127.0.0.1:$iport/simple/"
collect
check "doctor --mirror --index-url: the install fix repeats both" \
  grep -q "^pyrt install --force --box-root '$box' --pins $pins --cacert $ca --mirror $mirror --index-url http://127.0.0.1:$iport/simple/$" "$work/fixes"
bare=1
follow_all "flags, without the environment"
bare=0
run status "${o[@]}"
check "flags: after the fixes the runtime is ready again" rc_is 0
run doctor --json "${o[@]}" --mirror "https://u:secret@127.0.0.1:$port/pbs"
check "a mirror URL with credentials is never echoed" eval '! has secret out'

# --- 4. another user on root's box: the exit-16 lines -------------------------
other=65534
ohome=$work/other-home
mkdir -m 0700 "$ohome"
chown "$other:$other" "$ohome"
run_other() {
  setpriv --reuid=$other --regid=$other --clear-groups \
    env HOME="$ohome" TMPDIR="$ohome" "$pyrt" "$@" </dev/null >"$work/out" 2>"$work/err"
  rc=$?
}
: >"$work/fixes"
run_other install --force --yes "${o[@]}"
check "uid $other: install --force is refused with exit 16" rc_is 16
collect
check "... its fix keeps --force, the box and the pins" \
  grep -q "^sudo pyrt install --box-root '$box' --pins $pins --cacert $ca --force$" "$work/fixes"
run_other baseline "${o[@]}"
check "uid $other: baseline is refused with exit 16" rc_is 16
collect
run_other plugins install pdf "${o[@]}"
check "uid $other: plugins install is refused with exit 16" rc_is 16
collect
check "... each refusal's fix names the box and the pins" every_fix_names_the_box
follow_all "exit 16"

e2e_finish
