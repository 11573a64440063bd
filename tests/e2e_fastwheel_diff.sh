#!/usr/bin/env bash
# ctest: e2e_fastwheel_diff (label diff; `ctest -L diff` runs it alone)
# The wheelhouse installer (py/fastwheel.py) against pip, wheel by wheel.
# tests/fastwheel_diff.py builds a corpus: pure and platlib wheels, .data
# purelib/platlib/data/headers/scripts, entry points, build tags, versions
# with dependencies and markers, Wheel-Version 1.9 and 2.0, a duplicate
# .dist-info, another distribution's .dist-info (top level and under .data),
# an .egg-info, a distribution already installed in another folder on
# sys.path, no RECORD, METADATA naming another version, a member of 1000:1,
# path traversal (top level and under .data), a .data folder spelled
# otherwise than its .dist-info, an exec bit without a file type, and a
# RECORD with sha512/sha384 rows that omits a file (issue 25, item 11).  Each case gets two fresh
# copies of the fixture runtime: `pyrt baseline --wheelhouse` installs it
# into copy A (the real path: the installer, then pip when it declines),
# the runtime's own pip with the options pyrt gives it into copy B, whose
# prefix has the same length as A's, and a space where A's has one, so
# pip's #! decisions are the same.  Runtimes live at a short path, a path
# whose #! line passes 127 bytes, and a path with a space.
#
# Accepted by the installer: pip succeeds too, and what the install added
# or changed under the prefix equals pip's: the same paths (so every file
# in the same scheme folder), kinds and modes, the same bytes (the prefix
# written as <PREFIX>; a .pyc less the source mtime in its header), and
# RECORD's rows verbatim, in pip's order and with its line ends (a
# launcher's row hashed again with the prefix as <PREFIX>); INSTALLER's
# row aside (pyrt against pip).
# Caches Python writes at import for modules that were there before (pip's
# own, the stdlib's) are not the install's and are left out.
# Declined: pyrt's exit status is pip's verdict, and the tree is pip's.
# Refused by the installer (a hostile wheel): exit 10, nothing written,
# and whether pip refused it too is counted.  A wheel carrying another
# distribution's metadata never reaches an installer: pyrt's wheel check
# refuses it first (exit 6, no pip log), nothing written.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup fastwheel_diff fixtures

tool=$src/tests/fastwheel_diff.py
dpy=/usr/bin/python3
"$dpy" "$tool" corpus "$work/corpus" || { bad "the corpus builds"; e2e_finish; exit 1; }

# The layouts: where both copies of the runtime live.
declare -A root=(
  [short]=$short/s
  [long]=$work/a-folder-name-long-enough-that-the-interpreter-path-passes-the-127-byte-limit
  [spaced]="$short/a space"
)
mkdir -p "${root[@]}"
bhome=$work/bhome
mkdir -p "$bhome"

# pad LEN SPACE: a folder name of LEN characters, with a space when asked.
pad() {
  local s
  s=$(printf '%*s' "$1" '' | tr ' ' p)
  [ "$2" = 1 ] && s="p ${s:2}"
  printf '%s' "$s"
}

accepted=0 acc_equal=0 declined=0 dec_equal=0 refused=0 ref_clean=0 pip_refused=0
gated=0 gated_clean=0
n=0
while IFS=$'\t' read -r name layouts pre; do
  for layout in $layouts; do
    n=$((n + 1))
    L=${root[$layout]}/c$n
    mkdir -p "$L"
    # copy A: a box pyrt installs the runtime into
    box=$L/box
    run install --yes --no-baseline --box-root "$box" --pins "$fx/pins.yaml" \
      --from-file "$fx/runtime.tar.gz"
    rc_is 0 || { bad "$name ($layout): pyrt install exits 0"; sed 's/^/#   /' "$work/err"; continue; }
    ap=$(readlink -f "$box/runtime/python/current")
    # copy B: the same archive at a prefix of the same length
    sp=0
    case $ap in *' '*) sp=1 ;; esac
    bbase=$L/b
    bp=$bbase$(pad $((${#ap} - ${#bbase} - 7)) $sp)/python
    mkdir -p "$(dirname "$bp")"
    tar -xzf "$fx/runtime.tar.gz" -C "$(dirname "$bp")"
    if [ "${#bp}" -ne "${#ap}" ]; then
      bad "$name ($layout): the two prefixes have one length (${#ap}, ${#bp})"
      continue
    fi
    if [ "$pre" != - ]; then
      "$dpy" "$tool" pre "$pre" "$ap" && "$dpy" "$tool" pre "$pre" "$bp"
    fi
    "$dpy" "$tool" snap "$ap" "$L/a.json"
    "$dpy" "$tool" snap "$bp" "$L/b.json"
    wh=$work/corpus/$name/wh
    mapfile -t reqs <"$work/corpus/$name/req.txt"

    run baseline --box-root "$box" --pins "$fx/pins.yaml" --wheelhouse "$wh" \
      --requirements "$work/corpus/$name/req.txt"
    arc=$rc
    cp "$work/err" "$L/pyrt.err"
    # the batch's log (when pip refuses a batch, pyrt retries each
    # requirement alone, in later logs)
    log=$(ls -tr "$box"/runtime/python/logs/pip-baseline-*.log 2>/dev/null | head -1)
    verdict=$(sed -n 's/^# the wheelhouse installer //p' "$log" | head -1)
    (umask 022 && env -i PATH=/usr/bin:/bin LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME="$bhome" \
      "$bp/bin/python3" -I -m pip install --only-binary=:all: --disable-pip-version-check \
      --no-input --no-index --find-links "$wh" -- "${reqs[@]}") >"$L/pip.out" 2>&1 </dev/null
    brc=$?
    "$dpy" "$tool" compare "$ap" "$L/a.json" "$bp" "$L/b.json" >"$L/diff"
    same=$?
    what="$name ($layout, ${reqs[*]})"
    case $verdict in
    succeeded)
      accepted=$((accepted + 1))
      if [ "$arc" -eq 0 ] && [ "$brc" -eq 0 ] && [ "$same" -eq 0 ]; then
        acc_equal=$((acc_equal + 1))
        ok "$what: the installer installed it, as pip does"
      else
        bad "$what: the installer installed it (pyrt exit $arc); pip exit $brc; trees equal: $([ $same -eq 0 ] && echo yes || echo no)"
        sed 's/^/#   /' "$L/diff"
        tail -3 "$L/pip.out" | sed 's/^/#   pip: /'
      fi ;;
    'left it to pip')
      declined=$((declined + 1))
      why=$(grep -o 'not decided ([^;]*' "$log" | head -1)
      # pip's verdict, or pyrt's own check after pip failing the baseline
      # over what pip installed (a forged .dist-info without RECORD)
      if { [ "$arc" -eq 0 ] && [ "$brc" -eq 0 ]; } || { [ "$arc" -eq 10 ] && [ "$brc" -ne 0 ]; } ||
         { [ "$arc" -eq 10 ] && grep -q "is installed but not whole" "$L/pyrt.err"; }; then
        if [ "$same" -eq 0 ]; then
          dec_equal=$((dec_equal + 1))
          ok "$what: left to pip ($why), pip's result (exit $brc)"
        else
          bad "$what: left to pip ($why), but the tree is not pip's"
          sed 's/^/#   /' "$L/diff"
        fi
      else
        bad "$what: left to pip ($why): pyrt exit $arc against pip's $brc"
        tail -3 "$L/pyrt.err" | sed 's/^/#   pyrt: /'
        tail -3 "$L/pip.out" | sed 's/^/#   pip: /'
      fi ;;
    failed)
      refused=$((refused + 1))
      [ "$brc" -ne 0 ] && pip_refused=$((pip_refused + 1))
      "$dpy" "$tool" compare "$ap" "$L/a.json" "$ap" "$L/a.json" >"$L/diff-self"
      if [ "$arc" -eq 10 ] && grep -q "refused" "$L/pyrt.err" &&
         grep -q '(0 paths written' "$L/diff-self" && ! grep -q -- " -m pip install " "$log" &&
         ! find "$L" -name '*_evil.py' | grep -q .; then
        ref_clean=$((ref_clean + 1))
        ok "$what: refused by the installer (exit 10), nothing written; pip exit $brc"
      else
        bad "$what: refused by the installer: exit $arc, or something was written"
        sed 's/^/#   /' "$L/diff-self" "$L/pyrt.err" | tail -5
      fi ;;
    '')
      # Refused before any installer ran: pyrt's own wheel check (issue
      # 26, door 1) reads every wheel's table of contents first.
      gated=$((gated + 1))
      [ "$brc" -ne 0 ] && pip_refused=$((pip_refused + 1))
      "$dpy" "$tool" compare "$ap" "$L/a.json" "$ap" "$L/a.json" >"$L/diff-self"
      if [ "$arc" -eq 6 ] && grep -q "refusing the wheel" "$L/pyrt.err" &&
         grep -q '(0 paths written' "$L/diff-self" && [ -z "$log" ]; then
        gated_clean=$((gated_clean + 1))
        ok "$what: refused by pyrt's wheel check before any installer (exit 6), nothing written; pip exit $brc"
      else
        bad "$what: no installer verdict, and not a clean refusal by the wheel check (pyrt exit $arc)"
        tail -5 "$L/pyrt.err" | sed 's/^/#   /'
      fi ;;
    *)
      bad "$what: the log says what the installer did (got '$verdict', pyrt exit $arc)"
      tail -5 "$L/pyrt.err" | sed 's/^/#   /' ;;
    esac
    rm -rf "$L"
  done
done <"$work/corpus/cases.tsv"

check "the corpus ran: $n installs" [ "$n" -ge 25 ]
echo "# fast path accepted $accepted, equal to pip $acc_equal; declined $declined, pip's result $dec_equal; refused $refused, nothing written $ref_clean; refused by the wheel check before any installer $gated, nothing written $gated_clean (pip refused $pip_refused of all refused)"
e2e_finish
