#!/usr/bin/env bash
# ctest: e2e_lockset
# The wheel lock means what it says (issue 25, items 2, 3 and 4):
#  - a requirement whose specifier the locked version does not satisfy
#    (lib>=2 with lib 1.0 locked) is refused before anything runs, naming
#    the requirement and the locked version, with "re-lock: pyrt lock ...";
#    through plugins install as well, whose fix then says to re-lock;
#  - a locked install installs the requested projects and their locked
#    dependencies only (Requires-Dist read from the locked wheels, markers
#    evaluated for the runtime), also when pip installs (entry points);
#    the extras asked for reach pip, and a dependency an extra needs is
#    installed;
#  - `pyrt lock` leaves another platform's wheel out, and the locked
#    install leaves it alone instead of refusing the wheelhouse;
#  - the lock records each wheel's name and version, and an older lock
#    without them still reads.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup lockset fixtures

box=$work/box
wh=$work/wh
mkdir -p "$wh"
py() { "$box/runtime/python/current/bin/python3" "$@"; }
site_has() { py -I -c 'import importlib.metadata as m, sys
try: m.version(sys.argv[1])
except m.PackageNotFoundError: sys.exit(1)' "$1"; }
last_log() { ls -t "$box"/runtime/python/logs/pip-*.log | head -1; }

# Wheels: lib 1.0; app (entry points: pip installs it) needs lib and, on
# Python 2 only, ghost (not locked: the marker keeps it out); tool needs
# lib; fancy[extra] needs helper; unrelated is locked but never asked for;
# a macOS wheel of natty stands beside them.
python3 - "$wh" <<'PY'
import base64, hashlib, sys, zipfile
out = sys.argv[1]
def digest(b):
    return base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
def wheel(name, version, deps=(), extras=(), eps=None, tag="py3-none-any"):
    mod = name.replace("-", "_")
    info = "%s-%s.dist-info" % (mod, version)
    meta = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version)
    meta += "".join("Provides-Extra: %s\n" % e for e in extras)
    meta += "".join("Requires-Dist: %s\n" % d for d in deps)
    files = {"%s/__init__.py" % mod: b"X = 1\n",
             info + "/METADATA": meta.encode(),
             info + "/WHEEL": ("Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: %s\n" % tag).encode()}
    if eps:
        files[info + "/entry_points.txt"] = eps.encode()
    rec = "".join("%s,sha256=%s,%d\n" % (p, digest(d), len(d)) for p, d in files.items())
    files[info + "/RECORD"] = (rec + info + "/RECORD,,\n").encode()
    with zipfile.ZipFile("%s/%s-%s-%s.whl" % (out, mod, version, tag), "w") as z:
        for p, d in files.items():
            z.writestr(p, d)
wheel("lib", "1.0")
wheel("app", "1.0", deps=["lib>=1", 'ghost; python_version < "3"'],
      eps="[console_scripts]\napp = app:main\n")
wheel("tool", "1.0", deps=["lib"])
wheel("fancy", "1.0", deps=['helper; extra == "more"'], extras=["more"])
wheel("helper", "1.0")
wheel("unrelated", "1.0")
wheel("natty", "1.0", tag="cp311-cp311-macosx_11_0_arm64")
PY

locked=$work/locked.yaml
run lock --pins "$fx/pins.yaml" --wheelhouse "$wh" --out "$locked"
check "pyrt lock exits 0" rc_is 0
check "it leaves the macOS wheel out" has '(1 for other platforms left out)' err
check "the lock records each wheel's name and version" python3 -c '
import sys
t = open(sys.argv[1]).read()
assert "- file: lib-1.0-py3-none-any.whl\n" in t, t
i = t.index("- file: lib-1.0-py3-none-any.whl")
assert "      name: lib\n      version: \"1.0\"\n" in t[i:i + 200], t[i:i + 200]
assert "natty" not in t' "$locked"
# the fixture runtime, no baseline yet
run install --box-root "$box" --pins "$locked" --from-file "$fx/runtime.tar.gz" --no-baseline --yes
check "the runtime installs (no baseline)" rc_is 0

# --- item 4: another platform's wheel is left alone --------------------------
echo tool >"$work/tool.txt"
run baseline --box-root "$box" --pins "$locked" --wheelhouse "$wh" --requirements "$work/tool.txt"
check "the locked install accepts the wheelhouse pyrt lock was made of (exit 0)" rc_is 0
check "it does not call the macOS wheel unlocked" eval '! has "macosx_11_0_arm64.whl is not in the wheel lock" err'
check "tool and its locked dependency lib are installed" eval 'site_has tool && site_has lib'
check "the fast path installed only those" eval '! site_has unrelated && ! site_has fancy && ! site_has app'
cp "$wh/lib-1.0-py3-none-any.whl" "$wh/lib-1.0-py2.py3-none-any.whl"
run baseline --box-root "$box" --pins "$locked" --wheelhouse "$wh" --requirements "$work/tool.txt"
check "a wheel for this platform that the lock lacks is still refused (exit 5)" rc_is 5
check "naming it" has "lib-1.0-py2.py3-none-any.whl is not in the wheel lock" err
rm "$wh/lib-1.0-py2.py3-none-any.whl"

# --- item 4: an older lock, without name and version, still reads --------------
old=$work/old.yaml
grep -v '^      \(name\|version\): ' "$locked" >"$old"
run baseline --box-root "$box" --pins "$old" --wheelhouse "$wh" --requirements "$work/tool.txt"
check "a lock without name/version still installs (exit 0)" rc_is 0
sed 's/^      name: lib$/      name: other/' "$locked" >"$work/bad.yaml"
run status --box-root "$box" --pins "$work/bad.yaml"
check "a name that is not the file's project is refused" \
  has 'name "other" is not the project of lib-1.0-py3-none-any.whl' err

# --- item 2: the specifier must be satisfied by the locked version ----------------
echo 'lib>=2' >"$work/lib2.txt"
sums() { find "$box/runtime/python/current/" -name '*.dist-info' | sort; }
before=$(sums)
run baseline --box-root "$box" --pins "$locked" --wheelhouse "$wh" --requirements "$work/lib2.txt"
check "lib>=2 with lib 1.0 locked is refused (exit 5)" rc_is 5
check "naming the requirement and the locked version" \
  has 'lib>=2 is not satisfied by the wheel lock of the pins .* it locks lib 1.0' err
check "with the fix: re-lock, with the options that matter" \
  has "re-lock: pyrt lock --pins $locked --wheelhouse DIR --platform linux-[a-z0-9_]*-[a-z]* --out FILE" err
check "nothing was installed or removed" [ "$before" = "$(sums)" ]
echo 'app' >"$work/app.txt"

# --- item 3: pip installs only the closure, not the whole lock -------------------
run baseline --box-root "$box" --pins "$locked" --wheelhouse "$wh" --requirements "$work/app.txt"
check "app (entry points: pip installs it) exits 0" rc_is 0
check "pip installed it" grep -q "Successfully installed app-1.0" "$(last_log)"
check "pip's hashed requirements name app and lib only" eval '
  grep "^#   [a-z]" "$(last_log)" | sed "s/ --hash.*//" | sort | tr "\n" " " | grep -qx "#   app==1.0 #   lib==1.0 "'
check "unrelated, locked but never asked for, is not installed" eval '! site_has unrelated'
check "ghost (its marker is false here) was not asked of the lock" eval '! site_has ghost'

# extras reach the closure and pip
echo 'fancy[more]' >"$work/fancy.txt"
run baseline --box-root "$box" --pins "$locked" --wheelhouse "$wh" --requirements "$work/fancy.txt"
check "fancy[more] exits 0" rc_is 0
check "pip got the extra" grep -q '^#   fancy\[more\]==1.0 --hash' "$(last_log)"
check "the extra's dependency helper is installed" site_has helper
check "unrelated still is not" eval '! site_has unrelated'

# --- item 2 through plugins install: the fix says to re-lock ------------------------
mkdir -p "$box/plugins/needs2"
cat >"$box/plugins/needs2/plugin.yaml" <<'Y'
name: needs2
enabled: true
requires_tools: [execute_code]
requires_pip:
  - lib>=2
Y
run plugins install needs2 --box-root "$box" --pins "$locked" --wheelhouse "$wh"
check "plugins install needs2 is refused (exit 5)" rc_is 5
check "it says to re-lock" has 're-lock: pyrt lock' err
check "it does not offer pyrt plugins install needs2 as the fix" \
  eval '! grep -q "fix: pyrt plugins install needs2" "$work/err" "$work/out"'

e2e_finish
