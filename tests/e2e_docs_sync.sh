#!/usr/bin/env bash
# ctest e2e_docs_sync: `pyrt --help` and `pyrt help COMMAND` against the man
# page source (docs/pyrt.1.scd) and the bash and zsh completions
# (`pyrt completions bash|zsh`), both ways: a command or option the help documents must
# be in the man page (in the section of its command) and offered by the
# completions, and nothing may be there that the help does not document.
# The exit codes of the help and the man page must agree, and the Debian
# changelog must name the project's version.  Adding a command or an option
# to cli/help.c without the man page and the completions fails here.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup docs-sync

h=$work/help
mkdir -p "$h"
# The completions as installed: what `pyrt completions SHELL` prints.
scd=$src/docs/pyrt.1.scd bashc=$h/pyrt.bash zshc=$h/_pyrt
"$pyrt" completions bash >"$bashc"
"$pyrt" completions zsh >"$zshc"
"$pyrt" --help >"$h/manual" 2>&1
# The commands of the manual's COMMANDS section ("plugins install NAME" as
# "plugins install"); each one's usage from `pyrt help CMD`.
awk '/^COMMANDS/{on=1; next} /^[A-Z]/{on=0} on && /^    [a-z]/{
       sub(/^    /, ""); split($0, w, /  +| \[|$/); print w[1] }' "$h/manual" |
  sed 's/ [A-Z]*$//' >"$h/commands"
check "the manual lists commands" [ -s "$h/commands" ]

# -h is the short usage, --help the manual: both from the one command
# table (cli/commands.c), so -h lists every command the manual lists, and
# the manual has an options section for every command with options of its
# own, printed from its row as its usage prints them.
"$pyrt" -h >"$h/short" 2>&1
check "pyrt -h is short (under 30 lines), the manual is not" \
  eval '[ "$(wc -l <"$h/short")" -lt 30 ] && [ "$(wc -l <"$h/manual")" -gt 100 ]'
missing=
while read -r c; do
  grep -qE "^  ${c%% *} " "$h/short" || missing="$missing ${c%% *}"
done <"$h/commands"
check "pyrt -h lists every command of the manual (missing:${missing:- none})" [ -z "$missing" ]
check "pyrt -h points to --help" grep -q 'pyrt --help: the manual' "$h/short"
check "the manual has SERVE, ROLLBACK, UNINSTALL and LOCK OPTIONS sections" \
  eval 'grep -q "^SERVE OPTIONS" "$h/manual" && grep -q "^ROLLBACK OPTIONS" "$h/manual" &&
        grep -q "^UNINSTALL OPTIONS" "$h/manual" && grep -q "^LOCK OPTIONS" "$h/manual"'
check "... with their options" \
  eval 'sed -n "/^SERVE OPTIONS/,/^$/p" "$h/manual" | grep -q -- "--listen ADDR" &&
        sed -n "/^ROLLBACK OPTIONS/,/^$/p" "$h/manual" | grep -q -- "--force" &&
        sed -n "/^UNINSTALL OPTIONS/,/^$/p" "$h/manual" | grep -q -- "-y, --yes"'
check "pyrt rollback -h is rollback's usage" \
  eval '"$pyrt" rollback -h | head -1 | grep -q "^usage: pyrt rollback"'
while read -r c; do
  [ "$c" = "${c% *}" ] || continue # "plugins install" is in plugins' usage
  "$pyrt" help "$c" >"$h/usage.$c" 2>&1 || bad "pyrt help $c exits $?"
done <"$h/commands"

# What bash completion offers: commands, plugins' subcommands, and for each
# command (and none) the options after "--".
comp() { # words...: COMPREPLY for the last word, one a line
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
           _pyrt; printf "%s\n" "${COMPREPLY[@]}"' _ "$bashc" "$@" | sort -u
}
comp pyrt "" >"$h/bash.commands"
comp pyrt plugins "" | sed 's/^/plugins /' >>"$h/bash.commands"
comp pyrt - >"$h/bash.opts.none"
while read -r c; do
  [ "$c" = "${c% *}" ] && comp pyrt "$c" - >"$h/bash.opts.$c"
done <"$h/commands"

python3 - "$h" "$scd" "$zshc" "$src/dist/debian/changelog" "$src/CMakeLists.txt" <<'PY'
import glob, os, re, sys
h, scd_path, zsh_path, changelog, cmakelists = sys.argv[1:]
fails = 0
def check(what, ok, detail=""):
    global fails
    print(("ok - " if ok else "FAIL - ") + what + ("" if ok else ": " + detail))
    fails += not ok
def read(p):
    return open(p, encoding="utf-8").read()
OPT = r"(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])(?![\w-])"

manual = read(os.path.join(h, "manual"))
commands = set(read(os.path.join(h, "commands")).split("\n")) - {""}
# Global options: the option lines of "OPTIONS (every command ...)".
sect = re.search(r"^OPTIONS \(every command.*?\n(.*?)\n\n", manual, re.S | re.M)
glob_opts = set()
for line in sect.group(1).splitlines():
    m = re.match(r"^    ((?:-\w, )?--[a-z-]+)", line)
    if m:
        glob_opts |= set(re.findall(OPT, m.group(1)))
# Each command's own options: its usage lines (up to the first line that
# is not a usage line) and its option lines ("  -y, --yes   ...").
cmd_opts = {}
for p in glob.glob(os.path.join(h, "usage.*")):
    c = p.rsplit(".", 1)[1]
    opts, usage = set(), True
    for line in read(p).splitlines():
        if usage and (line.startswith("usage:") or re.match(r"^\s+(\[|pyrt )", line)):
            opts |= set(re.findall(OPT, re.sub(r"\(also:.*", "", line)))
            continue
        usage = False
        m = re.match(r"^  ((?:-\w, )?--[a-z-]+)", line)
        if m:
            opts |= set(re.findall(OPT, m.group(1)))
    cmd_opts[c] = opts - glob_opts
# pyrt with no command takes the options its usage (APP_CMD_NONE) lists in
# the manual's synopsis of `pyrt` on a terminal: the install options + --deep.
none_opts = cmd_opts.get("install", set()) | cmd_opts.get("status", set())
# ... but --dry-run, which only the install command takes (the wizard asks
# before it does anything).
none_opts -= {"--dry-run"}
check("the manual has global options", len(glob_opts) >= 10, str(glob_opts))
check("every command has a usage", all(c.split()[0] in cmd_opts for c in commands),
      str(commands - set(cmd_opts)))

# --- the man page source -------------------------------------------------
scd = read(scd_path)
sections = re.split(r"^# ", scd, flags=re.M)
def section(title):
    for s in sections:
        if s.startswith(title + "\n"):
            return s
    return ""
man_cmds = set(re.findall(r"^\*([a-z][a-z ]*)\*", section("COMMANDS"), re.M))
check("man page COMMANDS == help's", man_cmds == commands,
      "only in help: %s; only in man: %s" % (sorted(commands - man_cmds), sorted(man_cmds - commands)))
def defined(text):  # options on the definition lines (column 0, bold)
    out = set()
    for line in text.splitlines():
        if line.startswith("*-"):
            out |= set(re.findall(OPT, line))
    return out
man_glob = defined(section("OPTIONS"))
check("man page OPTIONS == help's global options", man_glob == glob_opts,
      "only in help: %s; only in man: %s" % (sorted(glob_opts - man_glob), sorted(man_glob - glob_opts)))
man_cmd_opts = {}
for s in sections:
    m = re.match(r"([A-Z][A-Z ]*) OPTIONS\n", s)
    if m:
        for word in m.group(1).lower().split():
            if word != "and":
                man_cmd_opts[word] = defined(s)
for c in sorted(cmd_opts):
    want, got = cmd_opts[c], man_cmd_opts.get(c, set())
    check("man page's options of %s == help's" % c, want == got,
          "only in help: %s; only in man: %s" % (sorted(want - got), sorted(got - want)))
check("man page: no options section for a command help does not have",
      set(man_cmd_opts) <= set(cmd_opts), str(set(man_cmd_opts) - set(cmd_opts)))
codes_help = set(re.findall(r"^\s+(\d+)  ", manual.split("EXIT CODES", 1)[1].split("EXAMPLES")[0], re.M))
codes_man = set(re.findall(r"^\|\s+(\d+)$", section("EXIT STATUS"), re.M))
check("man page exit codes == help's", codes_help == codes_man and codes_help,
      "help %s, man %s" % (sorted(codes_help), sorted(codes_man)))

# --- bash completion (as offered by driving it) --------------------------
def lines(p):
    return set(read(p).split("\n")) - {""} if os.path.exists(p) else set()
bash_cmds = lines(os.path.join(h, "bash.commands"))
check("bash completes help's commands", bash_cmds == commands,
      "only in help: %s; only in bash: %s" % (sorted(commands - bash_cmds), sorted(bash_cmds - commands)))
for c in sorted(cmd_opts) + ["none"]:
    want = glob_opts | (none_opts if c == "none" else cmd_opts[c])
    got = lines(os.path.join(h, "bash.opts." + c))
    check("bash completes the options of %s" % c, want == got,
          "only in help: %s; only in bash: %s" % (sorted(want - got), sorted(got - want)))

# --- zsh completion (its tables) -----------------------------------------
z = read(zsh_path)
zc = set(re.search(r"pyrt_cmds=\(([^)]*)\)", z).group(1).split())
zc |= {"plugins install"} if re.search(r"compadd install\b", z) else set()
check("zsh completes help's commands", zc == commands,
      "only in help: %s; only in zsh: %s" % (sorted(commands - zc), sorted(zc - commands)))
zg = set(re.search(r"global_opts=\(([^)]*)\)", z).group(1).split())
check("zsh's global options == help's", zg == glob_opts,
      "only in help: %s; only in zsh: %s" % (sorted(glob_opts - zg), sorted(zg - glob_opts)))
ztab = dict(re.findall(r"^\s+([a-z]+) '([^']*)'$", z.split("command_opts=(", 1)[1].split(")", 1)[0], re.M))
for c in sorted(cmd_opts) + ["none"]:
    want = none_opts if c == "none" else cmd_opts[c]
    got = set(ztab.get(c, "").split())
    check("zsh's options of %s == help's" % c, want == got,
          "only in help: %s; only in zsh: %s" % (sorted(want - got), sorted(got - want)))
check("zsh: no options for a command help does not have",
      set(ztab) <= set(cmd_opts) | {"none"}, str(set(ztab) - set(cmd_opts)))

# --- the Debian changelog names the version CMake builds -----------------
ver = re.search(r"project\(pyrt VERSION ([0-9.]+)", read(cmakelists)).group(1)
top = read(changelog).split("\n", 1)[0]
check("debian changelog's first entry is %s" % ver, top.startswith("pyrt (%s)" % ver), top)
sys.exit(1 if fails else 0)
PY
py=$?
if [ $py -eq 0 ]; then ok "help, man page and completions agree"; else bad "help, man page and completions disagree"; fi
e2e_finish
