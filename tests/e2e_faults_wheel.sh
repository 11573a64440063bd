#!/usr/bin/env bash
# ctest: e2e_faults_wheel
# End to end: faults inside the wheelhouse installer (py/fastwheel.py) at
# its crash points (a build with -DPYRT_TEST_HOOKS=ON; core/util/testhook.h):
# before every member is staged, the compile, each INSTALLER and RECORD,
# every file's move into place and each .dist-info's.  A SIGKILL of the
# installer at every point, a SIGINT of pyrt (which stops the installer
# with SIGINT) and a SIGTERM of both at one point of each kind, and a full
# disk (RLIMIT_FSIZE: a member larger than the limit).  After each, the box
# is honest: each distribution is either installed whole (a .dist-info
# whose RECORD lists files that are all there, with their hashes) or has no
# .dist-info at all, and status does not say the baseline is complete
# unless everything is; the next `pyrt baseline` repairs it (finishing or
# removing what the stopped run left in staging) to complete; and
# `pip uninstall` then removes exactly the files the install added.
. "$(dirname "$0")/lib/e2e.sh"
e2e_setup faults-wheel fixtures
. "$src/tests/lib/faults.sh"
fault_box "$work/box"
py=$current/bin/python3

# Two small wheels, pyrt-a needing pyrt-b: a .data/data file, a subpackage,
# a file that does not compile, and (pyrt-b) a 2 MiB member for the disk.
wh=$work/wh
mkdir -p "$wh"
python3 - "$wh" <<'EOF'
import os, sys, zipfile
def wheel(name, files, requires=()):
    dist = name.replace('-', '_')
    info = f"{dist}-1.0.dist-info"
    with zipfile.ZipFile(f"{sys.argv[1]}/{dist}-1.0-py3-none-any.whl", "w", zipfile.ZIP_DEFLATED) as z:
        for path, body in files.items():
            z.writestr(path.replace("PKG", dist), body)
        meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n"
        meta += "".join(f"Requires-Dist: {r}\n" for r in requires)
        z.writestr(f"{info}/METADATA", meta)
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", "")
wheel("pyrt-a", {"PKG/__init__.py": "from pyrt_b import VALUE\n",
                 "PKG-1.0.data/data/share/pyrt-a.txt": "data\n"}, ["pyrt-b"])
wheel("pyrt-b", {"PKG/__init__.py": "VALUE = 2\n", "PKG/sub/mod.py": "X = 1\n",
                 "PKG/sub/broken.py": "def (:\n", "PKG/big.bin": os.urandom(2 << 20)})
EOF
printf 'pyrt-a\n' >"$work/reqs.txt"
base=(baseline --wheelhouse "$wh" --requirements "$work/reqs.txt")
site() { "$py" -I -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'; }
prefix() { readlink -f "$current"; }
# (the standard library and pip aside: running pip compiles some of them)
files() { (cd "$(prefix)" && find . -type f -not -path './lib/*' -not -path '*/pip/*' | sort); }

# honest: every .dist-info of pyrt-a and pyrt-b lists files that are all
# there with their hashes (else exit 1); prints each one's state.
honest() { "$py" -I "$src/tests/helpers/record_honest.py" "$S" pyrt_a-1.0 pyrt_b-1.0; }

# after TAG: the box after a fault is honest, a rerun repairs it to
# complete, and pip uninstall removes exactly what the install added.
after() {
  local tag=$1 states state
  states=$(honest)
  check "$tag: each distribution whole or without a .dist-info ($states)" [ $? -eq 0 ]
  state=$(baseline_state)
  check "$tag: status says baseline ${state:-?}, not complete unless both are" eval '
    [ "$state" != complete ] || [ "$states" = "pyrt_a-1.0:complete pyrt_b-1.0:complete" ]'
  "$pyrt" "${base[@]}" "${opts[@]}" </dev/null >"$work/out2" 2>"$work/err2"
  check "$tag: a rerun of pyrt baseline repairs it (exit $?)" [ $? -eq 0 ]
  check "$tag: both complete, staging gone, status complete" eval '
    [ "$(honest)" = "pyrt_a-1.0:complete pyrt_b-1.0:complete" ] &&
    [ ! -e "$S/.pyrt-fastwheel" ] && [ "$(baseline_state)" = complete ]'
  if [ -n "${uninstall:-}" ]; then
    "$py" -I -m pip uninstall -y -q pyrt-a pyrt-b >/dev/null 2>&1
    check "$tag: pip uninstall removes exactly the files the install added" \
      eval '[ "$(files)" = "$clean" ]'
  fi
}

# fresh: a new install of the runtime, no baseline (marker: none); S is
# its site-packages.
fresh() {
  "$pyrt" "${inst[@]}" "${opts[@]}" </dev/null >/dev/null 2>&1 ||
    bad "setup: pyrt install --no-baseline failed"
  clean=$(files)
  S=$(site)
}
py_pid() { awk '{print $1}' "$hookfile"; }

# --- every crash point, listed by a traced run -------------------------------
fresh
PYRT_TEST_HOOK_TRACE=$work/trace "$pyrt" "${base[@]}" "${opts[@]}" </dev/null >/dev/null 2>&1
check "a traced run installs (exit $?)" [ $? -eq 0 ]
mapfile -t points <"$work/trace"
check "it passes every kind of crash point (${#points[@]} in all)" eval '
  for k in member compile installer record move dist-info; do
    printf "%s\n" "${points[@]}" | grep -q "^fw-$k-1$" || exit 1
  done'
check "the log says the installer did it" eval '
  [ "$(honest)" = "pyrt_a-1.0:complete pyrt_b-1.0:complete" ] &&
  [ "$(cat "$S"/pyrt_a-1.0.dist-info/INSTALLER)" = pyrt ]'
"$py" -I -m pip uninstall -y -q pyrt-a pyrt-b >/dev/null 2>&1
check "pip uninstall after a clean install removes exactly its files" \
  eval '[ "$(files)" = "$clean" ]'
started=$SECONDS
n=0
for point in "${points[@]}"; do
  n=$((n + 1))
  # pip uninstall (a second or more) at every fourth point and each
  # .dist-info move
  uninstall=
  case $point in fw-dist-info-*) uninstall=1 ;; esac
  [ $((n % 4)) -eq 0 ] && uninstall=1
  fresh
  at "$point" 'kill -KILL $(py_pid)' "${base[@]}"
  check "SIGKILL at $point: the baseline failed (rc $rc)" [ "$rc" -ne 0 ]
  after "SIGKILL at $point"
done
echo "# SIGKILL at ${#points[@]} points: $((SECONDS - started)) s"

# --- SIGINT (pyrt, which stops the installer) and SIGTERM (both) -------------
for kind in member-3 record-2 move-5 dist-info-1; do
  uninstall=1
  fresh
  at "fw-$kind" 'kill -INT $pid' "${base[@]}"
  check "SIGINT at fw-$kind: cancelled (rc $rc)" [ "$rc" -eq 130 ]
  after "SIGINT at fw-$kind"
  fresh
  at "fw-$kind" 'kill -TERM $(py_pid) $pid' "${base[@]}"
  check "SIGTERM at fw-$kind: cancelled (rc $rc)" [ "$rc" -eq 130 ]
  after "SIGTERM at fw-$kind"
done

# --- a full disk: a member over RLIMIT_FSIZE (EFBIG, not SIGXFSZ) ------------
uninstall=1
fresh
prlimit --fsize=$((1 << 20)) "$pyrt" "${base[@]}" "${opts[@]}" </dev/null >"$work/out" 2>"$work/err"
rc=$?
check "a file size limit: the baseline fails (exit 10, got $rc)" [ "$rc" -eq 10 ]
check "the log names the file too large" \
  grep -q "ERROR: installing pyrt_b-1.0-py3-none-any.whl failed: OSError: .*File too large" \
  "$box"/runtime/python/logs/pip-baseline-*.log
check "nothing is left in staging" [ ! -e "$S/.pyrt-fastwheel" ]
after "RLIMIT_FSIZE"

# --- the real wheelhouse: python-docx and its dependencies -------------------
uninstall=1
base=(baseline --wheelhouse "$fx/wheelhouse" --requirements "$work/reqs.txt")
printf 'python-docx\n' >"$work/reqs.txt"
honest() { "$py" -I "$src/tests/helpers/record_honest.py" "$S" python_docx-0.8.11 lxml-4.9.2; }
for point in fw-member-40 fw-move-60; do
  fresh
  at "$point" 'kill -KILL $(py_pid)' "${base[@]}"
  check "python-docx, SIGKILL at $point: the baseline failed (rc $rc)" [ "$rc" -ne 0 ]
  states=$(honest)
  check "python-docx, SIGKILL at $point: whole or without a .dist-info ($states)" [ $? -eq 0 ]
  run "${base[@]}" "${opts[@]}"
  check "python-docx, $point: a rerun repairs it (exit $rc)" eval '
    rc_is 0 && [ "$(honest)" = "python_docx-0.8.11:complete lxml-4.9.2:complete" ]'
  "$py" -I -m pip uninstall -y -q python-docx lxml >/dev/null 2>&1
  check "python-docx, $point: pip uninstall leaves no file of theirs" eval '
    [ ! -e "$S/docx" ] && [ ! -e "$S/lxml" ] && ! ls -d "$S"/{python_docx,lxml}-* 2>/dev/null'
done

e2e_finish
