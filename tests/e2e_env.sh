#!/usr/bin/env bash
# ctest: e2e_env
# `pyrt env` (issue 27's newcomer's command): every environment variable
# the manual's ENVIRONMENT section names is listed with its value here or
# "(unset)"; secrets in them (a proxy's password, an index token in the
# path, a mirror's userinfo, a query value) never reach the output, plain
# or --json; the JSON says set/value/for per variable; a stray word is a
# usage error.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup env
export PYRT_BOX_ROOT=$work/box https_proxy='http://bob:s3cretpw@proxy.example:3128'
export PYRT_INDEX_URL='https://pkgs.example/TOKENabc123xyz/simple/?auth=q1w2e3'
export PYRT_MIRROR_URL='https://mirroruser:m1rr0rpw@mirror.example/pbs'
unset NO_COLOR PIP_INDEX_URL
run env
check "pyrt env exits 0" rc_is 0
check "a variable set shows its value" grep -qE "^PYRT_BOX_ROOT +$work/box\$" "$work/out"
check "a variable unset says so" grep -qE '^NO_COLOR +\(unset\)$' "$work/out"
check "the proxy shows without its password" \
  grep -qE "^https_proxy +http://(\*\*\*@)?proxy.example:3128\$" "$work/out"
check "the index shows its host, its path hidden" grep -qE '^PYRT_INDEX_URL +https://pkgs.example/\*\*\*' "$work/out"
no_secret() { ! grep -qE 's3cretpw|bob|TOKENabc123xyz|q1w2e3|m1rr0rpw|mirroruser' "$1"; }
check "no secret in the plain output" no_secret "$work/out"
# Every variable the manual documents is listed.
"$pyrt" --help | sed -n '/^ENVIRONMENT/,/^FILES/p' |
  grep -oE '\b(PYRT_[A-Z_]+|CURL_CA_BUNDLE|SSL_CERT_FILE|NO_COLOR|XDG_DATA_HOME|HOME|TERM)\b' |
  sort -u >"$work/documented"
check "the manual documents variables" [ "$(wc -l <"$work/documented")" -ge 10 ]
missing=
while read -r v; do grep -qE "^$v " "$work/out" || missing="$missing $v"; done <"$work/documented"
check "pyrt env lists every variable the manual names (missing:${missing:- none})" [ -z "$missing" ]
run env --json
check "pyrt env --json exits 0" rc_is 0
check "no secret in the JSON" no_secret "$work/out"
check "the JSON: each variable's name, set, value and what for" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
v = {x["name"]: x for x in d["variables"]}
assert v["PYRT_BOX_ROOT"] == {"name": "PYRT_BOX_ROOT", "set": True,
    "value": sys.argv[2], "for": "default for --box-root"}, v["PYRT_BOX_ROOT"]
assert v["NO_COLOR"]["set"] is False and v["NO_COLOR"]["value"] is None
assert v["PYRT_MIRROR_URL"]["value"].startswith("https://mirror.example/"), v["PYRT_MIRROR_URL"]
' "$work/out" "$work/box"
run env extra
check "a stray word is a usage error (2)" eval 'rc_is 2 && has "unexpected argument" err'
e2e_finish
