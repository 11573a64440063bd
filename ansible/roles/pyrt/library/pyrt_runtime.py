#!/usr/bin/python3
"""Ansible module: provision pyrt's managed CPython runtime on a host.

Runs `pyrt install --yes --json` (or, in check mode, only `pyrt status
--json`), reports changed only when the install's result event says
something was installed, fails with pyrt's own message and exit code, and
publishes `pyrt status --json` as the host fact pyrt_status.  Standard
library only.

The mirror and index URLs may carry a password or a token: they reach pyrt
through its environment (PYRT_MIRROR_URL, PYRT_INDEX_URL), never its
command line, which every local user can read in /proc/PID/cmdline, and
they are no_log options, so -vvv and the module's result do not show them.
"""

import json

from ansible.module_utils.basic import AnsibleModule

DOCUMENTATION = r"""
module: pyrt_runtime
short_description: Provision the managed CPython runtime with pyrt
description:
  - Runs C(pyrt install --yes --json) and reports C(changed) only when the
    runtime or the baseline was installed; publishes C(pyrt status --json)
    as the fact C(pyrt_status).  In check mode only C(pyrt status --json)
    runs.
options:
  binary: {description: pyrt to run, type: path, default: pyrt}
  box_root: {description: "--box-root", type: path}
  pins: {description: "--pins", type: path}
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
result: {description: the install's result event, returned: when installed, type: dict}
rc: {description: pyrt's exit code, returned: always, type: int}
"""


def common_args(p):
    args = []
    for opt, key in (("--box-root", "box_root"), ("--pins", "pins"),
                     ("--cacert", "cacert")):
        if p[key]:
            args += [opt, p[key]]
    return args


def secret_env(p):
    """The URLs that may carry credentials, for pyrt's environment."""
    env = {}
    for var, key in (("PYRT_MIRROR_URL", "mirror"),
                     ("PYRT_INDEX_URL", "index_url")):
        if p[key]:
            env[var] = p[key]
    return env


def read_status(module, binary, p):
    rc, out, err = module.run_command([binary, "status", "--json"] +
                                      common_args(p))
    try:
        return json.loads(out), rc, err
    except ValueError:
        return None, rc, err


def result_event(out):
    """The last `result` event of install --json's NDJSON, or None."""
    found = None
    for line in out.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if isinstance(ev, dict) and ev.get("event") == "result":
            found = ev
    return found


def installed_something(out, res):
    """The runtime (not already current) or a baseline step that ran."""
    if not res.get("already_current"):
        return True
    for line in out.splitlines():
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if (isinstance(ev, dict) and ev.get("event") == "step" and
                ev.get("step") == "baseline" and ev.get("state") == "end"):
            return True
    return False


def would_change(status, p):
    if not status or status.get("state") != "ready":
        return True
    baseline = (status.get("baseline") or {}).get("state")
    return bool(p["baseline"]) and baseline != "complete"


def check_mode(module, binary, p):
    if not binary:
        module.exit_json(changed=True, rc=0,
                         msg="pyrt is not installed yet: it would be, "
                             "and the runtime provisioned")
    status, rc, err = read_status(module, binary, p)
    facts = {"pyrt_status": status} if status is not None else {}
    changed = would_change(status, p)
    msg = (status or {}).get("message") or err.strip()
    module.exit_json(changed=changed, rc=rc, msg=msg, ansible_facts=facts)


def main():
    module = AnsibleModule(
        argument_spec={
            "binary": {"type": "path", "default": "pyrt"},
            "box_root": {"type": "path"},
            "pins": {"type": "path"},
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
        msg = (res or {}).get("error") or err.strip() or "pyrt install failed"
        module.fail_json(msg=msg, rc=rc, code=(res or {}).get("code"),
                         stderr=err, result=res, ansible_facts=facts)
    module.exit_json(changed=installed_something(out, res), rc=rc,
                     result=res, msg=(status or {}).get("message", ""),
                     ansible_facts=facts)


if __name__ == "__main__":
    main()
