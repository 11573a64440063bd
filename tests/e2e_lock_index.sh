#!/usr/bin/env bash
# ctest: e2e_lock_index
# The wheel lock from an index (issue 25, item 3 without a wheelhouse):
# `pyrt lock` records each wheel's Requires-Dist in the lock, and a locked
# install that reads a loopback index (no --wheelhouse, so no wheels at
# hand to read METADATA from) gives pip only the requested projects and
# their locked closure: `app` (lib; ghost only on Python 2) brings lib, and
# neither `unrelated` nor `tool` (locked, not asked for) is installed or
# even fetched from the index.  A lock written before Requires-Dist was
# recorded still reads, and then pip gets the whole lock, as before.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup lock-index fixtures

box=$work/box
wh=$work/wh
idx=$work/idx
mkdir -p "$wh" "$idx/simple"
py() { "$box/runtime/python/current/bin/python3" "$@"; }
site_has() { py -I -c 'import importlib.metadata as m, sys
try: m.version(sys.argv[1])
except m.PackageNotFoundError: sys.exit(1)' "$1"; }

python3 - "$wh" <<'PY'
import base64, hashlib, sys, zipfile
out = sys.argv[1]
def digest(b):
    return base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
def wheel(name, version, deps=(), eps=None):
    mod = name.replace("-", "_")
    info = "%s-%s.dist-info" % (mod, version)
    meta = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version)
    meta += "".join("Requires-Dist: %s\n" % d for d in deps)
    files = {"%s/__init__.py" % mod: b"X = 1\n",
             info + "/METADATA": meta.encode(),
             info + "/WHEEL": b"Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    if eps:
        files[info + "/entry_points.txt"] = eps.encode()
    rec = "".join("%s,sha256=%s,%d\n" % (p, digest(d), len(d)) for p, d in files.items())
    files[info + "/RECORD"] = (rec + info + "/RECORD,,\n").encode()
    with zipfile.ZipFile("%s/%s-%s-py3-none-any.whl" % (out, mod, version), "w") as z:
        for p, d in files.items():
            z.writestr(p, d)
wheel("lib", "1.0")
wheel("app", "1.0", deps=["lib>=1", 'ghost; python_version < "3"'],
      eps="[console_scripts]\napp = app:main\n")
wheel("tool", "1.0", deps=["lib"])
wheel("unrelated", "1.0")
PY
for f in "$wh"/*.whl; do
  n=$(basename "$f" | cut -d- -f1 | tr '_' '-')
  mkdir -p "$idx/simple/$n"
  cp "$f" "$idx/simple/$n/"
  printf '<a href="%s">%s</a>\n' "$(basename "$f")" "$(basename "$f")" >>"$idx/simple/$n/index.html"
done
e2e_serve_index "$idx"
index=(--index-url "http://127.0.0.1:$iport/simple/")

locked=$work/locked.yaml
run lock --pins "$fx/pins.yaml" --wheelhouse "$wh" --out "$locked"
check "pyrt lock exits 0 (rc $rc)" rc_is 0
check "the lock records each wheel's Requires-Dist" python3 -c '
import sys
t = open(sys.argv[1]).read()
i = t.index("- file: app-1.0-py3-none-any.whl")
e = t[i:i + 400]
assert "      requires:\n        - \"lib>=1\"\n        - \"ghost; python_version < \\\"3\\\"\"\n" in e, e
i = t.index("- file: lib-1.0-py3-none-any.whl")
assert "      requires: []\n" in t[i:i + 300], t[i:i + 300]' "$locked"
run install --box-root "$box" --pins "$locked" --from-file "$fx/runtime.tar.gz" --no-baseline --yes
check "the runtime installs (no baseline)" rc_is 0

echo app >"$work/app.txt"
: >"$work/http.log"
run baseline --box-root "$box" --pins "$locked" "${index[@]}" --requirements "$work/app.txt"
check "a locked baseline of app from the index (no wheelhouse) exits 0 (rc $rc)" rc_is 0
check "app and lib are installed" eval 'site_has app && site_has lib'
check "unrelated and tool, locked but not asked for, are not installed" \
  eval '! site_has unrelated && ! site_has tool'
check "pip never asked the index for unrelated or tool" \
  eval '! grep -Eq "GET /simple/(unrelated|tool)/" "$work/http.log"'

# An older lock, without requires: it still reads, and pip gets the whole
# lock (nothing to close the set with but the wheels, and none at hand).
grep -v -e '^      requires:' -e '^        - ' "$locked" >"$work/old.yaml"
box2=$work/box2
run install --box-root "$box2" --pins "$work/old.yaml" --from-file "$fx/runtime.tar.gz" --no-baseline --yes
check "a lock without requires reads (rc $rc)" rc_is 0
run baseline --box-root "$box2" --pins "$work/old.yaml" "${index[@]}" --requirements "$work/app.txt"
check "its locked baseline of app from the index exits 0 (rc $rc)" rc_is 0
check "with it pip gets the whole lock: unrelated is installed" \
  "$box2/runtime/python/current/bin/python3" -I -c 'import importlib.metadata as m; m.version("unrelated")'

e2e_finish
