#!/usr/bin/env bash
# ctest: e2e_cli
# End to end: the pyrt command line itself — help and version, option
# parsing (before/after the command, =value and separate value, unknown and
# misplaced options), consent without a terminal, the exit code classes, the
# status JSON contract, and an offline install/verify/rollback/uninstall round
# trip with a tiny stand-in runtime (no network, no fixtures needed).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup cli

# --- help and version ------------------------------------------------------
run --help
check "--help exits 0" rc_is 0
for cmd in install status verify rollback uninstall help version doctor plugins baseline smoke mirror; do
  check "--help mentions $cmd" grep -qw -- "$cmd" "$work/out"
done
for opt in --box-root --pins --cacert --json --yes --no-color --theme --verbose --quiet \
           --version --wheelhouse --requirements --from-file --mirror --no-baseline \
           --no-wait --force --deep --index-url --platform --wheelhouse-from PYRT_INDEX_URL PYRT_MIRROR_URL PIP_CONFIG_FILE=/dev/null \
           PYRT_BOX_ROOT PYRT_PINS CURL_CA_BUNDLE SSL_CERT_FILE \
           NO_COLOR EXIT 'EXAMPLES' 'runtime/python/current'; do
  check "--help mentions $opt" has "$opt" out
done
# The exit code table, line by line, exactly as documented.
while IFS='|' read -r code text; do
  check "--help lists exit code $code ($text)" \
    grep -qE "^ +$code  $(printf '%s' "$text" | sed 's/[][()/.*]/\\&/g')\$" "$work/out"
done <<'EOF'
0|ok / ready
1|not ready (status/doctor/verify found a problem)
2|usage
3|consent refused or required
4|network
5|verification (digest/size mismatch)
6|unsafe archive
7|busy (another installer, with --no-wait)
8|unsupported platform
9|disk/io
10|baseline
11|pins file invalid
12|interpreter check failed
13|internal/out of memory
14|box or input not trusted (someone else's, or writable by others)
15|plugin install (its requirements could not be installed)
16|read-only: the box is root's, shared with you — run the change as root
130|cancelled (Ctrl-C/SIGTERM/SIGHUP)
EOF
run -h
check "-h exits 0 with the short usage, not the manual" \
  eval 'rc_is 0 && has "pyrt --help: the manual" out && ! has "EXIT CODES" out'
run help
check "pyrt help prints the manual" eval 'rc_is 0 && has "EXIT CODES" out'
run status --help
check "pyrt status --help prints status usage" eval 'rc_is 0 && has "usage: pyrt status" out && has "--deep" out'
run --help install
check "pyrt --help install prints install usage" eval 'rc_is 0 && has "usage: pyrt install" out'
run help verify
check "pyrt help verify prints verify usage" eval 'rc_is 0 && has "usage: pyrt verify" out'

run --version
check "--version exits 0" rc_is 0
check "--version prints 'pyrt X.Y.Z'" grep -qE '^pyrt [0-9]+\.[0-9]+\.[0-9]+' "$work/out"
check "--version names the commit, platform, pins and libraries" eval '
  grep -qE "^pyrt [0-9.]+ \(commit ([0-9a-f]+|unknown)\)" "$work/out" &&
  grep -qE "^  platform: +[a-z0-9_]+-[a-z0-9_]+-(gnu|musl|none)$" "$work/out" &&
  grep -qE "^  pins: +builtin$" "$work/out" && has "libcurl:" out && has "libarchive" out &&
  has "OpenSSL" out && has "curses:" out'
# Every usage names each option that applies to its command.
for pair in "rollback --no-wait" "rollback --json" "uninstall --no-wait" "uninstall --yes" \
            "install --index-url" "baseline --index-url" "plugins --index-url" "version --json"; do
  hcmd=${pair% *} hopt=${pair#* }
  run help "$hcmd"
  check "pyrt help $hcmd lists $hopt" eval 'rc_is 0 && has "^  .*$hopt" out'
done
run -V
check "-V prints the version" eval 'rc_is 0 && grep -qE "^pyrt [0-9]" "$work/out"'
run version
check "pyrt version prints the version" eval 'rc_is 0 && grep -qE "^pyrt [0-9]" "$work/out"'

# --- usage errors ----------------------------------------------------------
run --frobnicate status
check "unknown option exits 2" rc_is 2
check "unknown option is named" has "--frobnicate" err
check "unknown option points to --help" has "see pyrt --help" err
run status --frobnicate=1
check "unknown option after the command exits 2 and is named" eval 'rc_is 2 && has "--frobnicate" err'
run -z
check "unknown short option exits 2 and is named" eval 'rc_is 2 && has "-z" err'
run frobnicate
check "unknown command exits 2 and is named" eval 'rc_is 2 && has "frobnicate" err'
run instal --box-root "$work/empty"
check "a mistyped command gets a did-you-mean" eval 'rc_is 2 && has "did you mean .install.?" err'
run status --box-rot "$work/empty"
check "a mistyped option gets a did-you-mean" eval 'rc_is 2 && has "did you mean --box-root?" err'
run help statu
check "pyrt help with a mistyped command gets a did-you-mean" eval 'rc_is 2 && has "did you mean .status.?" err'
run --box-root '~bob/x' status
check "~user in a path is refused by name" eval 'rc_is 2 && has "~bob/x" err && has "give the full path" err'
run status --json --box-root '~/tilde-box'
check "~/ in a path is expanded from HOME" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); assert d["path"]==sys.argv[2]+"/tilde-box/runtime/python/current", d' \
  "$work/out" "$HOME"
run status --box-root
check "missing option value exits 2" eval 'rc_is 2 && has "--box-root" err'
run status --json=yes
check "value given to a flag exits 2" eval 'rc_is 2 && has "--json" err'
run status --mirror https://example.invalid --box-root "$work/empty"
check "an install-only option on status exits 2 naming it" eval 'rc_is 2 && has "--mirror" err'
run status extra-word --box-root "$work/empty"
check "a stray argument exits 2 naming it" eval 'rc_is 2 && has "extra-word" err'
run --cacert "$work/no-such-ca.pem" status --box-root "$work/empty"
check "unreadable --cacert exits 2 naming the file" eval 'rc_is 2 && has "no-such-ca.pem" err'

# --- plugins on a box without plugins (tests/e2e_plugins.sh does the rest) ----
run plugins --box-root "$work/empty"
check "pyrt plugins with no plugins exits 0 and says so" eval 'rc_is 0 && has "no plugins in" out'
run plugins install cowork --box-root "$work/empty"
check "pyrt plugins install of an unknown plugin exits 2" eval 'rc_is 2 && has "no plugin named .cowork." err'

run baseline --box-root "$work/empty"
check "pyrt baseline without a runtime exits 1" rc_is 1
check "pyrt baseline without a runtime names the fix" \
  eval 'has "not provisioned" err && has "pyrt install" err'
check "pyrt baseline without a runtime creates nothing" [ ! -e "$work/empty" ]
run baseline --box-root "$work/empty" extra-word
check "pyrt baseline refuses a stray argument" eval 'rc_is 2 && has "extra-word" err'
run baseline --box-root "$work/empty" --mirror https://example.invalid
check "pyrt baseline refuses an install-only option" eval 'rc_is 2 && has "--mirror" err'

# --- every path, URL and combination is checked before anything is written --
vbox=$work/box-validate
printf 'python-docx\n' >"$work/req-ok.txt"
printf 'x\n' >"$work/not-an-archive"
usage_writes_nothing() { # usage_writes_nothing WHAT NEEDLE ARGS...
  local what=$1 needle=$2; shift 2
  run "$@" --box-root "$vbox"
  check "$what: exit 2" rc_is 2
  check "$what: the message names it" has "$needle" err
  check "$what: nothing written (no box, lock or log)" [ ! -e "$vbox" ]
}
usage_writes_nothing "install --from-file /nonexistent" "--from-file /nonexistent" \
  install --yes --from-file /nonexistent
usage_writes_nothing "install --from-file DIR" "not a regular file" \
  install --yes --from-file "$work"
usage_writes_nothing "install --mirror ftp://" "--mirror ftp://x/y" \
  install --yes --mirror ftp://x/y
usage_writes_nothing "install --mirror without a scheme" "--mirror mirror.example" \
  install --yes --mirror mirror.example/pbs
usage_writes_nothing "install --mirror plain http to a remote host" "https is required" \
  install --yes --mirror http://mirror.example/pbs
usage_writes_nothing "install --wheelhouse /nonexistent" "--wheelhouse /nonexistent" \
  install --yes --wheelhouse /nonexistent --mirror https://127.0.0.1:9/pbs
usage_writes_nothing "install --wheelhouse FILE" "--wheelhouse $work/req-ok.txt" \
  install --yes --wheelhouse "$work/req-ok.txt" --mirror https://127.0.0.1:9/pbs
usage_writes_nothing "install --index-url ftp://" "--index-url ftp://" \
  install --yes --index-url ftp://pypi.example/simple --mirror https://127.0.0.1:9/pbs
usage_writes_nothing "install --from-file with --mirror" "--from-file and --mirror conflict" \
  install --yes --from-file "$work/not-an-archive" --mirror https://127.0.0.1:9/pbs
usage_writes_nothing "install --no-baseline with --requirements" "--no-baseline and --requirements conflict" \
  install --yes --no-baseline --requirements "$work/req-ok.txt" --mirror https://127.0.0.1:9/pbs
usage_writes_nothing "install --no-baseline with --wheelhouse" "--no-baseline and --wheelhouse conflict" \
  install --yes --no-baseline --wheelhouse "$work" --mirror https://127.0.0.1:9/pbs
usage_writes_nothing "baseline --requirements /nonexistent" "/nonexistent" \
  baseline --requirements /nonexistent
usage_writes_nothing "baseline --wheelhouse /nonexistent" "--wheelhouse /nonexistent" \
  baseline --wheelhouse /nonexistent
usage_writes_nothing "smoke --out DIR" "is a directory" smoke --out "$work"
usage_writes_nothing "smoke --out in a missing directory" "does not exist" \
  smoke --out "$work/no/such/dir/x.docx"
usage_writes_nothing "doctor --bundle DIR" "is a directory" doctor --bundle "$work"
usage_writes_nothing "plugins --index-url without install" "plugins install NAME" \
  plugins --index-url https://pypi.example/simple
PYRT_INDEX_URL=gopher://x run baseline --box-root "$vbox"
check "PYRT_INDEX_URL is checked like --index-url, by name" \
  eval 'rc_is 2 && has "PYRT_INDEX_URL gopher://x" err && [ ! -e "$vbox" ]'
PYRT_MIRROR_URL=gopher://x run install --yes --no-baseline --box-root "$vbox"
check "PYRT_MIRROR_URL is checked like --mirror, by name" \
  eval 'rc_is 2 && has "PYRT_MIRROR_URL gopher://x" err && [ ! -e "$vbox" ]'
PYRT_MIRROR_URL=https://127.0.0.1:9/pbs run install --yes --from-file /nonexistent --box-root "$vbox"
check "--from-file beats PYRT_MIRROR_URL (no conflict, the file is checked)" \
  eval 'rc_is 2 && has "--from-file /nonexistent" err && ! has conflict err'
PYRT_INDEX_URL=gopher://x run install --yes --no-baseline --from-file /nonexistent --box-root "$vbox"
check "--no-baseline beats PYRT_INDEX_URL (no conflict)" \
  eval 'rc_is 2 && has "--from-file /nonexistent" err && ! has PYRT_INDEX_URL err'
run install --yes --index-url 'https://alice:s3cret@pypi.example/simple?token=t0k' --mirror ftp://x/y \
  --box-root "$vbox"
check "a refused URL is shown without its credentials" eval 'rc_is 2 && ! has "s3cret" err && ! has "t0k" err'

# --- status on an empty box --------------------------------------------------
empty=$work/empty
run status --json --box-root "$empty"
check "status on an empty box exits 1" rc_is 1
check "status --json is one valid object with the contract fields" python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
want={"state","message","version","build","platform","path","interpreter","sha256",
      "installed_at","pins","baseline","upgrade_in_progress","installer_pid",
      "update_available","rollback"}
assert set(d)==want, sorted(set(d)^want)
assert d["rollback"] is None, d
assert d["state"]=="not_provisioned", d
assert d["upgrade_in_progress"] is False and d["installer_pid"] is None, d
assert d["update_available"] is None, d
assert "pyrt install" in d["message"], d
assert d["version"] is None and d["sha256"] is None and d["installed_at"] is None, d
assert d["pins"]=="builtin", d
assert d["path"]==sys.argv[2]+"/runtime/python/current", d
assert {k: d["baseline"][k] for k in ("state","missing")}=={"state":"none","missing":[]} and d["baseline"]["locked"] is False, d' "$work/out" "$empty"
check "status on an empty box writes nothing" [ ! -e "$empty" ]
platform=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["platform"])' "$work/out")

run status --box-root "$empty"
check "human status: first line is 'state: message'" \
  grep -qE '^not_provisioned: .*pyrt install' "$work/out"
check "human status: aligned fields" grep -qE '^  path: +'"$empty"'/runtime/python/current$' "$work/out"

# Options before and after the command, both value forms, give one answer.
"$pyrt" status --box-root "$empty" </dev/null >"$work/a" 2>&1; ra=$?
"$pyrt" --box-root "$empty" status </dev/null >"$work/b" 2>&1; rb=$?
"$pyrt" status --box-root="$empty" </dev/null >"$work/c" 2>&1; rcc=$?
PYRT_BOX_ROOT=$empty "$pyrt" status </dev/null >"$work/d" 2>&1; rd=$?
check "option after the command works" eval '[ $ra -eq 1 ] && grep -q "$empty" "$work/a"'
check "option before the command gives the same answer" eval '[ $rb -eq 1 ] && cmp -s "$work/a" "$work/b"'
check "--opt=value gives the same answer" eval '[ $rcc -eq 1 ] && cmp -s "$work/a" "$work/c"'
check "PYRT_BOX_ROOT gives the same answer" eval '[ $rd -eq 1 ] && cmp -s "$work/a" "$work/d"'
"$pyrt" --box-root "$empty" </dev/null >"$work/e" 2>&1; re=$?
check "pyrt without a command and without a TTY is status" eval '[ $re -eq 1 ] && cmp -s "$work/a" "$work/e"'
(cd "$work" && "$pyrt" status --json --box-root ./empty </dev/null >"$work/rel" 2>&1)
check "a relative --box-root is reported absolute" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); assert d["path"]==sys.argv[2]+"/runtime/python/current", d' \
  "$work/rel" "$(cd "$work" && pwd -P)/empty"

run verify --box-root "$empty"
check "verify on an empty box exits 1 and says how to install" eval 'rc_is 1 && has "pyrt install" err'
run rollback --box-root "$empty"
check "rollback on an empty box exits 1" rc_is 1
run uninstall --box-root "$empty"
check "uninstall on an empty box exits 0 with nothing to do" eval 'rc_is 0 && has "nothing to uninstall" out'
# A box left with only a lock and logs (a refused install of old) holds no
# runtime: said once, no consent asked, nothing claimed removed.
mkdir -p -m 700 "$work/leftover" "$work/leftover/runtime" "$work/leftover/runtime/python/logs"
chmod 700 "$work/leftover/runtime/python"
run uninstall --box-root "$work/leftover"
check "uninstall of a box without an install says so once, exit 0" \
  eval 'rc_is 0 && [ "$(cat "$work/out" "$work/err" | grep -c .)" -eq 1 ] && has "nothing to uninstall" out'

# --- pins errors ---------------------------------------------------------------
run --pins /nonexistent status --box-root "$empty"
check "--pins /nonexistent exits 11" rc_is 11
check "the pins error names the file" has "/nonexistent" err
printf 'schema: 1\nruntime: [this is not\n' >"$work/bad-pins.yaml"
run status --pins "$work/bad-pins.yaml" --box-root "$empty"
check "a malformed pins file exits 11" rc_is 11
# Deep nesting made libyaml's scanner quadratic (100,000 levels: minutes);
# aliases let a few lines stand for a huge tree.  Both are refused while
# parsing, with the file, the line and the rule.
python3 -c 'import sys; sys.stdout.write("schema: 1\nruntime: " + "[" * 20000 + "]" * 20000 + "\n")' \
  >"$work/deep-pins.yaml"
run status --pins "$work/deep-pins.yaml" --box-root "$empty"
check "a pins file nested 20,000 deep exits 11" rc_is 11
check "the refusal names the file, line and depth rule" \
  has "deep-pins.yaml:2: nesting deeper than 32 levels: pyrt reads YAML nested at most 32 deep" err
printf 'schema: 1\nruntime: &r {implementation: cpython, version: "3.12.14", build: "1"}\nbaseline: [*r, *r]\n' \
  >"$work/alias-pins.yaml"
run status --pins "$work/alias-pins.yaml" --box-root "$empty"
check "a pins file with aliases exits 11 naming the alias rule" \
  eval 'rc_is 11 && has "alias-pins.yaml:3: alias \*r: pyrt reads YAML without aliases" err'
PYRT_PINS=/nonexistent "$pyrt" status --box-root "$empty" </dev/null >/dev/null 2>&1
check "PYRT_PINS is honoured" [ $? -eq 11 ]

# --- consent -------------------------------------------------------------------
box=$work/box-consent
run install --box-root "$box"
check "install without a TTY and without --yes exits 3" rc_is 3
check "the refusal says how to consent" has "--yes" err
check "the refused install left no box root" [ ! -e "$box" ]
run install --json --box-root "$box"
check "install --json without consent exits 3 with a result event" python3 -c '
import json,sys
ev=[json.loads(l) for l in open(sys.argv[1])]
r=ev[-1]; assert r["event"]=="result" and r["ok"] is False and r["exit_code"]==3, r
assert r["code"]=="consent", r' "$work/out"

# --- unsupported platform ------------------------------------------------------
sha=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
cat >"$work/pins-other.yaml" <<EOF
schema: 1
runtime:
  implementation: cpython
  version: "3.12.14"
  build: "20260814"
archives:
  plan9-mips-none:
    url: https://127.0.0.1:9/pbs/20260814/plan9.tar.gz
    sha256: $sha
  haiku-riscv64-none:
    url: https://127.0.0.1:9/pbs/20260814/haiku.tar.gz
    sha256: $sha
baseline:
  - python-docx
EOF
box=$work/box-unsupported
run install --yes --pins "$work/pins-other.yaml" --box-root "$box"
check "a pins file without this platform exits 8" rc_is 8
check "the message names this platform" has "unsupported platform $platform" err
check "the message lists the supported keys" has "plan9-mips-none, haiku-riscv64-none" err
check "an unsupported install left no box root" [ ! -e "$box" ]
run install --yes --json --pins "$work/pins-other.yaml" --box-root "$box"
check "unsupported --json: result event with exit_code 8" python3 -c '
import json,sys
r=[json.loads(l) for l in open(sys.argv[1])][-1]
assert r["event"]=="result" and r["exit_code"]==8 and r["code"]=="unsupported_platform", r
assert "plan9-mips-none" in r["error"], r' "$work/out"
run status --json --pins "$work/pins-other.yaml" --box-root "$box"
check "status says unsupported and exits 1" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); assert d["state"]=="unsupported", d' "$work/out"

# --- offline round trip with a stand-in runtime --------------------------------
# A "python/bin/python3" that answers the version check is all the install
# pipeline needs; --from-file keeps the network out of it.
mkrt() { # mkrt DIR VERSION
  mkdir -p "$1/python/bin" "$1/python/lib"
  printf '#!/bin/sh\necho %s\n' "$2" >"$1/python/bin/python3"
  chmod 755 "$1/python/bin/python3"
  printf 'stand-in stdlib\n' >"$1/python/lib/os.py"
}
mkrt "$work/rt1" 3.12.14
tar -C "$work/rt1" -czf "$work/rt1.tar.gz" python
sha1=$(sha256sum "$work/rt1.tar.gz" | cut -d' ' -f1)
# A second build of the same version (different bytes) to roll back between.
mkrt "$work/rt2" 3.12.14
printf 'second build\n' >"$work/rt2/python/lib/extra.py"
tar -C "$work/rt2" -czf "$work/rt2.tar.gz" python
sha2=$(sha256sum "$work/rt2.tar.gz" | cut -d' ' -f1)
mkpins() { # mkpins FILE BUILD SHA
  cat >"$1" <<EOF
schema: 1
runtime:
  implementation: cpython
  version: "3.12.14"
  build: "$2"
archives:
  $platform:
    url: https://127.0.0.1:9/pbs/$2/cpython.tar.gz
    sha256: $3
baseline:
  - python-docx
EOF
}
mkpins "$work/pins1.yaml" 20260814 "$sha1"
mkpins "$work/pins2.yaml" 20260901 "$sha2"
box=$work/box
current=$box/runtime/python/current

# The stand-in "python3" answers every call with its version and exit 0,
# so its "pip" accepts any baseline; the baseline runs against it.
printf 'python-docx\n' >"$work/req.txt"
run install --yes --pins "$work/pins1.yaml" --box-root "$box" --from-file "$work/rt1.tar.gz" \
  --requirements "$work/req.txt"
check "offline install exits 0" rc_is 0
check "install prints one line per step without a TTY" \
  eval 'has "verify: begin" err && has "extract: done in" err && ! grep -q "$(printf "\r")" "$work/err"'
check "install ends with the installed line, on stdout" \
  grep -qx "installed CPython 3.12.14 (build 20260814) at $current; baseline complete" "$work/out"
check "stdout holds only the result line" [ "$(wc -l <"$work/out")" -eq 1 ]
check "the baseline ran from --requirements" has "baseline: begin (1 requirement from $work/req.txt)" err
check "current points at the new install" [ -x "$current/bin/python3" ]
run status --pins "$work/pins1.yaml" --box-root "$box"
check "status is ready and exits 0" eval 'rc_is 0 && grep -q "^ready: " "$work/out"'
run status --json --pins "$work/pins1.yaml" --box-root "$box"
check "status --json when ready carries version, sha256 and install time" python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert d["state"]=="ready" and d["version"]=="3.12.14" and d["build"]=="20260814", d
assert d["sha256"]==sys.argv[2] and d["installed_at"] and d["interpreter"].endswith("/bin/python3"), d
assert d["pins"].endswith("pins1.yaml"), d' "$work/out" "$sha1"

run install --yes --pins "$work/pins1.yaml" --box-root "$box" --from-file "$work/rt1.tar.gz"
check "a second install is a no-op that says so" \
  eval 'rc_is 0 && has "is already installed and active at $current; nothing to do (use --force to reinstall)" out'
run install -q --yes --pins "$work/pins1.yaml" --box-root "$box" --from-file "$work/rt1.tar.gz"
check "-q prints only the one-line result (stdout) and nothing on stderr" \
  eval 'rc_is 0 && [ "$(wc -l <"$work/out")" -eq 1 ] && has "nothing to do" out && [ ! -s "$work/err" ]'
run status -q --pins "$work/pins1.yaml" --box-root "$box"
check "status -q prints its one line" eval 'rc_is 0 && [ "$(wc -l <"$work/out")" -eq 1 ] && grep -q "^ready: " "$work/out"'
run install --pins "$work/pins1.yaml" --box-root "$box" --from-file "$work/rt1.tar.gz"
check "an already-current install needs no consent" rc_is 0

run verify --box-root "$box"
check "verify passes on a fresh install" eval 'rc_is 0 && has "match" out'
run verify --json --box-root "$box"
check "verify --json says ok" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); assert d["ok"] is True and d["problems"]==[] and d["entries"]>0, d' "$work/out"
chmod u+w "$current/lib/os.py"
printf 'tampered\n' >"$current/lib/os.py"
run verify --box-root "$box"
check "verify finds a changed file and exits 1" eval 'rc_is 1 && has "lib/os.py" out'
run verify --json --box-root "$box"
check "verify --json lists the changed file" python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
assert d["ok"] is False and any(p["path"].endswith("lib/os.py") for p in d["problems"]), d' "$work/out"

run install --yes --json --pins "$work/pins2.yaml" --box-root "$box" --from-file "$work/rt2.tar.gz"
check "install --json of a second build exits 0" rc_is 0
check "install --json writes only NDJSON events on stdout, result last" python3 -c '
import json,sys
ev=[json.loads(l) for l in open(sys.argv[1])]
assert all(e["event"] in ("step","progress","log","result") for e in ev), ev
steps=[e for e in ev if e["event"]=="step"]
assert all(e["state"] in ("begin","end","fail","skip") and isinstance(e["t"],(int,float)) for e in steps), steps
r=ev[-1]
assert r["event"]=="result" and r["ok"] is True and r["exit_code"]==0 and r["error"] is None, r
assert r["code"]=="ok" and r["sha256"]==sys.argv[2] and r["already_current"] is False, r
assert r["install_dir"] and "/installs/" in r["install_dir"], r' "$work/out" "$sha2"
second=$(readlink -f "$current")
run rollback --box-root "$box"
check "rollback exits 0 and names the runtime (stdout)" eval 'rc_is 0 && has "rolled back" out'
check "rollback changed current" [ "$(readlink -f "$current")" != "$second" ]
run rollback --box-root "$box"
check "a second rollback goes back again" eval 'rc_is 0 && [ "$(readlink -f "$current")" = "$second" ]'

run install --yes --pins "$work/pins1.yaml" --box-root "$box" --from-file "$work/rt2.tar.gz" --force
check "a digest mismatch exits 5" rc_is 5
check "the mismatch shows the expected digest" has "$sha1" err
check "a failed install says the previous runtime is still active" \
  has "the previous runtime is still active" err
check "current unchanged after the mismatch" [ "$(readlink -f "$current")" = "$second" ]

check "the failure is printed once" eval '[ "$(grep -c "$sha1" "$work/err")" -eq 1 ]'

run install --yes -q --pins "$work/pins1.yaml" --box-root "$box" --from-file "$work/rt2.tar.gz" --force
check "-q still prints the error" eval 'rc_is 5 && has "install failed" err && ! has "begin" err'

# SIGCHLD ignored by whoever starts pyrt is inherited across exec; the
# kernel would then reap the interpreter check and its exit status be lost.
# A stand-in that prints the right version but exits 3 must fail the check
# with its real exit code.
mkrt "$work/rt3" 3.12.14
printf '#!/bin/sh\necho 3.12.14\nexit 3\n' >"$work/rt3/python/bin/python3"
tar -C "$work/rt3" -czf "$work/rt3.tar.gz" python
mkpins "$work/pins3.yaml" 20260902 "$(sha256sum "$work/rt3.tar.gz" | cut -d' ' -f1)"
python3 -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' "$pyrt" install --yes --no-baseline --pins "$work/pins3.yaml" \
  --box-root "$box" --from-file "$work/rt3.tar.gz" </dev/null >"$work/out" 2>"$work/err"
rc=$?
check "with SIGCHLD ignored, an interpreter check exiting 3 fails the install (exit 12)" rc_is 12
check "the failure shows the child's real exit code" has "failed to start (exit 3): 3.12.14" err
# One that exits 3 saying nothing: the reason says so, never empty (29.8).
mkrt "$work/rt4" 3.12.14
printf '#!/bin/sh\nexit 3\n' >"$work/rt4/python/bin/python3"
tar -C "$work/rt4" -czf "$work/rt4.tar.gz" python
mkpins "$work/pins4.yaml" 20260902 "$(sha256sum "$work/rt4.tar.gz" | cut -d' ' -f1)"
run install --yes --no-baseline --pins "$work/pins4.yaml" --box-root "$box" --from-file "$work/rt4.tar.gz"
check "an interpreter that exits 3 silently: the reason says it printed nothing (rc $rc)" \
  eval 'rc_is 12 && has "failed to start (exit 3): it printed nothing" err'
check "current unchanged after the failed check" [ "$(readlink -f "$current")" = "$second" ]

# The pin may say what the archive unpacks to; extraction then refuses more
# than twice it.  rt1 has 5 members (python/, bin/, bin/python3, lib/,
# lib/os.py): pinned as 2, the cap is 4.
sed "s#^    sha256: .*#&\n    entries: 2#" "$work/pins1.yaml" >"$work/pins-entries.yaml"
run install --yes --force --no-baseline --pins "$work/pins-entries.yaml" --box-root "$box" \
  --from-file "$work/rt1.tar.gz"
check "more than twice the pinned entries is an unsafe archive (exit 6)" rc_is 6
check "the refusal names the pinned cap" \
  has "archive exceeds the cap of 4 entries (2x the 2 its pin declares; decompression bomb?)" err
check "current unchanged after the refusal" [ "$(readlink -f "$current")" = "$second" ]
sed "s#^    sha256: .*#&\n    unpacked_size: 100000\n    entries: 3#" "$work/pins1.yaml" \
  >"$work/pins-sized.yaml"
run install --yes --force --no-baseline --pins "$work/pins-sized.yaml" --box-root "$box" \
  --from-file "$work/rt1.tar.gz"
check "within twice the pinned size and entries the install goes through" rc_is 0
run rollback --box-root "$box"

run uninstall --box-root "$box"
check "uninstall without a TTY and without --yes exits 3" rc_is 3
check "the refused uninstall changed nothing" [ -x "$current/bin/python3" ]
run uninstall --yes --box-root "$box"
check "uninstall --yes exits 0" rc_is 0
check "uninstall removed current" eval '[ ! -e "$current" ] && [ ! -L "$current" ]'
run status --pins "$work/pins1.yaml" --box-root "$box"
check "status after uninstall is not_provisioned" eval 'rc_is 1 && grep -q "^not_provisioned: " "$work/out"'

# --- --json on a usage error: the run still ends with one result line -------
# json_usage ARGS...: pyrt ARGS exits 2, its stdout is exactly one JSON line,
# {"event":"result", ok false, exit_code 2, code "usage"}, whose error is
# the message on stderr; its command is ARGS' first, or $want_command when
# set (a use case's refusal names the use case: "plugins install").
json_usage() {
  run "$@"
  rc_is 2 && python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
r = json.loads(lines[0])
assert r["event"] == "result" and r["ok"] is False and r["exit_code"] == 2 and r["code"] == "usage", r
assert r["error"] and r["error"] in open(sys.argv[2]).read(), (r, open(sys.argv[2]).read())
assert r["command"] == sys.argv[3], r
' "$work/out" "$work/err" "${want_command:-$1}"
}
check "--json with an unknown option ends with a usage result line" json_usage status --json --bogus
check "status --json with an unknown option: status's shape, state null (issue 29.8)" \
  python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read()); sys.exit(0 if "state" in r and r["state"] is None and r["message"] == r["error"] else 1)' "$work/out"
check "--json with a missing --from-file" json_usage install --json --yes --box-root "$work/bj" --from-file "$work/nonexist"
check "--json with conflicting options" json_usage install --json --from-file "$work/pins1.yaml" --mirror https://127.0.0.1:9/pbs
want_command="plugins install" check "--json: plugins install of an unknown plugin" \
  json_usage plugins install nosuch --json --box-root "$work/bj"
run --json instal
check "--json with a mistyped command: the result names pyrt" \
  eval 'rc_is 2 && grep -q "\"command\":\"pyrt\".*\"code\":\"usage\"" "$work/out"'
check "a usage error wrote no box" [ ! -e "$work/bj" ]

e2e_finish
