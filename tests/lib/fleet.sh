# A fleet on this machine for tests/e2e_fleet.sh and bench/fleet.sh, sourced
# after tests/lib/e2e.sh's e2e_setup (it uses $work, $src, $fx, $pyrt):
#
#   fleet_up N        N "hosts" host1..hostN, each a loopback address
#                     127.0.0.(10+i) with its own sshd (own config, host key,
#                     port, PidFile under $fleet), its own box root and pyrt
#                     path under $fleet/hostI; a client key, a known_hosts
#                     naming each host key (StrictHostKeyChecking=yes) and
#                     an ansible.cfg
#   fleet_inventory FILE [HOST=MIRROR]...
#                     the inventory, every host on $good_mirror unless named
#   fleet_mirror_up   the fixture pins with a wheel lock (`pyrt lock`) in
#                     $fleet_pins; `pyrt mirror` of the fixtures with them
#                     into $fleet/www/good, a tampered copy (archive and a
#                     wheel) in $fleet/www/bad, served over HTTPS by
#                     tests/fixtures/mirror.py: $good_mirror, $bad_mirror.
#                     The hosts sync the mirror's wheels into
#                     $fleet/hostI/wheels (pyrt_mirror_wheels)
#   fleet_down        every sshd and the mirror stopped by pid (trap)
#   fleet_play OUT ARGS...  ansible-playbook, its JSON in OUT ($out), $rc;
#                     then stat_of, task_result, changed_is, no_failures,
#                     provisioned_changed read that run
#
# A host named in $fleet_isolated (set before fleet_up, e.g. "host2") has a
# mount namespace of its own: its sshd, and so every session and module on
# it, sees /usr, /etc and /var as overlays whose writes land in
# $fleet/hostI/overlay.  A package the role installs there with apt is that
# host's alone, and this machine is as it was once the sshd stops.
#
# Loopback only: 127.0.0.0/8 is on lo already, nothing is configured.
# shellcheck shell=bash disable=SC2034
fleet=
fleet_pins=
fleet_cp=
fleet_pids=()
fleet_isolated=

fleet_down() {
  local pid sock
  # Ansible's ControlPersist masters: each asked for its pid, then killed.
  for sock in "$fleet_cp"/*; do
    [ -S "$sock" ] || continue
    pid=$(ssh -S "$sock" -O check fleet 2>&1 | sed -n 's/.*pid=\([0-9]*\).*/\1/p')
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
  done
  for pid in "${fleet_pids[@]}"; do
    kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  done
  fleet_pids=()
}

# A free port on an address, from the kernel (a small race with other users
# of the port is tolerated: sshd then fails and the test says so).
fleet_free_port() {
  python3 -c 'import socket,sys; s=socket.socket(); s.bind((sys.argv[1],0)); print(s.getsockname()[1])' "$1"
}

fleet_up() {
  local n=$1 i h addr port
  fleet=$work/fleet
  # ssh's control sockets: a Unix socket path ends at 108 bytes, and
  # $work may be deep in a CI checkout.
  fleet_cp=$short/cp
  mkdir -p "$fleet/home" "$fleet/ansible-tmp" "$fleet_cp"
  # sshd's privilege separation directory (what openssh-server makes at
  # boot), left in place: a fleet that removed it when done broke every
  # other fleet still running (each new connection reset at kex).
  [ -d /run/sshd ] || mkdir -m 0755 /run/sshd
  ssh-keygen -q -t ed25519 -N '' -C fleet-client -f "$fleet/id_ed25519" || return 1
  cp "$fleet/id_ed25519.pub" "$fleet/authorized_keys"
  : >"$fleet/known_hosts"
  fleet_hosts=()
  for i in $(seq "$n"); do
    h=$fleet/host$i addr=127.0.0.$((10 + i))
    mkdir -p "$h/bin"
    ssh-keygen -q -t ed25519 -N '' -C "host$i" -f "$h/ssh_host_ed25519_key" || return 1
    port=$(fleet_free_port "$addr")
    cat >"$h/sshd_config" <<EOF
ListenAddress $addr:$port
HostKey $h/ssh_host_ed25519_key
PidFile $h/sshd.pid
AuthorizedKeysFile $fleet/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
MaxStartups 64
Subsystem sftp internal-sftp
LogLevel ERROR
EOF
    fleet_sshd "host$i" /usr/sbin/sshd -f "$h/sshd_config" -h "$h/ssh_host_ed25519_key" -D -e \
      -o PidFile="$h/sshd.pid" 2>"$h/sshd.log" &
    fleet_pids+=($!)
    printf '[%s]:%s %s\n' "$addr" "$port" "$(cut -d' ' -f1-2 "$h/ssh_host_ed25519_key.pub")" \
      >>"$fleet/known_hosts"
    echo "$addr $port" >"$h/address"
    fleet_hosts+=("host$i")
  done
  # Sticky and open like /tmp: a module run as pyrt_user (become_user)
  # makes its temporary folder here too.
  mkdir -p -m 1777 "$fleet/ansible-tmp/remote"
  cat >"$fleet/ansible.cfg" <<EOF
[defaults]
roles_path = $src/ansible/roles
host_key_checking = True
interpreter_python = /usr/bin/python3
retry_files_enabled = False
local_tmp = $fleet/ansible-tmp/local
remote_tmp = $fleet/ansible-tmp/remote
stdout_callback = json
gathering = explicit
[ssh_connection]
# One connection per host for the whole run (the masters are stopped by
# fleet_down), and modules piped through it rather than copied.
pipelining = True
control_path_dir = $fleet_cp
ssh_args = -o ControlMaster=auto -o ControlPersist=600 -o UserKnownHostsFile=$fleet/known_hosts -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes
EOF
  # Every sshd answers before the test goes on.
  for i in $(seq "$n"); do
    read -r addr port <"$fleet/host$i/address"
    for _ in $(seq 100); do
      fleet_ssh "host$i" true 2>/dev/null && break
      sleep 0.1
    done
    fleet_ssh "host$i" true || { echo "sshd of host$i does not answer:" >&2; cat "$fleet/host$i/sshd.log" >&2; return 1; }
  done
}

# fleet_sshd hostI SSHD ARGS...: exec sshd, in a mount namespace of its own
# for a host in $fleet_isolated (unshare execs, so $! is sshd's pid).
fleet_sshd() {
  local name=$1
  shift
  case " $fleet_isolated " in *" $name "*) ;; *) exec "$@" ;; esac
  exec unshare --mount --propagation private -- sh -c '
    for d in usr etc var; do
      mkdir -p "$0/overlay/$d.up" "$0/overlay/$d.work" &&
        mount -t overlay overlay -o "lowerdir=/$d,upperdir=$0/overlay/$d.up,workdir=$0/overlay/$d.work" "/$d" ||
        { echo "no overlay on /$d for $0" >&2; exit 1; }
    done
    exec "$@"' "$fleet/$name" "$@"
}

# fleet_ssh hostI CMD...: the same SSH the fleet uses (key, known_hosts).
fleet_ssh() {
  local addr port
  read -r addr port <"$fleet/$1/address"
  shift
  ssh -o BatchMode=yes -o ControlMaster=no -o IdentitiesOnly=yes -i "$fleet/id_ed25519" \
    -o UserKnownHostsFile="$fleet/known_hosts" -o StrictHostKeyChecking=yes \
    -p "$port" "root@$addr" "$@"
}

fleet_mirror_up() {
  mkdir -p "$fleet/www"
  fleet_pins=$fleet/pins.yaml
  "$pyrt" lock --pins "$fx/pins.yaml" --wheelhouse "$fx/wheelhouse" --out "$fleet_pins" \
    >/dev/null 2>"$fleet/lock.err" || { cat "$fleet/lock.err" >&2; return 1; }
  "$pyrt" mirror "$fleet/www/good" --pins "$fleet_pins" --cacert "$fx/ca.pem" \
    --mirror "$mirror" --wheelhouse-from "$fx/wheelhouse" >/dev/null 2>"$fleet/mirror.err" ||
    { cat "$fleet/mirror.err" >&2; return 1; }
  cp -r "$fleet/www/good" "$fleet/www/bad"
  printf 'X' | dd of="$fleet/www/bad/fixture/runtime.tar.gz" bs=1 seek=4096 conv=notrunc 2>/dev/null
  printf 'X' | dd of="$fleet/www/bad/wheels/python_docx-0.8.11-py3-none-any.whl" bs=1 seek=4096 \
    conv=notrunc 2>/dev/null
  # Its lifetime (a leaked server's end) outlasts the fleet tests' ctest
  # TIMEOUT: at the default 900 s a loaded machine saw it exit mid-test and
  # every later run fail with "Connection refused".
  python3 "$src/tests/fixtures/mirror.py" --root "$fleet/www" --cert "$fx/server.pem" \
    --key "$fx/server.key" --port-file "$fleet/www.port" --log "$fleet/www.log" \
    --lifetime 3600 2>/dev/null &
  fleet_pids+=($!)
  for _ in $(seq 100); do [ -s "$fleet/www.port" ] && break; sleep 0.1; done
  good_mirror=https://127.0.0.1:$(cat "$fleet/www.port")/good
  bad_mirror=https://127.0.0.1:$(cat "$fleet/www.port")/bad
}

# fleet_inventory FILE [hostI=MIRROR]...
fleet_inventory() {
  local file=$1 i h addr port m kv
  shift
  {
    echo "[pyrt_hosts]"
    for h in "${fleet_hosts[@]}"; do
      read -r addr port <"$fleet/$h/address"
      m=$good_mirror
      for kv in "$@"; do [ "${kv%%=*}" = "$h" ] && m=${kv#*=}; done
      echo "$h ansible_host=$addr ansible_port=$port pyrt_box_root=$fleet/$h/box pyrt_bin_path=$fleet/$h/bin/pyrt pyrt_pins_dest=$fleet/$h/etc/pins.yaml pyrt_wheelhouse=$fleet/$h/wheels pyrt_completions_dir=$fleet/$h/share pyrt_mirror=$m"
    done
    echo
    echo "[pyrt_hosts:vars]"
    echo "ansible_user=root"
    echo "ansible_ssh_private_key_file=$fleet/id_ed25519"
    echo "pyrt_binary=$pyrt"
    echo "pyrt_pins=$fleet_pins"
    echo "pyrt_cacert=$fx/ca.pem"
    echo "pyrt_mirror_wheels=true"
  } >"$file"
}

# fleet_play OUT ARGS...: ansible-playbook with the fleet's config; the JSON
# callback's output in OUT; sets $rc.
fleet_play() {
  local out=$1
  shift
  ANSIBLE_CONFIG=$fleet/ansible.cfg HOME=$fleet/home \
    ansible-playbook "$src/ansible/playbook.yml" "$@" >"$out" 2>"$out.err"
  rc=$?
}

# stat_of HOST FIELD: the JSON callback's per-host tally of the last run.
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
changed_is() { [ "$(stat_of "$2" changed)" = "$1" ]; }
no_failures() { [ "$(stat_of "$1" failures)" = 0 ] && [ "$(stat_of "$1" unreachable)" = 0 ]; }
provisioned_changed() { [ "$(task_result "$2" 'Provision the managed runtime' changed)" = "$1" ]; }
