#!/usr/bin/env python3
"""bench/run's report: RESULTS.md and the gnuplot input for plot.png.

    report.py WORK RESULTS_MD PLOT_DAT PLOT_GP PLOT_PNG

Reads the tab-separated files bench/run leaves in WORK (runs, components,
archives, trees, steps, queries, bandwidth, meta) and writes the Markdown
report, the plot data and the gnuplot script.  Targets are reported (met /
NOT met, with the numbers), never asserted: the exit status only says
whether the inputs could be read.
"""

import json
import os
import statistics as st
import sys
import time

CONTENDERS = [
    ("pyrt", "pyrt install --no-baseline"),
    ("simple", "shell: curl -o && sha256sum -c && tar -xzf && mv"),
    ("best", "shell: curl | tee | openssl dgst; bsdtar -xzf; mv"),
    ("stream", "shell: curl | tee >(sha256sum) | tar -xz (unsafe, reference)"),
    ("streamb", "(e) shell: curl | tee >(sha256sum) | bsdtar -x (unsafe, streaming)"),
    ("python", "Python reference (bench/reference.py)"),
]
PEERS = ["simple", "best", "python"]  # the safe peers the targets name
COMPONENTS = [
    ("c_dl", "download to /dev/null (curl)"),
    ("c_sha256sum", "SHA-256 of the file (sha256sum)"),
    ("c_openssl", "SHA-256 of the file (openssl dgst)"),
    ("c_gunzip", "gzip decompression to /dev/null (gzip -dc, or pigz -dc when installed)"),
    ("c_zlib", "gzip decompression by zlib, output dropped (python3 -I -S, start included)"),
    ("c_untar", "extraction of the uncompressed tar (bsdtar -xf)"),
    ("c_bsdtar", "bsdtar -xzf of the archive (cross-check)"),
]
HF_START = [
    ("true", "`true`"),
    ("bare", "`current/bin/python3 -S -c pass`"),
    ("status", "`pyrt status`"),
    ("status_json", "`pyrt status --json`"),
    ("help", "`pyrt --help`"),
    ("version", "`pyrt --version`"),
    ("plugins", "`pyrt plugins --json`, nothing changed since the last answer"),
]
HF_COLD = [
    ("plugins_cold", "`pyrt plugins --json`, nothing remembered (every manifest parsed, every requirement decided)"),
    ("bare_cold", "`current/bin/python3 -S -c pass` (same run)"),
]
MB = 1e6
MIB = 1024.0 * 1024.0


def rows(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [l.rstrip("\n").split("\t") for l in f if l.strip()]


def fmt_s(x):
    return "%.3f s" % x


def fmt_ms(x):
    return "%.2f ms" % (x * 1e3)


def cell(text):
    """Text for a Markdown table cell: a bare | would end the cell."""
    return text.replace("|", "\\|")


def download_share(path):
    """Bytes from the 'download: begin' line through 'download: done in X s',
    and X: what the line front end wrote while the download ran."""
    data = open(path, "rb").read()
    start = data.find(b"download: begin")
    done = data.find(b"download: done in ", start)
    if start < 0 or done < 0:
        return None
    end = data.find(b"\n", done)
    end = len(data) if end < 0 else end + 1
    try:
        secs = float(data[done + len(b"download: done in "):].split(b" ", 1)[0])
    except ValueError:
        return None
    return end - start, secs


def latency_s(text):
    """wrk's latency ("812.00us", "1.20ms", "2.01s") in seconds."""
    for unit, mul in (("us", 1e-6), ("ms", 1e-3), ("s", 1.0), ("m", 60.0)):
        if text.endswith(unit):
            try:
                return float(text[: -len(unit)]) * mul
            except ValueError:
                return float("nan")
    return float("nan")


def load_range(v):
    """The 1-min load averages seen at the runs' starts, as "a–b"."""
    if not v:
        return "?"
    return "%.1f" % min(v) if min(v) == max(v) else "%.1f–%.1f" % (min(v), max(v))


def verdict(ok):
    return "met" if ok else "**NOT met**"


class Data:
    def __init__(self, work):
        self.meta = {k: v for k, v in rows(os.path.join(work, "meta.tsv"))}
        self.quick = self.meta.get("quick") == "1"
        self.wall, self.rss, self.cpu, self.load = {}, {}, {}, {}
        for r in rows(os.path.join(work, "runs.tsv")):
            size, kind, _, t0, t1, rss, user, sys_ = r[:8]
            key = (size, kind)
            if len(r) > 8:
                self.load.setdefault(key, []).append(float(r[8]))
            self.wall.setdefault(key, []).append(float(t1) - float(t0))
            self.rss.setdefault(key, []).append(int(rss) * 1024.0)
            self.cpu.setdefault(key, []).append(float(user) + float(sys_))
        self.archives = {r[0]: (int(r[1]), int(r[2])) for r in rows(os.path.join(work, "archives.tsv"))}
        self.sizes = [s for s in ("1x", "2x", "4x") if s in self.archives]
        self.trees = {r[0]: (int(r[1]), int(r[2])) for r in rows(os.path.join(work, "trees.tsv"))}
        self.steps = {}
        for size, step, t in rows(os.path.join(work, "steps.tsv")):
            self.steps.setdefault((size, step), []).append(float(t))
        self.queries = {}
        for name, t0, t1 in rows(os.path.join(work, "queries.tsv")):
            self.queries.setdefault(name, []).append(float(t1) - float(t0))
        self.paint = None
        if os.path.exists(os.path.join(work, "tui-paint.json")):
            with open(os.path.join(work, "tui-paint.json")) as f:
                self.paint = json.load(f)
        # hyperfine's runs, in the order bench/run gives the commands.
        self.hf = {}
        for fname, keys in (("hf-start.json", HF_START), ("hf-cold.json", HF_COLD)):
            path = os.path.join(work, fname)
            if os.path.exists(path):
                with open(path) as f:
                    res = json.load(f)["results"]
                for (key, _), r in zip(keys, res):
                    self.hf[key] = r["times"]
        self.bandwidth = {}
        for mode, t0, t1, nbytes, nlines, path in rows(os.path.join(work, "bandwidth.tsv")):
            self.bandwidth[mode] = (float(t1) - float(t0), int(nbytes), int(nlines),
                                    download_share(os.path.join(work, path)))
        self.contenders = [(k, l) for k, l in CONTENDERS if ("1x", k) in self.wall]
        # Issue 28: plugins at 10/100/1,000 against true, serve against nginx.
        self.pscale = None
        path = os.path.join(work, "hf-pscale.json")
        if os.path.exists(path):
            with open(path) as f:
                res = json.load(f)["results"]
            counts = [int(x) for x in open(os.path.join(work, "pscale-counts.txt")).read().split()]
            keys = ["true", "status"] + ["plugins_%d" % n for n in counts]
            self.pscale = {"counts": counts, "load": dict(rows(os.path.join(work, "pscale-load.tsv"))),
                           "r": {k: r for k, r in zip(keys, res)}}
        self.serve = {}
        for who, c, _, rps, p99, n, ticks, load, errs in rows(os.path.join(work, "serve.tsv")):
            self.serve.setdefault((who, int(c)), []).append(
                (float(rps), latency_s(p99), int(n), int(ticks), float(load), int(errs)))
        self.serve_meta = dict(rows(os.path.join(work, "serve-meta.tsv")))
        self.tui = self.tui_failed = None
        tui = os.path.join(work, "tui-bandwidth.md")
        if os.path.exists(tui):
            self.tui = open(tui).read().strip()
        failed = os.path.join(work, "tui-failed.txt")
        if os.path.exists(failed):
            self.tui_failed = open(failed).read().strip()

    def tui_bps(self):
        """The progress screen's B/s from bench/tui-bandwidth.sh's table, or
        from its log line when the script failed after measuring it."""
        if not self.tui:
            for line in (self.tui_failed or "").splitlines():
                words = line.split()
                if line.startswith("== TUI: ") and len(words) == 4 and words[3] == "B/s":
                    try:
                        return float(words[2])
                    except ValueError:
                        return None
            return None
        for line in self.tui.splitlines():
            if line.startswith("| TUI progress screen"):
                cells = [c.strip() for c in line.strip("|").split("|")]
                try:
                    return float(cells[1].split()[0])
                except (IndexError, ValueError):
                    return None
        return None

    def med(self, size, kind):
        return st.median(self.wall[(size, kind)])

    def floors(self, size):
        """The machine's limits from the components' medians."""
        dl = self.med(size, "c_dl")
        hash_ = min(self.med(size, "c_sha256sum"), self.med(size, "c_openssl"))
        dec = min(self.med(size, "c_gunzip"), self.med(size, "c_zlib"))
        wr = self.med(size, "c_untar")
        return {
            "dl": dl, "hash": hash_, "dec": dec, "write": wr,
            "limit": max(dl, hash_, dec + wr),
            "sum": dl + hash_ + dec + wr,
            "floor": max(dl, hash_) + dec + wr,
            "floor2": max(dl, hash_) + max(dec, wr),
        }


def report(d):
    out = []
    p = out.append
    m = d.meta
    p("# pyrt against its peers: results" + (" (quick smoke run)" if d.quick else ""))
    p("")
    p("Written by `bench/run%s` on %s, pyrt %s (%s); the whole command took %s s." % (
        " --quick" if d.quick else "", time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        m.get("rev", "?"), m.get("build", "?"), m.get("elapsed", "?")))
    p("")
    p("**Machine:** %s. Load average (1/5/15 min) before the runs %s, after %s." % (
        m.get("machine", "?"), m.get("load_before", "?"), m.get("load_after", "?")))
    p("")
    try:
        ncpu = int(m.get("machine", "").split(",")[0].split()[1])
        loads = [float(m.get(k, "0").split()[0]) for k in ("load_before", "load_after")]
    except (IndexError, ValueError):
        ncpu, loads = 0, []
    if ncpu and loads and max(loads) > ncpu:
        p("**The machine was loaded during this run** (1-min load average up to %.1f on "
          "%d CPUs: other work was running beside it). Absolute times are inflated, "
          "`true` included; compare within a table, against the process start and the bare "
          "interpreter measured in the same run." % (max(loads), ncpu))
        p("")
    if d.quick:
        p("Quick mode: one round at 1x only, no warm-up, no targets. The numbers "
          "only show that every contender and every measurement still runs; "
          "do not compare them.")
        p("")
    p("**Method.** %s timed round%s after %s; each round runs every contender and "
      "component at every size in a fixed order (A B C … A B C …), so drift in the "
      "machine's load falls on all of them alike. Every timed run gets %s for its "
      "box, download and tree; the archives are served from "
      "another tmpfs by `tests/fixtures/mirror.py` over loopback HTTPS with the "
      "test CA. Wall time is bash's `$EPOCHREALTIME` around `/usr/bin/time`; "
      "peak RSS is `/usr/bin/time`'s `%%M`: the largest single process of the "
      "run (for a shell pipeline the largest of bash, curl, sha256sum/openssl, "
      "tee, tar/bsdtar, gzip), not a sum. The Python reference runs with %s. "
      "Decompression components: `%s`, and zlib's inflate alone (%s; inflating "
      "one gzip stream is single-threaded either way). Tools: %s." % (
          m.get("runs"), "" if m.get("runs") == "1" else "s",
          "no warm-up" if d.quick else "one untimed warm-up round",
          m.get("fs_method", "?"), m.get("refpy", "?"),
          m.get("gzip", "gzip -dc"),
          "pigz is installed and used" if m.get("gzip", "").startswith("pigz") else "pigz is not installed",
          m.get("tools", "?")))
    p("")

    # ---- archives
    p("## Archives")
    p("")
    p("The fixture runtime (Debian's python3.11 in python-build-standalone's "
      "`install_only` layout, with pip) is 1x; 2x and 4x add one and three "
      "copies of the same tree under `python/pad1..`, packed the same way "
      "(gzip -6), with bench pins carrying their real sha256 and size.")
    p("")
    p("| size | archive | uncompressed tar | extracted tree |")
    p("|---|---:|---:|---:|")
    for s in d.sizes:
        tgz, tar = d.archives[s]
        ent, byt = d.trees.get(s, (0, 0))
        p("| %s | %.1f MB | %.1f MB | %d entries, %.1f MB |" % (s, tgz / MB, tar / MB, ent, byt / MB))
    p("")

    # ---- main table
    p("## Install: wall time, CPU, peak RSS")
    p("")
    p("Medians of the timed runs; min–max in brackets.")
    p("")
    p("| contender | " + " | ".join("%s wall" % s for s in d.sizes) + " | " +
      " | ".join("%s CPU" % s for s in d.sizes) + " | " +
      " | ".join("%s peak RSS" % s for s in d.sizes) + " | 1-min load at the runs' starts |")
    p("|---|" + "---:|" * (3 * len(d.sizes)) + "---:|")
    for kind, label in d.contenders:
        cells = []
        for s in d.sizes:
            w = d.wall[(s, kind)]
            cells.append("%.3f s (%.3f–%.3f)" % (st.median(w), min(w), max(w)))
        for s in d.sizes:
            cells.append("%.2f s" % st.median(d.cpu[(s, kind)]))
        for s in d.sizes:
            r = d.rss[(s, kind)]
            cells.append("%.1f MiB" % (st.median(r) / MIB))
        cells.append(load_range([x for s in d.sizes for x in d.load.get((s, kind), [])]))
        p("| %s | %s |" % (cell(label), " | ".join(cells)))
    p("")

    # ---- ratios
    p("### pyrt / peer (wall-time medians; below 1 means pyrt is faster)")
    p("")
    p("| size | " + " | ".join("pyrt / %s" % k for k, _ in d.contenders[1:]) + " |")
    p("|---|" + "---:|" * (len(d.contenders) - 1))
    for s in d.sizes:
        p("| %s | " % s + " | ".join("%.2f×" % (d.med(s, "pyrt") / d.med(s, k))
                                    for k, _ in d.contenders[1:]) + " |")
    p("")

    # ---- components and floor
    p("## Components alone, and the machine's limits")
    p("")
    p("Medians (min–max). The hash components read the archive from the "
      "serving tmpfs (page cache); `bsdtar -xf` extracts the **uncompressed** "
      "tar (made once beforehand, not timed) so writing the tree is measured "
      "without decompression, which has its own line; `bsdtar -xzf` of the "
      "archive is shown as a cross-check of decompress+write done by one tool.")
    p("")
    p("| component | " + " | ".join(d.sizes) + " | 1-min load |")
    p("|---|" + "---:|" * len(d.sizes) + "---:|")
    for kind, label in COMPONENTS:
        cells = []
        for s in d.sizes:
            w = d.wall[(s, kind)]
            cells.append("%.3f s (%.3f–%.3f)" % (st.median(w), min(w), max(w)))
        cells.append(load_range([x for s in d.sizes for x in d.load.get((s, kind), [])]))
        p("| %s | %s |" % (cell(label), " | ".join(cells)))
    p("")
    p("From those medians (hash = the faster of sha256sum and openssl; "
      "decompress = the faster of gzip -dc (or pigz) and zlib — GNU gzip inflates with "
      "code of its own, slower than zlib's, which pyrt and bsdtar use; "
      "decompress+write = decompress + bsdtar -xf of the tar):")
    p("")
    p("| size | pipelined limit max(download, hash, decompress+write) | sequential sum | "
      "verify-then-extract floor max(download, hash) + decompress+write | "
      "two-thread floor max(download, hash) + max(decompress, write) | pyrt | "
      "pyrt / floor | pyrt / two-thread floor | pyrt / pipelined limit |")
    p("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in d.sizes:
        f = d.floors(s)
        pm = d.med(s, "pyrt")
        p("| %s | %s | %s | %s | %s | %s | %.2f× | %.2f× | %.2f× |" % (
            s, fmt_s(f["limit"]), fmt_s(f["sum"]), fmt_s(f["floor"]), fmt_s(f["floor2"]),
            fmt_s(pm), pm / f["floor"], pm / f["floor2"], pm / f["limit"]))
    p("")
    p("The floors leave out what only pyrt does: starting the staged interpreter "
      "once, hashing every extracted file for the manifest, and syncing before "
      "activation (see Durability).")
    p("")

    # ---- steps
    if d.steps:
        order = ["lock", "download", "verify", "extract", "check", "activate", "total"]
        p("pyrt's time by step (extra untimed `pyrt install --json` runs, medians of the events' `t`):")
        p("")
        p("| size | " + " | ".join(order) + " |")
        p("|---|" + "---:|" * len(order))
        for s in d.sizes:
            p("| %s | " % s + " | ".join(
                fmt_s(st.median(d.steps[(s, k)])) if (s, k) in d.steps else "–" for k in order) + " |")
        p("")

    # ---- growth
    if len(d.sizes) > 1:
        p("## Growth with archive size")
        p("")
        base = d.sizes[0]
        p("Median wall time relative to 1x (archive bytes: %s)." % ", ".join(
            "%s %.2f×" % (s, d.archives[s][0] / d.archives[base][0]) for s in d.sizes))
        p("")
        p("| contender | " + " | ".join(d.sizes) + " | peak RSS growth 1x→%s |" % d.sizes[-1])
        p("|---|" + "---:|" * (len(d.sizes) + 1))
        for kind, label in d.contenders:
            cells = ["%.2f×" % (d.med(s, kind) / d.med(base, kind)) for s in d.sizes]
            g = st.median(d.rss[(d.sizes[-1], kind)]) - st.median(d.rss[(base, kind)])
            p("| %s | %s | %+.2f MiB |" % (cell(label), " | ".join(cells), g / MIB))
        p("")
        p("![time vs archive size](plot.png)")
        p("")

    # ---- queries
    p("## Start-up and queries")
    p("")
    q = d.queries
    p("On a box with the fixture runtime, the baseline from the fixture wheelhouse "
      "and the seven sample-box plugins (box on the serving tmpfs).")
    p("")
    p("| command | runs | median | min–max |")
    p("|---|---:|---:|---:|")
    for name, label in (("status", "`pyrt status`"), ("status_json", "`pyrt status --json`"),
                        ("plugins_json", "`pyrt plugins --json` (nothing changed since the last answer)"),
                        ("plugins_cold", "`pyrt plugins --json` (nothing remembered: every manifest parsed, every requirement decided)"),
                        ("bare_python", "`current/bin/python3 -I -c pass`")):
        if name in q:
            v = q[name]
            p("| %s | %d | %s | %s–%s |" % (label, len(v), fmt_ms(st.median(v)), fmt_ms(min(v)), fmt_ms(max(v))))
    p("")
    if "plugins_json" in q and "bare_python" in q:
        p("`pyrt plugins --json` / one bare interpreter start: %.2f× (medians) when "
          "nothing changed since the last answer (answered from "
          "`runtime/python/cache/plugins-check.json`, no interpreter)%s." % (
              st.median(q["plugins_json"]) / st.median(q["bare_python"]),
              "; %.2f× with nothing remembered, when it starts the runtime once (one run "
              "checks every plugin's `requires_pip`)" % (
                  st.median(q["plugins_cold"]) / st.median(q["bare_python"]))
              if "plugins_cold" in q else ""))
        p("")
    parts = (("exec_true", "`/bin/true` (starting any process on this machine)"),
             ("pyrt_version", "`pyrt --version` (pyrt loading its %s shared libraries, no work)" %
              m.get("pyrt_libs", "?")),
             ("py_metadata", "`python3 -I -c 'import importlib.metadata'`"),
             ("py_packaging", "`python3 -I -c 'import pip._vendor.packaging.requirements'`"))
    if all(k in q for k, _ in parts):
        p("What those are made of (each alternated with the commands above, same box):")
        p("")
        p("| command | runs | median | min–max |")
        p("|---|---:|---:|---:|")
        for name, label in parts:
            v = q[name]
            p("| %s | %d | %s | %s–%s |" % (label, len(v), fmt_ms(st.median(v)), fmt_ms(min(v)), fmt_ms(max(v))))
        p("")
        if "status" in q:
            p("`pyrt status` − `pyrt --version` = %s (medians; `--version` reads the pins "
              "and detects the platform too); `pyrt --version` − `/bin/true` = %s is "
              "loading pyrt's shared libraries and that work." % (
                  fmt_ms(st.median(q["status"]) - st.median(q["pyrt_version"])),
                  fmt_ms(st.median(q["pyrt_version"]) - st.median(q["exec_true"]))))
            p("")

    if d.hf:
        p("### Start-up measured with hyperfine (issue 13)")
        p("")
        p("`hyperfine -N` (no shell), warm-up runs first, all commands of a table in "
          "one hyperfine run; the first table alternates nothing (hyperfine runs each "
          "command's runs in a row), so compare within it. pyrt maps %s shared "
          "libraries at start; libcurl, libarchive and zlib (and their ~37 dependencies) "
          "are dlopen()ed by the commands that download or extract, libcrypto by "
          "those that hash (status remembers the digests it checked in the box, "
          "core/dist/digest_memo.h, and hashes nothing on a box it has seen), libyaml by "
          "those that parse a YAML file (the built-in pins are parsed when pyrt is "
          "built; plugins remembers each plugin.yaml's parse with its bytes); the "
          "plugin check decides bare names and plain version specifiers in C and "
          "starts the runtime only for what C cannot decide (core/util/pep440.h)." %
          m.get("pyrt_libs", "?"))
        p("")
        p("| command | runs | median | min–max |")
        p("|---|---:|---:|---:|")
        for key, label in HF_START + HF_COLD:
            if key in d.hf:
                v = d.hf[key]
                p("| %s | %d | %s | %s–%s |" % (label, len(v), fmt_ms(st.median(v)),
                                             fmt_ms(min(v)), fmt_ms(max(v))))
        p("")

    if d.paint:
        pt = d.paint
        p("### The TUI's first complete dashboard (bench/tui-paint.py)")
        p("")
        if pt.get("median_ms") is not None:
            p("From fork+exec of `pyrt --box-root BOX` on a %dx%d pty to the last byte of the "
              "first frame that holds the runtime card and every plugin's verdict (the idle "
              "dashboard then writes nothing): median %.0f ms (%.0f–%.0f), %d of %d runs "
              "complete." % (pt["cols"], pt["rows"], pt["median_ms"], pt["min_ms"],
                             pt["max_ms"], pt["complete_runs"], len(pt["runs"])))
        else:
            p("No run painted a complete dashboard: %s" % pt["runs"])
        p("")

    # ---- terminal
    p("## Terminal bandwidth")
    p("")
    bps = m.get("slow_bps", "?")
    p("`pyrt install --yes --no-baseline` of the 1x archive with the download "
      "throttled by the mirror to %s B/s (`?fault=slow:`): all bytes pyrt "
      "wrote over the whole install, divided by its wall time, and the bytes "
      "written from the `download: begin` line through the `download: done in "
      "X s` line, divided by X (the download step)." % bps)
    p("")
    p("| front end | wall | bytes | lines | whole install | during the download |")
    p("|---|---:|---:|---:|---:|---:|")
    for mode, label in (("headless", "lines, headless (stdout/stderr a file)"),
                        ("pty_lines", "lines on a 100×30 pty (`script`, with `--yes`)")):
        if mode in d.bandwidth:
            w, b, n, share = d.bandwidth[mode]
            during = ("%d B in %.1f s: %.0f B/s" % (share[0], share[1], share[0] / share[1])
                      if share and share[1] > 0 else "–")
            p("| %s | %.1f s | %d | %d | %.0f B/s | %s |" % (label, w, b, n, b / w, during))
    p("")
    if d.tui:
        p("The TUI, from `bench/tui-bandwidth.sh` (run by bench/run; tmux at 100×30, "
          "`pipe-pane` counts every byte the pane receives):")
        p("")
        for line in d.tui.splitlines():
            p(line.replace("# ", "### ", 1) if line.startswith("# ") else line)
    elif d.tui_failed:
        p("The TUI figure should come from `bench/tui-bandwidth.sh`; it failed in this run:")
        p("")
        p("```")
        p(d.tui_failed)
        p("```")
    else:
        p("The TUI figure (progress screen at 100×30 during a download) comes from "
          "`bench/tui-bandwidth.sh`; %s." % m.get("tui_note", "it did not run"))
    p("")

    # ---- durability
    p("## Durability")
    p("")
    p("Counted in pyrt's times above: before `current` changes, pyrt writes the "
      "marker and manifest (each fsync'd, then renamed, then its directory "
      "fsync'd), calls `syncfs(2)` on the staged tree's filesystem (one call, "
      "not an fsync per file), renames the staged tree into `installs/` and "
      "fsyncs that directory, then swaps `current` by `rename(2)` of a new "
      "symlink and fsyncs the runtime directory. The shell peers and the Python "
      "reference sync nothing. On tmpfs syncfs and fsync are nearly free, so on "
      "a disk pyrt pays more than shown here and the peers' data may still be "
      "in the page cache when they finish.")
    p("")

    issue28(d, p)

    # ---- targets
    if not d.quick:
        p("## Targets (issue 5), reported, not asserted")
        p("")
        p("Load average %s before the runs and %s after, on %s CPUs; the install "
          "ratios move with it (compare the min–max spreads above)." % (
              m.get("load_before", "?").split()[0], m.get("load_after", "?").split()[0],
              m.get("machine", "nproc ?").split(",")[0].replace("nproc ", "")))
        p("")
        for kind, lim in (("simple", 0.75), ("best", 1.0), ("python", 0.4)):
            r = {s: d.med(s, "pyrt") / d.med(s, kind) for s in d.sizes}
            p("- pyrt ≤ %.2f× %s (medians): %s — %s" % (
                lim, dict(CONTENDERS)[kind],
                ", ".join("%s %.2f×" % (s, r[s]) for s in d.sizes),
                verdict(all(v <= lim for v in r.values()))))
        r = {s: d.med(s, "pyrt") / d.floors(s)["floor"] for s in d.sizes}
        r2 = {s: d.med(s, "pyrt") / d.floors(s)["floor2"] for s in d.sizes}
        p("- within 1.3× of the verify-then-extract floor: %s (against the stricter "
          "two-thread floor: %s) — %s" % (
              ", ".join("%s %.2f×" % (s, r[s]) for s in d.sizes),
              ", ".join("%s %.2f×" % (s, r2[s]) for s in d.sizes),
              verdict(all(v <= 1.3 for v in r.values()))))
        peak = max(max(d.rss[(s, "pyrt")]) for s in d.sizes)
        p("- peak RSS ≤ 24 MB: highest of all pyrt runs %.1f MiB (%.1f MB) — %s" % (
            peak / MIB, peak / MB, verdict(peak <= 24 * MB)))
        g = st.median(d.rss[(d.sizes[-1], "pyrt")]) - st.median(d.rss[(d.sizes[0], "pyrt")])
        p("- peak RSS growth 1x→%s ≤ 1 MB: %+.2f MiB (%+.2f MB, medians) — %s" % (
            d.sizes[-1], g / MIB, g / MB, verdict(g <= 1 * MB)))
        if "4x" in d.sizes:
            t = d.med("4x", "pyrt") / d.med("1x", "pyrt")
            a = d.archives["4x"][0] / d.archives["1x"][0]
            p("- time growth 1x→4x ≤ 4.4× (archive %.2f×): %.2f× — %s" % (a, t, verdict(t <= 4.4)))
        hf = d.hf
        if all(k in hf for k in ("true", "bare", "status", "status_json", "help", "version")):
            med = {k: st.median(v) for k, v in hf.items()}
            worst = max(med[k] for k in ("status", "status_json", "help", "version"))
            p("- (issue 13.1) `pyrt status` ≤ 5 ms (hyperfine medians): status %s, "
              "`--json` %s, `--help` %s, `--version` %s; `true` %s and a bare "
              "`python3 -S -c pass` %s in the same run — %s" % (
                  fmt_ms(med["status"]), fmt_ms(med["status_json"]), fmt_ms(med["help"]),
                  fmt_ms(med["version"]), fmt_ms(med["true"]), fmt_ms(med["bare"]),
                  verdict(worst <= 0.005)))
            if "plugins" in med:
                p("- (issue 13.2) `pyrt plugins --json` ≤ 5 ms when nothing changed since "
                  "the last answer: %s — %s" % (fmt_ms(med["plugins"]),
                                               verdict(med["plugins"] <= 0.005)))
            if "plugins_cold" in med and "bare_cold" in med:
                r = med["plugins_cold"] / med["bare_cold"]
                p("- (issue 13.2) `pyrt plugins --json` ≤ 1.5× one bare interpreter start, "
                  "nothing remembered: %s against %s, %.2f× — %s%s" % (
                      fmt_ms(med["plugins_cold"]), fmt_ms(med["bare_cold"]), r,
                      verdict(r <= 1.5), "" if r <= 1.5 else
                      " (a requirement C could not decide started the checker, which "
                      "imports importlib.metadata and pip's vendored packaging)"))
        p("- (issue 13) for each target above: what was tried and measured, by how much "
          "one is missed, and what would close it — bench/README.md, \"Where issue 13 "
          "stands\" (written by hand from this file's runs: a run measures, it cannot "
          "say why)")
        p("- (issue 13.4) nothing to a verified .docx (install with the wheelhouse baseline, "
          "then `pyrt smoke`) ≤ 0.8× the shell script doing the same — not run by "
          "bench/run: `bench/docx.sh` measures it; %s" % standalone("results-docx.md"))
        p("- (issue 18.7) the baseline step from a wheelhouse: `pyrt baseline --wheelhouse` "
          "(the fast path) ≥ 2× faster than the runtime's pip doing the same, on a runtime "
          "carrying the stdlib's and pip's bytecode — not run by bench/run: `bench/docx.sh` "
          "measures it with hyperfine; %s" % standalone("results-docx.md", "target ≥ 2×"))
        p("- (issue 13.5) 250k-file synthetic tree, pyrt ≤ 0.9× `tar -xzf` on tmpfs — "
          "not run by bench/run: `bench/scale250k.sh` measures it; %s"
          % standalone("results-scale250k.md"))
        p("- (issues 11 and 19.1) `pyrt serve`: GET status under wrk, 64 and 300 "
          "keep-alive connections — not run by bench/run: `bench/serve-bench.sh` "
          "measures it; %s" % standalone("results-serve.md"))
        if d.paint and d.paint.get("median_ms") is not None:
            v = d.paint["median_ms"]
            p("- (issue 13.3) the TUI paints a complete dashboard ≤ 100 ms after start: "
              "%.0f ms (median of %d) — %s" % (v, d.paint["complete_runs"], verdict(v <= 100)))
        if "status" in q:
            v = st.median(q["status"])
            vj = st.median(q["status_json"]) if "status_json" in q else float("nan")
            why = ""
            if "exec_true" in q and "pyrt_version" in q:
                why = ("; of it, starting any process here takes %s and pyrt's %s shared "
                       "libraries about %s more (`pyrt --version`)" % (
                           fmt_ms(st.median(q["exec_true"])), m.get("pyrt_libs", "?"),
                           fmt_ms(st.median(q["pyrt_version"]) - st.median(q["exec_true"]))))
            # The issue measures with hyperfine (13.1 above); this loop's
            # times include bash's own fork and exec, so no verdict here.
            p("- `pyrt status` timed by the bash loop (fork and exec by bash "
              "included; the target is judged on hyperfine's figure above): %s "
              "(`--json` %s)%s" % (fmt_ms(v), fmt_ms(vj), why))
        pk = "plugins_cold" if "plugins_cold" in q else "plugins_json"
        if pk in q and "bare_python" in q:
            r = st.median(q[pk]) / st.median(q["bare_python"])
            why = ""
            if "py_metadata" in q and "py_packaging" in q:
                why = ("; a bare start takes %s, a start that imports importlib.metadata %s, "
                       "one that imports pip's vendored packaging.requirements %s" % (
                           fmt_ms(st.median(q["bare_python"])), fmt_ms(st.median(q["py_metadata"])),
                           fmt_ms(st.median(q["py_packaging"]))))
            p("- `pyrt plugins --json`%s ≤ 1.5× one bare interpreter start: %.2f×%s — %s" % (
                " with nothing remembered" if pk == "plugins_cold" else "", r, why,
                verdict(r <= 1.5)))
        if "headless" in d.bandwidth:
            w, b, _, share = d.bandwidth["headless"]
            if share and share[1] > 0:
                p("- headless line mode ≤ 200 B/s during a download: %.0f B/s (%.0f B/s over "
                  "the whole install, step lines included) — %s" % (
                      share[0] / share[1], b / w, verdict(share[0] / share[1] <= 200)))
            else:
                p("- headless line mode ≤ 200 B/s during a download: no download lines found "
                  "(%.0f B/s over the whole install) — **NOT met**" % (b / w))
        tb = d.tui_bps()
        if tb is not None:
            p("- TUI ≤ 2 KB/s during a download: %.0f B/s (bench/tui-bandwidth.sh%s) — %s" % (
                tb, "; read from its log, the script failed after this figure" if not d.tui else "",
                verdict(tb <= 2048)))
        else:
            p("- TUI ≤ 2 KB/s: no figure in this run (bench/tui-bandwidth.sh %s)" % (
                "failed" if d.tui_failed else "not present"))
        p("")
    return "\n".join(out) + "\n"


def issue28(d, p):
    """Plugins at 10/100/1,000 against true, serve against nginx, and the
    goals of issue 28 as a table, each with its load."""
    ps = d.pscale
    if ps:
        r = ps["r"]
        tmed = st.median(r["true"]["times"])
        tcpu = r["true"]["user"] + r["true"]["system"]
        p("## `pyrt plugins --json` and `pyrt status` against `true` (issue 28)")
        p("")
        p("hyperfine -N, %d runs each after 5 warm-ups, one run for all rows; boxes with the "
          "fixture runtime and its baseline and N plugins (four kinds in turn: two "
          "requirements, none, one, disabled), nothing changed since the last answer. "
          "1-min load %s before, %s after. CPU is hyperfine's mean user + system." % (
              len(r["true"]["times"]), ps["load"].get("before", "?").split()[0],
              ps["load"].get("after", "?").split()[0]))
        p("")
        p("| command | median | mean CPU | ÷ `true` (wall medians) | ÷ `true` (CPU) |")
        p("|---|---:|---:|---:|---:|")
        keys = [("true", "`true`"), ("status", "`pyrt status` (%d plugins)" % ps["counts"][-1])] + [
            ("plugins_%d" % n, "`pyrt plugins --json`, %d plugins" % n) for n in ps["counts"]]
        for k, label in keys:
            x = r[k]
            m = st.median(x["times"])
            c = x["user"] + x["system"]
            p("| %s | %s | %s | %.2f× | %.2f× |" % (label, fmt_ms(m), fmt_ms(c), m / tmed, c / tcpu))
        p("")
    if d.serve:
        sm = d.serve_meta
        hz = float(sm.get("clk_tck", "100"))
        p("## `pyrt serve` against nginx-light (issue 28)")
        p("")
        p("GET the runtime's status (%s bytes) from `pyrt serve`, and the same bytes as a static "
          "file from %s (one worker), both on 127.0.0.1, keep-alive; `wrk -t1 -cN -d%ss "
          "--latency`, pyrt and nginx alternated, %d round%s; %s. Server CPU per request: "
          "utime + stime of the server's processes over the run (/proc), ÷ requests." % (
              sm.get("bytes", "?"), sm.get("nginx", "nginx"), sm.get("secs", "?"),
              len(d.serve[("pyrt", sorted({c for _, c in d.serve})[0])]),
              "" if len(d.serve[("pyrt", sorted({c for _, c in d.serve})[0])]) == 1 else "s",
              sm.get("pinning") or "not pinned"))
        p("")
        p("| connections | pyrt req/s | nginx req/s | pyrt ÷ nginx req/s | pyrt p99 | nginx p99 | "
          "p99 ÷ | pyrt CPU/req | nginx CPU/req | 1-min load |")
        p("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for c in sorted({c for _, c in d.serve}):
            a, b = d.serve.get(("pyrt", c), []), d.serve.get(("nginx", c), [])
            if not a or not b:
                continue
            ra, rb = st.median([x[0] for x in a]), st.median([x[0] for x in b])
            la, lb = st.median([x[1] for x in a]), st.median([x[1] for x in b])
            ca = sum(x[3] for x in a) / hz / max(1, sum(x[2] for x in a))
            cb = sum(x[3] for x in b) / hz / max(1, sum(x[2] for x in b))
            p("| %d | %.0f | %.0f | %.2f× | %.2f ms | %.2f ms | %.2f× | %.1f µs | %.1f µs | %s |" % (
                c, ra, rb, ra / rb, la * 1e3, lb * 1e3, la / lb, ca * 1e6, cb * 1e6,
                load_range([x[4] for x in a + b])))
        errs = sum(x[5] for v in d.serve.values() for x in v)
        if errs:
            p("")
            p("Non-2xx answers during the runs: %d." % errs)
        p("")
    elif d.meta.get("serve_note"):
        p("`pyrt serve` against nginx-light: %s." % d.meta["serve_note"])
        p("")
    # ---- the goals of issue 28
    rows_ = []
    if d.serve:
        for c in sorted({c for _, c in d.serve}):
            a, b = d.serve.get(("pyrt", c), []), d.serve.get(("nginx", c), [])
            if a and b:
                ratio = st.median([x[0] for x in a]) / st.median([x[0] for x in b])
                lr = st.median([x[1] for x in a]) / st.median([x[1] for x in b])
                ld = load_range([x[4] for x in a + b])
                rows_.append(("serve req/s ÷ nginx, %d connections" % c, "≥ 1.5×", "%.2f×" % ratio,
                              ld, ratio >= 1.5))
                rows_.append(("serve p99 ÷ nginx p99, %d connections" % c, "≤ 1.0×", "%.2f×" % lr,
                              ld, lr <= 1.0))
    if ps:
        r = ps["r"]
        tm = st.median(r["true"]["times"])
        tc = r["true"]["user"] + r["true"]["system"]
        ld = "%s → %s" % (ps["load"].get("before", "?").split()[0], ps["load"].get("after", "?").split()[0])
        for n in ps["counts"]:
            lim = 1.5 if n <= 10 else 3.0 if n >= 1000 else None
            x = r["plugins_%d" % n]
            w = st.median(x["times"]) / tm
            c = (x["user"] + x["system"]) / tc
            rows_.append(("`plugins --json` ÷ `true`, %d plugins" % n,
                          "≤ %.1f×" % lim if lim else "(none)", "%.2f× wall, %.2f× CPU" % (w, c),
                          ld, None if lim is None else w <= lim))
    if ("1x", "pyrt") in d.wall:
        for s in d.sizes:
            for kind, goal, lim in (("c_gunzip", "`gzip -dc` of the same archive", 1.3),
                                    ("simple", "`curl; sha256sum; tar -xzf`", 0.75),
                                    ("python", "the Python reference", 0.4),
                                    ("streamb", "(e) `curl | tee >(sha256sum) | bsdtar -x`", None)):
                if (s, kind) not in d.wall:
                    continue
                w = d.med(s, "pyrt") / d.med(s, kind)
                c = st.median(d.cpu[(s, "pyrt")]) / st.median(d.cpu[(s, kind)])
                ld = load_range(d.load.get((s, "pyrt"), []) + d.load.get((s, kind), []))
                rows_.append(("install %s ÷ %s (%.1f MB)" % (s, goal, d.archives[s][0] / MB),
                              "≤ %.2f×" % lim if lim else "(reference)",
                              "%.2f× wall, %.2f× CPU" % (w, c), ld, None if lim is None else w <= lim))
    if rows_:
        p("## Issue 28's goals in this run%s" % (" (quick: not a measurement)" if d.quick else ""))
        p("")
        p("Wall ratios are of medians of alternated runs; CPU ratios (user + system) beside "
          "them, which the machine's load disturbs less. The 1-min load is the range seen "
          "at the starts of the runs behind each figure. The 250k-file memory goal is "
          "measured by bench/scale250k.sh (bench/results-scale250k.md).")
        p("")
        p("| figure | goal | measured | 1-min load | verdict |")
        p("|---|---|---:|---:|---|")
        for fig, goal, val, ld, ok in rows_:
            p("| %s | %s | %s | %s | %s |" % (cell(fig), goal, val, ld,
                                              "—" if ok is None else verdict(ok)))
        p("")


def plot(d, dat, gp, png):
    series = d.contenders + [("floor", "verify-then-extract floor (components, one thread extracting)"),
                             ("floor2", "two-thread floor (decompress and write overlapped)")]
    span = d.archives[d.sizes[-1]][0] / MB
    with open(dat, "w") as f:
        for i, (kind, label) in enumerate(series):
            f.write("# %s\n" % label)
            for s in d.sizes:
                # Each series a little to the side so the min–max bars stay apart.
                x = d.archives[s][0] / MB + (i - (len(series) - 1) / 2.0) * span * 0.006
                if kind in ("floor", "floor2"):
                    v = d.floors(s)[kind]
                    f.write("%.3f %.4f %.4f %.4f\n" % (x, v, v, v))
                else:
                    w = d.wall[(s, kind)]
                    f.write("%.3f %.4f %.4f %.4f\n" % (x, st.median(w), min(w), max(w)))
            f.write("\n\n")
    styles = {
        "pyrt": "lc rgb '#d62728' lw 3 pt 7 ps 1.2",
        "simple": "lc rgb '#1f77b4' lw 2 pt 5",
        "best": "lc rgb '#2ca02c' lw 2 pt 9",
        "stream": "lc rgb '#7f7f7f' lw 1.5 dt 2 pt 6",
        "streamb": "lc rgb '#ff7f0e' lw 1.5 dt 2 pt 4",
        "python": "lc rgb '#9467bd' lw 2 pt 13",
        "floor": "lc rgb '#000000' lw 1.5 dt 3 pt 1",
        "floor2": "lc rgb '#000000' lw 1.5 dt 4 pt 2",
    }
    m = d.meta
    lines = [
        "set terminal pngcairo noenhanced size 1000,680 font 'DejaVu Sans,11'",
        "set output '%s'" % png,
        "set title \"pyrt install vs its peers: wall time vs archive size\\n"
        "loopback HTTPS, fresh tmpfs per run; median of %s run%s, bars min-max; %s\" font ',12'" % (
            m.get("runs", "?"), "" if m.get("runs") == "1" else "s",
            m.get("machine", "").split(", fs=")[0]),
        "set xlabel 'archive size (gzip)' offset 0,-0.6",
        "set ylabel 'wall time (s)'",
        "set key outside below center horizontal maxcols 2 box spacing 1.1 width 1",
        "set grid",
        "set xrange [0:%.3f]" % (span * 1.08),
        "set yrange [0:*]",
        "set xtics (%s)" % ", ".join("\"%s\\n%.1f MB\" %.3f" % (s, d.archives[s][0] / MB, d.archives[s][0] / MB)
                                      for s in d.sizes),
    ]
    plots = []
    for i, (kind, label) in enumerate(series):
        plots.append("'%s' index %d using 1:2:3:4 with yerrorlines %s title '%s'" % (
            dat, i, styles[kind], label.replace("'", "")))
    lines.append("plot " + ", \\\n     ".join(plots))
    with open(gp, "w") as f:
        f.write("\n".join(lines) + "\n")


def standalone(name, mark="target ≤"):
    """The verdict line (the first holding MARK) of a standalone script's
    results file (bench/NAME), with when it was written, as that file says
    it."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError:
        return "bench/%s is missing" % name
    when = next((l for l in lines if l.startswith("Written by")), "")
    verdict = next((l for l in lines if mark in l), "no verdict line")
    stamp = when.split(" on ", 1)[1].split(";", 1)[0] if " on " in when else "?"
    return "bench/%s (%s): %s" % (name, stamp, verdict)


def main():
    if len(sys.argv) != 6:
        sys.exit("usage: report.py WORK RESULTS_MD PLOT_DAT PLOT_GP PLOT_PNG")
    work, md, dat, gp, png = sys.argv[1:]
    d = Data(work)
    with open(md, "w") as f:
        f.write(report(d))
    plot(d, dat, gp, png)


if __name__ == "__main__":
    main()
