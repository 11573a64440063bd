# The tmux helpers the TUI end-to-end scripts share (tests/e2e_tui*.sh),
# sourced after lib/e2e.sh's e2e_setup: pyrt in a private tmux server
# ($sock) at a fixed size, its screen as text, waits with deadlines.
# shellcheck shell=bash disable=SC2034
command -v tmux >/dev/null || { echo "FAIL - tmux is not installed (scripts/deps.sh)"; exit 1; }
sock=pyrt-test-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null; e2e_cleanup' EXIT

# The screens are checked in a UTF-8 locale (box drawing and glyphs); the
# LANG=C cases set their own.  Nothing from the caller's tmux or theme setup.
unset TMUX TMUX_PANE PYRT_THEME_DIR NO_COLOR
export LANG=C.UTF-8 LC_ALL=C.UTF-8

T() { tmux -L "$sock" "$@"; }

# start NAME [VAR=value...] -- pyrt-args...: pyrt in a new session of
# $size (COLSxROWS, default 100x30); its exit status lands in $work/NAME.rc.
start() {
  local name=$1 geom=${size:-100x30}; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  {
    printf 'cd %q || exit 1\n' "$work"
    printf 'env'; printf ' %q' "${envs[@]}" "$pyrt" "$@"; printf '\n'
    printf 'echo $? >%q\n' "$work/$name.rc"
  } >"$work/$name.run"
  rm -f "$work/$name.rc"
  # One command list: tmux runs it whole before it reaps the child, so a
  # pyrt that exits at once still leaves its pane (and last screen) behind.
  T new-session -d -x "${geom%x*}" -y "${geom#*x}" -s "$name" "bash $work/$name.run" \; \
    set-option -t "$name" remain-on-exit on >/dev/null 2>&1
}

# The screen now, as text (plain) or with its SGR escapes (-e).
screen() { T capture-pane -p -t "$1" "${@:2}"; }

# screen_still NAME FILE [-e]: the screen into FILE once two reads 0.2 s
# apart agree (5 s at most, then the last read): a capture kept for a
# later comparison must not be half a frame.
screen_still() {
  local i
  screen "$1" "${@:3}" >"$2" 2>/dev/null
  for ((i = 0; i < 25; i++)); do
    sleep 0.2
    screen "$1" "${@:3}" >"$2.next" 2>/dev/null
    cmp -s "$2" "$2.next" && break
    mv "$2.next" "$2"
  done
  rm -f "$2.next"
}

# settle NAME ERE: after a read that matched, the pane read again until
# two reads 20 ms apart agree (at most 5 more reads, ~0.1 s); $work/screen
# keeps the last read that still matched.  tmux shows a redraw as the pty
# delivers it, so one read can hold the new title and not yet the buttons
# below (CI run 16: "Install cancelled" without "[ Retry ]").  A screen
# that keeps changing (a progress bar, a spinner) never agrees: the wait is
# kept short so that it does not move on past the state that matched.
settle() {
  local i
  for ((i = 0; i < 5; i++)); do
    sleep 0.02
    screen "$1" >"$work/screen.next" 2>/dev/null
    cmp -s "$work/screen" "$work/screen.next" && return 0
    grep -qE -- "$2" "$work/screen.next" || return 0
    mv "$work/screen.next" "$work/screen"
  done
}

# wait_for NAME SECONDS ERE: poll the screen every 0.1 s until it matches,
# then let it settle; on a timeout the last screen goes to stderr.  NAME
# becomes the pane the checks below read again (last_pane).
last_pane=
wait_for() {
  local name=$1 secs=$2 re=$3 i
  last_pane=$name
  for ((i = 0; i < secs * 10; i++)); do
    screen "$name" >"$work/screen" 2>/dev/null
    if grep -qE -- "$re" "$work/screen"; then
      settle "$name" "$re"
      return 0
    fi
    sleep 0.1
  done
  echo "# timed out after ${secs}s waiting for /$re/ on $name; the screen:" >&2
  sed 's/^/# | /' "$work/screen" >&2
  return 1
}

# on_screen CMD...: CMD (a test of $work/screen) holds on the last screen
# wait_for read or, failing that, on a fresh read of the same pane within
# ON_SCREEN_S seconds (default 5).  settle's two equal reads 20 ms apart
# do not prove a redraw is over: on a loaded machine pyrt or tmux can be
# off the CPU for longer than that between two parts of one frame, and
# the read that matched the wait may lack the rows drawn after it.  A check
# for what is absent (! shows X) still answers at once when X is absent
# only after the deadline, so keep those few.
on_screen() {
  local i
  "$@" && return 0
  [ -n "$last_pane" ] || return 1
  for ((i = 0; i < ${ON_SCREEN_S:-5} * 10; i++)); do
    sleep 0.1
    screen "$last_pane" >"$work/screen.again" 2>/dev/null || continue
    mv "$work/screen.again" "$work/screen"
    "$@" 2>/dev/null && return 0
  done
  "$@"
}

# select_row NAME ERE [TRIES]: press j in pane NAME until its screen
# matches ERE (the selected row's detail line), at most TRIES (12) times.
# After each j the screen is read until it has changed (5 s at most), so a
# slow redraw never makes it press j again past the row it wants.
select_row() {
  local name=$1 re=$2 n=${3:-12} k i
  last_pane=$name
  for ((k = 0; k <= n; k++)); do
    screen "$name" >"$work/screen"
    grep -qE -- "$re" "$work/screen" && return 0
    [ "$k" -lt "$n" ] || break
    T send-keys -t "$name" j
    for ((i = 0; i < 50; i++)); do
      sleep 0.1
      screen "$name" >"$work/screen.next"
      cmp -s "$work/screen" "$work/screen.next" || break
    done
  done
  echo "# no row matching /$re/ on $name after $n moves; the screen:" >&2
  sed 's/^/# | /' "$work/screen" >&2
  return 1
}

# The last screen wait_for read has this text (fixed string).
shows() { on_screen grep -qF -- "$1" "$work/screen"; }
# lacks TEXT: the screen now has no TEXT (no waiting: absence is final
# only when the screen is, so read after a wait_for that settled it).
lacks() { ! grep -qF -- "$1" "$work/screen"; }
# shows_field LABEL VALUE: a consent row's value, joined over the rows it
# wraps onto (its continuation rows are blank under the label), is VALUE.
shows_field() { on_screen shows_field_now "$@"; }
shows_field_now() {
  local got
  if ! got=$(field_value "$1"); then
    echo "# no $1 row on the screen" >&2
    return 1
  fi
  [ "$got" = "$2" ] && return 0
  echo "# $1 shows '$got', expected '$2'" >&2
  return 1
}
shows_re() { on_screen grep -qE -- "$1" "$work/screen"; }
# field_value LABEL: a row's value on the last screen read, joined over
# the rows it wraps onto (continuation rows are blank under the label).
field_value() {
  python3 - "$work/screen" "$1" <<'EOF'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
label = sys.argv[2]
for i, line in enumerate(lines):
    at = line.find(label + "  ")
    if at < 0:
        continue
    col = at + len(label)
    while col < len(line) and line[col] == " ":
        col += 1
    def value(l):
        return l[col:].rstrip().rstrip("│|").rstrip()
    got = value(line)
    for nxt in lines[i + 1:]:
        if nxt[:col].strip(" │|") or not value(nxt):
            break
        got += value(nxt)
    print(got)
    sys.exit(0)
sys.exit(1)
EOF
}

# dialog_text TITLE [rows]: the text inside the dialog titled TITLE on the
# last screen read, its rows joined with spaces (with "rows": one row a
# line, as drawn).  The box is found by display
# column, not by character: a wide character (two columns, one character
# in the capture) in the title, in a row or beside the box would otherwise
# shift the cut, and "日本語ツール" split over two rows read back as
# "日 ツール".
dialog_text() {
  python3 - "$work/screen" "$@" <<'EOF'
import sys, unicodedata
def width(c):
    return 2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1
def cells(line):
    """One entry per column: a wide character, then "" for its second
    column; a combining mark stays with its character."""
    out = []
    for c in line:
        if width(c) == 0 and out:
            out[-1] += c
            continue
        out.append(c)
        if width(c) == 2:
            out.append("")
    return out
def column(line, index):
    return sum(width(c) for c in line[:index])
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
for i, line in enumerate(lines):
    at = line.find("┌─ " + sys.argv[2])
    if at < 0:
        continue
    left, right = column(line, at), column(line, line.find("┐", at))
    out = []
    for l in lines[i + 1:]:
        row = cells(l)
        if row[left:left + 1] == ["└"]:
            break
        out.append("".join(row[left + 1:right]).strip())
    if sys.argv[3:] == ["rows"]:
        print("\n".join(out))
    else:
        print(" ".join(w for w in " ".join(out).split()))
    sys.exit(0)
sys.exit(1)
EOF
}

# dialog_whole NAME TITLE: the whole text of the dialog TITLE in pane NAME,
# its rows joined with spaces, also when it is longer than the screen: the
# rows past "Up/Down scroll (A-B of N)" are read by pressing Down one row at
# a time, and Up as often afterwards, so the dialog is left as it was.
dialog_whole() {
  local name=$1 title=$2 hint a b n i rows
  screen "$name" >"$work/screen" || return 1
  rows=$(dialog_text "$title" rows) || return 1
  hint=$(grep -o 'Up/Down scroll ([0-9]*-[0-9]* of [0-9]*)' "$work/screen" | head -1)
  if [ -z "$hint" ]; then
    dialog_text "$title"
    return
  fi
  read -r a b n < <(printf '%s\n' "$hint" | tr -c '0-9\n' ' ')
  printf '%s\n' "$rows" | head -n $((b - a + 1)) >"$work/dialog.rows"
  local pressed=0
  while [ "$b" -lt "$n" ]; do
    T send-keys -t "$name" Down
    pressed=$((pressed + 1))
    for ((i = 0; i < 50; i++)); do
      screen "$name" >"$work/screen" 2>/dev/null &&
        grep -q "Up/Down scroll ($((a + 1))-$((b + 1)) of $n)" "$work/screen" && break
      sleep 0.1
    done
    [ "$i" -lt 50 ] || return 1
    a=$((a + 1)) b=$((b + 1))
    dialog_text "$title" rows | sed -n "$((b - a + 1))p" >>"$work/dialog.rows"
  done
  for ((i = 0; i < pressed; i++)); do T send-keys -t "$name" Up; done
  tr '\n' ' ' <"$work/dialog.rows" | tr -s ' ' | sed 's/^ //; s/ $//'
  echo
}

# borders_at COL: every row of a box on the last screen read (a row that
# starts with a border) ends with one at display column COL (1-based),
# wide characters counted as two.
borders_at() { on_screen borders_at_now "$@"; }
borders_at_now() {
  python3 - "$work/screen" "$1" <<'EOF'
import sys, unicodedata
def w(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else
               0 if unicodedata.combining(c) else 1 for c in s)
bad, rows = 0, 0
for l in open(sys.argv[1], encoding="utf-8").read().split("\n"):
    t = l.rstrip()
    if t.lstrip()[:1] not in ("│", "├", "┌", "└"):
        continue
    rows += 1
    if w(t) != int(sys.argv[2]):
        print("# %d columns: %r" % (w(t), t), file=sys.stderr)
        bad = 1
sys.exit(bad or not rows)
EOF
}

# text_width FILE: display columns of its widest line, blanks at either
# end left out (wide characters count two).
text_width() {
  python3 - "$1" <<'EOF'
import sys, unicodedata
w = lambda s: sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in s)
print(max([w(l.strip(" ")) for l in open(sys.argv[1], encoding="utf-8").read().split("\n")] + [0]))
EOF
}

# wait_exit NAME SECONDS: pyrt has left; its status in $rc.
wait_exit() {
  local i
  rc=
  for ((i = 0; i < $2 * 10; i++)); do
    [ -s "$work/$1.rc" ] && { rc=$(cat "$work/$1.rc"); return 0; }
    sleep 0.1
  done
  return 1
}

# No colour in an SGR: 30-37, 40-47, 90-97, 100-107, 38;... and 48;...
# (tmux itself writes 39 and 49, "default colour", which are fine).
no_colour_sgr() {
  python3 - "$1" <<'EOF'
import re, sys
data = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
bad = []
for m in re.finditer(r"\x1b\[([0-9;:]*)m", data):
    for p in re.split("[;:]", m.group(1)):
        if p and (30 <= int(p) <= 38 or 40 <= int(p) <= 48 or 90 <= int(p) <= 97
                  or 100 <= int(p) <= 107):
            bad.append(m.group(0)); break
if bad:
    print("# colour escapes: %r" % sorted(set(bad))[:8], file=sys.stderr)
    sys.exit(1)
EOF
}
has_colour_sgr() { ! no_colour_sgr "$1" 2>/dev/null; }
has_sgr_attr() { grep -qE $'\e\\[([0-9;]*;)?'"$2"'(;[0-9;]*)?m' "$1"; }
# Every byte below 0x80: no UTF-8 at all.
ascii_only() { ! LC_ALL=C grep -qP '[\x80-\xff]' "$1"; }
non_ascii() { LC_ALL=C grep -qP '[\x80-\xff]' "$1"; }
