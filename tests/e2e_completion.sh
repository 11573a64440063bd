#!/usr/bin/env bash
# ctest e2e_completion: the bash completion (`pyrt completions bash`)
# driven as bash does it (COMP_WORDS, COMP_CWORD, then _pyrt; COMPREPLY
# checked), and the zsh one (_pyrt) called with words/CURRENT and compadd,
# _files, _message and compset stubbed to print what would be offered.
# Commands, theme names (PYRT_THEME_DIR and share/pyrt/themes next to the
# pyrt on PATH), plugin names from the box's plugins folder (--box-root,
# --box-root=, PYRT_BOX_ROOT, the XDG default), files for --from-file,
# --pins, --cacert, directories for --box-root and --wheelhouse; a missing
# box completes nothing and prints nothing.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup completion
# The completions as installed: what `pyrt completions SHELL` prints.
bashc=$work/pyrt.bash zshc=$work/_pyrt
"$pyrt" completions bash >"$bashc"
"$pyrt" completions zsh >"$zshc"

# A prefix with pyrt on PATH and its themes, a box with the sample plugins,
# a folder with a file and a subfolder to complete in.
mkdir -p "$work/prefix/bin" "$work/prefix/share/pyrt/themes" "$work/mythemes" \
         "$work/box/plugins" "$work/cwd/wheels" "$work/xdg/pyrt/plugins/xdgplug"
ln -s "$pyrt" "$work/prefix/bin/pyrt"
cp "$src"/themes/*.yaml "$work/prefix/share/pyrt/themes/"
: >"$work/mythemes/mine.yaml"
cp -r "$src/tests/fixtures/sample-box/plugins/." "$work/box/plugins/"
mkdir "$work/box/plugins/not-a-plugin" # no plugin.yaml: not offered
: >"$work/xdg/pyrt/plugins/xdgplug/plugin.yaml"
: >"$work/cwd/runtime.tar.gz"
export PATH=$work/prefix/bin:$PATH
unset PYRT_THEME_DIR
plugins=$(cd "$work/box/plugins" && ls -d */plugin.yaml | sed 's#/plugin.yaml##' | sort | tr '\n' ' ')
themes="default high-contrast monochrome solarized-dark "

# bash_comp WORDS...: COMPREPLY for the last word, sorted, on one line;
# anything the completion writes to stderr lands in $work/bash.err.
bash_comp() {
  (cd "$work/cwd" && bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
     _pyrt; printf "%s\n" "${COMPREPLY[@]}"' _ "$bashc" "$@" 2>>"$work/bash.err") |
    sed '/^$/d' | sort | tr '\n' ' '
}
# zsh_comp WORDS...: what _pyrt would offer, the same way.
zsh_comp() {
  (cd "$work/cwd" && zsh -f -c '
     # zsh itself filters by the word typed ($PREFIX); the stubs do.
     compadd() { local -a out; while (( $# )); do case $1 in
         -a) shift; out+=(${(P)1}) ;; --) shift; out+=("$@"); break ;;
         -*) ;; *) out+=($1) ;; esac; shift; done
       print -l -- ${(M)out:#${PREFIX}*} }
     _files() { if [[ $1 == -/ ]]; then print -l -- ${PREFIX}*(N/); else print -l -- ${PREFIX}*(N); fi }
     _message() { : }
     compset() { [[ $1 == -P ]] && PREFIX=${PREFIX#*=}; return 0 }
     zc=$1; shift; words=("$@"); CURRENT=$#; PREFIX=${words[CURRENT]}; source $zc' _ "$zshc" "$@" 2>>"$work/zsh.err") |
    sed '/^$/d' | sort | tr '\n' ' '
}
is() { # what want shell words...
  local want=$1 shell=$2 got; shift 2
  got=$("${shell}_comp" "$@")
  [ "$got" = "$want" ] || { echo "# $shell: $* -> '$got', expected '$want'" >&2; return 1; }
}

for sh in bash zsh; do
  if [ $sh = zsh ] && ! command -v zsh >/dev/null; then
    bad "zsh is not installed (scripts/deps.sh)"; continue
  fi
  check "$sh: commands" is "baseline completions doctor env help install lock mirror plugins rollback serve smoke status uninstall verify version " $sh pyrt ""
  check "$sh: pyrt ins<TAB> is install" is "install " $sh pyrt ins
  check "$sh: completions offers the shells" is "bash fish zsh " $sh pyrt completions ""
  check "$sh: commands by prefix" is "uninstall " $sh pyrt un
  check "$sh: options of install by prefix" is "--force --from-file " $sh pyrt install --f
  check "$sh: status's --deep after global options" is "--deep " $sh pyrt --json status --de
  check "$sh: help completes commands" is "verify version " $sh pyrt help v
  check "$sh: plugins offers install" is "install " $sh pyrt plugins ""
  check "$sh: --theme offers the installed themes" is "$themes" $sh pyrt --theme ""
  check "$sh: --theme by prefix" is "solarized-dark " $sh pyrt status --theme so
  check "$sh: --theme adds PYRT_THEME_DIR's" \
    env PYRT_THEME_DIR="$work/mythemes" bash -c "$(declare -f is bash_comp zsh_comp); $(declare -p work bashc zshc); is 'default high-contrast mine monochrome solarized-dark ' $sh pyrt --theme ''"
  check "$sh: plugins install NAME from --box-root" is "$plugins" $sh pyrt --box-root "$work/box" plugins install ""
  check "$sh: ... by prefix, box root after the command" is "careercoach cowork " $sh pyrt plugins --box-root "$work/box" install c
  check "$sh: ... from PYRT_BOX_ROOT" \
    env PYRT_BOX_ROOT="$work/box" bash -c "$(declare -f is bash_comp zsh_comp); $(declare -p work bashc zshc); is '$plugins' $sh pyrt plugins install ''"
  check "$sh: ... from the XDG default box" \
    env XDG_DATA_HOME="$work/xdg" bash -c "$(declare -f is bash_comp zsh_comp); $(declare -p work bashc zshc); is 'xdgplug ' $sh pyrt plugins install ''"
  check "$sh: a missing box completes no plugin" is "" $sh pyrt --box-root "$work/nope" plugins install ""
  check "$sh: a box that is a file completes no plugin" is "" $sh pyrt --box-root "$work/cwd/runtime.tar.gz" plugins install ""
  check "$sh: nothing after the plugin's name" is "" $sh pyrt --box-root "$work/box" plugins install cowork ""
  check "$sh: --from-file completes files" is "runtime.tar.gz " $sh pyrt install --from-file r
  check "$sh: --pins completes files" is "runtime.tar.gz wheels " $sh pyrt --pins ""
  check "$sh: --cacert completes files" is "runtime.tar.gz " $sh pyrt --cacert ru
  check "$sh: --wheelhouse completes directories only" is "wheels " $sh pyrt install --wheelhouse ""
  check "$sh: --box-root completes directories only" is "wheels " $sh pyrt --box-root ""
  check "$sh: --mirror completes nothing" is "" $sh pyrt install --mirror ""
  check "$sh: mirror DIR completes directories only" is "wheels " $sh pyrt mirror ""
  check "$sh: --wheelhouse-from completes directories only" is "wheels " $sh pyrt mirror --wheelhouse-from ""
  check "$sh: options of serve" is "--listen " $sh pyrt serve --li
  check "$sh: --token-file completes files" is "runtime.tar.gz " $sh pyrt serve --token-file ru
  check "$sh: completion wrote nothing to stderr" [ ! -s "$work/$sh.err" ]
done
# Each shell's completion names every command of the table (`pyrt -h`
# lists them from it), and binds pyrt.
"$pyrt" completions fish >"$work/pyrt.fish"
cmds=$("$pyrt" -h | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1}')
check "pyrt -h lists commands (the table's)" [ "$(echo "$cmds" | wc -l)" -ge 14 ]
for sh in bash zsh fish; do
  f=$work/pyrt.$sh; [ $sh = zsh ] && f=$zshc
  missing=
  for c in $cmds; do grep -qw -- "$c" "$f" || missing="$missing $c"; done
  check "$sh: the completion names every command (missing:${missing:- none})" [ -z "$missing" ]
done
check "bash: the completion binds _pyrt to pyrt" \
  eval '[ "$(bash -c ". \"\$1\" && complete -p pyrt" _ "$bashc")" = "complete -F _pyrt pyrt" ]'
check "zsh: the completion starts with #compdef pyrt" eval '[ "$(head -1 "$zshc")" = "#compdef pyrt" ]'
check "fish: one complete line for each command" \
  eval 'for c in $cmds; do grep -q "^complete -c pyrt -n __fish_use_subcommand -a $c " "$work/pyrt.fish" || exit 1; done'
if command -v fish >/dev/null; then
  check "fish: the completion parses" fish --no-execute "$work/pyrt.fish"
fi
check "an unknown shell is a usage error (2)" \
  eval '"$pyrt" completions tcsh >/dev/null 2>&1; [ $? -eq 2 ]'

# bash splits "--opt=value" at "=" (COMP_WORDBREAKS): both shapes.
check "bash: --theme=NAME" is "solarized-dark " bash pyrt --theme = so
check "bash: --box-root=DIR then plugins install" is "$plugins" bash pyrt --box-root = "$work/box" plugins install ""
check "bash: --wheelhouse= completes directories" is "wheels " bash pyrt install --wheelhouse =
check "zsh: --box-root=DIR then plugins install" is "$plugins" zsh pyrt --box-root="$work/box" plugins install ""

# A plugin-name completion is a folder listing, no pyrt run; its cost is
# printed for the log (a figure, not a check: speed lives in bench/).
ms=$(bash -c '. "$1"; COMP_WORDS=(pyrt --box-root "$2" plugins install ""); COMP_CWORD=5
  s=$(date +%s%N); for i in $(seq 50); do _pyrt; done
  echo $(( ($(date +%s%N) - s) / 50000 ))' _ "$bashc" "$work/box")
echo "# bash plugin-name completion: ${ms} us a call (load $(cut -d' ' -f1 /proc/loadavg))"

e2e_finish
