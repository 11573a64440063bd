#!/usr/bin/env bash
# ctest: e2e_fastwheel
# End to end: the wheelhouse fast path of the baseline (core/pkgs/fastwheel.h).
# `pyrt install --wheelhouse` with the fixture pins' baseline (python-docx,
# openpyxl) installs it without starting pip: INSTALLER says pyrt, the log
# names the installer and no pip command, pip's own modules get no .pyc;
# `pyrt smoke` writes a real .docx, `pip check` is clean, `pip uninstall`
# removes python-docx by its RECORD, and the plugins matrix sees it.  A rerun
# installs nothing.  A requirement the fast path does not decide (extras, a
# version no wheel has) goes to pip, which decides as before.  A hostile
# wheel (a member "../../x.py", an absolute member) is refused by name,
# nothing of it is written, and the runtime stays active; so is a zip bomb
# (a member over 200:1), before it is inflated, in little memory.  A large
# member is copied in chunks.  The installer runs no .pth file of
# site-packages (-I -S -B).  A wheel carrying another .dist-info (at the
# top or under .data/) is refused by pyrt's wheel check before any
# installer (e2e_wheel_carries).  Only the plain case is the fast path's:
# Wheel-Version 2.0, or a distribution already in another folder on
# sys.path goes to pip;
# Wheel-Version 1.9 gets pip's warning; a .dist-info without a complete
# RECORD is installed again.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup fastwheel fixtures

box=$work/box
mkdir -p "$box"
cp -R "$src/tests/fixtures/sample-box/plugins" "$box/"
py=$box/runtime/python/current/bin/python3
common=(--box-root "$box" --pins "$fx/pins.yaml")
logs=$box/runtime/python/logs
last_log() { ls -t "$logs"/pip-baseline-*.log | head -1; }
pip_ran() { grep -q -- " -m pip install " "$(last_log)"; }

# --- install: the baseline by the fast path ----------------------------------
run install "${common[@]}" --from-file "$fx/runtime.tar.gz" \
  --wheelhouse "$fx/wheelhouse" --yes
check "install with the wheelhouse exits 0" rc_is 0
site=$("$py" -I -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
check "python-docx was installed by pyrt (INSTALLER)" \
  [ "$(cat "$site"/python_docx-*.dist-info/INSTALLER)" = pyrt ]
check "so were its dependencies (lxml, openpyxl, et_xmlfile)" eval '
  [ "$(cat "$site"/{lxml,openpyxl,et_xmlfile}-*.dist-info/INSTALLER | sort | uniq -c | tr -s " ")" = " 3 pyrt" ]'
check "the front end was told, pip-style" eval '
  has "Installing python_docx-0.8.11 (wheelhouse, pyrt)" err &&
  has "Successfully installed python-docx-0.8.11 openpyxl-3.0.9 lxml-4.9.2 et-xmlfile-1.0.1" err'
check "the log names the installer and says it succeeded" eval '
  head -1 "$(last_log)" | grep -q "<pyrt wheelhouse installer> .* -- python-docx openpyxl$" &&
  grep -q "^# the wheelhouse installer succeeded$" "$(last_log)"'
check "no pip ran: the log has no pip command" eval '! pip_ran'
check "no pip ran: pip's own modules have no .pyc" [ ! -e "$site/pip/__pycache__" ]
check "what it installed is compiled once" \
  eval 'ls "$site"/docx/__pycache__/__init__.cpython-*.pyc >/dev/null'
check "RECORD lists the .pyc and itself with an empty hash, CRLF (as pip does)" eval '
  rec=$(echo "$site"/python_docx-*.dist-info/RECORD) &&
  [ "$(grep -c $'"'"'\r$'"'"' "$rec")" = "$(wc -l <"$rec")" ] &&
  tr -d "\r" <"$rec" >"$work/rec" &&
  grep -q "^docx/__pycache__/__init__.cpython-[0-9]*.pyc,,$" "$work/rec" &&
  grep -q "^python_docx-0.8.11.dist-info/INSTALLER,sha256=.*,5$" "$work/rec" &&
  grep -q "^python_docx-0.8.11.dist-info/RECORD,,$" "$work/rec"'
check "a .py is written 0644" [ "$(stat -c %a "$site/docx/__init__.py")" = 644 ]

run smoke --box-root "$box" --out "$work/out.docx"
check "pyrt smoke passes" rc_is 0
check "it wrote a real .docx" python3 -c '
import sys, zipfile
assert zipfile.ZipFile(sys.argv[1]).read("word/document.xml")' "$work/out.docx"
check "pip check finds nothing broken" "$py" -I -m pip check

run plugins --json "${common[@]}"
check "the plugins matrix sees python-docx 0.8.11: careercoach ready" python3 -c '
import json, sys
d = {p["name"]: p for p in json.load(open(sys.argv[1]))["plugins"]}
c = d["careercoach"]
assert c["verdict"] == "ready", c
assert "0.8.11" in json.dumps(c["installed"]), c' "$work/out"

# --- a rerun with everything present installs nothing ------------------------
run baseline "${common[@]}" --wheelhouse "$fx/wheelhouse"
check "a rerun exits 0" rc_is 0
check "it installs nothing and says already satisfied" eval '
  ! has "Installing collected packages" err &&
  has "Requirement already satisfied: python-docx in .*/dist-packages (0.8.11)" err'
check "the rerun started no pip either" eval '! pip_ran'

# --- pip uninstall reads the RECORD the fast path wrote ----------------------
check "pip uninstall -y python-docx succeeds" "$py" -I -m pip uninstall -y -q python-docx
check "it removed python-docx whole" eval '
  [ ! -e "$site/docx" ] && ! ls -d "$site"/python_docx-* 2>/dev/null'

# --- scripts: .data/scripts, #!python, console and gui launchers, modes ------
wht=$work/wh-tool
mkdir -p "$wht"
python3 - "$wht" <<'EOF'
import sys, zipfile
info = "pyrt_tool-1.0.dist-info"
with zipfile.ZipFile(sys.argv[1] + "/pyrt_tool-1.0-py3-none-any.whl", "w") as z:
    z.writestr("pyrt_tool/__init__.py", "def main():\n    print('tool ran')\n")
    run = zipfile.ZipInfo("pyrt_tool/run.sh")
    run.external_attr = 0o100755 << 16
    z.writestr(run, "#!/bin/sh\necho run\n")
    legacy = zipfile.ZipInfo("pyrt_tool-1.0.data/scripts/pyrt-legacy")
    legacy.external_attr = 0o100755 << 16
    z.writestr(legacy, "#!python\nprint('legacy ran')\n")
    z.writestr("pyrt_tool-1.0.data/data/share/pyrt-tool.txt", "data\n")
    z.writestr(info + "/entry_points.txt",
               "[console_scripts]\npyrt-cli = pyrt_tool:main\n[gui_scripts]\npyrt-gui = pyrt_tool:main\n")
    z.writestr(info + "/METADATA", "Metadata-Version: 2.1\nName: pyrt-tool\nVersion: 1.0\n")
    z.writestr(info + "/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr(info + "/RECORD", "")
EOF
printf 'pyrt-tool\n' >"$work/tool.txt"
# A .pth in site-packages runs at every interpreter start that runs site
# (-S off): the installer must not be one of them.  (A baseline that is
# all there: the installer starts and decides, pip does not run.)
printf 'import os; open(%s, "w").close()\n' "'$work/pth-ran'" >"$site/pyrt-probe.pth"
printf 'openpyxl\n' >"$work/there.txt"
run baseline "${common[@]}" --wheelhouse "$fx/wheelhouse" --requirements "$work/there.txt"
check "a requirement already there: the installer alone ran (exit 0)" eval 'rc_is 0 && ! pip_ran'
check "the installer ran no .pth file of site-packages (-I -S -B)" [ ! -e "$work/pth-ran" ]
check "the probe .pth does run where site runs (the probe is live)" eval '
  "$py" -I -c pass && [ -e "$work/pth-ran" ]'
rm -f "$site/pyrt-probe.pth" "$work/pth-ran"
run baseline "${common[@]}" --wheelhouse "$wht" --requirements "$work/tool.txt"
# Launchers and #! lines are pip's own: a wheel with .data/scripts or
# entry points is left to pip (its exec wrapper where the interpreter's
# path is over 127 bytes or has a space, as under a deep CI checkout).
check "a wheel with scripts and entry points: left to pip (exit 0)" eval '
  rc_is 0 && pip_ran && [ "$(cat "$site"/pyrt_tool-1.0.dist-info/INSTALLER)" = pip ]'
read -r bindir datadir < <("$py" -I -c 'import sysconfig; p = sysconfig.get_paths(); print(p["scripts"], p["data"])')
# pyrt starts the interpreter by the install's own path, as pip would.
exe=$(readlink -f "$box/runtime/python/current")/bin/python3
# (#!$exe, or pip's /bin/sh exec wrapper naming it for a long path.)
check "the launchers run the interpreter's entry point, mode 0755" eval '
  [ "$("$bindir/pyrt-cli")" = "tool ran" ] && [ "$("$bindir/pyrt-gui")" = "tool ran" ] &&
  [ "$(stat -c %a "$bindir/pyrt-cli")" = 755 ] && grep -q "$exe" "$bindir/pyrt-cli"'
# (pip writes "#!$exe" here however long: past the kernel's 256-byte #!
# limit, as in a deep CI checkout, only the interpreter can run it.)
check "#!python is rewritten to the interpreter" eval '
  [ "$(head -1 "$bindir/pyrt-legacy")" = "#!$exe" ] &&
  [ "$("$exe" "$bindir/pyrt-legacy")" = "legacy ran" ]'
check "the zip's exec bit is kept: 0755 and 0644" eval '
  [ "$(stat -c %a "$site/pyrt_tool/run.sh")" = 755 ] &&
  [ "$(stat -c %a "$site/pyrt_tool/__init__.py")" = 644 ]'
check ".data/data lands in the data scheme" [ -f "$datadir/share/pyrt-tool.txt" ]
check "pip uninstall removes the scripts too (RECORD)" eval '
  "$py" -I -m pip uninstall -y -q pyrt-tool 2>/dev/null &&
  [ ! -e "$bindir/pyrt-cli" ] && [ ! -e "$bindir/pyrt-legacy" ] &&
  [ ! -e "$datadir/share/pyrt-tool.txt" ] && [ ! -e "$site/pyrt_tool" ]'

# --- what the fast path does not decide goes to pip --------------------------
printf 'python-docx[nosuchextra]\n' >"$work/extras.txt"
run baseline "${common[@]}" --wheelhouse "$fx/wheelhouse" --requirements "$work/extras.txt"
check "a requirement with extras: pip installs it (exit 0)" rc_is 0
check "the log says the installer left it to pip, and pip ran" eval '
  grep -q "not decided (python-docx asks for extras \[nosuchextra\])" "$(last_log)" &&
  grep -q "^# the wheelhouse installer left it to pip$" "$(last_log)" && pip_ran &&
  grep -q "^# pip succeeded$" "$(last_log)"'
check "so pip is python-docx's INSTALLER now" \
  [ "$(cat "$site"/python_docx-*.dist-info/INSTALLER)" = pip ]

printf 'et-xmlfile<1\n' >"$work/downgrade.txt"
run baseline "${common[@]}" --wheelhouse "$fx/wheelhouse" --requirements "$work/downgrade.txt"
check "an installed version that does not satisfy: pip's to decide, and it refuses (exit 10)" eval '
  rc_is 10 && grep -q "not decided (installed et-xmlfile 1.0.1 does not satisfy" "$(last_log)" &&
  pip_ran && has "No matching distribution found for et-xmlfile<1" err'
check "et_xmlfile 1.0.1 stays installed" "$py" -I -c '
from importlib.metadata import version; assert version("et_xmlfile") == "1.0.1"'

printf 'pillow<9\n' >"$work/conflict.txt"
run baseline "${common[@]}" --wheelhouse "$fx/wheelhouse" --requirements "$work/conflict.txt"
check "a version no wheel has: pip refuses it as before (exit 10)" rc_is 10
check "with pip's reason, from pip's run" eval '
  has "No matching distribution found for pillow<9" err && pip_ran'

# --- only the plain case is the fast path's; the rest is pip's -------------
# One .dist-info, named for the wheel, none nested (a wheel carrying
# python-pptx's would make it look installed); Wheel-Version 1.x (a newer
# 1.x with pip's warning); no copy of the distribution in another folder
# on sys.path.
whp=$work/wh-plain
mkdir -p "$whp"
python3 - "$whp" <<'EOF'
import sys, zipfile
def wheel(name, extra=(), wheel_version="1.0"):
    dist = name.replace("-", "_")
    info = f"{dist}-1.0.dist-info"
    with zipfile.ZipFile(f"{sys.argv[1]}/{dist}-1.0-py3-none-any.whl", "w") as z:
        z.writestr(f"{dist}/__init__.py", "")
        for path, body in extra:
            z.writestr(path, body)
        z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        z.writestr(f"{info}/WHEEL", f"Wheel-Version: {wheel_version}\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", "")
pptx = "Metadata-Version: 2.1\nName: python-pptx\nVersion: 0.6.21\n"
wheel("pyrt-carrier", [("python_pptx-0.6.21.dist-info/METADATA", pptx),
                       ("python_pptx-0.6.21.dist-info/RECORD", "pptx/__init__.py,,\n")])
wheel("pyrt-nested", [("pyrt_nested-1.0.data/purelib/python_pptx-0.6.21.dist-info/METADATA", pptx)])
# pyrt's own wheel check (issue 26) refuses a wheelhouse holding these two
# before any installer starts: each gets a wheelhouse of its own.
import os
for name in ("pyrt_carrier", "pyrt_nested"):
    os.makedirs(f"{sys.argv[1]}-{name}")
    os.rename(f"{sys.argv[1]}/{name}-1.0-py3-none-any.whl",
              f"{sys.argv[1]}-{name}/{name}-1.0-py3-none-any.whl")
wheel("pyrt-newer", wheel_version="1.9")
wheel("pyrt-future", wheel_version="2.0")
wheel("pyrt-dup")
EOF
plain() { printf '%s\n' "$1" >"$work/plain.txt"
  run baseline "${common[@]}" --wheelhouse "$whp" --requirements "$work/plain.txt"; }
alone() { printf '%s\n' "$1" >"$work/plain.txt"
  run baseline "${common[@]}" --wheelhouse "$whp-$2" --requirements "$work/plain.txt"; }
alone pyrt-carrier pyrt_carrier
check "a wheel carrying another .dist-info: refused by pyrt before any installer" eval '
  ! rc_is 0 && has "refusing the wheel .*pyrt_carrier-1.0-py3-none-any.whl: its member python_pptx-0.6.21.dist-info/METADATA is the .dist-info of another distribution" err'
check "python-pptx does not look installed" eval '! ls -d "$site"/python_pptx-* 2>/dev/null'
alone pyrt-nested pyrt_nested
check "a .dist-info nested under .data: refused by pyrt before any installer" eval '
  ! rc_is 0 && has "refusing the wheel .*pyrt_nested-1.0-py3-none-any.whl: its member pyrt_nested-1.0.data/purelib/python_pptx-0.6.21.dist-info/METADATA" err &&
  ! ls -d "$site"/pyrt_nested-* "$site"/python_pptx-* 2>/dev/null'
plain pyrt-newer
check "Wheel-Version 1.9: installed by the fast path, with pip's warning" eval '
  rc_is 0 && ! pip_ran && has "WARNING: Installing from a newer Wheel-Version (1.9)" err &&
  [ "$(cat "$site"/pyrt_newer-1.0.dist-info/INSTALLER)" = pyrt ]'
plain pyrt-future
check "Wheel-Version 2.0: left to pip, which refuses it (exit 10)" eval '
  rc_is 10 && pip_ran && grep -q "Wheel-Version (2.0) is not compatible" "$(last_log)" &&
  ! ls -d "$site"/pyrt_future-* 2>/dev/null'
# A folder site adds when it exists (Debian's layout: lib/python3/dist-packages).
# Never outside the box: with no runtime, readlink prints nothing and this
# would name the machine's own /lib/python3 (a test once removed it).
install_dir=$(readlink -f "$box/runtime/python/current")
case $install_dir in
  "$(readlink -f "$box")"/*) ;;
  *) bad "the runtime is installed in the box (current: '$install_dir')"; e2e_finish; exit 1 ;;
esac
other=$install_dir/lib/python3/dist-packages
mkdir -p "$other/pyrt_dup-1.0.dist-info"
printf 'Metadata-Version: 2.1\nName: pyrt-dup\nVersion: 1.0\n' >"$other/pyrt_dup-1.0.dist-info/METADATA"
# A whole installation there (a RECORD listing files that exist).
mkdir -p "$other/pyrt_dup"
: >"$other/pyrt_dup/__init__.py"
printf 'pyrt_dup/__init__.py,,\npyrt_dup-1.0.dist-info/METADATA,,\npyrt_dup-1.0.dist-info/RECORD,,\n' \
  >"$other/pyrt_dup-1.0.dist-info/RECORD"
plain pyrt-dup
check "installed in another site folder: left to pip, which keeps it (exit 0)" eval '
  rc_is 0 && grep -q "not decided (pyrt-dup is installed in $other)" "$(last_log)" && pip_ran &&
  grep -q "Requirement already satisfied: pyrt-dup in $other" "$(last_log)" &&
  ! ls -d "$site"/pyrt_dup-* 2>/dev/null'
rm -rf "$(dirname "$other")"
# "Installed" needs a RECORD whose files are there: else it is installed again.
rm "$site"/et_xmlfile-1.0.1.dist-info/RECORD
printf 'openpyxl\n' >"$work/there.txt"
run baseline "${common[@]}" --wheelhouse "$fx/wheelhouse" --requirements "$work/there.txt"
# pyrt's own repair sees it first: pip cannot uninstall a dist-info without
# RECORD, so its metadata is dropped and it is installed anew.
check "a .dist-info without RECORD: installed again (exit 0)" eval '
  rc_is 0 && has "et-xmlfile: its metadata had no RECORD" err &&
  grep -q "^et_xmlfile/__init__.py,sha256=" "$site"/et_xmlfile-1.0.1.dist-info/RECORD'
rm "$site"/et_xmlfile/__init__.py
run baseline "${common[@]}" --wheelhouse "$fx/wheelhouse" --requirements "$work/there.txt"
# pyrt's own check (core/runtime/dists.h) finds it first and has pip reinstall it;
# the installer's check of the same rule is covered by test_py_unit.
check "a file its RECORD lists gone: installed again (exit 0)" eval '
  rc_is 0 && [ -f "$site"/et_xmlfile/__init__.py ] &&
  has "et-xmlfile 1.0.1 is installed but not whole (et_xmlfile/__init__.py is missing): reinstalling it" err'
check "no staging folder is left" [ ! -e "$site/.pyrt-fastwheel" ]

# --- a hostile wheel is refused by name, nothing of it written ---------------
wh=$work/wh-evil
cp -R "$fx/wheelhouse" "$wh"
python3 - "$wh" "$work/abs-evil.py" <<'EOF'
import sys, zipfile
wh, absolute = sys.argv[1], sys.argv[2]
for name, bad in (("escape", "../../evil.py"), ("absolute", absolute)):
    info = f"{name}-1.0.dist-info"
    with zipfile.ZipFile(f"{wh}/{name}-1.0-py3-none-any.whl", "w") as z:
        z.writestr(f"{name}/__init__.py", "")
        z.writestr(bad, "print('pwned')\n")
        z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", "")
EOF
listing() { (cd "$box" && find . -not -path "./runtime/python/logs*" | sort | md5sum); }
before=$(listing)
for name in escape absolute; do
  printf '%s\n' "$name" >"$work/evil.txt"
  run baseline "${common[@]}" --wheelhouse "$wh" --requirements "$work/evil.txt"
  check "$name member: a baseline failure (exit 10)" rc_is 10
  check "$name member: refused naming the wheel and why" eval '
    has "wheel $name-1.0-py3-none-any.whl refused: member .* is not a plain relative path" err'
  check "$name member: pip never ran" eval '! pip_ran'
done
# A decompression bomb: 300 MiB of zeros deflate to about 300 KB.  It is
# refused from the zip's directory, before a byte of it is inflated, and
# memory stays small (GNU time's peak RSS of pyrt and its children).
python3 - "$wh" <<'EOF'
import sys, zipfile
info = "bomb-1.0.dist-info"
with zipfile.ZipFile(sys.argv[1] + "/bomb-1.0-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("bomb/__init__.py", "")
    with z.open("bomb/zeros.bin", "w") as f:
        for _ in range(300):
            f.write(bytes(1 << 20))
    z.writestr(f"{info}/METADATA", "Metadata-Version: 2.1\nName: bomb\nVersion: 1.0\n")
    z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr(f"{info}/RECORD", "")
EOF
printf 'bomb\n' >"$work/evil.txt"
/usr/bin/time -f %M -o "$work/rss" "$pyrt" baseline "${common[@]}" --wheelhouse "$wh" \
  --requirements "$work/evil.txt" </dev/null >"$work/out" 2>"$work/err"
rc=$?
check "a zip bomb: a baseline failure (exit 10)" rc_is 10
check "refused naming the wheel, the member and the ratio" eval '
  has "wheel bomb-1.0-py3-none-any.whl refused: member .bomb/zeros.bin. unpacks to 314572800 bytes from [0-9]*, more than 200 times its compressed size" err'
check "pip never ran for it" eval '! pip_ran'
check "nothing of it is in site-packages" eval '
  [ ! -e "$site/bomb" ] && ! ls -d "$site"/bomb-* 2>/dev/null'
check "peak RSS $(tail -1 "$work/rss") KB: under 100 MB (a whole member is 300 MB)" \
  [ "$(tail -1 "$work/rss")" -lt 102400 ]
check "nothing was written outside site-packages" eval '
  [ ! -e "$(realpath -m "$site/../../evil.py")" ] && [ ! -e "$work/abs-evil.py" ]'
check "nothing of the wheels was written in the box at all" \
  eval '[ "$(listing)" = "$before" ] && [ ! -e "$site/escape" ] &&
        [ ! -e "$site/absolute" ] && ! ls -d "$site"/escape-* "$site"/absolute-* 2>/dev/null'
run status "${common[@]}" --json
check "the runtime stays active" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["state"] == "ready", d' "$work/out"
check "and runs" "$py" -I -c 'import docx'

# --- a large member is copied in chunks, hashed as it is written -------------
whb=$work/wh-big
mkdir -p "$whb"
python3 - "$whb" <<'EOF'
import base64, hashlib, os, sys, zipfile
info = "pyrt_big-1.0.dist-info"
h = hashlib.sha256()
with zipfile.ZipFile(sys.argv[1] + "/pyrt_big-1.0-py3-none-any.whl", "w") as z:
    z.writestr("pyrt_big/__init__.py", "")
    with z.open("pyrt_big/random.bin", "w") as f:
        for _ in range(96):
            chunk = os.urandom(1 << 20)
            h.update(chunk)
            f.write(chunk)
    z.writestr(f"{info}/METADATA", "Metadata-Version: 2.1\nName: pyrt-big\nVersion: 1.0\n")
    z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    digest = base64.urlsafe_b64encode(h.digest()).rstrip(b"=").decode()
    z.writestr(f"{info}/RECORD", "pyrt_big/random.bin,sha256=%s,%d\n" % (digest, 96 << 20))
EOF
printf 'pyrt-big\n' >"$work/big.txt"
/usr/bin/time -f %M -o "$work/rss" "$pyrt" baseline "${common[@]}" --wheelhouse "$whb" \
  --requirements "$work/big.txt" </dev/null >"$work/out" 2>"$work/err"
rc=$?
check "a wheel with a 96 MiB member: installed by the fast path (exit 0)" eval '
  rc_is 0 && ! pip_ran && [ "$(stat -c %s "$site/pyrt_big/random.bin")" = 100663296 ]'
check "the wheel's RECORD row, kept as pip keeps it, matches the file written" python3 -c '
import base64, csv, hashlib, sys
site = sys.argv[1]
rows = {r[0]: r for r in csv.reader(open(site + "/pyrt_big-1.0.dist-info/RECORD"))}
data = open(site + "/pyrt_big/random.bin", "rb").read()
want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
assert rows["pyrt_big/random.bin"][1:] == [want, str(len(data))], rows["pyrt_big/random.bin"]' "$site"
check "peak RSS $(tail -1 "$work/rss") KB: under 64 MB (a whole member is 96 MiB)" \
  [ "$(tail -1 "$work/rss")" -lt 65536 ]

e2e_finish
