#!/usr/bin/env python3
"""Swap a folder for a symlink just after a writer creates it: the attacker
of a check-then-write-by-path race.  Usage:
    swap_dir_on_create.py DIR NAME TARGET DELAY READY_FILE

Watches DIR with inotify for IN_CREATE of the directory NAME; DELAY seconds
after it, renames DIR/NAME to DIR/NAME.real and puts a symlink to TARGET in
its place, prints "swapped" and exits.  READY_FILE is written once the watch
is armed.  The test stretches the writer's window with strace (a delay on
its next unlink), so DELAY lands between its check and its writes."""
import ctypes
import os
import struct
import sys
import time

IN_CREATE = 0x100
IN_ISDIR = 0x40000000
EVENT = struct.Struct("iIII")


def events(fd):
    buf = os.read(fd, 65536)
    off = 0
    while off < len(buf):
        _, mask, _, length = EVENT.unpack_from(buf, off)
        name = buf[off + EVENT.size:off + EVENT.size + length].rstrip(b"\0")
        off += EVENT.size + length
        yield mask, name.decode()


def main():
    folder, name, target, delay, ready = sys.argv[1:6]
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_CLOEXEC)
    if fd < 0:
        sys.exit("inotify_init1 failed: %d" % ctypes.get_errno())
    if libc.inotify_add_watch(fd, folder.encode(), IN_CREATE) < 0:
        sys.exit("inotify_add_watch failed: %d" % ctypes.get_errno())
    with open(ready, "w") as f:
        f.write("armed\n")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for mask, got in events(fd):
            if got == name and mask & IN_ISDIR:
                time.sleep(float(delay))
                path = os.path.join(folder, name)
                os.rename(path, path + ".real")
                os.symlink(target, path)
                print("swapped", flush=True)
                return
    sys.exit("no %s was created in %s" % (name, folder))


if __name__ == "__main__":
    main()
