#!/usr/bin/env bash
# Issue 13.4: nothing to a verified .docx.
#   pyrt:  pyrt install --yes --from-file RUNTIME --wheelhouse WH; pyrt smoke
#   shell: cp; sha256sum -c; tar -xzf; mv; python3 -m pip install --no-index
#          --find-links WH python-docx openpyxl; python3 -c 'import docx ...'
#          writing a .docx and reading its document.xml back
# Same runtime, same wheelhouse (tests/fixtures/make-wheelhouse.sh), same
# baseline (the fixture pins' python-docx and openpyxl), each run in a fresh
# directory on a fresh tmpfs.  Standalone; never part of bench/run --quick
# or ctest.
#
# The runtime: the fixture runtime (Debian's python3,
# tests/fixtures/make-runtime.sh) with the bytecode a python-build-standalone
# archive ships: the stdlib and pip compiled when the archive is made (the
# fixture itself carries none, and its first pip start would compile pip's
# ~800 modules, a cost no real archive has).  Pins with its digest and size.
#
#   sudo bash bench/docx.sh [BUILD_DIR]      (~3 min on 2 CPUs)
#
# PYRT_BENCH_RUNS (default 3) alternated rounds after one untimed warm-up of
# each; medians.  Then the baseline step alone (issue 18.7), `hyperfine`:
# `pyrt baseline --wheelhouse` (the fast path) against the runtime's pip
# with the options pyrt gives it, each run on a copy of a box whose runtime
# has no baseline yet (--prepare).  Then where the time goes: pyrt's --json
# step times (3 runs) and the shell script's steps timed one by one (3
# runs), with pip start-up (`pip --version`), `pip install --no-compile`
# and the import of python-docx.  Writes bench/results-docx.md.
set -euo pipefail

die() { printf 'docx.sh: %s\n' "$*" >&2; exit 1; }
say() { printf '== %s\n' "$*" >&2; }

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
build=${1:-$src/build-bench}
runs=${PYRT_BENCH_RUNS:-3}
results=$here/results-docx.md

[ "$(id -u)" -eq 0 ] || die "run as root: the runs happen on a tmpfs this script mounts"

mnt=''
cleanup() {
	if [ -n "$mnt" ]; then
		umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true
		rmdir "$mnt" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "building pyrt (Release, -O2) in $build"
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j2 --target pyrt >/dev/null
pyrt=$build/pyrt
bash "$src/tests/fixtures/build-fixtures.sh" "$build/fixtures" >&2

mnt=$(mktemp -d /tmp/pyrt-docx.XXXXXX)
mount -t tmpfs -o size=4g,mode=0700 pyrt-docx "$mnt" || die "mount -t tmpfs failed"
fx=$mnt/fx
mkdir "$fx"
cp -r "$build/fixtures/pins.yaml" "$build/fixtures/wheelhouse" "$fx/"

# The runtime with the stdlib's and pip's bytecode, as a python-build-
# standalone archive carries it: compiled against the sources' archive
# mtime (tar and pyrt both restore it), so no start rewrites a cache.
say "compiling the stdlib and pip into the bench runtime"
stage=$mnt/pyc-stage
mkdir "$stage"
tar -xzf "$build/fixtures/runtime.tar.gz" -C "$stage"
lib=$(cd "$stage/python/lib" && echo python3.*)
# (compileall exits 1 for the stdlib's few files of deliberately bad syntax)
"$stage/python/bin/python3" -I -m compileall -q -j0 "$stage/python/lib/$lib" \
	"$stage/python/local/lib/$lib/dist-packages/pip" >/dev/null 2>&1 || true
npyc=$(find "$stage/python" -name '*.pyc' | wc -l)
[ "$npyc" -gt 1000 ] || die "only $npyc .pyc compiled"
[ -n "$(ls "$stage/python/local/lib/$lib/dist-packages/pip/_internal/__pycache__")" ] ||
	die "pip was not compiled"
tar -C "$stage" --sort=name --format=gnu --owner=0 --group=0 --numeric-owner \
	--mtime=@1704067200 --mode='u+rwX,go+rX,go-w' -cf - python | gzip -6 -n >"$fx/runtime.tar.gz"
rm -rf "$stage"
sha=$(sha256sum "$fx/runtime.tar.gz" | cut -d' ' -f1)
sed -i -e "s/^\(    sha256: \).*/\1$sha/" \
	-e "s/^\(    size: \).*/\1$(stat -c %s "$fx/runtime.tar.gz")/" "$fx/pins.yaml"
grep -q "$sha" "$fx/pins.yaml" || die "the bench pins do not name $sha"
# The baseline both install: the fixture pins' list.
mapfile -t reqs < <(sed -n '/^baseline:/,$s/^  - //p' "$fx/pins.yaml")
[ "${#reqs[@]}" -gt 0 ] || die "no baseline in pins.yaml"

# The shell contender: $1 dir, $2 archive, $3 sha, $4 wheelhouse, $5.. reqs.
# pip gets the options pyrt gives it (core/pkgs/pip.c), so both do the same work.
script='set -e; d=$1 a=$2 h=$3 wh=$4; shift 4; cd "$d"
cp "$a" f.tgz
echo "$h  f.tgz" | sha256sum -c --quiet
mkdir s && tar -xzf f.tgz -C s && mv s/python rt && rm f.tgz
rt/bin/python3 -I -m pip install -q --only-binary=:all: --disable-pip-version-check --no-input --no-index --find-links "$wh" -- "$@"
rt/bin/python3 -I -c "
import sys, zipfile, docx
d = docx.Document(); d.add_paragraph(\"hello from the shell\"); d.save(\"out.docx\")
assert b\"hello from the shell\" in zipfile.ZipFile(\"out.docx\").read(\"word/document.xml\")
"'

run_one() {
	local kind=$1 dir=$2 t0 t1 rc=0
	mkdir "$dir"
	if [ "$kind" = pyrt ]; then
		t0=$EPOCHREALTIME
		{ "$pyrt" install --yes --box-root "$dir/box" --pins "$fx/pins.yaml" \
			--from-file "$fx/runtime.tar.gz" --wheelhouse "$fx/wheelhouse" &&
			"$pyrt" smoke --box-root "$dir/box" --out "$dir/out.docx"; } >"$dir.log" 2>&1 || rc=$?
		t1=$EPOCHREALTIME
	else
		t0=$EPOCHREALTIME
		bash -c "$script" shell "$dir" "$fx/runtime.tar.gz" "$sha" "$fx/wheelhouse" \
			"${reqs[@]}" >"$dir.log" 2>&1 || rc=$?
		t1=$EPOCHREALTIME
	fi
	if [ "$rc" -ne 0 ] || [ ! -s "$dir/out.docx" ]; then
		sed 's/^/   /' "$dir.log" >&2
		die "$kind run failed (exit $rc)"
	fi
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
}

: >"$mnt/runs.tsv"
load0=$(uptime)
say "warm-up, then $runs x (pyrt, shell); load: $load0"
for kind in pyrt shell; do run_one "$kind" "$mnt/warm-$kind"; rm -rf "$mnt/warm-$kind"; done
for i in $(seq "$runs"); do
	for kind in pyrt shell; do
		run_one "$kind" "$mnt/run-$i-$kind"
		printf '%s\t%s\n' "$kind" "$wall" >>"$mnt/runs.tsv"
		printf '   %-5s #%d  %s s  (%s)\n' "$kind" "$i" "$wall" "$(cut -d' ' -f1-3 /proc/loadavg)" >&2
		rm -rf "$mnt/run-$i-$kind" "$mnt/run-$i-$kind".*
	done
done

# The baseline step alone (issue 18.7): the fast path against pip, on a box
# whose runtime is active with no baseline, restored before every run.
say "the baseline step: pyrt baseline --wheelhouse against pip (hyperfine)"
hb=$mnt/hb
mkdir -p "$hb/home"
"$pyrt" install --yes --no-baseline --box-root "$hb/box" --pins "$fx/pins.yaml" \
	--from-file "$fx/runtime.tar.gz" >/dev/null 2>&1 || die "pyrt install --no-baseline failed"
cp -a "$hb/box" "$hb/box0"
hruns=$(( runs > 5 ? runs : 5 ))
fast_cmd="$pyrt baseline --box-root $hb/box --pins $fx/pins.yaml --wheelhouse $fx/wheelhouse"
pip_cmd="env -i PATH=/usr/bin:/bin LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME=$hb/home $hb/box/runtime/python/current/bin/python3 -I -m pip install --only-binary=:all: --disable-pip-version-check --no-input --no-index --find-links $fx/wheelhouse -- ${reqs[*]}"
hyperfine --style basic --warmup 1 --runs "$hruns" \
	--prepare "rm -rf $hb/box && cp -a $hb/box0 $hb/box" \
	--export-json "$mnt/baseline.json" -n "pyrt baseline (fast path)" "$fast_cmd" \
	-n "pip install" "$pip_cmd" >&2 || die "hyperfine failed"
# what was timed is the fast path: pyrt installed the baseline itself
rm -rf "$hb/box" && cp -a "$hb/box0" "$hb/box"
$fast_cmd >/dev/null 2>&1 || die "pyrt baseline failed"
grep -qx pyrt "$hb"/box/runtime/python/current/local/lib/python3*/dist-packages/python_docx-*.dist-info/INSTALLER ||
	die "pyrt baseline did not take the fast path"

# Where the time goes.  pyrt: the --json events' t per step, and smoke's wall.
# tm NAME CMD...: run CMD, append NAME and its wall time to steps.tsv.
tm() {
	local name=$1 t0 t1
	shift
	t0=$EPOCHREALTIME
	"$@" >/dev/null 2>&1 || die "breakdown step $name failed: $*"
	t1=$EPOCHREALTIME
	awk -v n="$name" -v a="$t0" -v b="$t1" 'BEGIN { printf "%s\t%.3f\n", n, b - a }' >>"$mnt/steps.tsv"
}
: >"$mnt/steps.tsv"
say "breakdown: 3 x pyrt --json, 3 x the shell's steps one by one"
for i in 1 2 3; do
	d=$mnt/bd-$i
	mkdir -p "$d"
	"$pyrt" install --yes --json --box-root "$d/box" --pins "$fx/pins.yaml" \
		--from-file "$fx/runtime.tar.gz" --wheelhouse "$fx/wheelhouse" >"$d/json" 2>/dev/null ||
		die "pyrt --json run failed"
	python3 - "$d/json" >>"$mnt/steps.tsv" <<'EOF'
import json, sys
begin = {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("event") == "step" and e.get("state") == "begin":
        begin[e["step"]] = e["t"]
    elif e.get("event") == "step" and e.get("state") == "end" and e["step"] in begin:
        print("pyrt %s\t%.3f" % (e["step"], e["t"] - begin[e["step"]]))
    elif e.get("event") == "result":
        print("pyrt install total\t%.3f" % e["t"])
EOF
	tm "pyrt smoke" "$pyrt" smoke --box-root "$d/box" --out "$d/out.docx"
	py=$d/box/runtime/python/current/bin/python3
	tm "python3 -I -c 'import docx' (after pyrt)" "$py" -I -c 'import docx'
	tm "python3 -I -S -c pass" "$py" -I -S -c pass
	tm "python3 -I -c pass" "$py" -I -c pass
	# The shell's steps, one by one.
	s=$mnt/sh-$i
	mkdir "$s"
	tm "shell cp" cp "$fx/runtime.tar.gz" "$s/f.tgz"
	tm "shell sha256sum -c" bash -c 'cd "$1" && echo "$2  f.tgz" | sha256sum -c --quiet' x "$s" "$sha"
	tm "shell tar -xzf + mv" bash -c 'cd "$1" && mkdir s && tar -xzf f.tgz -C s && mv s/python rt' x "$s"
	# pip's cost apart (the runtime carries pip's .pyc, as the script finds it)
	pipi=(-I -m pip install -q --only-binary=:all: --disable-pip-version-check --no-input
		--no-index --find-links "$fx/wheelhouse")
	cp -a "$s/rt" "$s/rt2"
	tm "pip --version (start, pip's .pyc present)" "$s/rt/bin/python3" -I -m pip --version
	tm "shell pip install, as in the script" "$s/rt/bin/python3" "${pipi[@]}" -- "${reqs[@]}"
	tm "pip install --no-compile" "$s/rt2/bin/python3" "${pipi[@]}" --no-compile -- "${reqs[@]}"
	tm "shell python3 -c 'import docx' (.pyc written by pip)" "$s/rt/bin/python3" -I -c 'import docx'
	tm "shell write + read back the .docx" "$s/rt/bin/python3" -I -c '
import sys, zipfile, docx
d = docx.Document(); d.add_paragraph("x"); d.save(sys.argv[1])
assert b"x" in zipfile.ZipFile(sys.argv[1]).read("word/document.xml")' "$s/out.docx"
	rm -rf "$d" "$s"
done
load1=$(uptime)

python3 - "$mnt" "$load0" "$load1" "$runs" "$(git -C "$src" rev-parse --short HEAD)" "${reqs[*]}" \
	"$npyc" "$hruns" >"$mnt/results.md" <<'EOF'
import json, statistics as st, sys, time
mnt, load0, load1, runs, rev, reqs, npyc, hruns = sys.argv[1:9]
d = {}
for l in open(mnt + "/runs.tsv").read().splitlines():
    k, w = l.split("\t"); d.setdefault(k, []).append(float(w))
steps, order = {}, []
for l in open(mnt + "/steps.tsv").read().splitlines():
    k, w = l.split("\t")
    if k not in steps: order.append(k)
    steps.setdefault(k, []).append(float(w))
p = print
p("# Nothing to a verified .docx (issue 13.4): results")
p()
p("Written by `bench/docx.sh` on %s, pyrt %s (Release -O2); fresh tmpfs mounted for the run; "
  "fixture runtime (Debian's python3) with the stdlib's and pip's bytecode compiled in "
  "(%s .pyc, as a python-build-standalone archive carries them) and the fixture wheelhouse; "
  "baseline: %s." %
  (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), rev, npyc, reqs))
p()
p("uptime before: `%s`; after: `%s`." % (load0.strip(), load1.strip()))
p()
p("%s alternated rounds after one untimed warm-up of each." % runs)
p()
p("| contender | wall median | min–max |")
p("|---|---:|---:|")
for k, name in (("pyrt", "`pyrt install --yes --from-file --wheelhouse` + `pyrt smoke`"),
                ("shell", "cp; sha256sum -c; tar -xzf; mv; pip install --no-index; python3 -c 'import docx …'")):
    p("| %s | %.3f s | %.3f–%.3f s |" % (name, st.median(d[k]), min(d[k]), max(d[k])))
r = st.median(d["pyrt"]) / st.median(d["shell"])
p()
p("pyrt/shell (medians): %.2f× — target ≤ 0.8×: %s" % (r, "met" if r <= 0.8 else "NOT met (missed by %.2f×)" % (r - 0.8)))
p()
p("The baseline step alone (issue 18.7): `hyperfine --warmup 1 --runs %s --prepare "
  "'rm -rf BOX && cp -a BOX0 BOX'`, BOX0 a box whose runtime is active with no baseline; "
  "each command's runs in a row (hyperfine does not alternate):" % hruns)
p()
p("    pyrt baseline --box-root BOX --pins PINS --wheelhouse WH")
p("    env -i PATH=/usr/bin:/bin LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME=H BOX/runtime/python/current/bin/python3 \\")
p("      -I -m pip install --only-binary=:all: --disable-pip-version-check --no-input \\")
p("      --no-index --find-links WH -- %s" % reqs)
p()
p("| command | mean ± σ | median | min–max |")
p("|---|---:|---:|---:|")
hf = {r["command"]: r for r in json.load(open(mnt + "/baseline.json"))["results"]}
for k in ("pyrt baseline (fast path)", "pip install"):
    r = hf[k]
    p("| %s | %.3f ± %.3f s | %.3f s | %.3f–%.3f s |" % (k, r["mean"], r["stddev"], r["median"], r["min"], r["max"]))
x = hf["pip install"]["median"] / hf["pyrt baseline (fast path)"]["median"]
p()
p("pip/fast path (medians): %.2f× — target ≥ 2×: %s" % (x, "met" if x >= 2 else "NOT met"))
p()
p("Where the time goes (3 runs each, medians; pyrt's from the --json events' t):")
p()
p("| step | median | min–max |")
p("|---|---:|---:|")
for k in order:
    v = steps[k]
    p("| %s | %.3f s | %.3f–%.3f s |" % (k, st.median(v), min(v), max(v)))
EOF
cat "$mnt/results.md"
cp "$mnt/results.md" "$results"
say "wrote $results"
