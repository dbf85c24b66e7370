# Issue 2: bad input gets a clear error and leaves nothing behind.
# shellcheck shell=bash

test_yaml_syntax_error() {
	local dir
	dir=$(mktemp -d "$WORK/proj.XXXX")
	printf 'services:\n  web:\n    image: [unclosed\n    ports: x\n' >"$dir/compose.yaml"
	expect_exit 2 te up -t bad-yaml -f "$dir/compose.yaml"
	assert_contains "$OUT" "$dir/compose.yaml:4:"
	assert_no_trace bad-yaml
}

test_missing_required_variable() {
	local dir
	dir=$(mktemp -d "$WORK/proj.XXXX")
	# shellcheck disable=SC2016 # the ${X:?...} is for taskenv, not for bash
	printf 'services:\n  web:\n    image: taskenv-test/busybox:1\n    environment:\n      A: "${X:?need X}"\n' >"$dir/compose.yaml"
	unset X
	expect_exit 2 te up -t bad-var -f "$dir/compose.yaml"
	assert_contains "$OUT" "$dir/compose.yaml:5:10: required variable X is missing a value: need X"
	assert_no_trace bad-var
}

test_invalid_task_name() {
	local dir
	dir=$(copy_example agent-pair)
	expect_exit 2 te up -t My.Task -f "$dir/compose.yaml"
	assert_contains "$OUT" "invalid task name 'My.Task': must match [a-z0-9][a-z0-9_-]{0,62}"
	expect_exit 2 te down -t My.Task
	assert_contains "$OUT" "invalid task name 'My.Task'"
}

test_engine_socket_missing() {
	local dir
	dir=$(copy_example agent-pair)
	expect_exit 3 te --host "unix://$WORK/no-such.sock" up -t no-engine -f "$dir/compose.yaml"
	assert_contains "$OUT" "$WORK/no-such.sock"
	assert_contains "$OUT" "dockerd"
	expect_exit 2 te --host tcp://127.0.0.1:2375 up -t no-engine -f "$dir/compose.yaml"
	assert_contains "$OUT" "unix://"
	# also for verbs that can answer from the ledger alone
	expect_exit 2 te --host tcp://127.0.0.1:2375 ps
	assert_contains "$OUT" "not a unix:// socket"
	DOCKER_HOST=tcp://127.0.0.1:2375 expect_exit 2 te down -t no-engine
	assert_contains "$OUT" "from DOCKER_HOST"
	assert_no_trace no-engine
}

test_image_missing_and_unpullable() {
	local dir
	dir=$(mktemp -d "$WORK/proj.XXXX")
	printf 'services:\n  web:\n    image: taskenv-test/absent:1\n    ports: ["80"]\nvolumes: {}\n' >"$dir/compose.yaml"
	expect_exit 1 te up -t no-image -f "$dir/compose.yaml"
	assert_contains "$OUT" "service 'web': image 'taskenv-test/absent:1' is not present and could not be pulled"
	assert_no_trace no-image
}

test_port_range_exhausted() {
	local dir port
	dir=$(mktemp -d "$WORK/proj.XXXX")
	printf 'services:\n  web:\n    image: taskenv-test/busybox:1\n    command: [sleep, "60"]\n    ports: ["80", "81"]\n' >"$dir/compose.yaml"
	port=$((21000 + RANDOM % 5000))
	TASKENV_PORT_RANGE="$port-$port" expect_exit 1 te up -t no-ports -f "$dir/compose.yaml"
	assert_contains "$OUT" "no free host port in $port-$port"
	assert_no_trace no-ports
}

# Killed between an engine create and its ledger update: down still removes it.
test_killed_after_create() {
	local dir step
	dir=$(copy_example agent-pair)
	for step in "after-create:network:crash-a_default" "after-create:volume:crash-a_dbdata" \
		"after-create:container:crash-a-database-1" "before-create:container:crash-a-app-1" \
		"after-create:container:crash-a-app-1"; do
		expect_exit 137 env TASKENV_FAULT="$step" "$TASKENV" up -t crash-a -f "$dir/compose.yaml"
		assert_contains "$OUT" "fault injection: killed at $step"
		te down -t crash-a --volumes >/dev/null
		assert_no_trace crash-a
	done
}
