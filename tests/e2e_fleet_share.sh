#!/usr/bin/env bash
# ctest: e2e_fleet_share   (label: fleet)
# The role's two models of one box for every user (issue 21.2) and a real
# pyrt_deb install (21.6), over real SSH on two loopback hosts
# (tests/lib/fleet.sh):
#   host1, model (a): pyrt_user is a user this test makes (removed at the
#          end); the role provisions as that user (become_user, become_method
#          su) a box in its home, owned by it; check mode after a pins change
#          runs as it too; state absent uninstalls as it.
#   host2, model (b) with pyrt_deb: the package scripts/deb.sh builds is
#          copied and installed with apt; its /usr/bin/pyrt provisions, as
#          root, a shared box; uid 65534 reads status (ready) and runs the
#          interpreter, cannot read logs, downloads or pip's home, and its
#          `pyrt install` is refused with exit 16 and the sudo command.
#          host2 is isolated ($fleet_isolated): /usr, /etc and /var are
#          overlays in its own mount namespace, so the package lands there
#          and this machine is as it was (checked at the end).
#   run 2 is changed=0 on both; the package removed from host2 by hand is
#   installed again from the copied .deb; state absent removes the runtime,
#   the package and the copied .deb.
# Needs root (users, mounts).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup fleet_share fixtures
. "$src/tests/lib/fleet.sh"
[ "$(id -u)" -eq 0 ] || { echo "FAIL - e2e_fleet_share needs root (a user, mounts)"; exit 1; }
for tool in ansible-playbook /usr/sbin/sshd ssh-keygen unshare setpriv useradd userdel dpkg-deb; do
  command -v "$tool" >/dev/null || { echo "FAIL - $tool missing (scripts/deps.sh)"; exit 1; }
done
# What the machine has of pyrt before: the same after.
machine_pyrt() { dpkg-query -W -f '${Status} ${Version}' pyrt 2>/dev/null; ls -d /usr/bin/pyrt /var/cache/pyrt_*.deb 2>/dev/null; }
machine_before=$(machine_pyrt)

user=pyrtfleet$$
uhome=$work/$user
made_user=
drop_user() { [ -n "$made_user" ] && userdel "$user" 2>/dev/null; made_user=; }
trap 'fleet_down; drop_user; e2e_cleanup' EXIT
# The user's home and the box's folders are below $work: users pass through.
chmod 0755 "$work"
getent passwd "$user" >/dev/null && { echo "FAIL - user $user exists already"; exit 1; }
useradd -M -d "$uhome" -s /bin/sh -U "$user" || { echo "FAIL - useradd $user"; exit 1; }
made_user=1
mkdir -m 0700 "$uhome"
chown "$user:$user" "$uhome"

deb=$(bash "$src/scripts/deb.sh" "$bin/deb" 2>"$work/deb.err" | tail -1)
check "scripts/deb.sh builds the package" [ -f "$deb" ]
[ -f "$deb" ] || { sed 's/^/# /' "$work/deb.err"; e2e_finish; exit 1; }
deb_version=$(dpkg-deb -f "$deb" Version)

e2e_mirror
fleet_isolated=host2
fleet_up 2 || { bad "the fleet's sshds start"; e2e_finish; exit 1; }
fleet_mirror_up || { bad "the fleet's mirror"; e2e_finish; exit 1; }
inv=$fleet/inventory.ini
fleet_inventory "$inv"
box1=$uhome/box
box2=$fleet/host2/opt/agent
mkdir -m 0755 "$fleet/host2/opt"
# host_vars/ beside the inventory outranks the inventory's own host vars.
mkdir "$fleet/host_vars"
cat >"$fleet/host_vars/host1.yml" <<EOF
pyrt_user: $user
ansible_become_method: su
pyrt_box_root: $box1
EOF
cat >"$fleet/host_vars/host2.yml" <<EOF
pyrt_binary: ""
pyrt_deb: $deb
pyrt_bin_path: /usr/bin/pyrt
pyrt_box_root: $box2
EOF

pins1=$fleet/host1/etc/pins.yaml pins2=$fleet/host2/etc/pins.yaml
as_user() { fleet_ssh host1 su -s /bin/sh "$user" -c "'$*'"; }
other=65534
ohome=$fleet/host2/other-home
mkdir -m 0700 "$ohome"
chown "$other:$other" "$ohome"
# uid 65534 on host2 (in its namespace, where the package is): its own
# HOME and TMPDIR; stdout in $work/out, stderr in $work/err, $rc.
as_other() {
  fleet_ssh host2 setpriv --reuid=$other --regid=$other --clear-groups \
    env HOME="$ohome" TMPDIR="$ohome" "$@" </dev/null >"$work/out" 2>"$work/err"
  rc=$?
}
state_of() { python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])'; }
on_host2() { fleet_ssh host2 "$@"; }
pkg_on_host2() { on_host2 dpkg-query -W -f "'\${Status} \${Version}'" pyrt 2>/dev/null; }

SECONDS=0
out=$fleet/run1.json
fleet_play "$out" -i "$inv"
check "run 1 exits 0 ($SECONDS s)" rc_is 0
[ "$rc" -eq 0 ] || { sed 's/^/# /' "$out.err"; grep -o '"msg": "[^"]*"' "$out" | head -5 | sed 's/^/# /'; }
check "run 1: no host failed" eval 'no_failures host1 && no_failures host2'

# (a) host1: the box is the user's.
check "(a) run 1: the runtime was provisioned on host1" provisioned_changed True host1
check "(a) the box is owned by $user, every file of it" \
  eval '[ "$(stat -c %U "$box1/runtime/python" 2>/dev/null)" = "$user" ] && [ -z "$(find "$box1" ! -user "$user")" ]'
check "(a) $user's status is ready" \
  eval '[ "$(as_user "$fleet/host1/bin/pyrt" status --json --box-root "$box1" --pins "$pins1" | state_of)" = ready ]'
check "(a) the pyrt_status fact is $user's answer: ready" \
  eval '[ "$(task_result host1 "Show each host'"'"'s runtime state" msg | cut -d: -f1)" = ready ]'
check "(a) root does not use $user's box (exit 14)" \
  eval 'fleet_ssh host1 "$fleet/host1/bin/pyrt" status --box-root "$box1" --pins "$pins1" >/dev/null 2>&1; [ $? -eq 14 ]'

# pyrt_deb on host2: installed by apt in host2's namespace, not here.
check "(deb) run 1: the package was installed" \
  [ "$(task_result host2 'Install the pyrt package' changed)" = True ]
check "(deb) host2 has pyrt $deb_version from the package" \
  [ "$(pkg_on_host2)" = "install ok installed $deb_version" ]
check "(deb) host2's /usr/bin/pyrt is the package's" \
  eval '[ "$(on_host2 sha256sum /usr/bin/pyrt | cut -d" " -f1)" = "$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/pyrt | sha256sum | cut -d" " -f1)" ]'
check "(deb) this machine did not get the package" [ "$(machine_pyrt)" = "$machine_before" ]

# (b) host2: the package's pyrt provisioned a root-owned shared box.
check "(b) run 1: the runtime was provisioned on host2" provisioned_changed True host2
check "(b) the box is root's, every file of it" \
  eval '[ -d "$box2/runtime/python/current/bin" ] && [ -z "$(find "$box2" ! -user root)" ]'
as_other /usr/bin/pyrt status --json --box-root "$box2" --pins "$pins2"
check "(b) uid $other: status --json exits 0" rc_is 0
check "(b) ... and says ready" eval '[ "$(state_of <"$work/out")" = ready ]'
# (ssh hands the remote shell one line: the program is quoted for it.)
as_other "$box2/runtime/python/current/bin/python3" -I -c "'import docx; print(1)'"
check "(b) uid $other runs the interpreter, which imports the baseline" eval 'rc_is 0 && [ "$(cat "$work/out")" = 1 ]'
rc_is 0 || sed 's/^/# /' "$work/err"
rp=$box2/runtime/python
for private in logs downloads pip-home; do
  as_other ls "$rp/$private"
  check "(b) uid $other cannot list $private (it exists)" eval '[ -d "$rp/$private" ] && ! rc_is 0'
done
log=$(find "$rp/logs" -type f | head -1)
as_other cat "$log"
check "(b) a log file exists and uid $other cannot read it" eval '[ -n "$log" ] && ! rc_is 0'
snap() { find "$box2" -printf '%p %u %m %s %T@\n' | LC_ALL=C sort; }
before=$(snap)
as_other /usr/bin/pyrt install --box-root "$box2" --pins "$pins2" --yes
check "(b) uid $other: pyrt install is refused with exit 16 and the sudo command" \
  eval 'rc_is 16 && has "sudo pyrt install --box-root $box2" err'
check "(b) ... and nothing of the box changed" [ "$before" = "$(snap)" ]

SECONDS=0
out=$fleet/run2.json
fleet_play "$out" -i "$inv"
check "run 2 exits 0 ($SECONDS s)" rc_is 0
check "run 2: changed=0 on host1 (as $user)" changed_is 0 host1
check "run 2: changed=0 on host2 (the package already installed)" changed_is 0 host2

# The package removed by hand, its copied .deb still there: the role puts
# it back (the copy has nothing to do, the install has).
on_host2 dpkg -r pyrt >/dev/null 2>&1
check "(deb) setup: pyrt removed from host2 by hand" eval '! on_host2 test -e /usr/bin/pyrt'
SECONDS=0
out=$fleet/run2deb.json
fleet_play "$out" -i "$inv" --limit host2
check "(deb) run 2b exits 0 ($SECONDS s)" rc_is 0
check "(deb) run 2b: the package was installed again from the copy" \
  eval '[ "$(task_result host2 "Install the pyrt package" changed)" = True ] && [ "$(pkg_on_host2)" = "install ok installed $deb_version" ]'
check "(deb) run 2b: the box is ready, not reprovisioned" \
  eval 'provisioned_changed False host2 && on_host2 /usr/bin/pyrt status -q --box-root "$box2" --pins "$pins2"'

# (a) check mode after the pins move: status is read as the user, against
# a temporary copy of the new pins.
pins_moved=$fleet/pins-build2.yaml
sed 's/^  build: .*/  build: "fixture2"/' "$fleet_pins" >"$pins_moved"
SECONDS=0
out=$fleet/run3check.json
fleet_play "$out" -i "$inv" --check --limit host1 -e "pyrt_pins=$pins_moved"
check "(a) run 3 (--check, pins moved) exits 0 ($SECONDS s)" rc_is 0
[ "$rc" -eq 0 ] || grep -o '"msg": "[^"]*"' "$out" | head -5 | sed 's/^/# /'
check "(a) run 3: --check says host1's runtime would change" provisioned_changed True host1
check "(a) run 3: host1's pins are as they were" cmp -s "$pins1" "$fleet_pins"

SECONDS=0
out=$fleet/run4.json
fleet_play "$out" -i "$inv" -e pyrt_state=absent
check "run 4 (absent) exits 0 ($SECONDS s)" rc_is 0
check "(a) run 4: $user's runtime was uninstalled" \
  eval '[ "$(task_result host1 "Uninstall the managed runtime" changed)" = True ] && [ ! -e "$box1/runtime/python/current" ]'
check "(b) run 4: host2's runtime was uninstalled" [ ! -e "$box2/runtime/python/current" ]
check "(deb) run 4: the package is gone from host2" \
  eval '! on_host2 test -e /usr/bin/pyrt && [ -z "$(pkg_on_host2 | grep " installed ")" ]'
check "(deb) run 4: and the copied .deb" eval '! on_host2 test -e "/var/cache/$(basename "$deb")"'

fleet_down
drop_user
check "the user $user is gone" eval '! getent passwd "$user" >/dev/null'
check "this machine is as it was (pyrt's package, /usr/bin/pyrt, the .deb)" \
  [ "$(machine_pyrt)" = "$machine_before" ]

e2e_finish
