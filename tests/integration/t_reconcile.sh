# Issue 14: `up` reconciles (docs/up.md): what changed is recreated, what
# did not is kept, a task belongs to one project, a taken port moves, and a
# recreate killed at any step is finished by the next `up`.
# shellcheck shell=bash

# rc_file DIR [VARIANT]: web (httpd on 80, a named and an anonymous volume)
# and worker. VARIANT "edited" changes web's env, command, image, ports and
# volumes; "noworker" drops worker.
rc_file() {
	local web_env="A: one" web_cmd='echo one > /tmp/www/index.html' web_img=taskenv-test/busybox:1
	local web_ports='["80"]' web_vols='["data:/data", "/cache"]' worker=yes
	case ${2:-} in
	edited)
		web_env="A: two"
		web_cmd='echo two > /tmp/www/index.html'
		web_img=taskenv-test/busybox:rc
		web_ports='["80", "81"]'
		web_vols='["data:/data", "/cache", "/more"]'
		;;
	noworker) worker= ;;
	esac
	{
		cat <<YAML
services:
  web:
    image: $web_img
    command: ["sh", "-c", "mkdir -p /tmp/www; $web_cmd; exec httpd -f -p 80 -h /tmp/www"]
    stop_grace_period: 1s
    ports: $web_ports
    volumes: $web_vols
    environment:
      $web_env
YAML
		[ -z "$worker" ] || cat <<'YAML'
  worker:
    image: taskenv-test/busybox:1
    command: ["sleep", "3600"]
    stop_grace_period: 1s
    depends_on: [web]
YAML
		printf 'volumes:\n  data: {}\n'
	} >"$1/compose.yaml"
}

# step NAME WHAT: the progress in $OUT has the line "container NAME WHAT".
step() {
	local w=${2//(/\\(}
	w=${w//)/\\)}
	grep -qE -- "container +$1 +$w\$" <<<"$OUT" || fail "no step '$1 $2' in: $OUT"
}

# The engine id of container NAME.
cid() { api GET "/containers/$1/json" | jq -r .Id; }

# The second tag of the test image (an image: change that runs the same
# bits); removed by the test that made it.
rc_tag() { api POST "/images/taskenv-test/busybox:1/tag?repo=taskenv-test/busybox&tag=rc" >/dev/null; }
rc_untag() { api DELETE "/images/taskenv-test/busybox:rc" >/dev/null || true; }

# rc_foreign NAME [HOSTCONFIG]: a running busybox container of nobody's task
# (the caller removes it); prints its id.
rc_foreign() {
	local id
	id=$(curl -sS --unix-socket "$SOCK" -H 'Content-Type: application/json' -X POST \
		"http://localhost/containers/create?name=$1" \
		-d "{\"Image\":\"taskenv-test/busybox:1\",\"Cmd\":[\"sleep\",\"300\"],\"HostConfig\":${2:-{\}}}" | jq -r .Id)
	if [ -z "$id" ] || [ "$id" = null ]; then fail "could not create the foreign container $1"; fi
	api POST "/containers/$id/start" >/dev/null
	echo "$id"
}

# rc_up TASK DIR [ARGS...]: up in DIR, output in $OUT (exit 0 expected).
rc_up() {
	local t=$1 d=$2
	shift 2
	OUT=$(cd "$d" && te up -t "$t" "$@" 2>&1) || fail "up $*: $OUT"
}

# 1. Edit env, command, image, ports and volumes of web: web alone is
# recreated, worker keeps its id, web's host port for 80 stays, the named
# volume's data and the anonymous volume's data survive.
test_edit_recreates_one() {
	local d web worker port
	d=$(mktemp -d "$WORK/proj.XXXX")
	rc_tag
	rc_file "$d"
	rc_up rc1 "$d"
	step rc1-web-1 "created"
	web=$(cid rc1-web-1)
	worker=$(cid rc1-worker-1)
	port=$(task_port rc1 web 80)
	te exec -t rc1 web sh -c 'echo kept > /data/f; echo anon > /cache/f' >/dev/null
	rc_up rc1 "$d"
	step rc1-web-1 "unchanged"
	step rc1-worker-1 "unchanged"
	assert_eq "$(cid rc1-web-1)" "$web" "(nothing changed: web kept)"
	rc_file "$d" edited
	rc_up rc1 "$d"
	step rc1-web-1 "recreated (image, command, env, ports, volumes changed)"
	step rc1-worker-1 "unchanged"
	[ "$(cid rc1-web-1)" != "$web" ] || fail "web was not recreated"
	assert_eq "$(cid rc1-worker-1)" "$worker" "(worker kept)"
	assert_eq "$(task_port rc1 web 80)" "$port" "(host port of 80 kept)"
	[ -n "$(task_port rc1 web 81)" ] || fail "no host port for the added port 81"
	assert_eq "$(te exec -t rc1 web cat /data/f | tr -d '\r')" "kept"
	assert_eq "$(te exec -t rc1 web cat /cache/f | tr -d '\r')" "anon"
	wait_for 10 curl -sf "http://127.0.0.1:$port/" || fail "web does not answer on $port"
	assert_eq "$(curl -sf "http://127.0.0.1:$port/")" "two"
	te down -t rc1 --volumes --timeout 0 >/dev/null
	rc_untag
	assert_no_trace rc1
}

# 2. --force-recreate: new ids, same ports and volume data; --no-recreate
# keeps a changed container and names it; --remove-orphans removes the
# containers of a service dropped from the file, and only those;
# up web --no-deps creates or recreates web alone.
test_flags() {
	local d web worker port
	d=$(mktemp -d "$WORK/proj.XXXX")
	rc_tag
	rc_file "$d"
	rc_up rc2 "$d"
	web=$(cid rc2-web-1)
	worker=$(cid rc2-worker-1)
	port=$(task_port rc2 web 80)
	te exec -t rc2 web sh -c 'echo kept > /data/f; echo anon > /cache/f' >/dev/null
	rc_up rc2 "$d" --force-recreate
	step rc2-web-1 "recreated (--force-recreate)"
	step rc2-worker-1 "recreated (--force-recreate)"
	[ "$(cid rc2-web-1)" != "$web" ] || fail "web kept its id"
	[ "$(cid rc2-worker-1)" != "$worker" ] || fail "worker kept its id"
	assert_eq "$(task_port rc2 web 80)" "$port" "(port after --force-recreate)"
	assert_eq "$(te exec -t rc2 web cat /data/f /cache/f | tr -d '\r' | tr '\n' ' ')" "kept anon "
	web=$(cid rc2-web-1)
	worker=$(cid rc2-worker-1)
	rc_file "$d" edited
	rc_up rc2 "$d" --no-recreate
	step rc2-web-1 "kept (--no-recreate; image, command, env, ports, volumes changed)"
	assert_eq "$(cid rc2-web-1)" "$web" "(--no-recreate kept web)"
	# up web --no-deps: web recreated, worker not touched (not even named)
	rc_up rc2 "$d" web --no-deps
	step rc2-web-1 "recreated (image, command, env, ports, volumes changed)"
	assert_not_contains "$OUT" "rc2-worker-1"
	assert_eq "$(cid rc2-worker-1)" "$worker" "(--no-deps left worker)"
	web=$(cid rc2-web-1)
	# worker dropped from the file: named, then removed with --remove-orphans
	rc_file "$d" noworker
	sed -i 's/busybox:1$/busybox:rc/' "$d/compose.yaml"
	rc_up rc2 "$d"
	assert_contains "$OUT" "orphan: service 'worker' is not in the file"
	assert_eq "$(cid rc2-worker-1)" "$worker" "(an orphan is only named)"
	rc_up rc2 "$d" --remove-orphans
	step rc2-worker-1 "removed"
	assert_eq "$(engine_names containers io.taskenv.task=rc2)" "rc2-web-1" "(only worker removed)"
	expect_exit 2 te up -t rc2 -f "$d/compose.yaml" nosuch
	assert_contains "$OUT" "no such service: 'nosuch'"
	te down -t rc2 --volumes --timeout 0 >/dev/null
	rc_untag
	assert_no_trace rc2
}

# 3. The same task name from a second directory is refused (exit 1) with
# the recorded directory and the two ways on; the first task is untouched.
# Another file of the first directory (-f) is an edit of the same task.
test_other_project_refused() {
	local d1 d2 web
	d1=$(mktemp -d "$WORK/proj.XXXX")
	d2=$(mktemp -d "$WORK/proj.XXXX")
	rc_file "$d1"
	rc_file "$d2" noworker
	rc_up rc3 "$d1"
	web=$(cid rc3-web-1)
	OUT=$(cd "$d2" && te up -t rc3 2>&1) && fail "up from another directory succeeded: $OUT"
	expect_exit 1 sh -c "cd '$d2' && '$TASKENV' up -t rc3"
	assert_contains "$OUT" "task 'rc3' belongs to the project in '$d1', not '$d2'"
	assert_contains "$OUT" "pass -t NAME"
	assert_contains "$OUT" "'taskenv down -t rc3' first"
	assert_eq "$(cid rc3-web-1)" "$web" "(the first task's web untouched)"
	assert_eq "$(engine_names containers io.taskenv.task=rc3 | sort | tr '\n' ' ')" "rc3-web-1 rc3-worker-1 "
	assert_eq "$(te ps --json | jq -r '.[] | select(.task == "rc3") | .project_dir' | sort -u)" "$d1"
	# another file in the same directory: an edit, reconciled
	sed 's/A: one/A: other/' "$d1/compose.yaml" >"$d1/other.yaml"
	rc_up rc3 "$d1" -f other.yaml
	step rc3-web-1 "recreated (env changed)"
	te down -t rc3 --volumes --timeout 0 >/dev/null
	assert_no_trace rc3
}

# 5. A recorded host port taken by another process while the task is
# stopped: up moves it (says so), recreates web on the new port, env and
# the page follow; worker, which publishes nothing, is kept.
test_taken_port_moves() {
	local d port new pid worker
	d=$(mktemp -d "$WORK/proj.XXXX")
	rc_file "$d"
	rc_up rc5 "$d"
	port=$(task_port rc5 web 80)
	worker=$(cid rc5-worker-1)
	te stop -t rc5 --timeout 1 >/dev/null 2>&1
	# The engine's port proxy may hold the port a moment after the stop:
	# the listener retries its bind, and says when it holds the port.
	rm -f "$WORK/rc5-listening"
	python3 -c 'import socket, sys, time
s = socket.socket()
for _ in range(100):
    try:
        s.bind(("127.0.0.1", int(sys.argv[1]))); break
    except OSError:
        time.sleep(0.1)
s.listen(1); open(sys.argv[2], "w").close(); time.sleep(120)' "$port" "$WORK/rc5-listening" &
	pid=$!
	wait_for 15 test -e "$WORK/rc5-listening" || { kill "$pid"; fail "the listener did not take $port"; }
	# start cannot move a port (it has no file): it says so, starts nothing
	OUT=$(te start -t rc5 2>&1) && { kill "$pid"; fail "start on a taken port succeeded: $OUT"; }
	assert_contains "$OUT" "container 'rc5-web-1': host port 127.0.0.1:$port (web 80/tcp) is taken by another process; 'taskenv up -t rc5' gives it a new one"
	assert_eq "$(api GET /containers/rc5-worker-1/json | jq -r .State.Running)" "false" "(start started nothing)"
	OUT=$(cd "$d" && te up -t rc5 2>&1) || { kill "$pid"; fail "up with a taken port: $OUT"; }
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	new=$(task_port rc5 web 80)
	[ "$new" != "$port" ] || fail "the port did not move: $OUT"
	grep -qE -- "port +web +changed: web 80/tcp $port -> $new\$" <<<"$OUT" || fail "no 'port changed' line: $OUT"
	step rc5-web-1 "recreated (ports changed)"
	step rc5-worker-1 "unchanged"
	assert_eq "$(cid rc5-worker-1)" "$worker" "(worker kept)"
	wait_for 10 curl -sf "http://127.0.0.1:$new/" || fail "web does not answer on the new port $new"
	te down -t rc5 --volumes --timeout 0 >/dev/null
	assert_no_trace rc5
}

# Every engine object labelled TASK has an active ledger row of its name,
# and every created row's object exists: prints what does not hold.
rc_ledger_mismatch() {
	local t=$1 kind name rows
	rows=$(python3 - "$TASKENV_STATE" "$t" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
for kind, name, state, eid in db.execute(
        "select kind, name, state, coalesce(engine_id, '') from resources where task = ? and state <> 'removed'",
        (sys.argv[2],)):
    print(kind, name, state, eid)
PY
)
	for kind in containers networks volumes; do
		while read -r name; do
			[ -n "$name" ] || continue
			grep -q " $name " <<<"$rows" || echo "no ledger row: ${kind%s} $name"
		done < <(engine_names "$kind" "io.taskenv.task=$t")
	done
	while read -r kind name state eid; do
		[ "$state" = created ] || continue
		case $kind in
		container) api GET "/containers/$eid/json" | jq -e .Id >/dev/null 2>&1 || echo "gone: $kind $name" ;;
		network) api GET "/networks/$eid" | jq -e .Id >/dev/null 2>&1 || echo "gone: $kind $name" ;;
		volume) api GET "/volumes/$name" | jq -e .Name >/dev/null 2>&1 || echo "gone: $kind $name" ;;
		esac
	done <<<"$rows"
}

# 7. A recreate killed (SIGKILL) at each of its steps: the next up leaves
# no engine object without a ledger row and no created row whose object is
# gone, the containers match the file (a third up changes nothing), and
# down leaves nothing.
test_recreate_crash_points() {
	local d point rc bad
	d=$(mktemp -d "$WORK/proj.XXXX")
	# during-create: the kill lands while the engine makes the new container
	# under its temporary name (te_fault_soon).
	for point in 'before-create:container:*' 'during-create:container:*' 'after-create:container:*' \
		before-stop:container:rc7-web-1 \
		after-stop:container:rc7-web-1 before-remove:container:rc7-web-1 after-remove:container:rc7-web-1 \
		before-rename:container:rc7-web-1 after-rename:container:rc7-web-1 before-start:container:rc7-web-1 \
		after-start:container:rc7-web-1; do
		rc_file "$d"
		rc_up rc7 "$d"
		te exec -t rc7 web sh -c 'echo kept > /data/f' >/dev/null
		sed -i 's/A: one/A: two/' "$d/compose.yaml"
		rc=0
		OUT=$(cd "$d" && TASKENV_FAULT=$point te up -t rc7 2>&1) || rc=$?
		assert_eq "$rc" "137" "(up killed at $point: $OUT)"
		assert_contains "$OUT" "fault injection: killed "
		rc_up rc7 "$d"
		bad=$(rc_ledger_mismatch rc7)
		assert_eq "$bad" "" "(after the up that followed a kill at $point)"
		assert_eq "$(engine_names containers io.taskenv.task=rc7 | sort | tr '\n' ' ')" "rc7-web-1 rc7-worker-1 " \
			"(containers after $point)"
		api GET /containers/rc7-web-1/json | jq -e '.Config.Env | index("A=two")' >/dev/null ||
			fail "web does not run the edited file after $point"
		assert_eq "$(te exec -t rc7 web cat /data/f | tr -d '\r')" "kept" "(named volume after $point)"
		rc_up rc7 "$d"
		step rc7-web-1 "unchanged"
		step rc7-worker-1 "unchanged"
		te down -t rc7 --volumes --timeout 0 >/dev/null
		assert_no_trace rc7
	done
}

# A network whose configuration changed is recreated (its containers with
# it), unless a container outside the task is on it: then up refuses and
# the foreign container keeps running. A volume whose configuration
# changed is refused with the command that would recreate it.
test_network_volume_changes() {
	local d web foreign
	d=$(mktemp -d "$WORK/proj.XXXX")
	rc_file "$d"
	rc_up rc6 "$d"
	web=$(cid rc6-web-1)
	printf 'networks:\n  default:\n    labels:\n      tier: front\n' >>"$d/compose.yaml"
	rc_up rc6 "$d"
	grep -qE -- "network +rc6_default +recreating \(labels changed\)" <<<"$OUT" || fail "network not recreated: $OUT"
	step rc6-web-1 "created"
	[ "$(cid rc6-web-1)" != "$web" ] || fail "web was not recreated with its network"
	assert_eq "$(api GET /networks/rc6_default | jq -r '.Labels.tier')" "front"
	rc_up rc6 "$d"
	grep -qE -- "network +rc6_default +exists" <<<"$OUT" || fail "an unchanged network was touched: $OUT"
	# hostile: a container of nobody's task on the network
	foreign=$(rc_foreign rc6-foreign '{"NetworkMode":"rc6_default"}')
	# shellcheck disable=SC2064 # the id now: the trap runs after this function returns
	trap "api DELETE '/containers/$foreign?force=1' >/dev/null 2>&1" EXIT
	sed -i 's/tier: front/tier: back/' "$d/compose.yaml"
	expect_exit 1 sh -c "cd '$d' && '$TASKENV' up -t rc6"
	assert_contains "$OUT" "network 'rc6_default' (labels changed) cannot be recreated"
	assert_contains "$OUT" "rc6-foreign"
	assert_eq "$(api GET "/containers/$foreign/json" | jq -r .State.Running)" "true" "(foreign container left)"
	api DELETE "/containers/$foreign?force=1" >/dev/null
	sed -i 's/tier: back/tier: front/' "$d/compose.yaml"
	# a volume's configuration changed: refused, data kept
	te exec -t rc6 web sh -c 'echo kept > /data/f' >/dev/null
	sed -i 's/^  data: {}$/  data:\n    labels:\n      keep: me/' "$d/compose.yaml"
	expect_exit 1 sh -c "cd '$d' && '$TASKENV' up -t rc6"
	assert_contains "$OUT" "volume 'rc6_data' (key 'data'): its configuration changed (labels)"
	assert_contains "$OUT" "'taskenv down -t rc6 --volumes'"
	assert_eq "$(te exec -t rc6 web cat /data/f | tr -d '\r')" "kept"
	te down -t rc6 --volumes --timeout 0 >/dev/null
	assert_no_trace rc6
}

# Hostile: a container of nobody's task squats the temporary name of the
# next recreate. up fails naming it, leaves it and the running web alone;
# once it is gone, up recreates web.
test_temp_name_squatted() {
	local d web squat
	d=$(mktemp -d "$WORK/proj.XXXX")
	rc_file "$d"
	rc_up rc8 "$d"
	web=$(cid rc8-web-1)
	squat=$(rc_foreign "${web:0:12}_rc8-web-1")
	# shellcheck disable=SC2064 # the id now: the trap runs after this function returns
	trap "api DELETE '/containers/$squat?force=1' >/dev/null 2>&1" EXIT
	sed -i 's/A: one/A: two/' "$d/compose.yaml"
	expect_exit 1 sh -c "cd '$d' && '$TASKENV' up -t rc8"
	assert_contains "$OUT" "${web:0:12}_rc8-web-1"
	assert_eq "$(cid rc8-web-1)" "$web" "(web untouched)"
	assert_eq "$(api GET "/containers/$squat/json" | jq -r .Id)" "$squat" "(the squatter left alone)"
	api DELETE "/containers/$squat?force=1" >/dev/null
	rc_up rc8 "$d"
	step rc8-web-1 "recreated (env changed)"
	assert_eq "$(rc_ledger_mismatch rc8)" "" "(ledger and engine agree)"
	te down -t rc8 --volumes --timeout 0 >/dev/null
	assert_no_trace rc8
}
