# Issue 4: task-scoped server resources (postgres driver) against a real
# PostgreSQL 15 started privately under $WORK/servers (once per run.sh
# invocation, on the first driver test; run.sh stops it by pid).
# shellcheck shell=bash
# The ${VAR} in single quotes are for taskenv to interpolate, not bash (SC2016);
# sed on one value reads more plainly here than parameter expansion (SC2001).
# shellcheck disable=SC2016,SC2001

# A project with resource KEY declared as DECL (flow mapping) and an app
# that only sleeps.
drv_plain_project() {
	local dir
	dir=$(mktemp -d "$WORK/proj.XXXX")
	printf 'x-taskenv:\n  resources:\n    %s: %s\nservices:\n  app: {image: taskenv-test/busybox:1, command: [sleep, "3600"]}\n' \
		"$1" "$2" >"$dir/compose.yaml"
	echo "$dir"
}

# kill_between_steps DIR TASK TRACES FAULT=WANT...: at each fault point
# FAULT (TASKENV_FAULT) `up` of DIR is killed (exit 137) with WANT objects
# on the server (TRACES TASK counts them; WANT "+": at least one); `down`
# then removes them all and forgets the task.
kill_between_steps() {
	local dir=$1 task=$2 traces=$3 fw f want rc
	shift 3
	for fw in "$@"; do
		f=${fw%=*} want=${fw##*=} rc=0
		(cd "$dir" && TASKENV_FAULT=$f te up -t "$task") >/dev/null 2>&1 || rc=$?
		assert_eq "$rc" "137" "(killed at $f)"
		if [ "$want" = + ]; then
			[ "$("$traces" "$task")" != 0 ] || fail "nothing was created before $f"
		else
			assert_eq "$("$traces" "$task")" "$want" "(objects on the server when killed at $f)"
		fi
		te down -t "$task" --timeout 1 >/dev/null
		assert_eq "$("$traces" "$task")" "0" "(after down, fault at $f)"
		assert_eq "$(te ps --json | jq --arg t "$task" '[.[] | select(.task == $t)] | length')" "0"
	done
}

# Schema isolation: two tasks at once; each reaches its own schema through
# `taskenv env`; A cannot read or write B's schema nor create in public;
# the container got DATABASE_URL; down leaves nothing on the server.
test_pg_schema_isolation() {
	drv_servers
	local dir ua ub sb out
	dir=$(drv_project '{driver: postgres, server: "${PG_ADMIN_URL}", isolation: schema}')
	(cd "$dir" && te up -t sch-a >"$WORK/sa.log" 2>&1) & local ja=$!
	(cd "$dir" && te up -t sch-b >"$WORK/sb.log" 2>&1) & local jb=$!
	wait $ja || { cat "$WORK/sa.log" >&2; fail "up sch-a"; }
	wait $jb || { cat "$WORK/sb.log" >&2; fail "up sch-b"; }
	ua=$(te env -t sch-a | sed -n 's/^TASKENV_DB_URL=//p')
	ub=$(te env -t sch-b | sed -n 's/^TASKENV_DB_URL=//p')
	sb=$(te env -t sch-b | sed -n 's/^TASKENV_DB_SCHEMA=//p')
	assert_contains "$ua" "postgresql://te_sch_a_db_"
	assert_contains "$ua" "@127.0.0.1:$PG_PORT/postgres"
	psql -X -q "$ua" -c 'create table mine(x int); insert into mine values (1)'
	psql -X -q "$ub" -c 'create table mine(x int); insert into mine values (2)'
	assert_eq "$(psql -X -At "$ua" -c 'select x from mine')" "1"
	assert_eq "$(psql -X -At "$ub" -c 'select x from mine')" "2"
	! psql -X -q "$ua" -c "select * from $sb.mine" 2>"$WORK/e1" || fail "A read B's schema"
	assert_contains "$(cat "$WORK/e1")" "permission denied"
	! psql -X -q "$ua" -c "insert into $sb.mine values (9)" 2>/dev/null || fail "A wrote B's schema"
	! psql -X -q "$ua" -c 'create table public.leak(x int)' 2>"$WORK/e2" || fail "A created in public"
	assert_contains "$(cat "$WORK/e2")" "permission denied"
	# injected into the container, never printed by ps
	out=$(api GET /containers/sch-a-app-1/json | jq -r '.Config.Env[]')
	assert_contains "$out" "DATABASE_URL=$ua"
	assert_contains "$out" "DB_USER=te_sch_a_db_"
	out=$(te ps -t sch-a; te ps -t sch-a --json)
	assert_contains "$out" "postgres-schema"
	assert_not_contains "$out" "$(sed 's/.*:\(.*\)@.*/\1/' <<<"$ua")"
	te down -t sch-a --timeout 1
	te down -t sch-b --timeout 1
	assert_eq "$(pg_traces sch-a)$(pg_traces sch-b)" "00"
	assert_eq "$(count_task_objects sch-a)" "0"
}

# The task's password never reaches the server in clear: CREATE ROLE is sent
# a SCRAM verifier (PQencryptPasswordConn), so a server that logs DDL
# (log_statement = ddl) logs no password. The role still logs in with it.
test_pg_password_not_logged() {
	drv_servers
	local dir url pw user log="$WORK/servers/pg/log"
	psql -X -q "$PG_ADMIN_URL" -c "alter system set log_statement = 'ddl'" -c "select pg_reload_conf()" >/dev/null
	dir=$(drv_project '{driver: postgres, server: "${PG_ADMIN_URL}", isolation: schema}')
	(cd "$dir" && te up -t pwl >"$WORK/pwl.log" 2>&1) || { cat "$WORK/pwl.log" >&2; fail "up pwl"; }
	psql -X -q "$PG_ADMIN_URL" -c "alter system reset log_statement" -c "select pg_reload_conf()" >/dev/null
	url=$(te env -t pwl | sed -n 's/^TASKENV_DB_URL=//p')
	pw=$(te env -t pwl | sed -n 's/^TASKENV_DB_PASSWORD=//p')
	[ ${#pw} -ge 16 ] || fail "no task password in env: '$pw'"
	user=$(te env -t pwl | sed -n 's/^TASKENV_DB_USER=//p')
	assert_contains "$user" "te_pwl_db_"
	assert_eq "$(psql -X -At "$url" -c 'select current_user')" "$user"
	# positive control: the server did log the role's DDL, with a verifier
	assert_contains "$(cat "$log")" "ROLE \"$user\" WITH LOGIN"
	assert_contains "$(cat "$log")" "PASSWORD 'SCRAM-SHA-256\$"
	assert_not_contains "$(cat "$log")" "$pw"
	te down -t pwl --timeout 1 >/dev/null
	assert_eq "$(pg_traces pwl)" "0"
}

# Database isolation: A's role cannot connect to B's database.
test_pg_database_isolation() {
	drv_servers
	local dir ua da db
	dir=$(drv_project '{driver: postgres, server: "${PG_ADMIN_URL}", isolation: database}')
	(cd "$dir" && te up -t dbi-a && te up -t dbi-b) >/dev/null 2>&1 || fail "up"
	ua=$(te env -t dbi-a | sed -n 's/^TASKENV_DB_URL=//p')
	da=$(te env -t dbi-a | sed -n 's/^TASKENV_DB_DATABASE=//p')
	db=$(te env -t dbi-b | sed -n 's/^TASKENV_DB_DATABASE=//p')
	assert_contains "$ua" "/te_dbi_a_db_"
	psql -X -q "$ua" -c 'create table t(x int)'
	# A's credentials against B's database
	! psql -X -q "$(sed "s#/$da\$#/$db#" <<<"$ua")" -c 'select 1' 2>"$WORK/e3" ||
		fail "A connected to B's database"
	assert_contains "$(cat "$WORK/e3")" "permission denied"
	te down -t dbi-a --timeout 1
	te down -t dbi-b --timeout 1
	assert_eq "$(pg_traces dbi-a)$(pg_traces dbi-b)" "00"
}

# 16 concurrent ups clone one template, granted from the command line:
# all succeed (no SQLSTATE 55006), each clone has the template's data,
# readable by the task's own role.
test_pg_template_16_concurrent() {
	drv_servers
	local dir i pids=() u bad=0
	pg_admin "drop database if exists app_tpl" >/dev/null
	pg_admin "create database app_tpl" >/dev/null
	pg_admin "create table seed(id serial primary key, v text); insert into seed(v) values ('tpl')" app_tpl
	dir=$(drv_project '{driver: postgres, server: "${PG_ADMIN_URL}", isolation: database, template: app_tpl}')
	for i in $(seq 1 16); do
		(cd "$dir" && te up -t "tpl-$i" --allow template:app_tpl >"$WORK/tpl-$i.log" 2>&1) &
		pids+=($!)
	done
	for i in $(seq 1 16); do
		wait "${pids[$((i - 1))]}" || { bad=$((bad + 1)); cat "$WORK/tpl-$i.log" >&2; }
	done
	assert_eq "$bad" "0" "(failed ups)"
	! grep -l 55006 "$WORK"/tpl-*.log || fail "55006 seen"
	for i in $(seq 1 16); do
		u=$(te env -t "tpl-$i" | sed -n 's/^TASKENV_DB_URL=//p')
		assert_eq "$(psql -X -q -At "$u" -c "insert into seed(v) values ('mine'); select string_agg(v, ',' order by id) from seed")" "tpl,mine"
	done
	for i in $(seq 1 16); do te down -t "tpl-$i" --timeout 1 >/dev/null 2>&1 & done
	wait
	for i in $(seq 1 16); do assert_eq "$(pg_traces "tpl-$i")" "0" "(tpl-$i)"; done
	assert_eq "$(pg_admin "select count(*) from seed" app_tpl)" "1" "(template changed)"
	pg_admin "drop database app_tpl" >/dev/null
}

# Killed between driver steps: down still removes everything.
test_pg_fault_between_steps() {
	drv_servers
	local dir
	dir=$(drv_project '{driver: postgres, server: "${PG_ADMIN_URL}", isolation: database}')
	kill_between_steps "$dir" fault pg_traces 'after-create:postgres-role:te_fault_db_*=+' \
		'before-create:postgres-database:te_fault_db_*=+' 'after-create:postgres-database:te_fault_db_*=+'
}

# The server is down during the first `down`: the objects stay pending
# and the task stays; the second `down`, with the server back, removes them.
test_pg_unreachable_during_down() {
	drv_servers
	local dir rc=0 out
	dir=$(drv_project '{driver: postgres, server: "${PG_ADMIN_URL}"}')
	(cd "$dir" && te up -t unreach) >/dev/null 2>&1 || fail "up"
	"$TE_ROOT/scripts/servers.sh" pg-stop "$WORK/servers"
	out=$(te down -t unreach --timeout 1 2>&1) || rc=$?
	"$TE_ROOT/scripts/servers.sh" pg-start "$WORK/servers"
	assert_eq "$rc" "1"
	assert_contains "$out" "remain"
	assert_contains "$(te ps -t unreach --json | jq -r '.resources[].ledger_state' | sort -u | tr '\n' ' ')" "pending"
	[ "$(pg_traces unreach)" = 2 ] || fail "role and schema should still exist"
	te down -t unreach --timeout 1 >/dev/null
	assert_eq "$(pg_traces unreach)" "0"
	assert_eq "$(te ps --json | jq '[.[] | select(.task == "unreach")] | length')" "0"
}

# Bad input: a clear error naming the resource (and the server), no trace.
test_pg_bad_input() {
	drv_servers
	local dir port
	dir=$(drv_project '{driver: mysql, server: "${PG_ADMIN_URL}"}')
	expect_exit 2 te up -t bad-drv -f "$dir/compose.yaml"
	assert_contains "$OUT" "compose.yaml:3:5: x-taskenv.resources.db: unknown driver 'mysql'"
	assert_no_trace bad-drv

	dir=$(drv_project '{driver: postgres, server: "${NO_SUCH_ADMIN_URL}"}')
	expect_exit 2 te up -t bad-var -f "$dir/compose.yaml"
	assert_contains "$OUT" "x-taskenv.resources.db: server is empty"
	assert_no_trace bad-var

	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	dir=$(drv_project "{driver: postgres, server: \"postgresql://x:y@127.0.0.1:$port/postgres\"}")
	expect_exit 1 te up -t bad-srv -f "$dir/compose.yaml"
	assert_contains "$OUT" "resource 'db' (driver postgres): postgres server 127.0.0.1:$port:"
	assert_not_contains "$OUT" "x:y"
	assert_no_trace bad-srv

	dir=$(drv_project "{driver: postgres, server: \"postgresql://taskenv_admin:wrong@127.0.0.1:$PG_PORT/postgres\"}")
	expect_exit 1 te up -t bad-pw -f "$dir/compose.yaml"
	assert_contains "$OUT" "resource 'db' (driver postgres): postgres server 127.0.0.1:$PG_PORT: "
	assert_contains "$OUT" "password authentication failed"
	assert_not_contains "$OUT" "wrong"
	assert_no_trace bad-pw

	dir=$(drv_project '{driver: postgres, server: "${PG_ADMIN_URL}", isolation: database, template: no_such_tpl}')
	expect_exit 1 te up -t bad-tpl -f "$dir/compose.yaml" --allow template:no_such_tpl
	assert_contains "$OUT" "resource 'db' (driver postgres): postgres server 127.0.0.1:$PG_PORT: template database 'no_such_tpl' does not exist"
	assert_no_trace bad-tpl
	assert_eq "$(pg_traces bad-tpl)$(pg_traces bad-pw)" "00"
}

# RabbitMQ management API as the admin: rmq_admin PATH -> JSON.
rmq_admin() { curl -fsS "$RMQ_ADMIN_URL$1"; }

# vhosts + users named te_<task>_* (count).
rmq_traces() {
	local p="te_$1_"
	echo $(($(rmq_admin /api/vhosts | jq --arg p "$p" '[.[] | select(.name | startswith($p))] | length') +
		$(rmq_admin /api/users | jq --arg p "$p" '[.[] | select(.name | startswith($p))] | length')))
}

# Two tasks each get a vhost and a user; A's user cannot open B's vhost;
# the app gets JOBS_URL; down leaves no vhost or user; a kill between the
# user and the vhost step is recovered by down.
test_rmq_vhost_isolation() {
	drv_servers rabbitmq
	local dir ua ub out rc
	dir=$(mktemp -d "$WORK/proj.XXXX")
	cat >"$dir/compose.yaml" <<'YAML'
x-taskenv:
  resources:
    jobs: {driver: rabbitmq, server: "${RMQ_ADMIN_URL}"}
services:
  app:
    image: taskenv-test/busybox:1
    command: ["sleep", "3600"]
    x-taskenv: {env: {JOBS_URL: jobs.url}}
YAML
	(cd "$dir" && te up -t rq-a && te up -t rq-b) >"$WORK/rq.log" 2>&1 || { cat "$WORK/rq.log" >&2; fail "up"; }
	ua=$(te env -t rq-a | sed -n 's/^TASKENV_JOBS_URL=//p')
	ub=$(te env -t rq-b | sed -n 's/^TASKENV_JOBS_URL=//p')
	assert_contains "$ua" "amqp://te_rq-a_jobs:"
	assert_contains "$ua" "@127.0.0.1:$RMQ_AMQP_PORT/te_rq-a_jobs"
	amqp-declare-queue --url="$ua" -q work >/dev/null || fail "A cannot use its own vhost"
	amqp-declare-queue --url="$ub" -q work >/dev/null || fail "B cannot use its own vhost"
	! amqp-declare-queue --url="${ua%/*}/te_rq-b_jobs" -q work >/dev/null 2>&1 || fail "A opened B's vhost"
	assert_eq "$(rmq_admin /api/users/te_rq-a_jobs | jq -r .tags | tr -d '[]"')" ""
	out=$(api GET /containers/rq-a-app-1/json | jq -r '.Config.Env[]')
	assert_contains "$out" "JOBS_URL=$ua"
	assert_not_contains "$(te ps -t rq-a --json)" "$(sed 's/.*:\(.*\)@.*/\1/' <<<"$ua")"
	te down -t rq-a --timeout 1 >/dev/null
	te down -t rq-b --timeout 1 >/dev/null
	assert_eq "$(rmq_traces rq-a)$(rmq_traces rq-b)" "00"
	rc=0
	(cd "$dir" && TASKENV_FAULT=after-create:rabbitmq-user:te_rq-f_jobs te up -t rq-f) >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" "137"
	assert_eq "$(rmq_traces rq-f)" "1"
	te down -t rq-f --timeout 1 >/dev/null
	assert_eq "$(rmq_traces rq-f)" "0"
}

# Admin credentials rejected: a clear error naming the resource and server.
test_rmq_bad_admin() {
	drv_servers rabbitmq
	local dir
	dir=$(mktemp -d "$WORK/proj.XXXX")
	printf 'x-taskenv:\n  resources:\n    jobs: {driver: rabbitmq, server: "%s"}\nservices:\n  app: {image: taskenv-test/busybox:1}\n' \
		"$(sed 's#//taskenv_admin:[^@]*@#//taskenv_admin:nope@#' <<<"$RMQ_ADMIN_URL")" >"$dir/compose.yaml"
	expect_exit 1 te up -t rq-bad -f "$dir/compose.yaml"
	assert_contains "$OUT" "resource 'jobs' (driver rabbitmq): rabbitmq server 127.0.0.1:"
	assert_contains "$OUT" "admin credentials rejected"
	assert_no_trace rq-bad
}

# S3 as the emulator's one identity: s3c ARGS... (curl, SigV4, payload hash).
s3c() {
	curl -sS --aws-sigv4 "aws:amz:us-east-1:s3" -u S3RVER:S3RVER -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"
}

# Buckets whose name starts with te-<task>- (count).
s3_traces() {
	s3c "http://127.0.0.1:$S3_PORT/" | grep -o "<Name>te-$1-[^<]*</Name>" | grep -c . || true
}

# Each task gets its own buckets (names never equal); objects written
# through `taskenv env` values; down empties and deletes them; a kill
# between the two buckets is recovered by down.
test_s3_buckets() {
	drv_servers s3
	local dir ea eb a x rc out
	dir=$(mktemp -d "$WORK/proj.XXXX")
	cat >"$dir/compose.yaml" <<'YAML'
x-taskenv:
  resources:
    uploads: {driver: s3, server: "${S3_ADMIN_URL}", buckets: [avatars, exports]}
services:
  app:
    image: taskenv-test/busybox:1
    command: ["sleep", "3600"]
    x-taskenv: {env: {S3_ENDPOINT: uploads.endpoint, AVATARS: uploads.bucket_avatars}}
YAML
	(cd "$dir" && te up -t s3-a && te up -t s3-b) >"$WORK/s3.log" 2>&1 || { cat "$WORK/s3.log" >&2; fail "up"; }
	ea=$(te env -t s3-a) eb=$(te env -t s3-b)
	assert_contains "$ea" "TASKENV_UPLOADS_ENDPOINT=http://127.0.0.1:$S3_PORT"
	assert_contains "$ea" "TASKENV_UPLOADS_CREDENTIALS=shared"
	a=$(sed -n 's/^TASKENV_UPLOADS_BUCKET_AVATARS=//p' <<<"$ea")
	x=$(sed -n 's/^TASKENV_UPLOADS_BUCKET_EXPORTS=//p' <<<"$ea")
	assert_contains "$a" "te-s3-a-avatars-"
	[ "$a" != "$(sed -n 's/^TASKENV_UPLOADS_BUCKET_AVATARS=//p' <<<"$eb")" ] || fail "A and B share a bucket name"
	[ "$a" != "$x" ] || fail "two buckets of A share a name"
	echo hello >"$WORK/obj"
	for k in one dir/two three; do
		assert_eq "$(s3c -o /dev/null -w '%{http_code}' -T "$WORK/obj" "http://127.0.0.1:$S3_PORT/$a/$k")" "200"
	done
	assert_eq "$(s3c "http://127.0.0.1:$S3_PORT/$a/dir/two")" "hello"
	out=$(api GET /containers/s3-a-app-1/json | jq -r '.Config.Env[]')
	assert_contains "$out" "AVATARS=$a"
	assert_eq "$(s3_traces s3-a)" "2"
	te down -t s3-a --timeout 1 >/dev/null
	te down -t s3-b --timeout 1 >/dev/null
	assert_eq "$(s3_traces s3-a)$(s3_traces s3-b)" "00"
	rc=0
	(cd "$dir" && TASKENV_FAULT='after-create:s3-bucket:te-s3-f-avatars-*' te up -t s3-f) >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" "137"
	assert_eq "$(s3_traces s3-f)" "1"
	te down -t s3-f --timeout 1 >/dev/null
	assert_eq "$(s3_traces s3-f)" "0"
}

# A postgres resource with no server: given: the shared Postgres container
# (one per ledger and engine, owned by no task); Postgres only, so that no
# other shared container is started (t_reach.sh runs examples/task-services
# with all three). Two tasks provision at once; each task's app
# container reaches its own schema as "db:5432" through the injected
# DATABASE_URL, and the host reaches it through `taskenv env`; down
# detaches the shared container from the task's network and drops the
# task's objects; the shared container stays (removed here by the test).
test_shared_postgres_two_tasks() {
	local dir ua ub name pw port out
	dir=$(mktemp -d "$WORK/proj.XXXX")
	cat >"$dir/compose.yaml" <<'YAML'
x-taskenv:
  resources:
    db: {driver: postgres, isolation: schema}
services:
  app:
    image: taskenv-example/postgres:15
    entrypoint: ["sleep", "infinity"]
    x-taskenv:
      env: {DATABASE_URL: db.url}
YAML
	(cd "$dir" && te up -t shr-a >"$WORK/shr-a.log" 2>&1) & local ja=$!
	(cd "$dir" && te up -t shr-b >"$WORK/shr-b.log" 2>&1) & local jb=$!
	wait $ja || { cat "$WORK/shr-a.log" >&2; fail "up shr-a"; }
	wait $jb || { cat "$WORK/shr-b.log" >&2; fail "up shr-b"; }
	name=$(engine_names containers io.taskenv.shared=postgres)
	assert_eq "$(wc -l <<<"$name")" "1" "(one shared container for both tasks)"
	ua=$(te env -t shr-a | sed -n 's/^TASKENV_DB_URL=//p')
	ub=$(te env -t shr-b | sed -n 's/^TASKENV_DB_URL=//p')
	assert_contains "$ua" "@127.0.0.1:"
	psql -X -q "$ua" -c "create table mine(v text); insert into mine values ('a')"
	psql -X -q "$ub" -c "create table mine(v text); insert into mine values ('b')"
	out=$(docker -H "unix://$SOCK" exec shr-a-app-1 sh -c 'echo "$DATABASE_URL"; psql -X -At "$DATABASE_URL" -c "select current_user || '"'"' '"'"' || (select v from mine)"')
	assert_contains "$out" "@db:5432/postgres"
	assert_contains "$out" "$(te env -t shr-a | sed -n 's/^TASKENV_DB_USER=//p') a"
	out=$(docker -H "unix://$SOCK" exec shr-b-app-1 sh -c 'psql -X -At "$DATABASE_URL" -c "select current_user || '"'"' '"'"' || (select v from mine)"')
	assert_eq "$out" "$(te env -t shr-b | sed -n 's/^TASKENV_DB_USER=//p') b"
	# A's container cannot read B's schema through the shared server.
	! docker -H "unix://$SOCK" exec -e "S=$(te env -t shr-b | sed -n 's/^TASKENV_DB_SCHEMA=//p')" shr-a-app-1 \
		sh -c 'test -n "$S" && psql -X -At "$DATABASE_URL" -c "select * from $S.mine"' 2>/dev/null ||
		fail "A's container read B's schema"
	te down -t shr-a --timeout 1 >/dev/null
	te down -t shr-b --timeout 1 >/dev/null
	assert_eq "$(count_task_objects shr-a)$(count_task_objects shr-b)" "00"
	pw=$(jq -r '."postgres-admin"' "$TASKENV_STATE.secrets/_shared.json")
	port=$(api GET "/containers/$name/json" | jq -r '.NetworkSettings.Ports["5432/tcp"][0].HostPort')
	assert_eq "$(PGPASSWORD=$pw psql -X -At -h 127.0.0.1 -p "$port" -U postgres -d postgres -c \
		"select count(*) from pg_roles where rolname like 'te\\_shr\\_%'")" "0"
	assert_eq "$(api GET "/containers/$name/json" | jq -r '.NetworkSettings.Networks | keys | join(",")')" \
		"0--taskenv-shared-${name#taskenv-shared-postgres-}"
	api DELETE "/containers/$name?force=1&v=1" >/dev/null
	api DELETE "/networks/0--taskenv-shared-${name#taskenv-shared-postgres-}" >/dev/null
}

# s3rver is down during the first `down`: the buckets stay pending, the
# second `down` (server back, same data) empties and removes them.
test_s3_unreachable_during_down() {
	drv_servers s3
	local dir rc=0 out a
	dir=$(drv_plain_project up '{driver: s3, server: "${S3_ADMIN_URL}", buckets: [files]}')
	(cd "$dir" && te up -t s3u) >/dev/null 2>&1 || fail "up"
	a=$(te env -t s3u | sed -n 's/^TASKENV_UP_BUCKET_FILES=//p')
	echo x >"$WORK/obj2"
	assert_eq "$(s3c -o /dev/null -w '%{http_code}' -T "$WORK/obj2" "http://127.0.0.1:$S3_PORT/$a/k")" "200"
	"$TE_ROOT/scripts/servers.sh" s3-stop "$WORK/servers"
	out=$(te down -t s3u --timeout 1 2>&1) || rc=$?
	"$TE_ROOT/scripts/servers.sh" s3-start "$WORK/servers"
	assert_eq "$rc" "1"
	assert_contains "$out" "s3-bucket $a"
	assert_eq "$(te ps -t s3u --json | jq -r '[.resources[] | select(.kind == "s3-bucket")][0].ledger_state')" "pending"
	assert_eq "$(s3_traces s3u)" "1"
	te down -t s3u --timeout 1 >/dev/null
	assert_eq "$(s3_traces s3u)" "0"
	assert_eq "$(te ps --json | jq '[.[] | select(.task == "s3u")] | length')" "0"
}

# No invalid accesses or definite leaks in the driver paths of up, env,
# ps and down (all three drivers in one task).
test_drivers_valgrind() {
	# The driver code does not depend on the engine, and valgrind is slow
	# (~60 s): once per suite, on dockerd.
	[ "$ENGINE_KIND" = docker ] || skip "driver paths are checked under valgrind on the docker run"
	drv_servers rabbitmq
	drv_servers s3
	local dir verb log
	command -v valgrind >/dev/null || fail "valgrind is not installed"
	dir=$(mktemp -d "$WORK/proj.XXXX")
	cat >"$dir/compose.yaml" <<'YAML'
x-taskenv:
  resources:
    db: {driver: postgres, server: "${PG_ADMIN_URL}"}
    jobs: {driver: rabbitmq, server: "${RMQ_ADMIN_URL}"}
    uploads: {driver: s3, server: "${S3_ADMIN_URL}", buckets: [avatars]}
services:
  app:
    image: taskenv-test/busybox:1
    command: ["sleep", "3600"]
    x-taskenv: {env: {DATABASE_URL: db.url, JOBS_URL: jobs.url, BUCKET: uploads.bucket_avatars}}
YAML
	log=$WORK/valgrind-drv.log
	for verb in "up -t vgd -f $dir/compose.yaml" "env -t vgd" "ps -t vgd" "down -t vgd --timeout 1"; do
		# shellcheck disable=SC2086
		valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 -q \
			--log-file="$log" "$TASKENV" $verb >/dev/null 2>&1 || {
			cat "$log" >&2
			fail "valgrind reports errors or definite leaks for 'taskenv $verb'"
		}
	done
	assert_eq "$(pg_traces vgd)$(rmq_traces vgd)$(s3_traces vgd)" "000"
}

# Issue 5, acceptance 2: `verify` probes each task's Postgres credentials
# against every other task's schema; a grant made by hand across tasks fails it.
test_verify_catches_cross_task_grant() {
	drv_servers
	local dir out na nb rc=0
	dir=$(drv_project '{driver: postgres, server: "${PG_ADMIN_URL}", isolation: schema}')
	(cd "$dir" && te up -t vx-a && te up -t vx-b) >/dev/null 2>&1 || fail "up"
	out=$(te verify -t vx-a 2>&1) || fail "verify fails before any grant: $out"
	assert_contains "$out" "PASS"
	assert_contains "$out" "rejected by 1 schema/database object(s) of other tasks"
	# The contract names the task's credentials by scope (never the password) and its services.
	out=$(te contract -t vx-a --format json)
	na=$(te env -t vx-a | sed -n 's/^TASKENV_DB_SCHEMA=//p')
	nb=$(te env -t vx-b | sed -n 's/^TASKENV_DB_SCHEMA=//p')
	assert_contains "$na" "te_vx_a_db_"
	assert_eq "$(jq -r '.identity.credentials[0] | "\(.service) \(.username) \(.scope | join(","))"' <<<"$out")" \
		"db $na $na"
	assert_eq "$(jq -r '.environment.services[] | "\(.resource) \(.kind) \(.name)"' <<<"$out")" \
		"db postgres-schema $na"
	assert_not_contains "$out" "$(te env -t vx-a | sed -n 's/^TASKENV_DB_PASSWORD=//p')"
	psql -X -q "$PG_ADMIN_URL" -c "GRANT USAGE ON SCHEMA $nb TO $na"
	out=$(te verify -t vx-a 2>&1) || rc=$?
	assert_eq "$rc" "1" "(verify after a cross-task grant: $out)"
	assert_contains "$out" "task 'vx-a' may use postgres-schema '$nb' of task 'vx-b'"
	te down -t vx-a --timeout 1 >/dev/null
	te down -t vx-b --timeout 1 >/dev/null
	assert_eq "$(pg_traces vx-a)$(pg_traces vx-b)" "00"
}

# rabbitmq-server is down during the first `down`: the vhost and the user
# stay pending (named in the error, with the server); the second `down`
# (same node and data back) removes both, checked on the management API.
test_rmq_unreachable_during_down() {
	drv_servers rabbitmq
	local dir rc=0 out port
	dir=$(drv_plain_project jobs '{driver: rabbitmq, server: "${RMQ_ADMIN_URL}"}')
	(cd "$dir" && te up -t rqu) >/dev/null 2>&1 || fail "up"
	assert_eq "$(rmq_traces rqu)" "2"
	port=$(sed 's#.*@127.0.0.1:\([0-9]*\).*#\1#' <<<"$RMQ_ADMIN_URL")
	"$TE_ROOT/scripts/servers.sh" rmq-stop "$WORK/servers"
	out=$(te down -t rqu --timeout 1 2>&1) || rc=$?
	"$TE_ROOT/scripts/servers.sh" rmq-start "$WORK/servers" || fail "rabbitmq did not come back"
	assert_eq "$rc" "1" "(first down: $out)"
	assert_contains "$out" "rabbitmq-vhost te_rqu_jobs"
	assert_contains "$out" "rabbitmq-user te_rqu_jobs"
	assert_contains "$out" "rabbitmq server 127.0.0.1:$port"
	assert_eq "$(te ps -t rqu --json | jq -r '[.resources[] | select(.kind | startswith("rabbitmq-")) | .ledger_state] | join(",")')" \
		"pending,pending"
	assert_eq "$(rmq_traces rqu)" "2"
	te down -t rqu --timeout 1 >/dev/null
	assert_eq "$(rmq_admin /api/vhosts | jq '[.[] | select(.name == "te_rqu_jobs")] | length')" "0"
	assert_eq "$(rmq_admin /api/users | jq '[.[] | select(.name == "te_rqu_jobs")] | length')" "0"
	assert_eq "$(te ps --json | jq '[.[] | select(.task == "rqu")] | length')" "0"
}

# Killed at each driver step of a rabbitmq resource (the kill after the
# user is in test_rmq_vhost_isolation): the expected objects exist, down
# removes them all and forgets the task.
test_rmq_fault_between_steps() {
	drv_servers rabbitmq
	local dir
	dir=$(drv_plain_project jobs '{driver: rabbitmq, server: "${RMQ_ADMIN_URL}"}')
	kill_between_steps "$dir" rqf rmq_traces before-create:rabbitmq-user:te_rqf_jobs=0 \
		before-create:rabbitmq-vhost:te_rqf_jobs=1 after-create:rabbitmq-vhost:te_rqf_jobs=2
}

# Killed at each driver step of an s3 resource with two buckets (the kill
# after the first bucket is in test_s3_buckets): down removes what exists.
test_s3_fault_between_steps() {
	drv_servers s3
	local dir
	dir=$(drv_plain_project up '{driver: s3, server: "${S3_ADMIN_URL}", buckets: [a, b]}')
	kill_between_steps "$dir" s3f s3_traces 'before-create:s3-bucket:te-s3f-a-*=0' \
		'before-create:s3-bucket:te-s3f-b-*=1' 'after-create:s3-bucket:te-s3f-b-*=2'
}

# The management API answers 503 (a proxy in front of a restarting node)
# during the first `down`: that is a failure, not "not ours" - the vhost
# and user stay pending and on the server; the second `down` removes them.
# The task's stored admin URL is pointed at a loopback stub for the first down.
test_rmq_http_error_during_down() {
	drv_servers rabbitmq
	local dir rc=0 out sec good pid port
	dir=$(drv_plain_project jobs '{driver: rabbitmq, server: "${RMQ_ADMIN_URL}"}')
	(cd "$dir" && te up -t rqh) >/dev/null 2>&1 || fail "up"
	python3 -c '
import http.server
class H(http.server.BaseHTTPRequestHandler):
    def answer(self):
        self.send_response(503); self.send_header("Content-Length", "0"); self.end_headers()
    do_GET = do_PUT = do_DELETE = do_POST = do_HEAD = answer
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()' >"$WORK/stub.port" &
	pid=$!
	for _ in $(seq 1 50); do [ -s "$WORK/stub.port" ] && break; sleep 0.1; done
	port=$(cat "$WORK/stub.port")
	sec="$TASKENV_STATE.secrets/rqh.json"
	good=$(jq -r '."server:jobs"' "$sec")
	jq --arg u "$(sed "s#@127.0.0.1:[0-9]*#@127.0.0.1:$port#" <<<"$good")" '."server:jobs" = $u' "$sec" >"$sec.tmp"
	chmod 600 "$sec.tmp" && mv "$sec.tmp" "$sec"
	out=$(te down -t rqh --timeout 1 2>&1) || rc=$?
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	assert_eq "$rc" "1" "(first down: $out)"
	assert_contains "$out" "rabbitmq server 127.0.0.1:$port"
	assert_contains "$out" "HTTP 503"
	assert_not_contains "$out" "not ours"
	assert_eq "$(rmq_traces rqh)" "2"
	jq --arg u "$good" '."server:jobs" = $u' "$sec" >"$sec.tmp"
	chmod 600 "$sec.tmp" && mv "$sec.tmp" "$sec"
	te down -t rqh --timeout 1 >/dev/null
	assert_eq "$(rmq_traces rqh)" "0"
	assert_eq "$(te ps --json | jq '[.[] | select(.task == "rqh")] | length')" "0"
}

# A Postgres template: is the trusted side's to grant (issue 13): a file
# naming one that --allow / the user config did not grant is refused at up
# with its file:line and the --allow that grants it, x-taskenv.allow in the
# file does not grant it, a system database and another task's database
# are refused even when granted; nothing is created on the engine or the
# server. The grant from the user config file works like --allow.
test_pg_template_grant() {
	drv_servers
	local dir out other
	pg_admin "drop database if exists app_tpl" >/dev/null
	pg_admin "create database app_tpl" >/dev/null
	dir=$(drv_project '{driver: postgres, server: "${PG_ADMIN_URL}", isolation: database, template: app_tpl}')
	expect_exit 1 te up -t tg-a -f "$dir/compose.yaml"
	assert_contains "$OUT" "compose.yaml:"
	assert_contains "$OUT" "template: 'app_tpl' is not granted (needs --allow template:app_tpl"
	assert_no_trace tg-a
	# The file cannot grant it to itself.
	sed -i 's/^x-taskenv:$/x-taskenv:\n  allow: [template:app_tpl]/' "$dir/compose.yaml"
	expect_exit 1 te up -t tg-a -f "$dir/compose.yaml"
	assert_contains "$OUT" "needs --allow template:app_tpl"
	assert_no_trace tg-a
	# Granted from the user config: comes up.
	printf 'allow: [template:app_tpl]\n' >"$dir/config.yaml"
	TASKENV_CONFIG="$dir/config.yaml" te up -t tg-a -f "$dir/compose.yaml" >/dev/null 2>&1 || fail "up with the grant in the config"
	# Another task's database, even granted: refused.
	other=$(te env -t tg-a | sed -n 's/^TASKENV_DB_DATABASE=//p')
	[ -n "$other" ] || fail "tg-a has no database"
	dir=$(drv_project "{driver: postgres, server: \"\${PG_ADMIN_URL}\", isolation: database, template: $other}")
	expect_exit 1 te up -t tg-b -f "$dir/compose.yaml" --allow "template:$other"
	assert_contains "$OUT" "template: '$other' is a task's database in this ledger"
	assert_no_trace tg-b
	# A system database, even granted: refused.
	dir=$(drv_project '{driver: postgres, server: "${PG_ADMIN_URL}", isolation: database, template: template1}')
	expect_exit 1 te up -t tg-b -f "$dir/compose.yaml" --allow template:template1
	assert_contains "$OUT" "template: 'template1' is a system database"
	assert_no_trace tg-b
	assert_eq "$(pg_traces tg-b)" "0"
	te down -t tg-a --timeout 1 >/dev/null 2>&1
	assert_eq "$(pg_traces tg-a)" "0"
	pg_admin "drop database app_tpl" >/dev/null
}
