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
#          pyrt's verification message and exit 5, the others succeed
#   run 5: --check on a fresh host6 reports a change and installs nothing
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

# stats HOST FIELD: the JSON callback's per-host tally of the last run.
stat_of() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stats"][sys.argv[2]][sys.argv[3]])' "$out" "$1" "$2"
}
# task_result HOST TASK KEY: one field of one host's result of a task.
task_result() {
  python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
for play in d["plays"]:
    for t in play["tasks"]:
        name=t["task"]["name"]
        if (name==sys.argv[3] or name.endswith(" : "+sys.argv[3])) and sys.argv[2] in t["hosts"]:
            print(t["hosts"][sys.argv[2]].get(sys.argv[4]))
' "$out" "$1" "$2" "$3"
}
all_hosts() { local h; for h in "${fleet_hosts[@]}"; do "$@" "$h" || return 1; done; }
ready_over_ssh() { fleet_ssh "$1" "$fleet/$1/bin/pyrt" status --box-root "$fleet/$1/box" --pins "$fx/pins.yaml" -q >/dev/null; }
changed_is() { [ "$(stat_of "$2" changed)" = "$1" ]; }
no_failures() { [ "$(stat_of "$1" failures)" = 0 ] && [ "$(stat_of "$1" unreachable)" = 0 ]; }
provisioned_changed() { [ "$(task_result "$2" 'Provision the managed runtime' changed)" = "$1" ]; }
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

# host6 fresh, pointed at the tampered mirror.
rm -rf "$fleet/host6/box"
fleet_inventory "$fleet/inventory-bad.ini" "host6=$bad_mirror"
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
for h in host1 host2 host3 host4 host5; do
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

e2e_finish
