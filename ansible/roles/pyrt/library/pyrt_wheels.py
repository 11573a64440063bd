#!/usr/bin/python3
"""Ansible module: the mirror's wheels, copied to a wheelhouse on the host.

`pyrt mirror` serves the baseline's wheels at MIRROR/wheels/<file>, listed
in its index (pyrt-mirror.json), and `pyrt install --wheelhouse DIR` reads
a local folder.  This module fills DIR from the mirror over HTTPS (the same
CA file and proxy pyrt uses), so no shared mount is needed.  The index
says which files the mirror serves; when the pins carry a wheel lock
(`lock`: the `wheels:` mapping read on the control node, the anchor the
mirror cannot edit) only the files it locks for this host's platform are
taken, each checked against the lock's SHA-256 and size, and any other is
ignored; only pins without a lock trust the index's digests.  A download
that is not those bytes fails the host naming the file and both digests,
and nothing of it is kept.  A wheel already there with the right digest is
not fetched again; a *.whl in DIR that is not wanted is removed (pyrt
refuses a wheelhouse with a wheel its lock does not name).  Check mode
fetches no wheel (the index is read): a missing, different or extra wheel
is a change.  Standard library and Ansible's module_utils only.

The mirror URL may carry credentials: it is a no_log option, and every URL
this module reports is shown without its user and password.
"""

import hashlib
import json
import os
import re

from urllib.parse import urlsplit, urlunsplit

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.urls import fetch_url

DOCUMENTATION = r"""
module: pyrt_wheels
short_description: Copy the pyrt mirror's wheels to a wheelhouse on the host
description:
  - Fetches MIRROR/wheels/FILE for each wheel the mirror's pyrt-mirror.json
    lists into I(dest), checking SHA-256 and size before a file takes its
    name: against the pins' wheel lock for this host's platform when there
    is one (a wheel it does not lock is not taken), else against the index.
    Removes other *.whl files from I(dest).
options:
  dest: {description: the wheelhouse folder on the host, type: path, required: true}
  mirror:
    description: the pyrt mirror's base URL (no_log; may carry credentials)
    type: str
    required: true
  lock:
    description: >-
      the pins' C(wheels:) mapping (platform key to a list of file, sha256,
      size); empty means the pins carry no lock and the index's digests
      are the ones checked
    type: dict
    default: {}
  binary: {description: pyrt, asked for this host's platform key, type: path, default: pyrt}
  cacert: {description: CA bundle for the mirror's TLS, type: path}
  timeout: {description: seconds without data before a download fails, type: int, default: 60}
author: pyrt
"""

RETURN = r"""
fetched: {description: wheels downloaded, returned: always, type: list}
removed: {description: wheels removed from dest, returned: always, type: list}
ignored: {description: wheels the mirror serves that the lock names for no platform, returned: always, type: list}
kept: {description: how many wheels were already there, returned: always, type: int}
source: {description: "lock or index: what the digests were checked against", returned: always, type: str}
"""

WHEEL_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+!-]*\.whl$")
SHA256_HEX = re.compile(r"^[0-9a-fA-F]{64}$")


def shown(url):
    """url without its user and password."""
    parts = urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, ""))


def join(mirror, rel):
    return mirror.rstrip("/") + "/" + rel


def platform_key(module, p):
    """This host's platform key, from pyrt; None when pyrt is not there
    yet (check mode on a fresh host)."""
    binary = module.get_bin_path(p["binary"], required=False)
    if not binary:
        return None
    # The key depends on the machine only (not on the pins or the box).
    _, out, _ = module.run_command([binary, "status", "--json"])
    try:
        return json.loads(out).get("platform")
    except (ValueError, AttributeError):
        return None


def entry(module, name, sha256, size, source):
    """One wanted wheel, its fields checked: the names become paths."""
    if not isinstance(name, str) or not WHEEL_NAME.match(name):
        module.fail_json(msg="refusing wheel name %r from the %s: not a "
                             "plain *.whl file name" % (name, source))
    if not isinstance(sha256, str) or not SHA256_HEX.match(sha256):
        module.fail_json(msg="the %s gives %s no SHA-256" % (source, name))
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        size = None
    return {"file": name, "sha256": sha256.lower(), "size": size}


def lock_entries(module, p):
    """The pins' wheel lock for this host: {file: entry} for its platform
    (every platform's when pyrt cannot say yet), and the set of files the
    lock names for any platform."""
    lock = p["lock"]
    key = platform_key(module, p)
    if key is not None and key not in lock:
        module.fail_json(msg="the pins' wheel lock names no wheels for %s "
                             "(only %s): run \"pyrt lock --platform %s\" "
                             "where you trust the wheels" %
                             (key, ", ".join(sorted(lock)), key))
    mine, anywhere = {}, set()
    for plat, items in lock.items():
        for w in items or []:
            e = entry(module, w.get("file"), w.get("sha256"), w.get("size"),
                      "pins' wheel lock")
            anywhere.add(e["file"])
            if key is None or plat == key:
                mine[e["file"]] = e
    return mine, anywhere


def fetch(module, url, p):
    resp, info = fetch_url(module, url, ca_path=p["cacert"],
                           timeout=p["timeout"])
    if info.get("status") != 200 or resp is None:
        module.fail_json(msg="cannot fetch %s: %s" %
                             (shown(url), info.get("msg", "no answer")),
                         status=info.get("status"))
    return resp


def mirror_index(module, p):
    """{file: entry} of the wheels the mirror's index says it serves."""
    url = join(p["mirror"], "pyrt-mirror.json")
    try:
        idx = json.loads(fetch(module, url, p).read())
        items = idx["wheels"].items()
    except (ValueError, KeyError, TypeError, AttributeError):
        module.fail_json(msg="%s is not a pyrt mirror index (no wheels "
                             "object)" % shown(url))
    served = {}
    for rel, meta in items:
        if not isinstance(meta, dict) or not rel.startswith("wheels/"):
            continue
        e = entry(module, rel[len("wheels/"):], meta.get("sha256"),
                  meta.get("size"), "mirror's index")
        served[e["file"]] = e
    return served


def wanted_wheels(module, p):
    """What to copy, each with the digest it must have: the mirror's index
    says which files it serves; with a lock, only the locked ones are
    taken, with the lock's digest and size (the index may be edited along
    with the files), and the rest are ignored (pyrt would refuse them)."""
    served = mirror_index(module, p)
    if not p["lock"]:
        return served, []
    mine, anywhere = lock_entries(module, p)
    wanted = {f: mine[f] for f in served if f in mine}
    ignored = sorted(f for f in served if f not in anywhere)
    return wanted, ignored


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def current(path, want):
    try:
        return os.path.isfile(path) and not os.path.islink(path) and \
            sha256_of(path) == want["sha256"]
    except OSError:
        return False


def download(module, p, want, source):
    """MIRROR/wheels/FILE into dest, under its name only once verified."""
    url = join(p["mirror"], "wheels/" + want["file"])
    final = os.path.join(p["dest"], want["file"])
    tmp = os.path.join(p["dest"], "." + want["file"] + ".partial")
    resp = fetch(module, url, p)
    h, size = hashlib.sha256(), 0
    try:
        with open(tmp, "wb") as f:
            for chunk in iter(lambda: resp.read(1 << 16), b""):
                h.update(chunk)
                size += len(chunk)
                # Past the expected size it is the wrong file: stop there
                # rather than fill the disk.
                if want["size"] is not None and size > want["size"]:
                    break
                f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        got = h.hexdigest()
        if got != want["sha256"] or \
                (want["size"] is not None and size != want["size"]):
            module.fail_json(
                msg="SHA-256 mismatch for %s: the %s says %s (%s bytes), "
                    "the mirror served %s (%d bytes); nothing of it was "
                    "kept" % (shown(url), source, want["sha256"],
                              want["size"], got, size),
                rc=5, code="verification")
        os.chmod(tmp, 0o644)
        os.rename(tmp, final)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def main():
    module = AnsibleModule(
        argument_spec={
            "dest": {"type": "path", "required": True},
            "mirror": {"type": "str", "required": True, "no_log": True},
            "lock": {"type": "dict", "default": {}},
            "binary": {"type": "path", "default": "pyrt"},
            "cacert": {"type": "path"},
            "timeout": {"type": "int", "default": 60},
        },
        supports_check_mode=True,
    )
    p = module.params
    source = "pins' wheel lock" if p["lock"] else "mirror's index"
    wanted, ignored = wanted_wheels(module, p)
    dest = p["dest"]
    try:
        present = [f for f in os.listdir(dest) if f.endswith(".whl")]
    except OSError:
        present = []
    stale = sorted(f for f in present if f not in wanted)
    missing = sorted(f for f in wanted
                     if not current(os.path.join(dest, f), wanted[f]))
    changed = bool(stale or missing) or not os.path.isdir(dest)
    if not module.check_mode:
        if not os.path.isdir(dest):
            os.makedirs(dest, 0o755)
        for f in missing:
            download(module, p, wanted[f], source)
        for f in stale:
            os.unlink(os.path.join(dest, f))
    module.exit_json(changed=changed, fetched=missing, removed=stale,
                     ignored=ignored, kept=len(wanted) - len(missing),
                     source=source.split()[-1])


if __name__ == "__main__":
    main()
