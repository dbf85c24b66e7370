#!/usr/bin/env bash
# The main job, end to end, on a fresh Debian 12 machine as root:
# install what is missing, build, make sure an engine answers (a private
# dockerd when none does), build the example's images locally, then run two
# tasks of examples/agent-pair at once, show them, call each app (each
# answers with its own task and database name, and each database holds only
# its own task's database), take both down and prove that nothing is left.
# The engine stays up afterwards (the last lines say how to reach and stop
# it): it is what the next `taskenv up` needs.
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

# A private dockerd lives here when no engine answers, and is reused by the
# next run (scripts/engine.sh: its own socket, data dir and pidfile).
PRIVATE=${TASKENV_DEMO_ENGINE:-/tmp/te-demo/engine}
answers() { curl -fsS --max-time 3 --unix-socket "$1" http://localhost/_ping >/dev/null 2>&1; }
SOCK=""
STARTED=""
if [[ ${DOCKER_HOST:-} == unix://* ]] && answers "${DOCKER_HOST#unix://}"; then
	SOCK=${DOCKER_HOST#unix://}
elif answers /var/run/docker.sock; then
	SOCK=/var/run/docker.sock
elif answers "$PRIVATE/docker.sock"; then
	SOCK=$PRIVATE/docker.sock
	STARTED="the private dockerd an earlier run of this demo started"
else
	say "no engine answers: starting a private dockerd in $PRIVATE (it stays up afterwards)"
	SOCK=$(scripts/engine.sh start docker "$PRIVATE")
	STARTED="a private dockerd this demo started"
fi
export DOCKER_HOST=unix://$SOCK
STATE=$(mktemp -d /tmp/te-demo-stateXXXX)
export TASKENV_STATE=$STATE/state.db
# The tasks go, the engine stays (see the end).
cleanup() {
	"$TASKENV" down -t demo-a --volumes >/dev/null 2>&1 || true
	"$TASKENV" down -t demo-b --volumes >/dev/null 2>&1 || true
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

say "a request to each task's app: its own task name, its own database"
for t in demo-a demo-b; do
	port=$("$TASKENV" env -t "$t" | sed -n 's/^TASKENV_PORT_APP_3000=//p')
	# The app answers at once; its database needs a few seconds to accept connections.
	for _ in $(seq 1 120); do
		curl -fsS "http://127.0.0.1:$port/cgi-bin/db" 2>/dev/null | grep -q database=reachable && break
		sleep 0.5
	done
	answer=$(curl -fsS "http://127.0.0.1:$port/cgi-bin/db" | tr '\n' ' ')
	printf '%s -> 127.0.0.1:%s: %s\n' "$t" "$port" "$answer"
	grep -q "task=$t database_name=$t database=reachable" <<<"$answer" ||
		{ echo "$t: its app does not name its own task and database, or does not reach it" >&2; exit 1; }
done

say "each task's database server holds its own database and not the other's"
for t in demo-a demo-b; do
	dbs=$("$TASKENV" exec -T -t "$t" database psql -U postgres -Atc \
		"select string_agg(datname, ',' order by datname) from pg_database where datname like 'demo-%'" </dev/null)
	printf '%s-database-1: %s\n' "$t" "$dbs"
	[ "$dbs" = "$t" ] || { echo "$t: its database server holds '$dbs', not just '$t'" >&2; exit 1; }
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

say "done; the engine stays up"
if [ -n "$STARTED" ]; then
	echo "engine: $STARTED, at unix://$SOCK"
	echo "  use it:   export DOCKER_HOST=unix://$SOCK"
	echo "            cd examples/agent-pair && $TASKENV up -t mine"
	echo "  stop it:  $ROOT/scripts/engine.sh stop $PRIVATE   (a reboot stops it too)"
else
	echo "engine: the one that already answered, at unix://$SOCK (left as it was)"
fi
