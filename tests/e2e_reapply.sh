#!/usr/bin/env bash
# ctest: e2e_reapply
# End to end, issue 25 item 5: a plugin's packages are not lost for good
# when the re-apply after a switch is interrupted.  Box with the baseline and
# relplug (requires pillow, not in the baseline) made ready with `plugins
# install`; `install --force` is killed (SIGKILL) right after it announces
# the re-apply: relplug is honestly missing_deps, the box declares the
# re-apply pending (runtime/python/declared.json), and the next
# `pyrt install --yes` (already current) finishes it: relplug ready, nothing
# pending.  A second interrupted switch is finished by `pyrt baseline`, and a
# third by `pyrt plugins install` of another plugin.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup reapply fixtures
. "$src/tests/lib/faults.sh"

fault_box "$work/box"
py=$current/bin/python3
wh=(--wheelhouse "$fx/wheelhouse")
mkdir -p "$box/plugins/relplug" "$box/plugins/other"
printf 'name: relplug\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - pillow\n' \
  >"$box/plugins/relplug/plugin.yaml"
printf 'name: other\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - et-xmlfile\n' \
  >"$box/plugins/other/plugin.yaml"
verdict() {
  "$pyrt" plugins "${opts[@]}" --json </dev/null 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print([p["verdict"] for p in d["plugins"] if p["name"] == sys.argv[1]][0])' "$1"
}
pending() {
  python3 -c '
import json, sys
print(" ".join(p["work"] + ":" + p["plugin"] for p in json.load(open(sys.argv[1]))["pending"]))' \
    "$rt/declared.json"
}

run install "${opts[@]}" --from-file "$archive" "${wh[@]}" --yes
check "setup: install with the baseline (rc $rc)" rc_is 0
run plugins install relplug "${opts[@]}" "${wh[@]}"
check "setup: relplug installed (rc $rc)" rc_is 0
check "setup: relplug is ready" [ "$(verdict relplug)" = ready ]
check "the box declares relplug's requirements" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["plugins"] == {"relplug": ["pillow"]}' "$rt/declared.json"

# interrupted: kill -9 right after "re-applying", then FINISHER finishes it.
interrupted() {
  local tag=$1
  sleep 1 # a new install directory name (its time stamp has seconds)
  at plugin-reapply 'kill -KILL $pid' install --yes --force --from-file "$archive" "${wh[@]}"
  check "$tag: install --force killed at the re-apply (rc $rc)" [ "$rc" -eq 137 ]
  check "$tag: the run had announced it" grep -q "plugin relplug: re-applying 1 requirement" "$work/out"
  check "$tag: relplug is honestly missing_deps" [ "$(verdict relplug)" = missing_deps ]
  check "$tag: the re-apply is pending in the box" [ "$(pending)" = "reapply:relplug" ]
  run status "${opts[@]}" --json
  check "$tag: status --json says relplug's re-apply is pending, with the fix" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["baseline"]["pending_reapply"] == ["relplug"], r["baseline"]
assert "plugin relplug" in r["message"] and "pyrt install" in r["message"], r["message"]' "$work/out"
}

interrupted "install"
run install "${opts[@]}" --from-file "$archive" --yes
check "install: the next install --yes succeeds (rc $rc)" rc_is 0
check "install: it finished the re-apply" grep -q "plugin relplug: finishing the re-apply" "$work/err"
check "install: relplug is ready again" [ "$(verdict relplug)" = ready ]
check "install: nothing is pending" [ -z "$(pending)" ]
run status "${opts[@]}" --json
check "install: status --json says nothing is pending" python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["baseline"]["pending_reapply"] == []' "$work/out"

interrupted "baseline"
run baseline "${opts[@]}"
check "baseline: the next baseline succeeds (rc $rc)" rc_is 0
check "baseline: relplug is ready again" [ "$(verdict relplug)" = ready ]
check "baseline: nothing is pending" [ -z "$(pending)" ]

interrupted "plugins install"
run plugins install other "${opts[@]}"
check "plugins install: installing another plugin succeeds (rc $rc)" rc_is 0
check "plugins install: relplug is ready again" [ "$(verdict relplug)" = ready ]
check "plugins install: nothing is pending" [ -z "$(pending)" ]

# SIGTERM at the re-apply: the result names the plugin whose re-apply is
# pending, and does not blame the baseline (which is complete).
sleep 1
at plugin-reapply 'kill -TERM $pid' install --yes --force --from-file "$archive" "${wh[@]}"
check "SIGTERM: install --force stopped at the re-apply (rc $rc, not 0)" [ "$rc" -ne 0 ]
check "SIGTERM: the result names relplug's pending re-apply" \
  grep -q "re-applying the requirements of relplug is pending" "$work/err"
check "SIGTERM: and does not blame the baseline" \
  eval '! grep -q "only the doc-library baseline is incomplete" "$work/err"'
run install "${opts[@]}" --from-file "$archive" --yes
check "SIGTERM: the next install --yes finishes it (rc $rc)" rc_is 0
check "SIGTERM: relplug is ready again" [ "$(verdict relplug)" = ready ]

e2e_finish
