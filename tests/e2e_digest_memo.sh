#!/usr/bin/env bash
# ctest: e2e_digest_memo
# End to end: `pyrt status` remembers the digests it checked in the box
# (runtime/python/cache/digests, core/dist/digest_memo.h) so the next status
# hashes nothing and loads no libcrypto; and the memo never vouches for a
# file that changed since (nor one changed in the last 2 s): a byte flipped in manifest.tsv or marker.json (same
# size) is broken at once, a restored file is ready again, and a memo file
# that is not ours, or is a symlink, is not read at all.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup digest_memo fixtures

box=$work/box
common=(--box-root "$box" --pins "$fx/pins.yaml")
cache=$box/runtime/python/cache
memo=$cache/digests
state() { "$pyrt" status --json "${common[@]}" </dev/null 2>/dev/null |
            sed -n 's/^  "state": "\([a-z_]*\)".*/\1/p'; }
# failed: the check status names in its message ("broken (manifest: ...").
failed() { "$pyrt" status "${common[@]}" </dev/null 2>/dev/null | head -1 |
             sed -n 's/.*is broken (\([a-z_]*\): .*/\1/p'; }
maps_crypto() {
  [ "$(LD_DEBUG=files "$pyrt" status "${common[@]}" </dev/null 2>&1 >/dev/null |
       grep -c 'file=libcrypto')" -gt 0 ]
}
# flip FILE OFFSET: change one byte in place (same size, same inode).
flip() {
  local f=$1 off=$2 b
  b=$(dd if="$f" bs=1 skip="$off" count=1 2>/dev/null)
  if [ "$b" = x ]; then printf y; else printf x; fi |
    dd of="$f" bs=1 seek="$off" count=1 conv=notrunc 2>/dev/null
}

run install "${common[@]}" --yes --no-baseline --from-file "$fx/runtime.tar.gz"
check "the fixture runtime installs" rc_is 0
inst=$(readlink -f "$box/runtime/python/current/..")
check "status right after the install: ready" [ "$(state)" = ready ]
check "... and nothing remembered yet: files changed this second may change again unseen" \
  eval '[ ! -s "$memo" ] || ! grep -q "^[0-9a-f]\{16\} [0-9a-f]\{64\} " "$memo"'
sleep 3

check "status: ready" [ "$(state)" = ready ]
check "... and it remembered two digests (marker and manifest)" \
  eval '[ "$(grep -c "^[0-9a-f]\{16\} [0-9a-f]\{64\} " "$memo")" -eq 2 ]'
check "... in a file 0600 in a 0700 cache directory" \
  eval '[ "$(stat -c %a "$memo")" = 600 ] && [ "$(stat -c %a "$cache")" = 700 ]'
check "... naming the files by their install's path" \
  eval 'grep -qF " $inst/manifest.tsv" "$memo" && grep -qF " $inst/marker.json" "$memo"'
check "the next status hashes nothing: libcrypto is not even loaded" eval '! maps_crypto'
check "... and it is still ready" [ "$(state)" = ready ]
check "verify always hashes (libcrypto loaded)" \
  eval '[ "$(LD_DEBUG=files "$pyrt" verify "${common[@]}" </dev/null 2>&1 >/dev/null |
            grep -c "file=libcrypto")" -gt 0 ]'

# The manifest changes under a remembered digest: one byte, same size.
cp -p "$inst/manifest.tsv" "$work/manifest.orig"
flip "$inst/manifest.tsv" 100
check "a byte flipped in manifest.tsv: broken at once" [ "$(state)" = broken ]
check "... failed check: manifest" [ "$(failed)" = manifest ]
cat "$work/manifest.orig" >"$inst/manifest.tsv"
check "restored: ready again (hashed afresh)" [ "$(state)" = ready ]

cp -p "$inst/marker.json" "$work/marker.orig"
off=$(grep -bo '"build": "fixture' "$inst/marker.json" | cut -d: -f1)
flip "$inst/marker.json" $((off + 10))
check "a byte flipped in marker.json: broken at once" [ "$(state)" = broken ]
check "... failed check: marker" [ "$(failed)" = marker ]
cat "$work/marker.orig" >"$inst/marker.json"
check "restored: ready again" [ "$(state)" = ready ]

# A memo somebody else planted vouches for nothing.  Flip the manifest,
# then write the entry an attacker would want (the changed file's identity,
# the original digest) into a memo owned by nobody.
want=$(sha256sum "$work/manifest.orig" | cut -d' ' -f1)
flip "$inst/manifest.tsv" 100
# forge FILE: a digests memo vouching $want for manifest.tsv as it is now,
# each line sealed with its checksum as pyrt writes it (cache_seal.h).
forge() {
  python3 - "$inst/manifest.tsv" "$want" "$1" <<'PY'
import os, sys
f, want, out = sys.argv[1:4]
st = os.stat(f)
line = "%s %d %d %d %d %d %d %d %s" % (want, st.st_dev, st.st_ino, st.st_size,
        st.st_mtime_ns // 10**9, st.st_mtime_ns % 10**9,
        st.st_ctime_ns // 10**9, st.st_ctime_ns % 10**9, f)
h = 0xcbf29ce484222325
for b in line.encode():
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
open(out, "w").write("pyrt-digests 2\n%016x %s\n" % (h, line))
PY
}
rm -f "$memo"
forge "$memo"
cp "$memo" "$work/forged"
check "(our own forged entry would be trusted: the test forges it right)" \
  [ "$(state)" = ready ]
forge "$memo"
chown 65534:65534 "$memo"
check "a memo owned by another user is not read: broken" [ "$(state)" = broken ]
rm -f "$memo"
forge "$work/elsewhere"
ln -s "$work/elsewhere" "$memo"
check "a memo that is a symlink is not read: broken" [ "$(state)" = broken ]
check "... and the symlink's target was not written" cmp -s "$work/elsewhere" "$work/forged"
rm -f "$memo"
cat "$work/manifest.orig" >"$inst/manifest.tsv"
check "restored once more: ready" [ "$(state)" = ready ]

run uninstall "${common[@]}" --yes
check "uninstall removes the memo with the runtime" [ ! -e "$memo" ]

e2e_finish
