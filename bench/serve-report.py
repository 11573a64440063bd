#!/usr/bin/env python3
"""bench/serve-bench.sh's report: bench/results-serve.md from the run's
work directory (wrk1, wrk2, wrk300: wrk --latency output; sse: the SSE
delay line; meta: key=value lines).  Targets are reported, never asserted:
issue 11's (>= 20,000 req/s and p99 <= 2 ms at 64 connections, on a quiet
machine) and issue 19's (no request of 300 keep-alive connections left
without an answer).

    serve-report.py WORK > bench/results-serve.md
"""
import os
import re
import sys

UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0, "m": 60000.0}


def ms(text):
    m = re.match(r"([0-9.]+)(us|ms|s|m)$", text)
    return float(m.group(1)) * UNITS[m.group(2)] if m else float("nan")


def wrk(path):
    """req/s, p50 and p99 (ms), requests, timeouts and non-2xx of one run."""
    r = {"rps": float("nan"), "p50": float("nan"), "p99": float("nan"),
         "requests": 0, "timeouts": 0, "errors": 0, "non2xx": 0}
    try:
        text = open(path).read()
    except OSError:
        return None
    for line in text.splitlines():
        f = line.split()
        if line.startswith("Requests/sec:"):
            r["rps"] = float(f[1])
        elif len(f) == 2 and f[0] in ("50%", "99%"):
            r["p" + f[0][:-1]] = ms(f[1])
        elif "requests in" in line:
            r["requests"] = int(f[0])
        elif line.strip().startswith("Socket errors:"):
            n = dict(re.findall(r"(\w+) (\d+)", line.split(":", 1)[1]))
            r["timeouts"] = int(n.get("timeout", 0))
            r["errors"] = sum(int(v) for k, v in n.items() if k != "timeout")
        elif line.startswith("Non-2xx"):
            r["non2xx"] = int(f[-1])
    return r


def main():
    work = sys.argv[1]
    meta = {}
    for line in open(os.path.join(work, "meta")):
        k, _, v = line.rstrip("\n").partition("=")
        meta[k] = v
    runs = [("64 connections, run 1", wrk(os.path.join(work, "wrk1"))),
            ("64 connections, run 2", wrk(os.path.join(work, "wrk2"))),
            ("300 connections (issue 19)", wrk(os.path.join(work, "wrk300")))]
    p = print
    p("# pyrt serve under wrk (issues 11 and 19.1): results\n")
    p(f"Written by `bench/serve-bench.sh` on {meta.get('date', '?')} UTC, pyrt "
      f"{meta.get('rev', '?')} ({meta.get('build') or 'build type unknown'}); "
      f"{meta.get('cpus', '?')} CPUs, {meta.get('pinning', 'server and wrk unpinned')}.\n")
    p(f"Load average (1/5/15 min) before: {meta.get('load_before', '?')}; after: "
      f"{meta.get('load_after', '?')}.  Other work on the same CPUs raises the "
      "load, and with it the latency far more than the server's CPU per "
      "request.\n")
    p("`GET /api/runtime/python`, keep-alive, 10 s per run, with the bearer "
      "token over loopback TCP.\n")
    p("| run | req/s | p50 | p99 | requests | timeouts (no answer in the wrk timeout) | other socket errors | non-2xx |")
    p("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, r in runs:
        if r is None:
            p(f"| {name} | not run | | | | | | |")
            continue
        p(f"| {name} | {r['rps']:,.0f} | {r['p50']:.2f} ms | {r['p99']:.2f} ms | "
          f"{r['requests']:,} | {r['timeouts']} | {r['errors']} | {r['non2xx']} |")
    p()
    p(f"Server CPU per request: {meta.get('cpu_per_request', '?')}.  Server RSS: "
      f"{meta.get('rss_start', '?')} at start, {meta.get('rss_1', '?')} after run 1, "
      f"{meta.get('rss_2', '?')} after run 2, {meta.get('rss_300', '?')} after the "
      "300-connection run.\n")
    try:
        p(open(os.path.join(work, "sse")).read().strip() + "\n")
    except OSError:
        pass
    r64 = runs[0][1]
    r300 = runs[2][1]
    unanswered = (r300["timeouts"] + r300["errors"]) if r300 else None
    ok11 = r64 and r64["rps"] >= 20000 and r64["p99"] <= 2.0
    ok19 = unanswered == 0 and r300["non2xx"] == 0
    p(f"300 keep-alive connections: {unanswered} requests without an answer or "
      f"cut (target ≤ 0: {'met' if ok19 else 'NOT met'}); 64 connections: "
      f"{r64['rps']:,.0f} req/s, p99 {r64['p99']:.2f} ms (issue 11's quiet-machine "
      f"target ≥ 20,000 req/s and p99 ≤ 2 ms: {'met' if ok11 else 'NOT met'}, at "
      f"load {meta.get('load_before', '?').split(' ')[0]})")


if __name__ == "__main__":
    main()
