#!/usr/bin/env bash
# ctest: e2e_dry_run
# A dry run (issue 29.5): `pyrt install --dry-run`, `baseline --dry-run` and
# `plugins install NAME --dry-run` say (plain, and --json as one object) what
# would be downloaded (URL, pinned size), verified (digest), installed (each
# requirement, the wheel and source it comes from, what is there now),
# re-applied (the plugins' requirements) and removed (the installs the
# switch prunes) — and change nothing: a listing with stat of the whole box
# is the same before and after, the loopback mirror sees no request, and
# install --dry-run works with no network at all (a new network namespace).
# `pyrt status` names the rollback target (plain and --json).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup dry_run fixtures
e2e_mirror

# snap NAME: every file of the box and pyrt's home with its type, mode,
# owner, size, mtime, ctime and link target (atime aside: reading is not
# changing).
snap() {
  find "$box" "$HOME" -printf '%p %y %m %U %G %s %T@ %C@ %l\n' | sort >"$work/$1"
}
same() { cmp -s "$work/$1" "$work/$2" || { diff "$work/$1" "$work/$2" | head -5; false; }; }

wh=$fx/wheelhouse
box=$work/box
mkdir -p "$box"
o=(--box-root "$box" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem")
sha=$(sed -n 's/^ *sha256: *//p' "$fx/pins.yaml" | head -1)

# --- a box that does not exist yet -------------------------------------------
nbox=$work/new
run install --dry-run --box-root "$nbox" --pins "$fx/pins.yaml" --mirror "$mirror" \
  --wheelhouse "$wh" --json
check "install --dry-run on no box: rc 0, and no box made (rc $rc)" eval 'rc_is 0 && [ ! -e "$nbox" ]'
check "... it names the download (URL under the mirror, sha256) and the wheels" json_doc '
assert r["dry_run"] is True and r["command"] == "install" and r["changes"] is True, r
d = r["download"]
assert len(d) == 1 and d[0]["url"].startswith(sys.argv[3] + "/") and d[0]["sha256"] == sys.argv[4], d
v = r["verify"]
assert v[0]["what"] == "runtime archive" and v[0]["sha256"] == sys.argv[4], v
assert r["runtime"]["action"] == "install" and r["runtime"]["version"] == "3.11.2", r["runtime"]
names = {i["name"]: i for i in r["install"]}
assert names["python-docx"]["action"] == "install" and names["python-docx"]["wheel"].startswith("python_docx-"), names
assert r["source"]["kind"] == "wheelhouse" and r["source"]["wheelhouse"] == sys.argv[5], r["source"]
assert r["remove"] == [] and r["reapply"] == [], r' "$mirror" "$sha" "$wh"

# The built-in pins give no size (issue 29.8): said as such, not invented.
run install --dry-run --box-root "$nbox" --json
check "built-in pins: the download's size is null (not pinned), not a guess" json_doc '
d = r["download"]
assert len(d) == 1 and d[0]["size"] is None and d[0]["url"].startswith("https://"), d'
run install --dry-run --box-root "$nbox"
check "... and the text says 'size not pinned'" has "^  download:  https://.* (size not pinned)$" out

# --- a box with an install, a plugin and a rollback target --------------------
run install "${o[@]}" --from-file "$fx/runtime.tar.gz" --wheelhouse "$wh" --yes
check "setup: install A (rc $rc)" rc_is 0
first=$(readlink -f "$box/runtime/python/current/..")
mkdir -m 0755 "$box/plugins" "$box/plugins/pdf"
printf 'name: pdf\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - reportlab\n' \
  >"$box/plugins/pdf/plugin.yaml"
snap before
run plugins install pdf --dry-run "${o[@]}" --json
check "plugins install pdf --dry-run (rc $rc)" rc_is 0
check "... would install reportlab from the box's wheelhouse" json_doc '
i = r["install"]
assert i[0]["name"] == "reportlab" and i[0]["action"] == "install", i
assert i[0]["wheel"].startswith("reportlab-"), i
# and what reportlab requires, from its wheel'"'"'s Requires-Dist
deps = {d["name"]: d for d in i[1:]}
assert set(deps) == {"pillow"} and deps["pillow"]["for"] == "dependency", i
assert deps["pillow"]["action"] == "install" and deps["pillow"]["wheel"].startswith("pillow-"), i
assert r["source"]["from"] == "the box'"'"'s declared source", r["source"]'
snap after
check "... and changed nothing in the box or HOME" same before after
run plugins install pdf "${o[@]}"
check "setup: plugins install pdf (rc $rc)" rc_is 0
run install "${o[@]}" --from-file "$fx/runtime.tar.gz" --yes --force
check "setup: install B over A, A kept for rollback (rc $rc)" rc_is 0
second=$(readlink -f "$box/runtime/python/current/..")

# --- status names the rollback target -----------------------------------------
run status "${o[@]}" --json
check "status --json names the rollback target (A)" json_doc '
assert r["rollback"] == {"path": sys.argv[3], "version": "3.11.2", "build": "fixture"}, r["rollback"]' "$first"
run status "${o[@]}"
check "status names it too" has "rollback to: *$first (3.11.2, build fixture)" out

# --- install --dry-run --force: everything it would do, nothing done ------------
: >"$work/requests.log"
snap before
run install --dry-run --force "${o[@]}" --mirror "$mirror" --json
check "install --dry-run --force (rc $rc)" rc_is 0
check "... download, verify, install, re-apply and remove" json_doc '
assert r["runtime"]["action"] == "reinstall", r["runtime"]
assert len(r["download"]) == 1 and r["download"][0]["url"].startswith(sys.argv[3]), r["download"]
names = {i["name"]: i for i in r["install"]}
assert set(names) == {"python-docx", "openpyxl", "lxml", "et-xmlfile"}, names
assert all(i["action"] == "install" and i["wheel"] for i in names.values()), names
assert names["lxml"]["for"] == names["et-xmlfile"]["for"] == "dependency", names
assert r["reapply"] == [{"plugin": "pdf", "requirements": ["reportlab"]}], r["reapply"]
assert [x["path"] for x in r["remove"]] == [sys.argv[4]], r["remove"]
assert r["rollback_target_after"]["path"] == sys.argv[5], r["rollback_target_after"]' \
  "$mirror" "$first" "$second"
run install --dry-run --force "${o[@]}" --mirror "$mirror"
check "plain: one line each for download, a dependency, re-apply, remove and the rollback target" eval '
  has "^  download:  $mirror/.*runtime.tar.gz" out && has "^  re-apply:  plugin pdf: reportlab" out &&
  has "^  install:   lxml 4.9.2 from lxml-4.9.2-.*whl (a dependency)" out &&
  has "^  remove:    $first " out && has "^  rollback:  $second " out'
snap after
check "... and the box and HOME are as they were (a stat of every file)" same before after
check "... and the mirror saw no request" eval '[ ! -s "$work/requests.log" ]'
if unshare -n true 2>/dev/null; then
  unshare -n "$pyrt" install --dry-run --force "${o[@]}" --mirror "$mirror" </dev/null >"$work/out" 2>"$work/err"
  rc=$?
  check "install --dry-run works with no network at all (unshare -n; rc $rc)" eval 'rc_is 0 && has "download:" out'
else
  bad "unshare -n is not available to prove no network is needed"
fi
check "status still active: B, with A as the rollback target" \
  eval '[ "$(readlink -f "$box/runtime/python/current/..")" = "$second" ] && [ -d "$first" ]'

# --- baseline --dry-run after a package went away --------------------------------
"$box/runtime/python/current/bin/python3" -I -m pip uninstall -y -q openpyxl >/dev/null 2>&1
snap before
run baseline --dry-run "${o[@]}" --json
check "baseline --dry-run (rc $rc)" rc_is 0
check "... keeps python-docx, installs openpyxl from its wheel" json_doc '
names = {i["name"]: i for i in r["install"]}
assert names["python-docx"]["action"] == "keep" and names["python-docx"]["installed"], names
assert names["openpyxl"]["action"] == "install" and names["openpyxl"]["installed"] is None, names
assert names["openpyxl"]["wheel"].startswith("openpyxl-"), names
assert r["download"] == [] and r["remove"] == [] and r["changes"] is True, r'
snap after
check "... and changed nothing" same before after

# --- refusals are the command's own --------------------------------------------
run plugins install nosuch --dry-run "${o[@]}"
check "plugins install nosuch --dry-run: a usage error naming the known ones (rc $rc)" \
  eval 'rc_is 2 && has "known: pdf" err'
run baseline --dry-run --box-root "$nbox" --pins "$fx/pins.yaml"
check "baseline --dry-run with no runtime: not ready, and no box made (rc $rc)" \
  eval '! rc_is 0 && [ ! -e "$nbox" ]'

e2e_finish
