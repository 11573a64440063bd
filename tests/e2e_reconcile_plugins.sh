#!/usr/bin/env bash
# ctest: e2e_reconcile_plugins
# End to end, issue 25: the reconcile installs exactly what the whole
# declared state lacks, plugins included, not only a re-apply a stopped run
# left pending.  Box with the baseline and imgplug (pillow, not in the
# baseline) made ready with `plugins install`: pillow uninstalled,
# `pyrt baseline` — and `pyrt install --yes` on the already current runtime
# — installs it again, says so, and imgplug is ready (a file of it deleted:
# the baseline's repair of what is not whole).  And a plugin whose requirement is installed whole but lacks what
# that requires (docplug: python-docx without lxml, which makes
# `import docx` fail) is not ready, in plugins and doctor alike, and says
# which dependency is gone.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup reconcile-plugins fixtures
. "$src/tests/lib/faults.sh"

fault_box "$work/box"
py=$current/bin/python3
wh=(--wheelhouse "$fx/wheelhouse")
plugin() {
  mkdir -p "$box/plugins/$1"
  printf 'name: %s\nenabled: true\nrequires_tools: [execute_code]\nrequires_pip:\n  - %s\n' \
    "$1" "$2" >"$box/plugins/$1/plugin.yaml"
}
plugin imgplug pillow
plugin docplug python-docx
verdict() {
  "$pyrt" plugins "${opts[@]}" --json </dev/null 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
print([p["verdict"] for p in d["plugins"] if p["name"] == sys.argv[1]][0])' "$1"
}

run install "${opts[@]}" --from-file "$archive" "${wh[@]}" --yes
check "setup: install with the baseline (rc $rc)" rc_is 0
run plugins install imgplug "${opts[@]}" "${wh[@]}"
check "setup: plugins install imgplug (rc $rc)" rc_is 0
check "setup: imgplug ready" [ "$(verdict imgplug)" = ready ]

# --- a declared plugin's requirement uninstalled: pyrt baseline ------------
"$py" -I -m pip uninstall -y -q pillow >/dev/null 2>&1
check "pillow uninstalled: imgplug is missing_deps" [ "$(verdict imgplug)" = missing_deps ]
run baseline "${opts[@]}"
check "pyrt baseline (the box remembers the wheelhouse): exit 0 (rc $rc)" rc_is 0
check "pyrt baseline says it installs imgplug's pillow again" \
  has "plugin imgplug: installing again what it declares and the runtime lacks: pillow" err
check "pillow imports again" "$py" -I -c "import PIL.Image"
check "imgplug is ready" [ "$(verdict imgplug)" = ready ]

# --- uninstalled again: pyrt install --yes (already current) --------------
"$py" -I -m pip uninstall -y -q pillow >/dev/null 2>&1
run install --yes "${opts[@]}" --from-file "$archive"
check "pyrt install --yes (already current): exit 0 (rc $rc)" rc_is 0
check "install says it installs imgplug's pillow again" \
  eval 'cat "$work/out" "$work/err" | grep -q "plugin imgplug: installing again what it declares"'
check "imgplug is ready" [ "$(verdict imgplug)" = ready ]

# --- a file of it deleted: pyrt baseline repairs it ------------------------
rm -f "$("$py" -I -c 'import PIL, os; print(os.path.dirname(PIL.__file__))')/Image.py"
check "PIL/Image.py deleted: imgplug is missing_deps" [ "$(verdict imgplug)" = missing_deps ]
run baseline "${opts[@]}"
check "pyrt baseline: exit 0 (rc $rc)" rc_is 0
check "PIL.Image imports again" "$py" -I -c "import PIL.Image"
check "imgplug is ready" [ "$(verdict imgplug)" = ready ]

# --- a requirement whole, what it requires gone ----------------------------
"$py" -I -m pip uninstall -y -q lxml >/dev/null 2>&1
check "lxml uninstalled: import docx fails" eval '! "$py" -I -c "import docx" 2>/dev/null'
check "docplug (python-docx installed whole) is missing_deps" [ "$(verdict docplug)" = missing_deps ]
run plugins "${opts[@]}"
check "plugins names the dependency that is gone" \
  has "python-docx 0.8.11 requires lxml, which is not installed" out
run doctor "${opts[@]}"
check "doctor's docplug row says the same" \
  eval 'grep -A1 "Plugin docplug" "$work/out" | grep -q "requires lxml, which is not installed"'
run baseline "${opts[@]}"
check "pyrt baseline restores lxml (rc $rc)" rc_is 0
check "docplug ready, docx imports" \
  eval '[ "$(verdict docplug)" = ready ] && "$py" -I -c "import docx"'

e2e_finish
