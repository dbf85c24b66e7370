#!/usr/bin/env bash
# The latency the task's broker adds (issue 16, acceptance 6): GET /containers/json
# and exec start (POST /exec/ID/start, Detach false, the output read to its end)
# through the broker against the engine directly, on one private engine started here.
#
#   bench/broker.sh [docker|podman] [PATH/TO/taskenv]      (as root; not part of the suite)
#
# Environment: N (requests per path and round, default 200), ROUNDS (default 5,
# alternating direct and broker), BENCH_KEEP=1 keeps the work dir.
# Prints, per path, the median per-request time direct and through the broker and
# their difference (the broker's added latency), over all rounds.
set -euo pipefail

KIND=${1:-docker}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TASKENV=$(realpath "${2:-$ROOT/build/taskenv}")
WORK=$(mktemp -d /tmp/te-bbXXXX)
export TASKENV_STATE=$WORK/state.db TASKENV_CONFIG=$WORK/config.yaml
unset TASKENV_FAULT TASKENV_TASK

cleanup() {
	(cd "$WORK/p" 2>/dev/null && "$TASKENV" down -t bench-brk >/dev/null 2>&1) || true
	"$ROOT/scripts/engine.sh" stop "$WORK/engine" >/dev/null 2>&1 || true
	[ -n "${BENCH_KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

SOCK=$("$ROOT/scripts/engine.sh" start "$KIND" "$WORK/engine")
export DOCKER_HOST=unix://$SOCK
TASKENV_SUBNET_POOL="10.$(cat "$WORK/engine/netblock").128.0/17"
export TASKENV_SUBNET_POOL
"$ROOT/scripts/images.sh" "$SOCK" >/dev/null 2>&1

mkdir -p "$WORK/p"
cat >"$WORK/p/compose.yaml" <<'YAML'
services:
  a:
    image: taskenv-test/busybox:1
    command: ["sleep", "3600"]
  b:
    image: taskenv-test/busybox:1
    command: ["sleep", "3600"]
YAML
(cd "$WORK/p" && "$TASKENV" up -t bench-brk --broker >/dev/null)
BROKER=$("$TASKENV" env -t bench-brk | sed -n 's|^TASKENV_DOCKER_HOST=unix://||p')
echo "engine: $KIND ($SOCK), broker: $BROKER, load: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$SOCK" "$BROKER" "${N:-200}" "${ROUNDS:-5}" <<'PY'
import http.client, json, socket, statistics, sys, time

engine, broker, n, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])


class Unix(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=60)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def call(c, method, path, body=None):
    hdr = {"Content-Type": "application/json"} if body is not None else {}
    c.request(method, path, body=json.dumps(body) if body is not None else None, headers=hdr)
    r = c.getresponse()
    data = r.read()
    if r.status >= 300:
        raise SystemExit("%s %s: %d %s" % (method, path, r.status, data[:200]))
    return data


def timed_list(path):
    c, out = Unix(path), []
    for _ in range(n):
        t = time.perf_counter()
        call(c, "GET", "/v1.41/containers/json")
        out.append(time.perf_counter() - t)
    return out


def timed_exec(path, cid):
    c, out = Unix(path), []
    for _ in range(n):
        x = json.loads(call(c, "POST", "/v1.41/containers/%s/exec" % cid,
                            {"Cmd": ["true"], "AttachStdout": True, "AttachStderr": True}))["Id"]
        t = time.perf_counter()
        call(c, "POST", "/v1.41/exec/%s/start" % x, {"Detach": False, "Tty": False})
        out.append(time.perf_counter() - t)
    return out


cid = json.loads(call(Unix(engine), "GET", "/v1.41/containers/bench-brk-a-1/json"))["Id"]
res = {k: [] for k in ("list direct", "list broker", "exec direct", "exec broker")}
for r in range(rounds):
    res["list direct"] += timed_list(engine)
    res["list broker"] += timed_list(broker)
    res["exec direct"] += timed_exec(engine, cid)
    res["exec broker"] += timed_exec(broker, cid)
for what in ("list", "exec"):
    d = statistics.median(res[what + " direct"]) * 1000
    b = statistics.median(res[what + " broker"]) * 1000
    print("%-28s direct %8.3f ms  broker %8.3f ms  added %7.3f ms  (%d requests each)"
          % ({"list": "GET /containers/json", "exec": "exec start (true)"}[what], d, b, b - d,
             len(res[what + " direct"])))
PY
