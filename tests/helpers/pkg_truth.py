"""The runtime's packages as Python itself sees them (issue 25's truth),
run by the runtime's interpreter: python3 -I pkg_truth.py REQ...

Prints one JSON object: "missing", the sorted PEP 503 names of the
declared requirements REQ and everything they require (Requires-Dist
without a marker) that is not installed whole (a distribution whose
RECORD's files, .pyc aside, are not all there), plus every installed
distribution that is not whole; "whole", name -> bool for each installed
distribution.  pip's stash folders (~xxx) are no distribution.
"""
import importlib.metadata as md
import json
import os
import re
import sys


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def whole(dist):
    files = dist.files
    if files is None:
        return False
    listed = [f for f in files if not str(f).endswith(".pyc")]
    if not listed:
        return False
    return all(os.path.lexists(dist.locate_file(f)) for f in listed
               if not os.path.isabs(str(f)))


def main():
    dists = {}
    for d in md.distributions():
        path = getattr(d, "_path", None)
        if path is not None and path.name.startswith("~"):
            continue
        name = d.metadata["Name"]
        if name:
            dists.setdefault(norm(name), d)
    state = {n: whole(d) for n, d in dists.items()}
    missing = {n for n, ok in state.items() if not ok}
    todo, seen = list(sys.argv[1:]), set()
    while todo:
        req = todo.pop(0)
        n = norm(re.match(r"[A-Za-z0-9._-]+", req).group(0))
        if n in seen:
            continue
        seen.add(n)
        d = dists.get(n)
        if d is None or not state[n]:
            missing.add(n)
            continue
        todo.extend(r for r in (d.requires or []) if ";" not in r)
    print(json.dumps({"missing": sorted(missing), "whole": state}))


main()
