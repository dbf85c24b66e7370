#!/usr/bin/env bash
# Private servers for the driver tests and benchmark, everything under DIR,
# on loopback, stopped by pid (never by name):
#   servers.sh start DIR ["postgres rabbitmq s3"]   prints shell lines: PG_ADMIN_URL=...
#   servers.sh stop DIR
#   servers.sh pg-stop|pg-start DIR   stop / start again the cluster (same port)
#   servers.sh s3-stop|s3-start DIR   the same for s3rver (same port and data)
#   servers.sh rmq-stop|rmq-start DIR the same for rabbitmq (same node, ports and data)
# PostgreSQL 15 from /usr/lib/postgresql/15/bin: initdb into DIR/pg (trust
# for the admin over the unix socket, scram for TCP), a free port on
# 127.0.0.1, the admin user "taskenv_admin" with a random password;
# fsync, synchronous_commit and full_page_writes off unless PG_DURABLE=1.
# Running as root: the cluster is owned by the "postgres" system user.
set -euo pipefail

CMD=${1:?usage: servers.sh start|stop DIR}
DIR=${2:?usage: servers.sh start|stop DIR}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

as_pg() {
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start_postgres() {
	local d="$DIR/pg" port pw
	mkdir -p "$d"
	if [ "$(id -u)" = 0 ]; then
		chown postgres: "$d"
		runuser -u postgres -- test -x "$d" ||
			{ echo "servers.sh: user postgres cannot reach $d (make its parents o+x)" >&2; return 1; }
	fi
	port=$(free_port)
	pw=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
	printf '%s\n' "$pw" >"$d/pw"
	chmod 644 "$d/pw"
	as_pg "$PGBIN/initdb" -D "$d/data" -U taskenv_admin --pwfile="$d/pw" -A scram-sha-256 \
		--auth-local=trust -E UTF8 --locale=C.UTF-8 >"$d/initdb.log" 2>&1
	# In the config file, so pg-start brings it back on the same port.
	cat >>"$d/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$d'
max_connections = 200
CONF
	# Tests trade durability for speed; a server a user runs does not
	# (PG_DURABLE=1 keeps PostgreSQL's defaults: the benchmark's second cluster).
	if [ "${PG_DURABLE:-0}" != 1 ]; then
		printf 'fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n' >>"$d/data/postgresql.conf"
	fi
	as_pg "$PGBIN/pg_ctl" -D "$d/data" -l "$d/log" -w -t 60 start >/dev/null
	echo "PG_ADMIN_URL=postgresql://taskenv_admin:$pw@127.0.0.1:$port/postgres"
	echo "PG_SOCKET_DIR=$d"
	echo "PG_PORT=$port"
}

stop_postgres() {
	local d="$DIR/pg" pid
	[ -f "$d/data/postmaster.pid" ] || return 0
	pid=$(head -n 1 "$d/data/postmaster.pid")
	kill -INT "$pid" 2>/dev/null || true
	for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null || true
}

# rabbitmq-server with rabbitmq_management, everything under DIR/rmq: its own
# node name, Erlang cookie (HOME), epmd port (ERL_EPMD_PORT, loopback only,
# killed with `epmd -port P -kill` on stop), AMQP and management ports on
# 127.0.0.1, an admin with a random password. Takes ~15 s to answer.
rmq_env() {
	local d="$DIR/rmq"
	# shellcheck source=/dev/null
	. "$d/ports"
	export HOME="$d" RABBITMQ_MNESIA_BASE="$d/mnesia" RABBITMQ_LOG_BASE="$d/log" \
		RABBITMQ_NODENAME="te$RMQ_AMQP@localhost" RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 \
		RABBITMQ_NODE_PORT="$RMQ_AMQP" RABBITMQ_DIST_PORT="$RMQ_DIST" \
		RABBITMQ_CONFIG_FILE="$d/rabbitmq.conf" RABBITMQ_ENABLED_PLUGINS_FILE="$d/enabled_plugins" \
		RABBITMQ_PID_FILE="$d/pid" RABBITMQ_CONF_ENV_FILE="$d/env.conf" \
		ERL_EPMD_PORT="$RMQ_EPMD" ERL_EPMD_ADDRESS=127.0.0.1
}

start_rabbitmq() {
	local d="$DIR/rmq" pw
	mkdir -p "$d"
	pw=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
	printf 'RMQ_AMQP=%s\nRMQ_MGMT=%s\nRMQ_DIST=%s\nRMQ_EPMD=%s\n' "$(free_port)" "$(free_port)" \
		"$(free_port)" "$(free_port)" >"$d/ports"
	rmq_env
	cat >"$d/rabbitmq.conf" <<CONF
listeners.tcp.default = 127.0.0.1:$RMQ_AMQP
management.tcp.port = $RMQ_MGMT
management.tcp.ip = 127.0.0.1
default_user = taskenv_admin
default_pass = $pw
CONF
	echo '[rabbitmq_management].' >"$d/enabled_plugins"
	: >"$d/env.conf"
	run_rabbitmq "$pw"
	echo "RMQ_ADMIN_URL=http://taskenv_admin:$pw@127.0.0.1:$RMQ_MGMT"
	echo "RMQ_AMQP_PORT=$RMQ_AMQP"
}

# Start the node of DIR/rmq (rmq_env done) and wait until the management
# API answers the admin with password PW.
run_rabbitmq() {
	local d="$DIR/rmq" i
	setsid /usr/lib/rabbitmq/bin/rabbitmq-server >>"$d/out.log" 2>&1 </dev/null &
	for i in $(seq 1 240); do
		curl -fsS -o /dev/null -u "taskenv_admin:$1" "http://127.0.0.1:$RMQ_MGMT/api/overview" 2>/dev/null && break
		sleep 0.25
	done
	[ "$i" -lt 240 ] || { echo "servers.sh: rabbitmq did not answer in 60 s (see $d/out.log)" >&2; return 1; }
}

# Start the existing node again: same node name, ports, data (mnesia) and admin.
restart_rabbitmq() {
	rmq_env
	run_rabbitmq "$(sed -n 's/^default_pass = //p' "$DIR/rmq/rabbitmq.conf")"
}

stop_rabbitmq() {
	local d="$DIR/rmq" pid epmd
	[ -f "$d/ports" ] || return 0
	rmq_env
	if [ -f "$d/pid" ]; then
		pid=$(cat "$d/pid")
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
		rm -f "$d/pid"
	fi
	epmd=$(find /usr/lib/erlang -path '*/bin/epmd' -type f 2>/dev/null | head -n 1)
	if [ -n "$epmd" ]; then "$epmd" -port "$RMQ_EPMD" -kill >/dev/null 2>&1 || true; fi
}

# s3rver (npm, installed by .ci/install-deps.sh under /opt/taskenv-test) on
# 127.0.0.1, data in DIR/s3. It has one credential for everyone: S3RVER/S3RVER.
S3RVER=${S3RVER:-/opt/taskenv-test/node_modules/.bin/s3rver}
start_s3() {
	local d="$DIR/s3" port i
	mkdir -p "$d/data"
	port=$(cat "$d/port" 2>/dev/null || free_port)
	echo "$port" >"$d/port"
	setsid "$S3RVER" -d "$d/data" -a 127.0.0.1 -p "$port" -s >"$d/out.log" 2>&1 </dev/null &
	echo $! >"$d/pid"
	for i in $(seq 1 80); do
		curl -sS -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null && break
		sleep 0.25
	done
	[ "$i" -lt 80 ] || { echo "servers.sh: s3rver did not answer (see $d/out.log)" >&2; return 1; }
	echo "S3_ADMIN_URL=http://S3RVER:S3RVER@127.0.0.1:$port"
	echo "S3_PORT=$port"
}

stop_s3() {
	local pid
	[ -f "$DIR/s3/pid" ] || return 0
	pid=$(cat "$DIR/s3/pid")
	kill -TERM "$pid" 2>/dev/null || true
	for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null || true
}

# Restart the existing cluster on its port (tests of an unreachable server).
restart_postgres() {
	as_pg "$PGBIN/pg_ctl" -D "$DIR/pg/data" -l "$DIR/pg/log" -w -t 60 start >/dev/null
}

case $CMD in
start)
	mkdir -p "$DIR"
	what=${3:-postgres}
	for w in $what; do "start_$w"; done
	;;
stop)
	stop_postgres
	stop_rabbitmq
	stop_s3
	;;
pg-stop) stop_postgres ;;
s3-stop) stop_s3 ;;
s3-start) start_s3 >/dev/null ;;
pg-start) restart_postgres ;;
rmq-stop) stop_rabbitmq ;;
rmq-start) restart_rabbitmq ;;
*) echo "usage: servers.sh start|stop DIR" >&2; exit 2 ;;
esac
