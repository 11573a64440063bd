#!/usr/bin/env python3
"""The Python reference for bench/run: what the system pyrt replaces does.

    reference.py URL SHA256 CAFILE DEST

Downloads URL over HTTPS (urllib, an ssl context that trusts CAFILE only)
into DEST.tgz while hashing it (hashlib, streamed, no second read), compares
the digest with SHA256, and only then extracts with tarfile's
extractall(filter="data") into a staging folder next to DEST and moves the
archive's top folder python/ to DEST with os.replace.  Syncs nothing.
Exit 0 on success, 1 on a digest mismatch or a missing python/bin/python3,
and a traceback on any other failure.

Needs tarfile.data_filter (CPython 3.12, 3.11.4+, or a backport).
"""

import hashlib
import hmac
import os
import ssl
import sys
import tarfile
import urllib.request

CHUNK = 256 * 1024


def download(url, cafile, path):
    """Fetch url into path, hashing the bytes as they arrive."""
    ctx = ssl.create_default_context(cafile=cafile)
    digest = hashlib.sha256()
    with urllib.request.urlopen(url, context=ctx) as resp, open(path, "wb") as out:
        while True:
            block = resp.read(CHUNK)
            if not block:
                break
            digest.update(block)
            out.write(block)
    return digest.hexdigest()


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: reference.py URL SHA256 CAFILE DEST")
    url, want, cafile, dest = sys.argv[1:]
    if not hasattr(tarfile, "data_filter"):
        sys.exit("reference.py: this Python's tarfile has no filter='data' (needs 3.11.4+)")
    archive = dest + ".tgz"
    got = download(url, cafile, archive)
    if not hmac.compare_digest(got, want.lower()):
        os.unlink(archive)
        print("reference.py: sha256 mismatch: got %s, want %s" % (got, want), file=sys.stderr)
        return 1
    staging = dest + ".staging"
    os.mkdir(staging, 0o700)
    with tarfile.open(archive, "r:gz") as tar:
        tar.extractall(staging, filter="data")
    if not os.access(os.path.join(staging, "python", "bin", "python3"), os.X_OK):
        print("reference.py: no python/bin/python3 in the archive", file=sys.stderr)
        return 1
    os.replace(os.path.join(staging, "python"), dest)
    os.rmdir(staging)
    os.unlink(archive)
    return 0


if __name__ == "__main__":
    sys.exit(main())
