# shellcheck shell=bash disable=SC2207,SC2209,SC2088  # COMPREPLY=($(compgen)) is the idiom (IFS set where names may hold spaces); "file" is a word here; "~" is matched, not expanded
# The body of pyrt's bash completion.  `pyrt completions bash` prints the
# command table's words first (_pyrt_commands, _pyrt_global_opts,
# _pyrt_command_opts, _pyrt_value_kind: cli/completions.c), then this file,
# embedded at build time.  It reads folders only and never runs pyrt, so it
# is fast and silent on a missing or unreadable box.
# tests/e2e_completion.sh drives it; e2e_docs_sync and e2e_command_table
# check that it offers what the table and `pyrt --help` say.

# The box root the command line names, else the one pyrt would use.
_pyrt_box_root() {
  local i w box=""
  for ((i = 1; i < ${#COMP_WORDS[@]}; i++)); do
    w=${COMP_WORDS[i]}
    if [[ $w == --box-root && $i -lt $COMP_CWORD ]]; then
      box=${COMP_WORDS[i + 1]}
      [[ $box == = ]] && box=${COMP_WORDS[i + 2]}
    elif [[ $w == --box-root=* ]]; then
      box=${w#--box-root=}
    fi
  done
  [[ -z $box ]] && box=${PYRT_BOX_ROOT:-}
  [[ -z $box ]] && box=${XDG_DATA_HOME:-$HOME/.local/share}/pyrt
  [[ $box == "~" || $box == "~/"* ]] && box=$HOME${box#\~}
  REPLY=$box
}

# The names of <box>/plugins/*/plugin.yaml, in the array PYRT_NAMES.
_pyrt_plugin_names() {
  local f
  _pyrt_box_root
  PYRT_NAMES=()
  for f in "$REPLY"/plugins/*/plugin.yaml; do
    [[ -f $f ]] || continue
    f=${f%/plugin.yaml}
    PYRT_NAMES+=("${f##*/}")
  done 2>/dev/null
}

# Where pyrt looks: $PYRT_THEME_DIR, then share/pyrt/themes next to its bin.
_pyrt_theme_names() {
  local bin dir f dirs=()
  [[ -n ${PYRT_THEME_DIR:-} ]] && dirs+=("$PYRT_THEME_DIR")
  bin=$(type -P pyrt 2>/dev/null)
  [[ -n $bin ]] && dirs+=("${bin%/*}/../share/pyrt/themes")
  for dir in "${dirs[@]}"; do
    for f in "$dir"/*.yaml; do
      [[ -f $f ]] || continue
      f=${f##*/}
      printf '%s\n' "${f%.yaml}"
    done
  done 2>/dev/null | sort -u
}

_pyrt_values() { # kind cur
  local IFS=$'\n'
  case $1 in
    file)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -f -- "$2")) ;;
    dir)
      compopt -o filenames 2>/dev/null
      COMPREPLY=($(compgen -d -- "$2")) ;;
    theme) COMPREPLY=($(compgen -W "$(_pyrt_theme_names)" -- "$2")) ;;
    *) COMPREPLY=() ;;
  esac
}

_pyrt() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev="" prev2=""
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  ((COMP_CWORD > 1)) && prev2=${COMP_WORDS[COMP_CWORD - 2]}
  COMPREPLY=()

  # A value: "--opt VALUE", "--opt=VALUE" (bash splits at "=").
  local REPLY
  if [[ $cur == = ]]; then
    _pyrt_value_kind "$prev"; cur=""
  elif [[ $prev == = ]]; then
    _pyrt_value_kind "$prev2"
  elif [[ $cur == --*=* ]]; then
    _pyrt_value_kind "${cur%%=*}"; cur=${cur#*=}
  else
    _pyrt_value_kind "$prev"
  fi
  if [[ $REPLY != none ]]; then
    _pyrt_values "$REPLY" "$cur"
    return 0
  fi

  # The command word and the words after it, skipping option values.
  local i w cmd="" args=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    case $w in
      =) ((i++)) ;; # the value after "--opt="
      -*) _pyrt_value_kind "$w"
        [[ $REPLY != none && ${COMP_WORDS[i + 1]} != = ]] && ((i++)) ;;
      *) if [[ -z $cmd ]]; then cmd=$w; else args+=("$w"); fi ;;
    esac
  done

  if [[ $cur == -* ]]; then
    _pyrt_command_opts "$cmd"
    COMPREPLY=($(compgen -W "$_pyrt_global_opts $REPLY" -- "$cur"))
    return 0
  fi
  case $cmd in
    "") COMPREPLY=($(compgen -W "$_pyrt_commands" -- "$cur")) ;;
    mirror) ((${#args[@]} == 0)) && _pyrt_values dir "$cur" ;;
    completions) ((${#args[@]} == 0)) && COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")) ;;
    help) ((${#args[@]} == 0)) && COMPREPLY=($(compgen -W "$_pyrt_commands" -- "$cur")) ;;
    plugins)
      if ((${#args[@]} == 0)); then
        COMPREPLY=($(compgen -W "install" -- "$cur"))
      elif [[ ${args[0]} == install && ${#args[@]} -eq 1 ]]; then
        local PYRT_NAMES n
        _pyrt_plugin_names
        for n in "${PYRT_NAMES[@]}"; do
          [[ $n == "$cur"* ]] && COMPREPLY+=("$n")
        done
      fi ;;
  esac
  return 0
}
complete -F _pyrt pyrt
