#!/usr/bin/env bash
# ctest: e2e_test_stages
# scripts/test.sh runs every stage even when one fails and reports all the
# failures at the end, exiting non-zero (issue 29.7): its stage runner
# (scripts/lib/stages.sh) under set -e, with a failing stage first; and
# scripts/test.sh itself runs its stages through it, ending in stages_end.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup test_stages
cat >"$work/run.sh" <<EOS
set -euo pipefail
. "$src/scripts/lib/stages.sh"
stage "first, failing" false
stage "second, failing too" bash -c 'exit 3'
stage "third, passing" touch "$work/third-ran"
stages_end
EOS
bash "$work/run.sh" >"$work/out" 2>"$work/err"
rc=$?
check "a failed stage does not stop the run: the stage after it ran" [ -e "$work/third-ran" ]
check "the run exits non-zero (rc $rc)" [ "$rc" -ne 0 ]
check "the end lists both failures" \
  eval 'tail -3 "$work/out" | grep -q "2 stage(s) failed" && tail -2 "$work/out" | grep -q "first, failing" && tail -1 "$work/out" | grep -q "second, failing too"'
check "each stage says how it ended (exit 3 kept)" has '== second, failing too: FAILED (exit 3)' out
printf 'set -euo pipefail\n. "%s/scripts/lib/stages.sh"\nstage ok true\nstages_end\n' "$src" >"$work/ok.sh"
bash "$work/ok.sh" >"$work/out" 2>&1
rc=$?
check "all passing: exit 0 and says so" eval 'rc_is 0 && has "every stage passed" out'
check "scripts/test.sh runs ctest, package, bench, fuzz and ASan as stages and ends in stages_end" \
  eval '[ "$(grep -c "^stage " "$src/scripts/test.sh")" -eq 5 ] && [ "$(tail -1 "$src/scripts/test.sh")" = stages_end ] && bash -n "$src/scripts/test.sh"'
e2e_finish
