# The body of pyrt's zsh completion.  `pyrt completions zsh` prints
# "#compdef pyrt" and the command table's words first (_pyrt_cmds,
# _pyrt_global_opts, _pyrt_command_opts, _pyrt_value_opts, _pyrt_value_kind:
# cli/completions.c), then this file, embedded at build time.  It reads
# folders only and never runs pyrt.

_pyrt() {
  local cur=${words[CURRENT]} opt=${words[CURRENT-1]}
  if [[ $cur == --*=* ]]; then
    opt=${cur%%=*}
    compset -P '*='
  fi
  case ${_pyrt_value_kind[$opt]} in
    file) _files; return ;;
    dir) _files -/; return ;;
    text) _message ${_pyrt_value_help[$opt]}; return ;;
    theme)
      local -a dirs themes
      [[ -n $PYRT_THEME_DIR ]] && dirs+=($PYRT_THEME_DIR)
      (( $+commands[pyrt] )) && dirs+=(${commands[pyrt]:h}/../share/pyrt/themes)
      themes=(${^dirs}/*.yaml(N-.:t:r))
      compadd -a themes
      return ;;
  esac

  local i w cmd='' box=''
  local -a args
  for (( i = 2; i < CURRENT; i++ )); do
    w=${words[i]}
    case $w in
      --box-root) box=${words[i+1]}; (( i++ )) ;;
      --box-root=*) box=${w#*=} ;;
      --*=*) ;;
      -*) [[ $w == (${~_pyrt_value_opts}) ]] && (( i++ )) ;;
      *) if [[ -z $cmd ]]; then cmd=$w; else args+=($w); fi ;;
    esac
  done

  if [[ $cur == -* ]]; then
    compadd -- $_pyrt_global_opts ${=_pyrt_command_opts[${cmd:-none}]}
    return
  fi
  case $cmd in
    '') compadd -a _pyrt_cmds ;;
    help) (( $#args == 0 )) && compadd -a _pyrt_cmds ;;
    mirror) (( $#args == 0 )) && _files -/ ;;
    completions) (( $#args == 0 )) && compadd bash zsh fish ;;
    plugins)
      if (( $#args == 0 )); then
        compadd install
      elif [[ $args[1] == install && $#args -eq 1 ]]; then
        [[ -z $box ]] && box=${PYRT_BOX_ROOT:-${XDG_DATA_HOME:-$HOME/.local/share}/pyrt}
        [[ $box == '~'* ]] && box=$HOME${box#\~}
        local -a plugins=($box/plugins/*/plugin.yaml(N-.:h:t))
        compadd -a plugins
      fi ;;
  esac
}

_pyrt "$@"
