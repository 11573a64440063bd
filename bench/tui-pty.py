#!/usr/bin/env python3
"""Drive the TUI through a pty of fixed size, without tmux in between.

    tui-pty.py [--cols 100] [--rows 30] [--window 10] [--tries 10] \
               --downloads BOX/runtime/python/downloads -- PYRT ARGS...

Starts `PYRT ARGS...` (the TUI on an unprovisioned box with a slow
download) on a pty of cols x rows with TERM=xterm-256color, answers the
consent with y, and once the download shows its ETA:

- counts the bytes pyrt writes to the pty over --window seconds;
- --tries times each: sends Esc (then q) and measures the time until the
  cancel dialog's "[y/N]" has been written to the pty, then closes the
  dialog with n, at a random phase of the TUI's 100 ms frame cycle.  Esc
  pays curses' escape delay (25 ms) on top, q does not.

Prints one JSON object.  Exits non-zero when the download ended before the
measurements did (slow it down).  Part of bench/tui-bandwidth.sh; never a
test: it reports figures, it asserts none.
"""

import argparse
import fcntl
import json
import os
import pty
import random
import select
import signal
import statistics
import struct
import sys
import termios
import time


class Pane:
    def __init__(self, argv, cols, rows):
        pid, fd = pty.fork()
        if pid == 0:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
            os.environ["TERM"] = "xterm-256color"
            try:
                os.execvp(argv[0], argv)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        self.total = 0
        self.tail = b""  # the latest output, for finding markers

    def pump(self, timeout):
        """Read what is there (waiting up to timeout s); False at EOF."""
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return True
        try:
            data = os.read(self.fd, 65536)
        except OSError:
            return False
        if not data:
            return False
        self.total += len(data)
        self.tail = (self.tail + data)[-65536:]
        return True

    def wait_for(self, marker, secs):
        """Seconds until marker is written after this call (None: timeout)."""
        t0 = time.monotonic()
        self.tail = b""
        while time.monotonic() - t0 < secs:
            if not self.pump(0.005):
                return None
            if marker in self.tail:
                return time.monotonic() - t0
        return None

    def drain(self, secs):
        end = time.monotonic() + secs
        while time.monotonic() < end:
            if not self.pump(max(0.0, end - time.monotonic())):
                return

    def send(self, data):
        os.write(self.fd, data)

    def stop(self):
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        end = time.monotonic() + 20
        while time.monotonic() < end:
            if not self.pump(0.05):
                break
            done, _ = os.waitpid(self.pid, os.WNOHANG)
            if done:
                break
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def key_latency(pane, key, tries):
    out = []
    for _ in range(tries):
        # A random point in the 100 ms frame cycle: fixed pauses would
        # always hit the same phase of it.
        pane.drain(0.2 + random.uniform(0, 0.1))
        pane.tail = b""
        t0 = time.monotonic()
        pane.send(key)
        while time.monotonic() - t0 < 5:
            pane.pump(0.002)
            if b"[y/N]" in pane.tail:
                break
        else:
            raise SystemExit("tui-pty: no cancel dialog after %r" % key)
        out.append((time.monotonic() - t0) * 1000)
        pane.send(b"n")
        pane.drain(0.3)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cols", type=int, default=100)
    ap.add_argument("--rows", type=int, default=30)
    ap.add_argument("--window", type=float, default=10)
    ap.add_argument("--tries", type=int, default=10)
    ap.add_argument("--downloads", required=True,
                    help="the box's downloads dir: a .partial there means still downloading")
    ap.add_argument("argv", nargs="+")
    args = ap.parse_args()

    pane = Pane(args.argv, args.cols, args.rows)
    try:
        if pane.wait_for(b"What will happen", 30) is None:
            raise SystemExit("tui-pty: no consent screen")
        pane.send(b"y")
        if pane.wait_for(b"ETA", 30) is None:
            raise SystemExit("tui-pty: the download did not start")
        pane.drain(1.0)
        b0, t0 = pane.total, time.monotonic()
        pane.drain(args.window)
        bps = (pane.total - b0) / (time.monotonic() - t0)
        esc = key_latency(pane, b"\x1b", args.tries)
        q = key_latency(pane, b"q", args.tries)
        if not any(n.endswith(".partial") for n in os.listdir(args.downloads)):
            raise SystemExit("tui-pty: the download ended during the measurements")
    finally:
        pane.stop()

    def summary(v):
        return {"median": statistics.median(v), "min": min(v), "max": max(v)}

    json.dump({"bytes_per_s": bps, "esc_ms": summary(esc), "q_ms": summary(q)}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
