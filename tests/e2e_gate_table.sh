#!/usr/bin/env bash
# ctest: e2e_gate_table
# The trust gate, enforced by the option table (issue 26): the test walks
# the table pyrt itself holds (PYRT_TEST_OPTION_TABLE, a test-hooks build)
# and, for every option that takes a path the table marks gated, under
# every command it applies to, plants a copy owned by uid 1234, one that is
# world-writable and (for a folder) a root folder holding one file of uid
# 1234's, and expects exit 14 naming the fault; root's own 0644 copy is
# taken.  An option with a value that declares no path kind fails here, as
# does a gated option whose gate was dropped.  The mirror's DIR, and the
# box's plugins tree (plugins/, each plugin folder, each plugin.yaml) are
# walked the same way: a plugin that fails is an `invalid` row naming the
# owner, and `plugins install` refuses it.  Needs root (two users) and a
# build with -DPYRT_TEST_HOOKS=ON.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup gate_table fixtures
[ "$(id -u)" -eq 0 ] || { echo "FAIL - e2e_gate_table needs root (two users)"; exit 1; }
command -v setpriv >/dev/null || { echo "FAIL - setpriv (util-linux) is missing"; exit 1; }
chmod 0755 "$work"

PYRT_TEST_OPTION_TABLE=1 "$pyrt" >"$work/table" 2>/dev/null
check "pyrt prints its option table (a -DPYRT_TEST_HOOKS=ON build)" \
  grep -q '^--pins FILE gated' "$work/table"

# The exemptions, each with why it is not the gate's: a change to the
# table that makes a path option one of these must change this list too.
declare -A exempt=(
  [--box-root]="box: core/runtime/box.c walks it (e2e_trust_paths)"
  [--from-file]="hashed: copied while hashed against its pin"
  [--out]="written: created by pyrt, never read"
  [--bundle]="written: created by pyrt, never read"
  [--listen]="socket: serve/listen.c walks unix:PATH (e2e_trust_paths)"
  [--token-file]="secret: serve's token, kept 0600 by srv_token_load"
)

ca=$fx/ca/ca.pem
[ -f "$ca" ] || ca=$(ls "$fx"/*.pem "$fx"/*/*.pem 2>/dev/null | head -1)
good=$work/good theirs=$work/theirs
mkdir -m 0755 "$good" "$theirs"
chown 1234:1234 "$theirs"

# plant OPT METAVAR: the variants of a value for OPT in $work/p-OPT, as
# lines "LABEL PATH EXPECT" (EXPECT: what the refusal names).
plant() {
  local opt=${1#--} meta=$2 d=$work/p-${1#--}
  mkdir -m 0755 "$d"
  local content=$fx/pins.yaml
  case $opt in
    cacert) content=$ca ;;
    requirements) content=$work/req.txt ;;
  esac
  if [ "$meta" = DIR ]; then
    mkdir -m 0755 "$d/other" "$d/ww" "$d/onefile" "$d/ok"
    for w in other ww onefile ok; do
      cp "$fx"/wheelhouse/*.whl "$d/$w/"
      chmod 0644 "$d/$w"/*.whl
    done
    chown -R 1234:1234 "$d/other"
    chmod 0777 "$d/ww"
    chown 1234 "$(ls "$d"/onefile/*.whl | head -1)"
    echo "owned-by-1234 $d/other uid 1234"
    echo "mode-0777 $d/ww mode 0777"
    echo "one-entry-of-1234 $d/onefile uid 1234"
    echo "in-1234s-folder $theirs/$opt uid 1234"
    mkdir -m 0755 "$theirs/$opt"
    cp "$fx"/wheelhouse/*.whl "$theirs/$opt/"
  else
    install -m 0644 "$content" "$d/other"; chown 1234 "$d/other"
    install -m 0666 "$content" "$d/ww"
    install -m 0644 "$content" "$theirs/$opt"
    install -m 0644 "$content" "$d/ok"
    echo "owned-by-1234 $d/other uid 1234"
    echo "mode-0666 $d/ww mode 0666"
    echo "in-1234s-folder $theirs/$opt uid 1234"
  fi
}
printf 'python-docx\n' >"$work/req.txt"

# invoke CMD OPT VALUE: pyrt CMD with OPT VALUE and what CMD needs besides.
invoke() {
  local cmd=$1 opt=$2 val=$3 extra=()
  case $cmd in
    mirror) extra=("$work/mirror-dir" --mirror https://127.0.0.1:1/) ;;
    plugins) extra=(install careercoach) ;;
    lock) [ "$opt" = --wheelhouse ] || extra=(--wheelhouse "$fx/wheelhouse")
          extra+=(--out "$work/lock-out.yaml") ;;
  esac
  "$pyrt" "$cmd" --box-root "$work/box" "$opt" "$val" "${extra[@]}" \
    --yes </dev/null >"$work/out" 2>"$work/err" &
  local pid=$!
  # serve refused at start exits; one that started is stopped by its pid.
  local n=0
  while kill -0 "$pid" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
  kill "$pid" 2>/dev/null
  wait "$pid"
  rc=$?
}

nopts=0
while read -r opt meta kind cmds; do
  [ -n "$opt" ] || continue
  nopts=$((nopts + 1))
  case $kind in
    none)
      # A value that names a file or folder is a path, whatever it says.
      case $meta in FILE|DIR|ARCHIVE)
        bad "$opt $meta is marked \"not a path\" in the option table: a $meta is one; declare what pyrt does with it" ;;
      esac
      continue ;;
    undeclared)
      bad "$opt $meta declares no path kind in the option table (cli/parse.c): say whether the gate reads it"
      continue ;;
    gated|gated-dir) ;;
    *)
      if [ -n "${exempt[$opt]:-}" ]; then
        ok "$opt is not the gate's: ${exempt[$opt]}"
      else
        bad "$opt ($kind) is a path the gate does not check and this test has no reason for it"
      fi
      continue ;;
  esac
  plant "$opt" "$meta" >"$work/variants-${opt#--}"
  for cmd in $cmds; do
    case $cmd in -|help|version) continue ;; esac
    while read -r label path expect; do
      invoke "$cmd" "$opt" "$path"
      check "pyrt $cmd $opt ($label) is refused (exit 14, naming $expect)" \
        eval 'rc_is 14 && has refusing err && has "$expect" err'
    done <"$work/variants-${opt#--}"
  done
  # root's own copy passes the gate (whatever the command then says).
  # (one that reads no network: status, lock, baseline, then mirror)
  first=
  for c in status lock baseline mirror; do
    case " $cmds " in *" $c "*) first=$c; break ;; esac
  done
  invoke "$first" "$opt" "$work/p-${opt#--}/ok"
  check "pyrt $first $opt with root's 0644 copy passes the gate (not 14)" \
    eval '! rc_is 14 && ! has refusing err'
done <"$work/table"
check "the table lists the options with a value ($nopts)" [ "$nopts" -ge 10 ]

# --- a URL is no wheelhouse ---------------------------------------------------
run baseline --box-root "$work/box" --wheelhouse https://idx.example/wheels/ --yes
check "--wheelhouse https://... is refused as a URL (exit 2), pointing at --index-url" \
  eval 'rc_is 2 && has "is a local folder, not a URL; for an index use --index-url" err'

# --- mirror DIR (a positional the table does not hold) -----------------------
mkdir -m 0755 "$work/mdir-other" && chown 1234 "$work/mdir-other"
mkdir -m 0777 "$work/mdir-ww"
for d in "$work/mdir-other:uid 1234" "$work/mdir-ww:mode 0777"; do
  run mirror --verify "${d%%:*}"
  check "pyrt mirror --verify ${d%%:*} is refused (exit 14, ${d#*:})" \
    eval 'rc_is 14 && has "${d#*:}" err'
done

# --- the box's plugins tree ---------------------------------------------------
box=$work/pbox
mkdir -m 0755 "$box"
cp -R "$src/tests/fixtures/sample-box/plugins" "$box/"
chmod -R go-w "$box/plugins"
pl=$box/plugins/careercoach
# plugins_case LABEL EXPECT: the row is invalid naming EXPECT; install refused.
plugins_case() {
  want=$2
  run plugins --json --box-root "$box" --pins "$fx/pins.yaml"
  check "$1: careercoach is an invalid row naming $2" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = {p["name"]: p for p in d["plugins"]}["careercoach"]
sys.exit(not (r["verdict"] == "invalid" and sys.argv[2] in (r.get("error") or "")))' "$work/out" "$2"
  run plugins install careercoach --box-root "$box" --pins "$fx/pins.yaml" --wheelhouse "$fx/wheelhouse" --yes
  check "$1: plugins install careercoach is refused (not 0) naming $2" \
    eval '! rc_is 0 && has "$want" err && has "is invalid" err'
}
run plugins --json --box-root "$box" --pins "$fx/pins.yaml"
check "root's own plugins tree: careercoach is not invalid" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit({p["name"]: p for p in d["plugins"]}["careercoach"]["verdict"] == "invalid")' "$work/out"
chown 1234 "$pl/plugin.yaml"
plugins_case "plugin.yaml owned by uid 1234" "uid 1234"
chown 0 "$pl/plugin.yaml"; chmod 0666 "$pl/plugin.yaml"
plugins_case "a 0666 plugin.yaml" "mode 0666"
chmod 0644 "$pl/plugin.yaml"; chown 1234 "$pl"
plugins_case "the plugin folder owned by uid 1234" "uid 1234"
chown 0 "$pl"; chmod 0777 "$pl"
plugins_case "a 0777 plugin folder" "mode 0777"
chmod 0755 "$pl"; chown 1234 "$box/plugins"
plugins_case "plugins/ owned by uid 1234" "uid 1234"
chown 0 "$box/plugins"; chmod 0777 "$box/plugins"
plugins_case "a 0777 plugins/" "mode 0777"

e2e_finish
