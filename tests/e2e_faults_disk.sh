#!/usr/bin/env bash
# ctest: e2e_faults_disk
# End to end: the disk fails under `pyrt install` — no space (a small tmpfs
# this test mounts and fills; needs root, else those cases are skipped) and
# a file size limit (RLIMIT_FSIZE via prlimit) — during the download, the
# extraction (which writes the manifest as it goes, issue 28; its own
# write failures: test_manifest writer_write_failure_is_an_io_error) and
# the marker write (paused at the before-marker crash point, a build with
# -DPYRT_TEST_HOOKS=ON).  Each must exit 9 with a
# message naming the file and the cause, leave the old runtime current and
# verifying and staging empty, and not kill pyrt (SIGXFSZ); the next run
# with room must succeed.  The tmpfs holds current, the rollback target,
# staging and the archive: 128 MB.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup faults-disk fixtures
e2e_mirror
size=$(cat "$fx/runtime.size")
sha=$(cat "$fx/runtime.sha256")
archive=$fx/www/pbs/fixture/runtime.tar.gz
hookfile=$work/hook
small=$work/small
trap 'mountpoint -q "$small" && umount "$small"; e2e_cleanup' EXIT

# use BOX: the box the helpers below work on.
use() {
  box=$1 rt=$1/runtime/python
  current=$rt/current
  partial=$rt/downloads/${sha:0:16}.partial
  opts=(--box-root "$box" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem")
  inst=(install --yes --no-baseline --force "${opts[@]}" --mirror "$mirror")
}
installs() { ls "$rt/installs" | wc -l; }
staging_empty() { [ -z "$(ls -A "$rt/staging")" ]; }
verifies() { "$pyrt" verify "${opts[@]}" >/dev/null 2>&1; }
# first NAME: a good install to be kept through the faults.
first() {
  run install --yes --no-baseline --force "${opts[@]}" --from-file "$archive"
  check "$1: setup: a first install" rc_is 0
  old=$(readlink "$current") kept=$(installs)
}
# failed NAME REGEX: exit 9 (not a signal), stderr matches REGEX, old kept.
failed() {
  check "$1: exit 9 (got $rc)" rc_is 9
  check "$1: the message says /$2/" grep -qiE -- "$2" "$work/err"
  if [ "$rc" -eq 9 ]; then grep 'install failed' "$work/err" | sed 's/^/#   /'
  else sed 's/^/#   /' "$work/err"; fi
  check "$1: current unchanged" [ "$(readlink "$current")" = "$old" ]
  check "$1: the old runtime verifies" verifies
  check "$1: staging is empty" staging_empty
  check "$1: no install was added" [ "$(installs)" -eq "$kept" ]
}
# recovered NAME: the next run, with room, installs.
recovered() {
  run "${inst[@]}"
  check "$1: the next run installs (got $rc)" rc_is 0
  check "$1: and the new runtime verifies" verifies
  check "$1: staging and downloads/ are empty" \
    eval 'staging_empty && [ -z "$(ls -A "$rt/downloads")" ]'
  old=$(readlink "$current") kept=$(installs)
}
# at_marker ACTION: an install paused just before the marker is written
# (the manifest is complete); ACTION (a shell command, $pid is the
# installer) runs there.
# Its stderr is a pipe: a file size limit would cut a file's.
at_marker() {
  rm -f "$hookfile" "$work/errpipe"
  mkfifo "$work/errpipe"
  cat "$work/errpipe" >"$work/err" &
  local catpid=$!
  PYRT_TEST_HOOK=before-marker:pause PYRT_TEST_HOOK_FILE=$hookfile \
    "$pyrt" "${inst[@]}" </dev/null >"$work/out" 2>"$work/errpipe" &
  local pid=$! i
  for ((i = 0; i < 300; i++)); do [ -s "$hookfile" ] && break; sleep 0.1; done
  if [ ! -s "$hookfile" ]; then
    bad "the install never reached before-marker (built without -DPYRT_TEST_HOOKS=ON?)"
    kill "$pid"; wait "$pid"; wait "$catpid"; rc=255; return
  fi
  eval "$1"
  rm -f "$hookfile"
  wait "$pid"
  rc=$?
  wait "$catpid"
}
# fill LEAVE: take all but LEAVE bytes of the small filesystem.
fill() {
  local avail
  avail=$(df --output=avail -B1 "$small" | tail -1)
  fallocate -l $((avail - $1)) "$small/filler"
}

# --- RLIMIT_FSIZE (any user) ----------------------------------------------
use "$work/box"
first "fsize"
run_limited() { prlimit --fsize="$1" "$pyrt" "${inst[@]}" </dev/null >"$work/out" 2>"$work/err"; rc=$?; }

run_limited 1000000
failed "fsize, download" "cannot write $partial: File too large.*ulimit -f"
check "fsize, download: the prefix is kept" cmp -s -n 1000000 "$partial" "$archive"
: >"$work/requests.log"
recovered "fsize, download"
check "fsize, download: the next run resumed at 1000000" grep -q 'range=bytes=1000000-' "$work/requests.log"

# The complete archive is already there (the server says 416): nothing is
# downloaded, the first big write is an extracted file.
cp "$archive" "$partial"
run_limited 2000000
failed "fsize, extraction" 'python/bin/python3[.0-9]*: .*File too large'
recovered "fsize, extraction"

at_marker 'prlimit --pid $pid --fsize=100'
failed "fsize, marker" 'marker\.json.*File too large'
recovered "fsize, marker"

# --- no space: a small tmpfs (root only) ----------------------------------
if [ "$(id -u)" -ne 0 ] || ! { mkdir -p "$small" && mount -t tmpfs -o size=128m,mode=0700 tmpfs "$small"; }; then
  echo "ok - SKIP no-space cases: mounting a tmpfs needs root"
  e2e_finish
  exit
fi
use "$small/box"
first "no space"

fill 2000000
run "${inst[@]}"
failed "no space, download" "cannot write $partial: No space left on device"
check "no space, download: the prefix is kept" cmp -s -n "$(stat -c %s "$partial")" "$partial" "$archive"
rm -f "$small/filler"
: >"$work/requests.log"
recovered "no space, download"
check "no space, download: the next run resumed" grep -q 'range=bytes=[1-9]' "$work/requests.log"

fill $((size + 4000000))
run "${inst[@]}"
failed "no space, extraction" 'python/.*No space left on device'
rm -f "$small/filler"
recovered "no space, extraction"

at_marker 'fill 0'
failed "no space, marker" 'marker\.json.*No space left on device'
rm -f "$small/filler"
recovered "no space, marker"

e2e_finish
