#!/usr/bin/env bash
# ctest: e2e_pylock
# `pyrt lock --out FILE` writes the same wheel lock as PEP 751's pylock.toml
# beside FILE (issue 29, item 6), for uv, pip and the other tools that
# read it, and --pins takes a pylock.toml (pyrt's, or the PEP's example),
# read by the runtime's own tomllib: its wheels are the lock.  The document is read back with Python's own
# tomllib and checked against the PEP's rules (tests/helpers/pylock_check.py,
# which also accepts the PEP's own example and refuses broken variants of
# it, so the checker can fail): every wheel of the pins' wheels: section is
# there once, under its project and version, with a path to the file whose
# size and SHA-256 are the lock's.  --out named pylock.toml is refused
# before anything is written.  Reading: without a runtime, refused with the
# fix; the round trip (pyrt lock's pylock.toml as --pins) locks the 6 wheels,
# refuses a tampered wheel (exit 5) and a requirement outside it, installs
# the locked bytes; the PEP's example: refused for its requires-python, then
# its 3 linux wheels; an sdist-only package, a wheel without size or sha256,
# not TOML, lock-version 2: exit 11 naming it; a win32-only marker left out.
# On the old code no pylock.toml is written or read.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup pylock fixtures
chk=$src/tests/helpers/pylock_check.py

# --- the checker itself: the PEP's example passes, broken variants fail ------
# PEP 751's example (as the packaging project's tests keep it: double
# quotes in environments, an index added).
cat >"$work/pep.toml" <<'EOF'
lock-version = '1.0'
environments = ['sys_platform == "win32"', 'sys_platform == "linux"']
requires-python = '==3.12.*'
created-by = 'mousebender'

[[packages]]
name = 'attrs'
version = '25.1.0'
requires-python = '>=3.8'

    [[packages.wheels]]
    name = 'attrs-25.1.0-py3-none-any.whl'
    upload-time = 2025-01-25T11:30:10.164985+00:00
    url = 'https://files.pythonhosted.org/packages/fc/30/d4986a882011f9df997a55e6becd864812ccfcd821d64aac8570ee39f719/attrs-25.1.0-py3-none-any.whl'
    size = 63152
    hashes = {sha256 = 'c75a69e28a550a7e93789579c22aa26b0f5b83b75dc4e08fe092980051e1090a'}

    [[packages.attestation-identities]]
    environment = 'release-pypi'
    kind = 'GitHub'
    repository = 'python-attrs/attrs'
    workflow = 'pypi-package.yml'

[[packages]]
name = 'cattrs'
version = '24.1.2'
requires-python = '>=3.8'
dependencies = [
    {name = 'attrs'},
]
index = 'https://pypi.org/simple'

    [[packages.wheels]]
    name = 'cattrs-24.1.2-py3-none-any.whl'
    upload-time = 2024-09-22T14:58:34.812643+00:00
    url = 'https://files.pythonhosted.org/packages/c8/d5/867e75361fc45f6de75fe277dd085627a9db5ebb511a87f27dc1396b5351/cattrs-24.1.2-py3-none-any.whl'
    size = 66446
    hashes = {sha256 = '67c7495b760168d931a10233f979b28dc04daf853b30752246f4f8471c6d68d0'}

[[packages]]
name = 'numpy'
version = '2.2.3'
requires-python = '>=3.10'

    [[packages.wheels]]
    name = 'numpy-2.2.3-cp312-cp312-win_amd64.whl'
    upload-time = 2025-02-13T16:51:21.821880+00:00
    url = 'https://files.pythonhosted.org/packages/42/6e/55580a538116d16ae7c9aa17d4edd56e83f42126cb1dfe7a684da7925d2c/numpy-2.2.3-cp312-cp312-win_amd64.whl'
    size = 12626357
    hashes = {sha256 = '83807d445817326b4bcdaaaf8e8e9f1753da04341eceec705c001ff342002e5d'}

    [[packages.wheels]]
    name = 'numpy-2.2.3-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl'
    upload-time = 2025-02-13T16:50:00.079662+00:00
    url = 'https://files.pythonhosted.org/packages/39/04/78d2e7402fb479d893953fb78fa7045f7deb635ec095b6b4f0260223091a/numpy-2.2.3-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl'
    size = 16116679
    hashes = {sha256 = '3b787adbf04b0db1967798dba8da1af07e387908ed1553a0d6e74c084d1ceafe'}

[tool.mousebender]
command = ['.', 'lock', '--platform', 'cpython3.12-windows-x64', '--platform', 'cpython3.12-manylinux2014-x64', 'cattrs', 'numpy']
run-on = 2025-03-06T12:28:57.760769
EOF
check "the checker accepts the PEP's example (4 wheels)" \
  eval '[ "$(python3 "$chk" "$work/pep.toml" | wc -l)" -eq 4 ]'
# broken SED-EXPR WHY: the example edited by SED-EXPR fails, saying WHY.
broken() {
  sed "$1" "$work/pep.toml" >"$work/broken.toml"
  ! python3 "$chk" "$work/broken.toml" >"$work/broken.out" && grep -q -- "$2" "$work/broken.out"
}
check "no created-by: refused" broken '/^created-by/d' 'created-by'
check "lock-version 2.0: refused" broken "s/^lock-version = '1.0'/lock-version = '2.0'/" 'lock-version'
check "a wheel with neither url nor path: refused" broken '0,/^    url = /{/^    url = /d}' 'path or url'
check "a name that is not normalized: refused" broken "s/^name = 'attrs'/name = 'Attrs'/" 'not normalized'
check "a wheel of another version: refused" broken "s/^version = '24.1.2'/version = '24.1.3'/" 'version in'
check "empty hashes: refused" broken "0,/hashes = {sha256/s/hashes = {sha256 = '[0-9a-f]*'}/hashes = {}/" 'at least one hash'

# --- pyrt lock writes pylock.toml beside its pins ------------------------------
mkdir -p "$work/ld"
run lock --pins "$fx/pins.yaml" --wheelhouse "$fx/wheelhouse" --out "$work/ld/locked.yaml"
check "pyrt lock exits 0" rc_is 0
pl=$work/ld/pylock.toml
check "pylock.toml is written beside the pins file, owner-only" \
  eval '[ -f "$pl" ] && [ "$(stat -c %a "$pl")" = 600 ]'
check "lock names it" has "the same wheels as $pl (PEP 751)" out
check "it passes PEP 751's rules, every path the wheelhouse file of its size and sha256" \
  eval 'python3 "$chk" "$pl" --files >"$work/pl.rows"'
check "it holds exactly the wheels of the pins' wheels: section, with their digests and sizes" python3 -c '
import re, sys
yaml = open(sys.argv[1]).read()
want = sorted(re.findall(r"- file: (\S+)\n\s+sha256: ([0-9a-f]{64})\n\s+size: (\d+)", yaml))
got = sorted(tuple(l.split()) for l in open(sys.argv[2]))
assert want and len(want) == 6 and got == want, (want, got)' "$work/ld/locked.yaml" "$work/pl.rows"
check "one package per project, its name and version those of the wheel" python3 -c '
import sys, tomllib
d = tomllib.load(open(sys.argv[1], "rb"))
assert d["lock-version"] == "1.0" and d["created-by"] == "pyrt", d
names = [p["name"] for p in d["packages"]]
assert names == sorted(set(names)), names
assert {"python-docx", "et-xmlfile", "openpyxl", "lxml", "pillow", "reportlab"} == set(names), names
docx = [p for p in d["packages"] if p["name"] == "python-docx"][0]
assert docx["version"] == "0.8.11" and docx["wheels"][0]["name"] == "python_docx-0.8.11-py3-none-any.whl", docx' "$pl"
cp "$pl" "$work/first.toml"
run lock --pins "$fx/pins.yaml" --wheelhouse "$fx/wheelhouse" --out "$work/ld/locked.yaml"
check "the same lock gives the same bytes" cmp -s "$pl" "$work/first.toml"

# --- a wheelhouse path that TOML must escape ------------------------------------
odd=$work/'we"ird\dir'
cp -R "$fx/wheelhouse" "$odd"
run lock --pins "$fx/pins.yaml" --wheelhouse "$odd" --out "$work/ld/odd.yaml"
check "a wheelhouse whose path holds a quote and a backslash: exit 0" rc_is 0
check "its paths read back whole through tomllib" \
  eval 'python3 "$chk" "$pl" --files >/dev/null'

# --- --out may not be pylock.toml itself -----------------------------------------
mkdir -p "$work/ld2"
run lock --pins "$fx/pins.yaml" --wheelhouse "$fx/wheelhouse" --out "$work/ld2/pylock.toml"
check "--out named pylock.toml is a usage error (exit 2)" rc_is 2
check "naming why and the fix" has "give the pins file another name" err
check "and nothing is written" eval '[ -z "$(ls -A "$work/ld2")" ]'

# --- the reading half: --pins pylock.toml, read by the runtime's tomllib -------
box=$work/box
printf 'python-docx\n' >"$work/req.txt"
run baseline --box-root "$box" --pins "$pl" --wheelhouse "$fx/wheelhouse" --requirements "$work/req.txt"
check "with no runtime to read it with: exit 1, nothing installed" \
  eval 'rc_is 1 && [ ! -e "$box/runtime/python/current" ]'
check "naming why and the fix" has "read by the runtime's own Python.*install one first (pyrt install --no-baseline" err
run install --box-root "$box" --pins "$fx/pins.yaml" --from-file "$fx/runtime.tar.gz" --no-baseline --yes
check "setup: a runtime (exit 0)" rc_is 0
site=$box/runtime/python/current/local/lib/python3.11/dist-packages
run status --box-root "$box" --pins "$pl" --json
check "status: the pylock's 6 wheels are the lock (round trip: pyrt lock's file read back)" python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))["baseline"]
assert b["locked"] is True and "names 6 wheels" in b["source"] and "pylock.toml" in b["source"], b' "$work/out"
# A tampered python-docx in a copy of the wheelhouse: the digest is the lock's word.
wh=$work/wh-tampered
cp -R "$fx/wheelhouse" "$wh"
whl=python_docx-0.8.11-py3-none-any.whl
python3 - "$wh/$whl" <<'PY'
import sys, zipfile
p = sys.argv[1]
with zipfile.ZipFile(p, "a") as z:
    z.writestr("docx/pwned.py", "X = 1\n")
PY
run baseline --box-root "$box" --pins "$pl" --wheelhouse "$wh" --requirements "$work/req.txt"
check "a wheel that is not the pylock's bytes is refused (exit 5)" rc_is 5
check "naming it and the digest the pylock gives" \
  has "$whl.*$(sha256sum "$fx/wheelhouse/$whl" | cut -d' ' -f1)" err
check "nothing of it was installed" eval '[ ! -e "$site/docx" ]'
printf 'python-pptx\n' >"$work/req-out.txt"
run baseline --box-root "$box" --pins "$pl" --wheelhouse "$fx/wheelhouse" --requirements "$work/req-out.txt"
check "a requirement outside the pylock is refused (exit 5)" rc_is 5
run baseline --box-root "$box" --pins "$pl" --wheelhouse "$fx/wheelhouse" --requirements "$work/req.txt"
check "the pylock's own wheels install (exit 0)" rc_is 0
check "python-docx is there, from the locked bytes" \
  eval '[ -d "$site/docx" ] && [ ! -e "$site/docx/pwned.py" ]'

# --- other tools' locks: the PEP's example, read by the runtime -----------------
mkdir -p "$work/pep"
cp "$work/pep.toml" "$work/pep/pylock.toml"
run status --box-root "$box" --pins "$work/pep/pylock.toml" --json
check "the PEP's example (requires-python ==3.12.*) is refused for a 3.11 runtime (exit 11)" \
  eval 'rc_is 11 && has "requires-python .==3.12.\*.: the runtime is Python 3.11" err'
sed '/^requires-python = .==3.12/d' "$work/pep.toml" >"$work/pep/pylock.example.toml"
run status --box-root "$box" --pins "$work/pep/pylock.example.toml" --json
check "without it: its 3 wheels for linux x86_64 are the lock (attrs, cattrs, numpy's manylinux; not win_amd64)" python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))["baseline"]
assert b["locked"] is True and "names 3 wheels for linux-x86_64-gnu" in b["source"], b' "$work/out"
# pep_variant NAME SED-EXPR WHY: the example, edited, refused with exit 11 and WHY.
pep_variant() {
  sed -e '/^requires-python = .==3.12/d' -e "$2" "$work/pep.toml" >"$work/pep/pylock.$1.toml"
  run status --box-root "$box" --pins "$work/pep/pylock.$1.toml" --json
  rc_is 11 && has "$3" err
}
check "a package with an sdist only: refused naming it" pep_variant sdist \
  "/^name = 'attrs'/,/^    hashes/{s/^    \[\[packages.wheels\]\]/    [packages.sdist]/}" \
  "attrs 25.1.0 has no wheel (the lock gives sdist): pyrt installs wheels only"
check "a wheel without size: refused naming it" pep_variant nosize \
  '0,/^    size = /{/^    size = /d}' "attrs-25.1.0-py3-none-any.whl has no size"
check "a wheel without sha256: refused naming it" pep_variant nosha \
  "0,/hashes = {sha256/s/hashes = {sha256 = /hashes = {sha512 = /" "has no sha256 hash"
check "not TOML: refused" pep_variant nottoml '1s/^/[[[ /' "not TOML that Python reads"
check "lock-version 2: refused" pep_variant v2 "s/^lock-version = '1.0'/lock-version = '2.0'/" "lock-version '2.0' is not 1.x"
check "only markers that hold here: a package for win32 only is left out" eval '
  sed -e "/^requires-python = .==3.12/d" -e "s/^name = .attrs.$/&\nmarker = \"sys_platform == \x27win32\x27\"/" \
    "$work/pep.toml" >"$work/pep/pylock.marker.toml" &&
  run status --box-root "$box" --pins "$work/pep/pylock.marker.toml" --json &&
  python3 -c "
import json, sys
b = json.load(open(sys.argv[1]))[\"baseline\"]
assert \"names 2 wheels\" in b[\"source\"], b" "$work/out"'

e2e_finish
