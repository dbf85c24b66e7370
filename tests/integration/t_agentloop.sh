# Issue 18: the agent's loop. The task's engine is part of its identity,
# exit codes a harness can trust, a host runner (with/shell), results as
# data, a journal and evidence, agents-md, x-taskenv.env across files.
# shellcheck shell=bash

# A project with one long-running service.
al_project() {
	local dir
	dir=$(mktemp -d "$WORK/proj.XXXX")
	cat >"$dir/compose.yaml" <<'YAML'
services:
  app:
    image: taskenv-test/busybox:1
    command: ["sleep", "3600"]
YAML
	echo "$dir"
}

# A second, empty engine: a private Podman service (never a second dockerd
# with iptables: it rewrites the shared nat chain). Its socket on stdout.
al_second_engine() {
	"$TE_ROOT/scripts/engine.sh" start podman "$WORK/engine2" >/dev/null || return 1
	"$TE_ROOT/scripts/engine.sh" socket "$WORK/engine2"
}

al_second_engine_stop() {
	"$TE_ROOT/scripts/engine.sh" stop "$WORK/engine2" >/dev/null 2>&1 || true
}

# Acceptance 1: DOCKER_HOST at another engine: down exits 3 naming both
# sockets and touches nothing; on the right engine down removes everything.
test_wrong_engine_down() {
	local dir other before
	dir=$(al_project)
	te up -t al-wrong -f "$dir/compose.yaml" >/dev/null 2>&1
	other=$(al_second_engine) || fail "could not start a second engine"
	trap al_second_engine_stop EXIT
	before=$(te ps -t al-wrong --json | jq -c '[.resources[] | {name, state}]')
	DOCKER_HOST="unix://$other" expect_exit 3 te down -t al-wrong
	assert_contains "$OUT" "unix://$SOCK"
	assert_contains "$OUT" "unix://$other"
	assert_contains "$OUT" "nothing was touched"
	assert_not_contains "$OUT" "already gone"
	# The same for the other verbs that act on the task, and for gc.
	DOCKER_HOST="unix://$other" expect_exit 3 te ps -t al-wrong
	DOCKER_HOST="unix://$other" expect_exit 125 te exec -T -t al-wrong app true
	assert_contains "$OUT" "unix://$other"
	DOCKER_HOST="unix://$other" expect_exit 3 te up -t al-wrong -f "$dir/compose.yaml"
	assert_eq "$(te ps -t al-wrong --json | jq -c '[.resources[] | {name, state}]')" "$before" "(ledger rows)"
	assert_eq "$(api GET /containers/al-wrong-app-1/json | jq -r .State.Status)" "running"
	expect_exit 0 te down -t al-wrong
	assert_contains "$OUT" "remaining 0"
	assert_no_trace al-wrong
}

# Acceptance 2: exec's status is the command's; taskenv's own failures are
# Docker's 125/126/127; down of a name never known is 1, of a task already
# down 0.
test_exit_codes() {
	local dir
	dir=$(al_project)
	te up -t al-codes -f "$dir/compose.yaml" >/dev/null 2>&1
	expect_exit 7 te exec -T -t al-codes app sh -c 'exit 7'
	expect_exit 127 te exec -T -t al-codes app no-such-binary </dev/null
	expect_exit 126 te exec -T -t al-codes app /etc/passwd </dev/null
	expect_exit 125 te exec -T -t al-never app true
	assert_contains "$OUT" "no task 'al-never'"
	expect_exit 125 te exec --no-such-flag -t al-codes app true
	expect_exit 5 te run --rm -t al-codes app sh -c 'exit 5'
	expect_exit 127 te run --rm -t al-codes app no-such-binary
	expect_exit 3 te run --rm --entrypoint 'sh -c' -t al-codes app 'exit 3'
	te stop -t al-codes app >/dev/null 2>&1
	expect_exit 125 te exec -T -t al-codes app true
	assert_contains "$OUT" "is not running"
	assert_contains "$OUT" "taskenv start -t al-codes app"
	expect_exit 1 te down -t al-never-was
	assert_contains "$OUT" "never"
	assert_contains "$OUT" "al-codes"
	expect_exit 0 te down -t al-codes
	expect_exit 0 te down -t al-codes
	assert_contains "$OUT" "already down"
	assert_no_trace al-codes
}

# Acceptance 3: `with --as app` gives a host command the app's own variable
# names with values that reach the task from the host; the status passes.
test_with_as_service() {
	drv_servers
	local dir url web
	# shellcheck disable=SC2016 # ${PG_ADMIN_URL} is for taskenv to interpolate
	dir=$(drv_project '{driver: postgres, server: "${PG_ADMIN_URL}", isolation: schema}')
	cat >>"$dir/compose.yaml" <<'YAML'
    environment:
      WEB_URL: http://web:80/health
      PLAIN: web
  web:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "mkdir -p /w && echo ok >/w/health && exec httpd -f -p 80 -h /w"]
    ports: ["80"]
YAML
	(cd "$dir" && te up -t al-with >"$WORK/alw.log" 2>&1) || { cat "$WORK/alw.log" >&2; fail "up al-with"; }
	# shellcheck disable=SC2016 # expanded by the command's shell
	url=$(te with -t al-with --as app -- sh -c 'echo $DATABASE_URL')
	assert_contains "$url" "@127.0.0.1:$PG_PORT/"
	assert_eq "$url" "$(te env -t al-with | sed -n 's/^TASKENV_DB_URL=//p')"
	assert_eq "$(psql -X -At "$url" -c 'select 1')" "1"
	# shellcheck disable=SC2016
	web=$(te with -t al-with --as app -- sh -c 'echo $WEB_URL $PLAIN $TASKENV_TASK')
	assert_eq "$web" "http://127.0.0.1:$(task_port al-with web 80)/health web al-with"
	assert_eq "$(curl -fsS "${web%% *}")" "ok"
	expect_exit 9 te with -t al-with -- sh -c 'exit 9'
	expect_exit 127 te with -t al-with -- no-such-binary
	expect_exit 125 te with -t al-with --as nosuch -- true
	assert_contains "$OUT" "no service 'nosuch'"
	expect_exit 125 te with -t al-never -- true
	# shell: $SHELL with the same variables, its status passed through.
	# shellcheck disable=SC2016
	SHELL=/bin/sh expect_exit 4 te shell -t al-with --as app <<<'test -n "$DATABASE_URL" && exit 4'
	te down -t al-with >/dev/null
	assert_eq "$(pg_traces al-with)" "0"
}

# A project whose one-shot migrate service runs CMD before app starts.
al_migrate_project() {
	local dir
	dir=$(mktemp -d "$WORK/proj.XXXX")
	cat >"$dir/compose.yaml" <<YAML
services:
  migrate:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "$1"]
  app:
    image: taskenv-test/busybox:1
    command: ["sleep", "3600"]
    depends_on:
      migrate: {condition: service_completed_successfully}
YAML
	echo "$dir"
}

# Acceptance 4: up --json of a file whose migrate exits 3: a document naming
# migrate, exit code 3 and its last log lines; up exits 1; the text says
# what happened.
test_up_json_failure() {
	local dir doc
	dir=$(al_migrate_project 'echo migrating; echo boom-at-step-2 >&2; exit 3')
	expect_exit 1 te up -t al-json -f "$dir/compose.yaml" --json
	doc=$(te up -t al-json -f "$dir/compose.yaml" --json 2>/dev/null) || true
	assert_eq "$(jq -r .schema_version <<<"$doc")" "1"
	assert_eq "$(jq -r .result <<<"$doc")" "failed"
	assert_eq "$(jq -r .failure.service <<<"$doc")" "migrate"
	assert_eq "$(jq -r .failure.exit_code <<<"$doc")" "3"
	assert_contains "$(jq -r .failure.log_tail <<<"$doc")" "boom-at-step-2"
	assert_contains "$(jq -r .error <<<"$doc")" "did not complete successfully"
	assert_eq "$(jq -r '[.resources[] | select(.name == "al-json-migrate-1")][0].live' <<<"$doc")" "exited"
	# Text: what happened, not what was waited for.
	expect_exit 1 te --progress plain up -t al-json -f "$dir/compose.yaml"
	assert_contains "$OUT" "al-json-migrate-1 exited 3"
	# The outcome is kept for the evidence.
	te evidence -t al-json -o "$WORK/al-json-ev" >/dev/null
	assert_eq "$(jq -r '.up_failure.exit_code' "$WORK/al-json-ev/outcome.json")" "3"
	te down -t al-json >/dev/null
	# A good up: result up, the ports, no failure.
	dir=$(al_migrate_project 'exit 0')
	doc=$(te up -t al-json-ok -f "$dir/compose.yaml" --json)
	assert_eq "$(jq -r '.result, .failure, (.resources | length)' <<<"$doc" | tr '\n' ' ')" "up null 3 "
	expect_exit 0 te down -t al-json-ok
	assert_no_trace al-json
	assert_no_trace al-json-ok
}

# Acceptance 7: an up killed midway leaves its owner marked gone in ps; a
# second up of a task whose lock another up holds says who holds it.
test_killed_up_and_lock_holder() {
	local dir pid out
	dir=$(al_project)
	TASKENV_FAULT=after-create:container:al-kill-app-1 expect_exit 137 te up -t al-kill -f "$dir/compose.yaml"
	out=$(te ps)
	assert_contains "$(grep '^al-kill ' <<<"$out")" "(owner gone)"
	assert_eq "$(te ps --json | jq -r '.[] | select(.task == "al-kill") | .owner.live')" "false"
	te down -t al-kill >/dev/null
	dir=$(al_migrate_project 'sleep 7')
	# Not through te(): $! must be taskenv's own pid.
	"$TASKENV" up -t al-lock -f "$dir/compose.yaml" >"$WORK/al-lock-1.log" 2>&1 &
	pid=$!
	wait_for 10 grep -q "service_completed_successfully" "$WORK/al-lock-1.log" || fail "first up did not start"
	out=$(te --progress plain up -t al-lock -f "$dir/compose.yaml" 2>&1)
	wait "$pid" || fail "first up failed: $(cat "$WORK/al-lock-1.log")"
	assert_contains "$out" "waiting for the lock, held by pid $pid (up)"
	te down -t al-lock >/dev/null
	assert_no_trace al-kill
	assert_no_trace al-lock
}

# Acceptance 6: two execs and a new untracked file are in the evidence (the
# commands with their exit codes, the file's content); down --evidence DIR
# writes a complete bundle, then nothing of the task is left on the engine.
test_journal_evidence() {
	local dir ev="$WORK/al-ev" ev2="$WORK/al-ev2"
	dir=$(al_project)
	git -C "$dir" init -q && git -C "$dir" add compose.yaml &&
		git -C "$dir" -c user.email=t@t -c user.name=t commit -qm base
	te up -t al-ev -f "$dir/compose.yaml" >/dev/null 2>&1
	te exec -T -t al-ev app sh -c 'echo first-out; exit 0' >/dev/null
	expect_exit 4 te exec -T -t al-ev app sh -c 'echo second-out; exit 4'
	echo "brand new work" >"$dir/notes.txt"
	te evidence -t al-ev -o "$ev" >/dev/null || true
	assert_eq "$(jq -c '[.[] | {verb, service, argv, exit_code}]' "$ev/journal.json")" \
		'[{"verb":"exec","service":"app","argv":["sh","-c","echo first-out; exit 0"],"exit_code":0},{"verb":"exec","service":"app","argv":["sh","-c","echo second-out; exit 4"],"exit_code":4}]'
	assert_contains "$(jq -r '.[1].output_tail' "$ev/journal.json")" "second-out"
	assert_contains "$(cat "$ev/git-untracked.patch")" "+brand new work"
	assert_contains "$(cat "$ev/git-status.txt")" "notes.txt"
	assert_eq "$(jq -r '.containers[0].state' "$ev/outcome.json")" "running"
	assert_eq "$(jq -r '.up_failure' "$ev/outcome.json")" "null"
	assert_contains "$(jq -r .note "$ev/shared.json")" "every process of this host"
	# The journal is in the events too, and evidence --json names the files.
	assert_contains "$(te events -t al-ev)" "exit 4"
	assert_eq "$(te evidence -t al-ev -o "$ev-json" --json | jq -r '.files | index("journal.json") != null')" "true"
	# down --evidence: the bundle first, then the task is gone.
	te down -t al-ev --evidence "$ev2" --json >"$WORK/al-ev-down.json"
	assert_eq "$(jq -r '.result, .evidence' "$WORK/al-ev-down.json" | tr '\n' ' ')" "removed $ev2 "
	assert_eq "$(jq -r '[.resources[].outcome] | unique | join(",")' "$WORK/al-ev-down.json")" "removed"
	for f in contract.json verify.json events.json journal.json outcome.json shared.json git-untracked.patch; do
		[ -s "$ev2/$f" ] || fail "down --evidence: $f missing or empty"
	done
	[ -f "$ev2/logs/al-ev-app-1.log" ] || fail "down --evidence: no log of al-ev-app-1"
	assert_eq "$(jq length "$ev2/journal.json")" "2"
	assert_no_trace al-ev
}

# x-taskenv.env in an override file names a resource of the base file: the
# files are merged first, then every reference is checked.
test_env_across_files() {
	drv_servers
	local dir url
	dir=$(mktemp -d "$WORK/proj.XXXX")
	# shellcheck disable=SC2016 # ${PG_ADMIN_URL} is for taskenv to interpolate
	printf 'x-taskenv:\n  resources:\n    db: {driver: postgres, server: "${PG_ADMIN_URL}", isolation: schema}\nservices:\n  app:\n    image: taskenv-test/busybox:1\n    command: ["sleep", "3600"]\n' >"$dir/compose.yaml"
	printf 'services:\n  app:\n    x-taskenv:\n      env: {DATABASE_URL: db.url}\n' >"$dir/compose.override.yaml"
	printf 'services:\n  app:\n    x-taskenv:\n      env: {DATABASE_URL: nodb.url}\n' >"$dir/bad.yaml"
	expect_exit 2 te config -t al-files -f "$dir/compose.yaml" -f "$dir/bad.yaml"
	assert_contains "$OUT" "$dir/bad.yaml:4:27: services.app.x-taskenv.env: no resource 'nodb'"
	(cd "$dir" && te up -t al-files >"$WORK/alf.log" 2>&1) || { cat "$WORK/alf.log" >&2; fail "up al-files"; }
	url=$(te env -t al-files | sed -n 's/^TASKENV_DB_URL=//p')
	assert_contains "$(api GET /containers/al-files-app-1/json | jq -r '.Config.Env[]')" "DATABASE_URL=postgresql://"
	# shellcheck disable=SC2016
	assert_eq "$(te with -t al-files --as app -- sh -c 'echo $DATABASE_URL')" "$url"
	te down -t al-files >/dev/null
	assert_no_trace al-files
}

# agents-md names the exact variables to export (this machine's socket and
# ledger) and the lifecycle rules.
test_agents_md_exports() {
	local out
	out=$(te agents-md)
	assert_contains "$out" "export DOCKER_HOST=unix://$SOCK"
	assert_contains "$out" "export TASKENV_STATE=$TASKENV_STATE"
	for w in "taskenv worktree add" "--lease" "--evidence" "taskenv retain" "taskenv gc" "taskenv with" "125"; do
		assert_contains "$out" "$w"
	done
}

# Hostile input to what this issue added: an exec flooding its output (and
# bytes that are not UTF-8) is journalled capped; --entrypoint is words for
# the container, never a host shell; --as names only services of the file;
# an untracked symlink to a host file puts the link, not the file, in the
# evidence.
test_hostile_agentloop() {
	local dir ev="$WORK/al-host-ev" j
	dir=$(al_project)
	git -C "$dir" init -q && git -C "$dir" add compose.yaml &&
		git -C "$dir" -c user.email=t@t -c user.name=t commit -qm base
	te up -t al-host -f "$dir/compose.yaml" >/dev/null 2>&1
	# shellcheck disable=SC2016 # for the container's shell
	te exec -T -t al-host app sh -c 'i=0; while [ $i -lt 5000 ]; do echo "line $i \"q\" $(printf "\377")"; i=$((i+1)); done' >/dev/null
	j=$(te events -t al-host --json | jq -r '[.[] | select(.resource == "exec app")][0].message')
	[ "${#j}" -lt 6000 ] || fail "journal entry of ${#j} bytes"
	assert_eq "$(jq -r '.output_tail | split("\n") | length' <<<"$j")" "20"
	assert_contains "$(jq -r .output_tail <<<"$j")" "line 4999 \"q\" ?"
	[ "$(jq -r .output_bytes <<<"$j")" -gt 50000 ] || fail "output_bytes: $(jq -r .output_bytes <<<"$j")"
	expect_exit 127 te run --rm -t al-host --entrypoint "\$(touch $WORK/al-host-pwned)" app
	[ ! -e "$WORK/al-host-pwned" ] || fail "--entrypoint ran on the host"
	expect_exit 125 te with -t al-host --as ../../etc -- true
	assert_contains "$OUT" "no service '../../etc'"
	ln -s /etc/shadow "$dir/shadow-link"
	te evidence -t al-host -o "$ev" >/dev/null || true
	assert_contains "$(cat "$ev/git-untracked.patch")" "+/etc/shadow"
	assert_not_contains "$(cat "$ev/git-untracked.patch")" "root:"
	te down -t al-host >/dev/null
	assert_no_trace al-host
}

# up says what happened to a driver's object: a schema dropped by hand is
# "recreated", one still there "exists".
test_schema_recreated_says_so() {
	drv_servers
	local dir s out
	# shellcheck disable=SC2016 # ${PG_ADMIN_URL} is for taskenv to interpolate
	dir=$(drv_project '{driver: postgres, server: "${PG_ADMIN_URL}", isolation: schema}')
	(cd "$dir" && te up -t al-recr) >/dev/null 2>&1 || fail "up al-recr"
	s=$(te env -t al-recr | sed -n 's/^TASKENV_DB_SCHEMA=//p')
	out=$(cd "$dir" && te --progress plain up -t al-recr 2>&1)
	assert_contains "$out" "postgres-schema   $s"
	assert_contains "$(grep "postgres-schema" <<<"$out")" "exists"
	pg_admin "drop schema $s cascade" >/dev/null
	out=$(cd "$dir" && te --progress plain up -t al-recr 2>&1)
	assert_contains "$(grep "postgres-schema" <<<"$out")" "recreated"
	te down -t al-recr >/dev/null
	assert_eq "$(pg_traces al-recr)" "0"
}
