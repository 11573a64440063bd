#!/usr/bin/env bash
# ctest: e2e_faults_net
# End to end: network faults through the real `pyrt install`, against the
# loopback mirror's per-request faults (tests/fixtures/mirror.py).  Each
# failure must give its exit code and a message naming the cause, leave the
# old runtime current and verifying, staging empty, and in downloads/ only
# bytes that can begin the pinned archive; each recovery must work on the
# first run after the fault.  PYRT_FAULT_ITERATIONS sets the rounds of the
# reset-at-a-random-offset loop at the end (default 5).
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup faults-net fixtures
e2e_mirror
box=$work/box
rt=$box/runtime/python
current=$rt/current
opts=(--box-root "$box" --pins "$fx/pins.yaml" --cacert "$fx/ca.pem")
inst=(install --yes --no-baseline --force)
size=$(cat "$fx/runtime.size")
sha=$(cat "$fx/runtime.sha256")
archive=$fx/www/pbs/fixture/runtime.tar.gz
partial=$rt/downloads/${sha:0:16}.partial
extra_pids=()
trap 'for p in "${extra_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; e2e_cleanup' EXIT

run "${inst[@]}" "${opts[@]}" --from-file "$fx/runtime.tar.gz"
check "setup: a first install" rc_is 0
old=$(readlink "$current")

staging_empty() { [ -z "$(ls -A "$rt/staging")" ]; }
downloads_empty() { [ -z "$(ls -A "$rt/downloads")" ]; }
gets() { grep -c "GET .*$1" "$work/requests.log"; }
# The old runtime is still what current names, and it verifies.
intact() {
  check "$1: current unchanged" [ "$(readlink "$current")" = "$old" ]
  check "$1: the old runtime verifies" verifies
  check "$1: staging is empty" staging_empty
}
# refused NAME RC REGEX: exit RC, stderr matches REGEX, the old runtime kept.
refused() {
  check "$1: exit $2 (got $rc)" rc_is "$2"
  check "$1: the message says /$3/" grep -qiE -- "$3" "$work/err"
  intact "$1"
}
# installed NAME: exit 0, a new current that verifies, nothing left over.
installed() {
  check "$1: exit 0 (got $rc)" rc_is 0
  [ "$rc" -eq 0 ] || sed 's/^/#   /' "$work/err"
  check "$1: current is a new install" [ "$(readlink "$current")" != "$old" ]
  check "$1: the new runtime verifies" verifies
  check "$1: staging and downloads/ are empty" eval 'staging_empty && downloads_empty'
  old=$(readlink "$current")
}
prefix() { head -c "$1" "$archive" >"$partial"; }
is_prefix() { [ -s "$partial" ] && cmp -s -n "$(stat -c %s "$partial")" "$partial" "$archive"; }
last_log() { ls -t "$rt"/logs/install-*.log | head -1; }
verifies() { "$pyrt" verify "${opts[@]}" >/dev/null 2>&1; }
absent_retry() { ! grep -q 'retrying' "$work/err"; }

# --- a reset mid-body: the same run resumes with a Range request ---------
run "${inst[@]}" "${opts[@]}" --mirror "$mirror?fault=once_reset_after:3000000&case=reset"
installed "reset mid-body"
check "reset: two requests, the second a Range" [ "$(gets 'case=reset range=bytes=[1-9]')" -eq 1 ]

# --- a stall: cut off after 30 s below 1 KiB/s, retried, resumed ---------
t0=$SECONDS
run "${inst[@]}" "${opts[@]}" --mirror "$mirror?fault=once_stall_after:1000000&case=stall"
installed "stall"
check "stall: the retry resumed with a Range" [ "$(gets 'case=stall range=bytes=[1-9]')" -eq 1 ]
check "stall: stderr says it retried" grep -q 'retrying' "$work/err"
echo "# stall case took $((SECONDS - t0)) s"

# --- 404 and 500, then a working --mirror --------------------------------
run "${inst[@]}" "${opts[@]}" --mirror "https://127.0.0.1:$port/nowhere"
refused "404" 4 'HTTP 404'
check "404: one request, no retry" [ "$(gets '/nowhere/')" -eq 1 ]
check "404: no partial file, not even an empty one" downloads_empty
run "${inst[@]}" "${opts[@]}" --mirror "$mirror?fault=status:500"
refused "500" 4 'after 4 attempts: HTTP 500'
check "500: no partial file" downloads_empty
run "${inst[@]}" "${opts[@]}" --mirror "$mirror"
installed "then a working --mirror"

# --- certificates: untrusted, wrong host; never an insecure retry --------
: >"$work/requests.log"
run "${inst[@]}" --box-root "$box" --pins "$fx/pins.yaml" --cacert "$fx/other.pem" --mirror "$mirror"
refused "untrusted certificate" 4 'certificate verification failed.*--cacert'
check "untrusted: no request reached the server" [ ! -s "$work/requests.log" ]
check "untrusted: not retried" absent_retry
# A server certificate from the trusted CA, but for another name.
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -subj "/CN=wrong.invalid" -keyout "$work/wrong.key" -out "$work/wrong.csr" 2>/dev/null
printf 'subjectAltName=DNS:wrong.invalid\nextendedKeyUsage=serverAuth\n' >"$work/wrong.ext"
openssl x509 -req -in "$work/wrong.csr" -CA "$fx/ca.pem" -CAkey "$fx/ca.key" \
  -set_serial 0x$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n') -days 2 \
  -extfile "$work/wrong.ext" -out "$work/wrong.pem" 2>/dev/null
python3 "$src/tests/fixtures/mirror.py" --root "$fx/www" --cert "$work/wrong.pem" \
  --key "$work/wrong.key" --port-file "$work/port2" --log "$work/requests2.log" 2>/dev/null &
extra_pids+=($!)
for _ in $(seq 100); do [ -s "$work/port2" ] && break; sleep 0.1; done
run "${inst[@]}" "${opts[@]}" --mirror "https://127.0.0.1:$(cat "$work/port2")/pbs"
refused "wrong hostname" 4 'certificate verification failed'
check "wrong hostname: the message names the host mismatch" grep -qiE 'host ?name' "$work/err"
check "wrong hostname: no request reached the server" [ ! -s "$work/requests2.log" ]
check "wrong hostname: not retried" absent_retry
check "certificates: no partial file" downloads_empty

# --- a short body: every try gets 1 MB more; the prefix is kept ----------
run "${inst[@]}" "${opts[@]}" --mirror "$mirror?fault=short:1000000&case=short"
refused "short body" 4 'after 4 attempts'
check "short body: the partial holds 4 MB" [ "$(stat -c %s "$partial" 2>/dev/null)" = 4000000 ]
check "short body: the partial is a prefix of the archive" is_prefix
: >"$work/requests.log"
run "${inst[@]}" "${opts[@]}" --mirror "$mirror"
installed "after a short body"
check "after a short body: the next run resumed at 4000000" grep -q 'range=bytes=4000000-' "$work/requests.log"

# --- a body longer than the pinned size is cut off -----------------------
sed "s/size: .*/size: $((size - 1000))/" "$fx/pins.yaml" >"$work/pins-small.yaml"
run "${inst[@]}" --box-root "$box" --pins "$work/pins-small.yaml" --cacert "$fx/ca.pem" --mirror "$mirror"
refused "longer than the pin" 4 "exceeds the cap of $((size - 1000)) bytes"
check "longer than the pin: nothing kept" downloads_empty

# --- a redirect to plain http is refused; to https it is followed --------
run "${inst[@]}" "${opts[@]}" --mirror "$mirror?fault=redirect:http&case=redir"
refused "redirect to http" 4 'redirected to http://127\.0\.0\.1.*https only'
check "redirect to http: not followed, not retried" [ "$(gets 'case=redir')" -eq 1 ]
check "redirect to http: nothing kept" downloads_empty
run "${inst[@]}" "${opts[@]}" --mirror "$mirror?fault=redirect:https"
installed "redirect to https"

# --- a server that ignores Range: the download starts over ---------------
prefix 2000000
: >"$work/requests.log"
run "${inst[@]}" "${opts[@]}" --mirror "$mirror?fault=ignore_range"
installed "server ignores Range"
check "ignores Range: a Range was asked" grep -q 'range=bytes=2000000-' "$work/requests.log"
check "ignores Range: the install log says so" grep -q 'ignored the range' "$(last_log)"

# --- 416 and oversized partials ------------------------------------------
cp "$archive" "$partial"
: >"$work/requests.log"
run "${inst[@]}" "${opts[@]}" --mirror "$mirror"
installed "complete partial (416)"
check "complete partial: one request, nothing downloaded" \
  eval '[ "$(grep -c GET "$work/requests.log")" -eq 1 ] && grep -q "range=bytes=$size-" "$work/requests.log"'
{ cat "$archive"; printf 'trailing junk'; } >"$partial"
: >"$work/requests.log"
run "${inst[@]}" "${opts[@]}" --mirror "$mirror"
installed "partial longer than the pinned size"
check "longer than the pin: dropped before asking, one request from zero" \
  eval '[ "$(grep -c GET "$work/requests.log")" -eq 1 ] && grep -q "range=-" "$work/requests.log"'
# Without a pinned size only the server can say the partial is too long.
grep -v '^ *size:' "$fx/pins.yaml" >"$work/pins-nosize.yaml"
{ cat "$archive"; printf 'trailing junk'; } >"$partial"
: >"$work/requests.log"
run "${inst[@]}" --box-root "$box" --pins "$work/pins-nosize.yaml" --cacert "$fx/ca.pem" --mirror "$mirror"
installed "oversized partial, no pinned size (416)"
check "416: a Range past the end, then the file from zero" \
  eval 'grep -q "range=bytes=$((size + 13))-" "$work/requests.log" && grep -q "range=-" "$work/requests.log"'

# --- finding 4: a captive portal's 200 is never kept ---------------------
run "${inst[@]}" "${opts[@]}" --mirror "$mirror?fault=portal"
refused "captive portal" 4 'HTTP 200 .*not the archive'
check "captive portal: nothing kept" downloads_empty
: >"$work/requests.log"
run "${inst[@]}" "${opts[@]}" --mirror "$mirror"
installed "the first run after the portal"
check "after the portal: one request, from zero" \
  eval '[ "$(grep -c GET "$work/requests.log")" -eq 1 ] && grep -q "range=-" "$work/requests.log"'
prefix 2000000
run "${inst[@]}" "${opts[@]}" --mirror "$mirror?fault=portal"
refused "captive portal over a partial" 4 'not the archive'
check "captive portal: the earlier partial is untouched" \
  eval '[ "$(stat -c %s "$partial")" = 2000000 ] && is_prefix'
: >"$work/requests.log"
run "${inst[@]}" "${opts[@]}" --mirror "$mirror"
installed "after the portal, the partial resumed"
check "the partial resumed at 2000000" grep -q 'range=bytes=2000000-' "$work/requests.log"
# A partial with a bad head (an older pyrt's portal page, say): one run.
head -c 3000 /dev/zero >"$partial"
: >"$work/requests.log"
run "${inst[@]}" "${opts[@]}" --mirror "$mirror"
installed "a bad head is fetched again from zero"
check "bad head: resumed, then one request from zero" \
  eval 'grep -q "range=bytes=3000-" "$work/requests.log" && [ "$(grep -c "range=-" "$work/requests.log")" -eq 1 ]'
check "bad head: stderr says why" grep -q 'downloading it again from the start' "$work/err"

# --- loop: resets at random offsets, each resumed in the same run --------
iters=${PYRT_FAULT_ITERATIONS:-5}
t0=$SECONDS
good=0
for ((i = 1; i <= iters; i++)); do
  # At least 1 MB in: a reset drops what sits unread in the socket, and
  # the resume must have something to continue.
  at=$(( 1000000 + (RANDOM * 32768 + RANDOM) % (size - 2000000) ))
  run "${inst[@]}" "${opts[@]}" --mirror "$mirror?fault=once_reset_after:$at&round=$i"
  if rc_is 0 && [ "$(gets "round=$i range=bytes=[1-9]")" -eq 1 ] && verifies &&
     staging_empty && downloads_empty; then
    good=$((good + 1))
  else
    echo "# round $i: reset after $at bytes: rc $rc"
  fi
done
check "resets at $iters random offsets: every run resumed and installed ($good/$iters)" [ "$good" -eq "$iters" ]
echo "# $iters reset rounds took $((SECONDS - t0)) s"

e2e_finish
