#!/usr/bin/env bash
# ctest: e2e_orphans
# An installer child never outlives pyrt (issue 19.2): pip (or the
# wheelhouse installer) holds the box lock itself, inherited as its fd 4,
# and gets SIGKILL when pyrt dies (PR_SET_PDEATHSIG).  pip is kept running
# by a loopback index that holds its first answer (tests/helpers/
# slow_index.py) while pyrt, and then `pyrt serve`, is killed with SIGKILL.
# Afterwards no pip is left, the lock is free, `uninstall` removes the
# runtime, and nothing reappears in the box once the index answers.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup orphans fixtures

box=$work/box
common=(--box-root "$box" --pins "$fx/pins.yaml")
run install "${common[@]}" --yes --no-baseline --from-file "$fx/runtime.tar.gz"
check "the fixture runtime installs (no baseline)" rc_is 0

# A PEP 503 index of the fixture wheels that holds its first answer.
idx=$work/index
e2e_simple_index "$idx"
index_pid=
start_index() {
  rm -f "$work/iport" "$work/hit" "$work/release"
  python3 "$src/tests/helpers/slow_index.py" --root "$idx" --prefix /i \
    --port-file "$work/iport" --hit "$work/hit" --release "$work/release" \
    --log "$work/index.log" &
  index_pid=$!
  for _ in $(seq 100); do [ -s "$work/iport" ] && break; sleep 0.1; done
  export PYRT_INDEX_URL="http://127.0.0.1:$(cat "$work/iport")/i/simple/"
}
stop_index() {
  touch "$work/release"
  kill "$index_pid" 2>/dev/null
  wait "$index_pid" 2>/dev/null
}
trap 'stop_index; e2e_cleanup' EXIT

# pip_of PID: the pip (download or install) started under PID (a child, or a job thread's child).
pip_of() {
  local p
  for p in $(pgrep -P "$1"); do
    tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -qE -- "-m pip (install|download)" &&
      { echo "$p"; return 0; }
  done
  return 1
}
gone_within() { # PID SECONDS
  # Dead is gone, a zombie too: its parent died, and whoever adopted it
  # (init, a container's pid 1) reaps it when it gets round to it.
  local i state
  for i in $(seq $(($2 * 10))); do
    state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
    [ -z "$state" ] || [ "$state" = Z ] && return 0
    sleep 0.1
  done
  return 1
}
# files_now: every path under the box's runtime, sorted.
files_now() { find "$box/runtime" 2>/dev/null | sort; }

# --- 1: pyrt baseline killed with SIGKILL while pip waits on the index ----
start_index
"$pyrt" baseline "${common[@]}" </dev/null >"$work/b.out" 2>"$work/b.err" &
pyrt_pid=$!
for _ in $(seq 300); do [ -e "$work/hit" ] && break; sleep 0.1; done
pip_pid=$(pip_of "$pyrt_pid")
check "pip is running, waiting on the index" [ -n "$pip_pid" ]
check "pip holds the box lock itself (its fd 4 is the lock file)" \
  eval '[ "$(readlink "/proc/$pip_pid/fd/4")" = "$box/runtime/python/lock" ]'
kill -KILL "$pyrt_pid"
wait "$pyrt_pid" 2>/dev/null
check "pip dies with pyrt (SIGKILL to pyrt; pip gone within 2 s)" gone_within "$pip_pid" 2
run status "${common[@]}"
check "status afterwards names no installer: the lock is free" eval '! has "installing" out'
run uninstall "${common[@]}" --yes --no-wait
check "uninstall right after runs (exit 0, no busy lock)" rc_is 0
stop_index
sleep 2
check "nothing reappears in the box after the index answers" eval '[ -z "$(find "$box/runtime/python" -path "*/installs/*" 2>/dev/null)" ]'

# --- 2: pyrt serve killed with SIGKILL during an API baseline --------------
run install "${common[@]}" --yes --no-baseline --from-file "$fx/runtime.tar.gz"
check "(the runtime installed again)" rc_is 0
start_index
"$pyrt" serve "${common[@]}" --index-url "$PYRT_INDEX_URL" 2>"$work/serve.log" &
spid=$!
e2e_wait_socket "$box/runtime/python/api.sock" "$spid" "$work/serve.log"
ln -sf "$box/runtime/python/api.sock" "$short/api.sock"
code=$(curl -s -o "$work/job.json" -w '%{http_code}' --unix-socket "$short/api.sock" \
  -X POST -H 'Content-Type: application/json' -d '{}' http://localhost/api/runtime/python/baseline)
check "the API started a baseline job (202)" [ "$code" = 202 ]
for _ in $(seq 300); do [ -e "$work/hit" ] && break; sleep 0.1; done
pip_pid=$(pip_of "$spid")
check "the job's pip is running" [ -n "$pip_pid" ]
kill -KILL "$spid"
wait "$spid" 2>/dev/null
check "pip dies with pyrt serve (gone within 2 s)" gone_within "$pip_pid" 2
before=$(files_now)
stop_index
sleep 2
check "nothing changes in the box after the index answers" [ "$(files_now)" = "$before" ]
run install "${common[@]}" --yes --no-baseline --no-wait --from-file "$fx/runtime.tar.gz" --force
check "an install right after takes the lock (exit 0)" rc_is 0
e2e_finish
