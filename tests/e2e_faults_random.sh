#!/usr/bin/env bash
# End to end: seeded random SIGKILLs of `pyrt install --force --from-file`
# (the fixture archive on the test tmpfs, so one install takes well under a
# second).  After each kill a plain install must end ready and leave nothing
# behind (box_problems), and a reader running status and verify all along
# must never see a missing or partial runtime.
#
#   PYRT_FAULT_SEED=N    repeat a run's kill times (printed at the start)
#   PYRT_FAULT_KILLS=N   how many installs must die by SIGKILL (default 50;
#                        an install that finished before its kill time
#                        does not count, and at most 2N are started)
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup faults-random fixtures
. "$src/tests/lib/faults.sh"
fault_box "$work/box"
started=$SECONDS

seed=${PYRT_FAULT_SEED:-$(( (RANDOM << 15) | RANDOM ))}
kills=${PYRT_FAULT_KILLS:-50}
echo "# seed $seed (PYRT_FAULT_SEED=$seed repeats these kill times), $kills kills"

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
run "${inst[@]}" "${opts[@]}"
check "setup: a first install" rc_is 0
# The quicker of two warm installs: kill times must land inside one.
span=
for _ in 1 2; do
  t0=$(now_ms)
  run "${inst[@]}" "${opts[@]}"
  t=$(( $(now_ms) - t0 ))
  [ -n "$span" ] && [ "$span" -le "$t" ] || span=$t
done
# Kill times spread over the whole install and a little past it.
span=$(( span * 12 / 10 + 1 ))
echo "# one install took ~$(( span * 10 / 12 )) ms; kills land in 0..$span ms"

RANDOM=$seed
reader_start
killed=0 finished=0 failed=0
declare -A where
for ((i = 1; killed < kills && i <= 2 * kills; i++)); do
  delay=$(( RANDOM % span ))
  "$pyrt" "${inst[@]}" "${opts[@]}" --json </dev/null >"$work/k.out" 2>/dev/null &
  p=$!
  sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
  kill -KILL "$p" 2>/dev/null
  { wait "$p"; } 2>/dev/null
  krc=$?
  if [ "$krc" -eq 137 ]; then
    killed=$((killed + 1))
    step=$(grep -oE '"step": ?"[a-z]+", ?"state": ?"[a-z]+"' "$work/k.out" | tail -1 |
           sed -E 's/"step": ?"([a-z]+)", ?"state": ?"([a-z]+)"/\1:\2/')
    where[${step:-start}]=$(( ${where[${step:-start}]:-0} + 1 ))
  else
    finished=$((finished + 1))
  fi
  run install --yes --no-baseline --from-file "$archive" "${opts[@]}"
  p=$(box_problems)
  [ "$rc" -eq 0 ] || p="the rerun exited $rc; $p"
  if [ -n "$p" ]; then
    failed=$((failed + 1))
    [ "$failed" -le 5 ] && echo "# kill $i at ${delay} ms (rc $krc): $(tr '\n' ';' <<<"$p")"
  fi
done
reader_stop
for k in "${!where[@]}"; do echo "# killed during $k: ${where[$k]}"; done | sort
check "$((killed + finished)) random kills ($killed killed mid-install, $finished had finished; seed $seed): every rerun ended ready and the box settled" \
  [ "$failed" -eq 0 ]
check "at least $kills installs died by SIGKILL ($killed)" [ "$killed" -ge "$kills" ]
reader_verdict "random kills"
settled "after the random kills"

echo "# e2e_faults_random: $((SECONDS - started)) s"
e2e_finish
