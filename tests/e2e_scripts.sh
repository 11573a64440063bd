#!/usr/bin/env bash
# ctest: e2e_scripts
# The first ten minutes: scripts/deps.sh waits for the dpkg lock (a fresh
# VM's unattended-upgrades holds it for minutes) instead of failing at once,
# and scripts/demo.sh says it is building and ends with the dashboard.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup scripts

# deps.sh against a stand-in apt-get and dpkg-query: every package missing,
# every apt-get call recorded.
fake=$work/fakebin; mkdir -p "$fake"
printf '#!/bin/sh\nexit 1\n' >"$fake/dpkg-query"
printf '#!/bin/sh\necho "$*" >>"%s/apt.log"\n' "$work" >"$fake/apt-get"
printf '#!/bin/sh\nexec "$@"\n' >"$fake/sudo"
chmod +x "$fake"/*
PATH=$fake:$PATH PYRT_DEPS_LOCK_WAIT=7 bash "$src/scripts/deps.sh" >"$work/out" 2>"$work/err"
check "deps.sh runs apt-get update and install" \
  eval '[ "$(grep -c "" "$work/apt.log")" -eq 2 ] && grep -q "^-o DPkg::Lock::Timeout=7 update" "$work/apt.log" && grep -q "^-o DPkg::Lock::Timeout=7 install -y" "$work/apt.log"'
check "deps.sh says it waits for the lock" has "waiting up to 7s" err
PATH=$fake:$PATH bash "$src/scripts/deps.sh" >/dev/null 2>&1
check "the default wait is 900 s" grep -q "DPkg::Lock::Timeout=900 install" "$work/apt.log"

# demo.sh: "building" comes before the build, and its last words open the
# dashboard while the mirror is up (the mirror's trap runs after it).
demo=$src/scripts/demo.sh
line() { grep -n -- "$1" "$demo" | head -1 | cut -d: -f1; }
check "demo.sh says building before it builds" \
  eval '[ "$(line "== building")" -lt "$(line "cmake -S")" ]'
check "demo.sh ends with the dashboard command" \
  eval 'tail -22 "$demo" | grep -q "PYRT_MIRROR_URL=https://127.0.0.1:\$port/pbs CURL_CA_BUNDLE=\$fx/ca.pem \$pyrt"'
check "demo.sh opens it on a terminal" eval 'tail -22 "$demo" | grep -q "\"\$pyrt\" || true"'
# Not on a terminal its mirror stops as it ends: the last lines name no
# URL of it (no $port), but how to start one (issue 29.7).
check "demo.sh off a terminal names no mirror it has stopped, but how to start one" \
  eval 'sed -n "/^else/,/^fi/p" "$demo" | grep "echo" >"$work/demo.tail" &&
        ! grep -q "\$port\|\$dash" "$work/demo.tail" && grep -q "mirror.py --root" "$work/demo.tail"'
check "the README quotes the demo's install with its --wheelhouse, and says where the binary is" \
  eval 'grep -A3 "^    build/pyrt install --yes --box-root ./demo-box" "$src/README.md" | grep -q -- "--wheelhouse build/fixtures/wheelhouse" &&
        grep -q -- "--wheelhouse \"\$fx/wheelhouse\"" "$demo" && grep -q "The binary is \`build/pyrt\`" "$src/README.md"'

# The package's files come from `cmake --install`: the API contract is one
# of them, and the README links every screenshot it shows.
cmake --install "$PYRT_BINARY_DIR" --prefix "$work/inst" >/dev/null 2>&1
check "cmake --install ships docs/api.yaml" cmp "$src/docs/api.yaml" "$work/inst/share/doc/pyrt/api.yaml"
for png in consent-80x23 consent-60x16 dashboard-80x23 dashboard-60x16 doctor-80x23; do
  check "README links screenshots/$png.png" grep -q "(screenshots/$png.png)" "$src/README.md"
done
for png in $(grep -o 'screenshots/[a-z0-9-]*\.png' "$src/README.md" | sort -u); do
  check "README's $png exists" [ -f "$src/$png" ]
done

e2e_finish
