#!/usr/bin/env bash
# ctest: e2e_mirror_safe
# `pyrt mirror DIR` works below one descriptor of DIR (issue 17.4):
#  - DIR (or --wheelhouse-from) that a second user (uid 1234, setpriv) can
#    change is refused (exit 14) before anything is written;
#  - DIR/wheels swapped for a symlink between pyrt's mkdir and its writes
#    (inotify sees the mkdir; strace holds pyrt's next unlink for a second)
#    puts nothing in the folder the link points to;
#  - three concurrent runs end with an index --verify accepts;
#  - a run stopped by SIGTERM or SIGINT, or out of disk (a small tmpfs),
#    leaves no index that --verify accepts; the next run repairs it.
# Needs root (two users, strace, a tmpfs mount).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup mirror_safe fixtures
[ "$(id -u)" -eq 0 ] || { echo "FAIL - e2e_mirror_safe needs root"; exit 1; }
for t in setpriv strace; do
  command -v "$t" >/dev/null || { echo "FAIL - $t is missing (scripts/deps.sh)"; exit 1; }
done
chmod 0755 "$work"
small=$work/small
trap 'mountpoint -q "$small" && umount "$small"; e2e_cleanup' EXIT
e2e_mirror
from=(--pins "$fx/pins.yaml" --cacert "$fx/ca.pem" --mirror "$mirror" --platform linux-x86_64-gnu)
wheels=(--wheelhouse-from "$fx/wheelhouse")
as_other() { setpriv --reuid=1234 --regid=1234 --clear-groups "$@"; }
no_index() { [ ! -e "$1/pyrt-mirror.json" ]; }
verify_refuses() { "$pyrt" mirror --verify "$1" >/dev/null 2>&1; [ $? -ne 0 ]; }
verify_accepts() { "$pyrt" mirror --verify "$1" >"$work/vout" 2>&1; }

# --- a mirror directory someone else controls -------------------------------
mkdir -m 0755 "$work/theirs"
chown 1234:1234 "$work/theirs"
run mirror "$work/theirs/m" "${from[@]}"
check "DIR in a folder uid 1234 owns is refused (exit 14)" rc_is 14
check "the message names the folder, its owner and the fix" \
  has "refusing .*$work/theirs/m: the folder $work/theirs is owned by uid 1234" err
check "nothing is created there" [ ! -e "$work/theirs/m" ]
mkdir -m 0777 "$work/open"
run mirror "$work/open" "${from[@]}"
check "DIR writable by everyone is refused (exit 14)" rc_is 14
cp -a "$fx/wheelhouse" "$work/wh-theirs"
chown -R 1234:1234 "$work/wh-theirs"
run mirror "$work/m0" "${from[@]}" --wheelhouse-from "$work/wh-theirs"
check "--wheelhouse-from uid 1234 owns is refused (exit 14)" rc_is 14
check "before DIR is made" [ ! -e "$work/m0" ]

# --- DIR/wheels swapped for a symlink mid-run -------------------------------
race=$work/race elsewhere=$work/elsewhere
mkdir -m 0755 "$elsewhere"
run mirror "$race" "${from[@]}"
check "setup: the archive is mirrored" rc_is 0
python3 "$src/tests/helpers/swap_dir_on_create.py" "$race" wheels "$elsewhere" 0.3 \
  "$work/armed" >"$work/swap.log" 2>&1 &
watcher=$!
for _ in $(seq 100); do [ -s "$work/armed" ] && break; sleep 0.05; done
# The first unlink after the mkdir (the wheel's stale partial) waits 1 s:
# the watcher swaps the folder in that window.
strace -f -o /dev/null -e trace=unlink,unlinkat \
  -e inject=unlink,unlinkat:delay_enter=1000000:when=1 \
  "$pyrt" mirror "$race" "${from[@]}" "${wheels[@]}" </dev/null >"$work/out" 2>"$work/err"
rc=$?
wait "$watcher"
check "the watcher did swap DIR/wheels for a link" grep -q swapped "$work/swap.log"
check "nothing was written in the folder the link points to" [ -z "$(ls -A "$elsewhere")" ]
check "the wheels went to the folder pyrt made (now wheels.real), or the run failed (rc $rc)" \
  eval '[ "$rc" -ne 0 ] || [ "$(ls "$race/wheels.real" | wc -l)" -eq 4 ]'

# --- three runs at once ------------------------------------------------------
conc=$work/conc
slow=(--pins "$fx/pins.yaml" --cacert "$fx/ca.pem" --mirror "$mirror?fault=slow:8000000"
      --platform linux-x86_64-gnu "${wheels[@]}")
pids=()
for n in 1 2 3; do
  "$pyrt" mirror "$conc" "${slow[@]}" </dev/null >"$work/conc$n.out" 2>"$work/conc$n.err" &
  pids+=($!)
done
rcs=
for p in "${pids[@]}"; do wait "$p"; rcs="$rcs$?"; done
check "three concurrent runs all exit 0 (rcs $rcs)" [ "$rcs" = 000 ]
check "the later ones said they waited" grep -q 'another pyrt mirror is writing' "$work"/conc?.err
check "--verify accepts the result" verify_accepts "$conc"
check "and it lists the archive and the 4 wheels" grep -q '^mirror: 5 files' "$work/vout"

# --- interrupted: SIGTERM and SIGINT mid-download ----------------------------
for sig in TERM INT; do
  d=$work/sig$sig
  "$pyrt" mirror "$d" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem" \
    --mirror "$mirror?fault=slow:1000000" --platform linux-x86_64-gnu "${wheels[@]}" \
    </dev/null >"$work/out" 2>"$work/err" &
  pid=$!
  for _ in $(seq 200); do
    [ -s "$d/fixture/.runtime.tar.gz.partial" ] && break; sleep 0.05
  done
  kill -"$sig" "$pid"
  wait "$pid"
  rc=$?
  check "SIG$sig mid-download: pyrt exits 130 (rc $rc)" rc_is 130
  check "SIG$sig: no index is left" no_index "$d"
  check "SIG$sig: --verify does not accept the unfinished mirror" verify_refuses "$d"
done
# The next run finishes the job.
run mirror "$work/sigTERM" "${from[@]}" "${wheels[@]}"
check "a rerun after the interruption finishes (exit 0)" rc_is 0
check "and --verify accepts it" verify_accepts "$work/sigTERM"

# --- out of disk -------------------------------------------------------------
# 9 MB holds the 7.9 MB archive, not the wheels after it.
mkdir "$small"
mount -t tmpfs -o size=9m,mode=0755 tmpfs "$small"
run mirror "$small/m" "${from[@]}" "${wheels[@]}"
check "a mirror that runs out of disk exits 9 (rc $rc)" rc_is 9
check "the message says the disk is full" has 'No space left on device' err
check "disk full: no index is left" no_index "$small/m"
check "disk full: --verify does not accept it" verify_refuses "$small/m"
check "disk full: no partial is left behind" [ -z "$(find "$small/m" -name '*.partial')" ]
# A complete mirror of the archive alone, then a rerun that adds the wheels
# and runs out of disk: the old index was set aside first, so --verify
# cannot vouch for half a rerun.
rm -rf "${small:?}/m"
run mirror "$small/m" "${from[@]}"
check "setup: the archive alone fits (exit 0)" rc_is 0
check "and verifies" verify_accepts "$small/m"
run mirror "$small/m" "${from[@]}" "${wheels[@]}"
check "the rerun with the wheels runs out of disk (exit 9, rc $rc)" rc_is 9
check "rerun, disk full: --verify does not accept the half-done mirror" verify_refuses "$small/m"
umount "$small"

kill "$mirror_pid" 2>/dev/null && wait "$mirror_pid" 2>/dev/null
mirror_pid=
e2e_finish
