#!/usr/bin/env bash
# ctest: e2e_command_table
# A command declared once (issue 27.3): every command and every option of
# pyrt's own tables (cli/commands.c, cli/parse.c, read through a test
# hook, not a copy) is named by the man page (docs/pyrt.1.scd), by each
# shell's completion (`pyrt completions bash|zsh|fish`) and by the README.
# A row added to a table without them fails here.
# Each row has a handler, a -h line and a usage, and names only options the
# option table has; for every command, the parser (run alone through
# PYRT_TEST_PARSE_ONLY) accepts exactly the own options its usage prints as
# option lines, and its synopsis names no option the parser refuses.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup command_table
PYRT_TEST_COMMAND_TABLE=1 "$pyrt" >"$work/table"
check "the tables list commands and options (a test-hooks build)" \
  eval '[ "$(grep -c "^command " "$work/table")" -ge 15 ] && [ "$(grep -c "^option " "$work/table")" -ge 25 ]'
for sh in bash zsh fish; do "$pyrt" completions $sh >"$work/compl.$sh"; done
scd=$src/docs/pyrt.1.scd readme=$src/README.md

# named FILE WORD: WORD stands in FILE as a word of its own.
named() { grep -qE -- "(^|[^a-z-])$2([^a-z-]|\$)" "$1"; }
while read -r kind name short; do
  if [ "$kind" != command ] && [ "$kind" != option ]; then
    continue
  elif [ "$kind" = command ]; then
    check "man page: *$name* in COMMANDS" grep -qE "^\*$name\*" "$scd"
    check "README: pyrt $name" named "$readme" "pyrt $name"
    for sh in bash zsh; do check "$sh completion: $name" named "$work/compl.$sh" "$name"; done
    check "fish completion: $name" grep -q -- "-a $name " "$work/compl.fish"
  else
    check "man page: *$name*" grep -qF -- "*$name*" "$scd"
    check "README: $name" named "$readme" "$name"
    for sh in bash zsh; do check "$sh completion: $name" named "$work/compl.$sh" "$name"; done
    check "fish completion: -l ${name#--}" grep -qE -- "-l ${name#--}( |\$)" "$work/compl.fish"
    if [ -n "$short" ]; then
      check "man page: *$short*" grep -qF -- "*$short*" "$scd"
      check "README: $short" named "$readme" "$short"
      for sh in bash zsh; do check "$sh completion: $short" named "$work/compl.$sh" "$short"; done
      check "fish completion: -s ${short#-}" grep -q -- "-s ${short#-} " "$work/compl.fish"
    fi
  fi
done <"$work/table"

# --- each row: a handler, a -h line, a usage; only known options --------
while read -r kind name run summary usage pins; do
  [ "$kind" = row ] || continue
  check "$name: a handler, a -h line and a usage" \
    [ "$run $summary $usage" = "run=1 summary=1 usage=1" ]
  [ "$pins" = pins=1 ] && echo "$name" >>"$work/pins-rows"
done <"$work/table"

# --- prepared once: a row that needs the pins gets them from cli_run -----
# Pins that do not parse stop each such command before it does anything:
# exit 11 naming the file, on stderr (install and baseline through their
# front), the box left as it was.
check "rows say they need the pins" [ "$(wc -l <"$work/pins-rows")" -ge 8 ]
printf 'x: [\n' >"$work/bad-pins.yaml"
mkdir -p "$work/wh" "$work/box"
chmod 700 "$work/wh"
while read -r c; do
  case $c in
  mirror) args=("$work/mirror") ;;
  lock) args=(--wheelhouse "$work/wh") ;;
  plugins) args=() ;;
  *) args=(--yes) ;;
  esac
  rc=0
  "$pyrt" "$c" "${args[@]}" --box-root "$work/box" --pins "$work/bad-pins.yaml" \
    </dev/null >"$work/out.$c" 2>"$work/err.$c" || rc=$?
  check "pyrt $c with unreadable pins: exit 11 naming the file (got $rc)" \
    eval '[ $rc = 11 ] && grep -q "bad-pins.yaml" "$work/err.$c"'
done <"$work/pins-rows"
check "... and no runtime, lock or log was made" \
  eval '[ -z "$(find "$work/box" -mindepth 1 -name "installs" -o -mindepth 1 -name "*.log" | head -1)" ]'

check "every option a row lists is in the option table" \
  eval '! grep "^unknown " "$work/table"'

# --- usage == what the parser accepts ------------------------------------
# help and version print and exit: they take every option.
awk '$1 == "opt"' "$work/table" >"$work/opts"
check "the table has own options" grep -q " own$" "$work/opts"
while read -r kind c; do
  [ "$kind" = command ] || continue
  case $c in help | version) continue ;; esac
  "$pyrt" help "$c" >"$work/usage.$c" 2>&1
  # the synopsis: "usage:" and the lines under it, up to the description
  awk 'NR == 1 || (/^ +(\[|pyrt )/ && !done) { print; next } { done = 1 }' \
    "$work/usage.$c" >"$work/synopsis.$c"
  before=$fail
  while read -r _ opt metavar scope; do
    value=; [ "$metavar" = - ] || value=x
    out=$(PYRT_TEST_PARSE_ONLY=1 "$pyrt" "$c" "$opt" $value 2>&1)
    if printf '%s\n' "$out" | grep -q "does not apply to"; then accepted=0; else accepted=1; fi
    if grep -qE -- "^  (-[a-zA-Z], )?$opt( |\$)" "$work/usage.$c"; then listed=1; else listed=0; fi
    if grep -qE -- "(^|[^a-z-])$opt([^a-z-]|\$)" "$work/synopsis.$c"; then named=1; else named=0; fi
    if [ "$scope" = own ]; then
      [ "$accepted" = "$listed" ] ||
        bad "pyrt $c $opt: the parser $([ $accepted = 1 ] && echo accepts || echo refuses) it, its usage $([ $listed = 1 ] && echo lists || echo "does not list") it"
    fi
    [ "$named" = 0 ] || [ "$accepted" = 1 ] ||
      bad "pyrt $c: the synopsis names $opt, which the parser refuses"
  done <"$work/opts"
  [ "$fail" = "$before" ] && ok "pyrt $c: its usage lists exactly the options the parser takes"
done <"$work/table"

# --- the options a printed fix repeats (app/fix.c) == what the parser takes
# app/ cannot read cli/'s rows, so it keeps its own short list of which
# command takes which repeated option; a fix naming an option its command
# refuses would be a usage error, and one dropping an option the command
# takes would send the operator to another box or index.
before=$fail
grep "^fix " "$work/table" >"$work/fix" || true
check "the fix table is printed (a test-hooks build)" \
  eval '[ "$(wc -l <"$work/fix")" -ge 100 ]'
while read -r _ c opt takes; do
  value=; case $opt in --force | --no-baseline) ;; *) value=x ;; esac
  out=$(PYRT_TEST_PARSE_ONLY=1 "$pyrt" "$c" "$opt" $value 2>&1)
  if printf '%s\n' "$out" | grep -q "does not apply to"; then accepted=0; else accepted=1; fi
  [ "$accepted" = "$takes" ] ||
    bad "a fix for pyrt $c $([ "$takes" = 1 ] && echo repeats || echo drops) $opt, which the parser $([ $accepted = 1 ] && echo accepts || echo refuses)"
done <"$work/fix"
[ "$fail" = "$before" ] && ok "every fix repeats exactly the options its command takes"
e2e_finish
