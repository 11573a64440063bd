#!/usr/bin/env bash
# ctest: e2e_redact_doors
# One URL-aware redactor (issue 26, door 7): doctor shows proxy variables
# through it and no longer parses them itself, so a password holding '#'
# (`HTTP_PROXY=http://u:pa#ss@127.0.0.1:9`) shows in none of doctor's text,
# its --json or the support bundle's doctor.json; on the old code doctor
# cut the URL at the '#' and showed "http://u:pa".
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup redact_doors fixtures

box=$work/box
opts=(--box-root "$box" --pins "$fx/pins.yaml")
leaks() { grep -q -e 'u:pa' -e 'pa#ss' -e '#ss@' "$1"; }
export HTTP_PROXY='http://u:pa#ss@127.0.0.1:9' https_proxy='http://u:pa/ss@127.0.0.1:9'
run doctor "${opts[@]}"
check "doctor names the proxy (its host stays)" has '127.0.0.1:9' out
check "doctor's text shows neither password" eval '! leaks "$work/out" && ! leaks "$work/err"'
run doctor "${opts[@]}" --json
check "doctor --json shows neither password" eval 'has "127.0.0.1:9" out && ! leaks "$work/out"'
run doctor "${opts[@]}" --bundle "$work/b.tar.gz"
mkdir "$work/b" && tar -xzf "$work/b.tar.gz" -C "$work/b"
check "the bundle's doctor.json names the proxy" \
  grep -rq '127.0.0.1:9' "$work/b"
check "the bundle holds neither password, in any file" \
  eval '[ -z "$(grep -rl -e "u:pa" -e "pa#ss" "$work/b")" ]'
e2e_finish
