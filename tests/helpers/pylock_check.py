#!/usr/bin/env python3
"""Check a pylock.toml against PEP 751's rules: pylock_check.py FILE [--files].

The rules, as the PEP states them (and the packaging project's reader
enforces them): lock-version "1.x" and created-by are required strings;
packages is a required array of tables; each package has a normalized name
(PEP 503), an optional version, and either sdist/wheels or exactly one of
vcs, directory, archive; each wheel has url or path and a non-empty hashes
table of strings, and its file name (name, else path or url's last part)
is a wheel file name of the package's name and version.  With --files,
every wheel's path must be a file whose size and SHA-256 are the lock's.
Prints one line per wheel (FILE SHA256 SIZE) and exits 0, or names the
first rule broken and exits 1.
"""
import hashlib
import os
import re
import sys
import tomllib
from urllib.parse import unquote, urlparse

NORMALIZED = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def fail(why):
    print("pylock: " + why)
    sys.exit(1)


def wheel_name(w):
    if w.get("name"):
        return w["name"]
    if w.get("path"):
        return re.split(r"[/\\]", w["path"])[-1]
    return unquote(urlparse(w["url"]).path.rsplit("/", 1)[-1])


def check_wheel(pkg, w, where, files):
    if not isinstance(w, dict):
        fail(f"{where}: not a table")
    if not (w.get("url") or w.get("path")):
        fail(f"{where}: path or url must be provided")
    hashes = w.get("hashes")
    if not isinstance(hashes, dict) or not hashes:
        fail(f"{where}: at least one hash must be provided")
    if not all(isinstance(v, str) for v in hashes.values()):
        fail(f"{where}: hash values must be strings")
    if "size" in w and (not isinstance(w["size"], int) or w["size"] < 0):
        fail(f"{where}: size is not a non-negative integer")
    fname = wheel_name(w)
    parts = fname[:-4].split("-") if fname.endswith(".whl") else []
    if len(parts) not in (5, 6):
        fail(f"{where}: invalid wheel filename {fname!r}")
    if norm(parts[0]) != pkg["name"]:
        fail(f"{where}: name in {fname!r} is not the package's {pkg['name']!r}")
    if "version" in pkg and parts[1] != pkg["version"]:
        fail(f"{where}: version in {fname!r} is not {pkg['version']!r}")
    if files:
        path = w.get("path")
        if not path or not os.path.isfile(path):
            fail(f"{where}: no file at path {path!r}")
        data = open(path, "rb").read()
        if w.get("size") != len(data):
            fail(f"{where}: size {w.get('size')}, the file has {len(data)}")
        if hashes.get("sha256") != hashlib.sha256(data).hexdigest():
            fail(f"{where}: sha256 is not the file's")
    print(fname, hashes.get("sha256", "-"), w.get("size", "-"))


def main():
    path, files = sys.argv[1], "--files" in sys.argv[2:]
    with open(path, "rb") as f:
        doc = tomllib.load(f)
    lv = doc.get("lock-version")
    if not isinstance(lv, str) or not re.match(r"^1(\.\d+)*$", lv):
        fail(f"lock-version {lv!r} is not a supported 1.x version")
    if not isinstance(doc.get("created-by"), str):
        fail("created-by: missing required string")
    pkgs = doc.get("packages")
    if not isinstance(pkgs, list):
        fail("packages: missing required array")
    for i, pkg in enumerate(pkgs):
        where = f"packages[{i}]"
        if not isinstance(pkg.get("name"), str) or not NORMALIZED.match(pkg["name"]):
            fail(f"{where}: name {pkg.get('name')!r} is not normalized")
        wheels = pkg.get("wheels") or []
        dists = bool(pkg.get("sdist")) + len(wheels)
        direct = sum(bool(pkg.get(k)) for k in ("vcs", "directory", "archive"))
        if dists and direct:
            fail(f"{where}: none of vcs, directory, archive may be set with sdist or wheels")
        if not dists and direct != 1:
            fail(f"{where}: exactly one of vcs, directory, archive without sdist or wheels")
        for k, w in enumerate(wheels):
            check_wheel(pkg, w, f"{where}.wheels[{k}]", files)


if __name__ == "__main__":
    main()
