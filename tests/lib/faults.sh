# What the fault scripts (e2e_faults*, e2e_signals, e2e_concurrency) share;
# sourced after tests/lib/e2e.sh and `e2e_setup NAME fixtures`:
#
#   fault_box DIR       use DIR as the box: sets box, rt, current, opts, inst
#   at POINTS ACTION [ARGS]   an install paused at each listed crash point
#   reader_start / reader_stop / reader_verdict   the concurrent reader
#   box_problems        what a settled box must not hold, one line each
#
# The crash points need a build with -DPYRT_TEST_HOOKS=ON (core/util/testhook.h).
# shellcheck shell=bash disable=SC2034  # the variables are the scripts'

# The fixture archive on the test tmpfs: an install from it takes ~0.2 s.
archive=$work/runtime.tar.gz
cp "$fx/runtime.tar.gz" "$archive"
hookfile=$work/hook

# fault_box DIR: the box the helpers below act on.
fault_box() {
  box=$1
  rt=$box/runtime/python
  current=$rt/current
  opts=(--box-root "$box" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem")
  inst=(install --yes --no-baseline --force --from-file "$archive")
}

# The install a link names, "" when it names none.
link_id() { readlink "$1" 2>/dev/null | sed -n 's#^installs/\([^/]*\)/python$#\1#p'; }

# wait_hook [SECONDS]: until a paused process has announced itself.
wait_hook() {
  local i n=$(( ${1:-30} * 10 ))
  for ((i = 0; i < n; i++)); do [ -s "$hookfile" ] && return 0; sleep 0.1; done
  return 1
}

# at POINTS ACTION [INSTALL ARGS...]: start an install (default "${inst[@]}")
# that pauses at the crash points POINTS (comma-separated "point:pause"
# list, or one point name); at each pause, run ACTION (a shell command that
# can use $pid and $point) and let it go on.  Sets rc; the output is in
# $work/out and $work/err.
at() {
  local points=$1 action=$2
  shift 2
  local args=("$@")
  [ ${#args[@]} -gt 0 ] || args=("${inst[@]}")
  case $points in *:*) ;; *) points="$points:pause" ;; esac
  rm -f "$hookfile"
  PYRT_TEST_HOOK=$points PYRT_TEST_HOOK_FILE=$hookfile \
    "$pyrt" "${args[@]}" "${opts[@]}" --json </dev/null >"$work/out" 2>"$work/err" &
  pid=$!
  local n=0 want
  want=$(tr ',' '\n' <<<"$points" | grep -c ':pause$')
  while [ "$n" -lt "$want" ]; do
    if ! wait_hook 30; then
      bad "the install never reached ${points} (built without -DPYRT_TEST_HOOKS=ON?)"
      kill -KILL "$pid" 2>/dev/null; wait "$pid"; rc=255; return
    fi
    point=$(awk '{print $2}' "$hookfile")
    n=$((n + 1))
    eval "$action"
    rm -f "$hookfile"
    # A process that died at the action never reaches the next point.
    kill -0 "$pid" 2>/dev/null || break
  done
  { wait "$pid"; } 2>/dev/null # no "Killed" line from bash
  rc=$?
}

# The last line of the --json output: the result event.
result() { tail -1 "$work/out"; }

# result_is OK EXIT: the result event says ok (true/false) and exit_code
# (grep, not python: these run hundreds of times).
result_is() {
  result | grep -qE '^\{"event": ?"result",' &&
    result | grep -qE "\"ok\": ?$1," &&
    result | grep -qE "\"exit_code\": ?$2,"
}

# The baseline state status reports.
baseline_state() {
  "$pyrt" status "${opts[@]}" --json 2>/dev/null |
    sed -n '/"baseline"/,/}/s/^ *"state": "\([a-z]*\)".*/\1/p'
}

# box_problems [partial]: one line per thing a settled box must not hold;
# with "partial", downloads/ may keep the resumable partial download.
box_problems() {
  local allow=${1:-}
  local cur prev d n=0
  [ -z "$(ls -A "$rt/staging" 2>/dev/null)" ] || echo "staging/ holds $(ls "$rt/staging")"
  if [ "$allow" = partial ]; then
    [ -z "$(ls "$rt/downloads" 2>/dev/null | grep -v '\.partial$')" ] ||
      echo "downloads/ holds $(ls "$rt/downloads")"
  else
    [ -z "$(ls -A "$rt/downloads" 2>/dev/null)" ] || echo "downloads/ holds $(ls "$rt/downloads")"
  fi
  ls -A "$rt" | grep -E '^\.(link\.|previous\.pending)' | sed 's/^/stray link /'
  cur=$(link_id "$current")
  prev=$(link_id "$rt/previous")
  [ -n "$cur" ] || echo "current names no install"
  for d in "$rt"/installs/*; do
    [ -e "$d" ] || continue
    n=$((n + 1))
    case ${d##*/} in "$cur" | "$prev") ;; *) echo "install ${d##*/} is neither current nor previous" ;; esac
  done
  [ "$n" -le 2 ] || echo "$n install trees"
  [ -z "$prev" ] || [ -d "$rt/installs/$prev/python" ] || echo "previous is dangling"
  "$pyrt" status "${opts[@]}" >/dev/null 2>&1 || echo "status is not ready (exit $?)"
  "$pyrt" verify "${opts[@]}" >/dev/null 2>&1 || echo "current does not verify"
}

# settled TAG [partial]: one check that box_problems finds nothing.
settled() {
  local p
  p=$(box_problems "${2:-}")
  if [ -z "$p" ]; then ok "$1: the box is settled"; else bad "$1: $(tr '\n' ';' <<<"$p")"; fi
}

# The reader: status --json and verify in a loop while faults happen.  One
# line per round: status exit, state, upgrade_in_progress, verify exit, and
# whether current moved (or its tree went) while verify read it.
reader_start() {
  rm -f "$work/reader.stop"
  : >"$work/reader.log"
  (
    while [ ! -e "$work/reader.stop" ]; do
      "$pyrt" status "${opts[@]}" --json >"$work/reader.json" 2>/dev/null
      src=$?
      state=$(sed -n 's/^  "state": "\([a-z_]*\)".*/\1/p' "$work/reader.json")
      up=$(grep -c '"upgrade_in_progress": true' "$work/reader.json")
      before=$(readlink -f "$current")
      "$pyrt" verify "${opts[@]}" >/dev/null 2>&1
      vrc=$?
      after=$(readlink -f "$current")
      moved=0
      if [ "$before" != "$after" ] || [ ! -d "$before" ]; then moved=1; fi
      echo "$src ${state:-none} $up $vrc $moved"
      sleep 0.02 # a reader, not a load generator
    done >>"$work/reader.log"
  ) &
  reader_pid=$!
}

reader_stop() {
  touch "$work/reader.stop"
  wait "$reader_pid"
}

# reader_verdict TAG [need_upgrade]: once the reader saw ready, every later
# round was ready with exit 0 and verified (unless current moved under the
# verify); with need_upgrade, at least one round saw an upgrade in progress.
reader_verdict() {
  local tag=$1 need=${2:-}
  local v
  v=$(python3 - "$work/reader.log" "$need" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
ready = False; bad = []; ups = 0
for i, (src, state, up, vrc, moved) in enumerate(rows):
    if state == "ready":
        ready = True
    ups += up != "0"
    if not ready:
        continue
    if state != "ready" or src != "0":
        bad.append(f"round {i}: status {state} (exit {src})")
    elif vrc != "0" and moved == "0":
        bad.append(f"round {i}: current did not verify (exit {vrc})")
if not ready:
    bad.append("the reader never saw ready")
if sys.argv[2] and ups == 0:
    bad.append("the reader never saw an upgrade in progress")
print(f"{len(rows)} rounds, {ups} during an upgrade" if not bad else "; ".join(bad[:5]))
sys.exit(1 if bad else 0)
EOF
)
  if [ $? -eq 0 ]; then ok "$tag: the reader never saw a missing or partial runtime ($v)"
  else bad "$tag: $v"; fi
}
