"""Checks several `mcp serve everything --http --store redis://…` replicas
behind a round-robin load balancer (tests/deploy/run.sh starts them).

Python standard library only; every wait is bounded. Prints
"deploy: N passed, M failed" and exits non-zero on any failure.
"""

import argparse
import http.client
import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time

LATEST = "2025-11-25"
MODERN = "2026-07-28"

passed = 0
failed = 0


def check(name, fn):
    global passed, failed
    started = time.monotonic()
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - report every failure the same way
        failed += 1
        print(f"  FAIL {name}: {type(e).__name__}: {e}", flush=True)
    else:
        passed += 1
        print(f"  ok   {name} ({time.monotonic() - started:.1f}s)", flush=True)


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


class Reply:
    def __init__(self, status, headers, body=None, events=None):
        self.status = status
        self.headers = headers
        self.body = body
        self.events = events or []

    def messages(self):
        if self.body is not None:
            return [self.body] if self.body else []
        return [json.loads(e["data"]) for e in self.events if e.get("data")]

    def answer(self):
        answers = [m for m in self.messages() if "id" in m and ("result" in m or "error" in m)]
        expect(answers, f"no answer (status {self.status}): {self.body or self.events}")
        return answers[-1]


def read_event(response):
    """One SSE event, or None at the end of the stream."""
    event = {}
    data = []
    while True:
        line = response.readline()
        if not line:
            return None if not event and not data else {**event, "data": "\n".join(data)}
        line = line.decode().rstrip("\r\n")
        if line == "":
            if event or data:
                return {**event, "data": "\n".join(data)}
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            data.append(value)
        elif field in ("id", "event", "retry"):
            event[field] = value


class Endpoint:
    def __init__(self, port, name):
        self.port = port
        self.name = name

    def connect(self, timeout=15):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        conn.connect()
        return conn

    def request(self, method, message=None, session=None, version=LATEST, headers=None,
                stream=False, timeout=15):
        conn = self.connect(timeout)
        h = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        if session:
            h["Mcp-Session-Id"] = session
        if version:
            h["MCP-Protocol-Version"] = version
        h.update(headers or {})
        body = json.dumps(message) if message is not None else None
        conn.request(method, "/mcp", body=body, headers=h)
        response = conn.getresponse()
        if stream:
            return conn, response
        try:
            kind = response.getheader("Content-Type", "")
            if kind.startswith("text/event-stream"):
                events = []
                while (event := read_event(response)) is not None:
                    events.append(event)
                return Reply(response.status, response.headers, events=events)
            raw = response.read()
            if not kind.startswith("application/json"):
                # e.g. the balancer's own error page
                return Reply(response.status, response.headers, body={"raw": raw.decode(errors="replace")})
            return Reply(response.status, response.headers, body=json.loads(raw) if raw else {})
        finally:
            conn.close()


class Session:
    """A 2025-11-25 session through the balancer."""

    def __init__(self, endpoint, capabilities=None):
        self.endpoint = endpoint
        self.next_id = 0
        self.replicas = []
        reply = endpoint.request("POST", {
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": LATEST, "capabilities": capabilities or {},
                       "clientInfo": {"name": "deploy-check", "version": "1"}},
        }, version=None)
        expect(reply.status == 200, f"initialize: HTTP {reply.status} {reply.body}")
        self.id = reply.headers["Mcp-Session-Id"]
        self.note(reply)
        reply = self.notify("notifications/initialized")
        expect(reply.status == 202, f"initialized: HTTP {reply.status}")

    def note(self, reply):
        replica = reply.headers.get("X-Replica")
        if replica:
            self.replicas.append(replica)

    def call(self, method, params=None, via=None):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        reply = (via or self.endpoint).request("POST", message, session=self.id)
        self.note(reply)
        return reply

    def result(self, method, params=None, via=None):
        reply = self.call(method, params, via)
        expect(reply.status == 200, f"{method}: HTTP {reply.status} {reply.body}")
        answer = reply.answer()
        expect("result" in answer, f"{method}: {answer}")
        return answer["result"], reply

    def notify(self, method, params=None, via=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        reply = (via or self.endpoint).request("POST", message, session=self.id)
        self.note(reply)
        return reply


def text_of(result):
    return " ".join(c.get("text", "") for c in result.get("content", []))


def session_end_to_end(lb, replicas):
    s = Session(lb)
    tools, _ = s.result("tools/list")
    names = {t["name"] for t in tools["tools"]}
    expect("add_numbers" in names, f"tools/list: {sorted(names)}")
    result, _ = s.result("tools/call", {"name": "add_numbers", "arguments": {"a": 2, "b": 3}})
    expect(text_of(result) == "5", f"add_numbers: {result}")
    result, _ = s.result("resources/read", {"uri": "test://static-text"})
    expect(result["contents"][0]["text"], f"resources/read: {result}")
    result, _ = s.result("prompts/get", {"name": "test_prompt_with_arguments",
                                         "arguments": {"arg1": "alpha", "arg2": "beta"}})
    expect("alpha" in json.dumps(result) and "beta" in json.dumps(result), f"prompts/get: {result}")
    s.result("resources/subscribe", {"uri": "test://watched-resource"})
    # Logging: everything passes until a level is set; after `error` is set
    # (on one replica), no info message comes from any replica.
    _, reply = s.result("tools/call", {"name": "test_tool_with_logging", "arguments": {}})
    logs = [m for m in reply.messages() if m.get("method") == "notifications/message"]
    expect(len(logs) == 3, f"three log messages before setLevel, got {len(logs)}")
    s.result("logging/setLevel", {"level": "error"})
    for _ in range(len(replicas)):
        _, reply = s.result("tools/call", {"name": "test_tool_with_logging", "arguments": {}})
        logs = [m for m in reply.messages() if m.get("method") == "notifications/message"]
        expect(not logs, f"info logs after setLevel error on {reply.headers.get('X-Replica')}: {logs}")
    expect(len(set(s.replicas)) == len(replicas),
           f"the session's requests landed on {sorted(set(s.replicas))}, not on every replica")
    # Straight to each replica too.
    for r in replicas:
        result, _ = s.result("tools/call", {"name": "add_numbers", "arguments": {"a": 1, "b": 1}},
                             via=r)
        expect(text_of(result) == "2", f"add_numbers on {r.name}: {result}")


def leases_save_reads(lb, replicas, redis):
    """A replica reads a session's record once, not on every request."""
    s = Session(lb)
    s.result("tools/list", via=replicas[1])
    time.sleep(0.3)  # the replica hears its first beats back
    before = redis.calls("getex")
    for _ in range(20):
        s.result("tools/list", via=replicas[1])
    reads = redis.calls("getex") - before
    expect(reads <= 2, f"{reads} reads of the session's record for 20 requests")


def delete_everywhere(lb, replicas):
    s = Session(lb)
    s.result("tools/list", via=replicas[1])
    s.result("tools/list", via=replicas[2])
    started = time.monotonic()
    reply = replicas[0].request("DELETE", session=s.id)
    took = time.monotonic() - started
    expect(reply.status == 200, f"DELETE: HTTP {reply.status}")
    # The other replicas acknowledged at once: nobody waited out a lease.
    expect(took < 1.0, f"DELETE took {took:.1f}s")
    for r in replicas + [lb]:
        reply = s.call("tools/list", via=r)
        expect(reply.status == 404, f"after DELETE, {r.name} answered HTTP {reply.status}")


def resource_update_reaches_other_replicas(lb, replicas):
    s = Session(lb)
    tools, _ = s.result("tools/list")
    expect(any(t["name"] == "test_update_resource" for t in tools["tools"]),
           "the everything server has no test_update_resource tool")
    s.result("resources/subscribe", {"uri": "test://watched-resource"}, via=replicas[1])
    conn, response = replicas[0].request("GET", session=s.id, stream=True,
                                          headers={"Accept": "text/event-stream"})
    try:
        expect(response.status == 200, f"GET: HTTP {response.status}")
        # The change is made on another replica than the one holding the stream.
        s.result("tools/call", {"name": "test_update_resource", "arguments": {}}, via=replicas[2])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            event = read_event(response)
            expect(event is not None, "the GET stream ended")
            if not event.get("data"):
                continue
            message = json.loads(event["data"])
            if message.get("method") == "notifications/resources/updated":
                expect(message["params"]["uri"] == "test://watched-resource", f"{message}")
                return
        raise AssertionError("no notifications/resources/updated within 10 s")
    finally:
        conn.close()


def answer_on_another_replica(lb, replicas):
    """The call waits for the client's sampling answer, which another replica receives."""
    s = Session(lb, capabilities={"sampling": {}})
    s.next_id += 1
    call_id = s.next_id
    conn, response = replicas[0].request("POST", {
        "jsonrpc": "2.0", "id": call_id, "method": "tools/call",
        "params": {"name": "test_sampling", "arguments": {"prompt": "Say hi"}}},
        session=s.id, stream=True)
    try:
        expect(response.status == 200, f"tools/call: HTTP {response.status}")
        answered = False
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            event = read_event(response)
            expect(event is not None, "the POST stream ended without a result")
            if not event.get("data"):
                continue
            message = json.loads(event["data"])
            if message.get("method") == "sampling/createMessage" and not answered:
                reply = replicas[1].request("POST", {
                    "jsonrpc": "2.0", "id": message["id"],
                    "result": {"role": "assistant", "model": "m",
                               "content": {"type": "text", "text": "hi from the client"}}},
                    session=s.id)
                expect(reply.status == 202, f"the answer: HTTP {reply.status}")
                answered = True
            elif message.get("id") == call_id:
                expect("hi from the client" in text_of(message.get("result", {})),
                       f"result: {message}")
                return
        raise AssertionError("no result within 15 s")
    finally:
        conn.close()


def progress_call(s, tool="test_tool_with_progress"):
    s.next_id += 1
    return {"jsonrpc": "2.0", "id": s.next_id, "method": "tools/call",
            "params": {"name": tool, "arguments": {"seconds": 3},
                       "_meta": {"progressToken": "p1"}}}


def resume_on_another_replica(lb, replicas):
    """The stream's replica keeps running the call; the client resumes elsewhere."""
    s = Session(lb)
    conn, response = replicas[0].request("POST", progress_call(s, "test_slow_task"),
                                          session=s.id, stream=True)
    first = None
    while first is None:
        event = read_event(response)
        expect(event is not None, "the POST stream ended early")
        if event.get("data"):
            first = event
    conn.close()
    seen = [json.loads(first["data"])]
    last_id = first["id"]
    reply = replicas[1].request("GET", session=s.id, headers={"Last-Event-ID": last_id,
                                                                "Accept": "text/event-stream"},
                                timeout=20)
    expect(reply.status == 200, f"resume: HTTP {reply.status}")
    seen += reply.messages()
    ids = [e["id"] for e in reply.events if e.get("data")]
    expect(len(ids) == len(set(ids)) and last_id not in ids, f"events twice: {ids}")
    progress = [m["params"]["progress"] for m in seen if m.get("method") == "notifications/progress"]
    expect(progress == sorted(set(progress)) and len(progress) >= 2, f"progress: {progress}")
    answer = seen[-1]
    expect("result" in answer, f"no result after resuming: {answer}")


def resume_after_sigkill(lb, replicas, pids):
    """The replica running the call dies: the client resumes through the
    balancer and gets what was sent, then an error for the request."""
    s = Session(lb)
    victim = replicas[-1]
    conn, response = victim.request("POST", progress_call(s, "test_slow_task"), session=s.id,
                                    stream=True)
    first = None
    while first is None:
        event = read_event(response)
        expect(event is not None, "the POST stream ended early")
        if event.get("data"):
            first = event
    time.sleep(0.3)  # the write-behind reaches the store
    os.kill(pids[victim.name], signal.SIGKILL)
    conn.close()
    started = time.monotonic()
    seen = []
    last_id = first["id"]
    for _ in range(4):
        reply = lb.request("GET", session=s.id, headers={"Last-Event-ID": last_id,
                                                        "Accept": "text/event-stream"},
                           timeout=20)
        if reply.status < 500:  # not the balancer's answer for the dead replica
            break
    expect(reply.status == 200, f"resume: HTTP {reply.status} {reply.body}")
    seen += reply.messages()
    expect(time.monotonic() - started < 12, "the resumed stream took over 10 s to end")
    answer = seen[-1] if seen else {}
    expect("error" in answer and answer.get("id") == s.next_id,
           f"expected an error for request {s.next_id}, got {seen}")


def modern_rounds(lb, replicas):
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            "io.modelcontextprotocol/clientInfo": {"name": "deploy-check", "version": "1"}}
    tool = "test_input_required_result_multi_round"
    headers = {"Mcp-Method": "tools/call", "Mcp-Name": tool}
    params = {"name": tool, "arguments": {}, "_meta": meta}
    answers = {"step1": {"name": "Ada"}, "step2": {"color": "green"}}
    landed = []
    for round_no in range(1, 5):
        reply = replicas[round_no % len(replicas)].request(
            "POST", {"jsonrpc": "2.0", "id": round_no, "method": "tools/call", "params": params},
            version=MODERN, headers=headers)
        landed.append(round_no % len(replicas))
        expect(reply.status == 200, f"round {round_no}: HTTP {reply.status} {reply.body}")
        result = reply.answer().get("result")
        expect(result is not None, f"round {round_no}: {reply.answer()}")
        if result.get("resultType") != "input_required":
            expect("Ada likes green" in text_of(result), f"final: {result}")
            expect(len(set(landed)) > 1, "every round landed on one replica")
            return
        responses = {key: {"action": "accept", "content": answers[key]}
                     for key in result["inputRequests"]}
        params = {"name": tool, "arguments": {}, "_meta": meta,
                  "inputResponses": {**params.get("inputResponses", {}), **responses},
                  "requestState": result["requestState"]}
    raise AssertionError("no final answer after 4 rounds")


def task_call(s, seconds, ttl=60000):
    s.next_id += 1
    return {"jsonrpc": "2.0", "id": s.next_id, "method": "tools/call",
            "params": {"name": "test_slow_task", "arguments": {"seconds": seconds},
                       "task": {"ttl": ttl}, "_meta": {"progressToken": "task-progress"}}}


def tasks_across_replicas(lb, replicas):
    """A 2025-11-25 task created through one replica is polled through
    another and cancelled through a third; its progress reaches the GET
    stream a fourth holds, and stops within about a second of the cancel."""
    s = Session(lb)
    holder, runner, poller, canceller = replicas[1], replicas[0], replicas[1], replicas[2]
    conn, stream = holder.request("GET", session=s.id, stream=True, timeout=30,
                                  headers={"Accept": "text/event-stream"})
    events = queue.Queue()

    def read_all():
        try:
            while (event := read_event(stream)) is not None:
                events.put(event)
        except (OSError, ValueError, AttributeError):
            # Closed at the end of the check (http.client drops the file
            # under a reader that is still in it: AttributeError).
            pass
        events.put(None)

    threading.Thread(target=read_all, daemon=True).start()

    def progress_until(deadline):
        seen = 0
        while (left := deadline - time.monotonic()) > 0:
            try:
                event = events.get(timeout=left)
            except queue.Empty:
                break
            expect(event is not None, "the GET stream ended")
            if event.get("data") and "notifications/progress" in event["data"]:
                seen += 1
        return seen

    try:
        expect(stream.status == 200, f"GET: HTTP {stream.status}")
        reply = runner.request("POST", task_call(s, 60), session=s.id)
        expect(reply.status == 200, f"tools/call with task: HTTP {reply.status} {reply.body}")
        task = reply.answer()["result"]["task"]
        got, _ = s.result("tasks/get", {"taskId": task["taskId"]}, via=poller)
        expect(got["status"] == "working", f"tasks/get on {poller.name}: {got}")
        listed, _ = s.result("tasks/list", via=canceller)
        expect(task["taskId"] in [t["taskId"] for t in listed["tasks"]], f"tasks/list: {listed}")
        expect(progress_until(time.monotonic() + 2.5) >= 1,
               f"no progress of the task on {runner.name} reached the stream {holder.name} holds")
        cancelled, _ = s.result("tasks/cancel", {"taskId": task["taskId"]}, via=canceller)
        expect(cancelled["status"] == "cancelled", f"tasks/cancel: {cancelled}")
        progress_until(time.monotonic() + 1.2)  # what was under way
        late = progress_until(time.monotonic() + 2.5)
        expect(late == 0, f"{late} progress notifications over 2.5 s after the cancel: the work goes on")
        got, _ = s.result("tasks/get", {"taskId": task["taskId"]}, via=poller)
        expect(got["status"] == "cancelled", f"tasks/get after cancel: {got}")
    finally:
        # Wakes the reader blocked on the socket, which close() would wait for.
        try:
            conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        conn.close()


def modern_tasks_across_replicas(lb, replicas):
    """The same with the 2026-07-28 tasks extension: created through one
    replica, polled through another, cancelled through a third."""
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {
                "extensions": {"io.modelcontextprotocol/tasks": {}}},
            "io.modelcontextprotocol/clientInfo": {"name": "deploy-check", "version": "1"}}

    def call(replica, method, params, name):
        reply = replica.request("POST", {"jsonrpc": "2.0", "id": 1, "method": method,
                                         "params": {**params, "_meta": meta}},
                                version=MODERN, headers={"Mcp-Method": method, "Mcp-Name": name})
        expect(reply.status == 200, f"{method} on {replica.name}: HTTP {reply.status} {reply.body}")
        answer = reply.answer()
        expect("result" in answer, f"{method} on {replica.name}: {answer}")
        return answer["result"]

    created = call(replicas[0], "tools/call",
                   {"name": "slow_compute", "arguments": {"seconds": 60}}, "slow_compute")
    expect(created.get("resultType") == "task", f"not a task: {created}")
    task_id = created["taskId"]
    got = call(replicas[1], "tasks/get", {"taskId": task_id}, task_id)
    expect(got["status"] == "working", f"tasks/get: {got}")
    call(replicas[2], "tasks/cancel", {"taskId": task_id}, task_id)
    got = call(replicas[1], "tasks/get", {"taskId": task_id}, task_id)
    expect(got["status"] == "cancelled", f"tasks/get after cancel: {got}")


def task_result_outlives_its_replica(lb, replicas, pids):
    """A finished task's result is read through the balancer after the
    replica that ran it was killed (SIGKILL)."""
    s = Session(lb)
    runner = replicas[0]
    reply = runner.request("POST", task_call(s, 1), session=s.id)
    expect(reply.status == 200, f"tools/call with task: HTTP {reply.status} {reply.body}")
    task_id = reply.answer()["result"]["task"]["taskId"]
    result, _ = s.result("tasks/result", {"taskId": task_id}, via=replicas[1])
    expect("worked for 1 s" in text_of(result), f"tasks/result: {result}")
    os.kill(pids[runner.name], signal.SIGKILL)
    for _ in range(6):
        reply = s.call("tasks/result", {"taskId": task_id})
        if reply.status < 500:  # not the balancer's answer for the dead replica
            break
    expect(reply.status == 200, f"tasks/result after SIGKILL: HTTP {reply.status} {reply.body}")
    answer = reply.answer()
    expect("worked for 1 s" in text_of(answer.get("result", {})),
           f"tasks/result after SIGKILL: {answer}")


def store_faults(lb, replicas, redis):
    s = Session(lb)
    for r in replicas:
        s.result("tools/list", via=r)  # each replica holds a lease now
    redis.stop()
    stopped = time.monotonic()
    try:
        for r in replicas:
            started = time.monotonic()
            reply = r.request("POST", {
                "jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": LATEST, "capabilities": {},
                           "clientInfo": {"name": "deploy-check", "version": "1"}}},
                version=None, timeout=10)
            took = time.monotonic() - started
            expect(reply.status == 503, f"{r.name}: initialize without Redis got HTTP {reply.status}")
            expect(reply.body.get("error", {}).get("code"), f"{r.name}: no JSON-RPC error: {reply.body}")
            expect(took < 5, f"{r.name}: the 503 took {took:.1f}s")
            started = time.monotonic()
            reply = s.call("tools/list", via=r)
            # A replica may serve a session it holds a lease on for up to a
            # second after its bus went silent (nothing can change the
            # session meanwhile); then it refuses.
            expect(time.monotonic() - started < 5 and reply.status in (200, 503),
                   f"{r.name}: an existing session's request without Redis: HTTP {reply.status}")
        time.sleep(max(0.0, 1.5 - (time.monotonic() - stopped)))
        for r in replicas:
            started = time.monotonic()
            reply = s.call("tools/list", via=r)
            expect(time.monotonic() - started < 5 and reply.status == 503,
                   f"{r.name}: an existing session's request 1.5 s without Redis: "
                   f"HTTP {reply.status}")
    finally:
        redis.start()
    deadline = time.monotonic() + 10
    for r in replicas:
        while True:
            reply = r.request("POST", {
                "jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": LATEST, "capabilities": {},
                           "clientInfo": {"name": "deploy-check", "version": "1"}}},
                version=None, timeout=10)
            if reply.status == 200:
                break
            expect(time.monotonic() < deadline, f"{r.name}: no new session 10 s after Redis came back")
            time.sleep(0.25)
    Session(lb).result("tools/list")


class Redis:
    def __init__(self, port, pidfile):
        self.port = port
        self.pidfile = pidfile

    def pid(self):
        with open(self.pidfile) as f:
            return int(f.read())

    def calls(self, command):
        """How many times Redis ran `command` so far (INFO commandstats)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as conn:
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn.sendall(b"INFO commandstats\r\n")
            data = b""
            # A bulk string: "$<length>\r\n<text>\r\n".
            while True:
                header, _, body = data.partition(b"\r\n")
                if header.startswith(b"$") and _ and len(body) >= int(header[1:]):
                    break
                chunk = conn.recv(65536)
                expect(chunk, "Redis closed the connection during INFO")
                data += chunk
        for line in data.decode().splitlines():
            if line.startswith(f"cmdstat_{command}:calls="):
                return int(line.split("calls=")[1].split(",")[0])
        return 0

    def stop(self):
        os.kill(self.pid(), signal.SIGKILL)
        time.sleep(0.2)

    def start(self):
        process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(self.pidfile, "w") as f:
            f.write(str(process.pid))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                http.client.HTTPConnection("127.0.0.1", self.port, timeout=1).connect()
                return
            except OSError:
                time.sleep(0.1)
        raise AssertionError("redis-server did not start again")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--balancer", type=int, required=True)
    parser.add_argument("--replica", action="append", required=True, help="NAME=PORT:PID")
    parser.add_argument("--redis-port", type=int, required=True)
    parser.add_argument("--redis-pidfile", required=True)
    args = parser.parse_args()
    lb = Endpoint(args.balancer, "balancer")
    replicas, pids = [], {}
    for spec in args.replica:
        name, rest = spec.split("=")
        port, pid = rest.split(":")
        replicas.append(Endpoint(int(port), name))
        pids[name] = int(pid)
    redis = Redis(args.redis_port, args.redis_pidfile)

    check("a session across replicas (tools, resources, prompts, subscribe, logging level)",
          lambda: session_end_to_end(lb, replicas))
    check("a replica reads a session's record once, not per request",
          lambda: leases_save_reads(lb, replicas, redis))
    check("DELETE on one replica is 404 on every replica", lambda: delete_everywhere(lb, replicas))
    check("a resource update on one replica reaches a stream held by another",
          lambda: resource_update_reaches_other_replicas(lb, replicas))
    check("2026-07-28 input-required rounds on different replicas",
          lambda: modern_rounds(lb, replicas))
    check("an answer to a sampling request reaches the replica waiting for it",
          lambda: answer_on_another_replica(lb, replicas))
    check("a stream resumed with Last-Event-ID on another replica",
          lambda: resume_on_another_replica(lb, replicas))
    check("a task created on one replica, polled on another, cancelled on a third",
          lambda: tasks_across_replicas(lb, replicas))
    check("a 2026-07-28 extension task across three replicas",
          lambda: modern_tasks_across_replicas(lb, replicas))
    check("Redis lost: 503 within 5 s; Redis back: new sessions within 10 s",
          lambda: store_faults(lb, replicas, redis))
    check("the replica running a call is killed: resumption ends with an error",
          lambda: resume_after_sigkill(lb, replicas, pids))
    check("a finished task's result is readable after its replica was killed",
          lambda: task_result_outlives_its_replica(lb, replicas, pids))
    print(f"deploy: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
