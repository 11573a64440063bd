#!/usr/bin/env bash
# ctest: e2e_wheellock
# The wheel lock (issue 17.1): the attack it closes, reproduced.  Whoever
# can write the fleet's mirror edits python_docx-…whl and its sha256/size in
# pyrt-mirror.json.  Without a lock, `mirror --verify` passes and every host
# installs it.  With `pyrt lock`'s pins:
#  - `mirror --verify` fails naming the wheel, expected and actual digest;
#  - install and baseline exit 5 naming the file and both digests, and
#    nothing of the wheel reaches site-packages (the runtime stays active);
#  - an extra wheel that no lock names is refused the same way;
#  - a requirement outside the lock is refused;
#  - the happy path installs only from a private 0700 copy in the box (seen
#    while it exists, through the wheels-staged test hook), removed after;
#  - pip gets --require-hashes -r with name==version --hash=sha256: lines,
#    and from an index serving the tampered wheel it refuses it: exit 5
#    naming the file and both digests;
#  - plugins install is bound by the lock as well;
#  - status and doctor say whether the wheels are hash-locked.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup wheellock fixtures
e2e_mirror

locked=$work/locked.yaml
dir=$work/mirror
py() { "$box/runtime/python/current/bin/python3" "$@"; }
site_has_docx() { ls -d "$site"/docx "$site"/python_docx-* >/dev/null 2>&1; }
last_log() { ls -t "$box"/runtime/python/logs/pip-baseline-*.log | head -1; }

# --- pyrt lock: the pins plus a lock of the wheelhouse ------------------------
run lock --pins "$fx/pins.yaml" --wheelhouse "$fx/wheelhouse" --out "$locked"
check "pyrt lock exits 0" rc_is 0
check "it says how many wheels it locked" has '6 wheel(s) locked in' out
check "the lock names each wheel by file, sha256 and size" python3 -c '
import hashlib, os, sys
text = open(sys.argv[1]).read()
wh = sys.argv[2]
for f in sorted(os.listdir(wh)):
    b = open(os.path.join(wh, f), "rb").read()
    want = "- file: %s\n      sha256: %s\n      size: %d\n" % (f, hashlib.sha256(b).hexdigest(), len(b))
    assert want in text, (f, text)
assert "url: \"https://upstream.invalid/pbs/fixture/runtime.tar.gz\"" in text
assert "  - \"python-docx\"" in text' "$locked" "$fx/wheelhouse"
run lock --pins "$fx/pins.yaml" --wheelhouse "$fx/wheelhouse" --platform linux-aarch64-gnu
check "a platform the pins do not pin is refused (exit 2)" rc_is 2
run lock --pins "$fx/pins.yaml"
check "lock without --wheelhouse is a usage error" rc_is 2

# --- the mirror, with the lock ------------------------------------------------
run mirror "$dir" --pins "$locked" --cacert "$fx/ca.pem" --mirror "$mirror" \
  --wheelhouse-from "$fx/wheelhouse"
check "mirror with the locked pins exits 0" rc_is 0
run mirror --verify "$dir" --pins "$locked"
check "mirror --verify against the lock exits 0 on a fresh mirror" rc_is 0
check "it says it checked the wheel lock" has 'match its index and the wheel lock' out

# --- the attack: a wheel and the index edited together -------------------------
whl=python_docx-0.8.11-py3-none-any.whl
good_sha=$(sha256sum "$fx/wheelhouse/$whl" | cut -d' ' -f1)
python3 - "$dir" "$whl" <<'PY'
import hashlib, json, os, sys, zipfile
d, whl = sys.argv[1:]
p = os.path.join(d, "wheels", whl)
with zipfile.ZipFile(p, "a") as z:
    z.writestr("docx/pwned.py", "open('/tmp/pyrt-pwned', 'w')\n")
b = open(p, "rb").read()
idx = os.path.join(d, "pyrt-mirror.json")
j = json.load(open(idx))
j["wheels"]["wheels/" + whl] = {"sha256": hashlib.sha256(b).hexdigest(), "size": len(b)}
json.dump(j, open(idx, "w"))
PY
bad_sha=$(sha256sum "$dir/wheels/$whl" | cut -d' ' -f1)
run mirror --verify "$dir"
check "without a lock the edited index hides the change (exit 0: the attack)" rc_is 0
run mirror --verify "$dir" --pins "$locked"
check "with the lock, mirror --verify exits 5" rc_is 5
check "it names the wheel, the expected and the actual digest" \
  has "wheels/$whl: SHA-256 mismatch with the wheel lock .*expected $good_sha .*got $bad_sha" out
run mirror --verify "$dir" --pins "$locked" --json
check "--json lists the problem" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["ok"] and [p["file"] for p in d["problems"]] == ["wheels/'"$whl"'"], d' "$work/out"

box=$work/box
run install --box-root "$box" --pins "$locked" --from-file "$fx/runtime.tar.gz" \
  --wheelhouse "$dir/wheels" --yes
site=$(py -I -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
check "install from the tampered mirror exits 5" rc_is 5
check "it names the file, the expected and the actual digest" \
  has "SHA-256 mismatch for $dir/wheels/$whl: the wheel lock expects $good_sha (.*), got $bad_sha" err
check "nothing of the wheel reached site-packages" eval '! site_has_docx && [ ! -e /tmp/pyrt-pwned ]'
check "no other wheel was installed either" eval '! ls -d "$site"/{lxml,openpyxl,et_xmlfile}-* 2>/dev/null'
check "the runtime itself stays active" test -x "$box/runtime/python/current/bin/python3"
check "the private copy is gone" [ ! -e "$box/runtime/python/wheels" ]
run baseline --box-root "$box" --pins "$locked" --wheelhouse "$dir/wheels"
check "baseline from the tampered mirror exits 5 too" rc_is 5
check "baseline names both digests" has "expects $good_sha .*got $bad_sha" err
check "still nothing of it in site-packages" eval '! site_has_docx'

# --- a wheel no lock names ------------------------------------------------------
wh=$work/wh
cp -R "$fx/wheelhouse" "$wh"
cp "$fx/wheelhouse/et_xmlfile-1.0.1-py3-none-any.whl" "$wh/python_docx-9.9-py3-none-any.whl"
extra_sha=$(sha256sum "$wh/python_docx-9.9-py3-none-any.whl" | cut -d' ' -f1)
run baseline --box-root "$box" --pins "$locked" --wheelhouse "$wh"
check "an extra wheel in the wheelhouse is refused (exit 5)" rc_is 5
check "the refusal names it, no expected digest and its actual one" \
  has "$wh/python_docx-9.9-py3-none-any.whl is not in the wheel lock .*expected no such wheel, got SHA-256 $extra_sha" err
check "nothing was installed" eval '! site_has_docx'
rm "$wh/python_docx-9.9-py3-none-any.whl"

# --- a requirement outside the lock --------------------------------------------
echo python-pptx >"$work/req.txt"
run baseline --box-root "$box" --pins "$locked" --wheelhouse "$wh" --requirements "$work/req.txt"
check "a requirement the lock does not name is refused (exit 5)" rc_is 5
check "the refusal names it" has 'python-pptx is not in the wheel lock' err

# --- the happy path: only the private copy is installed ------------------------
hook=$work/hook
PYRT_TEST_HOOK=wheels-staged:pause PYRT_TEST_HOOK_FILE=$hook \
  "$pyrt" baseline --box-root "$box" --pins "$locked" --wheelhouse "$wh" \
  </dev/null >"$work/out" 2>"$work/err" &
bpid=$!
for _ in $(seq 300); do [ -e "$hook" ] && break; sleep 0.1; done
priv=$box/runtime/python/wheels
check "while it runs, the private folder is 0700 and ours" \
  [ "$(stat -c '%a %u' "$priv" "$priv/files")" = "700 $(id -u)
700 $(id -u)" ]
check "it holds exactly the locked wheels, byte for byte" eval '
  [ "$(ls "$priv/files")" = "$(ls "$fx/wheelhouse")" ] &&
  for f in "$fx"/wheelhouse/*.whl; do cmp -s "$f" "$priv/files/${f##*/}" || exit 1; done'
check "pip's requirements file has name==version --hash=sha256: lines" \
  grep -qx "python-docx==0.8.11 --hash=sha256:$good_sha" "$priv/requirements.txt"
rm -f "$hook"
wait "$bpid"
rc=$?
check "the locked baseline exits 0" rc_is 0
check "the installer read the private copy" eval '
  head -1 "$(last_log)" | grep -q "<pyrt wheelhouse installer> $priv/files -- python-docx openpyxl$"'
check "python-docx is installed, from the lock's bytes" eval '
  site_has_docx && [ ! -e "$site/docx/pwned.py" ]'
check "the private folder is removed afterwards" [ ! -e "$priv" ]

# --- pip gets --require-hashes ----------------------------------------------------
echo 'reportlab[rl_accel]' >"$work/req2.txt"
run baseline --box-root "$box" --pins "$locked" --wheelhouse "$wh" --requirements "$work/req2.txt"
check "a case the installer leaves to pip exits 0" rc_is 0
check "pip ran with --no-index --find-links on the copy and --require-hashes -r" \
  grep -q -- " -m pip install .* --no-index --find-links $priv/files --require-hashes -r $priv/requirements.txt$" "$(last_log)"
check "the log holds the hash lines pip was given" \
  grep -q "^#   reportlab\[rl-accel\]==3.6.12 --hash=sha256:[0-9a-f]\{64\}$" "$(last_log)"
check "pip installed reportlab" eval 'ls -d "$site"/reportlab-3.6.12.dist-info >/dev/null'
run baseline --box-root "$box" --pins "$locked" --index-url http://127.0.0.1:9/simple
check "from an index pip download gets --require-hashes as well" \
  eval 'grep -q -- " -m pip download .* --require-hashes -r $priv/requirements.txt$" "$(last_log)" &&
        grep -q "^# index (PIP_INDEX_URL): http://127.0.0.1:9" "$(last_log)"'

# --- from an index, pip refuses a download that is not the lock's ----------------
# A PEP 503 simple index on loopback serving the tampered python-docx and
# the rest of the lock as it is (pip download fetches the whole lock).
idx=$work/index
e2e_simple_index "$idx"
rm -rf "$idx/simple/python-docx"
mkdir -p "$idx/simple/python-docx" "$idx/files"
cp "$dir/wheels/$whl" "$idx/files/"
printf '<html><body><a href="../../files/%s">%s</a></body></html>\n' "$whl" "$whl" \
  >"$idx/simple/python-docx/index.html"
python3 -u -m http.server --bind 127.0.0.1 --directory "$idx" 0 >"$work/idx.log" 2>&1 &
idx_pid=$!
for _ in $(seq 100); do grep -q 'port [0-9]' "$work/idx.log" && break; sleep 0.1; done
idx_port=$(sed -n 's/.* port \([0-9]*\).*/\1/p' "$work/idx.log" | head -1)
PIP_ROOT_USER_ACTION=ignore py -I -m pip uninstall -y -q python-docx
run baseline --box-root "$box" --pins "$locked" --index-url "http://127.0.0.1:$idx_port/simple"
kill "$idx_pid" 2>/dev/null; wait "$idx_pid" 2>/dev/null
check "pip from an index refuses the tampered wheel: exit 5" rc_is 5
check "the refusal names the file, the expected and the actual digest" \
  has "pip refused a wheel whose SHA-256 is not the wheel lock's: python-docx==0.8.11 from http://127.0.0.1:$idx_port/files/$whl: expected sha256 $good_sha, got $bad_sha; .*see .*pip-baseline-" err
check "nothing of it reached site-packages" eval '! site_has_docx'
run baseline --box-root "$box" --pins "$locked" --wheelhouse "$wh"
check "the locked wheelhouse puts python-docx back" rc_is 0

# --- plugins install is bound by the lock too ------------------------------------
cp -R "$src/tests/fixtures/sample-box/plugins" "$box/"
run plugins install cowork --box-root "$box" --pins "$locked" --wheelhouse "$wh"
check "a plugin needing an unlocked project is refused (exit 5)" rc_is 5
check "the refusal names the requirement" has 'python-pptx is not in the wheel lock' err
run plugins install careercoach --box-root "$box" --pins "$locked" --wheelhouse "$wh"
check "a plugin inside the lock installs (exit 0)" rc_is 0
check "from the private copy" eval '
  head -1 "$(ls -t "$box"/runtime/python/logs/pip-plugin*.log | head -1)" | grep -q " $priv/files -- python-docx$"'

# --- status and doctor say it plainly ---------------------------------------------
run status --box-root "$box" --pins "$locked" --json
check "status --json: baseline.locked true with the lock" python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))["baseline"]
assert b["locked"] is True and "hash-locked" in b["source"] and "6 wheels" in b["source"], b' "$work/out"
run status --box-root "$box" --json
check "status --json: baseline.locked false with the built-in pins, and why" python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))["baseline"]
assert b["locked"] is False and b["source"].startswith("not hash-locked: the pins (builtin)"), b' "$work/out"
run status --box-root "$box"
check "status says it in words" has '^  wheels: *not hash-locked' out
run doctor --box-root "$box"
check "doctor says the built-in pins do not hash-lock the wheels" \
  has "Pins source.*the baseline's wheels are NOT hash-locked" out

e2e_finish
