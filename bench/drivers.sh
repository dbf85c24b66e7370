#!/usr/bin/env bash
# Per-task provisioning and teardown time of each driver (schema mode,
# template-database mode, a RabbitMQ vhost+user, an S3 bucket), measured on
# the driver API (build/drv_bench), next to the time to start a fresh
# Postgres container for the same job (run until it accepts a query, then
# removed) on a private dockerd. Postgres templates built from migrations
# (issue 15): a task's database handed out from the warm pool, cloned with
# the pool empty, and the template build itself (a small migration set run
# on a session where taskenv runs a one-off container). Not a test: prints
# medians.
#   bench/drivers.sh [BUILD_DIR] [RUNS]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(realpath "${1:-$ROOT/build}")
RUNS=${2:-30}
WORK=$(mktemp -d /tmp/te-bench-XXXX)
chmod 711 "$WORK"
# A third cluster in memory (/dev/shm), where creating a file costs next to nothing:
# CREATE DATABASE makes ~300 files, and on this machine's disk their creation is
# most of a clone's time (and varies from hour to hour).
MEM=
if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	MEM=$(mktemp -d /dev/shm/te-bench-XXXX)
	chmod 711 "$MEM"
fi
cleanup() {
	"$ROOT/scripts/servers.sh" stop "$WORK/servers" >/dev/null 2>&1 || true
	"$ROOT/scripts/servers.sh" stop "$WORK/durable" >/dev/null 2>&1 || true
	if [ -n "$MEM" ]; then
		"$ROOT/scripts/servers.sh" stop "$MEM/servers" >/dev/null 2>&1 || true
		rm -rf "$MEM"
	fi
	"$ROOT/scripts/engine.sh" stop "$WORK/engine" >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT

median() { sort -n | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else printf "%.2f\n", (v[NR/2]+v[NR/2+1])/2}'; }

t0=$(date +%s.%N)
"$ROOT/scripts/servers.sh" start "$WORK/servers" "postgres rabbitmq s3" >"$WORK/env"
echo "servers (postgres, rabbitmq, s3rver) started in $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-5) s" >&2
# The test servers run Postgres with fsync, synchronous_commit and
# full_page_writes off (scripts/servers.sh); no user's server does. The
# Postgres rows are measured on that cluster, on a second one with
# PostgreSQL's defaults ("durable") and on a third in /dev/shm (MEM).
PG_DURABLE=1 "$ROOT/scripts/servers.sh" start "$WORK/durable" postgres >"$WORK/env.durable"
set -a
# shellcheck source=/dev/null
. "$WORK/env"
set +a
# app_tpl: a small template (one table of 1000 rows; ~7.5 MB, almost all catalogs).
make_template() {
	psql -X -q -h "$1" -p "$2" -U taskenv_admin -d postgres -c 'create database app_tpl'
	psql -X -q -h "$1" -p "$2" -U taskenv_admin -d app_tpl \
		-c 'create table items(id serial primary key, v text); insert into items(v) select md5(g::text) from generate_series(1, 1000) g'
}
# CREATE DATABASE ... TEMPLATE app_tpl and DROP DATABASE alone, RUNS times in
# one psql session (\timing: server time plus one round trip): "create drop" ms.
clone_alone() {
	for _ in $(seq 1 "$RUNS"); do
		printf '\\timing on\nCREATE DATABASE bench_alone TEMPLATE app_tpl;\nDROP DATABASE bench_alone;\n\\timing off\n'
	done | psql -X -q -h "$1" -p "$2" -U taskenv_admin -d postgres | awk '/^Time:/ {printf "%s%s", $2, (++n % 2 ? " " : "\n")}'
}
row() { printf '%-50s %14s %14s\n' "$1" "$(awk '{print $1}' "$2" | median)" "$(awk '{print $2}' "$2" | median)"; }
# The drv_bench modes of the Postgres rows and their labels.
PG_KINDS="schema template pool clone build"
label() {
	case $1 in
	template) echo "template clone (hand-named)" ;;
	pool) echo "from the pool" ;;
	clone) echo "clone, pool empty" ;;
	build) echo "template build (small set)" ;;
	*) echo "$1" ;;
	esac
}
# The schema and template rows, and the clone alone, on the further cluster
# whose servers.sh lines are in the file ENV, labelled "(LABEL)".
pg_rows() {
	local env=$1 label=$2 url sock port k
	url=$(sed -n 's/^PG_ADMIN_URL=//p' "$env")
	sock=$(sed -n 's/^PG_SOCKET_DIR=//p' "$env")
	port=$(sed -n 's/^PG_PORT=//p' "$env")
	make_template "$sock" "$port"
	for k in $PG_KINDS; do
		PG_ADMIN_URL=$url "$BUILD/drv_bench" "$k" "$RUNS" | awk '{print $2, $3}' >"$env.$k.txt"
		row "$(label "$k") ($label)" "$env.$k.txt"
	done
	clone_alone "$sock" "$port" >"$env.alone.txt"
	row "  CREATE/DROP DATABASE alone (psql)" "$env.alone.txt"
}
make_template "$PG_SOCKET_DIR" "$PG_PORT"

printf '%-50s %14s %14s\n' "per task ($RUNS runs, medians)" "provision ms" "teardown ms"
for k in $PG_KINDS vhost bucket; do
	"$BUILD/drv_bench" "$k" "$RUNS" | awk '{print $2, $3}' >"$WORK/$k.txt"
	row "$(label "$k")" "$WORK/$k.txt"
done
clone_alone "$PG_SOCKET_DIR" "$PG_PORT" >"$WORK/alone.txt"
row "  CREATE/DROP DATABASE alone (psql)" "$WORK/alone.txt"
pg_rows "$WORK/env.durable" "durable server"
if [ -n "$MEM" ]; then
	"$ROOT/scripts/servers.sh" start "$MEM/servers" postgres >"$WORK/env.mem"
	pg_rows "$WORK/env.mem" "cluster in /dev/shm"
fi

# A fresh Postgres container per task, for comparison.
SOCK=$("$ROOT/scripts/engine.sh" start docker "$WORK/engine")
"$ROOT/scripts/images.sh" "$SOCK" >/dev/null 2>&1
D=(docker -H "unix://$SOCK")
# The private dockerd has no default bridge: give the containers a network.
"${D[@]}" network create te-bench >/dev/null
: >"$WORK/ctr.txt"
for _ in $(seq 1 5); do
	s=$(date +%s%N)
	id=$("${D[@]}" run -d --network te-bench -e POSTGRES_PASSWORD=x -p 127.0.0.1::5432 taskenv-example/postgres:15)
	port=$("${D[@]}" port "$id" 5432/tcp | head -n 1 | sed 's/.*://')
	until PGPASSWORD=x psql -X -q -h 127.0.0.1 -p "$port" -U postgres -Atc 'select 1' >/dev/null 2>&1; do sleep 0.05; done
	m=$(date +%s%N)
	"${D[@]}" rm -f -v "$id" >/dev/null
	e=$(date +%s%N)
	echo "$(((m - s) / 1000000)) $(((e - m) / 1000000))" >>"$WORK/ctr.txt"
done
"${D[@]}" network rm te-bench >/dev/null
printf '%-50s %14s %14s\n' "fresh postgres container (5 runs)" "$(awk '{print $1}' "$WORK/ctr.txt" | median)" \
	"$(awk '{print $2}' "$WORK/ctr.txt" | median)"
echo "targets: from the pool <= 25 ms, template clone < 50 ms, schema < 30 ms (build: teardown = drop it)"
