# Issue 7: the verbs a docker compose user reaches for (logs, exec, run,
# stop/start/restart, top, ls, version, env --format, settings, agents-md),
# their --json shapes, progress on a terminal, install, man page, completion.
# shellcheck shell=bash

# web prints a numbered line a second (stdout) and serves a page; worker idles.
verbs_file() {
	cat >"$1/compose.yaml" <<'YAML'
services:
  web:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "mkdir -p /tmp/www; echo page > /tmp/www/index.html; (i=0; while true; do i=$$((i+1)); echo tick $$i; echo warn $$i >&2; sleep 1; done) & exec httpd -f -p 80 -h /tmp/www"]
    ports: ["8080:80"]
    volumes: ["data:/data"]
    environment:
      FROM_FILE: yes-from-file
  worker:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "echo worker ready; exec sleep 3600"]
    depends_on: [web]
volumes:
  data: {}
YAML
}

# verbs_up TASK: a fresh project dir with verbs_file, brought up as TASK; prints the dir.
verbs_up() {
	local d
	d=$(mktemp -d "$WORK/proj.XXXX")
	verbs_file "$d"
	(cd "$d" && te up -t "$1" >"$d/up.log" 2>&1) || { cat "$d/up.log" >&2; return 1; }
	echo "$d"
}

# Ledger rows of TASK whose name matches the LIKE pattern PAT, as "name state" lines.
ledger_rows_like() {
	python3 - "$TASKENV_STATE" "$1" "$2" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for name, state in db.execute("select name, state from resources where task=? and name like ? order by id",
                              (sys.argv[2], sys.argv[3])):
    print(name, state)
PY
}

# logs -f follows a service that prints, with Compose-style prefixes; the
# follower is killed (by pid) once the expected lines arrived.
test_logs_follow() {
	local out pid
	verbs_up lf >/dev/null
	out="$WORK/lf.out"
	"$TASKENV" logs -t lf -f web >"$out" 2>&1 & # the process itself, to kill it by pid
	pid=$!
	wait_for 20 grep -q '^web-1 | tick 3$' "$out" || { kill "$pid"; cat "$out" >&2; fail "no 'tick 3' followed"; }
	wait_for 10 grep -q '^web-1 | warn 3$' "$out" || { kill "$pid"; fail "stderr lines not followed"; }
	kill -0 "$pid" || fail "logs -f ended while the container still runs"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	# lines arrive in order and nothing of worker is in a web-only stream
	assert_not_contains "$(cat "$out")" "worker"
	grep '| tick' "$out" | head -3 | awk '{print $4}' | tr '\n' ' ' | grep -qx '1 2 3 ' ||
		fail "ticks not in order: $(head -5 "$out")"
	# all services, --tail, no colour when piped
	out=$(te logs -t lf --tail 1 worker)
	assert_eq "$out" "worker-1 | worker ready"
	out=$(te logs -t lf --tail 2)
	assert_contains "$out" "worker-1 | worker ready"
	assert_contains "$out" "web-1    | "
	assert_not_contains "$out" $'\033['
	assert_contains "$(te logs -t lf --tail 1 --timestamps worker)" "T"
	assert_eq "$(te logs -t lf --tail 1 --no-log-prefix worker)" "worker ready"
	local rc=0
	te logs -t lf nosuch >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" "2" "(unknown service)"
	te down -t lf --volumes --timeout 0 >/dev/null
}

# exec passes the exit status through and keeps stdout and stderr apart.
test_exec_exit_status() {
	local rc=0 out err
	verbs_up ex >/dev/null
	te exec -t ex web sh -c 'exit 7' || rc=$?
	assert_eq "$rc" "7"
	te exec -t ex web true
	rc=0
	te exec -t ex web /no/such/binary 2>/dev/null || rc=$?
	[ "$rc" = 126 ] || [ "$rc" = 127 ] || fail "missing binary gave exit $rc"
	out=$(te exec -t ex web sh -c 'echo to-out; echo to-err >&2' 2>"$WORK/ex.err")
	err=$(cat "$WORK/ex.err")
	assert_eq "$out" "to-out"
	assert_eq "$err" "to-err"
	# shellcheck disable=SC2016 # expanded by the container's shell
	out=$(te exec -t ex -e A=b -w /tmp -u 1234 web -- sh -c 'echo $A $(pwd) $(id -u) $FROM_FILE')
	assert_eq "$out" "b /tmp 1234 yes-from-file"
	rc=0
	te exec -t ex nosuch true 2>/dev/null || rc=$?
	assert_eq "$rc" "125" "(unknown service: taskenv failed, the command did not run; docs/agents.md)"
	te down -t ex --volumes --timeout 0 >/dev/null
}

# exec forwards a piped stdin (and its end), and gives a TTY when stdin is a
# terminal (a pty from script(1)), none with -T; an interactive shell works.
test_exec_stdin_and_tty() {
	local rc=0 out
	verbs_up et >/dev/null
	out=$(echo piped-in | te exec -t et web sh -c 'cat; exit 4') || rc=$?
	assert_eq "$rc" "4"
	assert_eq "$out" "piped-in"
	assert_eq "$(te exec -t et web sh -c 'cat; echo end' </dev/null)" "end"
	rc=0
	out=$(script -qec "$TASKENV exec -t et web sh -c 'tty; exit 5'" /dev/null) || rc=$?
	assert_eq "$rc" "5"
	assert_contains "$out" "/dev/pts/"
	out=$(script -qec "$TASKENV exec -T -t et web sh -c 'tty || true'" /dev/null)
	assert_contains "$out" "not a tty"
	rc=0
	# shellcheck disable=SC2016 # for the container's shell
	out=$(printf 'echo typed-$((6*7))\nexit 6\n' | script -qec "$TASKENV exec -t et web sh" /dev/null) || rc=$?
	assert_eq "$rc" "6"
	assert_contains "$out" "typed-42"
	te down -t et --volumes --timeout 0 >/dev/null
}

# run --rm: the one-off container is recorded, runs with the service's
# volumes and environment, passes its status through, and leaves nothing.
test_run_rm_leaves_nothing() {
	local rc=0 out before
	verbs_up rr >/dev/null
	te exec -t rr web sh -c 'echo shared > /data/f'
	before=$(engine_names containers io.taskenv.task=rr | sort | tr '\n' ' ')
	# shellcheck disable=SC2016 # expanded by the container's shell
	out=$(te run -t rr --rm web sh -c 'cat /data/f; echo $FROM_FILE; exit 3') || rc=$?
	assert_eq "$rc" "3"
	assert_eq "$out" $'shared\nyes-from-file'
	assert_eq "$(engine_names containers io.taskenv.task=rr | sort | tr '\n' ' ')" "$before" "(engine after run --rm)"
	assert_eq "$(engine_names containers com.docker.compose.oneoff=True | grep -c '^rr-' || true)" "0"
	out=$(ledger_rows_like rr '%-run-%')
	assert_contains "$out" "rr-web-run-"
	assert_eq "$(awk '{print $2}' <<<"$out" | sort -u)" "removed" "(ledger rows of the one-off)"
	assert_eq "$(te ps -t rr --json | jq '[.resources[] | select(.name | test("-run-"))] | length')" "0"
	# without --rm it stays, labelled and recorded, and down removes it
	assert_eq "$(te run -t rr worker echo kept)" "kept"
	out=$(engine_names containers com.docker.compose.oneoff=True | grep '^rr-worker-run-') || fail "one-off container not found"
	assert_eq "$(te ps -t rr --json | jq -r --arg n "$out" '.resources[] | select(.name == $n) | .ledger_state')" "created"
	te down -t rr --volumes --timeout 0 >/dev/null
	assert_eq "$(count_task_objects rr)" "0"
	assert_eq "$(ledger_rows_like rr '%')" ""
}

# A run interrupted by SIGTERM (or Ctrl-C) stops its container, and --rm
# still removes it: nothing is left running behind the caller.
test_run_interrupted_cleans_up() {
	local pid rc=0
	verbs_up ri >/dev/null
	# taskenv itself, not the te function's subshell, must get the signal
	"$TASKENV" run -t ri --rm worker sh -c 'trap "exit 0" TERM; echo started; while true; do sleep 1; done' \
		>"$WORK/ri.out" 2>&1 &
	pid=$!
	wait_for 20 grep -q started "$WORK/ri.out" || { kill "$pid"; fail "the one-off did not start"; }
	kill -TERM "$pid"
	wait "$pid" || rc=$?
	assert_eq "$rc" "143"
	assert_eq "$(engine_names containers com.docker.compose.oneoff=True | grep -c '^ri-' || true)" "0"
	assert_eq "$(ledger_rows_like ri '%-run-%' | awk '{print $2}')" "removed"
	te down -t ri --volumes --timeout 0 >/dev/null
}

# stop then start: the same containers, the same host port, the volume's data.
test_stop_start_keeps_ports_volumes() {
	local port id out
	verbs_up ss >/dev/null
	port=$(task_port ss web 80)
	id=$(api GET /containers/ss-web-1/json | jq -r .Id)
	wait_for 20 curl -fsS "http://127.0.0.1:$port/" || fail "web does not answer"
	te exec -t ss web sh -c 'echo kept-data > /data/f'
	te --progress plain stop -t ss --timeout 1 2>"$WORK/ss.err"
	assert_contains "$(cat "$WORK/ss.err")" "ss-web-1"
	assert_eq "$(te ps -t ss --json | jq -r '[.resources[] | select(.kind == "container") | .live] | unique | join(",")')" "exited"
	assert_eq "$(te ls --json | jq -r '.[] | select(.task == "ss") | .status')" "stopped"
	! curl -fsS -m 2 "http://127.0.0.1:$port/" >/dev/null 2>&1 || fail "web still answers after stop"
	te start -t ss 2>/dev/null
	assert_eq "$(api GET /containers/ss-web-1/json | jq -r .Id)" "$id" "(start made a new container)"
	assert_eq "$(task_port ss web 80)" "$port"
	assert_eq "$(api GET /containers/ss-web-1/json | jq -r '.HostConfig.PortBindings["80/tcp"][0].HostPort')" "$port"
	wait_for 20 curl -fsS "http://127.0.0.1:$port/" || fail "web does not answer on $port after start"
	assert_eq "$(te exec -t ss web cat /data/f)" "kept-data"
	# restart of one service
	te restart -t ss --timeout 1 worker 2>/dev/null
	assert_eq "$(api GET /containers/ss-worker-1/json | jq -r .State.Running)" "true"
	assert_eq "$(te ls --json | jq -r '.[] | select(.task == "ss") | .status')" "up"
	te down -t ss --volumes --timeout 0 >/dev/null
	assert_eq "$(count_task_objects ss)" "0"
}

# Every --json output parses and has its documented fields.
test_json_shapes() {
	local out cfg
	verbs_up js >/dev/null
	out=$(te ls --json)
	jq -e 'type == "array" and (.[] | select(.task == "js") | (.status == "up") and (.containers.running == 2)
		and (.containers.total == 2) and (.ports | length == 1) and (.created | type == "number")
		and (.project_dir | type == "string") and (.engine | type == "string"))' <<<"$out" >/dev/null ||
		fail "ls --json: $out"
	assert_eq "$(te ps --json)" "$out" "(ls --json differs from ps --json)"
	out=$(te ps -t js --json)
	jq -e '.task == "js" and (.compose_files | length == 1) and
		([.resources[] | select(.kind == "container")] | length == 2) and
		(.resources[] | select(.name == "js-web-1") | .live == "running" and .ledger_state == "created"
			and (.ports[0] | test("^127\\.0\\.0\\.1:[0-9]+->80/tcp$")))' <<<"$out" >/dev/null ||
		fail "ps -t --json: $out"
	out=$(te env -t js --json)
	jq -e --arg p "$(task_port js web 80)" '.schema_version == 1 and .task == "js" and
		.variables.TASKENV_TASK == "js" and .variables.TASKENV_HOST == "127.0.0.1" and
		.variables.TASKENV_PORT_WEB_80 == $p' <<<"$out" >/dev/null || fail "env --json: $out"
	assert_eq "$(te env -t js --format json)" "$out"
	assert_contains "$(te env -t js --format dotenv)" "TASKENV_TASK=js"
	out=$(te version --json)
	jq -e --arg k "$ENGINE_KIND" '.schema_version == 1 and (.taskenv.version | test("^[0-9]+\\.[0-9]+")) and
		.engine.flavor == $k and (.engine.api_version | test("^1\\.[0-9]+$")) and
		(.engine.version | length > 0) and .engine.version != "unknown" and
		(.engine.socket | length > 0)' <<<"$out" >/dev/null ||
		fail "version --json: $out"
	out=$(te top -t js --json)
	jq -e '.schema_version == 1 and .task == "js" and (.containers | length == 2) and
		(.containers[] | select(.service == "worker") | (.titles | length > 0) and
			([.processes[][] | select(test("sleep"))] | length > 0))' <<<"$out" >/dev/null ||
		fail "top --json: $out"
	cfg="$WORK/settings.yaml"
	printf 'port_range: 21000-21999\nlimits:\n  memory: 1g\n' >"$cfg"
	# (run.sh gives each engine a TASKENV_PORT_RANGE, which would win over the file)
	out=$(unset TASKENV_PORT_RANGE && TASKENV_CONFIG=$cfg TASKENV_LIMIT_PIDS=64 te settings --json)
	jq -e --arg f "$cfg" '.schema_version == 1 and .config_file == $f and .config_file_exists == true and
		(.settings[] | select(.key == "port_range") | .value == "21000-21999" and .source == "config file") and
		(.settings[] | select(.key == "limits.memory") | .value == "1g") and
		(.settings[] | select(.key == "limits.pids") | .value == "64" and .source == "environment") and
		(.settings[] | select(.key == "engine") | .source == "default")' <<<"$out" >/dev/null ||
		fail "settings --json: $out"
	# a typo in the file is an error that names the place
	printf 'port_rnage: 1-2\n' >"$cfg"
	local rc=0
	out=$(TASKENV_CONFIG=$cfg te settings 2>&1) || rc=$?
	assert_eq "$rc" "2"
	assert_contains "$out" "$cfg:1:"
	te down -t js --volumes --timeout 0 >/dev/null
}

# The config file's port range is the one up uses.
test_settings_port_range() {
	local d cfg port
	cfg="$WORK/ports.yaml"
	printf 'port_range: 23456-23460\n' >"$cfg"
	d=$(mktemp -d "$WORK/proj.XXXX")
	verbs_file "$d"
	(cd "$d" && unset TASKENV_PORT_RANGE && TASKENV_CONFIG=$cfg te up -t pr >/dev/null 2>&1)
	port=$(task_port pr web 80)
	if [ "$port" -lt 23456 ] || [ "$port" -gt 23460 ]; then fail "port $port outside the configured range"; fi
	te down -t pr --volumes --timeout 0 >/dev/null
}

# The config file's limits are the ones containers get, and agents-md and
# config say so (issue 12: up read only TASKENV_DEFAULT_* and gave every
# container 2 GiB whatever the file said). The engine is asked with curl.
test_settings_limits_reach_container() {
	local d cfg hc out
	cfg="$WORK/limits.yaml"
	printf 'limits:\n  memory: 512m\n  cpus: "1.5"\n  pids: 300\nno_new_privileges: false\n' >"$cfg"
	d=$(mktemp -d "$WORK/proj.XXXX")
	verbs_file "$d"
	(cd "$d" && TASKENV_CONFIG=$cfg te up -t lim >/dev/null 2>&1)
	hc=$(api GET /containers/lim-web-1/json |
		jq -c '.HostConfig | [.Memory, .NanoCpus, .PidsLimit, ((.SecurityOpt // []) | map(select(startswith("no-new-privileges"))))]')
	assert_eq "$hc" '[536870912,1500000000,300,[]]'
	out=$(TASKENV_CONFIG=$cfg te agents-md)
	assert_contains "$out" "cpus 1.5, memory 512m (536870912 bytes), pids 300."
	out=$(cd "$d" && TASKENV_CONFIG=$cfg te config -t lim --json)
	assert_eq "$(jq -c '[.services.web.mem_limit, .services.web.cpus, .services.web.pids_limit]' <<<"$out")" \
		'[536870912,1.5,300]'
	out=$(TASKENV_CONFIG=$cfg te settings --json)
	jq -e '.settings[] | select(.key == "limits.memory") | .value == "512m" and .source == "config file"' \
		<<<"$out" >/dev/null || fail "settings: $out"
	te down -t lim --volumes --timeout 0 >/dev/null
	# A variable wins over the file, and the older TASKENV_DEFAULT_* name still works.
	(cd "$d" && TASKENV_CONFIG=$cfg TASKENV_DEFAULT_MEMORY=300m te up -t lim >/dev/null 2>&1)
	assert_eq "$(api GET /containers/lim-web-1/json | jq .HostConfig.Memory)" "314572800"
	assert_contains "$(TASKENV_CONFIG=$cfg TASKENV_DEFAULT_MEMORY=300m te agents-md)" "memory 300m (314572800 bytes)"
	te down -t lim --volumes --timeout 0 >/dev/null
	assert_eq "$(count_task_objects lim)" "0"
}

# -v: each Engine API call on stderr, from the trace callback cmd/ installs.
test_verbose_trace() {
	local out
	out=$(te -v gc --dry-run 2>&1 >/dev/null)
	grep -qE '^engine: GET /v1\.[0-9]+/containers/json\?all=1&filters=[^ ]+ → 200 \([0-9]+ ms\)$' <<<"$out" ||
		fail "no trace line: $out"
	out=$(te gc --dry-run 2>&1 >/dev/null)
	assert_not_contains "$out" "engine:"
}

# On a terminal progress lines are rewritten in place (cursor up, erase line)
# and coloured; NO_COLOR removes the colour; piped or --progress plain, plain lines.
test_progress_tty() {
	local d out
	d=$(mktemp -d "$WORK/proj.XXXX")
	verbs_file "$d"
	out=$(cd "$d" && script -qec "$TASKENV up -t pg" /dev/null)
	assert_contains "$out" $'\033[2K'
	grep -q $'\033\\[[0-9]*A' <<<"$out" || fail "no cursor-up code on a terminal: $(cat -v <<<"$out")"
	grep -q $'\033\\[3[0-9]m' <<<"$out" || fail "no colour on a terminal"
	out=$(script -qec "NO_COLOR=1 $TASKENV down -t pg --timeout 0" /dev/null)
	grep -q $'\033\\[[0-9]*A' <<<"$out" || fail "no in-place update under NO_COLOR"
	! grep -q $'\033\\[[0-9;]*m' <<<"$out" || fail "colour under NO_COLOR: $(cat -v <<<"$out")"
	out=$(cd "$d" && script -qec "$TASKENV --progress plain up -t pg" /dev/null)
	! grep -q $'\033\\[[0-9]*A' <<<"$out" || fail "cursor codes with --progress plain"
	out=$(te down -t pg --volumes --timeout 0 2>&1)
	assert_not_contains "$out" $'\033'
	assert_contains "$out" "removed"
}

# cmake --install into a temp prefix: binary, man page, completions; the man
# page renders; bash completion completes a verb, a task name and a service.
test_install_man_completion() {
	local build prefix out
	build=$(dirname "$TASKENV")
	[ -f "$build/CMakeCache.txt" ] || skip "$TASKENV is not in a CMake build dir (nothing to install)"
	prefix="$WORK/prefix"
	cmake --install "$build" --prefix "$prefix" >/dev/null
	for f in bin/taskenv share/man/man1/taskenv.1 share/bash-completion/completions/taskenv \
		share/zsh/site-functions/_taskenv; do
		[ -f "$prefix/$f" ] || fail "not installed: $f"
	done
	out=$(MANWIDTH=100 man -l "$prefix/share/man/man1/taskenv.1" 2>&1)
	assert_contains "$out" "TASKENV(1)"
	for v in logs exec run stop start restart top version settings agents-md; do
		grep -q -- "^ *$v" <<<"$out" || fail "man page lacks verb $v"
	done
	verbs_up cmpl >/dev/null
	out=$(PATH="$prefix/bin:$PATH" bash -c '
		. "$1/share/bash-completion/completions/taskenv"
		COMP_WORDS=(taskenv ex); COMP_CWORD=1; _taskenv; echo "verbs: ${COMPREPLY[*]}"
		COMP_WORDS=(taskenv logs -t cm); COMP_CWORD=3; _taskenv; echo "tasks: ${COMPREPLY[*]}"
		COMP_WORDS=(taskenv exec -t cmpl w); COMP_CWORD=4; _taskenv; echo "services: ${COMPREPLY[*]}"
		COMP_WORDS=(taskenv logs --fo); COMP_CWORD=2; _taskenv; echo "flags: ${COMPREPLY[*]}"' _ "$prefix")
	assert_contains "$out" "verbs: exec"
	assert_contains "$out" "tasks: cmpl"
	assert_contains "$out" "services: web worker"
	assert_contains "$out" "flags: --follow"
	te down -t cmpl --volumes --timeout 0 >/dev/null
}

# agents-md states this machine's facts and the escalation rule.
test_agents_md() {
	local out
	out=$(te agents-md)
	assert_contains "$out" "## Isolation (taskenv"
	assert_contains "$out" "$ENGINE_KIND"
	assert_contains "$out" "127.0.0.1"
	assert_contains "$out" "$TASKENV_PORT_RANGE"
	assert_contains "$out" "$TASKENV_STATE"
	assert_contains "$out" "If the required boundary is unavailable, stop and report"
	assert_contains "$out" 'in the Compose file): postgres, rabbitmq, s3. Each gives the task'
	out=$(DOCKER_HOST=unix:///nonexistent.sock te agents-md)
	assert_contains "$out" "NOT reachable"
}
