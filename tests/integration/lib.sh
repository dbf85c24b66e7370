# Shared by the integration tests: a private engine, assertions, and checks
# that list the engine itself (never taskenv) for what was left behind.
# shellcheck shell=bash

TE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PASSED=0
FAILED=0
SKIPPED=0
FAILED_NAMES=()
SKIPPED_NAMES=()

log() { printf '%s\n' "$*" >&2; }

# api METHOD PATH: the Engine API on our private socket, JSON on stdout.
api() {
	curl -sS --unix-socket "$SOCK" -X "$1" "http://localhost$2"
}

# Objects of a kind (containers|networks|volumes) carrying LABEL (k or k=v),
# one name per line. Fails (rather than printing nothing) when the engine's
# answer is not the expected list, so a broken check never reads as "zero".
engine_names() {
	local kind=$1 label=$2 filter out
	filter=$(jq -rn --arg l "$label" '{label: [$l]} | @uri') || return 1
	case $kind in
	containers) out=$(api GET "/containers/json?all=1&filters=$filter") || return 1
		jq -er 'if type == "array" then .[].Names[0] | ltrimstr("/") else error("not a list") end' <<<"$out" ;;
	networks) out=$(api GET "/networks?filters=$filter") || return 1
		jq -er 'if type == "array" then .[].Name else error("not a list") end' <<<"$out" ;;
	volumes) out=$(api GET "/volumes?filters=$filter") || return 1
		jq -er 'if type == "object" then (.Volumes // [])[].Name else error("not a list") end' <<<"$out" ;;
	images) out=$(api GET "/images/json?filters=$filter") || return 1
		jq -er 'if type == "array" then .[] | ((.RepoTags // [])[0] // .Id) else error("not a list") end' <<<"$out" ;;
	esac
	# jq -e exits 4 when the list is empty: that is a valid answer.
	local rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 4 ]
}

# The number of engine objects of every kind labelled with TASK (or any
# task), or "error" when the engine could not be listed.
count_task_objects() {
	local label="io.taskenv.task${1:+=$1}" n=0 k names
	for k in containers networks volumes images; do
		names=$(engine_names "$k" "$label") || { echo error; return; }
		n=$((n + $(grep -c . <<<"$names")))
	done
	echo "$n"
}

fail() {
	log "    FAIL: $*"
	return 1
}

assert_eq() { [ "$1" = "$2" ] || fail "expected '$2', got '$1' ${3:-}"; }
assert_contains() { grep -qF -- "$2" <<<"$1" || fail "expected output to contain '$2'; got: $1"; }
assert_not_contains() { ! grep -qF -- "$2" <<<"$1" || fail "expected output not to contain '$2'; got: $1"; }

# skip REASON: end the current test as skipped (not passed), saying why.
# Only for a test that cannot run here by design, never to hide a failure;
# call it in the test function itself, not inside $(...).
skip() {
	log "    SKIP: $*"
	exit 77
}

# run_test NAME: runs the function test_NAME in a subshell with errexit and
# counts it: passed (0), skipped (skip, 77) or failed (anything else).
run_test() {
	local name=$1 start rc
	start=$(date +%s)
	log "--- $name"
	(set -eE; "test_$name")
	rc=$?
	if [ $rc -eq 0 ]; then
		PASSED=$((PASSED + 1))
		log "    ok ($(($(date +%s) - start)) s)"
	elif [ $rc -eq 77 ]; then
		SKIPPED=$((SKIPPED + 1))
		SKIPPED_NAMES+=("$name")
		log "    skipped ($(($(date +%s) - start)) s)"
	else
		FAILED=$((FAILED + 1))
		FAILED_NAMES+=("$name")
		log "    FAILED ($(($(date +%s) - start)) s)"
	fi
}

# te ARGS...: taskenv with our engine and ledger; output on stdout+stderr.
te() { "$TASKENV" "$@"; }

# Wait until CMD succeeds, at most SECONDS.
wait_for() {
	local secs=$1 i
	shift
	for ((i = 0; i < secs * 2; i++)); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 0.5
	done
	return 1
}

# The host port taskenv gave SERVICE's container PORT in TASK.
task_port() {
	local key
	key="TASKENV_PORT_$(tr 'a-z-' 'A-Z_' <<<"$2")_$3"
	te env -t "$1" | sed -n "s/^$key=//p"
}

# Make a private copy of an example so tests can delete it.
copy_example() {
	local d
	d=$(mktemp -d "$WORK/proj.XXXX")
	cp -a "$TE_ROOT/examples/$1/." "$d/"
	echo "$d"
}

# The engine's log of container $1 (stdout and stderr), frame bytes dropped.
container_log() {
	curl -sS --unix-socket "$SOCK" "http://localhost/containers/$1/logs?stdout=1&stderr=1" | tr -d '\000-\010'
}

# Run taskenv expecting exit CODE; the combined output goes to $OUT.
expect_exit() {
	local code=$1 rc=0
	shift
	OUT=$("$@" 2>&1) || rc=$?
	[ "$rc" = "$code" ] || fail "expected exit $code, got $rc from: $* -- output: $OUT"
}

# Nothing of TASK in the engine or the ledger.
assert_no_trace() {
	assert_eq "$(count_task_objects "$1")" "0" "(engine objects of $1)"
	assert_eq "$(te ps --json | jq -r --arg t "$1" '[.[] | select(.task == $t)] | length')" "0" "(ledger row of $1)"
}

# ---- the servers of the driver tests (t_drivers.sh, t_pgpool.sh) ----

# Start the servers once; export PG_ADMIN_URL etc. into the caller.
# RabbitMQ (~10-15 s to start) only when a test asks for it: drv_servers rabbitmq.
drv_servers() {
	local d="$WORK/servers"
	if [ "${1:-}" = rabbitmq ] && [ ! -f "$d/env.rmq" ]; then
		drv_servers
		"$TE_ROOT/scripts/servers.sh" start "$d" rabbitmq >"$d/env.rmq.tmp" || fail "could not start rabbitmq"
		mv "$d/env.rmq.tmp" "$d/env.rmq"
	fi
	if [ "${1:-}" = s3 ] && [ ! -f "$d/env.s3" ]; then
		drv_servers
		"$TE_ROOT/scripts/servers.sh" start "$d" s3 >"$d/env.s3.tmp" || fail "could not start s3rver"
		mv "$d/env.s3.tmp" "$d/env.s3"
	fi
	# shellcheck source=/dev/null
	if [ -f "$d/env.rmq" ]; then set -a; . "$d/env.rmq"; set +a; fi
	# shellcheck source=/dev/null
	if [ -f "$d/env.s3" ]; then set -a; . "$d/env.s3"; set +a; fi
	if [ ! -f "$d/env" ]; then
		local t0=$SECONDS
		# As root the cluster runs as user postgres, who must traverse $WORK.
		chmod 711 "$WORK"
		"$TE_ROOT/scripts/servers.sh" start "$d" postgres >"$d.env.tmp" || fail "could not start the test servers"
		mv "$d.env.tmp" "$d/env"
		log "    servers started in $((SECONDS - t0)) s"
	fi
	set -a
	# shellcheck source=/dev/null
	. "$d/env"
	set +a
}

# psql as the admin (over the private unix socket: trust), one value out.
pg_admin() { PGOPTIONS="-c client_min_messages=warning" psql -X -q -At -h "$PG_SOCKET_DIR" -p "$PG_PORT" -U taskenv_admin -d "${2:-postgres}" -c "$1"; }

# Roles, schemas and databases whose name starts with te_<task>_ (count):
# the task's '-' is '_' in Postgres names.
pg_traces() {
	local like="te\\_${1//[-_]/\\_}\\_%"
	pg_admin "select (select count(*) from pg_roles where rolname like '$like')
		+ (select count(*) from pg_namespace where nspname like '$like')
		+ (select count(*) from pg_database where datname like '$like')"
}

# A project with one resource DECL (flow mapping) and an app that gets DATABASE_URL.
drv_project() {
	local dir
	dir=$(mktemp -d "$WORK/proj.XXXX")
	cat >"$dir/compose.yaml" <<YAML
x-taskenv:
  resources:
    db: $1
services:
  app:
    image: taskenv-test/busybox:1
    command: ["sleep", "3600"]
    x-taskenv:
      env: {DATABASE_URL: db.url, DB_USER: db.user}
YAML
	echo "$dir"
}
