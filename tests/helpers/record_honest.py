"""Is each named distribution whole or absent? (e2e_faults_wheel.sh)

usage: record_honest.py SITE NAME-VERSION...

For each NAME-VERSION, its .dist-info in SITE is either absent, or its
RECORD lists files that all exist with the hashes it gives.  Prints one
"NAME-VERSION:absent" or ":complete" per distribution, then what is
broken; exits 1 when anything is.
"""
import base64
import csv
import hashlib
import os
import sys


def digest_of(path):
    with open(path, "rb") as f:
        raw = hashlib.sha256(f.read()).digest()
    return "sha256=" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def check(site, stem):
    """Returns (state or None, [what is broken])."""
    info = os.path.join(site, stem + ".dist-info")
    if not os.path.isdir(info):
        return stem + ":absent", []
    try:
        with open(os.path.join(info, "RECORD"), newline="") as f:
            rows = [r for r in csv.reader(f) if r]
    except OSError as e:
        return None, ["%s: %s" % (stem, e)]
    bad = []
    for path, digest, _size in rows:
        full = os.path.join(site, path)
        if not os.path.exists(full):
            bad.append("%s: %s missing" % (stem, path))
        elif digest and digest != digest_of(full):
            bad.append("%s: %s differs" % (stem, path))
    return stem + ":complete", bad


def main(argv):
    site, stems = argv[1], argv[2:]
    out, bad = [], []
    for stem in stems:
        state, broken = check(site, stem)
        if state:
            out.append(state)
        bad += broken
    print(" ".join(out + bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
