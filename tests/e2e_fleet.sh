#!/usr/bin/env bash
# ctest: e2e_fleet   (label: fleet)
# A real fleet on this machine: 6 hosts, each its own loopback address
# 127.0.0.1X with its own sshd; ansible-core connects over real SSH (a key
# and a known_hosts this test makes, StrictHostKeyChecking=yes) and runs
# ansible/playbook.yml with the pyrt role against a `pyrt mirror` served
# over HTTPS with the test CA.  Each host has its own box root and pyrt
# path (host vars: the hosts share one filesystem).
#   run 1: every host ready, the pyrt_status fact published
#   run 2: changed=0 on every host
#   run 3: host2's interpreter deleted -> host2 repaired, the others unchanged
#   run 4: host6 fresh and pointed at a tampered mirror -> host6 fails with
#          pyrt's verification message and exit 5; host5, missing a wheel,
#          on the same mirror -> its wheel sync fails against the pins'
#          wheel lock, nothing of the wheel kept; the others succeed
#   run 5: --check on a fresh host6 reports a change and installs nothing,
#          with pyrt_binary and with pyrt_deb (apt is not asked about a
#          package it was not given)
#   run 6: the pins move to another build: --check reports the change on
#          each host and changes nothing; the real run installs it; a
#          second --check is changed=0
#   run 7: pyrt_state=absent: --check reports it and removes nothing; the
#          real run uninstalls the runtime and removes what the role put
#          on the host; a second run is changed=0
# Every host uses pins with a wheel lock (`pyrt lock`) and gets the
# mirror's wheels copied by the role (pyrt_mirror_wheels).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup fleet fixtures
. "$src/tests/lib/fleet.sh"
for tool in ansible-playbook /usr/sbin/sshd ssh-keygen; do
  command -v "$tool" >/dev/null || { echo "FAIL - $tool missing (scripts/deps.sh)"; exit 1; }
done
trap 'fleet_down; e2e_cleanup' EXIT
e2e_mirror
fleet_up 6 || { bad "the fleet's sshds start"; e2e_finish; exit 1; }
fleet_mirror_up || { bad "the fleet's mirror"; e2e_finish; exit 1; }
inv=$fleet/inventory.ini
fleet_inventory "$inv"

all_hosts() { local h; for h in "${fleet_hosts[@]}"; do "$@" "$h" || return 1; done; }
ready_over_ssh() { fleet_ssh "$1" "$fleet/$1/bin/pyrt" status --box-root "$fleet/$1/box" --pins "$fx/pins.yaml" -q >/dev/null; }
fact_ready() { [ "$(task_result "$1" "Show each host's runtime state" msg | cut -d: -f1)" = ready ]; }

SECONDS=0
out=$fleet/run1.json
fleet_play "$out" -i "$inv"
check "run 1 exits 0 ($SECONDS s)" rc_is 0
check "run 1: no host failed" all_hosts no_failures
check "run 1: the runtime was provisioned on every host" all_hosts provisioned_changed True
check "run 1: every host is ready (pyrt status over SSH)" all_hosts ready_over_ssh
check "run 1: pyrt_status is a host fact saying ready" all_hosts fact_ready
check "run 1: each host has its own box" [ "$(ls -d "$fleet"/host*/box/runtime/python/current | wc -l)" -eq 6 ]
check "run 1: the archives came from the served mirror" \
  [ "$(grep -c 'GET /good/fixture/runtime.tar.gz' "$fleet/www.log")" -eq 6 ]
synced() { cmp -s "$fleet/$1/wheels/python_docx-0.8.11-py3-none-any.whl" "$fx/wheelhouse/python_docx-0.8.11-py3-none-any.whl"; }
check "run 1: the mirror's wheels were copied to every host" all_hosts synced
check "run 1: the baseline from the synced wheels imports on every host" all_hosts sh -c '
  [ "$("$0/$1/box/runtime/python/current/bin/python3" -I -c "import docx; print(1)")" = 1 ]' "$fleet"
completions_written() {
  local d=$fleet/$1/share
  "$pyrt" completions bash | cmp -s - "$d/bash-completion/completions/pyrt" &&
    "$pyrt" completions zsh | cmp -s - "$d/zsh/site-functions/_pyrt" &&
    "$pyrt" completions fish | cmp -s - "$d/fish/vendor_completions.d/pyrt.fish" &&
    bash -c '. "$0" && complete -p pyrt' "$d/bash-completion/completions/pyrt" >/dev/null
}
check "run 1: pyrt_binary's bash, zsh and fish completions are on every host (pyrt completions SHELL)" \
  all_hosts completions_written
check "run 1: only the wheels the lock names were copied (no pillow: the mirror does not serve it)" \
  [ ! -e "$fleet/host1/wheels/pillow-9.4.0-cp311-cp311-linux_x86_64.whl" ]

SECONDS=0
out=$fleet/run2.json
fleet_play "$out" -i "$inv"
check "run 2 exits 0 ($SECONDS s)" rc_is 0
check "run 2: changed=0 on every host" all_hosts changed_is 0
check "run 2: no host failed" all_hosts no_failures

# host2's interpreter deleted: the link and the file it names.
py=$fleet/host2/box/runtime/python/current/bin/python3
real=$(readlink -f "$py")
rm -f "$py" "$real"
not_ready() { ! ready_over_ssh "$1"; }
check "host2 is broken before run 3" not_ready host2
SECONDS=0
out=$fleet/run3.json
fleet_play "$out" -i "$inv"
check "run 3 exits 0 ($SECONDS s)" rc_is 0
check "run 3: host2 was repaired (changed)" provisioned_changed True host2
check "run 3: host2 is ready again" ready_over_ssh host2
for h in host1 host3 host4 host5 host6; do
  check "run 3: $h unchanged" changed_is 0 "$h"
done

# host6 fresh, pointed at the tampered mirror; host5 too, missing the wheel
# the tampered mirror serves.
rm -rf "$fleet/host6/box"
rm -f "$fleet/host5/wheels/python_docx-0.8.11-py3-none-any.whl"
fleet_inventory "$fleet/inventory-bad.ini" "host6=$bad_mirror" "host5=$bad_mirror"
SECONDS=0
out=$fleet/run4.json
fleet_play "$out" -i "$fleet/inventory-bad.ini"
check "run 4 exits 2 (a host failed) ($SECONDS s)" rc_is 2
check "run 4: host6 failed" [ "$(stat_of host6 failures)" = 1 ]
# (The mirror URL is a no_log option now: Ansible masks it in the message
# as ********; either form names the file.)
check "run 4: with pyrt's verification message" sh -c '
  task_msg=$1; case $task_msg in
    *"SHA-256 mismatch for https://127.0.0.1:"*/bad/fixture/runtime.tar.gz*) exit 0;;
    *"SHA-256 mismatch for ********/fixture/runtime.tar.gz"*) exit 0;;
  esac; echo "# message: $task_msg"; exit 1' _ \
  "$(task_result host6 'Provision the managed runtime' msg)"
check "run 4: and pyrt's exit code 5" [ "$(task_result host6 'Provision the managed runtime' rc)" = 5 ]
check "run 4: host6 activated nothing" [ ! -e "$fleet/host6/box/runtime/python/current" ]
sync_msg=$(task_result host5 "Sync the mirror's wheels to the host" msg)
check "run 4: host5's wheel sync failed against the lock, naming the file and the locked digest" sh -c '
  case $1 in *"SHA-256 mismatch for "*"/wheels/python_docx-0.8.11-py3-none-any.whl: the pins'"'"' wheel lock says $2"*) exit 0;; esac
  echo "# message: $1"; exit 1' _ "$sync_msg" "$(sha256sum "$fx/wheelhouse/python_docx-0.8.11-py3-none-any.whl" | cut -d' ' -f1)"
check "run 4: nothing of the tampered wheel was kept on host5" \
  [ -z "$(find "$fleet/host5/wheels" -name '*python_docx*')" ]
check "run 4: host5's runtime was not touched (still ready)" ready_over_ssh host5
for h in host1 host2 host3 host4; do
  check "run 4: $h succeeded, unchanged" sh -c '[ "$1" = 0 ] && [ "$2" = 0 ]' _ \
    "$(stat_of "$h" failures)" "$(stat_of "$h" changed)"
done

# --check on a fresh host: a change reported, nothing installed.
rm -rf "$fleet/host6/box" "$fleet/host6/bin/pyrt"
SECONDS=0
out=$fleet/run5.json
fleet_play "$out" -i "$inv" --check --limit host6
check "run 5 (--check) exits 0 ($SECONDS s)" rc_is 0
check "run 5: --check reports host6 would change" provisioned_changed True host6
check "run 5: --check installed no runtime" [ ! -e "$fleet/host6/box" ]
check "run 5: --check copied no binary" [ ! -e "$fleet/host6/bin/pyrt" ]

# The same with the package: a .deb the fresh host has never seen.
mkdir -p "$fleet/deb/DEBIAN" "$fleet/host6/cache"
printf 'Package: pyrt\nVersion: 0.1.0\nArchitecture: all\nMaintainer: e2e <e2e@example.invalid>\nDescription: fleet test package\n' \
  >"$fleet/deb/DEBIAN/control"
dpkg-deb -b "$fleet/deb" "$fleet/pyrt_0.1.0_amd64.deb" >/dev/null
SECONDS=0
out=$fleet/run5deb.json
fleet_play "$out" -i "$inv" --check --limit host6 -e pyrt_binary= \
  -e "pyrt_deb=$fleet/pyrt_0.1.0_amd64.deb" -e "pyrt_deb_cache_dir=$fleet/host6/cache"
check "run 5 (--check, pyrt_deb) exits 0 ($SECONDS s)" rc_is 0
check "run 5: --check with pyrt_deb reports the package copy" \
  [ "$(task_result host6 'Copy the pyrt package to the host' changed)" = True ]
check "run 5: and does not ask apt about a file it did not copy" \
  [ "$(task_result host6 'Install the pyrt package' skipped)" = True ]
check "run 5: --check with pyrt_deb reports host6 would change" provisioned_changed True host6
check "run 5: --check with pyrt_deb copied nothing" [ -z "$(ls -A "$fleet/host6/cache")" ]

# The pins move to another build (the mirror serves it): --check on two
# hosts must say they would change, and change nothing.
pins2=$fleet/pins-build2.yaml
sed 's/^  build: .*/  build: "fixture2"/' "$fleet_pins" >"$pins2"
cp -r "$fleet/www/good/fixture" "$fleet/www/good/fixture2"
build_of() {
  fleet_ssh "$1" "$fleet/$1/bin/pyrt" status --json --box-root "$fleet/$1/box" --pins "$fleet_pins" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["build"])'
}
build_is() { [ "$(build_of "$2")" = "$1" ]; }
pins_kept() { cmp -s "$fleet/$1/etc/pins.yaml" "$fleet_pins"; }
SECONDS=0
out=$fleet/run6check.json
fleet_play "$out" -i "$inv" --check --limit host1,host2 -e "pyrt_pins=$pins2"
check "run 6 (--check, pins moved) exits 0 ($SECONDS s)" rc_is 0
for h in host1 host2; do
  check "run 6: --check says $h's runtime would change" provisioned_changed True "$h"
  check "run 6: --check left $h on the old build" build_is fixture "$h"
  check "run 6: --check left $h's pins as they were" pins_kept "$h"
done
SECONDS=0
out=$fleet/run6.json
fleet_play "$out" -i "$inv" --limit host1,host2 -e "pyrt_pins=$pins2"
check "run 6 (pins moved) exits 0 ($SECONDS s)" rc_is 0
for h in host1 host2; do
  check "run 6: $h was changed" provisioned_changed True "$h"
  check "run 6: $h runs the new build" build_is fixture2 "$h"
done
SECONDS=0
out=$fleet/run6again.json
fleet_play "$out" -i "$inv" --check --limit host1,host2 -e "pyrt_pins=$pins2"
check "run 6 (--check again) exits 0 ($SECONDS s)" rc_is 0
check "run 6: --check after the update is changed=0" changed_is 0 host1
check "run 6: (host2 too)" changed_is 0 host2

# state absent on host1: --check, then for real, then again.
gone_from_host1() {
  [ ! -e "$fleet/host1/box/runtime/python/current" ] &&
    [ -z "$(ls -A "$fleet/host1/box/runtime/python/installs" 2>/dev/null)" ] &&
    [ ! -e "$fleet/host1/bin/pyrt" ] && [ ! -e "$fleet/host1/etc/pins.yaml" ] &&
    [ ! -e "$fleet/host1/wheels" ] &&
    [ ! -e "$fleet/host1/share/bash-completion/completions/pyrt" ] &&
    [ ! -e "$fleet/host1/share/zsh/site-functions/_pyrt" ]
}
uninstall_changed() { [ "$(task_result host1 'Uninstall the managed runtime' changed)" = "$1" ]; }
SECONDS=0
out=$fleet/run7check.json
fleet_play "$out" -i "$inv" --check --limit host1 -e pyrt_state=absent
check "run 7 (--check, absent) exits 0 ($SECONDS s)" rc_is 0
check "run 7: --check says the runtime would be removed" uninstall_changed True
check "run 7: --check removed nothing" ready_over_ssh host1
SECONDS=0
out=$fleet/run7.json
fleet_play "$out" -i "$inv" --limit host1 -e pyrt_state=absent
check "run 7 (absent) exits 0 ($SECONDS s)" rc_is 0
check "run 7: the runtime was uninstalled (changed)" uninstall_changed True
check "run 7: runtime, binary, completions, pins and wheels are gone from host1" gone_from_host1
check "run 7: host2 untouched" ready_over_ssh host2
SECONDS=0
out=$fleet/run7again.json
fleet_play "$out" -i "$inv" --limit host1 -e pyrt_state=absent
check "run 7 (absent again) exits 0 ($SECONDS s)" rc_is 0
check "run 7: a second absent run is changed=0" changed_is 0 host1

e2e_finish
