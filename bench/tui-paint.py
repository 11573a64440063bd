#!/usr/bin/env python3
"""Time from exec to the TUI's complete first dashboard, on a bare pty.

    tui-paint.py [--cols 100] [--rows 30] [--runs 5] [--quiet 0.7] \
                 --expect WORD [--expect WORD ...] -- PYRT ARGS...

Each run forks a pty of cols x rows (TERM=xterm-256color), execs
`PYRT ARGS...` (the TUI on a ready box) and reads every byte it writes,
stamping each read.  The idle dashboard writes nothing, so the first
complete frame ends with the last byte before --quiet seconds of silence;
the run counts only when every --expect word (the runtime card's state and
each plugin's verdict) was written by then.  Then q quits it (SIGTERM by
pid if it does not).  Prints one JSON object with each run's ms from the
fork to that last byte; never a test: it reports, it asserts nothing.
"""

import argparse
import fcntl
import json
import os
import pty
import select
import signal
import statistics
import struct
import termios
import time


def one_run(argv, cols, rows, quiet, expect):
    t0 = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        os.environ["TERM"] = "xterm-256color"
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    out, last = b"", None
    deadline = t0 + 15.0
    while time.monotonic() < deadline:
        wait = quiet if last is None else max(0.0, last + quiet - time.monotonic())
        r, _, _ = select.select([fd], [], [], max(wait, 0.0) if last else 1.0)
        if not r:
            if last is not None and all(w.encode() in out for w in expect):
                break
            if last is not None and time.monotonic() - last >= quiet * 4:
                break
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        out += data
        last = time.monotonic()
    complete = all(w.encode() in out for w in expect)
    try:
        os.write(fd, b"q")
        time.sleep(0.2)
    except OSError:
        pass
    for _ in range(20):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
    os.close(fd)
    missing = [w for w in expect if w.encode() not in out]
    return {"ms": (last - t0) * 1e3 if last else None, "bytes": len(out),
            "complete": complete, "missing": missing}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cols", type=int, default=100)
    ap.add_argument("--rows", type=int, default=30)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--quiet", type=float, default=0.7)
    ap.add_argument("--expect", action="append", default=[])
    ap.add_argument("argv", nargs="+")
    a = ap.parse_args()
    runs = [one_run(a.argv, a.cols, a.rows, a.quiet, a.expect) for _ in range(a.runs)]
    ok = [r["ms"] for r in runs if r["complete"] and r["ms"] is not None]
    print(json.dumps({"runs": runs, "median_ms": statistics.median(ok) if ok else None,
                      "min_ms": min(ok) if ok else None, "max_ms": max(ok) if ok else None,
                      "complete_runs": len(ok), "cols": a.cols, "rows": a.rows}))


if __name__ == "__main__":
    main()
