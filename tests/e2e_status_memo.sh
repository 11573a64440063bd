#!/usr/bin/env bash
# ctest: e2e_status_memo
# The memo of distributions found whole (core/runtime/dists_memo.h, issue
# 25's "observed state ... memoised on the identities of the folders it
# read") never answers stale.  On a box with the fixture baseline: a
# settled status writes the memo (owner-only) and the next status is
# answered from it (it opens no RECORD: strace).  Then, each after a
# settled status that used the memo: one RECORD-listed file deleted, and
# re-created; a package folder removed with its .dist-info (pip
# uninstall), and put back; a package folder replaced by a same-named one
# that lacks a file; a file deleted inside the 2 s settle window; a memo
# forged to call a broken distribution whole (believed only when it is the
# owner's own, 0600, which proves the forgery would work: owned by a
# second user, group- or world-writable, in a folder others may write, or
# damaged, it is not); a second user (setpriv) reads the box: each time
# `status --json` (and `plugins --json`) equals an answer with the memo
# removed, and the verdict is the expected one.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup status_memo fixtures
command -v strace >/dev/null || { echo "FAIL - strace is missing"; exit 1; }
command -v setpriv >/dev/null || { echo "FAIL - setpriv (util-linux) is missing"; exit 1; }

box=$work/box
common=(--box-root "$box" --pins "$fx/pins.yaml")
run install --yes --from-file "$fx/runtime.tar.gz" --wheelhouse "$fx/wheelhouse" "${common[@]}"
check "the fixture runtime installs with the baseline" rc_is 0
cache=$box/runtime/python/cache
memo=$cache/dists-whole
py=$box/runtime/python/current/bin/python3
S=$("$py" -I -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
mkdir -p "$box/plugins/relplug"
printf 'name: relplug\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - openpyxl\n' \
  >"$box/plugins/relplug/plugin.yaml"

# The answer's parts that say what is installed (a second user's answer
# differs in nothing else either).
state() { # FILE: baseline state and missing list of a status --json
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
b = d.get("baseline") or {}
print(d.get("state"), b.get("state"), ",".join(b.get("missing") or []))' "$1"
}

# status_now: status --json into $work/memo.json (and plugins into
# memo-plugins.json), with the memo as it is.
status_now() {
  "$pyrt" status --json "${common[@]}" </dev/null >"$work/memo.json" 2>/dev/null
  "$pyrt" plugins --json "${common[@]}" </dev/null >"$work/memo-plugins.json" 2>/dev/null
}
# fresh_equal: the answers equal ones read with the memo removed.
fresh_equal() {
  rm -f "$memo"
  "$pyrt" status --json "${common[@]}" </dev/null >"$work/fresh.json" 2>/dev/null
  rm -f "$memo"
  "$pyrt" plugins --json "${common[@]}" </dev/null >"$work/fresh-plugins.json" 2>/dev/null
  if cmp -s "$work/memo.json" "$work/fresh.json" &&
     cmp -s "$work/memo-plugins.json" "$work/fresh-plugins.json"; then
    return 0
  fi
  diff "$work/memo.json" "$work/fresh.json" | head -6 >&2
  diff "$work/memo-plugins.json" "$work/fresh-plugins.json" | head -6 >&2
  return 1
}
# records_opened: how many RECORD files one status opens.
records_opened() {
  strace -f -qq -e trace=openat -o "$work/trace" \
    "$pyrt" status "${common[@]}" </dev/null >/dev/null 2>&1
  grep -c '"RECORD"' "$work/trace"
}
# settle_and_hit [N]: wait out the settle time, let one status write the
# memo, and show the next one is answered from it: no RECORD opened, or
# at most N (a distribution that is not whole is read every time: status
# asks for it twice, as a requirement and in the list of the not whole).
settle_and_hit() {
  sleep 2.2
  "$pyrt" status "${common[@]}" </dev/null >/dev/null 2>&1
  [ -f "$memo" ] && [ "$(records_opened)" -le "${1:-0}" ]
}
expect() { # WHAT: the memo's answer is $1 (state() of memo.json)
  [ "$(state "$work/memo.json")" = "$1" ] ||
    { echo "# got: $(state "$work/memo.json")" >&2; return 1; }
}

# The fixture baseline: python-docx, lxml, openpyxl, et-xmlfile, and pip.
check "without a memo, status opens every RECORD" eval '[ "$(rm -f "$memo"; records_opened)" -ge 5 ]'
check "settled: status writes the memo and the next one reads no RECORD" settle_and_hit
check "the memo is the owner's, 0600, in a 0700 cache" \
  eval '[ "$(stat -c %a:%u "$memo")" = "600:$(id -u)" ] && [ "$(stat -c %a "$cache")" = 700 ]'
status_now
check "from the memo: ready, baseline complete" expect "ready complete "
check "  and equal to an answer with no memo" fresh_equal

# 1. One RECORD-listed file deleted.
check "settled (1)" settle_and_hit
mv "$S/docx/api.py" "$work/api.py"
status_now
check "a listed file deleted: partial, python-docx missing" expect "ready partial python-docx"
check "  and equal to an answer with no memo" fresh_equal
# 2. ... and re-created, after a memo was written while it was missing.
check "settled (2): the memo is used with python-docx not whole" settle_and_hit 2
status_now
check "  (still partial from the memo)" expect "ready partial python-docx"
cp -p "$work/api.py" "$S/docx/api.py"
status_now
check "the file re-created: complete again" expect "ready complete "
check "  and equal to an answer with no memo" fresh_equal

# 3. pip uninstall's effect: the package folder and its .dist-info gone.
check "settled (3)" settle_and_hit
info=$(cd "$S" && ls -d openpyxl-*.dist-info)
mv "$S/openpyxl" "$S/$info" "$work/"
status_now
check "openpyxl uninstalled: partial, openpyxl missing" expect "ready partial openpyxl"
check "  plugins: relplug is missing_deps" grep -q '"missing_deps"' "$work/memo-plugins.json"
check "  and equal to answers with no memo" fresh_equal
check "settled (4): the memo is used with openpyxl gone" settle_and_hit
mv "$work/openpyxl" "$work/$info" "$S/"
status_now
check "openpyxl put back: complete" expect "ready complete "
check "  and equal to answers with no memo" fresh_equal

# 4. A folder replaced by a same-named one that lacks a file.
check "settled (5)" settle_and_hit
cp -a "$S/docx" "$work/docx.new"
rm "$work/docx.new/shared.py"
mv "$S/docx" "$work/docx.orig"
mv "$work/docx.new" "$S/docx"
status_now
check "docx/ replaced by one without shared.py: partial" expect "ready partial python-docx"
check "  and equal to an answer with no memo" fresh_equal
rm -rf "$S/docx"
mv "$work/docx.orig" "$S/docx"

# 5. Inside the settle window: nothing is remembered for the changed
# folder, and a deletion then is seen.
check "settled (6)" settle_and_hit
touch "$S/docx/oxml/.touch" && rm "$S/docx/oxml/.touch"
"$pyrt" status "${common[@]}" </dev/null >/dev/null 2>&1
check "a folder changed < 2 s ago: the next status reads the RECORDs" \
  eval '[ "$(records_opened)" -gt 0 ]'
mv "$S/docx/oxml/ns.py" "$work/ns.py"
status_now
check "a file deleted inside the window: partial" expect "ready partial python-docx"
check "  and equal to an answer with no memo" fresh_equal

# 6. A forged memo: python-docx (not whole: ns.py is gone) called whole.
check "settled (7): a memo written while python-docx is not whole" settle_and_hit 2
forge() { # a memo that also lists python-docx's dist-info as whole
  python3 - "$memo" "$S" <<'EOF'
import os, struct, sys
memo, site = sys.argv[1], sys.argv[2]
data = open(memo, "rb").read()
body = data[17:]
info = [n for n in os.listdir(site) if n.startswith("python_docx-") and n.endswith(".dist-info")][0]
st = os.stat(os.path.join(site, info, "RECORD"), follow_symlinks=False)
ident = [st.st_dev, st.st_ino, st.st_mode, st.st_uid, st.st_gid, st.st_size,
         st.st_mtime_ns, st.st_ctime_ns]
body += b"R %d:%s " % (len(info), info.encode()) + struct.pack("=8q", *ident) + b"\n"
h = 0xcbf29ce484222325
for b in body:
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
tmp = memo + ".forged"
with open(tmp, "wb") as f:
    f.write(b"%016x\n" % h + body)
os.chmod(tmp, 0o600)
os.rename(tmp, memo)
EOF
}
forge
status_now
check "control: the owner's own forged memo is believed (complete)" expect "ready complete "
forge
chown 1234:1234 "$memo"
status_now
check "forged memo owned by a second user: not believed" expect "ready partial python-docx"
check "  and equal to an answer with no memo" fresh_equal
forge
chmod 0620 "$memo"
status_now
check "forged memo writable by its group: not believed" expect "ready partial python-docx"
forge
chmod 0602 "$memo"
status_now
check "forged memo writable by others: not believed" expect "ready partial python-docx"
forge
chmod 0770 "$cache"
status_now
check "forged memo in a cache folder its group may write: not believed" expect "ready partial python-docx"
chmod 0700 "$cache"
forge
printf 'X' | dd of="$memo" bs=1 seek=40 conv=notrunc 2>/dev/null
status_now
check "forged memo with a flipped byte: not believed" expect "ready partial python-docx"
check "  and equal to an answer with no memo" fresh_equal
forge
setpriv --reuid=1234 --regid=1234 --clear-groups touch "$memo" 2>/dev/null
check "a second user cannot write the memo" eval '[ "$(stat -c %u "$memo")" = "$(id -u)" ]'
rm -f "$memo"
mv "$work/ns.py" "$S/docx/oxml/ns.py"

# 7. A second user reads root's box: the same answer, nothing written.
check "settled (8)" settle_and_hit
chmod 755 "$work"
before=$(stat -c %i:%Y "$memo")
setpriv --reuid=1234 --regid=1234 --clear-groups \
  "$pyrt" status --json "${common[@]}" </dev/null >"$work/other.json" 2>/dev/null
status_now
check "a second user's status equals the owner's" eval '[ "$(state "$work/other.json")" = "$(state "$work/memo.json")" ]'
check "  and wrote no memo" eval '[ "$(stat -c %i:%Y "$memo")" = "$before" ]'
chmod 700 "$work"

# 8. A damaged memo: a miss, never a verdict.
check "settled (9)" settle_and_hit
printf 'X' | dd of="$memo" bs=1 seek=30 conv=notrunc 2>/dev/null
check "a damaged memo is not used (RECORDs read)" eval '[ "$(records_opened)" -gt 0 ]'
status_now
check "  and the answer equals one with no memo" fresh_equal

# 9. The listing of each search-path folder is remembered on the folder's
# identity: a dist-info added to the stdlib folder (before the site folder
# on the path, so it shadows openpyxl; it has no RECORD, so openpyxl is
# not installed) or to lib-dynload is seen, and so is its removal.
STD=$("$py" -I -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
DYN=$STD/lib-dynload
check "the stdlib folder and lib-dynload are on the path" eval '[ -d "$STD" ] && [ -d "$DYN" ]'
shadow() { # FOLDER NAME VERSION: a dist-info with METADATA, no RECORD
  mkdir "$1/$2-$3.dist-info"
  printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' "$2" "$3" \
    >"$1/$2-$3.dist-info/METADATA"
}
check "settled (11)" settle_and_hit
shadow "$STD" openpyxl 3.0.9
status_now
check "a dist-info added to the stdlib folder: partial, openpyxl missing" expect "ready partial openpyxl"
check "  and equal to answers with no memo" fresh_equal
check "settled (12): the memo lists it" settle_and_hit 4
status_now
check "  (still partial from the memo)" expect "ready partial openpyxl"
rm -rf "$STD/openpyxl-3.0.9.dist-info"
status_now
check "the dist-info removed from the stdlib folder: complete" expect "ready complete "
check "  and equal to answers with no memo" fresh_equal
check "settled (13)" settle_and_hit
shadow "$DYN" et_xmlfile 1.0.1
status_now
check "a dist-info added to lib-dynload: partial" eval '[ "$(state "$work/memo.json")" != "ready complete " ]'
check "  and equal to answers with no memo" fresh_equal
check "settled (14): the memo lists it" settle_and_hit 4
rm -rf "$DYN/et_xmlfile-1.0.1.dist-info"
status_now
check "the dist-info removed from lib-dynload: complete" expect "ready complete "
check "  and equal to answers with no memo" fresh_equal

# 10. What is read from METADATA (Version, Requires-Dist) is remembered on
# the identities of METADATA and its dist-info folder: METADATA rewritten
# in place (same size, mtime put back) and replaced by a rename are read
# again.  openpyxl 3.0.9 requiring et_xmlfile becomes 3.0.8 requiring
# et_xmlfilf, which is not installed.
meta=$(ls -d "$S"/openpyxl-*.dist-info)/METADATA
cp -p "$meta" "$work/METADATA.orig"
altered() { # FILE: the METADATA with the new Version and Requires-Dist
  sed -e 's/^Version: 3.0.9$/Version: 3.0.8/' \
      -e 's/^Requires-Dist: et_xmlfile$/Requires-Dist: et_xmlfilf/' \
      "$work/METADATA.orig" >"$1"
}
plug_version() { # the openpyxl version plugins --json reports
  python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["plugins"][0]
print(p["verdict"], (p.get("installed") or {}).get("openpyxl"))' "$work/memo-plugins.json"
}
check "settled (15)" settle_and_hit
status_now
check "  relplug ready with openpyxl 3.0.9" eval '[ "$(plug_version)" = "ready 3.0.9" ]'
altered "$work/METADATA.new"
check "  (the altered METADATA has the same size)" eval \
  '[ "$(stat -c %s "$work/METADATA.new")" = "$(stat -c %s "$meta")" ]'
python3 -c '
import sys
data = open(sys.argv[2], "rb").read()
with open(sys.argv[1], "r+b") as f:
    f.write(data)' "$meta" "$work/METADATA.new"
touch -r "$work/METADATA.orig" "$meta"
status_now
check "METADATA rewritten in place: plugins see 3.0.8 and its missing dependency" \
  eval '[ "$(plug_version)" != "ready 3.0.9" ] && grep -q "3.0.8" "$work/memo-plugins.json"'
check "  status: partial" eval '[ "$(state "$work/memo.json")" != "ready complete " ]'
check "  and equal to answers with no memo" fresh_equal
cp "$work/METADATA.orig" "$work/METADATA.back"
python3 -c '
import sys
data = open(sys.argv[2], "rb").read()
with open(sys.argv[1], "r+b") as f:
    f.write(data)' "$meta" "$work/METADATA.back"
touch -r "$work/METADATA.orig" "$meta"
status_now
check "  written back in place: complete, relplug ready with 3.0.9" \
  eval '[ "$(state "$work/memo.json")" = "ready complete " ] && [ "$(plug_version)" = "ready 3.0.9" ]'
check "  and equal to answers with no memo" fresh_equal
check "settled (16)" settle_and_hit
altered "$(dirname "$meta")/METADATA.tmp"
touch -r "$work/METADATA.orig" "$(dirname "$meta")/METADATA.tmp"
mv "$(dirname "$meta")/METADATA.tmp" "$meta"
status_now
check "METADATA replaced by a rename: plugins see 3.0.8" \
  eval '[ "$(plug_version)" != "ready 3.0.9" ] && grep -q "3.0.8" "$work/memo-plugins.json"'
check "  and equal to answers with no memo" fresh_equal
cp -p "$work/METADATA.orig" "$meta"
status_now
check "  put back: complete, relplug ready with 3.0.9" \
  eval '[ "$(state "$work/memo.json")" = "ready complete " ] && [ "$(plug_version)" = "ready 3.0.9" ]'
check "  and equal to answers with no memo" fresh_equal

# status --deep reads every file, memo or not.
check "settled (10)" settle_and_hit
strace -f -qq -e trace=openat -o "$work/trace" \
  "$pyrt" status --deep "${common[@]}" </dev/null >/dev/null 2>&1
deep_records() { grep -c '"RECORD"' "$work/trace"; }
check "status --deep opens every RECORD" eval '[ "$(deep_records)" -ge 5 ]'

e2e_finish
