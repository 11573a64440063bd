#!/usr/bin/env bash
# ctest: e2e_command_table
# A command declared once (issue 27.3): every command and every option of
# pyrt's own tables (cli/commands.c, cli/parse.c, read through a test
# hook, not a copy) is named by the man page (docs/pyrt.1.scd), by each
# shell's completion (`pyrt completions bash|zsh|fish`) and by the README.
# A row added to a table without them fails here.
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
  if [ "$kind" = command ]; then
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
e2e_finish
