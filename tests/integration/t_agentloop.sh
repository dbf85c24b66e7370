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
