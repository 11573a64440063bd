#!/usr/bin/env bash
# Install benchmark: `pyrt install` against the plain shell pipeline
#   curl | sha256sum -c | tar -xzf | mv
# on the same archive, served by the same loopback HTTPS mirror, on tmpfs.
#
#   bash bench/run-install.sh [BUILD_DIR]      (root: it mounts a tmpfs)
#
# BUILD_DIR defaults to build-bench next to this repo's sources; pyrt is
# built there in Release with -O2.  PYRT_BENCH_RUNS (default 9, at least 5)
# timed runs of each tool at each size, alternating A B A B, after one
# untimed warm-up of each.  Sizes: the fixture archive (1x) and an archive
# made from the same tree plus three more copies of it (stdlib included)
# under python/pad1..pad3/, so python/bin/python3 still holds (4x).  Prints a table and writes
# bench/results-install.md only when every run succeeded.
# Never part of ctest: timings are reported, never asserted.
set -euo pipefail

die() { printf 'run-install.sh: %s\n' "$*" >&2; exit 1; }
say() { printf '== %s\n' "$*" >&2; }

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
self=$here/$(basename "$0")
build=${1:-$src/build-bench}
runs=${PYRT_BENCH_RUNS:-9}
results=$here/results-install.md

[ $# -le 1 ] || die "usage: run-install.sh [BUILD_DIR]"
[[ $runs =~ ^[0-9]+$ ]] && [ "$runs" -ge 5 ] || die "PYRT_BENCH_RUNS must be a number >= 5"
[ "$(id -u)" -eq 0 ] || die "run as root: the runs happen on a tmpfs this script mounts"

mnt='' mirror_pid=''
cleanup() {
	if [ -n "$mirror_pid" ]; then
		kill "$mirror_pid" 2>/dev/null || true
		wait "$mirror_pid" 2>/dev/null || true
	fi
	if [ -n "$mnt" ]; then
		umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true
		rmdir "$mnt" 2>/dev/null || true
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# /usr/bin/time (Debian's `time`) gives peak RSS; install it only if missing.
need_tools() {
	local t
	if [ ! -x /usr/bin/time ]; then
		say "installing Debian's time package for /usr/bin/time"
		apt-get install -y time >/dev/null || die "apt-get install time failed"
	fi
	for t in cmake curl sha256sum tar gzip python3 mount umount flock; do
		command -v "$t" >/dev/null 2>&1 || die "$t not found"
	done
}

build_pyrt() {
	say "building pyrt (Release, -O2) in $build"
	cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" -DBUILD_TESTING=OFF >/dev/null
	cmake --build "$build" -j"$(nproc)" --target pyrt >/dev/null
	pyrt=$build/pyrt
	[ -x "$pyrt" ] || die "no pyrt binary in $build"
}

# The 4x archive: the fixture tree plus python/pad1..3/<copy of it>, packed
# the way make-runtime.sh packs (sorted, fixed owner/mtime), with its own pins.
make_4x() {
	local fx=$1 out=$1/www/pbs/fixture/runtime4x.tar.gz
	if [ -s "$out" ] && [ -s "$fx/pins-4x.yaml" ] &&
		! [ "$fx/runtime.tar.gz" -nt "$out" ] && ! [ "$self" -nt "$out" ]; then
		return 0
	fi
	say "building the 4x archive"
	local tmp n sha size
	tmp=$(mktemp -d "$mnt/x4.XXXXXX")
	tar -xzf "$fx/runtime.tar.gz" -C "$tmp"
	ls "$tmp"/python/lib/python3.*/os.py >/dev/null 2>&1 ||
		die "no stdlib found in the fixture archive"
	# Each pad holds a copy of the whole fixture tree (stdlib, lib-dynload,
	# pip, the interpreter binary): the stdlib alone is about half the bytes,
	# and three copies of it made only a 2.4x archive.
	local top=("$tmp"/python/*)
	for n in 1 2 3; do
		mkdir "$tmp/python/pad$n"
		cp -a "${top[@]}" "$tmp/python/pad$n/"
	done
	tar -C "$tmp" --sort=name --format=gnu --owner=0 --group=0 --numeric-owner \
		--mtime=@1704067200 --mode='u+rwX,go+rX,go-w' -cf - python |
		gzip -6 -n >"$out.tmp"
	rm -rf "$tmp"
	sha=$(sha256sum "$out.tmp" | cut -d' ' -f1)
	size=$(stat -c %s "$out.tmp")
	# Same version and build ("fixture") as pins.yaml; only url/sha256/size differ.
	sed -e "s#\(url: .*/\)runtime\.tar\.gz#\1runtime4x.tar.gz#" \
		-e "s#sha256: .*#sha256: $sha#" -e "s#size: .*#size: $size#" \
		"$fx/pins.yaml" >"$fx/pins-4x.yaml.tmp"
	grep -q "runtime4x.tar.gz" "$fx/pins-4x.yaml.tmp" || die "could not write pins-4x.yaml"
	printf '%s\n' "$sha" >"$fx/runtime4x.sha256"
	mv -f "$fx/pins-4x.yaml.tmp" "$fx/pins-4x.yaml"
	mv -f "$out.tmp" "$out" # last: it is the freshness stamp
}

fixtures() {
	fxsrc=$build/fixtures
	say "building fixtures in $fxsrc"
	bash "$src/tests/fixtures/build-fixtures.sh" "$fxsrc" 2>&1 | sed 's/^/   /' >&2
	(
		flock 9
		make_4x "$fxsrc"
	) 9>"$fxsrc/.lock"
	# Served and read from the tmpfs, so both tools see the same fast source.
	fx=$mnt/fx
	mkdir -p "$fx/www/pbs/fixture"
	cp "$fxsrc/ca.pem" "$fxsrc/server.pem" "$fxsrc/server.key" "$fxsrc/pins.yaml" \
		"$fxsrc/pins-4x.yaml" "$fx/"
	cp "$fxsrc/www/pbs/fixture/runtime.tar.gz" "$fxsrc/www/pbs/fixture/runtime4x.tar.gz" \
		"$fx/www/pbs/fixture/"
	sha_1x=$(cat "$fxsrc/runtime.sha256")
	sha_4x=$(cat "$fxsrc/runtime4x.sha256")
}

mount_tmpfs() {
	mnt=$(mktemp -d /tmp/pyrt-bench.XXXXXX)
	mount -t tmpfs -o size=6g,mode=0700 pyrt-bench "$mnt" || die "mount -t tmpfs failed"
}

start_mirror() {
	python3 "$src/tests/fixtures/mirror.py" --root "$fx/www" --cert "$fx/server.pem" \
		--key "$fx/server.key" --port-file "$mnt/port" --log /dev/null \
		--lifetime 1800 2>/dev/null &
	mirror_pid=$!
	local _
	for _ in $(seq 100); do [ -s "$mnt/port" ] && break; sleep 0.1; done
	[ -s "$mnt/port" ] || die "the loopback mirror did not start"
	port=$(cat "$mnt/port")
	mirror=https://127.0.0.1:$port/pbs
}

# size -> pins file, archive URL, sha
pins_for() { [ "$1" = 1x ] && echo "$fx/pins.yaml" || echo "$fx/pins-4x.yaml"; }
url_for() { [ "$1" = 1x ] && echo "$mirror/fixture/runtime.tar.gz" || echo "$mirror/fixture/runtime4x.tar.gz"; }
sha_for() { [ "$1" = 1x ] && echo "$sha_1x" || echo "$sha_4x"; }

# The shell pipeline, run in its own fresh directory by `bash -c`.
pipeline='cd "$1" && curl -sS --cacert "$2" -o f.tgz "$3" && echo "$4  f.tgz" | sha256sum -c --quiet && mkdir s && tar -xzf f.tgz -C s && mv s/python dest'

# run KIND SIZE DIR: one measured run in the fresh DIR; sets wall (s),
# rss (KiB) and cpu (user+sys s, the run's whole process tree).
run_one() {
	local kind=$1 size=$2 dir=$3 t0 t1 rc=0 ok pins url sha
	# Looked up before the clock starts: no subshells inside the timing.
	pins=$(pins_for "$size") url=$(url_for "$size") sha=$(sha_for "$size")
	mkdir "$dir"
	if [ "$kind" = pyrt ]; then
		t0=$EPOCHREALTIME
		/usr/bin/time -f "%M %U %S" -o "$dir.rss" "$pyrt" install --yes --no-baseline \
			--box-root "$dir/box" --pins "$pins" --mirror "$mirror" \
			--cacert "$fx/ca.pem" >"$dir.log" 2>&1 || rc=$?
		t1=$EPOCHREALTIME
		ok=$dir/box/runtime/python/current/bin/python3
	else
		t0=$EPOCHREALTIME
		/usr/bin/time -f "%M %U %S" -o "$dir.rss" bash -c "$pipeline" pipeline "$dir" \
			"$fx/ca.pem" "$url" "$sha" >"$dir.log" 2>&1 || rc=$?
		t1=$EPOCHREALTIME
		ok=$dir/dest/bin/python3
	fi
	if [ "$rc" -ne 0 ] || [ ! -x "$ok" ]; then
		sed 's/^/   /' "$dir.log" >&2
		die "$kind $size run failed (exit $rc); results not written"
	fi
	wall=$(python3 -c 'import sys; print("%.6f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$t0" "$t1")
	read -r rss cpu_user cpu_sys < <(tail -n1 "$dir.rss")
	cpu=$(python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) + float(sys.argv[2])))' "$cpu_user" "$cpu_sys")
}

# Size of the extracted tree, from a warm-up run's result.
tree_stats() {
	local size=$1 root=$2
	printf '%s\t%s\t%s\n' "$size" "$(find "$root" | wc -l)" "$(du -sb "$root" | cut -f1)" \
		>>"$mnt/trees.tsv"
}

# Per-step times from one extra, untimed `pyrt install --json` run.
breakdown() {
	local size=$1 dir=$2
	mkdir "$dir"
	"$pyrt" install --yes --no-baseline --json --box-root "$dir/box" \
		--pins "$(pins_for "$size")" --mirror "$mirror" --cacert "$fx/ca.pem" \
		>"$dir.json" 2>/dev/null || die "pyrt --json $size run failed"
	python3 - "$size" "$dir.json" >>"$mnt/steps.tsv" <<'EOF'
import json, sys
size, path = sys.argv[1], sys.argv[2]
begin = {}
for line in open(path):
    e = json.loads(line)
    if e["event"] == "step" and e["state"] == "begin":
        begin[e["step"]] = e["t"]
    elif e["event"] == "step" and e["state"] == "end" and e["step"] in begin:
        print("%s\t%s\t%.3f" % (size, e["step"], e["t"] - begin[e["step"]]))
    elif e["event"] == "result":
        print("%s\ttotal\t%.3f" % (size, e["t"]))
EOF
	rm -rf "$dir" "$dir.json"
}

bench() {
	local size i kind n=0 d
	: >"$mnt/runs.tsv"
	for size in 1x 4x; do
		say "$size: warm-up (untimed), then $runs x (pyrt, shell)"
		for kind in pyrt shell; do
			d=$mnt/warm-$size-$kind
			run_one "$kind" "$size" "$d"
			[ "$kind" = shell ] && tree_stats "$size" "$d/dest"
			rm -rf "$d"
		done
		for i in $(seq "$runs"); do
			for kind in pyrt shell; do
				n=$((n + 1))
				d=$mnt/run-$n-$size-$kind
				run_one "$kind" "$size" "$d"
				printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$size" "$kind" "$i" "$wall" "$rss" "$cpu" >>"$mnt/runs.tsv"
				printf '   %s %-5s #%d  %.3f s  %d KiB  cpu %s s\n' "$size" "$kind" "$i" "$wall" "$rss" "$cpu" >&2
				rm -rf "$d" "$d.log" "$d.rss"
			done
		done
		for i in 1 2 3; do breakdown "$size" "$mnt/steps-$size-$i"; done
	done
}

report() {
	local machine rev
	machine="nproc $(nproc), CPU $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1), kernel $(uname -r), filesystem=tmpfs"
	rev=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
	git -C "$src" diff --quiet HEAD -- core cli 2>/dev/null || rev="$rev+uncommitted core/cli changes"
	python3 - "$mnt" "$machine" "$rev" "$runs" "$load_start" "$(cut -d' ' -f1-3 /proc/loadavg)" \
		"$(stat -c %s "$fx/www/pbs/fixture/runtime.tar.gz")" \
		"$(stat -c %s "$fx/www/pbs/fixture/runtime4x.tar.gz")" >"$mnt/results.md" <<'EOF'
import statistics as st, sys, time
mnt, machine, rev, runs, load0, load1, a1, a4 = sys.argv[1:9]
rows = [l.rstrip("\n").split("\t") for l in open(mnt + "/runs.tsv")]
trees = {l.split("\t")[0]: l.rstrip("\n").split("\t")[1:] for l in open(mnt + "/trees.tsv")}
steps = {}
for l in open(mnt + "/steps.tsv"):
    size, step, t = l.rstrip("\n").split("\t")
    steps.setdefault((size, step), []).append(float(t))
arch = {"1x": int(a1), "4x": int(a4)}
data = {}
for size, kind, _, wall, rss, cpu in rows:
    data.setdefault((size, kind), ([], [], []))
    data[(size, kind)][0].append(float(wall))
    data[(size, kind)][1].append(int(rss) / 1024.0)
    data[(size, kind)][2].append(float(cpu))
med = {k: (st.median(v[0]), st.median(v[1]), st.median(v[2])) for k, v in data.items()}
out = []
p = out.append
p("# pyrt install benchmark: results")
p("")
p("Written by `bench/run-install.sh` on %s (pyrt %s, Release -O2)." %
  (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), rev))
p("")
p("Machine: %s. Load average (1/5/15 min) before the runs: %s; after: %s." % (machine, load0, load1))
p("")
p("%s timed runs per tool and size, alternating pyrt, shell, pyrt, shell, ... "
  "after one untimed warm-up of each; every run in a fresh directory on tmpfs; "
  "archive served over loopback HTTPS by tests/fixtures/mirror.py." % runs)
p("")
p("| size | archive | extracted tree | tool | wall median | wall min–max | CPU median | peak RSS median | RSS min–max |")
p("|---|---:|---:|---|---:|---:|---:|---:|---:|")
for size in ("1x", "4x"):
    ent, byt = trees[size]
    for kind in ("pyrt", "shell"):
        w, r, c = data[(size, kind)]
        p("| %s | %.1f MB | %s entries, %.1f MB | %s | %.3f s | %.3f–%.3f s | %.2f s | %.1f MiB | %.1f–%.1f MiB |" % (
            size, arch[size] / 1e6, ent, int(byt) / 1e6, kind, st.median(w), min(w), max(w),
            st.median(c), st.median(r), min(r), max(r)))
p("")
p("| size | pyrt/shell wall (medians) | pyrt/shell wall (best runs) | pyrt/shell CPU (medians) | pyrt/shell peak RSS (medians) |")
p("|---|---:|---:|---:|---:|")
for size in ("1x", "4x"):
    p("| %s | %.2f× | %.2f× | %.2f× | %.2f× |" % (size, med[(size, "pyrt")][0] / med[(size, "shell")][0],
        min(data[(size, "pyrt")][0]) / min(data[(size, "shell")][0]),
        med[(size, "pyrt")][2] / med[(size, "shell")][2],
        med[(size, "pyrt")][1] / med[(size, "shell")][1]))
p("")
g = med[("4x", "pyrt")][1] - med[("1x", "pyrt")][1]
peak = max(max(data[(s, "pyrt")][1]) for s in ("1x", "4x"))
r1 = med[("1x", "pyrt")][0] / med[("1x", "shell")][0]
r4 = med[("4x", "pyrt")][0] / med[("4x", "shell")][0]
def verdict(ok): return "met" if ok else "NOT met"
p("Targets:")
p("")
p("- wall ≤ 0.9× the shell pipeline: 1x %.2f×, 4x %.2f× — %s" % (r1, r4, verdict(r1 <= 0.9 and r4 <= 0.9)))
p("- pyrt peak RSS ≤ 24 MiB: highest of all runs %.1f MiB — %s" % (peak, verdict(peak <= 24)))
p("- pyrt peak RSS flat from 1x to 4x (≤ 1 MiB growth): %+.2f MiB (medians) — %s" % (g, verdict(g <= 1)))
p("")
p("pyrt's time by step (3 extra untimed runs with `--json`, medians of the "
  "events' `t`; `total` is the time of the result event):")
p("")
order = ["lock", "download", "verify", "extract", "check", "activate", "total"]
p("| size | " + " | ".join(order) + " |")
p("|---|" + "---:|" * len(order))
for size in ("1x", "4x"):
    p("| %s | " % size + " | ".join("%.3f s" % st.median(steps.get((size, s), [0.0])) for s in order) + " |")
p("")
p("Caveats:")
p("")
p("- pyrt does more than the pipeline: it starts the staged interpreter once "
  "(`check`), writes a manifest with a SHA-256 per file, and makes the staged "
  "tree durable (syncfs, plus fsync of the directories it renames in) before "
  "the atomic switch of `current`. The shell pipeline does not sync at all. "
  "On tmpfs syncfs and fsync are nearly free, so on a disk pyrt pays more "
  "than shown here.")
p("- Peak RSS is /usr/bin/time's %M: the largest single process of the run "
  "(for pyrt also the interpreter check it starts; for the shell pipeline "
  "the largest of bash, curl, sha256sum, tar and gzip), not a sum.")
p("- CPU is user+sys of the whole process tree (/usr/bin/time %U+%S, 10 ms "
  "resolution); it is steadier than wall time when other work shares the CPUs.")
p("- The pipeline's sha256sum is coreutils' (no SHA-NI); pyrt hashes with "
  "OpenSSL (SHA-NI on this CPU) while the bytes arrive, so it has no separate "
  "hashing pass.")
p("- Wall time is bash's $EPOCHREALTIME (the clock of `date +%s.%N`) around "
  "`/usr/bin/time`; the pipeline's time includes its `bash -c`.")
p("- The mirror is a Python HTTPS server on the same machine; both tools "
  "share it and the CPUs with it. Other work on the machine shows up as "
  "spread; compare medians.")
sys.stdout.write("\n".join(out) + "\n")
EOF
	cat "$mnt/results.md"
	cp "$mnt/results.md" "$results.tmp" && mv -f "$results.tmp" "$results"
	say "wrote $results"
}

need_tools
build_pyrt
mount_tmpfs
fixtures
start_mirror
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
bench
report
