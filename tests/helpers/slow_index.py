#!/usr/bin/env python3
"""A PEP 503 index on loopback http that holds its first answer until the
test says go: while it waits, pip is running and asking, so the test can
read pip's /proc/PID/cmdline and environ.

Usage: slow_index.py --root DIR --prefix /TOKEN --port-file F --hit F
                     --release F --log F

Serves DIR under PREFIX (a hosted index's token in the path: PREFIX/simple/
NAME/), 404 elsewhere.  On the first request it writes the hit file, then
waits (at most 60 s) for the release file before answering.  Each request
is logged as "GET PATH auth=USER:PASSWORD" (or auth=-)."""
import argparse
import base64
import functools
import http.server
import os
import time


class Handler(http.server.SimpleHTTPRequestHandler):
    opts = None
    held = False

    def log_message(self, fmt, *args):
        pass

    def _auth(self):
        value = self.headers.get("Authorization", "")
        if not value.startswith("Basic "):
            return "-"
        return base64.b64decode(value[6:]).decode("utf-8", "replace")

    def _hold_first(self):
        cls = type(self)
        if cls.held:
            return
        cls.held = True
        with open(self.opts.hit, "w") as f:
            f.write(self.path + "\n")
        deadline = time.monotonic() + 60
        while not os.path.exists(self.opts.release) and time.monotonic() < deadline:
            time.sleep(0.05)

    def do_GET(self):
        with open(self.opts.log, "a") as f:
            f.write("GET %s auth=%s\n" % (self.path, self._auth()))
        self._hold_first()
        prefix = self.opts.prefix.rstrip("/")
        if not self.path.startswith(prefix + "/"):
            self.send_error(404)
            return
        self.path = self.path[len(prefix):]
        super().do_GET()


def main():
    ap = argparse.ArgumentParser()
    for name in ("--root", "--prefix", "--port-file", "--hit", "--release", "--log"):
        ap.add_argument(name, required=True)
    opts = ap.parse_args()
    Handler.opts = opts
    handler = functools.partial(Handler, directory=opts.root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    tmp = opts.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(tmp, opts.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
