#!/usr/bin/env bash
# ctest: e2e_inject
# End to end: text someone else chose never reaches a terminal or a log as
# a control.  Plugin manifests, a plugin directory name and a requires_pip
# entry carry OSC 52 (clipboard write), CSI sequences and C1 controls
# (U+009B CSI, U+009D OSC as UTF-8; 0x9B, 0x9D as raw bytes); every command
# that shows them (plugins, plugins install, install and its log, status,
# doctor, verify, their --json forms) must put no ESC, no C1 (raw or as
# UTF-8), no other control but '\n' and no malformed UTF-8 on stdout,
# stderr or in the install log, while still showing the rest of the text.
# The pins' build string with the same payload is refused at its line (it
# would name a directory), cleanly.  And a --box-root with byte 0xFF still
# gets its --json result line.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup inject fixtures

# inert FILE...: strict UTF-8, no ESC, no C1 code point, no control but
# '\n'; names the first offence.
inert() {
  python3 - "$@" <<'EOF'
import sys
bad = 0
for path in sys.argv[1:]:
    data = open(path, "rb").read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        print("# %s: malformed UTF-8 at byte %d: %r" % (path, e.start, data[max(0, e.start - 20):e.start + 20]), file=sys.stderr)
        bad = 1
        continue
    for i, ch in enumerate(text):
        o = ord(ch)
        if (o < 0x20 and ch != "\n") or o == 0x7f or 0x80 <= o <= 0x9f:
            print("# %s: control U+%04X at %d: %r" % (path, o, i, text[max(0, i - 30):i + 30]), file=sys.stderr)
            bad = 1
            break
sys.exit(bad)
EOF
}
# shown TEXT FILE...: the hostile payload's printable rest is there (the
# output was not just dropped).
shown() {
  local t=$1; shift
  grep -qaF -- "$t" "$@" && return 0
  echo "# none of $* shows: $t; they hold:" >&2; cat -v "$@" | sed "s|^|# |" >&2; return 1
}

box=$work/box
mkdir -p "$box/plugins"
cp -R "$src/tests/fixtures/sample-box/plugins/careercoach" "$box/plugins/"
# YAML escapes put the controls in: \e is ESC, \a BEL, \u009d OSC, ...
mkdir -p "$box/plugins/evil" "$box/plugins/evil2"
cat >"$box/plugins/evil/plugin.yaml" <<'EOF'
name: evil
enabled: true
requires_pip:
  - "python-docx\u009d52;c;aGk=\u009c"
EOF
cat >"$box/plugins/evil2/plugin.yaml" <<'EOF'
name: "evil2\u009b31m\u009d52;c;aGk=\u009c"
enabled: true
requires_pip: [python-docx]
EOF
# A directory name is bytes: ESC, BEL and raw 0x9B, 0x9D.
rawdir="$box/plugins/$(printf 'raw\033]52;c;aGk=\007\23331m\235')"
mkdir -p "$rawdir"
printf 'name: raw\nenabled: true\n' >"$rawdir/plugin.yaml"
# The pins' build string with C1 as UTF-8: it would become the install's
# directory name and a marker field, so the pins are refused at its line,
# and the refusal itself is clean.
sed 's/build: "fixture"/build: "fixture\\u009d52;c;aGk=\\u009c\\u009b2J"/' \
  "$fx/pins.yaml" >"$work/pins-evil.yaml"
grep -q 'u009d52' "$work/pins-evil.yaml" || { echo "FAIL - the hostile pins file"; exit 1; }
common=(--box-root "$box" --pins "$fx/pins.yaml")
outs=()
# go NAME ARGS...: run pyrt, keep its stdout and stderr as NAME.out/.err.
go() {
  local name=$1; shift
  "$pyrt" "$@" </dev/null >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
  outs+=("$work/$name.out" "$work/$name.err")
}

go plugins0 plugins "${common[@]}"
check "plugins before the runtime: clean" inert "$work/plugins0.out" "$work/plugins0.err"
check "... and the hostile rows are still shown" \
  eval 'shown "52;c;aGk=" "$work/plugins0.out" && shown "raw" "$work/plugins0.out"'

go evil install --yes --no-baseline --from-file "$fx/runtime.tar.gz" --box-root "$box" \
  --pins "$work/pins-evil.yaml"
check "the hostile build string is refused (exit 11, pins)" rc_is 11
check "... its message is clean" inert "$work/evil.out" "$work/evil.err"
check "... and names the file, the line and the field" \
  shown "pins-evil.yaml:7: runtime.build: expected a build like 20260814" "$work/evil.err"
check "... and shows the rest of the value" shown '"fixture 52;c;aGk=' "$work/evil.err"
go evilj install --yes --json --no-baseline --from-file "$fx/runtime.tar.gz" --box-root "$box" \
  --pins "$work/pins-evil.yaml"
check "... in --json too, clean" inert "$work/evilj.out" "$work/evilj.err"

go install install --yes --no-baseline --from-file "$fx/runtime.tar.gz" "${common[@]}"
check "the install succeeds" rc_is 0
check "install's stdout and stderr are clean" inert "$work/install.out" "$work/install.err"
log=$(ls "$box"/runtime/python/logs/install-*.log 2>/dev/null | head -1)
check "the install log exists" [ -n "$log" ]
check "the install log is clean" inert "$log"

go installj install --yes --json --no-baseline --force --from-file "$fx/runtime.tar.gz" "${common[@]}"
check "install --json is clean (controls escaped)" inert "$work/installj.out" "$work/installj.err"
logs=("$box"/runtime/python/logs/install-*.log)
check "every install log is clean" inert "${logs[@]}"

go plugins plugins "${common[@]}"
check "plugins with the runtime: clean" inert "$work/plugins.out" "$work/plugins.err"
check "... the evil2 row shows its error" shown 'name "evil2 31m 52;c;aGk=' "$work/plugins.out"
go pluginsj plugins --json "${common[@]}"
check "plugins --json: clean, and parseable" \
  eval 'inert "$work/pluginsj.out" "$work/pluginsj.err" && python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$work/pluginsj.out"'

# The requires_pip entry with U+009D: refused (or tried) — whatever pyrt
# says about it, the message and the matrix row are clean.
go pinst plugins install evil --wheelhouse "$fx/wheelhouse" "${common[@]}"
check "plugins install of the hostile requirement fails" [ "$rc" -ne 0 ]
check "... its messages are clean" inert "$work/pinst.out" "$work/pinst.err"
check "... and name the requirement" shown "52;c;aGk=" "$work/pinst.out" "$work/pinst.err"
go pinstj plugins install evil --json --wheelhouse "$fx/wheelhouse" "${common[@]}"
check "... in --json too" inert "$work/pinstj.out" "$work/pinstj.err"

go status status "${common[@]}"
check "status is clean" inert "$work/status.out" "$work/status.err"
go statusj status --json "${common[@]}"
check "status --json is clean" inert "$work/statusj.out"

go doctor doctor "${common[@]}"
check "doctor is clean" inert "$work/doctor.out" "$work/doctor.err"
go doctorj doctor --json "${common[@]}"
check "doctor --json is clean" inert "$work/doctorj.out" "$work/doctorj.err"

go verify verify "${common[@]}"
check "verify is clean" inert "$work/verify.out" "$work/verify.err"
check "every output of this script was clean" inert "${outs[@]}"

# --- a box root with byte 0xFF: --json still ends with its result ------------
ffbox="$work/box-$(printf '\377')"
go ff install --yes --json --no-baseline --from-file "$fx/runtime.tar.gz" \
  --box-root "$ffbox" --pins "$fx/pins.yaml"
check "install into a 0xFF box root exits 0" rc_is 0
check "its --json ends with a parseable result line" python3 -c '
import json, sys
lines = open(sys.argv[1], "rb").read().decode("utf-8").splitlines()
res = json.loads(lines[-1])
assert res["event"] == "result" and res["ok"] is True, res
assert "/box-\ufffd/runtime/python/installs/" in res["install_dir"], res
for l in lines:
    json.loads(l)' "$work/ff.out"
go ffs status --json --box-root "$ffbox" --pins "$fx/pins.yaml"
check "status --json on the 0xFF box root is one parseable object" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["state"] == "ready" and "/box-\ufffd/" in d["path"], d' "$work/ffs.out"
go ffl install --yes --no-baseline --from-file "$fx/runtime.tar.gz" \
  --box-root "$ffbox" --pins "$fx/pins.yaml" --force
check "the lines front on the 0xFF box root writes valid UTF-8" inert "$work/ffl.out" "$work/ffl.err"

e2e_finish
