# Stages of a long run (scripts/test.sh): each runs even when an earlier
# one failed, and the end names every failure and fails the run, so one
# red stage never hides the ones after it.
#   . scripts/lib/stages.sh
#   stage NAME CMD...   run CMD as stage NAME
#   stages_end          the summary; exit status 1 when any stage failed
# shellcheck shell=bash
stages_failed=()

stage() {
  local name=$1 rc
  shift
  echo "== $name"
  # In an if: CMD's own failure is this stage's, not the script's (set -e).
  if "$@"; then
    echo "== $name: passed"
  else
    rc=$?
    echo "== $name: FAILED (exit $rc)"
    stages_failed+=("$name")
  fi
}

stages_end() {
  if [ "${#stages_failed[@]}" -gt 0 ]; then
    echo "== ${#stages_failed[@]} stage(s) failed:"
    printf '==   %s\n' "${stages_failed[@]}"
    return 1
  fi
  echo "== every stage passed"
}
