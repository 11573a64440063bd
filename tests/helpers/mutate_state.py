#!/usr/bin/env python3
"""Put one corrupted or odd version of a state file in place, for
tests/e2e_state.sh.

    mutate_state.py KIND ORIGINAL TARGET SEED

ORIGINAL is a pristine copy, TARGET the path pyrt reads (removed first).
Prints one line saying what was done.  Kinds that change bytes always
change at least one (a mutation that leaves the file as it was would be a
case that cannot fail).
"""
import os
import random
import sys

KINDS = ["bitflip", "truncate", "cutline", "nonutf8", "dropline", "dupline",
         "empty", "huge", "zero", "fifo", "missing", "directory", "badsha"]


def lines_of(data):
    return data.splitlines(keepends=True)


def mutate(kind, data, r):
    """New bytes for a content kind; None for a kind that is not bytes."""
    if kind == "bitflip":
        b = bytearray(data)
        for _ in range(r.randint(1, 8)):
            i = r.randrange(len(b))
            b[i] ^= 1 << r.randrange(8)
        return bytes(b), "flipped bits"
    if kind == "truncate":
        n = r.randrange(len(data))
        return data[:n], "cut to %d of %d bytes" % (n, len(data))
    if kind == "cutline":
        ls = lines_of(data)
        n = r.randrange(len(ls)) if len(ls) > 1 else 0
        return b"".join(ls[:n]), "cut to %d of %d lines" % (n, len(ls))
    if kind == "nonutf8":
        b = bytearray(data)
        for _ in range(r.randint(1, 4)):
            i = r.randrange(len(b))
            b[i:i + 1] = bytes([r.choice([0xff, 0xfe, 0xc3, 0x80, 0xe2])])
        return bytes(b), "non-UTF-8 bytes"
    if kind == "dropline":
        ls = lines_of(data)
        i = r.randrange(len(ls))
        del ls[i]
        return b"".join(ls), "line %d removed" % (i + 1)
    if kind == "dupline":
        ls = lines_of(data)
        i = r.randrange(len(ls))
        ls.insert(i, ls[i])
        return b"".join(ls), "line %d doubled" % (i + 1)
    if kind == "empty":
        return b"", "emptied"
    if kind == "badsha":
        import re
        out, n = re.subn(rb'"sha256": "[0-9a-f]+"', b'"sha256": "abc"', data)
        if n == 0:  # not a marker: flip instead
            return mutate("bitflip", data, r)
        return out, 'sha256 "abc"'
    return None, None


def main():
    kind, orig, target, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    r = random.Random(seed)
    data = open(orig, "rb").read()
    if os.path.isdir(target) and not os.path.islink(target):
        os.rmdir(target)
    elif os.path.lexists(target):
        os.unlink(target)
    if kind == "huge":
        with open(target, "wb") as f:
            f.write(data)
            f.truncate(1 << 30)  # sparse: more than any cap, costs nothing
        what = "grown to 1 GiB"
    elif kind == "zero":
        os.symlink("/dev/zero", target)
        what = "a symlink to /dev/zero"
    elif kind == "fifo":
        os.mkfifo(target, 0o600)
        what = "a FIFO"
    elif kind == "missing":
        what = "deleted"
    elif kind == "directory":
        os.mkdir(target, 0o700)
        what = "a directory"
    elif not data:  # nothing to change: garbage in its place
        new, what = b"\xff\x00garbage", "garbage in an empty file"
        with open(target, "wb") as f:
            f.write(new)
    else:
        new, what = mutate(kind, data, r)
        if new is None:
            sys.exit("unknown kind " + kind)
        for _ in range(100):
            if new != data:
                break
            new, what = mutate(kind, data, r)
        if new == data:  # e.g. one line doubled in a one-line file
            new, what = data + b"\xff", "one byte appended"
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(new)
    print(what)


if __name__ == "__main__":
    main()
