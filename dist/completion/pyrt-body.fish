# The body of pyrt's fish completion: `pyrt completions fish` prints the
# command table's commands and options around it (cli/completions.c).  It
# reads folders only and never runs pyrt.

# Theme names: $PYRT_THEME_DIR, then share/pyrt/themes next to pyrt's bin.
function __pyrt_themes
    set -l dirs
    set -q PYRT_THEME_DIR; and set -a dirs $PYRT_THEME_DIR
    set -l bin (command -s pyrt)
    test -n "$bin"; and set -a dirs (dirname $bin)/../share/pyrt/themes
    for f in $dirs/*.yaml
        basename $f .yaml
    end 2>/dev/null
end

# Plugin names of the box the command line names, else the one pyrt uses.
function __pyrt_plugins
    set -l words (commandline -opc)
    set -l box
    for i in (seq (count $words))
        if test "$words[$i]" = --box-root; and test $i -lt (count $words)
            set box $words[(math $i + 1)]
        else if string match -q -- '--box-root=*' $words[$i]
            set box (string replace -- '--box-root=' '' $words[$i])
        end
    end
    test -z "$box"; and set -q PYRT_BOX_ROOT; and set box $PYRT_BOX_ROOT
    if test -z "$box"
        set -l data $HOME/.local/share
        set -q XDG_DATA_HOME; and set data $XDG_DATA_HOME
        set box $data/pyrt
    end
    for f in $box/plugins/*/plugin.yaml
        basename (dirname $f)
    end 2>/dev/null
end

complete -c pyrt -n '__fish_seen_subcommand_from completions' -a 'bash zsh fish'
complete -c pyrt -n '__fish_seen_subcommand_from plugins; and not __fish_seen_subcommand_from install' -a install
complete -c pyrt -n '__fish_seen_subcommand_from plugins; and __fish_seen_subcommand_from install' -a '(__pyrt_plugins)'
