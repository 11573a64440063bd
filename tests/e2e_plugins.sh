#!/usr/bin/env bash
# ctest: e2e_plugins
# End to end: `pyrt plugins` on the sample box of the seed bug report — the
# table and the DESIGN.md JSON shape, exit codes, usage errors of
# `plugins install`, then with the fixture runtime installed offline:
# `plugins install careercoach --wheelhouse` makes it ready, and cowork stays
# missing_deps naming what is missing and its fix.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup plugins fixtures

box=$work/box
mkdir -p "$box"
cp -R "$src/tests/fixtures/sample-box/plugins" "$box/"
mkdir -p "$box/plugins/broken"
printf 'name: broken\nenabled: true\nrequires_pip: python-docx\n' >"$box/plugins/broken/plugin.yaml"
common=(--box-root "$box" --pins "$fx/pins.yaml")

# row NAME: the table row of plugin NAME (first word matches).
row() { awk -v n="$1" '$1 == n' "$work/out"; }

# json_check PY: run a python assertion over the JSON in out as `d`.
json_check() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = {p["name"]: p for p in d["plugins"]}
box, pins = sys.argv[3], sys.argv[4]
exec(sys.argv[2])' "$work/out" "$1" "$box" "$fx/pins.yaml"
}

# --- no runtime ---------------------------------------------------------------
run plugins "${common[@]}"
check "plugins without a runtime exits 1" rc_is 1
check "the first line is about the runtime" \
  eval 'head -1 "$work/out" | grep -q "^runtime not_provisioned: .*pyrt install"'
check "the header names the columns" \
  eval 'sed -n 2p "$work/out" | grep -Eq "^PLUGIN +ENABLED +RUNTIME +DEPS +VERDICT +FIX$"'
check "cowork needs the runtime, fix pyrt install" \
  eval 'row cowork | grep -Eq "needs_runtime +pyrt install --box-root $box --pins $fx/pins.yaml$"'
check "github needs no runtime" eval 'row github | grep -q no_runtime_needed'
check "execute_code is disabled" eval 'row execute_code | grep -q disabled'
check "the malformed manifest is its own row with the error" \
  eval 'row broken | grep -q invalid && has "error: .*plugins/broken/plugin.yaml:3: requires_pip must be a list of strings" out'

run plugins --json "${common[@]}"
check "plugins --json exits 1 too" rc_is 1
check "plugins --json has exactly the DESIGN.md fields" json_check '
keys = {"name","enabled","needs_runtime","verdict","requires","installed","missing","conflicts","fix","error"}
assert list(d) == ["plugins"], list(d)
assert all(set(p) == keys for p in d["plugins"]), d
assert [p["name"] for p in d["plugins"]] == sorted(rows), "sorted by name"
assert len(rows) == 8
c = rows["cowork"]
assert c["verdict"] == "needs_runtime" and c["enabled"] is True and c["needs_runtime"] is True, c
assert c["requires"] == ["python-docx", "openpyxl", "python-pptx", "reportlab"], c
assert c["fix"] == "pyrt install --box-root %s --pins %s" % (box, pins) and c["error"] is None, c
assert rows["notes"]["verdict"] == "no_runtime_needed" and rows["notes"]["fix"] is None
assert rows["execute_code"]["verdict"] == "disabled"
b = rows["broken"]
assert b["verdict"] == "invalid" and "requires_pip must be a list of strings" in b["error"], b
'

# --- usage errors ---------------------------------------------------------------
run plugins frobnicate "${common[@]}"
check "an unknown subcommand exits 2 naming it" eval 'rc_is 2 && has frobnicate err'
run plugins install "${common[@]}"
check "install without a name exits 2" rc_is 2
run plugins --wheelhouse "$fx/wheelhouse" "${common[@]}"
check "--wheelhouse without install exits 2" eval 'rc_is 2 && has "install NAME" err'
run plugins --deep "${common[@]}"
check "a status-only option on plugins exits 2" eval 'rc_is 2 && has "--deep" err'
run plugins install nosuch "${common[@]}"
check "an unknown plugin exits 2 listing the known ones" \
  eval 'rc_is 2 && has "no plugin named .nosuch." err && has "careercoach" err && has "cowork" err'
run plugins install broken "${common[@]}"
check "an invalid plugin exits 2 with its error" \
  eval 'rc_is 2 && has "requires_pip must be a list of strings" err'
run plugins install careercoach "${common[@]}"
check "install without a runtime says so (exit 1)" \
  eval 'rc_is 1 && has "not ready" err && has "pyrt install" err'

# --- with the fixture runtime -------------------------------------------------
run install --yes --no-baseline --from-file "$fx/runtime.tar.gz" "${common[@]}"
check "the fixture runtime installs offline" rc_is 0

run plugins "${common[@]}"
check "with the runtime: careercoach is missing python-docx" \
  eval 'row careercoach | grep -Eq "0/1 ok; missing: python-docx +missing_deps +pyrt plugins install careercoach --box-root $box --pins $fx/pins.yaml$"'
check "the runtime line says ready" eval 'head -1 "$work/out" | grep -q "^runtime ready: "'
run plugins -q "${common[@]}"
n_plugins=$(ls "$box/plugins" | wc -l)
check "-q: exit 1 still" rc_is 1
check "-q: no table, no runtime line" eval '! has "^PLUGIN" out && ! has "^runtime " out'
check "-q: careercoach's line with its fix" \
  has "^plugin careercoach: missing_deps (deps: 0/1 ok; missing: python-docx) — fix: pyrt plugins install careercoach --box-root $box --pins $fx/pins.yaml$" out
check "-q: the broken plugin's line with its error" eval 'has "^plugin broken: invalid" out && has "^  error: .*requires_pip must be a list of strings" out'
check "-q: the one-line result last" eval 'tail -1 "$work/out" | grep -Eq "^plugins: [0-9]+ of $n_plugins need a fix; runtime ready$"'
check "-q: nothing on stderr" [ ! -s "$work/err" ]

run plugins install careercoach --wheelhouse "$fx/wheelhouse" "${common[@]}"
check "plugins install careercoach exits 0" rc_is 0
check "it says the new verdict, on stdout" has "plugin careercoach: ready" out
check "its pip step is named for the plugin, not the baseline" \
  eval 'has "^plugin install: begin" err && ! has "^baseline:" err'

run plugins install cowork --json --wheelhouse "$fx/wheelhouse" "${common[@]}"
check "plugins install cowork fails on python-pptx (plugin exit 15)" rc_is 15
check "its NDJSON has the plugin's new row before the result" python3 -c '
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
kinds = [e["event"] for e in evs]
assert kinds[-2:] == ["plugin", "result"], kinds
p = evs[-2]["plugin"]
assert p["name"] == "cowork" and p["verdict"] == "missing_deps", p
assert p["missing"] == ["python-pptx"], p
assert evs[-1]["ok"] is False and "python-pptx" in evs[-1]["error"], evs[-1]
assert evs[-1]["code"] == "plugin" and evs[-1]["exit_code"] == 15, evs[-1]
' "$work/out"
check "its NDJSON names the pip step plugins, never baseline" python3 -c '
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
steps = [e["step"] for e in evs if e["event"] in ("step", "progress")]
assert steps and set(steps) == {"plugins"}, steps
assert "baseline" not in open(sys.argv[1]).read(), "baseline named"
' "$work/out"

run plugins --json "${common[@]}"
check "plugins --json: careercoach ready, cowork missing_deps [python-pptx]" json_check '
cc, cw = rows["careercoach"], rows["cowork"]
assert cc["verdict"] == "ready" and cc["fix"] is None and cc["missing"] == [], cc
assert cc["installed"] == {"python-docx": "0.8.11"}, cc
assert cw["verdict"] == "missing_deps", cw
assert cw["missing"] == ["python-pptx"] and cw["conflicts"] == [], cw
assert cw["fix"] == "pyrt plugins install cowork --box-root %s --pins %s" % (box, pins), cw
assert set(cw["installed"]) == {"python-docx", "openpyxl", "reportlab"}, cw
'
check "no private HOME is left behind" \
  eval '! ls "$box/runtime/python/staging" | grep -q plugins-check'

# --- decided in C, without starting Python (issue 13) -------------------------
# traced RUN_NAME: pyrt plugins --json under strace; out, err and the trace.
traced() {
  strace -f -qq -e trace=execve -o "$work/trace.$1" \
    "$pyrt" plugins --json "${common[@]}" </dev/null >"$work/out" 2>"$work/err"
  rc=$?
  cp "$work/out" "$work/json.$1"
}
# execs NAME: how many programs other than pyrt itself the run started.
execs() { grep 'execve(' "$work/trace.$1" | grep -v -c "execve(\"$pyrt\""; }
memo=$box/runtime/python/cache/plugins-check.json
marker=$(ls "$box"/runtime/python/installs/*/marker.json)
cp "$marker" "$work/marker.saved"
# An older pyrt's marker: the same without search_path, its digest redone.
old_marker() {
  python3 - "$marker" <<'PY'
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
d.pop("digest"); d.pop("search_path")
canon = json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
d["digest"] = hashlib.sha256(canon.encode()).hexdigest()
open(sys.argv[1], "w").write(json.dumps(d, indent=2, sort_keys=True))
PY
}
check "the install recorded the checker's search path" \
  python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["search_path"]
assert "local/lib/python3.11/dist-packages" in p and all(not x.startswith("/") for x in p), p' "$marker"

rm -f "$memo"
traced c
check "plugins --json, memo removed: exit 1 (cowork misses python-pptx)" rc_is 1
check "plugins --json, memo removed: no interpreter started" eval '[ "$(execs c)" -eq 0 ]'
check "... and nothing remembered: there was nothing for Python" eval '[ ! -e "$memo" ]'

old_marker
rm -f "$memo"
traced py
check "an older marker without search_path still works (exit 1)" rc_is 1
check "... by starting the interpreter" eval 'grep -q "execve(\".*python3" "$work/trace.py"'
check "the JSON is byte-identical whichever decided" cmp -s "$work/json.c" "$work/json.py"

# A removed dist-info is seen by C at once, and Python agrees.
cp "$work/marker.saved" "$marker"
rm -rf "$box"/runtime/python/current/local/lib/python3.11/dist-packages/python_docx-*.dist-info
traced c2
check "a removed dist-info: careercoach missing_deps, no interpreter" eval '
  [ "$(execs c2)" -eq 0 ] && json_check "assert rows[\"careercoach\"][\"missing\"] == [\"python-docx\"], rows"'
old_marker
rm -f "$memo"
traced py2
check "... and Python says the same, byte for byte" cmp -s "$work/json.c2" "$work/json.py2"
cp "$work/marker.saved" "$marker"

# --- the manifests remembered by their bytes (core/pkgs/plugins_memo.h) --------------
# Each answer from the remembered rows must equal one with the memo removed
# (every plugin.yaml parsed), whatever changed in between.
manifests=$box/runtime/python/cache/plugin-manifests.json
# The scan memo (plugins_scan_memo.h, e2e_plugins_scan_memo) answers before
# this memo once the plugins have not changed for 2 s: a folder in its
# place keeps it out of this section (never read, never written), so what
# is tested here does not depend on how fast the machine runs it.
mkdir -p "$box/runtime/python/cache/plugins-scan"
# same_as_parsed TAG: plugins --json twice, remembered then parsed afresh.
same_as_parsed() {
  "$pyrt" plugins --json "${common[@]}" </dev/null >"$work/mem.$1" 2>/dev/null
  cp "$manifests" "$work/manifests.$1" 2>/dev/null
  rm -f "$manifests"
  "$pyrt" plugins --json "${common[@]}" </dev/null >"$work/fresh.$1" 2>/dev/null
  cmp -s "$work/mem.$1" "$work/fresh.$1" || { diff "$work/mem.$1" "$work/fresh.$1" | head -5 >&2; return 1; }
}
"$pyrt" plugins --json --box-root "$box" </dev/null >/dev/null 2>&1
check "plugins remembers the parsed manifests, owner-only" \
  eval '[ "$(stat -c %a "$manifests")" = 600 ]'
# --pins FILE loads libyaml for the pins; the built-in pins do not.
check "nothing changed: no plugin.yaml parsed (libyaml never loaded)" \
  eval '[ "$(LD_DEBUG=files "$pyrt" plugins --json --box-root "$box" </dev/null 2>&1 >/dev/null | grep -c "file=libyaml")" -eq 0 ]'
"$pyrt" plugins --json "${common[@]}" </dev/null >/dev/null 2>&1
check "remembered rows answer as parsed ones do" same_as_parsed a
# The same size and the same mtime: only the bytes differ.
pl=$box/plugins/careercoach/plugin.yaml
"$pyrt" plugins --json "${common[@]}" </dev/null >/dev/null 2>&1
t=$(stat -c %y "$pl")
sed -i 's/enabled: true/enabled: fals/' "$pl" && touch -d "$t" "$pl"
check "a manifest edited to the same size and mtime is parsed again" \
  eval 'same_as_parsed b && grep -q "enabled must be true or false" "$work/mem.b"'
sed -i 's/enabled: fals/enabled: true/' "$pl"
"$pyrt" plugins --json "${common[@]}" </dev/null >/dev/null 2>&1
mkdir -p "$box/plugins/later"
printf 'name: later\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip: [reportlab]\n' >"$box/plugins/later/plugin.yaml"
check "a plugin added is read" eval 'same_as_parsed c && grep -q "\"later\"" "$work/mem.c"'
"$pyrt" plugins --json "${common[@]}" </dev/null >/dev/null 2>&1
rm -rf "$box/plugins/later"
check "a plugin removed is gone" eval 'same_as_parsed d && ! grep -q "\"later\"" "$work/mem.d"'
check "... and so is its remembered row" eval '! grep -q "\"later\"" "$manifests"'
# A remembered row that lies about bytes it holds is never used: the
# stored bytes must equal the file's.  (The edit is sealed again with the
# file's checksum, core/util/cache_seal.h, as pyrt itself would write it: an
# unsealed edit is a miss, e2e_cache_damage.)
"$pyrt" plugins --json "${common[@]}" </dev/null >/dev/null 2>&1
python3 - "$manifests" <<'PY'
import json, sys
raw = open(sys.argv[1], "rb").read()
d = json.loads(raw[17:])
d["manifests"]["careercoach"]["enabled"] = False
d["manifests"]["cowork"]["yaml"] += "# not the file\n"
d["manifests"]["cowork"]["enabled"] = False
body = json.dumps(d, separators=(",", ":")).encode()
h = 0xcbf29ce484222325
for b in body:
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
open(sys.argv[1], "wb").write(b"%016x\n" % h + body)
PY
"$pyrt" plugins --json "${common[@]}" </dev/null >"$work/out" 2>/dev/null
check "a row stored for other bytes is not used" \
  json_check 'assert rows["cowork"]["enabled"] is True, rows["cowork"]'
check "... while a row stored for the very bytes is used (owner-only state, as every memo)" \
  json_check 'assert rows["careercoach"]["enabled"] is False, rows["careercoach"]'
printf '{not json' >"$manifests"
check "a corrupt memo is a miss" same_as_parsed e
"$pyrt" plugins --json "${common[@]}" </dev/null >/dev/null 2>&1
chown 12345 "$manifests"
"$pyrt" plugins --json "${common[@]}" </dev/null >"$work/out" 2>/dev/null
check "a memo another user owns is not read" \
  eval '[ "$(LD_DEBUG=files "$pyrt" plugins --json "${common[@]}" </dev/null 2>&1 >/dev/null | grep -c "file=libyaml")" -gt 0 ]'
rm -f "$manifests"
"$pyrt" doctor "${common[@]}" </dev/null >/dev/null 2>&1
check "doctor remembers nothing" [ ! -e "$manifests" ]
rmdir "$box/runtime/python/cache/plugins-scan"

e2e_finish
