#!/usr/bin/env bash
# ctest: e2e_cache_damage
# The box's caches are an optimisation, never a verdict: every entry
# carries a checksum (core/util/cache_seal.h), and damage to any byte of
# cache/digests, cache/plugins-check.json, cache/plugin-manifests.json or
# cache/plugins-scan changes no answer of `pyrt status --json` or `pyrt plugins --json` from
# the answer with no cache at all.  Every byte of the digests file is
# flipped in turn; the JSON files and the scan memo get a random sample of
# offsets (plugin-manifests.json with plugins-scan removed before each run,
# which would answer first) (the
# seed is printed; PYRT_DAMAGE_SEED and PYRT_DAMAGE_SAMPLES replay or widen
# it), each a miss that starts the plugin checker's interpreter.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup cache_damage fixtures

box=$work/box
mkdir -p "$box"
cp -R "$src/tests/fixtures/sample-box/plugins" "$box/"
common=(--box-root "$box" --pins "$fx/pins.yaml")
cache=$box/runtime/python/cache
seed=${PYRT_DAMAGE_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
samples=${PYRT_DAMAGE_SAMPLES:-40}
echo "# seed $seed, $samples samples per JSON cache"

run install "${common[@]}" --yes --from-file "$fx/runtime.tar.gz" --wheelhouse "$fx/wheelhouse"
check "the fixture runtime installs with its baseline" rc_is 0

# A distribution the C reader leaves to Python (an .egg-info), so the
# plugin checker runs and its answer is remembered (cache/plugins-check.json).
site=$("$box/runtime/python/current/bin/python3" -I -S -c 'import site; print(site.getsitepackages()[0])')
mkdir -p "$site/legacy_pkg-1.0.egg-info"
printf 'Metadata-Version: 1.1\nName: legacy-pkg\nVersion: 1.0\n' \
  >"$site/legacy_pkg-1.0.egg-info/PKG-INFO"
mkdir -p "$box/plugins/legacy"
printf 'name: legacy\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - legacy-pkg>=1\n  - python-docx\n' \
  >"$box/plugins/legacy/plugin.yaml"

drive() { python3 "$src/tests/cache_damage.py" "$@"; }
answers() { drive --answers "$pyrt" -- "${common[@]}"; }

rm -rf "$cache"
answers >"$work/truth"
check "the answers with no cache: ready, and the legacy plugin ready through Python" \
  python3 -c '
import json, sys
st, pl = json.load(open(sys.argv[1]))
rows = {p["name"]: p for p in pl["answer"]["plugins"]}
assert st["answer"]["state"] == "ready", st
assert rows["legacy"]["verdict"] == "ready", rows["legacy"]
assert rows["careercoach"]["verdict"] == "ready", rows["careercoach"]' "$work/truth"
# Files changed in the last 2 s are not remembered (digest_memo.h).
sleep 3
answers >"$work/warm"
answers >"$work/warm"
check "with the caches written, the answers are the same" cmp -s "$work/truth" "$work/warm"
for f in digests plugins-check.json plugin-manifests.json plugins-scan; do
  check "cache/$f was written" [ -s "$cache/$f" ]
done

check "cache/digests: every byte flipped in turn changes no answer" \
  drive "$pyrt" "$work/truth" "$cache/digests" all "$seed" -- "${common[@]}"
for f in plugins-check.json plugin-manifests.json plugins-scan; do
  forget=''
  [ "$f" = plugin-manifests.json ] && forget=$cache/plugins-scan
  check "cache/$f: $samples bytes flipped (seed $seed) change no answer" \
    env PYRT_DAMAGE_FORGET="$forget" python3 "$src/tests/cache_damage.py" \
    "$pyrt" "$work/truth" "$cache/$f" "$samples" "$seed" -- "${common[@]}"
done

# A damaged entry is recomputed and written again, whole.
# (offset 20: a digit of the first entry's digest, another digit after.)
python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(20); b = f.read(1); f.seek(20); f.write(bytes([b[0] ^ 1]))' "$cache/digests"
sleep 3
answers >"$work/now"
answers >"$work/now"
check "a damaged digests entry is computed and written again" \
  eval 'cmp -s "$work/truth" "$work/now" && [ "$(grep -c "^[0-9a-f]\{16\} [0-9a-f]\{64\} " "$cache/digests")" = 2 ]'
# --- the memo and a METADATA rewritten in place (issue 19.3) ----------------
# The Python checker's remembered answer was keyed on the dist-info folder's
# inode and mtime only: a PKG-INFO rewritten in place (same size, its mtime
# set back) kept a stale "ready".  It is keyed on the file's own identity
# now (ctime included, which nobody can set back).
pkginfo="$site/legacy_pkg-1.0.egg-info/PKG-INFO"
answers >/dev/null   # the memo is current
python3 -c '
import os, sys
p = sys.argv[1]
st = os.stat(p)
b = open(p, "rb").read()
assert b"Version: 1.0" in b
with open(p, "r+b") as f:  # in place: same inode, same size
    f.write(b.replace(b"Version: 1.0", b"Version: 0.5"))
os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the same mtime, to the ns
st2 = os.stat(p)
assert (st2.st_ino, st2.st_size, st2.st_mtime_ns) == (st.st_ino, st.st_size, st.st_mtime_ns)' "$pkginfo"
answers >"$work/rewritten"
check "PKG-INFO rewritten in place (1.0 -> 0.5, same size and mtime): legacy is no longer ready" \
  python3 -c '
import json, sys
st, pl = json.load(open(sys.argv[1]))
rows = {p["name"]: p for p in pl["answer"]["plugins"]}
assert rows["legacy"]["verdict"] != "ready", rows["legacy"]
assert rows["legacy"]["installed"].get("legacy-pkg") == "0.5", rows["legacy"]' "$work/rewritten"
rm -rf "$cache"
answers >"$work/nocache"
check "... the same answer as with no cache at all" cmp -s "$work/rewritten" "$work/nocache"

e2e_finish
