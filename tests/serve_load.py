#!/usr/bin/env python3
"""Keep-alive pollers against `pyrt serve` (issue 19, item 1): CLIENTS
connections, each sending REQUESTS GETs one after another on the same
connection, for ROUNDS rounds (every round opens new connections).  Each
client connects and asks once; when all have their first answer, all poll
together.  Every connect and every request has a deadline (--timeout, a
few seconds), and every round one more (--round-limit, connecting
included), so a hung request is counted, never waited for.

    serve_load.py (--unix PATH | --tcp HOST:PORT --token-file F)
                  [--clients 300] [--rounds 5] [--requests 20] [--timeout 5]
                  [--round-limit 60] [--ramp] [--freeze PID] [--stop-early]
                  [--path /api/runtime/python]

--ramp connects the clients one at a time instead of all at once; --freeze
stops the server (SIGSTOP) for 0.5 s while every client sends its second
request, so each server thread wakes to all of its connections ready.

Prints one line per round (answered, hung, reset, not connected, slowest
answer), then a total; exits 0 only when every request of every round was
answered 200 with the status object.
"""
import argparse
import asyncio
import json
import os
import signal
import sys
import time


def parse_args():
    ap = argparse.ArgumentParser()
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--unix")
    where.add_argument("--tcp")
    ap.add_argument("--token-file")
    ap.add_argument("--clients", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--requests", type=int, default=20)
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--round-limit", type=float, default=60.0,
                    help="seconds a round may last, connecting included; "
                         "clients still at it then count as hung")
    ap.add_argument("--freeze", type=int, metavar="PID",
                    help="stop the server (SIGSTOP) while every client "
                         "sends its second request, then continue it")
    ap.add_argument("--path", default="/api/runtime/python")
    ap.add_argument("--ramp", action="store_true",
                    help="connect one client at a time (each answered once) "
                         "instead of all at once")
    ap.add_argument("--stop-early", action="store_true",
                    help="no more rounds after one failed")
    return ap.parse_args()


async def connect(a):
    if a.unix:
        return await asyncio.open_unix_connection(a.unix)
    host, port = a.tcp.rsplit(":", 1)
    return await asyncio.open_connection(host, int(port))


async def one_request(reader, writer, request):
    """One GET on an open connection: the status and the JSON body."""
    writer.write(request)
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    body = await reader.readexactly(length)
    return status, json.loads(body) if body else None


async def client(a, request, start, tally, connected):
    """One keep-alive poller: connect and ask at once (as a real client
    does: a connection that sends nothing is what serve/guard.c shuts),
    wait for the others, then poll.  connected is set once it has its
    first answer, or has failed."""
    def at_barrier():
        if not connected.is_set():
            connected.set()
            tally["arrived"] += 1
    try:
        await poll(a, request, start, at_barrier, tally)
    finally:
        at_barrier()


async def poll(a, request, start, done_connecting, tally):
    try:
        reader, writer = await asyncio.wait_for(connect(a), a.timeout)
    except (OSError, asyncio.TimeoutError) as e:
        tally["refused"] += 1
        tally["errors"].append(f"connect: {e!r}")
        return
    try:
        for i in range(a.requests):
            if i == 1:
                done_connecting()
                await start.wait()
            t0 = time.monotonic()
            try:
                status, obj = await asyncio.wait_for(
                    one_request(reader, writer, request), a.timeout)
            except asyncio.TimeoutError:
                tally["hung"] += 1
                return  # the connection is out of step: give it up
            except (OSError, asyncio.IncompleteReadError, ValueError) as e:
                tally["reset"] += 1
                tally["errors"].append(repr(e))
                return
            tally["slowest"] = max(tally["slowest"], time.monotonic() - t0)
            if status == 200 and isinstance(obj, dict) and "state" in obj:
                tally["ok"] += 1
            else:
                tally["wrong"] += 1
                tally["errors"].append(f"HTTP {status}: {obj!r:.200}")
    finally:
        writer.close()
        try:
            await asyncio.wait_for(writer.wait_closed(), a.timeout)
        except (OSError, asyncio.TimeoutError):
            pass


async def frozen_start(pid, start):
    """Stop the server, let every client ask, continue it: its threads
    wake to all their connections ready at once (as a busy or descheduled
    server does), the case where an epoll loop got exactly its 128
    events."""
    os.kill(pid, signal.SIGSTOP)
    try:
        start.set()
        await asyncio.sleep(0.5)
    finally:
        os.kill(pid, signal.SIGCONT)


async def one_round(a, request):
    tally = {"ok": 0, "hung": 0, "reset": 0, "refused": 0, "wrong": 0,
             "arrived": 0, "slowest": 0.0, "errors": []}
    start = asyncio.Event()
    deadline = time.monotonic() + a.round_limit
    tasks = []
    for _ in range(a.clients):
        connected = asyncio.Event()
        tasks.append(asyncio.create_task(
            client(a, request, start, tally, connected)))
        if a.ramp and time.monotonic() < deadline:
            # One at a time: the next connects when this one has its
            # first answer (or after a second: a server that never
            # answers must not make the ramp last clients x timeout).
            try:
                await asyncio.wait_for(connected.wait(), 1.0)
            except asyncio.TimeoutError:
                pass
    # Every client connects and is answered once first, then all poll at
    # once: the burst in which every connection of a server thread is
    # ready together.
    while tally["arrived"] < a.clients and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    t0 = time.monotonic()
    if a.freeze:
        await frozen_start(a.freeze, start)
    start.set()
    # A bound on the round whatever the server does: a client still
    # polling (or connecting) then has a request that never came back.
    done, pending = await asyncio.wait(
        tasks, timeout=max(deadline - time.monotonic(), a.timeout))
    for t in pending:
        t.cancel()
    tally["hung"] += len(pending)
    if pending:
        await asyncio.wait(pending)
    tally["secs"] = time.monotonic() - t0
    return tally


def main():
    a = parse_args()
    headers = "Host: localhost\r\n"
    if a.token_file:
        with open(a.token_file) as f:
            headers += f"Authorization: Bearer {f.read().strip()}\r\n"
    request = f"GET {a.path} HTTP/1.1\r\n{headers}\r\n".encode()
    want = a.clients * a.requests
    bad_rounds = 0
    total = {"ok": 0, "hung": 0, "reset": 0, "refused": 0, "wrong": 0}
    for r in range(1, a.rounds + 1):
        t = asyncio.run(one_round(a, request))
        for k in total:
            total[k] += t[k]
        clean = t["ok"] == want
        bad_rounds += not clean
        print(f"round {r}: {t['ok']}/{want} answered, {t['hung']} hung "
              f"(no answer in {a.timeout:g} s), {t['reset']} reset, "
              f"{t['refused']} not connected, {t['wrong']} wrong; "
              f"slowest {t['slowest'] * 1000:.0f} ms; {t['secs']:.1f} s"
              + ("" if clean else " <- FAILED"))
        for e in sorted(set(t["errors"]))[:5]:
            print(f"#   {e}")
        sys.stdout.flush()
        if bad_rounds and a.stop_early:
            a.rounds = r
            break
    print(f"total: {a.rounds - bad_rounds}/{a.rounds} rounds clean; "
          f"{total['ok']}/{want * a.rounds} answered, {total['hung']} hung, "
          f"{total['reset']} reset, {total['refused']} not connected, "
          f"{total['wrong']} wrong")
    return 0 if bad_rounds == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
