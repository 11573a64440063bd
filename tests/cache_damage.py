#!/usr/bin/env python3
"""Damage a cache file of the box byte by byte and check that no answer of
`pyrt status --json` or `pyrt plugins --json` differs from the answer with
no cache (tests/e2e_cache_damage.sh runs it).

usage: cache_damage.py PYRT TRUTH FILE OFFSETS|all SEED -- PYRT-ARGS...
Prints one line per offset whose answers differed, then a tally; exits 1
when any did.
"""
import json
import os
import random
import subprocess
import sys

VOLATILE = {"checked_at", "installed_at", "elapsed_ms", "installer_pid"}


def scrub(o):
    if isinstance(o, dict):
        return {k: scrub(v) for k, v in o.items() if k not in VOLATILE}
    if isinstance(o, list):
        return [scrub(v) for v in o]
    return o


def plausible_flip(b):
    """Another byte that keeps the file's form: a hex digit becomes another
    hex digit, a decimal digit another digit, a letter its neighbour, so
    the damage parses and only a checksum can catch it."""
    if 0x61 <= b <= 0x66:  # a-f
        return 0x61 + (b - 0x61 + 1) % 6
    return b ^ 0x01


def answers(pyrt, args):
    """Both commands' exit codes and JSON answers, volatile fields aside.
    PYRT_DAMAGE_FORGET (paths joined by ':') are removed first: a cache
    that would answer before the damaged one is read (cache/plugins-scan
    before cache/plugin-manifests.json)."""
    for forget in os.environ.get("PYRT_DAMAGE_FORGET", "").split(":"):
        if forget and os.path.exists(forget):
            os.remove(forget)
    out = []
    for cmd in ("status", "plugins"):
        r = subprocess.run([pyrt, cmd, "--json"] + args, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True)
        try:
            doc = scrub(json.loads(r.stdout))
        except ValueError:
            doc = r.stdout
        out.append({"cmd": cmd, "rc": r.returncode, "answer": doc})
    return out


def main():
    pyrt, truth_file, path, which, seed = sys.argv[1:6]
    args = sys.argv[7:]
    truth = json.load(open(truth_file))
    orig = open(path, "rb").read()
    if which == "all":
        offsets = range(len(orig))
    else:
        rng = random.Random(int(seed))
        offsets = sorted(rng.sample(range(len(orig)), min(len(orig), int(which))))
    differed = 0
    try:
        for off in offsets:
            damaged = bytearray(orig)
            damaged[off] = plausible_flip(orig[off])
            with open(path, "r+b") as f:  # in place: same inode, same size
                f.write(damaged)
            now = answers(pyrt, args)
            if now != truth:
                differed += 1
                print(f"# offset {off}: {json.dumps(now)[:400]}")
    finally:
        with open(path, "r+b") as f:
            f.write(orig)
            f.truncate()
    print(f"# {path}: {len(offsets)} offsets, {differed} changed an answer")
    sys.exit(1 if differed else 0)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--answers"]:
        json.dump(answers(sys.argv[2], sys.argv[4:]), sys.stdout)
    else:
        main()
