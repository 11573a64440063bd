#!/usr/bin/env bash
# ctest: e2e_children
# End to end: what pyrt's children get, through the real binary, offline.
# The runtime is the fixture runtime with its interpreter behind a wrapper
# that records each start (the first three arguments and the seventh, "--"
# for the wheelhouse installer, after --check-hash-based-pycs always, which
# every start must carry, and which no C file but core/runtime/interp.c
# spells; the umask; the whole environment) before it
# execs the real one, so even a start with -I -S,
# which no sitecustomize reaches, is seen.  The baseline installs a wheel
# whose .pth file leaves a mark whenever site's start-up runs it.
#
#   - pyrt runs under umask 000 with PIP_INDEX_URL (credentials), a trusted
#     host and proxies set: pip alone gets them; the interpreter check of
#     the install, the wheelhouse installer (core/pkgs/fastwheel.h), status
#     --deep, doctor and the plugin matrix do not.
#   - every child sees umask 022, and nothing in the runtime is
#     world-writable after pip installed into it under umask 000.
#   - status, status --deep, doctor, plugins (--json), verify and an
#     install that finds the runtime current never run the .pth file.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup children fixtures

rec=$work/rec  # the wrapper's records, one file per interpreter start
pth=$work/pth  # one file per run of the probe's .pth
mkdir -p "$rec" "$pth"

# --- the probe wheel: pyrt-pth-probe 1.0, a module and a .pth -------------
wh=$work/wheelhouse
cp -R "$fx/wheelhouse" "$wh"
python3 - "$wh" "$pth" <<'EOF'
import base64, hashlib, sys, zipfile
out, mark = sys.argv[1], sys.argv[2]
def digest(b):
    return base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
info = "pyrt_pth_probe-1.0.dist-info"
files = {
    "pyrt_pth_probe/__init__.py": b"",
    "pyrt_pth_probe.pth": ("import os; open(%r + '/' + str(os.getpid()), 'w').close()\n"
                           % mark).encode(),
    info + "/METADATA": b"Metadata-Version: 2.1\nName: pyrt-pth-probe\nVersion: 1.0\n",
    info + "/WHEEL": b"Wheel-Version: 1.0\nGenerator: pyrt-tests\n"
                     b"Root-Is-Purelib: true\nTag: py3-none-any\n",
}
record = "".join("%s,sha256=%s,%d\n" % (p, digest(d), len(d)) for p, d in files.items())
files[info + "/RECORD"] = (record + info + "/RECORD,,\n").encode()
with zipfile.ZipFile(out + "/pyrt_pth_probe-1.0-py3-none-any.whl", "w") as z:
    for p, d in files.items():
        z.writestr(p, d)
EOF

# --- the wrapped runtime archive and pins naming it ------------------------
rt=$work/rt
mkdir -p "$rt"
tar -C "$rt" -xzf "$fx/runtime.tar.gz"
bindir=$rt/python/bin
real=$(readlink "$bindir/python3")
mv "$bindir/$real" "$bindir/$real.real"
cat >"$bindir/$real" <<EOF
#!/bin/sh
# --check-hash-based-pycs always (issue 26, door 5) is recorded apart, as
# PYRT_REC_PYCS, and left out of args, which keep their old positions.
if [ "\$2" = --check-hash-based-pycs ] && [ "\$3" = always ]; then
  a="\$1 \$4 \$5 \$9" c=yes
else
  a="\$1 \$2 \$3 \$7" c=no
fi
{ printf 'args: %s\n' "\$a"; printf 'umask: %s\n' "\$(umask)"; echo "PYRT_REC_PYCS=\$c"; env; } >"$rec/\$\$"
exec "\${0%/*}/$real.real" "\$@"
EOF
chmod 755 "$bindir/$real"
tar -C "$rt" --owner=0 --group=0 -czf "$work/runtime.tar.gz" python
sha=$(sha256sum "$work/runtime.tar.gz" | cut -d' ' -f1)
size=$(stat -c %s "$work/runtime.tar.gz")
pins=$work/pins.yaml
{
  sed -e "s/^    sha256: .*/    sha256: $sha/" -e "s/^    size: .*/    size: $size/" \
      -e '/^baseline:/,$d' "$fx/pins.yaml"
  printf 'baseline:\n  - python-docx\n  - pyrt-pth-probe\n'
} >"$pins"

box=$work/box
mkdir -p "$box"
cp -R "$src/tests/fixtures/sample-box/plugins" "$box/"
current=$box/runtime/python/current
common=(--box-root "$box" --pins "$pins")

# The network settings no child but pip may see.
export PIP_INDEX_URL=https://user:s3cr3t@127.0.0.1:9/simple
export PIP_TRUSTED_HOST=127.0.0.1
export https_proxy=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9

# records_check PY: run a python assertion over the records as `recs`, a
# list of {"args": "...", "umask": "...", "env": {...}}.
records_check() {
  python3 -c '
import os, sys
recs = []
for n in sorted(os.listdir(sys.argv[1])):
    lines = open(os.path.join(sys.argv[1], n)).read().split("\n")
    env = dict(l.split("=", 1) for l in lines[2:] if "=" in l)
    recs.append({"args": lines[0][6:], "umask": lines[1][7:], "env": env})
exec(sys.argv[2])' "$rec" "$1"
}
net='("PIP_INDEX_URL", "PIP_TRUSTED_HOST", "https_proxy", "HTTPS_PROXY")'

# --- install under umask 000: the interpreter check and pip ----------------
(umask 000; exec "$pyrt" install "${common[@]}" --from-file "$work/runtime.tar.gz" \
  --wheelhouse "$wh" --yes </dev/null >"$work/out" 2>"$work/err")
rc=$?
check "install under umask 000 exits 0" rc_is 0
check "the probe is installed" test -f "$current/local/lib/python3.11/dist-packages/pyrt_pth_probe.pth"
check "nothing in the runtime is world-writable" \
  eval '[ -z "$(find "$current/" -perm -0002 ! -type l | head -5)" ]'
check "the version check and the wheelhouse installer were recorded" records_check '
kinds = [r["args"] for r in recs]
assert any(a == "-I -S -B " for a in kinds), kinds
# the installer: -I -S -B -u -c PROGRAM WHEELHOUSE -- (its $7: the wheelhouse)
assert any(a.startswith("-I -S -B ") and a != "-I -S -B " for a in kinds), kinds'
# A requirement with extras is pip's to install (the installer leaves it).
printf 'python-docx[nosuchextra]\n' >"$work/extras.txt"
(umask 000; exec "$pyrt" baseline "${common[@]}" --wheelhouse "$wh" \
  --requirements "$work/extras.txt" </dev/null >"$work/out" 2>"$work/err")
rc=$?
check "baseline with an extra (pip's) exits 0" rc_is 0
check "pip was recorded" records_check '
assert any(r["args"].startswith("-I -m pip") for r in recs), [r["args"] for r in recs]'
check "every child ran with --check-hash-based-pycs always" records_check '
assert recs and all(r["env"].get("PYRT_REC_PYCS") == "yes" for r in recs), [r["args"] for r in recs]'
# The rule is structural: every start builds its argv with
# pyrt_interp_argv (core/runtime/interp.h); no other C file spells -I or
# --check-hash-based-pycs as an argument.
hand_built() {
  (cd "$src" && grep -rnE '"-I"|"--check-hash-based-pycs"' core app cli tui serve \
     --include='*.c' --include='*.h' | grep -v '^core/runtime/interp\.c:')
}
check "no interpreter start spells -I or --check-hash-based-pycs by hand" \
  eval '[ -z "$(hand_built)" ] || { hand_built | sed "s/^/#   /"; false; }'
check "every child saw umask 0022" records_check '
assert recs and all(r["umask"] == "0022" for r in recs), [r["umask"] for r in recs]'
check "pip got the index, trusted host and proxies" records_check '
pip = [r for r in recs if r["args"].startswith("-I -m pip")]
assert pip and all(all(v in r["env"] for v in '"$net"') for r in pip), pip'
check "the interpreter check and the wheelhouse installer got none of them" records_check '
chk = [r for r in recs if not r["args"].startswith("-I -m pip")]
assert chk and not any(v in r["env"] for r in chk for v in '"$net"'), chk
assert not any("s3cr3t" in "".join(r["env"].values()) for r in chk)'

# --- commands that need no site-packages start-up --------------------------
rm -f "$rec"/* "$pth"/*
run status "${common[@]}";            check "status exits 0" rc_is 0
run status --deep "${common[@]}";     check "status --deep exits 0" rc_is 0
run doctor "${common[@]}";            doctor_rc=$rc
run plugins "${common[@]}";           plugins_rc=$rc
run plugins --json "${common[@]}"
check "plugins --json reads the installed python-docx" python3 -c '
import json, sys
d = {p["name"]: p for p in json.load(open(sys.argv[1]))["plugins"]}
assert d["careercoach"]["verdict"] == "ready", d["careercoach"]' "$work/out"
run verify "${common[@]}";            check "verify exits 0" rc_is 0
run install "${common[@]}" --from-file "$work/runtime.tar.gz" --wheelhouse "$wh" --yes
check "install when current exits 0" rc_is 0
check "doctor and plugins ran (exit $doctor_rc, $plugins_rc)" \
  eval '[ "$doctor_rc" -le 1 ] && [ "$plugins_rc" -le 1 ]'
check "status --deep, doctor and plugins started the interpreter" records_check '
kinds = [r["args"] for r in recs]
assert sum(a.startswith("-I -S -B") for a in kinds) >= 2, kinds
assert any(a.startswith("-I -S -c") for a in kinds), kinds'
check "none of them started pip" records_check '
assert not any("pip" in r["args"] for r in recs), [r["args"] for r in recs]'
check "no child of theirs got the index, trusted host or proxies" records_check '
bad = [(r["args"], v) for r in recs for v in '"$net"' if v in r["env"]]
assert not bad, bad'
check "no child of theirs ran the .pth file" eval '[ -z "$(ls "$pth")" ]'

# The probe itself works: an interpreter start with site runs it.
"$current/bin/python3" -I -c pass
check "a start with site's processing does run the .pth file" eval '[ -n "$(ls "$pth")" ]'

# --- verify and start-up files (issue 19.6) --------------------------------
# The probe's .pth is listed by its RECORD: verify stays quiet (above).  A
# sitecustomize.py, a usercustomize.py and a .pth that nothing lists run at
# every start too: verify names each with the fix, and passes again once
# they are gone.
site=$current/local/lib/python3.11/dist-packages
stdlib=$current/lib/python3.11
printf 'import os\n' >"$site/zz-added.pth"
printf 'pass\n' >"$stdlib/sitecustomize.py"
printf 'pass\n' >"$site/usercustomize.py"
run verify "${common[@]}"
check "verify fails on start-up files no RECORD or manifest lists (exit 1)" rc_is 1
check "... naming the added .pth, sitecustomize.py and usercustomize.py with the fix" \
  eval 'has "dist-packages/zz-added.pth: a start-up file" out && has "python3.11/sitecustomize.py: a start-up file" out &&
        has "dist-packages/usercustomize.py: a start-up file" out && has "pyrt install --force" out'
check "... but not the probe's .pth, which its RECORD lists" eval '! has "pyrt_pth_probe.pth" out'
run verify --json "${common[@]}"
check "verify --json lists the three as problems" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
paths = sorted(p["path"].rsplit("/", 1)[-1] for p in d["problems"])
assert d["ok"] is False and paths == ["sitecustomize.py", "usercustomize.py", "zz-added.pth"], d' "$work/out"
rm -f "$site/zz-added.pth" "$stdlib/sitecustomize.py" "$site/usercustomize.py"
run verify "${common[@]}"
check "with them removed, verify passes again" rc_is 0

e2e_finish
