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
  "[c for c in d['checks'] if c['id'] == 'runtime'][0]['fix'] == 'pyrt install --box-root $box --pins $pins'"
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

# --- the network: the archive's host and the index, tried -------------------
# Loopback only: the mirror (HTTPS, the fixture CA), a dead port, a dead
# proxy in front of the pins' own host (which the proxy would resolve, so no
# name is looked up here), and a live CONNECT proxy that leads to the mirror.
e2e_mirror
net() { unset PYRT_DOCTOR_OFFLINE; "$@"; export PYRT_DOCTOR_OFFLINE=1; }
verdict() { json "[c for c in d['checks'] if c['id'] == '$1'][0]['verdict'] == '$2'"; }
detail_has() { json "'$2' in [c for c in d['checks'] if c['id'] == '$1'][0]['detail']"; }
fix_has() { json "'$2' in ([c for c in d['checks'] if c['id'] == '$1'][0]['fix'] or '')"; }
run doctor --json --box-root "$box" --pins "$pins"
check "offline (PYRT_DOCTOR_OFFLINE): no network checks" \
  json "not any(c['id'].startswith('net_') for c in d['checks'])"
net run doctor --json --box-root "$box" --pins "$pins" --cacert "$fx/ca.pem" \
  --mirror "$mirror" --index-url "https://127.0.0.1:$port/simple/"
check "doctor --mirror: the archive host passes" verdict net_archive pass
check "... over TLS verified with the CA in use" detail_has net_archive "127.0.0.1:$port: DNS, TCP and TLS (certificate verified)"
check "... direct, from --mirror" eval 'detail_has net_archive "direct (--mirror)"'
check "the index passes" eval 'verdict net_index pass && detail_has net_index "(--index-url)"'
check "the probe sent no request" eval '! grep -q "GET\|HEAD" "$work/requests.log" 2>/dev/null'
net run doctor --json --box-root "$box" --pins "$pins" --mirror "$mirror" \
  --index-url "https://127.0.0.1:$port/simple/"
check "the system CAs do not know the fixture CA: TLS fails" \
  eval 'verdict net_archive fail && detail_has net_archive "TLS:" && fix_has net_archive "--cacert FILE"'
dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
net run doctor --json --box-root "$box" --pins "$pins" --cacert "$fx/ca.pem" \
  --mirror "$mirror" --index-url "https://127.0.0.1:$dead/simple/"
check "a dead index port: TCP fails, doctor exits 1" \
  eval 'rc_is 1 && verdict net_index fail && detail_has net_index "TCP: cannot connect" && fix_has net_index "--wheelhouse DIR"'
https_proxy=http://ops:pr0xy-pw@127.0.0.1:$dead net run doctor --json --box-root "$box" --pins "$pins" \
  --index-url "https://pypi.invalid/simple/"
check "a dead proxy is tried, not just listed: the archive host fails" \
  eval 'verdict net_archive fail && detail_has net_archive "the proxy http://127.0.0.1:$dead (https_proxy) failed"'
check "... and so does the index, with the proxy fix" \
  eval 'verdict net_index fail && fix_has net_index "fix the proxy in https_proxy"'
check "the proxy password appears nowhere" eval '! has "pr0xy-pw" out && ! has "pr0xy-pw" err'
python3 "$src/tests/fixtures/proxy.py" --plain --port-file "$work/pport" --log "$work/proxy.log" \
  --lifetime 60 2>/dev/null &
proxy_pid=$!
for _ in $(seq 100); do [ -s "$work/pport" ] && break; sleep 0.1; done
https_proxy=http://127.0.0.1:$(cat "$work/pport") net run doctor --json --box-root "$box" --pins "$pins" \
  --cacert "$fx/ca.pem" --mirror "https://localhost.:$port/pbs" --index-url "https://localhost.:$port/simple/"
check "through a live proxy: both pass, naming the proxy" \
  eval 'verdict net_archive pass && detail_has net_archive "through the proxy http://127.0.0.1:"'
check "... and the proxy saw the CONNECT" grep -q "CONNECT localhost.:$port" "$work/proxy.log"
kill "$proxy_pid" 2>/dev/null; wait "$proxy_pid" 2>/dev/null
PYRT_MIRROR_URL=$mirror net run doctor --box-root "$box" --pins "$pins" --cacert "$fx/ca.pem" \
  --index-url "https://127.0.0.1:$port/simple/"
check "PYRT_MIRROR_URL counts for doctor too (table)" has "Archive host reachable   127.0.0.1:$port" out

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
check "smoke --json: seconds to the millisecond, not 17 digits" \
  eval 'grep -qE "\"seconds\": ?[0-9]+(\.[0-9]{1,3})?([,}]|$)" "$work/out"'
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
