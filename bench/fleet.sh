#!/usr/bin/env bash
# Fleet install of N hosts (default 6) from the local mirror: Ansible's
# parallel run (ansible/playbook.yml, default forks) against a sequential
# loop of `ssh hostI pyrt install --yes ...`, both from fresh boxes, both
# over the same sshds (tests/lib/fleet.sh: loopback addresses, own sshd
# each).  Not a timed test: figures go to bench/README.md with the load.
#
#   PYRT_BINARY_DIR=build PYRT_TEST_TMP=build/test-tmp bench/fleet.sh [N] [ROUNDS]
#
# Prints one line per measurement and a summary; per-host time is pyrt
# install's own wall time on that host (the result event's "t").
set -uo pipefail
n=${1:-6}
rounds=${2:-1}
export PYRT_BINARY_DIR=${PYRT_BINARY_DIR:?name the build directory}
. "$(dirname "$0")/../tests/lib/e2e.sh"
e2e_setup fleetbench fixtures
. "$src/tests/lib/fleet.sh"
trap 'fleet_down; e2e_cleanup' EXIT
e2e_mirror
fleet_up "$n" || exit 1
fleet_mirror_up || exit 1
fleet_inventory "$fleet/inventory.ini"

wipe_boxes() { local h; for h in "${fleet_hosts[@]}"; do rm -rf "$fleet/$h/box"; done; }
now() { date +%s.%N; }

# The binary is put in place once, so both sides time the install only.
fleet_play "$fleet/warm.json" -i "$fleet/inventory.ini" || true

for r in $(seq "$rounds"); do
  wipe_boxes
  echo "load before ansible: $(cut -d' ' -f1-3 /proc/loadavg)"
  t0=$(now)
  fleet_play "$fleet/par.json" -i "$fleet/inventory.ini"
  t1=$(now)
  par=$(echo "$t1 - $t0" | bc)
  python3 - "$fleet/par.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for play in d["plays"]:
    for t in play["tasks"]:
        if t["task"]["name"].endswith("Provision the managed runtime"):
            for h, r in sorted(t["hosts"].items()):
                print("  ansible %s: pyrt install %.2f s, changed=%s" %
                      (h, r["result"]["t"], r["changed"]))
EOF
  echo "ansible parallel (rc $rc): ${par} s"

  wipe_boxes
  echo "load before the loop: $(cut -d' ' -f1-3 /proc/loadavg)"
  t0=$(now)
  for h in "${fleet_hosts[@]}"; do
    s0=$(now)
    fleet_ssh "$h" "$fleet/$h/bin/pyrt" install --yes -q --box-root "$fleet/$h/box" \
      --pins "$fleet_pins" --cacert "$fx/ca.pem" --mirror "$good_mirror" \
      --wheelhouse "$fleet/$h/wheels" >/dev/null || echo "  $h failed"
    echo "  ssh loop $h: $(echo "$(now) - $s0" | bc) s"
  done
  t1=$(now)
  seq_t=$(echo "$t1 - $t0" | bc)
  echo "sequential ssh loop: ${seq_t} s"
  echo "round $r: ansible/sequential = $(echo "scale=2; $par / $seq_t" | bc)  (load now: $(cut -d' ' -f1-3 /proc/loadavg))"
done
