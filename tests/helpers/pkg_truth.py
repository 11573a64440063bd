"""The runtime's packages as Python itself sees them (issue 25's truth),
run by the runtime's interpreter, independently of pyrt's C readers:

    python3 -I pkg_truth.py REQ...
    python3 -I pkg_truth.py --plugin NAME=REQ[,REQ...] ... -- REQ...

Prints one JSON object:
- "missing": the sorted PEP 503 names of the baseline requirements REQ
  and everything they require (Requires-Dist without a marker) that is
  not installed whole (a distribution whose RECORD's files, .pyc aside,
  are not all there), plus every installed distribution that is not whole;
- "plugins": NAME -> the sorted names of the plugin's requirements (and
  their closure) that are not installed whole;
- "whole": name -> bool for each installed distribution;
- "import_failed": the top-level modules (top_level.txt, else the RECORD's
  top folders and modules) of every distribution whose whole closure is
  installed whole, among the declared ones and their closure, that do not
  import: a distribution every reader calls
  installed must import, or the truth itself disagrees with the files.
pip's stash folders (~xxx) are no distribution.
"""
import importlib
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


def installed():
    dists = {}
    for d in md.distributions():
        path = getattr(d, "_path", None)
        if path is not None and path.name.startswith("~"):
            continue
        name = d.metadata["Name"]
        if name:
            dists.setdefault(norm(name), d)
    return dists


def closure(reqs, dists, state):
    """(missing, seen): the requirements' closure's names not whole."""
    missing, todo, seen = set(), list(reqs), set()
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
    return missing, seen


def top_modules(dist):
    text = dist.read_text("top_level.txt")
    if text:
        return [m for m in text.split() if m and not m.startswith("_")]
    mods = set()
    for f in dist.files or []:
        parts = str(f).split("/")
        if parts[0].endswith((".dist-info", ".data")) or ".." in parts:
            continue
        if len(parts) > 1 and parts[-1] == "__init__.py":
            mods.add(parts[0])
        elif len(parts) == 1 and parts[0].endswith(".py"):
            mods.add(parts[0][:-3])
    return sorted(m for m in mods if not m.startswith("_"))


def imports(mod):
    try:
        importlib.import_module(mod)
        return True
    except Exception:  # a broken package fails in any way it likes
        return False


def main(argv):
    plugins = {}
    while argv and argv[0] == "--plugin":
        name, _, reqs = argv[1].partition("=")
        plugins[name] = [r for r in reqs.split(",") if r]
        argv = argv[2:]
    if argv and argv[0] == "--":
        argv = argv[1:]
    dists = installed()
    state = {n: whole(d) for n, d in dists.items()}
    missing, declared = closure(argv, dists, state)
    missing |= {n for n, ok in state.items() if not ok}
    out_plugins = {}
    for p, reqs in plugins.items():
        gaps, seen = closure(reqs, dists, state)
        out_plugins[p] = sorted(gaps)
        declared |= seen
    failed = []
    for n in sorted(declared):
        d = dists.get(n)
        if d is None or closure([n], dists, state)[0]:
            continue
        failed.extend(m for m in top_modules(d) if not imports(m))
    print(json.dumps({"missing": sorted(missing), "plugins": out_plugins,
                      "whole": state, "import_failed": sorted(failed)}))


main(sys.argv[1:])
