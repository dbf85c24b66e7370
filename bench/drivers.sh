#!/usr/bin/env bash
# Per-task provisioning and teardown time of each driver (schema mode,
# template-database mode, a RabbitMQ vhost+user, an S3 bucket), measured on
# the driver API (build/drv_bench), next to the time to start a fresh
# Postgres container for the same job (run until it accepts a query, then
# removed) on a private dockerd. Not a test: prints medians.
#   bench/drivers.sh [BUILD_DIR] [RUNS]
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(realpath "${1:-$ROOT/build}")
RUNS=${2:-30}
WORK=$(mktemp -d /tmp/te-bench-XXXX)
chmod 711 "$WORK"
cleanup() {
	"$ROOT/scripts/servers.sh" stop "$WORK/servers" >/dev/null 2>&1 || true
	"$ROOT/scripts/engine.sh" stop "$WORK/engine" >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT

median() { sort -n | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else printf "%.2f\n", (v[NR/2]+v[NR/2+1])/2}'; }

t0=$(date +%s.%N)
"$ROOT/scripts/servers.sh" start "$WORK/servers" "postgres rabbitmq s3" >"$WORK/env"
echo "servers (postgres, rabbitmq, s3rver) started in $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-5) s" >&2
set -a
# shellcheck source=/dev/null
. "$WORK/env"
set +a
psql -X -q -h "$PG_SOCKET_DIR" -p "$PG_PORT" -U taskenv_admin -d postgres -c 'create database app_tpl'
psql -X -q -h "$PG_SOCKET_DIR" -p "$PG_PORT" -U taskenv_admin -d app_tpl \
	-c 'create table items(id serial primary key, v text); insert into items(v) select md5(g::text) from generate_series(1, 1000) g'

printf '%-34s %14s %14s\n' "per task ($RUNS runs, medians)" "provision ms" "teardown ms"
for k in schema template vhost bucket; do
	"$BUILD/drv_bench" "$k" "$RUNS" >"$WORK/$k.txt"
	printf '%-34s %14s %14s\n' "$k" "$(awk '{print $2}' "$WORK/$k.txt" | median)" \
		"$(awk '{print $3}' "$WORK/$k.txt" | median)"
done

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
printf '%-34s %14s %14s\n' "fresh postgres container (5 runs)" "$(awk '{print $1}' "$WORK/ctr.txt" | median)" \
	"$(awk '{print $2}' "$WORK/ctr.txt" | median)"
echo "targets: template clone < 50 ms, schema < 30 ms"
