#!/usr/bin/env bash
# The main job, end to end, on a fresh Debian 12 machine as root:
# install what is missing, build, make sure an engine answers (a private
# dockerd when none does), build the example's images locally, then run two
# tasks of examples/agent-pair at once, show them, call each app, take both
# down and prove that nothing is left.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
say() { printf '\n== %s\n' "$*"; }

say "installing what is missing"
.ci/install-deps.sh
say "building"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
TASKENV=$ROOT/build/taskenv

PRIVATE=""
answers() { curl -fsS --max-time 3 --unix-socket "$1" http://localhost/_ping >/dev/null 2>&1; }
SOCK=""
if [[ ${DOCKER_HOST:-} == unix://* ]] && answers "${DOCKER_HOST#unix://}"; then
	SOCK=${DOCKER_HOST#unix://}
elif answers /var/run/docker.sock; then
	SOCK=/var/run/docker.sock
else
	say "no engine answers: starting a private dockerd"
	PRIVATE=$(mktemp -d /tmp/te-demoXXXX)
	SOCK=$(scripts/engine.sh start docker "$PRIVATE/engine")
fi
export DOCKER_HOST=unix://$SOCK
STATE=$(mktemp -d /tmp/te-demo-stateXXXX)
export TASKENV_STATE=$STATE/state.db
cleanup() {
	"$TASKENV" down -t demo-a --volumes >/dev/null 2>&1 || true
	"$TASKENV" down -t demo-b --volumes >/dev/null 2>&1 || true
	# By absolute path: the main job runs in examples/agent-pair.
	if [ -n "$PRIVATE" ]; then "$ROOT/scripts/engine.sh" stop "$PRIVATE/engine" >/dev/null 2>&1 || true; rmdir "$PRIVATE" 2>/dev/null || true; fi
	rm -rf "$STATE"
}
trap cleanup EXIT
echo "engine: $SOCK"

say "building the example's images locally (no registry)"
scripts/images.sh "$SOCK"

say "two tasks up at once"
cd examples/agent-pair
"$TASKENV" up -t demo-a & a=$!
"$TASKENV" up -t demo-b & b=$!
wait $a
wait $b

say "taskenv ps"
"$TASKENV" ps
"$TASKENV" ps -t demo-a

say "a request to each task's app"
for t in demo-a demo-b; do
	port=$("$TASKENV" env -t "$t" | sed -n 's/^TASKENV_PORT_APP_3000=//p')
	# The app answers at once; its database needs a few seconds to accept connections.
	for _ in $(seq 1 120); do
		curl -fsS "http://127.0.0.1:$port/cgi-bin/db" 2>/dev/null | grep -q database=reachable && break
		sleep 0.5
	done
	answer=$(curl -fsS "http://127.0.0.1:$port/cgi-bin/db" | tr '\n' ' ')
	printf '%s -> 127.0.0.1:%s: %s\n' "$t" "$port" "$answer"
	grep -q database=reachable <<<"$answer" || { echo "$t: its app does not reach its database" >&2; exit 1; }
done

say "down --volumes of both"
"$TASKENV" down -t demo-a --volumes
"$TASKENV" down -t demo-b --volumes

say "proof that nothing is left (objects labelled io.taskenv.task on the engine)"
filter=$(jq -rn '{label:["io.taskenv.task"]}|@uri')
c=$(curl -sS --unix-socket "$SOCK" "http://localhost/containers/json?all=1&filters=$filter" | jq length)
n=$(curl -sS --unix-socket "$SOCK" "http://localhost/networks?filters=$filter" | jq length)
v=$(curl -sS --unix-socket "$SOCK" "http://localhost/volumes?filters=$filter" | jq '.Volumes // [] | length')
echo "containers=$c networks=$n volumes=$v"
[ "$c$n$v" = 000 ] || { echo "leftovers!" >&2; exit 1; }
say "done"
