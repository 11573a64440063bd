#!/usr/bin/env bash
# ctest: e2e_wheel_record
# A wheel whose own RECORD is wrong (issue 25, item 8): python-foo's RECORD
# lists bar.py, which the wheel does not contain; it has console scripts,
# so pip installs it (the fast path leaves it to pip).  Before, every
# `pyrt baseline` reinstalled it and exited 10 "not whole ... after a
# reinstall", for ever.  Now:
#  - the run that installs it says once that it is the wheel's fault,
#    naming the file, with the fix, and the baseline is complete (exit 0);
#  - the next run neither reinstalls it nor says it again, and status and
#    the plugin matrix count it installed;
#  - a file of it that the wheel does contain, deleted, is still repaired.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup wheel_record fixtures

box=$work/box
wh=$work/wh
mkdir -p "$wh"
py() { "$box/runtime/python/current/bin/python3" "$@"; }
last_log() { ls -t "$box"/runtime/python/logs/pip-*.log | head -1; }
python3 - "$wh" <<'PY'
import base64, hashlib, sys, zipfile
def digest(b):
    return base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
info = "python_foo-1.0.dist-info"
files = {"foo/__init__.py": b"def main():\n    print('foo')\n",
         info + "/METADATA": b"Metadata-Version: 2.1\nName: python-foo\nVersion: 1.0\n",
         info + "/WHEEL": b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
         info + "/entry_points.txt": b"[console_scripts]\nfoo = foo:main\n"}
rec = "".join("%s,sha256=%s,%d\n" % (p, digest(d), len(d)) for p, d in files.items())
rec += "bar.py,sha256=%s,4\n" % digest(b"bar\n")      # not in the wheel
files[info + "/RECORD"] = (rec + info + "/RECORD,,\n").encode()
with zipfile.ZipFile(sys.argv[1] + "/python_foo-1.0-py3-none-any.whl", "w") as z:
    for p, d in files.items():
        z.writestr(p, d)
PY
echo python-foo >"$work/req.txt"
run install --box-root "$box" --pins "$fx/pins.yaml" --from-file "$fx/runtime.tar.gz" --no-baseline --yes
check "the runtime installs (no baseline)" rc_is 0
site=$(py -I -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')

run baseline --box-root "$box" --pins "$fx/pins.yaml" --wheelhouse "$wh" --requirements "$work/req.txt"
check "the baseline with the faulty wheel exits 0" rc_is 0
check "pip installed it" grep -q "Successfully installed python-foo-1.0" "$(last_log)"
check "it says the wheel lists bar.py but does not contain it" \
  has "python-foo's wheel lists bar.py but does not contain it" err
check "with the fix" has "fix: get a wheel of python-foo whose RECORD lists only its own files" err
check "it does not say 'not whole ... after a reinstall'" eval '! has "after a reinstall" err'
check "the dist-info remembers it" \
  grep -qx bar.py "$site/python_foo-1.0.dist-info/PYRT-WHEEL-FAULTS"

run baseline --box-root "$box" --pins "$fx/pins.yaml" --wheelhouse "$wh" --requirements "$work/req.txt"
check "a rerun exits 0" rc_is 0
check "it reinstalls nothing" eval '! grep -q -- "--force-reinstall" "$(last_log)" && ! has "reinstalling it" err'
check "and does not say it again (once)" eval '! has "does not contain it" err'
run status --box-root "$box" --pins "$fx/pins.yaml" --json
check "status counts it installed: the baseline is complete" python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))["baseline"]
assert b["state"] == "complete", b' "$work/out"

rm "$site/foo/__init__.py"
run baseline --box-root "$box" --pins "$fx/pins.yaml" --wheelhouse "$wh" --requirements "$work/req.txt"
check "a file the wheel does contain, deleted, is repaired (exit 0)" rc_is 0
check "by a reinstall" has "python-foo 1.0 is installed but not whole (foo/__init__.py is missing): reinstalling it" err
check "foo/__init__.py is back" [ -f "$site/foo/__init__.py" ]
check "and bar.py is still not taken for damage" eval '! has "after a reinstall" err' 

e2e_finish
