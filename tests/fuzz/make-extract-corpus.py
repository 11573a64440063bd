#!/usr/bin/env python3
"""Write the seed archives of the extract fuzz target into DIR (default
tests/fuzz/extract/corpus): small tar streams, each near one rule of the
guard (core/dist/extract.h).  Plain tar for most, so mutations reach the guard
rather than break a gzip checksum; two gzip ones for the inflate path.
The last byte, when odd, turns the layout check on (fuzz_extract.c)."""
import gzip
import io
import os
import sys
import tarfile

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "extract", "corpus")


def member(name, kind=tarfile.REGTYPE, data=b"", mode=0o644, link="", **kw):
    ti = tarfile.TarInfo(name)
    ti.type, ti.mode, ti.linkname, ti.size = kind, mode, link, len(data)
    ti.mtime = 1700000000
    for k, v in kw.items():
        setattr(ti, k, v)
    return ti, io.BytesIO(data) if kind == tarfile.REGTYPE else None


def tar(members, fmt=tarfile.USTAR_FORMAT):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=fmt) as t:
        for ti, f in members:
            t.addfile(ti, f)
    # The two zero blocks of the end are enough; tarfile pads to 10 KiB.
    data = buf.getvalue()
    end = data.rstrip(b"\0")
    return end + b"\0" * (-len(end) % 512) + b"\0" * 1024


def write(name, data, layout=False):
    if layout:
        data += b"\x01"  # past the end blocks: libarchive never reads it
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def runtime():
    return [
        member("python", tarfile.DIRTYPE, mode=0o755),
        member("python/bin", tarfile.DIRTYPE, mode=0o755),
        member("python/bin/python3.11", data=b"#!/bin/sh\n", mode=0o755),
        member("python/bin/python3", tarfile.SYMTYPE, link="python3.11"),
        member("python/lib/libpy.so", data=b"ELF", mode=0o777 | 0o4000),
        member("python/lib/libpy2.so", tarfile.LNKTYPE,
               link="python/lib/libpy.so"),
    ]
os.makedirs(out, exist_ok=True)
write("runtime.tar", tar(runtime()), layout=True)
write("runtime.tar.gz", gzip.compress(tar(runtime()), mtime=0), layout=True)
write("pax-long-name.tar", tar([
    member("python/" + "d" * 120 + "/f", data=b"x"),
    member("python/l", tarfile.SYMTYPE, link="../python/" + "d" * 120),
], fmt=tarfile.PAX_FORMAT))
write("gnu-long-link.tar", tar([
    member("python/" + "e" * 110 + "/g" * 5, data=b"y", mode=0o600),
], fmt=tarfile.GNU_FORMAT))
write("traversal.tar", tar([
    member("../evil", data=b"x"),
]))
write("absolute-link.tar", tar([
    member("python/etc", tarfile.SYMTYPE, link="/etc"),
    member("python/etc/passwd", data=b"root::0:0::/:/bin/sh\n"),
]))
write("link-up-out.tar", tar([
    member("a/b", tarfile.DIRTYPE, mode=0o755),
    member("a/b/up", tarfile.SYMTYPE, link="../../.."),
    member("a/b/up/x", data=b"x"),
]))
write("hardlink-out.tar", tar([
    member("a/h", tarfile.LNKTYPE, link="../../etc/passwd"),
]))
write("devices.tar", tar([
    member("python/fifo", tarfile.FIFOTYPE),
    member("python/null", tarfile.CHRTYPE, devmajor=1, devminor=3),
]))
# Past the target's 1 MiB cap in a 2 KB gzip.
write("bomb.tar.gz", gzip.compress(tar([
    member("python/big", data=b"A" * (1536 << 10)),
]), mtime=9))
write("dir-after-contents.tar", tar([
    member("python/x/f", data=b"f", mode=0o000),
    member("python/x", tarfile.DIRTYPE, mode=0o000),
    member("python/x/g", data=b"g"),
]))
write("duplicate.tar", tar([
    member("python/f", data=b"f"),
    member("python/f", data=b"again"),
]))
