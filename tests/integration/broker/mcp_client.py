#!/usr/bin/env python3
"""Drive `taskenv mcp -t TASK` as an agent would (issue 16, acceptance 5).

    mcp_client.py TASKENV TASK SERVICE FOREIGN

initialize, tools/list (every tool has an input schema), every tool on
TASK's SERVICE, each service-taking tool with FOREIGN (a service only
another task has: a tool error), and protocol errors. Prints a line per
check; exit 1 on a failure.
"""
import json
import subprocess
import sys

TASKENV, TASK, SERVICE, FOREIGN = sys.argv[1:5]
FAILED = []
p = subprocess.Popen([TASKENV, "mcp", "-t", TASK], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=sys.stderr, text=True, bufsize=1)
NEXT = [0]


def send_raw(line, answer=True):
    p.stdin.write(line + "\n")
    p.stdin.flush()
    if not answer:
        return None
    return json.loads(p.stdout.readline())


def rpc(method, params=None):
    NEXT[0] += 1
    msg = {"jsonrpc": "2.0", "id": NEXT[0], "method": method}
    if params is not None:
        msg["params"] = params
    r = send_raw(json.dumps(msg))
    assert r["id"] == NEXT[0], r
    return r


def call(name, args=None):
    r = rpc("tools/call", {"name": name, "arguments": args or {}})
    res = r["result"]
    return res["isError"], res["content"][0]["text"]


def check(name, ok, detail=""):
    print("%-4s %-40s %s" % ("ok" if ok else "FAIL", name, detail[:200].replace("\n", "\\n")))
    if not ok:
        FAILED.append(name)


r = rpc("initialize", {"protocolVersion": "2024-11-05", "capabilities": {},
                       "clientInfo": {"name": "t_mcp", "version": "1"}})
check("initialize", r["result"]["protocolVersion"] == "2024-11-05" and "tools" in r["result"]["capabilities"],
      json.dumps(r))
send_raw(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), answer=False)
check("ping", rpc("ping")["result"] == {})
tools = {t["name"]: t for t in rpc("tools/list")["result"]["tools"]}
want = {"status", "env", "logs", "exec", "restart", "up", "contract"}
check("tools/list names", set(tools) == want, str(sorted(tools)))
check("tools/list schemas", all(t["inputSchema"]["type"] == "object" and t["description"] for t in tools.values()))
check("logs requires service", tools["logs"]["inputSchema"]["required"] == ["service"])
check("exec requires service and argv", tools["exec"]["inputSchema"]["required"] == ["service", "argv"])

err, text = call("status")
check("status", not err and json.loads(text)["task"] == TASK, text)
err, text = call("env")
check("env", not err and ("TASKENV_TASK=%s" % TASK) in text, text)
err, text = call("logs", {"service": SERVICE, "tail": 5})
check("logs", not err and "tick" in text, text)
err, text = call("logs", {"service": SERVICE, "tail": 1, "since": "1h"})
check("logs since", not err and text.count("\n") <= 1, text)
err, text = call("exec", {"service": SERVICE, "argv": ["sh", "-c", "echo out; echo err >&2; exit 3"]})
check("exec", not err and "out" in text and "err" in text and "[exit code 3]" in text, text)
err, text = call("exec", {"service": SERVICE, "argv": ["sh", "-c", "head -c 200000 /dev/zero | tr '\\0' x"]})
check("exec output capped", not err and len(text) < 70000 and "[earlier output cut]" in text, "%d bytes" % len(text))
err, text = call("exec", {"service": SERVICE, "argv": ["sleep", "30"], "timeout": 1})
check("exec timeout", err and "within 1s" in text, text)
err, text = call("restart", {"service": SERVICE})
check("restart", not err and "restarted" in text, text)
err, text = call("up")
check("up", not err and "is up" in text, text)
err, text = call("contract")
check("contract", not err and json.loads(text)["task"] == TASK, text[:100])

# A service only another task has: a tool error for every tool taking one.
for name, args in (("logs", {"service": FOREIGN}), ("exec", {"service": FOREIGN, "argv": ["true"]}),
                   ("restart", {"service": FOREIGN})):
    err, text = call(name, args)
    check("%s on a foreign service" % name, err and ("no container of service '%s'" % FOREIGN) in text, text)

# Bad input: tool errors for the model's mistakes, protocol errors for the client's.
err, text = call("exec", {"service": SERVICE, "argv": "echo"})
check("exec argv not an array", err and "must be of type array" in text, text)
err, text = call("logs", {})
check("logs without service", err and "missing argument 'service'" in text, text)
err, text = call("logs", {"service": SERVICE, "bogus": 1})
check("unknown argument", err and "unknown argument 'bogus'" in text, text)
err, text = call("nope")
check("unknown tool", err and "no tool 'nope'" in text, text)
r = rpc("no/such/method")
check("unknown method", r["error"]["code"] == -32601, json.dumps(r))
r = send_raw("this is not json")
check("parse error", r["error"]["code"] == -32700, json.dumps(r))
r = send_raw(json.dumps({"jsonrpc": "1.0", "id": 99, "method": "ping"}))
check("invalid request", r["error"]["code"] == -32600, json.dumps(r))
r = rpc("tools/call", {"arguments": {}})
check("tools/call without a name", r["error"]["code"] == -32602, json.dumps(r))
check("still serving", rpc("ping")["result"] == {})
p.stdin.close()
check("exits at end of input", p.wait(timeout=30) == 0)
print("mcp: %d failed" % len(FAILED))
sys.exit(1 if FAILED else 0)
