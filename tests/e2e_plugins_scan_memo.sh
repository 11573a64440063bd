#!/usr/bin/env bash
# ctest: e2e_plugins_scan_memo
# The plugin scan remembered on identities (core/pkgs/plugins_scan_memo.h,
# issue 28) never answers stale: each cycle lets the box settle, shows that
# the next `pyrt plugins --json` was answered from the memo (-v names it),
# makes one change, and checks that the very next call sees it and equals
# an answer with every memo removed.  Changes: a requirement removed, a
# manifest disabled in place (same size), a plugin added, one removed,
# a plugin.yaml created in a folder that had none, a folder made writable
# by its group, a folder swapped for a symlink, the memo damaged.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup plugins_scan_memo fixtures

box=$work/box
common=(--box-root "$box" --pins "$fx/pins.yaml")
run install --yes --no-baseline --from-file "$fx/runtime.tar.gz" "${common[@]}"
check "the fixture runtime installs offline" rc_is 0

mkdir -p "$box/plugins"
for i in 1 2 3 4 5; do
  mkdir "$box/plugins/p$i"
  printf 'name: p%s\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - python-docx\n' "$i" \
    >"$box/plugins/p$i/plugin.yaml"
done
mkdir "$box/plugins/empty"
memo=$box/runtime/python/cache/plugins-scan
caches="$box/runtime/python/cache/plugins-scan $box/runtime/python/cache/plugin-manifests.json $box/runtime/python/cache/plugins-check.json"

# verdict NAME: NAME's verdict in out (JSON), or "absent".
verdict() {
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print({p["name"]: p["verdict"] for p in d["plugins"]}.get(sys.argv[2], "absent"))' "$work/out" "$1"
}

# settle_and_hit: wait out the settle time (2 s after the last change),
# let one call remember the scan, and show the next one is answered from it.
settle_and_hit() {
  sleep 2.2
  "$pyrt" plugins --json "${common[@]}" </dev/null >/dev/null 2>&1
  "$pyrt" plugins --json -v "${common[@]}" </dev/null >"$work/out" 2>"$work/err"
  grep -q "plugin manifests unchanged since .*plugins-scan" "$work/err"
}

# fresh_equal: out equals an answer with every memo removed (which then
# puts them back for the next cycle).
fresh_equal() {
  cp "$work/out" "$work/memo.json"
  # shellcheck disable=SC2086  # three paths
  rm -f $caches
  "$pyrt" plugins --json "${common[@]}" </dev/null >"$work/fresh.json" 2>/dev/null
  cmp -s "$work/memo.json" "$work/fresh.json" || { diff "$work/memo.json" "$work/fresh.json" | head -5 >&2; return 1; }
}

after() { run plugins --json "${common[@]}"; }

check "settled: the next call is answered from the scan memo" settle_and_hit
check "the scan memo is owner-only" eval '[ "$(stat -c %a "$memo")" = 600 ]'
check "p1 is missing python-docx (no baseline)" eval '[ "$(verdict p1)" = missing_deps ]'

# A requirement removed: the next call sees it.
printf 'name: p1\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip: []\n' >"$box/plugins/p1/plugin.yaml"
after
check "requirement removed: p1 is ready at once" eval '[ "$(verdict p1)" = ready ]'
check "  and equals an answer with no memo" fresh_equal

check "settled again: answered from the memo" settle_and_hit
# Same size, same name, in place: only the bytes differ.
sed -i 's/enabled: true /enabled: false/; s/^enabled: true$/enabled: false/' "$box/plugins/p2/plugin.yaml"
after
check "disabled in place: p2 is disabled at once" eval '[ "$(verdict p2)" = disabled ]'
check "  and equals an answer with no memo" fresh_equal

check "settled: answered from the memo (3)" settle_and_hit
mkdir "$box/plugins/p6"
printf 'name: p6\nrequires_tools: []\n' >"$box/plugins/p6/plugin.yaml"
after
check "a plugin added is seen at once" eval '[ "$(verdict p6)" = no_runtime_needed ]'
check "  and equals an answer with no memo" fresh_equal

check "settled: answered from the memo (3b)" settle_and_hit
rm -rf "$box/plugins/p5"
after
check "a plugin removed is gone at once" eval '[ "$(verdict p5)" = absent ]'
check "  and equals an answer with no memo" fresh_equal

check "settled: answered from the memo (4)" settle_and_hit
printf 'name: empty\nrequires_tools: []\n' >"$box/plugins/empty/plugin.yaml"
after
check "a manifest created in a folder that had none is seen" eval '[ "$(verdict empty)" = no_runtime_needed ]'
check "  and equals an answer with no memo" fresh_equal

check "settled: answered from the memo (5)" settle_and_hit
chmod g+w "$box/plugins/p3"
after
check "a plugin folder writable by its group: p3 is invalid at once" eval '[ "$(verdict p3)" = invalid ]'
check "  and equals an answer with no memo" fresh_equal
chmod g-w "$box/plugins/p3"

check "settled: answered from the memo (6)" settle_and_hit
mv "$box/plugins/p4" "$work/p4-elsewhere"
ln -s "$work/p4-elsewhere" "$box/plugins/p4"
after
check "a folder swapped for a symlink: p4 is invalid at once" eval '[ "$(verdict p4)" = invalid ]'
check "  and equals an answer with no memo" fresh_equal
sleep 2.2
"$pyrt" plugins --json "${common[@]}" </dev/null >/dev/null 2>&1
"$pyrt" plugins --json -v "${common[@]}" </dev/null >"$work/out" 2>"$work/err"
check "a symlinked plugin folder is never remembered" eval '! grep -q "unchanged since" "$work/err"'
rm "$box/plugins/p4"

check "settled: answered from the memo (7)" settle_and_hit
# A flipped byte in the memo: ignored, never a verdict.
printf 'X' | dd of="$memo" bs=1 seek=40 conv=notrunc 2>/dev/null
"$pyrt" plugins --json -v "${common[@]}" </dev/null >"$work/out" 2>"$work/err"
check "a damaged memo is not used" eval '! grep -q "unchanged since" "$work/err"'
check "  and the answer equals one with no memo" fresh_equal

e2e_finish
