#!/usr/bin/env python3
"""The API of `pyrt serve` through Python's http.client (the second client
next to curl in e2e_serve.sh): every endpoint, the Host/Origin/token gate,
bodies, jobs with their SSE stream, cancel, 409, SIGTERM, socket activation;
the API's reach (no request field chooses where code comes from; what the
CLI would refuse is 400 up front), a lock taken after a 202, and 300 slow
clients against the header deadline and the untrusted-connection cap.
Every JSON response received is validated against docs/api.yaml, so the
document cannot drift from the server.

Environment (set by tests/e2e_serve.sh): PYRT, SRC, FX (fixtures), WORK,
MIRROR (the loopback HTTPS mirror's --mirror base), PORT (its port), SHORT
(a private folder with a short path under /tmp: AF_UNIX paths end at 108
bytes, and WORK may be deep in a CI checkout).
"""
import atexit
import http.client
import json
import shutil
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time

import jsonschema
import yaml

PYRT = os.environ["PYRT"]
SRC = os.environ["SRC"]
FX = os.environ["FX"]
WORK = os.environ["WORK"]
MIRROR = os.environ["MIRROR"]
MPORT = os.environ["PORT"]
SHORT = os.environ["SHORT"]

LONG_FLOATS = []
SPEC = yaml.safe_load(open(os.path.join(SRC, "docs", "api.yaml")))
passed = failed = 0


def check(what, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print(f"ok - {what}")
    else:
        failed += 1
        print(f"FAIL - {what} {detail}")
    sys.stdout.flush()


# ---- schema validation against docs/api.yaml ----

def operation(path, method):
    path = path.split("?")[0]
    for tmpl, item in SPEC["paths"].items():
        rx = "^" + re.sub(r"\{[^}]+\}", "[^/]+", tmpl) + "$"
        if re.match(rx, path) and method.lower() in item:
            return item[method.lower()]
    return None


def schema_for(path, method, status, ctype):
    op = operation(path, method)
    if op is None:
        # unknown paths answer with the common error
        return {"$ref": "#/components/schemas/Error"}
    resp = op["responses"].get(str(status)) or op["responses"].get("default")
    if resp is None:
        raise AssertionError(f"{method} {path}: status {status} is not in docs/api.yaml")
    if "$ref" in resp:
        resp = SPEC["components"]["responses"][resp["$ref"].split("/")[-1]]
    content = resp.get("content", {})
    if ctype not in content:
        if not content:
            return None
        raise AssertionError(f"{method} {path} {status}: content type {ctype} not in docs/api.yaml")
    return content[ctype]["schema"]


validated = 0


def validate(path, method, status, ctype, obj):
    global validated
    schema = schema_for(path, method, status, ctype)
    if schema is None:
        return
    full = dict(schema)
    full["components"] = SPEC["components"]
    jsonschema.Draft202012Validator(full).validate(obj)
    validated += 1


# ---- the client ----

class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout=30):
        super().__init__("localhost", timeout=timeout)
        self.unix_path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self.unix_path)
        self.sock = s


def short_link(sock, name):
    """A client reaches a socket in a deep box through a short symlink."""
    link = os.path.join(SHORT, name)
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(sock, link)
    return link


class Api:
    def __init__(self, unix=None, tcp=None, token=None):
        self.unix, self.tcp, self.token = unix, tcp, token

    def conn(self, timeout=30):
        if self.unix:
            return UnixHTTPConnection(self.unix, timeout)
        return http.client.HTTPConnection(self.tcp[0], self.tcp[1], timeout=timeout)

    def request(self, method, path, body=None, headers=None, raw=None, token=True, timeout=30):
        c = self.conn(timeout)
        h = {}
        if self.token and token:
            h["Authorization"] = f"Bearer {self.token}"
        if body is not None:
            raw = json.dumps(body).encode()
        if raw is not None:
            h["Content-Type"] = "application/json"
        h.update(headers or {})
        c.request(method, path, body=raw, headers=h)
        r = c.getresponse()
        data = r.read()
        hdrs = {k.lower(): v for k, v in r.getheaders()}
        c.close()
        check_no_cors(hdrs, f"{method} {path}")
        obj = None
        ctype = hdrs.get("content-type", "")
        if data and ctype == "application/json":
            # A number rounded to the millisecond is printed as such, not
            # with jansson's 17 digits (0.47199999999999998).
            if re.search(rb"[0-9]\.[0-9]{11,}", data):
                LONG_FLOATS.append(f"{method} {path}")
            obj = json.loads(data)
            validate(path, method, r.status, ctype, obj)
        return r.status, hdrs, obj

    def events(self, path, until_result=True, on_event=None, timeout=120):
        """Read the SSE stream; returns the list of (name, obj)."""
        c = self.conn(timeout=timeout)
        h = {"Accept": "text/event-stream"}
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        c.request("GET", path, headers=h)
        r = c.getresponse()
        hdrs = {k.lower(): v for k, v in r.getheaders()}
        check_no_cors(hdrs, f"GET {path}")
        if r.status != 200:
            obj = json.loads(r.read())
            validate(path, "GET", r.status, "application/json", obj)
            c.close()
            return r.status, []
        out, name, data = [], None, []
        while True:
            line = r.fp.readline()
            if not line:
                break
            line = line.decode().rstrip("\n")
            if line.startswith(":"):
                continue
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
            elif line == "" and data:
                obj = json.loads("\n".join(data))
                validate(path, "GET", 200, "text/event-stream", obj)
                out.append((name, obj))
                if on_event:
                    on_event(name, obj)
                name, data = None, []
                if until_result and obj.get("event") == "result":
                    break
        c.close()
        return 200, out


cors_seen = []


def check_no_cors(hdrs, what):
    for k in hdrs:
        if k.startswith("access-control-"):
            cors_seen.append(f"{what}: {k}")


# ---- servers ----

started = []


def stop_all():
    """A failing scenario must not leave a server behind (atexit)."""
    for s in started:
        if s.p.poll() is None:
            s.p.kill()
            s.p.wait()


class Server:
    def __init__(self, args, env=None, name="serve"):
        self.log = os.path.join(WORK, f"{name}.log")
        self.errf = open(self.log, "w")
        self.p = subprocess.Popen([PYRT, "serve"] + args, stdout=subprocess.DEVNULL,
                                  stderr=self.errf, env=env)
        started.append(self)
        self.where = None
        for _ in range(100):
            txt = open(self.log).read()
            m = re.search(r"listening on (\S+?)(,| \()", txt)
            if m:
                self.where = m.group(1)
                break
            if self.p.poll() is not None:
                break
            time.sleep(0.05)

    def tcp(self):
        m = re.match(r"^\[?([0-9a-f:.]+)\]?:(\d+)$", self.where)
        return m.group(1), int(m.group(2))

    def stop(self, sig=signal.SIGTERM, timeout=30):
        if self.p.poll() is None:
            self.p.send_signal(sig)
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
            rc = ("timeout", rc)
        self.errf.close()
        return rc


def cli(*args):
    r = subprocess.run([PYRT] + list(args), stdin=subprocess.DEVNULL,
                       capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def slow_pins():
    path = os.path.join(WORK, "pins-slow.yaml")
    text = open(os.path.join(FX, "pins.yaml")).read()
    text = re.sub(r"url: .*", f"url: https://127.0.0.1:{MPORT}/pbs/fixture/runtime.tar.gz?fault=slow:200000", text)
    open(path, "w").write(text)
    return path


def wait_progress(api, job_path, step="download", timeout=30):
    end = time.time() + timeout
    while time.time() < end:
        st, _, j = api.request("GET", job_path)
        if j and j.get("progress") and j.get("step") == step and j["progress"]["done"] > 0:
            return True
        time.sleep(0.05)
    return False


def tree_clean(box):
    rt = os.path.join(box, "runtime", "python")
    staging = os.path.join(rt, "staging")
    installs = os.path.join(rt, "installs")
    return (not os.path.exists(os.path.join(rt, "current"))
            and (not os.path.isdir(staging) or os.listdir(staging) == [])
            and (not os.path.isdir(installs) or os.listdir(installs) == []))


# ---- scenarios ----

def scenario_tcp_gate_and_cancel():
    """TCP on 127.0.0.1: the token, Host and Origin gate, cancel mid-download,
    409 while our job runs, the CLI sees installing and is refused busy."""
    box = os.path.join(WORK, "box-tcp")
    pins = slow_pins()
    tokfile = os.path.join(WORK, "token")
    s = Server(["--box-root", box, "--pins", pins, "--cacert", os.path.join(FX, "ca.pem"),
                "--listen", "127.0.0.1:0", "--token-file", tokfile], name="tcp")
    check("TCP server starts on 127.0.0.1", s.where is not None, open(s.log).read())
    if not s.where:
        return
    host, port = s.tcp()
    st = os.stat(tokfile)
    check("token file made 0600 at first start", oct(st.st_mode & 0o777) == "0o600", oct(st.st_mode))
    token = open(tokfile).read().strip()
    check("token is 64 hex digits", re.fullmatch(r"[0-9a-f]{64}", token) is not None)
    api = Api(tcp=(host, port), token=token)
    noauth = Api(tcp=(host, port))
    wrong = Api(tcp=(host, port), token="0" * 64)

    code, _, e = noauth.request("GET", "/api/health")
    check("no token: 401 with the JSON error", code == 401 and e["error"]["code"] == "unauthorized", (code, e))
    code, h, e = wrong.request("GET", "/api/runtime/python")
    check("wrong token: 401", code == 401 and "bearer" in h.get("www-authenticate", "").lower(), (code, h))
    code, _, e = api.request("GET", "/api/health")
    check("right token: health 200 with the version", code == 200 and e["version"], (code, e))

    for hv in ("evil.example", f"evil.example:{port}", f":{port}", "localhost.evil.example", "127.0.0.1.nip.io"):
        code, _, e = api.request("GET", "/api/health", headers={"Host": hv})
        check(f"Host {hv!r} refused with 421", code == 421 and e["error"]["code"] == "misdirected", (code, e))
    for hv in ("localhost", f"localhost:{port}", f"127.0.0.1:{port}", "[::1]:1"):
        code, _, _ = api.request("GET", "/api/health", headers={"Host": hv})
        check(f"Host {hv!r} accepted", code == 200, code)
    # Two Host headers, raw on the socket.
    with socket.create_connection((host, port), timeout=10) as sk:
        sk.sendall((f"GET /api/health HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\n"
                    f"Authorization: Bearer {token}\r\nConnection: close\r\n\r\n").encode())
        resp = b""
        while True:
            d = sk.recv(65536)
            if not d:
                break
            resp += d
    check("two Host headers refused (400)", resp.startswith(b"HTTP/1.1 400"), resp[:80])
    with socket.create_connection((host, port), timeout=10) as sk:
        sk.sendall((f"GET http://evil.example/api/health HTTP/1.1\r\nHost: localhost\r\n"
                    f"Authorization: Bearer {token}\r\nConnection: close\r\n\r\n").encode())
        resp = sk.recv(65536)
    check("absolute-form target naming another host refused", not resp.startswith(b"HTTP/1.1 200"), resp[:80])
    for origin in ("https://evil.example", "http://localhost.evil.example", "null", "http://127.0.0.1.evil.example:80"):
        code, h, e = api.request("GET", "/api/runtime/python", headers={"Origin": origin})
        check(f"Origin {origin} refused with 403", code == 403 and e["error"]["code"] == "forbidden_origin", (code, e))
    code, _, _ = api.request("GET", "/api/health", headers={"Origin": f"http://localhost:{port}"})
    check("a loopback Origin is accepted", code == 200, code)

    # Install on the slow mirror; 409 while it runs; the CLI sees it.
    code, h, job = api.request("POST", "/api/runtime/python/install",
                               body={"consent": True, "no_baseline": True})
    check("POST install: 202 with Location and the job", code == 202 and h.get("location") == f"/api/jobs/{job['id']}", (code, h, job))
    jp = h.get("location", "/api/jobs/x")
    check("the job reaches the download with progress", wait_progress(api, jp))
    # The SSE subscriber cap: 32 open streams, the 33rd is refused.
    held = []
    for _ in range(32):
        sk = socket.create_connection((host, port), timeout=10)
        sk.sendall((f"GET {jp}/events HTTP/1.1\r\nHost: localhost\r\n"
                    f"Authorization: Bearer {token}\r\n\r\n").encode())
        held.append(sk)
    heads = [sk.recv(4096) for sk in held]
    code, _, e = api.request("GET", jp + "/events")
    check("32 SSE streams open; the 33rd is refused with 503",
          all(h.startswith(b"HTTP/1.1 200") for h in heads) and code == 503
          and e["error"]["code"] == "too_many_subscribers", (code, e, heads[:1]))
    for sk in held:
        sk.close()
    code, _, e = api.request("POST", "/api/runtime/python/install", body={"consent": True})
    check("a second POST while it runs: 409 naming the job", code == 409 and e.get("job", {}).get("id") == job["id"], (code, e))
    code, _, e = api.request("POST", "/api/runtime/python/baseline", body={})
    check("a baseline POST while it runs: 409", code == 409, (code, e))
    rc, out, _ = cli("status", "--box-root", box, "--pins", pins, "--json")
    stj = json.loads(out) if out.strip().startswith("{") else {}
    check("pyrt status says installing while the API install runs",
          stj.get("state") == "installing" and stj.get("installer_pid") == s.p.pid, stj)
    code, _, apist = api.request("GET", "/api/runtime/python")
    check("GET status says installing too", code == 200 and apist["state"] == "installing", apist)
    rc, _, err = cli("install", "--box-root", box, "--pins", pins, "--cacert", os.path.join(FX, "ca.pem"),
                     "--yes", "--no-wait", "--no-baseline")
    check("a CLI install meanwhile is refused busy (exit 7)", rc == 7, (rc, err))

    # A late subscriber gets the job from its start; DELETE cancels.
    got = {}

    def on_ev(name, obj):
        if name == "progress" and "t_first" not in got:
            got["t_first"] = time.time()
    import threading
    res = {}
    def late_subscriber():
        # The 32 streams closed above hold their slots until the server next
        # writes to them (a progress event or the keep-alive): a 503 here is
        # the cap still counting them, so ask again for a while.
        deadline = time.time() + 20
        while True:
            st, ev = api.events(jp + "/events", on_event=on_ev)
            if st != 503 or time.time() > deadline:
                res["ev"] = (st, ev)
                return
            time.sleep(0.1)
    th = threading.Thread(target=late_subscriber)
    th.start()
    time.sleep(0.5)
    code, _, j = api.request("DELETE", jp)
    check("DELETE mid-download: 202", code == 202, (code, j))
    th.join(60)
    status, evs = res.get("ev", (0, []))
    names = [n for n, _ in evs]
    steps = [o for n, o in evs if n == "step"]
    check("late SSE subscriber sees the job from its start (install log line, then lock begin)",
          evs and evs[0][1]["event"] == "log" and "install log" in evs[0][1]["message"]
          and steps and steps[0]["step"] == "lock" and steps[0]["state"] == "begin", (status, evs[:2]))
    check("SSE carries progress and ends with the result", "progress" in names and names[-1] == "result", names[-5:])
    check("the result says cancelled", evs and evs[-1][1]["code"] == "cancelled" and evs[-1][1]["ok"] is False, evs[-1:] )
    for _ in range(100):
        code, _, j = api.request("GET", jp)
        if j["state"] != "running":
            break
        time.sleep(0.05)
    check("GET job: cancelled", j["state"] == "cancelled", j)
    code, _, e = api.request("DELETE", jp)
    check("DELETE of a finished job: 409", code == 409, (code, e))
    check("cancel left the old state: nothing installed, staging empty", tree_clean(box), os.listdir(os.path.join(box, "runtime", "python")))
    rc, out, _ = cli("status", "--box-root", box, "--pins", pins, "--json")
    check("status after the cancel: not_provisioned", json.loads(out)["state"] == "not_provisioned", out)

    # The lock held by a CLI install: 409 naming the holder.
    cp = subprocess.Popen([PYRT, "install", "--box-root", box, "--pins", pins, "--cacert",
                           os.path.join(FX, "ca.pem"), "--yes", "--no-baseline"],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    held = False
    for _ in range(200):
        rc, out, _ = cli("status", "--box-root", box, "--pins", pins, "--json")
        if json.loads(out).get("installer_pid") == cp.pid:
            held = True
            break
        time.sleep(0.05)
    code, _, e = api.request("POST", "/api/runtime/python/install", body={"consent": True})
    check("POST while a CLI install holds the box lock: 409 with the holder",
          held and code == 409 and e.get("lock_holder", {}).get("pid") == cp.pid, (held, code, e))
    cp.send_signal(signal.SIGINT)
    cp.wait(30)

    # SIGTERM mid-install: cancelled cleanly, nothing half-done.
    code, h, job = api.request("POST", "/api/runtime/python/install", body={"consent": True, "no_baseline": True})
    ok = code == 202 and wait_progress(api, h["location"])
    t0 = time.time()
    rc = s.stop(signal.SIGTERM)
    check("SIGTERM mid-install: the server exits 0 promptly", ok and rc == 0 and time.time() - t0 < 20, (ok, rc))
    log = open(s.log).read()
    check("the server log says the job was cancelled", re.search(r"job \w+ \(install\) cancelled", log) is not None, log[-500:])
    check("SIGTERM left nothing half-done", tree_clean(box))
    rc, out, _ = cli("status", "--box-root", box, "--pins", pins, "--json")
    check("status after SIGTERM: not_provisioned, no installer", json.loads(out)["state"] == "not_provisioned" and json.loads(out)["installer_pid"] is None, out)

    # A second start writes a fresh token (issue 26, door 6): one captured
    # while the server was down is refused after the restart.
    s2 = Server(["--box-root", box, "--pins", pins, "--listen", "127.0.0.1:0", "--token-file", tokfile], name="tcp2")
    token2 = open(tokfile).read().strip()
    check("a restart writes a fresh token, still 0600",
          token2 != token and len(token2) == 64 and stat.S_IMODE(os.stat(tokfile).st_mode) == 0o600,
          (token2 == token, oct(os.stat(tokfile).st_mode)))
    if s2.where:
        code, _, _ = Api(tcp=s2.tcp(), token=token).request("GET", "/api/health")
        check("the token of the last start is refused after a restart (401)", code == 401, code)
        code, _, _ = Api(tcp=s2.tcp(), token=token2).request("GET", "/api/health")
        check("the fresh token works", code == 200, code)
    s2.stop()


def scenario_unix_full_flow():
    """The default Unix socket: modes, bodies, the whole install flow."""
    box = os.path.join(WORK, "box-unix")
    pins = os.path.join(FX, "pins.yaml")
    # Where code comes from is the server's configuration, never a request's.
    s = Server(["--box-root", box, "--pins", pins, "--cacert", os.path.join(FX, "ca.pem"),
                "--mirror", MIRROR, "--wheelhouse", os.path.join(FX, "wheelhouse")], name="unix")
    sock = os.path.join(box, "runtime", "python", "api.sock")
    check("Unix server listens on <box>/runtime/python/api.sock", s.where == f"unix:{sock}", s.where)
    if not s.where:
        return
    check("the socket is 0600", oct(os.stat(sock).st_mode & 0o777) == "0o600")
    check("its directory is writable by its owner only",
          os.stat(os.path.dirname(sock)).st_mode & 0o022 == 0)
    api = Api(unix=short_link(sock, "unix.sock"))
    code, _, e = api.request("GET", "/api/health")
    check("no token needed on the Unix socket", code == 200, code)

    code, h, st = api.request("GET", "/api/runtime/python")
    rc, out, _ = cli("status", "--box-root", box, "--pins", pins, "--json")
    check("GET status is exactly pyrt status --json", code == 200 and st == json.loads(out), (st, out))
    etag = h.get("etag")
    check("status has an ETag", bool(etag))
    code, h2, _ = api.request("GET", "/api/runtime/python", headers={"If-None-Match": etag})
    check("If-None-Match with the same ETag: 304", code == 304, code)

    code, _, e = api.request("POST", "/api/runtime/python/install", body={})
    check("POST install without consent: 400 saying so", code == 400 and "consent" in e["error"]["message"], e)
    code, _, e = api.request("POST", "/api/runtime/python/install", body={"consent": False})
    check("consent false: 400", code == 400 and e["error"]["code"] == "consent_required", e)
    code, _, e = api.request("POST", "/api/runtime/python/install", body={"consent": True, "force": True})
    check("unknown field: 400 naming it", code == 400 and "force" in e["error"]["message"], e)
    code, _, e = api.request("POST", "/api/runtime/python/install", raw=b"{consent: true")
    check("malformed JSON: 400 with the JSON error", code == 400 and e["error"]["code"] == "bad_request", e)
    code, _, e = api.request("POST", "/api/runtime/python/install", raw=b"[true]")
    check("a JSON array body: 400", code == 400, e)
    code, _, e = api.request("POST", "/api/runtime/python/install", body={"consent": True, "no_baseline": "yes"})
    check("a field of the wrong type: 400", code == 400, e)
    code, _, e = api.request("POST", "/api/runtime/python/install",
                             raw=json.dumps({"consent": True, "mirror": "x" * 17000}).encode())
    check("a body over 16 KiB: 413 with the JSON error", code == 413 and e["error"]["code"] == "too_large", (code, e))
    code, _, e = api.request("GET", "/api/nothing")
    check("unknown path: 404 JSON error", code == 404 and e["error"]["code"] == "not_found", e)
    code, h, e = api.request("PUT", "/api/runtime/python")
    check("wrong method: 405 JSON error", code == 405, e)
    check("405 names the methods the path takes (Allow)", h.get("allow") == "GET, HEAD", h)
    code, h, e = api.request("GET", "/api/runtime/python/install")
    check("GET on a POST path: 405, Allow: POST", code == 405 and h.get("allow") == "POST", (code, h))
    code, h, e = api.request("POST", "/api/jobs/" + "0" * 32)
    check("POST on a job: 405, Allow: GET, DELETE", code == 405 and h.get("allow") == "GET, DELETE", (code, h))
    ops = [(p, m, o) for p, v in SPEC["paths"].items() for m, o in v.items() if m != "parameters"]
    ids = [o.get("operationId") for _, _, o in ops]
    check("every operation in docs/api.yaml has a unique operationId",
          all(ids) and len(set(ids)) == len(ids), ids)
    check("every GET documents its 4xx answers (400, 401, 403, 421)",
          all({"400", "401", "403", "421"} <= set(o["responses"]) for _, m, o in ops if m == "get"),
          [(p, sorted(o["responses"])) for p, m, o in ops if m == "get"])
    code, _, e = api.request("GET", "/api/jobs/" + "0" * 32)
    check("unknown job: 404", code == 404, e)
    code, _, e = api.request("GET", "/api/plugins")
    check("GET plugins before install", code == 200 and "plugins" in e, e)
    code, _, d = api.request("GET", "/api/doctor")
    # The server's --wheelhouse is the source doctor checks (issue 29.2).
    rc, out, _ = cli("doctor", "--box-root", box, "--pins", pins, "--json",
                     "--wheelhouse", os.path.join(FX, "wheelhouse"))
    check("GET doctor: 200, the same checks as pyrt doctor --json",
          code == 200 and [c["id"] for c in d["checks"]] == [c["id"] for c in json.loads(out)["checks"]], (code,))

    # The full flow: POST → SSE until the result → status ready → plugins.
    code, h, job = api.request("POST", "/api/runtime/python/install", body={"consent": True})
    check("POST install with consent: 202", code == 202 and job["state"] in ("queued", "running"), (code, job))
    status, evs = api.events(h["location"] + "/events")
    ends = [o["step"] for n, o in evs if n == "step" and o["state"] == "end"]
    check("SSE: the steps ran in order", ends[:7] == ["lock", "download", "verify", "extract", "check", "activate", "baseline"], ends)
    res = evs[-1][1] if evs else {}
    check("SSE: the result is ok with the baseline complete",
          res.get("event") == "result" and res.get("ok") is True and res.get("baseline", {}).get("state") == "complete", res)
    check("SSE event names match their event field", all(n == o["event"] for n, o in evs))
    for _ in range(100):
        code, _, j = api.request("GET", h["location"])
        if j["state"] != "running":
            break
        time.sleep(0.05)
    check("GET job: succeeded with the result", j["state"] == "succeeded" and j["result"]["ok"] is True, j)
    code, _, st = api.request("GET", "/api/runtime/python")
    rc, out, _ = cli("status", "--box-root", box, "--pins", pins, "--json")
    check("GET status: ready, and still exactly pyrt status --json", st["state"] == "ready" and st == json.loads(out), st)
    code, _, deep = api.request("GET", "/api/runtime/python?deep=1")
    check("GET status?deep=1 (starts the interpreter): ready", code == 200 and deep["state"] == "ready", deep)
    code, _, pl = api.request("GET", "/api/plugins")
    rc, out, _ = cli("plugins", "--box-root", box, "--pins", pins, "--json")
    check("GET plugins: exactly pyrt plugins --json", code == 200 and pl == json.loads(out), (pl, out))
    code, h, job = api.request("POST", "/api/runtime/python/baseline", body={})
    status, evs = api.events(h["location"] + "/events")
    check("POST baseline: a job whose result is ok", code == 202 and evs and evs[-1][1]["ok"] is True, evs[-1:])
    # The job is settled before its result is sent: read at once, it is
    # succeeded (not running), and the next POST is not refused as busy.
    code, _, jj = api.request("GET", h["location"]) if evs else (0, None, {})
    check("the job read right after its result event: succeeded, not running",
          code == 200 and jj.get("state") == "succeeded", jj)
    code, h, job = api.request("POST", "/api/runtime/python/baseline", body={})
    check("a POST right after a job's result: 202, not busy", code == 202, (code, job))
    if code == 202:
        api.events(h["location"] + "/events")
    # A plugin's pip step is named for the plugin, as in plugins install --json.
    shutil.copytree(os.path.join(SRC, "tests", "fixtures", "sample-box", "plugins", "cowork"),
                    os.path.join(box, "plugins", "cowork"))
    code, h, job = api.request("POST", "/api/plugins/cowork/install", body={})
    status, cevs = api.events(h["location"] + "/events") if code == 202 else (0, [])
    steps = {o["step"] for n, o in cevs if n in ("step", "progress")}
    check("POST plugins/cowork/install: its pip step is named plugins, never baseline",
          steps == {"plugins"} and cevs[-1][1]["ok"] is False and "python-pptx" in cevs[-1][1]["error"],
          (steps, cevs[-1:]))
    # A second subscriber after the end still gets everything, then EOF.
    status, evs2 = api.events(h["location"] + "/events")
    check("a subscriber after the end reads the whole job", evs2 and evs2[-1][1]["event"] == "result")
    # The server remembers the manifest's digest per file identity: a
    # changed manifest must still read as broken, a restored one as ready.
    cur = os.path.realpath(os.path.join(box, "runtime", "python", "current"))
    man = os.path.join(os.path.dirname(cur), "manifest.tsv")
    orig = open(man, "rb").read()
    api.request("GET", "/api/runtime/python")
    with open(man, "ab") as f:
        f.write(b"x")
    code, _, st = api.request("GET", "/api/runtime/python")
    check("a manifest changed behind the server's back: GET status says broken",
          st["state"] == "broken", st)
    with open(man, "wb") as f:
        f.write(orig)
    code, _, st = api.request("GET", "/api/runtime/python")
    check("the manifest restored: ready again", st["state"] == "ready", st)

    # GET status is answered from memory while nothing changed (inotify on
    # what it reads): every change below must show on the very next GET,
    # exactly as pyrt status --json says it.
    def same_as_cli(what, want_state):
        code, _, st = api.request("GET", "/api/runtime/python")
        rc, out, _ = cli("status", "--box-root", box, "--pins", pins, "--json")
        check(f"{what}: the next GET says {want_state}, as pyrt status --json does",
              code == 200 and st["state"] == want_state and st == json.loads(out), (st, out))
    for _ in range(3):
        api.request("GET", "/api/runtime/python")
    # A connection's memory is sized for a status poll (serve/http.c
    # CONN_MEMORY): headers far past it are refused, and nothing else is
    # disturbed; ordinary headers of a few KiB still fit.
    c = api.conn(10)
    c.request("GET", "/api/runtime/python",
              headers={"Authorization": f"Bearer {api.token}" if api.token else "",
                       "X-Pad": "p" * 12000})
    r = c.getresponse()
    r.read()
    c.close()
    check("a request with 12 KiB of headers: 431", r.status == 431, r.status)
    code, _, st = api.request("GET", "/api/runtime/python", headers={"X-Pad": "p" * 3000})
    check("3 KiB of headers: answered as usual", code == 200 and st["state"] == "ready", (code, st))
    bindir = os.path.join(cur, "bin")
    real_py = os.path.realpath(os.path.join(bindir, "python3"))
    os.rename(real_py, real_py + ".gone")
    same_as_cli("the interpreter renamed away", "broken")
    os.rename(real_py + ".gone", real_py)
    same_as_cli("the interpreter back", "ready")
    os.chmod(real_py, 0o644)
    same_as_cli("the interpreter no longer executable", "broken")
    os.chmod(real_py, 0o755)
    same_as_cli("executable again", "ready")
    marker = os.path.join(os.path.dirname(cur), "marker.json")
    morig = open(marker, "rb").read()
    with open(marker, "r+b") as f:
        f.seek(len(morig) // 2)
        f.write(b"#")
    same_as_cli("the marker damaged in place", "broken")
    with open(marker, "wb") as f:
        f.write(morig)
    same_as_cli("the marker restored", "ready")
    os.chmod(box, 0o720)
    same_as_cli("the box made group-writable", "untrusted")
    os.chmod(box, 0o700)
    same_as_cli("the box private again", "ready")
    parent = os.path.dirname(box)
    pmode = os.stat(parent).st_mode & 0o7777
    os.chmod(parent, (pmode | 0o002) & ~0o1000)
    same_as_cli("a folder above the box made writable by others", "untrusted")
    os.chmod(parent, pmode)
    same_as_cli("that folder restored", "ready")
    # A CLI install holding the lock (paused at a crash point): status says
    # an upgrade is in progress with its pid; killed, the lock is free again.
    hookf = os.path.join(WORK, "memo-hook")
    env = dict(os.environ, PYRT_TEST_HOOK="locked:pause", PYRT_TEST_HOOK_FILE=hookf)
    holder = subprocess.Popen([PYRT, "install", "--box-root", box, "--pins", pins, "--yes",
                               "--force", "--no-baseline", "--from-file", os.path.join(FX, "runtime.tar.gz")],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=env)
    for _ in range(200):
        if os.path.exists(hookf):
            break
        time.sleep(0.05)
    code, _, st = api.request("GET", "/api/runtime/python")
    check("a CLI install holding the lock: the next GET names it",
          os.path.exists(hookf) and st.get("upgrade_in_progress") is True
          and st.get("installer_pid") == holder.pid, st)
    holder.kill()
    holder.wait()
    os.unlink(hookf)
    code, _, st = api.request("GET", "/api/runtime/python")
    check("its holder killed: the next GET says the lock is free",
          st.get("upgrade_in_progress") is False and st.get("installer_pid") is None, st)
    same_as_cli("after the killed install", "ready")
    rc = s.stop()
    check("SIGTERM when idle: exit 0", rc == 0, rc)
    check("the socket file is removed at exit", not os.path.exists(sock))


def scenario_refusals():
    box = os.path.join(WORK, "box-ref")
    for addr in ("0.0.0.0:0", "[::]:0", "192.0.2.1:8080", "example.com:80"):
        r = subprocess.run([PYRT, "serve", "--box-root", box, "--listen", addr],
                           capture_output=True, text=True, timeout=10)
        check(f"--listen {addr} refused at start", r.returncode != 0 and "loopback" in r.stderr + r.stdout
              or (r.returncode != 0 and "IP address" in r.stderr), (r.returncode, r.stderr))
        check(f"--listen {addr}: the refusal created no box", not os.path.exists(box))


def scenario_ipv6():
    """[::1]:PORT is loopback too (skipped where the kernel has no IPv6)."""
    try:
        socket.socket(socket.AF_INET6).bind(("::1", 0))
    except OSError:
        print("ok - # SKIP no IPv6 loopback")
        return
    box = os.path.join(WORK, "box-v6")
    tok = os.path.join(WORK, "token6")
    s = Server(["--box-root", box, "--listen", "[::1]:0", "--token-file", tok], name="v6")
    check("--listen [::1]:0 starts", s.where is not None and s.where.startswith("[::1]:"), s.where)
    if s.where:
        c = http.client.HTTPConnection("::1", s.tcp()[1], timeout=10)
        c.request("GET", "/api/health", headers={"Host": f"[::1]:{s.tcp()[1]}",
                                                  "Authorization": "Bearer " + open(tok).read().strip()})
        r = c.getresponse()
        check("GET over [::1] with Host [::1]:PORT and the token: 200", r.status == 200, r.status)
        r.read()
    check("[::1] server stops with exit 0", s.stop() == 0)


def scenario_activation():
    """systemd socket activation (systemd-socket-activate passes fd 3)."""
    box = os.path.join(WORK, "box-act")
    sock = os.path.join(SHORT, "act", "api.sock")
    os.makedirs(os.path.dirname(sock), mode=0o700, exist_ok=True)
    log = open(os.path.join(WORK, "act.log"), "w")
    p = subprocess.Popen(["systemd-socket-activate", "-l", sock, PYRT, "serve",
                          "--box-root", box, "--pins", os.path.join(FX, "pins.yaml")],
                         stdout=subprocess.DEVNULL, stderr=log)
    for _ in range(100):
        if os.path.exists(sock):
            break
        time.sleep(0.05)
    api = Api(unix=sock)
    # The socket file appears at bind, before systemd-socket-activate
    # listens on it: a refused connect is retried for a few seconds.
    for _ in range(50):
        try:
            code, _, st = api.request("GET", "/api/runtime/python")
            break
        except ConnectionRefusedError as e:
            code, st = 0, str(e)
            time.sleep(0.1)
        except OSError as e:
            code, st = 0, str(e)
            break
    check("socket activation: the passed socket answers GET status", code == 200 and st["state"] == "not_provisioned", (code, st))
    time.sleep(0.2)
    check("the log says the socket came from systemd", "passed by systemd" in open(os.path.join(WORK, "act.log")).read())
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(20)
    except subprocess.TimeoutExpired:
        p.kill()
    log.close()


# ---- issue 17: the API's reach and hostile clients ----

def raw_request(addr, data, timeout=5, unix=False):
    """Send raw bytes, return what the server answers (until close or the
    timeout); b"" on a close without an answer."""
    sk = socket.socket(socket.AF_UNIX) if unix else socket.socket()
    sk.settimeout(timeout)
    sk.connect(addr)
    try:
        sk.sendall(data)
    except OSError:
        pass
    resp = b""
    try:
        while True:
            d = sk.recv(65536)
            if not d:
                break
            resp += d
            if b"\r\n\r\n" in resp and b"Connection: close" not in resp:
                head, _, body = resp.partition(b"\r\n\r\n")
                m = re.search(rb"Content-Length: (\d+)", head)
                if m and len(body) >= int(m.group(1)):
                    break
    except OSError:
        pass
    sk.close()
    return resp


def scenario_reach():
    """Where code comes from is the server's configuration: a request naming
    a mirror, wheelhouse, index or any unknown field is 400; the server's own
    --wheelhouse is what jobs use.  Requests the CLI would refuse are 400 up
    front; two Origin headers and chunked bodies are refused."""
    box = os.path.join(WORK, "box-reach")
    pins = os.path.join(FX, "pins.yaml")
    wh = os.path.join(FX, "wheelhouse")
    s = Server(["--box-root", box, "--pins", pins, "--cacert", os.path.join(FX, "ca.pem"),
                "--mirror", MIRROR, "--wheelhouse", wh], name="reach")
    check("serve takes --mirror and --wheelhouse (the server's configuration)", s.where is not None,
          open(s.log).read()[-500:])
    if not s.where:
        return
    sock = short_link(s.where[len("unix:"):], "reach.sock")
    api = Api(unix=sock)
    other = os.path.join(WORK, "attacker-wheels")
    os.makedirs(other, exist_ok=True)
    for path, body, field in (
            ("/api/runtime/python/baseline", {"wheelhouse": other}, "wheelhouse"),
            ("/api/plugins/cowork/install", {"wheelhouse": other}, "wheelhouse"),
            ("/api/runtime/python/install", {"consent": True, "wheelhouse": other}, "wheelhouse"),
            ("/api/runtime/python/install", {"consent": True, "mirror": "https://evil.example/pbs"}, "mirror"),
            ("/api/runtime/python/install", {"consent": True, "index_url": "https://evil.example/simple"}, "index_url"),
            ("/api/runtime/python/baseline", {"requirements": "/tmp/r.txt"}, "requirements"),
            ("/api/runtime/python/baseline", {"cacert": "/tmp/ca.pem"}, "cacert"),
            ("/api/runtime/python/baseline", {"colour": "blue"}, "colour")):
        code, _, e = api.request("POST", path, body=body)
        check(f"POST {path} with '{field}': 400 naming the field", code == 400
              and f"'{field}'" in e["error"]["message"], (code, e))
    code, _, e = api.request("POST", "/api/runtime/python/baseline", body={"wheelhouse": other})
    check("the refusal says code comes from the server's configuration",
          code == 400 and "--wheelhouse" in (e["error"]["fix"] or ""), e)
    code, _, e = api.request("GET", "/api/runtime/python?deep=2")
    check("GET status?deep=2: 400 (pyrt status has no such depth)", code == 400
          and "deep" in e["error"]["message"], (code, e))
    code, _, e = api.request("GET", "/api/runtime/python?deep=0")
    check("GET status?deep=0: 200", code == 200, code)
    code, _, e = api.request("POST", "/api/plugins/nosuchplugin/install", body={})
    check("POST plugins/<unknown>/install: 404 naming it, no job", code == 404
          and e["error"]["code"] == "unknown_plugin" and "nosuchplugin" in e["error"]["message"], (code, e))
    bad = os.path.join(box, "plugins", "broken")
    os.makedirs(bad, exist_ok=True)
    open(os.path.join(bad, "plugin.yaml"), "w").write("name: [unclosed\n")
    code, _, e = api.request("POST", "/api/plugins/broken/install", body={})
    check("POST plugins/<invalid manifest>/install: 400", code == 400
          and e["error"]["code"] == "invalid_plugin", (code, e))

    # Two Origin headers: the second is as much a web page as the first.
    resp = raw_request(sock, (b"GET /api/runtime/python HTTP/1.1\r\nHost: localhost\r\n"
                              b"Origin: http://localhost\r\nOrigin: https://evil.example\r\n"
                              b"Connection: close\r\n\r\n"), unix=True)
    check("two Origin headers (a loopback one first): 403", resp.startswith(b"HTTP/1.1 403"), resp[:80])
    resp = raw_request(sock, (b"GET /api/health HTTP/1.1\r\nHost: localhost\r\n"
                              b"Origin: http://localhost\r\nConnection: close\r\n\r\n"), unix=True)
    check("one loopback Origin: 200", resp.startswith(b"HTTP/1.1 200"), resp[:80])
    # A chunked body, never ended: answered at once, not read for ever.
    t0 = time.time()
    resp = raw_request(sock, (b"POST /api/runtime/python/baseline HTTP/1.1\r\nHost: localhost\r\n"
                              b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                              + (b"4000\r\n" + b" " * 0x4000 + b"\r\n") * 4), timeout=5, unix=True)
    check("a chunked body over the 16 KiB cap (never ended): 413 at once",
          resp.startswith(b"HTTP/1.1 413") and b"too_large" in resp and time.time() - t0 < 4, resp[:200])

    # The server's wheelhouse is what a baseline job installs from.
    rc, _, err = cli("install", "--yes", "--box-root", box, "--pins", pins,
                     "--from-file", os.path.join(FX, "runtime.tar.gz"), "--no-baseline")
    check("(setup) the runtime installed without its baseline", rc == 0, err[-300:])
    code, h, job = api.request("POST", "/api/runtime/python/baseline", body={})
    status, evs = api.events(h["location"] + "/events") if code == 202 else (0, [])
    check("POST baseline {}: the job installs from the server's --wheelhouse",
          evs and evs[-1][1]["ok"] is True, (code, evs[-1:]))

    rc = s.stop()
    check("reach server: SIGTERM exits 0", rc == 0, rc)


def scenario_doctor_network():
    """GET /api/doctor tries the network as `pyrt doctor` does, through the
    proxy the server runs with (a dead one here: every probe fails at the
    proxy, and no name is looked up), reaching only the server's own
    --index-url and the pins' URL; a query naming a mirror or an index is 400
    and the server connects nowhere for it."""
    box = os.path.join(WORK, "box-net")
    pins = os.path.join(FX, "pins.yaml")
    dead = socket.socket()
    dead.bind(("127.0.0.1", 0))
    dport = dead.getsockname()[1]
    dead.close()
    env = {k: v for k, v in os.environ.items()
           if k.lower() not in ("no_proxy", "https_proxy", "http_proxy", "all_proxy")}
    env.update(PYRT_DOCTOR_OFFLINE="0", https_proxy=f"http://127.0.0.1:{dport}")
    s = Server(["--box-root", box, "--pins", pins, "--index-url", "https://pypi.invalid/simple/"],
               env=env, name="net")
    if not s.where:
        check("doctor-network server starts", False, open(s.log).read()[-300:])
        return
    api = Api(unix=short_link(s.where[len("unix:"):], "net.sock"))
    code, _, d = api.request("GET", "/api/doctor")
    by = {c["id"]: c for c in (d or {}).get("checks", [])}
    arch, idx = by.get("net_archive", {}), by.get("net_index", {})
    check("GET doctor: the archive host is tried through the dead proxy: fail",
          code == 200 and d["ok"] is False and arch.get("verdict") == "fail"
          and f"the proxy http://127.0.0.1:{dport} (https_proxy) failed" in arch.get("detail", ""), (code, arch))
    check("... and the server's --index-url, with the proxy fix",
          idx.get("verdict") == "fail" and "(--index-url)" in idx.get("detail", "")
          and "fix the proxy in https_proxy" in (idx.get("fix") or ""), idx)
    # A listener the request names: the server must not connect to it.
    bait = socket.socket()
    bait.bind(("127.0.0.1", 0))
    bait.listen(4)
    bait.settimeout(0.5)
    bport = bait.getsockname()[1]
    for field in ("mirror", "index_url"):
        code, _, e = api.request("GET", f"/api/doctor?{field}=https://127.0.0.1:{bport}/x")
        check(f"GET doctor?{field}=URL: 400 naming the field, never used",
              code == 400 and f"'{field}'" in e["error"]["message"], (code, e))
    try:
        bait.accept()[0].close()
        reached = True
    except socket.timeout:
        reached = False
    bait.close()
    check("... and the server connected nowhere for it", not reached)
    check("doctor-network server: SIGTERM exits 0", s.stop() == 0)


def scenario_lock_after_202():
    """A lock taken between a job's 202 and the job's own lock (a CLI
    install starting in that instant): the job waits for it, cancellably,
    and then runs; it never fails "busy" after the client was told 202.
    The job is held at the job-start test hook while the CLI install takes
    the lock and pauses (the locked hook)."""
    box = os.path.join(WORK, "box-lock202")
    pins = os.path.join(FX, "pins.yaml")
    rc, _, err = cli("install", "--yes", "--box-root", box, "--pins", pins,
                     "--from-file", os.path.join(FX, "runtime.tar.gz"), "--no-baseline")
    check("(setup) a runtime installed for the lock-after-202 case", rc == 0, err[-300:])
    jobhook = os.path.join(WORK, "job-hook")
    env = dict(os.environ, PYRT_TEST_HOOK="job-start:hold", PYRT_TEST_HOOK_FILE=jobhook)
    s = Server(["--box-root", box, "--pins", pins], env=env, name="lock202")
    if not s.where:
        check("lock-after-202 server starts", False, open(s.log).read()[-300:])
        return
    api = Api(unix=short_link(s.where[len("unix:"):], "lock202.sock"))
    open(jobhook, "w").close()  # armed: the next job stops at job-start
    code, h, job = api.request("POST", "/api/runtime/python/install",
                               body={"consent": True, "no_baseline": True})
    for _ in range(200):
        if os.path.exists(jobhook) and open(jobhook).read():
            break
        time.sleep(0.05)
    clihook = os.path.join(WORK, "cli-hook")
    cenv = dict(os.environ, PYRT_TEST_HOOK="locked:pause", PYRT_TEST_HOOK_FILE=clihook)
    cp = subprocess.Popen([PYRT, "install", "--yes", "--force", "--no-baseline", "--box-root", box,
                           "--pins", pins, "--from-file", os.path.join(FX, "runtime.tar.gz")],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, env=cenv)
    for _ in range(200):
        if os.path.exists(clihook):
            break
        time.sleep(0.05)
    if os.path.exists(jobhook):
        os.unlink(jobhook)  # the job goes on, to a lock the CLI holds
    time.sleep(1)
    _, _, j = api.request("GET", h["location"]) if code == 202 else (0, None, {})
    check("a CLI install took the lock after the 202: the job waits for it (running, step lock)",
          code == 202 and os.path.exists(clihook) and j.get("state") == "running"
          and j.get("step") == "lock", (code, j))
    cp.kill()
    cp.wait()
    if os.path.exists(clihook):
        os.unlink(clihook)
    for _ in range(600):
        _, _, j = api.request("GET", h["location"]) if code == 202 else (0, None, {"state": "?"})
        if j["state"] not in ("queued", "running"):
            break
        time.sleep(0.05)
    check("the lock freed, the job runs and succeeds (never failed busy)",
          j.get("state") == "succeeded", j.get("result"))
    check("lock-after-202 server: SIGTERM exits 0", s.stop() == 0)


def scenario_activation_tcp():
    """pyrt-serve-tcp@PORT.socket's path: systemd passes a loopback TCP socket
    (systemd-socket-activate -l 127.0.0.1:PORT); the server takes it, wants
    the token on it, and makes the token file at first start."""
    box = os.path.join(WORK, "box-act-tcp")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = open(os.path.join(WORK, "act-tcp.log"), "w")
    p = subprocess.Popen(["systemd-socket-activate", "-l", f"127.0.0.1:{port}", PYRT, "serve",
                          "--box-root", box, "--pins", os.path.join(FX, "pins.yaml")],
                         stdout=subprocess.DEVNULL, stderr=log)
    code = 0
    for _ in range(100):
        try:
            code, _, e = Api(tcp=("127.0.0.1", port)).request("GET", "/api/health", timeout=10)
            break
        except OSError:
            time.sleep(0.05)
    tok = os.path.join(box, "runtime", "python", "api.token")
    check("a passed TCP socket: no token is 401", code == 401, code)
    code2 = 0
    if os.path.exists(tok):
        code2, _, _ = Api(tcp=("127.0.0.1", port), token=open(tok).read().strip()).request("GET", "/api/health")
    check("a passed TCP socket: the token made at first start is 200", code2 == 200, code2)
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    log.close()
    check("the log says the TCP socket came from systemd and needs the token",
          re.search(r"listening on 127\.0\.0\.1:\d+, passed by systemd, bearer token required",
                    open(os.path.join(WORK, "act-tcp.log")).read()) is not None)


def scenario_slow_clients():
    """300 connections trickling a byte every 2 s (slowloris) on loopback
    TCP: an authenticated client is still answered within 3 s, and each slow
    one is closed: the oldest untrusted ones when the cap is full, the rest
    by the header deadline (10 s after the accept)."""
    import selectors
    import threading
    box = os.path.join(WORK, "box-slow")
    tok = os.path.join(WORK, "token-slow")
    s = Server(["--box-root", box, "--listen", "127.0.0.1:0", "--token-file", tok], name="slow")
    check("slow-client server starts", s.where is not None)
    if not s.where:
        return
    host, port = s.tcp()
    api = Api(tcp=(host, port), token=open(tok).read().strip())
    sel = selectors.DefaultSelector()
    line = b"GET /api/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + b"a" * 64
    conns = []
    for i in range(300):
        sk = socket.socket()
        sk.setblocking(False)
        try:
            sk.connect((host, port))
        except BlockingIOError:
            pass
        c = {"sk": sk, "opened": time.time(), "closed": None, "sent": 0,
             "next": time.time() + (i % 20) * 0.1}
        conns.append(c)
        sel.register(sk, selectors.EVENT_READ, c)
    stop = time.time() + 16
    latencies = []

    def legit():
        while time.time() < stop - 2:
            t0 = time.time()
            try:
                code, _, _ = api.request("GET", "/api/health", timeout=5)
            except OSError as e:
                code = str(e)
            latencies.append((code, time.time() - t0))
            time.sleep(1)
    th = threading.Thread(target=legit)
    th.start()
    while time.time() < stop and any(c["closed"] is None for c in conns):
        for key, _ in sel.select(timeout=0.1):
            c = key.data
            try:
                d = c["sk"].recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                d = b""
            if not d and c["closed"] is None:
                c["closed"] = time.time()
                sel.unregister(c["sk"])
        now = time.time()
        for c in conns:
            if c["closed"] is None and now >= c["next"] and c["sent"] < len(line):
                try:
                    c["sk"].send(line[c["sent"]:c["sent"] + 1])
                    c["sent"] += 1
                except BlockingIOError:
                    pass
                except OSError:
                    c["closed"] = now
                    sel.unregister(c["sk"])
                c["next"] = now + 2
    th.join(30)
    for c in conns:
        c["sk"].close()
    lived = [c["closed"] - c["opened"] for c in conns if c["closed"] is not None]
    check("300 slow clients: every authenticated GET answered 200 within 3 s",
          len(latencies) >= 8 and all(code == 200 and t < 3 for code, t in latencies), latencies)
    check("every slow connection was closed by the server",
          len(lived) == len(conns), f"{len(lived)} of {len(conns)} closed")
    check("none lived past the 10 s header deadline (plus 2 s)", lived and max(lived) < 12,
          max(lived) if lived else None)
    check("the last ones were closed by the deadline, not before it",
          sum(1 for t in lived if t >= 9.5) >= 1, sorted(lived)[-3:])
    rc = s.stop()
    check("slow-client server: SIGTERM exits 0", rc == 0, rc)


if __name__ == "__main__":
    atexit.register(stop_all)
    only = sys.argv[1:] or ["tcp", "unix", "refusals", "activation", "ipv6", "reach", "lock202", "activation_tcp", "slow", "doctor_net"]
    if "refusals" in only:
        scenario_refusals()
    if "unix" in only:
        scenario_unix_full_flow()
    if "tcp" in only:
        scenario_tcp_gate_and_cancel()
    if "activation" in only:
        scenario_activation()
    if "ipv6" in only:
        scenario_ipv6()
    if "reach" in only:
        scenario_reach()
    if "lock202" in only:
        scenario_lock_after_202()
    if "doctor_net" in only:
        scenario_doctor_network()
    if "activation_tcp" in only:
        scenario_activation_tcp()
    if "slow" in only:
        scenario_slow_clients()
    check("no response ever carried a CORS header", not cors_seen, cors_seen[:3])
    check(f"responses validated against docs/api.yaml ({validated})", validated > 20)
    check("no response prints a float with more than 10 digits", not LONG_FLOATS, LONG_FLOATS)
    print(f"# {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
