# Issue 15: Postgres templates built from the project's own migrations (a
# one-off container of a service), a warm pool of spare clones handed out
# by renames, and their crash cases; on the shared Postgres container.
# Issue 18 item 5: Postgres names that need no quoting, `reset`, and
# `verify` of the server objects (on the servers.sh cluster).
# shellcheck shell=bash
# The $$ and ${VAR} in single-quoted YAML are for taskenv (SC2016).
# shellcheck disable=SC2016

# A project whose migrations (migrations/*.sql, run in order by psql in a
# one-off container of `app`) make two tables and a row. MIGRATE overrides
# the command (a shell line).
pgp_project() {
	local dir cmd=${1:-'set -e; for f in /migrations/*.sql; do psql -X -q -v ON_ERROR_STOP=1 \"$$DATABASE_URL\" -f \"$$f\"; done'}
	dir=$(mktemp -d "$WORK/proj.XXXX")
	mkdir "$dir/migrations"
	cat >"$dir/migrations/001.sql" <<'SQL'
create table users (id serial primary key, email text not null);
create table orders (id serial primary key, user_id int references users (id));
insert into users (email) values ('first@example.com');
SQL
	cat >"$dir/compose.yaml" <<YAML
x-taskenv:
  resources:
    db:
      driver: postgres
      isolation: database
      template:
        migrate: {service: app, command: ["$cmd"]}
        inputs: [migrations]
services:
  app:
    image: taskenv-example/postgres:15
    entrypoint: ["sh", "-c"]
    command: ["sleep 3600"]
    volumes: ["./migrations:/migrations:ro"]
    x-taskenv:
      env: {DATABASE_URL: db.url}
YAML
	echo "$dir"
}

# SQL on the shared Postgres container as its administrator (host side).
pgp_admin() {
	local name port pw
	name=$(engine_names containers io.taskenv.shared=postgres)
	port=$(api GET "/containers/$name/json" | jq -r '.HostConfig.PortBindings["5432/tcp"][0].HostPort')
	pw=$(jq -r '."postgres-admin"' "$TASKENV_STATE.secrets/_shared.json")
	PGPASSWORD=$pw PGOPTIONS="-c client_min_messages=warning" psql -X -q -At -h 127.0.0.1 -p "$port" \
		-U postgres -d "${2:-postgres}" -c "$1"
}

# Rows of the ledger: SQL, one row a line, columns joined by '|'.
ledger_sql() {
	python3 - "$TASKENV_STATE" "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], timeout=10)
for row in db.execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in row))
db.commit()
PY
}

# The task's value of TASKENV_DB_<FIELD>.
pgp_env() { te env -t "$1" | sed -n "s/^TASKENV_DB_$2=//p"; }

# The refill is done: no process holds "_pg" and the template has N
# created spares (default 2). At most 60 s.
pgp_refilled() {
	local tpl=$1 want=${2:-2} i
	for i in $(seq 1 120); do
		if [ "$(ledger_sql "select count(*) from resources where task = '_pg' and kind = 'postgres-pool'
			and service = '$tpl' and state = 'created'")" = "$want" ] &&
			flock -n "$TASKENV_STATE.locks/_pg.lock" true; then
			return 0
		fi
		sleep 0.5
	done
	fail "the pool of $tpl did not reach $want spares"
}

# The template a task's database came from.
pgp_template_of() {
	ledger_sql "select detail from resources where task = '$1' and kind = 'postgres-database'
		and state = 'created'" | jq -r .template
}

# Acceptance 4's invariant: every database and role named te_% on the
# shared server has an active ledger row; every template marked ready on
# the server is created in the ledger and the other way round.
pgp_consistent() {
	local name ready rows
	rows=$(ledger_sql "select name from resources where kind like 'postgres-%' and state <> 'removed'")
	for name in $(pgp_admin "select datname from pg_database where datname like 'te\\_%'
		union select rolname from pg_roles where rolname like 'te\\_%'"); do
		grep -qx -- "$name" <<<"$rows" || fail "$name is on the server without a ledger row ($*)"
	done
	ready=$(pgp_admin "select datname from pg_database where shobj_description(oid, 'pg_database') like '% ready'" | sort)
	assert_eq "$ready" "$(ledger_sql "select name from resources where kind = 'postgres-template' and state = 'created'" | sort)" \
		"(templates ready on the server vs created in the ledger: $*)"
}

# After a test: its tasks down, the refill done, templates and spares
# removed by gc (nothing of them left), the shared container removed.
pgp_cleanup() {
	local t name
	for t in "$@"; do te down -t "$t" --timeout 1 >/dev/null; done
	for _ in $(seq 1 120); do flock -n "$TASKENV_STATE.locks/_pg.lock" true && break; sleep 0.5; done
	sleep 1.1
	TASKENV_TEMPLATE_GC_AGE=1s te gc --timeout 0 >"$WORK/pgp-gc.log" 2>&1 || { cat "$WORK/pgp-gc.log" >&2; fail "gc"; }
	assert_eq "$(pgp_admin "select count(*) from pg_database where datname like 'te\\_%'")" "0" "(databases left)"
	assert_eq "$(pgp_admin "select count(*) from pg_roles where rolname like 'te\\_%'")" "0" "(roles left)"
	assert_eq "$(ledger_sql "select count(*) from resources where kind like 'postgres-%' and state <> 'removed'")" "0"
	for t in "$@"; do assert_eq "$(count_task_objects "$t")" "0" "($t)"; done
	name=$(engine_names containers io.taskenv.shared=postgres)
	api DELETE "/containers/$name?force=1&v=1" >/dev/null
	api DELETE "/networks/0--taskenv-shared-${name#taskenv-shared-postgres-}" >/dev/null
}

# Acceptance 1: two tasks at once get their own database with the migrated
# tables and row; the template was built once; after the refill a third
# task's database comes from the pool (renames: the spare's name is gone);
# reset gives it back its migrated state from the pool; verify sees it.
test_pgpool_two_tasks_one_build() {
	local dir ua ub tpl spare out n
	dir=$(pgp_project)
	(cd "$dir" && te --progress plain up -t ppa >"$WORK/ppa.log" 2>&1) & local ja=$!
	(cd "$dir" && te --progress plain up -t ppb >"$WORK/ppb.log" 2>&1) & local jb=$!
	wait $ja || { cat "$WORK/ppa.log" >&2; fail "up ppa"; }
	wait $jb || { cat "$WORK/ppb.log" >&2; fail "up ppb"; }
	ua=$(pgp_env ppa URL) ub=$(pgp_env ppb URL)
	[ "$ua" != "$ub" ] || fail "two tasks, one URL"
	assert_eq "$(psql -X -At "$ua" -c 'select email from users')" "first@example.com"
	assert_eq "$(psql -X -At "$ub" -c "select count(*) from information_schema.tables where table_schema = 'public'")" "2"
	psql -X -q "$ua" -c "insert into users (email) values ('a@example.com')"
	assert_eq "$(psql -X -At "$ub" -c 'select count(*) from users')" "1" "(B sees A's row)"
	# Inside the app container: the container-side URL, same data.
	assert_eq "$(api GET /containers/ppa-app-1/json | jq -r '.Config.Env[]' | sed -n 's/^DATABASE_URL=.*@//p')" \
		"db:5432/$(pgp_env ppa DATABASE)"
	tpl=$(pgp_template_of ppa)
	assert_eq "$(pgp_template_of ppb)" "$tpl"
	assert_contains "$tpl" "te_tpl_"
	# One build: one template row created, one migration run.
	assert_eq "$(te events --json | jq --arg r "postgres-template $tpl" '[.[] | select(.resource == $r and .outcome == "created")] | length')" "1"
	assert_eq "$(te events --json | jq --arg t "$tpl" '[.[] | select((.message // "") | startswith("template \($t): migration") and test("exited 0"))] | length')" "1"
	assert_eq "$(grep -c 'building' "$WORK/ppa.log" "$WORK/ppb.log" | awk -F: '{s += $2} END {print s}')" "1"
	pgp_refilled "$tpl"
	pgp_consistent "after two ups"
	spare=$(ledger_sql "select name from resources where task = '_pg' and kind = 'postgres-pool' and state = 'created' order by id limit 1")
	(cd "$dir" && te up -t ppc >"$WORK/ppc.log" 2>&1) || { cat "$WORK/ppc.log" >&2; fail "up ppc"; }
	assert_eq "$(te events -t ppc --json | jq --arg r "postgres-pool $spare" '[.[] | select(.resource == $r and .outcome == "claimed by ppc")] | length')" "1"
	assert_eq "$(pgp_admin "select count(*) from pg_database where datname = '$spare'")" "0" "(the spare was renamed)"
	assert_eq "$(psql -X -At "$(pgp_env ppc URL)" -c 'select current_user, email from users')" "$(pgp_env ppc USER)|first@example.com"
	assert_eq "$(pgp_admin "select pg_get_userbyid(datdba) from pg_database where datname = '$(pgp_env ppc DATABASE)'")" "$(pgp_env ppc USER)"
	out=$(te verify -t ppc 2>&1) || fail "verify ppc: $out"
	assert_contains "$out" "PASS  server-object postgres-database $(pgp_env ppc DATABASE)"
	# reset: the migrated state again, same role and password, from the pool.
	pgp_refilled "$tpl"
	psql -X -q "$(pgp_env ppc URL)" -c "insert into users (email) values ('c@example.com')"
	te reset -t ppc db >"$WORK/ppc-reset.log" 2>&1 || { cat "$WORK/ppc-reset.log" >&2; fail "reset ppc"; }
	assert_eq "$(psql -X -At "$(pgp_env ppc URL)" -c "select string_agg(email, ',') from users")" "first@example.com"
	assert_eq "$(te events -t ppc --json | jq '[.[] | select((.outcome // "") | startswith("claimed by ppc"))] | length')" "2"
	pgp_refilled "$tpl"
	n=$(ledger_sql "select count(*) from resources where task = 'ppc' and state <> 'removed'")
	assert_eq "$n" "4" "(network, container, role, database of ppc after reset)"
	pgp_consistent "after reset"
	pgp_cleanup ppa ppb ppc
}

# Acceptance 2: a changed migration makes the next task's template anew
# with the new table; the first task keeps its database untouched; gc
# keeps the old template while that task exists and removes it after.
test_pgpool_new_inputs_new_template() {
	local dir t1 t2 ua out
	dir=$(pgp_project)
	(cd "$dir" && te up -t ppi1 >"$WORK/ppi1.log" 2>&1) || { cat "$WORK/ppi1.log" >&2; fail "up ppi1"; }
	ua=$(pgp_env ppi1 URL)
	psql -X -q "$ua" -c "insert into users (email) values ('mine@example.com')"
	t1=$(pgp_template_of ppi1)
	pgp_refilled "$t1"
	echo 'create table invoices (id serial primary key, total int);' >"$dir/migrations/002.sql"
	(cd "$dir" && te up -t ppi2 >"$WORK/ppi2.log" 2>&1) || { cat "$WORK/ppi2.log" >&2; fail "up ppi2"; }
	t2=$(pgp_template_of ppi2)
	[ "$t1" != "$t2" ] || fail "the changed migration did not make a new template"
	assert_eq "$(psql -X -At "$(pgp_env ppi2 URL)" -c 'select count(*) from invoices')" "0"
	assert_eq "$(psql -X -At "$ua" -c "select to_regclass('invoices') is null, string_agg(email, ',' order by id) from users")" \
		"t|first@example.com,mine@example.com"
	pgp_refilled "$t2"
	sleep 1.1
	out=$(TASKENV_TEMPLATE_GC_AGE=1s te --progress plain gc --timeout 0 2>&1) || fail "gc: $out"
	assert_contains "$out" "$t1"
	assert_contains "$out" "a task was cloned from it, kept"
	assert_eq "$(pgp_admin "select count(*) from pg_database where datname = '$t1'")" "1"
	te down -t ppi1 --timeout 1 >/dev/null
	sleep 1.1
	out=$(TASKENV_TEMPLATE_GC_AGE=1s te --progress plain gc --timeout 0 2>&1) || fail "gc: $out"
	assert_eq "$(pgp_admin "select count(*) from pg_database where datname = '$t1' or datname like 'te\\_pool\\_${t1#te_tpl_}\\_%'")" "0" \
		"(old template and its pool after gc)"
	assert_eq "$(pgp_admin "select count(*) from pg_database where datname = '$t2'")" "1" "(ppi2 was cloned from it)"
	assert_eq "$(psql -X -At "$(pgp_env ppi2 URL)" -c 'select count(*) from users')" "1" "(ppi2 keeps its database)"
	pgp_consistent "after gc"
	pgp_cleanup ppi2
}

# Acceptance 3: a migration exiting 1 fails `up` with the command and the
# status (and its output, kept in the events); no template is marked ready
# or left; after `down` nothing of the task is left.
test_pgpool_migration_fails() {
	local dir out rc=0
	dir=$(pgp_project 'echo migrating; echo boom-from-the-migration >&2; exit 1')
	out=$(cd "$dir" && te up -t ppf 2>&1) || rc=$?
	assert_eq "$rc" "1" "($out)"
	assert_contains "$out" "migration \`echo migrating; echo boom-from-the-migration >&2; exit 1\` (service 'app'"
	assert_contains "$out" "exited 1"
	assert_contains "$out" "boom-from-the-migration"
	# The build's own event keeps the command, the status and the output.
	out=$(te events -t ppf --json | jq -r '.[] | select((.message // "") | startswith("template ")) | .message')
	assert_contains "$out" "exited 1, last output:"
	assert_contains "$out" "| boom-from-the-migration"
	assert_eq "$(pgp_admin "select count(*) from pg_database where datname like 'te\\_tpl\\_%'")" "0"
	assert_eq "$(ledger_sql "select count(*) from resources where kind = 'postgres-template' and state <> 'removed'")" "0"
	pgp_consistent "after the failed migration"
	te down -t ppf --timeout 1 >/dev/null
	assert_eq "$(count_task_objects ppf)" "0"
	assert_eq "$(te ps --json | jq '[.[] | select(.task == "ppf")] | length')" "0"
	pgp_cleanup
}

# Acceptance 4, template build: killed after the template's objects were
# made (before the migration) and after the migration exited 0 (before the
# ready mark): nothing is marked ready; gc, or the next up, ends consistent.
test_pgpool_killed_build() {
	local dir rc=0
	dir=$(pgp_project)
	(cd "$dir" && TASKENV_FAULT='after-create:postgres-template:*' te up -t ppk) >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" "137"
	assert_eq "$(pgp_admin "select count(*) from pg_database where datname like 'te\\_tpl\\_%'")" "1" "(a half-made template)"
	pgp_consistent "killed after the template's create"
	te gc --timeout 0 >/dev/null 2>&1 || fail "gc after a killed build"
	assert_eq "$(pgp_admin "select count(*) from pg_database where datname like 'te\\_tpl\\_%'")" "0" "(gc dropped it)"
	pgp_consistent "gc after the killed build"
	rc=0
	(cd "$dir" && TASKENV_FAULT='before-ready:postgres-template:*' te up -t ppk) >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" "137"
	assert_eq "$(te events -t ppk --json | jq '[.[] | select((.message // "") | test("migration .* exited 0"))] | length')" "1"
	pgp_consistent "killed before the ready mark"
	(cd "$dir" && te up -t ppk >"$WORK/ppk.log" 2>&1) || { cat "$WORK/ppk.log" >&2; fail "up ppk"; }
	assert_eq "$(psql -X -At "$(pgp_env ppk URL)" -c 'select email from users')" "first@example.com"
	pgp_refilled "$(pgp_template_of ppk)"
	pgp_consistent "after the next up"
	pgp_cleanup ppk
}

# Acceptance 4, pool refill: the refill process is killed after making a
# spare (before it is recorded complete): the task is up all the same; the
# half-made spare has its ledger row; gc removes it; the next refill makes
# the pool whole.
test_pgpool_killed_refill() {
	local dir tpl i refills
	dir=$(pgp_project)
	refills=$(te events --json | jq '[.[] | select((.message // "") | startswith("pool refill"))] | length')
	(cd "$dir" && TASKENV_FAULT='after-create:postgres-pool:*' te up -t ppr >"$WORK/ppr.log" 2>&1) ||
		{ cat "$WORK/ppr.log" >&2; fail "up ppr"; }
	tpl=$(pgp_template_of ppr)
	for i in $(seq 1 120); do
		[ "$(ledger_sql "select count(*) from resources where task = '_pg' and kind = 'postgres-pool' and state = 'intended'")" = 1 ] &&
			flock -n "$TASKENV_STATE.locks/_pg.lock" true && break
		sleep 0.5
	done
	[ "$i" -lt 120 ] || fail "the refill was not killed at its first spare"
	assert_eq "$(te events --json | jq '[.[] | select((.message // "") | startswith("pool refill"))] | length')" \
		"$((refills + 1))" "(one refill started)"
	pgp_consistent "refill killed"
	assert_eq "$(ledger_sql "select count(*) from resources where kind = 'postgres-pool' and state = 'created'")" "0"
	te gc --timeout 0 >/dev/null 2>&1 || fail "gc after a killed refill"
	assert_eq "$(pgp_admin "select count(*) from pg_database where datname like 'te\\_pool\\_%'")" "0"
	pgp_consistent "gc after the killed refill"
	(cd "$dir" && te up -t ppr2 >/dev/null 2>&1) || fail "up ppr2"
	pgp_refilled "$tpl"
	pgp_consistent "after the next refill"
	pgp_cleanup ppr ppr2
}

# Acceptance 4, hand-out: killed after claiming a spare (before the
# renames) the next up of the task resumes it; killed after the renames
# (before the ledger knew), gc takes the task down by the names the ledger
# holds once its lease is over. Consistent at every step.
test_pgpool_killed_handout() {
	local dir tpl rc=0
	dir=$(pgp_project)
	(cd "$dir" && te up -t pph0 >/dev/null 2>&1) || fail "up pph0"
	tpl=$(pgp_template_of pph0)
	pgp_refilled "$tpl"
	(cd "$dir" && TASKENV_FAULT='before-handout:postgres-database:*' te up -t pph1) >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" "137"
	assert_eq "$(ledger_sql "select state from resources where task = 'pph1' and kind = 'postgres-pool'")" "removing"
	pgp_consistent "killed before the renames"
	(cd "$dir" && te up -t pph1 >"$WORK/pph1.log" 2>&1) || { cat "$WORK/pph1.log" >&2; fail "up pph1 again"; }
	assert_eq "$(psql -X -At "$(pgp_env pph1 URL)" -c 'select email from users')" "first@example.com"
	assert_eq "$(ledger_sql "select state from resources where task = 'pph1' and kind = 'postgres-pool'")" "removed"
	pgp_refilled "$tpl"
	pgp_consistent "the hand-out resumed"
	rc=0
	(cd "$dir" && TASKENV_FAULT='after-handout:postgres-database:*' te up -t pph2 --lease 1s) >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" "137"
	assert_eq "$(pgp_admin "select count(*) from pg_database where datname like 'te\\_pph2\\_%'")" "1" "(renamed, not recorded)"
	pgp_consistent "killed after the renames"
	sleep 1.5
	te gc --timeout 0 >/dev/null 2>&1 || fail "gc of the killed hand-out"
	assert_eq "$(te ps --json | jq '[.[] | select(.task == "pph2")] | length')" "0"
	assert_eq "$(pgp_admin "select count(*) from pg_database where datname like 'te\\_pph2\\_%'")" "0"
	pgp_consistent "gc after the killed hand-out"
	pgp_cleanup pph0 pph1
}

# Issue 18 acceptance 5 (schema mode, the servers.sh cluster): names work
# unquoted and never collide for feat-email / feat_email; reset empties the
# schema, owned as before; dropping the schema by hand makes verify FAIL
# naming it. A task recorded under the old names keeps them and is torn
# down by them.
test_pg_plain_names_reset_verify() {
	drv_servers
	local dir url s u out rc=0 old
	dir=$(drv_project '{driver: postgres, server: "${PG_ADMIN_URL}", isolation: schema}')
	(cd "$dir" && te up -t feat-email && te up -t feat_email) >/dev/null 2>&1 || fail "up"
	url=$(pgp_env feat-email URL) s=$(pgp_env feat-email SCHEMA) u=$(pgp_env feat-email USER)
	[ "$s" != "$(pgp_env feat_email SCHEMA)" ] || fail "feat-email and feat_email share a schema"
	assert_contains "$s" "te_feat_email_db_"
	[[ $s =~ ^[a-z0-9_]+$ ]] || fail "schema name '$s' is not [a-z0-9_]"
	assert_eq "$(psql -X -q -At "$url" -c "set search_path to $s" -c 'show search_path')" "$s"
	psql -X -q "$url" -c "create table $s.notes (v text); insert into $s.notes values ('x')"
	te reset -t feat-email db >"$WORK/reset.log" 2>&1 || { cat "$WORK/reset.log" >&2; fail "reset"; }
	assert_eq "$(pg_admin "select count(*) from pg_tables where schemaname = '$s'")" "0" "(tables after reset)"
	assert_eq "$(pg_admin "select pg_get_userbyid(nspowner) from pg_namespace where nspname = '$s'")" "$u"
	assert_eq "$(psql -X -At "$url" -c 'show search_path')" "$s" "(same role, password and search_path)"
	out=$(te verify -t feat-email 2>&1) || fail "verify after reset: $out"
	assert_contains "$out" "PASS  server-object postgres-schema $s"
	pg_admin "drop schema $s cascade" >/dev/null
	out=$(te verify -t feat-email 2>&1) || rc=$?
	assert_eq "$rc" "1" "(verify after the schema was dropped by hand)"
	assert_contains "$out" "FAIL  server-object postgres-schema $s: is gone from its server"
	assert_not_contains "$(te verify -t feat_email 2>&1)" "FAIL  server-object"
	expect_exit 2 te reset -t feat-email nope
	assert_contains "$OUT" "task 'feat-email' has no postgres resource 'nope' (it has: 'db')"
	te down -t feat-email --timeout 1 >/dev/null
	te down -t feat_email --timeout 1 >/dev/null
	assert_eq "$(pg_traces feat-email)" "0"
	# A task made under the older rule ("te_<task>_<key>", '-' kept): renamed
	# here on the server and in the ledger as that build would have left it.
	(cd "$dir" && te up -t old-names) >/dev/null 2>&1 || fail "up old-names"
	s=$(pgp_env old-names SCHEMA) old=te_old-names_db
	pg_admin "alter schema $s rename to \"$old\"; alter role $s rename to \"$old\"" >/dev/null
	ledger_sql "update resources set name = '$old', engine_id = '$old',
		detail = replace(detail, '$s', '$old') where task = 'old-names'" >/dev/null
	(cd "$dir" && te up -t old-names) >/dev/null 2>&1 || fail "up old-names again"
	assert_eq "$(pgp_env old-names USER)" "$old"
	assert_eq "$(pg_admin "select count(*) from pg_roles where rolname like 'te\\_old\\_names\\_%'")" "0" "(no new-style role)"
	te down -t old-names --timeout 1 >/dev/null
	assert_eq "$(pg_admin "select count(*) from pg_roles where rolname = '$old'")$(pg_admin "select count(*) from pg_namespace where nspname = '$old'")" "00"
}
