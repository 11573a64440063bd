#!/usr/bin/env python3
"""Swap a file the moment a reader closes it: the attacker of a hash-then-
reopen race.  Usage: swap_on_close.py TARGET REPLACEMENT READY_FILE.

Watches TARGET with inotify for IN_CLOSE_NOWRITE; on the first one it
renames REPLACEMENT over TARGET (atomic, so the next open sees the whole
swapped file) and exits.  READY_FILE is written once the watch is armed.
Run it as another user (setpriv --reuid) who owns TARGET's folder."""
import ctypes
import os
import struct
import sys

IN_CLOSE_NOWRITE = 0x10

def main():
    target, replacement, ready = sys.argv[1:4]
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_CLOEXEC)
    if fd < 0:
        sys.exit("inotify_init1 failed: %d" % ctypes.get_errno())
    wd = libc.inotify_add_watch(fd, target.encode(), IN_CLOSE_NOWRITE)
    if wd < 0:
        sys.exit("inotify_add_watch failed: %d" % ctypes.get_errno())
    with open(ready, "w") as f:
        f.write("armed\n")
    while True:
        buf = os.read(fd, 4096)
        _, mask, _, _ = struct.unpack_from("iIII", buf)
        if mask & IN_CLOSE_NOWRITE:
            os.rename(replacement, target)
            print("swapped", flush=True)
            return

main()
