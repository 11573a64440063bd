#!/usr/bin/env bash
# ctest: e2e_role_assert
# The Ansible role refuses pyrt_deb and pyrt_binary set together (issue
# 29.8), before it touches the host, naming both: which one pyrt comes
# from must not depend on the order of the role's tasks.  And after
# pyrt_state absent the play says the runtime was removed.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup role_assert
command -v ansible-playbook >/dev/null || { echo "FAIL - ansible-playbook is missing (scripts/deps.sh)"; exit 1; }
printf '[pyrt_hosts]\nlocalhost ansible_connection=local ansible_python_interpreter=/usr/bin/python3\n' >"$work/inv"
(cd "$src/ansible" && ANSIBLE_LOCAL_TEMP="$work/tmp" ANSIBLE_REMOTE_TEMP="$work/tmp" \
  ansible-playbook -i "$work/inv" playbook.yml --check \
    -e pyrt_deb=/nonexistent/pyrt.deb -e pyrt_binary=/nonexistent/pyrt) \
  >"$work/out" 2>"$work/err"
rc=$?
check "both set: the play fails (rc $rc)" eval '[ "$rc" -ne 0 ]'
check "... at the role's first task, naming both" \
  has 'pyrt_deb (/nonexistent/pyrt.deb) and pyrt_binary (/nonexistent/pyrt) are both' out
check "... before any other task of the role ran" eval '! grep -q "TASK \[pyrt : Provision\|TASK \[pyrt : Copy\|TASK \[pyrt : Install" "$work/out"'

# state absent (in check mode, on an empty box of this test's): the play
# says the runtime was removed, not "not_provisioned ... run pyrt install".
(cd "$src/ansible" && ANSIBLE_LOCAL_TEMP="$work/tmp" ANSIBLE_REMOTE_TEMP="$work/tmp" \
  ansible-playbook -i "$work/inv" playbook.yml --check -e pyrt_state=absent \
    -e "pyrt_bin_path=$pyrt" -e "pyrt_box_root=$work/box" -e pyrt_pins= -e pyrt_mirror_wheels=false) \
  >"$work/out" 2>"$work/err"
rc=$?
check "state absent --check on an empty box runs (rc $rc)" rc_is 0
[ "$rc" -eq 0 ] || tail -15 "$work/out" | sed 's/^/#   /'
check "... says the runtime was removed" has '"msg": "absent: the managed runtime was removed"' out
check "... and no 'run pyrt install'" eval '! has "not_provisioned" out'
e2e_finish
