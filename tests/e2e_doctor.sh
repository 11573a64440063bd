#!/usr/bin/env bash
# ctest: e2e_doctor
# End to end: `pyrt doctor` and `pyrt smoke` through the real binary — exit
# codes, the table's glyphs and words, the JSON contract, redaction of proxy
# credentials, the support bundle, and a smoke test against the fixture
# runtime before and after python-docx is installed from the wheelhouse.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup doctor fixtures
box=$work/box
pins=$fx/pins.yaml

json()  { python3 -c "import json, sys; d = json.load(open('$work/out')); sys.exit(0 if ($1) else 1)"; }

# --- doctor on an empty box ----------------------------------------------------
run doctor --box-root "$box" --pins "$pins" --cacert "$fx/ca.pem"
check "doctor on an empty box exits 1" rc_is 1
check "doctor names the install fix" has 'fix: pyrt install' out
check "doctor writes nothing" [ ! -e "$box" ]
LANG=C.UTF-8 run doctor --box-root "$box" --pins "$pins"
check "UTF-8 locale: glyphs" eval 'has "^✗ Runtime present" out && has "^- Marker" out && has "^✓ Platform" out'
LC_ALL=C LANG=C run doctor --box-root "$box" --pins "$pins"
check "C locale: words" eval 'has "^FAIL Runtime present" out && has "^SKIP Marker" out && has "^PASS Platform" out'
run doctor --json --box-root "$box" --pins "$pins"
check "doctor --json exits 1 too" rc_is 1
check "doctor --json: ok false and ids in order" json \
  "d['ok'] is False and [c['id'] for c in d['checks']][:5] == ['platform', 'pins', 'box_root', 'lock', 'runtime']"
check "doctor --json: every check has the five keys" json \
  "all(set(c) == {'id', 'title', 'verdict', 'detail', 'fix'} for c in d['checks'])"
check "doctor --json: runtime fails with its fix" json \
  "[c for c in d['checks'] if c['id'] == 'runtime'][0]['fix'] == 'pyrt install'"
run doctor --box-root "$box" --pins "$pins" --pins-typo
check "an unknown option exits 2" rc_is 2
run doctor --box-root "$box" --pins "$pins" --out x.docx
check "smoke's --out on doctor exits 2" eval 'rc_is 2 && has "--out" err'
run doctor extra --box-root "$box" --pins "$pins"
check "doctor refuses a stray argument" eval 'rc_is 2 && has "extra" err'
run doctor --box-root "$box" --pins "$pins" --cacert "$work/no-such.pem" --json
check "an unreadable --cacert is a failed check, not a usage error" \
  eval 'rc_is 1 && json "[c for c in d[\"checks\"] if c[\"id\"] == \"ca_bundle\"][0][\"verdict\"] == \"fail\""'

# --- proxy credentials never appear ------------------------------------------------
https_proxy=http://alice:s3cret-pw@proxy.example:3128 run doctor --json --box-root "$box" --pins "$pins"
check "proxy shown as scheme://host:port" has 'https_proxy=http://proxy.example:3128' out
check "proxy password not shown" eval '! has "s3cret-pw" out && ! has "alice" out'

# --- smoke and doctor with the fixture runtime ------------------------------------------
run smoke --box-root "$box"
check "smoke without a runtime exits 1 naming pyrt install" eval 'rc_is 1 && has "pyrt install" err'
run install --yes --no-baseline --box-root "$box" --pins "$pins" --from-file "$fx/runtime.tar.gz"
check "fixture install" rc_is 0
run smoke --box-root "$box" --json
check "smoke without python-docx exits 1" rc_is 1
check "smoke --json names the fix" json "d['ok'] is False and d['code'] == 'not_ready' and 'pyrt baseline' in d['error']"
"$box/runtime/python/current/bin/python3" -I -m pip install -q --no-index \
  --find-links "$fx/wheelhouse" --disable-pip-version-check python-docx >/dev/null 2>&1
check "python-docx from the wheelhouse" [ $? -eq 0 ]
run smoke --box-root "$box" --out "$work/x.docx"
check "smoke passes" rc_is 0
check "smoke says where and what" has "smoke test passed: $work/x.docx holds \"pyrt smoke test " out
para=$(sed -n 's/.*holds "\(pyrt smoke test [0-9a-f]*\)".*/\1/p' "$work/out")
check "the paragraph was printed" [ ${#para} -eq 32 ]
check "the kept document holds the paragraph" \
  python3 -c "import sys, zipfile; x = zipfile.ZipFile(sys.argv[1]).read('word/document.xml').decode(); sys.exit(0 if '>' + sys.argv[2] + '<' in x else 1)" "$work/x.docx" "$para"
run smoke --box-root "$box" --json
check "smoke --json" eval 'rc_is 0 && json "d[\"ok\"] is True and d[\"docx\"] is None and d[\"paragraph\"].startswith(\"pyrt smoke test \")"'
check "no smoke workspace left" eval '! ls -d "$box"/runtime/python/smoke-* >/dev/null 2>&1'

mkdir -p "$box/runtime/python/logs"
printf 'install log\nAuthorization: Bearer tok-secret-1\nFAKE_TOKEN=tok-secret-2\n' \
  >"$box/runtime/python/logs/install-29990101T000000Z-1.log"
run doctor --box-root "$box" --pins "$pins" --cacert "$fx/ca.pem" --bundle "$work/b.tar.gz"
check "doctor exits 1 while the baseline is missing" eval 'rc_is 1 && has "fix: pyrt baseline" out'
check "bundle written and announced" has "support bundle written" err
check "bundle is 0600" [ "$(stat -c %a "$work/b.tar.gz")" = 600 ]
check "bundle members, in one top-level folder" eval '[ "$(tar tzf "$work/b.tar.gz" | sort | tr "\n" " ")" = "pyrt-bundle/doctor.json pyrt-bundle/install.log pyrt-bundle/marker.json pyrt-bundle/platform.txt " ]'
check "bundle holds no secret" eval '! tar xzf "$work/b.tar.gz" -O | grep -q "tok-secret"'
check "bundle keeps the log" eval 'tar xzf "$work/b.tar.gz" -O pyrt-bundle/install.log | grep -q "^install log"'
# --bundle - : the same tar.gz on stdout, the table on stderr.
"$pyrt" doctor --box-root "$box" --pins "$pins" --cacert "$fx/ca.pem" --bundle - </dev/null \
  >"$work/b2.tar.gz" 2>"$work/err"
check "--bundle - writes the bundle to stdout" \
  eval '[ "$(tar tzf "$work/b2.tar.gz" | sort | head -1)" = "pyrt-bundle/doctor.json" ]'
check "--bundle - puts the table on stderr" has "doctor: " err
run doctor --json --box-root "$box" --pins "$pins" --cacert "$fx/ca.pem"
check "runtime, marker, interpreter, pep668 pass; baseline fails" json \
  "all({c['id']: c['verdict'] for c in d['checks']}[k] == v for k, v in dict(runtime='pass', marker='pass', interpreter='pass', pep668='pass', baseline='fail').items())"

# --- doctor writes nothing into the box ----------------------------------------
# With a ready runtime and a plugin that needs it, the plugin check runs the
# interpreter; the box must come out exactly as it went in (names, types,
# modes, owners, sizes, mtimes and ctimes of everything under it).
mkdir -p "$box/plugins/cowork"
printf 'name: cowork\nrequires_tools: [execute_code]\nrequires_pip: [python-docx]\n' \
  >"$box/plugins/cowork/plugin.yaml"
listing() { find "$box" -printf '%p %y %m %U %s %T@ %C@\n' | LC_ALL=C sort; }
listing >"$work/box-before"
TMPDIR=$work/tmp; mkdir -p "$TMPDIR"
TMPDIR=$TMPDIR run doctor --json --box-root "$box" --pins "$pins" --cacert "$fx/ca.pem"
listing >"$work/box-after"
check "the plugin check ran the interpreter" json \
  "any('1 requirement(s) met' in c['detail'] for c in d['checks'])"
check "doctor left the box exactly as it was" diff "$work/box-before" "$work/box-after"
check "and left nothing in TMPDIR" [ -z "$(ls -A "$TMPDIR")" ]

e2e_finish
