# Issue 16: the task's Engine API broker, driven by the real docker CLI
# (Debian's docker.io) on both engines: it reaches the task's own containers
# only, refuses everything off its allow-list, and is a ledger resource
# that down stops and a restart replaces.
# shellcheck shell=bash

# web prints a numbered line a second; worker idles.
broker_file() {
	cat >"$1/compose.yaml" <<'YAML'
services:
  web:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "i=0; while true; do i=$$((i+1)); echo tick $$i; sleep 1; done"]
  worker:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "echo worker ready; exec sleep 3600"]
YAML
}

# broker_up TASK [UP-FLAGS...]: a project dir with broker_file brought up as TASK.
broker_up() {
	local d t=$1
	shift
	d=$(mktemp -d "$WORK/proj.XXXX")
	broker_file "$d"
	(cd "$d" && te up -t "$t" "$@" >"$d/up.log" 2>&1) || { cat "$d/up.log" >&2; return 1; }
	echo "$d"
}

# The broker socket of TASK (from env).
broker_sock() {
	te env -t "$1" | sed -n 's|^TASKENV_DOCKER_HOST=unix://||p'
}

# dk SOCKET ARGS...: the docker CLI on a broker, with a config dir of its own.
dk() {
	local s=$1
	shift
	DOCKER_CONFIG="$WORK/docker-config" timeout 60 docker -H "unix://$s" "$@"
}

# raw SOCKET METHOD PATH: "STATUS BODY" of one request through the broker.
raw() {
	curl -sS --unix-socket "$1" -X "$2" -o "$WORK/raw.body" -w '%{http_code}' --path-as-is "http://localhost$3"
	printf ' '
	cat "$WORK/raw.body"
}

cid() { api GET "/containers/$1/json" | jq -r .Id; }

# Acceptance 1: A's broker lists A's containers exactly and operates on
# them; B's containers are refused by name, full ID and ID prefix.
test_broker_two_tasks() {
	local da db sa sb out bid
	command -v docker >/dev/null || fail "docker CLI (docker.io) missing"
	da=$(broker_up brk-a --broker)
	db=$(broker_up brk-b)
	te broker start -t brk-b >/dev/null
	sa=$(broker_sock brk-a) sb=$(broker_sock brk-b)
	{ [ -n "$sa" ] && [ -S "$sa" ]; } || fail "no broker socket for brk-a: '$sa'"
	{ [ -n "$sb" ] && [ "$sa" != "$sb" ]; } || fail "brokers share a socket: '$sa' '$sb'"
	[ ${#sa} -lt 108 ] || fail "socket path over 107 bytes: $sa"
	assert_eq "$(stat -c %a "$(dirname "$sa")")" "700" "(broker directory mode)"
	assert_contains "$(te broker status -t brk-a)" "running"
	assert_contains "$(te ps -t brk-a)" "broker"

	# ps -a: exactly A's two containers.
	out=$(dk "$sa" ps -a --format '{{.Names}}' | sort | tr '\n' ' ')
	assert_eq "$out" "brk-a-web-1 brk-a-worker-1 "
	# logs, logs -f (ended by the timeout), restart, stop, start.
	wait_for 20 sh -c "DOCKER_CONFIG='$WORK/docker-config' docker -H unix://$sa logs brk-a-web-1 | grep -q 'tick 2'" ||
		fail "logs through the broker"
	out=$(DOCKER_CONFIG="$WORK/docker-config" timeout 4 docker -H "unix://$sa" logs -f --tail 1 brk-a-web-1 || true)
	[ "$(grep -c tick <<<"$out")" -ge 2 ] || fail "logs -f streamed no new lines: $out"
	dk "$sa" restart -t 1 brk-a-worker-1 >/dev/null
	dk "$sa" stop -t 1 brk-a-worker-1 >/dev/null
	assert_eq "$(api GET /containers/brk-a-worker-1/json | jq -r .State.Running)" "false"
	dk "$sa" start brk-a-worker-1 >/dev/null
	assert_eq "$(api GET /containers/brk-a-worker-1/json | jq -r .State.Running)" "true"
	dk "$sa" top brk-a-worker-1 >/dev/null
	# exec -it in a pty (script(1) gives the CLI its terminal): a shell
	# with a tty that runs what is typed.
	# shellcheck disable=SC2016 # $((40+2)) is for the container's shell
	out=$(printf 'tty; echo in-$((40+2))\nexit\n' | DOCKER_CONFIG="$WORK/docker-config" timeout 60 \
		script -qec "docker -H unix://$sa exec -it brk-a-worker-1 sh" /dev/null | tr -d '\r')
	assert_contains "$out" "/dev/pts/"
	assert_contains "$out" "in-42"
	out=$(dk "$sa" inspect -f '{{.Name}}' "$(cid brk-a-web-1)")
	assert_eq "$out" "/brk-a-web-1"

	# B's container: by name, full ID and ID prefix, every verb refused.
	bid=$(cid brk-b-worker-1)
	for ref in brk-b-worker-1 "$bid" "${bid:0:12}"; do
		for verb in "logs" "restart -t 1" "stop -t 1" "start" "inspect" "top" "kill"; do
			# shellcheck disable=SC2086
			if out=$(dk "$sa" $verb "$ref" 2>&1); then fail "docker $verb $ref on B's container passed: $out"; fi
			assert_contains "$out" "is not one of task 'brk-a'"
		done
		if out=$(dk "$sa" exec -i "$ref" true 2>&1); then fail "docker exec $ref on B's container passed: $out"; fi
		assert_contains "$out" "is not one of task 'brk-a'"
	done
	assert_eq "$(api GET /containers/brk-b-worker-1/json | jq -r .State.Running)" "true" "(B's worker untouched)"
	# B's broker sees B's only.
	assert_eq "$(dk "$sb" ps -a --format '{{.Names}}' | sort | tr '\n' ' ')" "brk-b-web-1 brk-b-worker-1 "

	te down -t brk-a
	te down -t brk-b
	[ ! -e "$sa" ] || fail "down left the socket $sa"
	assert_no_trace brk-a
	assert_no_trace brk-b
	rm -rf "$da" "$db"
}

# Acceptance 2: docker run through A's broker is a create like taskenv's
# own: the policy gate judges the body, A's labels and network are forced,
# the container is in A's ledger and down removes it; the gate's refusals
# reach the docker CLI in the gate's words, and nothing is created.
test_broker_run() {
	local d s out labels before rows
	d=$(broker_up brk-run --broker)
	s=$(broker_sock brk-run)
	out=$(dk "$s" run --name probe taskenv-test/busybox:1 echo hello-through-the-broker 2>&1) ||
		fail "docker run through the broker: $out"
	assert_eq "$out" "hello-through-the-broker"
	# The name got A's prefix; A's network; A's labels (the ledger's id).
	out=$(api GET /containers/brk-run-probe/json)
	# (Podman's inspect says NetworkMode "bridge" for any network of its own.)
	[ "$ENGINE_KIND" != docker ] || assert_eq "$(jq -r .HostConfig.NetworkMode <<<"$out")" "brk-run_default"
	assert_eq "$(jq -r '.NetworkSettings.Networks | keys | join(",")' <<<"$out")" "brk-run_default"
	labels=$(jq -c '.Config.Labels' <<<"$out")
	assert_eq "$(jq -r '."io.taskenv.task"' <<<"$labels")" "brk-run"
	assert_eq "$(jq -r '."io.taskenv.ledger"' <<<"$labels")" \
		"$(api GET /containers/brk-run-web-1/json | jq -r '.Config.Labels."io.taskenv.ledger"')"
	assert_eq "$(jq -r '."com.docker.compose.project"' <<<"$labels")" "brk-run"
	# In A's ledger, with its engine id; listed by A's broker.
	assert_eq "$(te ps -t brk-run --json | jq -r '.resources[] | select(.name == "brk-run-probe") | .ledger_state')" \
		"created"
	assert_contains "$(dk "$s" ps -a --format '{{.Names}}')" "brk-run-probe"
	# The same name again: refused, and the first keeps its row.
	if out=$(dk "$s" run --name probe taskenv-test/busybox:1 true 2>&1); then fail "a second probe: $out"; fi
	assert_contains "$out" "already one of task 'brk-run''s containers"
	assert_eq "$(te ps -t brk-run --json | jq -r '.resources[] | select(.name == "brk-run-probe") | .ledger_state')" \
		"created"
	# --rm, a detached one with a name of B's (prefixed: never squats B's
	# names), and the CLI's own follow-ups (wait, start, attach, inspect).
	assert_eq "$(dk "$s" run --rm taskenv-test/busybox:1 sh -c 'echo rm-ok' 2>&1)" "rm-ok"
	dk "$s" run -d --name brk-b-web-1 taskenv-test/busybox:1 sleep 300 >/dev/null
	assert_eq "$(api GET /containers/brk-run-brk-b-web-1/json | jq -r .State.Running)" "true"
	dk "$s" stop -t 1 brk-run-brk-b-web-1 >/dev/null
	# The gate's refusals, in its words, through the docker CLI.
	before=$(api GET '/containers/json?all=1' | jq -r '[.[] | select(.Labels."io.taskenv.task" == "brk-run")] | length')
	rows=$(te ps -t brk-run --json | jq -r '[.resources[] | select(.kind == "container" and .ledger_state != "removed")] | length')
	for args in "--privileged|needs --allow privileged" "-v /:/host|exposes the container engine" \
		"--network host|needs --allow host-network" "--pid host|needs --allow host-pid" \
		"--cap-add SYS_ADMIN|needs --allow cap:SYS_ADMIN" "--network brk-b_default|is not this task's"; do
		# shellcheck disable=SC2086
		if out=$(dk "$s" run --rm ${args%%|*} taskenv-test/busybox:1 true 2>&1); then
			fail "docker run ${args%%|*} through the broker passed: $out"
		fi
		assert_contains "$out" "Error response from daemon: taskenv broker: refused"
		assert_contains "$out" "${args#*|}"
	done
	assert_eq "$(api GET '/containers/json?all=1' | jq -r '[.[] | select(.Labels."io.taskenv.task" == "brk-run")] | length')" \
		"$before" "(a refused create created something)"
	assert_eq "$(te ps -t brk-run --json | jq -r '[.resources[] | select(.kind == "container" and .ledger_state != "removed")] | length')" \
		"$rows" "(a refused create left a ledger row)"
	# A label of another task is overwritten, not trusted.
	dk "$s" run --rm --label io.taskenv.task=brk-b taskenv-test/busybox:1 true >/dev/null 2>&1 || true
	te down -t brk-run
	assert_no_trace brk-run
	assert_contains "$(api GET /containers/brk-run-probe/json | tr "[:upper:]" "[:lower:]")" "no such container"
	rm -rf "$d"
}

# Everything off the allow-list is 403 with a JSON message naming the rule;
# path tricks are judged after normalisation.
test_broker_refusals() {
	local d s out
	d=$(broker_up brk-r --broker)
	s=$(broker_sock brk-r)
	for args in "volume ls" "network ls" "pull taskenv-test/busybox:1" "system df" "events --since 1s --until 2s"; do
		# shellcheck disable=SC2086
		if out=$(dk "$s" $args 2>&1); then fail "docker $args passed: $out"; fi
		assert_contains "$out" "rule: allow-list"
	done
	dk "$s" images >/dev/null
	dk "$s" version >/dev/null
	out=$(dk "$s" info --format '{{.Name}}')
	assert_eq "$out" "brk-r"
	# A trick that normalises to create is a create: without a body, refused.
	assert_contains "$(raw "$s" POST "/v1.41/containers/x/../create")" "400 "
	assert_contains "$(raw "$s" POST "/v1.41/containers/brk-r-web-1%2F..%2F..%2Fcreate")" "403 "
	assert_contains "$(raw "$s" GET "/v1.41/../../etc/passwd")" "400 "
	assert_contains "$(raw "$s" GET "/v1.41/containers/a%00b/json")" "400 "
	assert_contains "$(raw "$s" DELETE "/v1.41/containers/brk-r-web-1")" "403 "
	assert_contains "$(raw "$s" POST "/v1.41/containers/brk-r-web-1/rename?name=x")" "403 "
	assert_contains "$(raw "$s" GET "/v1.41/containers/brk-r-web-1/export")" "403 "
	assert_contains "$(raw "$s" GET "//v1.41//containers//brk-r-web-1//json")" "200 "
	assert_contains "$(raw "$s" GET "/v1.41/containers/%62rk-r-web-1/json")" "200 "
	assert_eq "$(api GET /containers/brk-r-web-1/json | jq -r .Name)" "/brk-r-web-1"
	te down -t brk-r
	assert_no_trace brk-r
	rm -rf "$d"
}

# The broker is a ledger resource: stop/start, a killed one's stale socket
# replaced by the next start, down stopping it; a socket path that cannot
# fit is an error naming it.
test_broker_lifecycle() {
	local d d2 s pid long out
	d=$(broker_up brk-l)
	assert_not_contains "$(te env -t brk-l)" "TASKENV_DOCKER_HOST"
	te broker start -t brk-l >/dev/null
	s=$(broker_sock brk-l)
	pid=$(te broker status -t brk-l --json | jq -r .pid)
	# start again: the same one kept.
	te broker start -t brk-l >/dev/null
	assert_eq "$(te broker status -t brk-l --json | jq -r .pid)" "$pid"
	kill -9 "$pid"
	wait_for 10 sh -c "! kill -0 $pid" || fail "broker $pid survived SIGKILL"
	[ -S "$s" ] || fail "a killed broker should leave its socket for the next start to replace"
	expect_exit 1 te broker status -t brk-l
	assert_contains "$(te ps -t brk-l)" "absent"
	te broker start -t brk-l >/dev/null
	[ "$(te broker status -t brk-l --json | jq -r .pid)" != "$pid" ] || fail "no new broker"
	dk "$s" ps >/dev/null
	# gc clears a dead broker's row and socket.
	pid=$(te broker status -t brk-l --json | jq -r .pid)
	kill -9 "$pid"
	wait_for 10 sh -c "! kill -0 $pid" || fail "broker $pid survived SIGKILL"
	out=$(te gc)
	assert_contains "$out" "1 broker(s) no longer running"
	[ ! -e "$s" ] || fail "gc left the stale socket $s"
	assert_not_contains "$(te ps -t brk-l)" "broker"
	te broker start -t brk-l >/dev/null
	te broker stop -t brk-l >/dev/null
	[ ! -e "$s" ] || fail "stop left the socket"
	assert_not_contains "$(te env -t brk-l)" "TASKENV_DOCKER_HOST"
	te broker start -t brk-l >/dev/null
	pid=$(te broker status -t brk-l --json | jq -r .pid)
	te down -t brk-l
	wait_for 10 sh -c "! kill -0 $pid" || fail "down left broker $pid running"
	[ ! -e "$s" ] || fail "down left the socket"
	assert_no_trace brk-l
	# Too long a directory: refused, naming the path.
	long="$WORK/$(printf 'd%.0s' {1..100})"
	d2=$(broker_up brk-long)
	expect_exit 2 env TASKENV_BROKER_DIR="$long" "$TASKENV" broker start -t brk-long
	assert_contains "$OUT" "$long"
	assert_contains "$OUT" "over the"
	te down -t brk-long
	rm -rf "$d" "$d2"
}

# Acceptance 4: the malformed-request suite (broker/malformed.py: oversized
# headers 431, body 413, bad chunking 400, a chunked body forwarded,
# pipelining, path tricks, 64 concurrent clients, 64 stalled ones, one that
# never finishes) without a crash; run with an ASan build as TASKENV
# (`run.sh docker build-asan/taskenv t_broker`) the broker's own leak and
# error reports land in $WORK/asan-broker.* and must not exist after it stops.
test_broker_malformed() {
	local da db s pid
	da=$(broker_up brk-m)
	db=$(broker_up brk-n)
	rm -f "$WORK"/asan-broker.*
	ASAN_OPTIONS="log_path=$WORK/asan-broker:detect_leaks=1" UBSAN_OPTIONS="log_path=$WORK/asan-broker" \
		te broker start -t brk-m >/dev/null
	s=$(broker_sock brk-m)
	pid=$(te broker status -t brk-m --json | jq -r .pid)
	timeout 300 python3 "$TE_ROOT/tests/integration/broker/malformed.py" "$s" brk-m-web-1 brk-n-web-1 ||
		fail "malformed-request suite"
	# The docker CLI still works on it afterwards, exec with stdin included.
	assert_eq "$(echo piped | dk "$s" exec -i brk-m-worker-1 cat)" "piped"
	kill -0 "$pid" || fail "the broker died"
	te broker stop -t brk-m >/dev/null
	if compgen -G "$WORK/asan-broker.*" >/dev/null; then
		cat "$WORK"/asan-broker.* >&2
		fail "the broker's sanitizer reported errors or leaks"
	fi
	te down -t brk-m
	te down -t brk-n
	rm -rf "$da" "$db"
}
