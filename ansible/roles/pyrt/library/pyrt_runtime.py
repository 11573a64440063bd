#!/usr/bin/python3
"""Ansible module: provision (or remove) pyrt's managed CPython runtime.

state=present runs `pyrt install --yes --json`, reports changed only when
the install's result event says something was installed, fails with pyrt's
own message and exit code, and publishes `pyrt status --json` as the host
fact pyrt_status.  state=absent runs `pyrt uninstall --yes --json` and
reports changed only when the box held an install.  In check mode only
`pyrt status --json` runs, and its answer decides: not ready, a baseline
not complete, or `update_available` (the pins want another build) is a
change.  Pins the play would copy but has not (check mode copies nothing)
are given as pins_content: status is then read against them, from a
temporary file, so that a pins change is seen before it is made.
Standard library only.

The mirror and index URLs may carry a password or a token: they reach pyrt
through its environment (PYRT_MIRROR_URL, PYRT_INDEX_URL), never its
command line, which every local user can read in /proc/PID/cmdline, and
they are no_log options, so -vvv and the module's result do not show them.
"""

import json
import os
import tempfile

from ansible.module_utils.basic import AnsibleModule

DOCUMENTATION = r"""
module: pyrt_runtime
short_description: Provision or remove the managed CPython runtime with pyrt
description:
  - state=present runs C(pyrt install --yes --json) and reports C(changed)
    only when the runtime or the baseline was installed; state=absent runs
    C(pyrt uninstall --yes --json) and reports C(changed) only when the box
    held an install.  Publishes C(pyrt status --json) as the fact
    C(pyrt_status).  In check mode only C(pyrt status --json) runs; a
    runtime that is not ready, a baseline that is not complete, or
    C(update_available) (the pins want another build) is a change.
options:
  state:
    description: present (installed and current) or absent (uninstalled)
    type: str
    choices: [present, absent]
    default: present
  binary: {description: pyrt to run, type: path, default: pyrt}
  box_root: {description: "--box-root", type: path}
  pins: {description: "--pins", type: path}
  pins_content:
    description: >-
      check mode only: the pins the play would copy to I(pins) (and has
      not, in check mode); status is read against them
    type: str
  mirror:
    description: "--mirror URL, given as PYRT_MIRROR_URL (not on the command line; no_log)"
    type: str
  index_url:
    description: "--index-url URL for the baseline, given as PYRT_INDEX_URL (not on the command line; no_log)"
    type: str
  wheelhouse: {description: "--wheelhouse DIR", type: path}
  cacert: {description: "--cacert FILE", type: path}
  baseline: {description: "false: --no-baseline", type: bool, default: true}
author: pyrt
"""

RETURN = r"""
result: {description: the install's or uninstall's result event, returned: when it ran, type: dict}
rc: {description: "pyrt install's or uninstall's exit code", returned: when it ran, type: int}
status_rc: {description: "pyrt status's exit code (1: not ready)", returned: in check mode, type: int}
"""


def common_args(p, pins=None):
    args = []
    for opt, val in (("--box-root", p["box_root"]),
                     ("--pins", pins or p["pins"]),
                     ("--cacert", p["cacert"])):
        if val:
            args += [opt, val]
    return args


def secret_env(p):
    """The URLs that may carry credentials, for pyrt's environment."""
    env = {}
    for var, key in (("PYRT_MIRROR_URL", "mirror"),
                     ("PYRT_INDEX_URL", "index_url")):
        if p[key]:
            env[var] = p[key]
    return env


def read_status(module, binary, p, pins=None):
    rc, out, err = module.run_command([binary, "status", "--json"] +
                                      common_args(p, pins))
    try:
        return json.loads(out), rc, err
    except ValueError:
        return None, rc, err


def ndjson(out):
    for line in out.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if isinstance(ev, dict):
            yield ev


def result_event(out):
    """The last `result` event of an --json command's NDJSON, or None."""
    found = None
    for ev in ndjson(out):
        if ev.get("event") == "result":
            found = ev
    return found


def installed_something(out, res):
    """The runtime (not already current) or a baseline step that ran."""
    if not res.get("already_current"):
        return True
    return any(ev.get("event") == "step" and ev.get("step") == "baseline" and
               ev.get("state") == "end" for ev in ndjson(out))


def has_install(status):
    """What `pyrt uninstall` would remove: current, previous, or anything
    in installs/ beside them (status names current's path)."""
    path = (status or {}).get("path")
    if not path:
        return True  # unknown: uninstall decides, and says so
    runtime = os.path.dirname(path)
    if os.path.lexists(path) or \
            os.path.lexists(os.path.join(runtime, "previous")):
        return True
    try:
        return bool(os.listdir(os.path.join(runtime, "installs")))
    except OSError:
        return False


def would_change(status, p):
    if p["state"] == "absent":
        return has_install(status)
    if not status or status.get("state") != "ready":
        return True
    if status.get("update_available"):
        return True
    baseline = (status.get("baseline") or {}).get("state")
    return bool(p["baseline"]) and baseline != "complete"


def pending_pins(module, p):
    """A temporary file holding pins_content, or None."""
    if not p["pins_content"]:
        return None
    fd, path = tempfile.mkstemp(prefix="pyrt-pins-", suffix=".yaml",
                                dir=module.tmpdir)
    with os.fdopen(fd, "w") as f:
        f.write(p["pins_content"])
        if not p["pins_content"].endswith("\n"):
            f.write("\n")
    return path


def check_mode(module, binary, p):
    if not binary:
        if p["state"] == "absent":
            module.exit_json(changed=False,
                             msg="pyrt is not installed: no runtime to "
                                 "remove")
        module.exit_json(changed=True,
                         msg="pyrt is not installed yet: it would be, "
                             "and the runtime provisioned")
    status, rc, err = read_status(module, binary, p, pending_pins(module, p))
    facts = {"pyrt_status": status} if status is not None else {}
    changed = would_change(status, p)
    msg = (status or {}).get("message") or err.strip()
    # status exits 1 when not ready, the usual answer here: a nonzero rc
    # would fail the task, so it is status_rc.
    module.exit_json(changed=changed, status_rc=rc, msg=msg,
                     ansible_facts=facts)


def fail_with(module, rc, res, err, what, facts):
    msg = (res or {}).get("error") or err.strip() or "pyrt %s failed" % what
    module.fail_json(msg=msg, rc=rc, code=(res or {}).get("code"),
                     stderr=err, result=res, ansible_facts=facts)


def absent(module, binary, p):
    if not binary:
        module.exit_json(changed=False, rc=0,
                         msg="pyrt is not installed: no runtime to remove")
    before, _, _ = read_status(module, binary, p)
    had = has_install(before)
    cmd = [binary, "uninstall", "--yes", "--json"] + common_args(p)
    rc, out, err = module.run_command(cmd)
    res = result_event(out)
    status, _, _ = read_status(module, binary, p)
    facts = {"pyrt_status": status} if status is not None else {}
    if rc != 0 or res is None or not res.get("ok"):
        fail_with(module, rc, res, err, "uninstall", facts)
    module.exit_json(changed=had, rc=rc, result=res,
                     msg=(status or {}).get("message", ""),
                     ansible_facts=facts)


def present(module, binary, p):
    if not binary:
        module.fail_json(msg="pyrt not found at %s; install it first "
                             "(role var pyrt_deb or pyrt_binary)" % p["binary"],
                         rc=127)
    cmd = [binary, "install", "--yes", "--json"] + common_args(p)
    if p["wheelhouse"]:
        cmd += ["--wheelhouse", p["wheelhouse"]]
    if not p["baseline"]:
        cmd += ["--no-baseline"]
    rc, out, err = module.run_command(cmd, environ_update=secret_env(p))
    res = result_event(out)
    status, _, _ = read_status(module, binary, p)
    facts = {"pyrt_status": status} if status is not None else {}
    if rc != 0 or res is None or not res.get("ok"):
        fail_with(module, rc, res, err, "install", facts)
    module.exit_json(changed=installed_something(out, res), rc=rc,
                     result=res, msg=(status or {}).get("message", ""),
                     ansible_facts=facts)


def main():
    module = AnsibleModule(
        argument_spec={
            "state": {"type": "str", "default": "present",
                      "choices": ["present", "absent"]},
            "binary": {"type": "path", "default": "pyrt"},
            "box_root": {"type": "path"},
            "pins": {"type": "path"},
            "pins_content": {"type": "str"},
            "mirror": {"type": "str", "no_log": True},
            "index_url": {"type": "str", "no_log": True},
            "wheelhouse": {"type": "path"},
            "cacert": {"type": "path"},
            "baseline": {"type": "bool", "default": True},
        },
        supports_check_mode=True,
    )
    p = module.params
    binary = module.get_bin_path(p["binary"], required=False)
    if module.check_mode:
        check_mode(module, binary, p)
    if p["state"] == "absent":
        absent(module, binary, p)
    present(module, binary, p)


if __name__ == "__main__":
    main()
