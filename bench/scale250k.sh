#!/usr/bin/env bash
# Issue 13.5: install at scale.  `pyrt install --from-file --no-baseline` of a
# 250k-file synthetic tree against `tar -xzf` of the same archive, each into a
# fresh directory on the same fresh tmpfs.  Standalone, never part of
# bench/run --quick or ctest: timings are reported, never asserted.
#
#   sudo bash bench/scale250k.sh [BUILD_DIR]      (~3-5 min on 2 CPUs)
#
# BUILD_DIR (default build-bench/) gets pyrt in Release -O2 and the fixtures;
# the archive is cached as BUILD_DIR/fixtures/runtime250k.tar.gz with
# pins-250k.yaml (real sha256/size, same version and build as pins.yaml).
# The tree: the fixture runtime (a real interpreter, so pyrt's check runs)
# plus python/scale/dNNNN/fNNN: PYRT_SCALE_FILES (default 250000) files of
# 0-2048 bytes (uniform, seeded) cut from the runtime's own stdlib sources,
# 100 files a directory.  PYRT_BENCH_RUNS (default 3) alternated rounds after
# one untimed warm-up of each; medians.  Writes bench/results-scale250k.md.
set -euo pipefail

die() { printf 'scale250k.sh: %s\n' "$*" >&2; exit 1; }
say() { printf '== %s\n' "$*" >&2; }

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
self=$here/$(basename "$0")
build=${1:-$src/build-bench}
runs=${PYRT_BENCH_RUNS:-3}
nfiles=${PYRT_SCALE_FILES:-250000}
results=$here/results-scale250k.md

[ "$(id -u)" -eq 0 ] || die "run as root: the runs happen on a tmpfs this script mounts"
[[ $runs =~ ^[0-9]+$ ]] && [ "$runs" -ge 1 ] || die "PYRT_BENCH_RUNS must be a number >= 1"

mnt=''
cleanup() {
	if [ -n "$mnt" ]; then
		umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true
		rmdir "$mnt" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

build_pyrt() {
	say "building pyrt (Release, -O2) in $build"
	cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" -DBUILD_TESTING=OFF >/dev/null
	cmake --build "$build" -j2 --target pyrt >/dev/null
	pyrt=$build/pyrt
	[ -x "$pyrt" ] || die "no pyrt binary in $build"
}

# The archive, rebuilt when missing or older than this script or the fixture.
make_archive() {
	local fx=$1 out=$1/runtime250k.tar.gz tmp sha size entries
	if [ -s "$out" ] && grep -q entries: "$fx/pins-250k.yaml" 2>/dev/null &&
		! [ "$fx/runtime.tar.gz" -nt "$out" ] && ! [ "$self" -nt "$out" ] &&
		[ "$(cat "$fx/runtime250k.files" 2>/dev/null)" = "$nfiles" ]; then
		return 0
	fi
	say "building the $nfiles-file archive"
	tmp=$(mktemp -d "$mnt/gen.XXXXXX")
	tar -xzf "$fx/runtime.tar.gz" -C "$tmp"
	python3 - "$tmp/python" "$nfiles" <<'EOF'
import glob, os, random, sys
root, n = sys.argv[1], int(sys.argv[2])
corpus = b"".join(open(p, "rb").read() for p in sorted(glob.glob(root + "/lib/python3*/*.py")))
rng = random.Random(13)
for i in range(n):
    d = "%s/scale/d%04d" % (root, i // 100)
    if i % 100 == 0:
        os.makedirs(d)
    size = rng.randint(0, 2048)
    off = rng.randint(0, len(corpus) - size)
    with open("%s/f%03d.txt" % (d, i % 100), "wb") as f:
        f.write(corpus[off:off + size])
EOF
	tar -C "$tmp" --sort=name --format=gnu --owner=0 --group=0 --numeric-owner \
		--mtime=@1704067200 --mode='u+rwX,go+rX,go-w' -cf - python |
		gzip -6 -n >"$out.tmp"
	rm -rf "$tmp"
	sha=$(sha256sum "$out.tmp" | cut -d' ' -f1)
	size=$(stat -c %s "$out.tmp")
	# The pin says how many members: above 100000 pyrt refuses an archive
	# whose pin does not (the decompression-bomb cap, core/dist/extract.h).
	entries=$(tar -tzf "$out.tmp" | wc -l)
	sed -e "s#\(url: .*/\)runtime\.tar\.gz#\1runtime250k.tar.gz#" \
		-e "s#sha256: .*#sha256: $sha#" \
		-e "s#^\( *\)size: .*#&\n\1entries: $entries#" -e "s#size: [0-9]*#size: $size#" \
		"$fx/pins.yaml" >"$fx/pins-250k.yaml"
	grep -q "entries: $entries" "$fx/pins-250k.yaml" || die "could not write pins-250k.yaml"
	printf '%s\n' "$nfiles" >"$fx/runtime250k.files"
	mv -f "$out.tmp" "$out"
}

# run KIND DIR: one timed run into the fresh DIR; sets wall, cpu, rss.
run_one() {
	local kind=$1 dir=$2 t0 t1 rc=0 ok u s
	mkdir "$dir"
	if [ "$kind" = pyrt ]; then
		t0=$EPOCHREALTIME
		/usr/bin/time -f "%M %U %S" -o "$dir.time" "$pyrt" install --yes --no-baseline \
			--box-root "$dir/box" --pins "$fx/pins-250k.yaml" \
			--from-file "$fx/runtime250k.tar.gz" >"$dir.log" 2>&1 || rc=$?
		t1=$EPOCHREALTIME
		ok=$dir/box/runtime/python/current/scale/d0000/f000.txt
	else
		t0=$EPOCHREALTIME
		/usr/bin/time -f "%M %U %S" -o "$dir.time" tar -xzf "$fx/runtime250k.tar.gz" \
			-C "$dir" >"$dir.log" 2>&1 || rc=$?
		t1=$EPOCHREALTIME
		ok=$dir/python/scale/d0000/f000.txt
	fi
	if [ "$rc" -ne 0 ] || [ ! -e "$ok" ]; then
		sed 's/^/   /' "$dir.log" >&2
		die "$kind run failed (exit $rc)"
	fi
	read -r rss u s < <(tail -n1 "$dir.time")
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
	cpu=$(awk -v a="$u" -v b="$s" 'BEGIN { printf "%.2f", a + b }')
}

build_pyrt
command -v /usr/bin/time >/dev/null || die "/usr/bin/time missing (apt-get install time)"
mnt=$(mktemp -d /tmp/pyrt-scale.XXXXXX)
mount -t tmpfs -o size=10g,mode=0700 pyrt-scale "$mnt" || die "mount -t tmpfs failed"
fxsrc=$build/fixtures
bash "$src/tests/fixtures/build-fixtures.sh" "$fxsrc" >&2
(
	flock 9
	make_archive "$fxsrc"
) 9>"$fxsrc/.lock"
fx=$mnt/fx
mkdir "$fx"
cp "$fxsrc/runtime250k.tar.gz" "$fxsrc/pins-250k.yaml" "$fx/"

: >"$mnt/runs.tsv"
load0=$(uptime)
say "warm-up (untimed), then $runs x (pyrt, tar); load: $load0"
for kind in pyrt tar; do
	run_one "$kind" "$mnt/warm-$kind"
	[ "$kind" = tar ] && entries=$(find "$mnt/warm-tar/python" | wc -l) &&
		bytes=$(du -sb "$mnt/warm-tar/python" | cut -f1)
	rm -rf "$mnt/warm-$kind"
done
for i in $(seq "$runs"); do
	for kind in pyrt tar; do
		run_one "$kind" "$mnt/run-$i-$kind"
		printf '%s\t%s\t%s\t%s\t%s\n' "$kind" "$i" "$wall" "$cpu" "$rss" >>"$mnt/runs.tsv"
		printf '   %-4s #%d  %s s  cpu %s s  %s KiB  (%s)\n' "$kind" "$i" "$wall" "$cpu" "$rss" \
			"$(cut -d' ' -f1-3 /proc/loadavg)" >&2
		rm -rf "$mnt/run-$i-$kind" "$mnt/run-$i-$kind".*
	done
done
# pyrt's steps, from one extra untimed --json run.
mkdir "$mnt/json"
"$pyrt" install --yes --no-baseline --json --box-root "$mnt/json/box" \
	--pins "$fx/pins-250k.yaml" --from-file "$fx/runtime250k.tar.gz" >"$mnt/json.out" 2>/dev/null ||
	die "pyrt --json run failed"
rm -rf "$mnt/json"
load1=$(uptime)

python3 - "$mnt" "$load0" "$load1" "$(stat -c %s "$fx/runtime250k.tar.gz")" "$entries" "$bytes" \
	"$runs" "$(git -C "$src" rev-parse --short HEAD)" >"$mnt/results.md" <<'EOF'
import json, statistics as st, sys, time
mnt, load0, load1, arch, entries, nbytes, runs, rev = sys.argv[1:9]
rows = [l.split("\t") for l in open(mnt + "/runs.tsv").read().splitlines()]
d = {}
for kind, _, wall, cpu, rss in rows:
    d.setdefault(kind, []).append((float(wall), float(cpu), int(rss) / 1024))
p = print
p("# 250k-file install (issue 13.5): results")
p()
p("Written by `bench/scale250k.sh` on %s, pyrt %s (Release -O2); fresh tmpfs "
  "mounted for the run; archive %.1f MB, tree %s entries, %.1f MB (du -sb)."
  % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), rev, int(arch) / 1e6, entries, int(nbytes) / 1e6))
p()
p("uptime before: `%s`; after: `%s`." % (load0.strip(), load1.strip()))
p()
p("%s alternated rounds (pyrt, tar) after one untimed warm-up of each." % runs)
p()
p("| tool | wall median | wall min–max | CPU median | peak RSS median |")
p("|---|---:|---:|---:|---:|")
for k, name in (("pyrt", "`pyrt install --yes --no-baseline --from-file`"), ("tar", "`tar -xzf`")):
    w = [r[0] for r in d[k]]
    p("| %s | %.3f s | %.3f–%.3f s | %.2f s | %.1f MiB |" % (name, st.median(w), min(w), max(w),
      st.median(r[1] for r in d[k]), st.median(r[2] for r in d[k])))
r = st.median(x[0] for x in d["pyrt"]) / st.median(x[0] for x in d["tar"])
p()
p("pyrt/tar wall (medians): %.2f× — target ≤ 0.9×: %s" % (r, "met" if r <= 0.9 else "NOT met (missed by %.2f×)" % (r - 0.9)))
p()
begin, steps = {}, []
for line in open(mnt + "/json.out"):
    e = json.loads(line)
    if e.get("event") == "step" and e.get("state") == "begin":
        begin[e["step"]] = e["t"]
    elif e.get("event") == "step" and e.get("state") in ("end", "skip") and e["step"] in begin:
        steps.append("%s %.3f s" % (e["step"], e["t"] - begin[e["step"]]))
    elif e.get("event") == "result":
        steps.append("total %.3f s" % e["t"])
p("pyrt's steps (one extra `--json` run): " + ", ".join(steps))
EOF
cat "$mnt/results.md"
cp "$mnt/results.md" "$results"
say "wrote $results"
