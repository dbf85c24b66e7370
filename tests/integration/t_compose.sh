# Issue 3: Compose coverage on the real engine, name scoping, the policy's
# refusals, and depends_on health conditions. Issue 19: a project of
# several files (include, extends, the default override file), replicas,
# volumes_from, optional dependencies; hostile files for each of those keys
# (tests/security/ does not exist yet: they are here).
# shellcheck shell=bash

# The corpus files that need only local images come up and go down.
test_corpus_up_down() {
	local src dir name task files=() f n_svc running i=0
	for src in "$TE_ROOT"/tests/corpus/*/; do
		[ -f "$src/up" ] || continue
		name=$(basename "$src") task="corpus-up-$i" i=$((i + 1))
		dir=$(mktemp -d "$WORK/corpus.XXXX")
		cp -a "$src/." "$dir/"
		files=()
		if [ -f "$dir/files" ]; then
			while read -r f; do files+=(-f "$dir/$f"); done <"$dir/files"
		else files=(-f "$dir/compose.yaml"); fi
		log "    $name as $task"
		te up -t "$task" "${files[@]}" >"$WORK/up.log" 2>&1 || { cat "$WORK/up.log" >&2; fail "up of corpus $name"; }
		n_svc=$(te config -t "$task" "${files[@]}" --format json 2>/dev/null | jq '.services | length')
		running=$(api GET "/containers/json?filters=$(jq -rn --arg t "io.taskenv.task=$task" '{label:[$t]}|@uri')" | jq length)
		# a job that ran to completion is not running any more
		[ "$running" -ge $((n_svc - 1)) ] || fail "$name: $running of $n_svc containers running"
		te down -t "$task" --volumes --timeout 2 >/dev/null
		assert_eq "$(count_task_objects "$task")" "0" "(objects left by corpus $name)"
	done
	[ "$i" -ge 3 ] || fail "only $i corpus files were brought up"
}

# Issue 13 acceptance 3: no false refusals. Every Compose project in the
# repository (tests/corpus, examples, tests/data/compose) that is not a
# refusal case passes `check` (exit 0, no finding) and, when every image it
# runs is on this engine (the fixture has no registry), comes up and goes
# down. A refusal case (expected.exit: the loader; expected.check: a
# self-grant, a profile file, a credential passed in, a system path) must
# still be refused by check. The counts are logged.
benign_files() {
	local d
	for d in "$TE_ROOT"/tests/corpus/*/ "$TE_ROOT"/examples/*/ "$TE_ROOT"/tests/data/compose/*/; do
		if [ -f "$d/compose.yaml" ] || [ -f "$d/files" ]; then printf '%s\n' "${d%/}"; fi
	done
}
# files_of DIR: its -f arguments (a `files` list, else compose.yaml).
files_of() {
	local f
	if [ -f "$1/files" ]; then
		while read -r f; do printf '%s\n' -f "$1/$f"; done <"$1/files"
	else printf '%s\n' -f "$1/compose.yaml"; fi
}
test_benign_files_check_and_up() {
	local d src name rc out img missing i=0 benign=0 refusals=0 up=0 offline=() files=() envs=()
	while read -r src; do
		name=${src#"$TE_ROOT"/} d=$(mktemp -d "$WORK/benign.XXXX")
		cp -a "$src/." "$d/"
		mapfile -t files < <(files_of "$d")
		envs=()
		[ ! -f "$d/env" ] || mapfile -t envs <"$d/env"
		rc=0
		# as tests/corpus/check.sh runs it: the file's env, a HOME of its own
		out=$(cd "$d" && env "${envs[@]}" HOME=/corpus-home "$TASKENV" check "${files[@]}" 2>&1) || rc=$?
		if [ -f "$d/expected.exit" ] || [ -f "$d/expected.check" ]; then
			[ "$rc" != 0 ] || fail "$name: a refusal case passes check"
			refusals=$((refusals + 1))
			continue
		fi
		assert_eq "$rc" 0 "($name: a false refusal: $out)"
		benign=$((benign + 1))
		missing=''
		for img in $(cd "$d" && env "${envs[@]}" "$TASKENV" config -t benign "${files[@]}" --format json 2>/dev/null | jq -r '.services[] | if .build then "build:" + .build.context else .image end'); do
			case $img in
			build:*) missing="$missing $img" ;;
			*) [ "$(api GET "/images/$img/json" | jq -r '.Id // empty')" ] || missing="$missing $img" ;;
			esac
		done
		if [ -n "$missing" ]; then
			offline+=("$name")
			continue
		fi
		i=$((i + 1))
		(cd "$d" && env "${envs[@]}" "$TASKENV" up -t "benign-$i" "${files[@]}" >"$WORK/benign.log" 2>&1) ||
			{ cat "$WORK/benign.log" >&2; fail "$name: up refused or failed"; }
		up=$((up + 1))
		te down -t "benign-$i" --volumes --timeout 1 >/dev/null
		assert_eq "$(count_task_objects "benign-$i")" "0" "(objects left by $name)"
	done < <(benign_files)
	log "    benign: $benign pass check, $up of them came up here, ${#offline[@]} need images this engine lacks (${offline[*]}); refusal cases: $refusals"
	[ "$up" -ge 5 ] || fail "only $up benign projects came up"
}

# A fixed-name network is task-scoped; its name survives as a label only.
test_fixed_name_network_scoped() {
	local dir
	dir=$(mktemp -d "$WORK/proj.XXXX")
	cp -a "$TE_ROOT/tests/corpus/busybox-networks/." "$dir/"
	te up -t fixnet -f "$dir/compose.yaml" >/dev/null 2>&1
	assert_eq "$(api GET /networks/fixnet_inner | jq -r '.Labels["io.taskenv.original-name"]')" "fixed-inner-net"
	assert_eq "$(api GET /networks/fixed-inner-net | jq -r '.Name // "absent"')" "absent" "(global name was created)"
	# the container_name is an alias on the task's networks
	api GET /containers/fixnet-front-1/json | jq -r '.NetworkSettings.Networks[].Aliases[]?' | grep -qx legacy-front ||
		fail "container_name is not an alias of fixnet-front-1"
	te down -t fixnet --volumes --timeout 2 >/dev/null
	assert_eq "$(count_task_objects fixnet)" "0"
}

# ---- acceptance 3: two tasks, fixed names, their data their own ----

fixed_data_file() {
	cat >"$1/compose.yaml" <<'YAML'
services:
  store:
    image: taskenv-test/busybox:1
    container_name: store
    command: ["sh", "-c", "touch /data/mark-$$MARK; ls /data; echo listed; trap 'exit 0' TERM; while :; do sleep 1; done"]
    environment:
      MARK: ${MARK}
    volumes:
      - data:/data
    ports:
      - "8080:80"
    stop_grace_period: 1s
volumes:
  data:
    name: shared-data
YAML
}

test_fixed_names_data_isolated() {
	local dir pa pb
	dir=$(mktemp -d "$WORK/proj.XXXX")
	fixed_data_file "$dir"
	MARK=a te up -t data-a -f "$dir/compose.yaml" >"$WORK/up-a.log" 2>&1 || { cat "$WORK/up-a.log" >&2; fail "up data-a"; }
	MARK=b te up -t data-b -f "$dir/compose.yaml" >"$WORK/up-b.log" 2>&1 || { cat "$WORK/up-b.log" >&2; fail "up data-b"; }
	pa=$(task_port data-a store 80) pb=$(task_port data-b store 80)
	if [ -z "$pa" ] || [ -z "$pb" ] || [ "$pa" = "$pb" ]; then fail "ports not distinct: '$pa' '$pb'"; fi
	wait_for 20 sh -c "curl -sS --unix-socket '$SOCK' 'http://localhost/containers/data-b-store-1/logs?stdout=1' | grep -q listed"
	assert_contains "$(container_log data-a-store-1)" "mark-a"
	assert_contains "$(container_log data-b-store-1)" "mark-b"
	assert_not_contains "$(container_log data-b-store-1)" "mark-a"
	assert_eq "$(api GET /volumes/data-a_data | jq -r '.Labels["io.taskenv.original-name"]')" "shared-data"
	assert_eq "$(api GET /volumes/shared-data | jq -r '.Name // "absent"')" "absent" "(global volume name used)"
	te down -t data-a --volumes --timeout 2 >/dev/null
	assert_eq "$(api GET /volumes/data-a_data | jq -r '.Name // "absent"')" "absent"
	assert_eq "$(api GET /volumes/data-b_data | jq -r .Name)" "data-b_data" "(down of data-a removed data-b's volume)"
	assert_contains "$(te ps -t data-b)" "running"
	te down -t data-b --volumes --timeout 2 >/dev/null
	assert_eq "$(count_task_objects data-a)$(count_task_objects data-b)" "00"
}

# ---- acceptance 4: an external network is used, never owned ----

test_external_network_survives() {
	local dir net=te-ext-$$ id out rc=0
	dir=$(mktemp -d "$WORK/proj.XXXX")
	cat >"$dir/compose.yaml" <<YAML
services:
  app:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"]
    networks: [shared]
networks:
  shared:
    external: true
    name: $net
YAML
	# An external network is opened by the trusted side only (the gate).
	out=$(te up -t ext-a -f "$dir/compose.yaml" 2>&1) || rc=$?
	assert_eq "$rc" "1" "(up of an external network without --allow: $out)"
	assert_contains "$out" "needs --allow external-network"
	assert_eq "$(count_task_objects ext-a)" "0"
	# Missing: a clear error naming it, nothing left.
	rc=0
	out=$(te up -t ext-a --allow external-network -f "$dir/compose.yaml" 2>&1) || rc=$?
	[ "$rc" != 0 ] || fail "up with a missing external network succeeded"
	assert_contains "$out" "external network '$net'"
	te down -t ext-a >/dev/null 2>&1 || true
	id=$(curl -sS --unix-socket "$SOCK" -H 'Content-Type: application/json' -d "{\"Name\":\"$net\"}" \
		http://localhost/networks/create | jq -r .Id)
	te up -t ext-a --allow external-network -f "$dir/compose.yaml" >/dev/null 2>&1
	te up -t ext-b --allow external-network -f "$dir/compose.yaml" >/dev/null 2>&1
	assert_eq "$(api GET "/networks/$net" | jq '.Containers | length')" "2"
	te down -t ext-a --volumes --timeout 2 >/dev/null
	te down -t ext-b --volumes --timeout 2 >/dev/null
	assert_eq "$(api GET "/networks/$net" | jq -r .Id)" "$id" "(external network removed by down)"
	api DELETE "/networks/$id" >/dev/null
	assert_eq "$(count_task_objects ext-a)$(count_task_objects ext-b)" "00"
}

# ---- acceptance 5: depends_on service_healthy ----

health_file() {
	cat >"$1/compose.yaml" <<YAML
services:
  db:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "sleep $2; touch /tmp/ready; trap 'exit 0' TERM; while :; do sleep 1; done"]
    healthcheck:
      test: ["CMD-SHELL", "test -f /tmp/ready && echo ready || { echo not-ready-yet; exit 1; }"]
      interval: 1s
      timeout: 2s
      retries: $3
    stop_grace_period: 1s
  app:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"]
    depends_on:
      db:
        condition: service_healthy
    stop_grace_period: 1s
YAML
}

test_depends_on_healthy_waits() {
	local dir t0 t1
	dir=$(mktemp -d "$WORK/proj.XXXX")
	health_file "$dir" 3 30
	t0=$(date +%s)
	te up -t healthy -f "$dir/compose.yaml" >"$WORK/up.log" 2>&1 || { cat "$WORK/up.log" >&2; fail "up"; }
	t1=$(date +%s)
	[ $((t1 - t0)) -ge 3 ] || fail "up returned after $((t1 - t0)) s, before db could be healthy"
	assert_eq "$(api GET /containers/healthy-db-1/json | jq -r .State.Health.Status)" "healthy"
	# app was created only after db was healthy
	local db_healthy app_created
	app_created=$(api GET /containers/healthy-app-1/json | jq -r .Created)
	db_healthy=$(api GET /containers/healthy-db-1/json | jq -r '[.State.Health.Log[] | select(.ExitCode == 0)][0].End')
	[[ "$app_created" > "${db_healthy:0:19}" ]] || fail "app created at $app_created, db healthy at $db_healthy"
	te down -t healthy --timeout 2 >/dev/null
	assert_eq "$(count_task_objects healthy)" "0"
}

test_depends_on_never_healthy() {
	local dir out rc=0
	dir=$(mktemp -d "$WORK/proj.XXXX")
	health_file "$dir" 100000 2
	out=$(TASKENV_WAIT_TIMEOUT=40 te up -t unhealthy -f "$dir/compose.yaml" 2>&1) || rc=$?
	assert_eq "$rc" "1" "(exit of up: $out)"
	assert_contains "$out" "service 'db'"
	assert_contains "$out" "not-ready-yet"
	assert_eq "$(api GET /containers/unhealthy-app-1/json | jq -r '.Id // "absent"')" "absent" "(app was created)"
	assert_contains "$(te ps)" "unhealthy"
	te down -t unhealthy --volumes --timeout 2 >/dev/null
	assert_eq "$(count_task_objects unhealthy)" "0"
	assert_eq "$(te ps --json | jq '[.[] | select(.task == "unhealthy")] | length')" "0"
}

# ---- the policy: one test per refusal ----

# refusal NAME ALLOW KEY LINE SNIPPET: a hostile compose.yaml whose service
# "bad" holds SNIPPET (indented under the service, the first snippet line is
# line 5) must be refused by check (exit 1) and up (exit 1, nothing created),
# naming service, key and line; with --allow ALLOW check passes, up succeeds
# and the ledger records the exception; down removes everything.
# check_finding FILE LINE KEY WANT: check refuses FILE (exit 1) with a
# finding at FILE:LINE: for service bad's KEY, its line containing WANT.
check_finding() {
	local out rc=0
	out=$(te check -f "$1" 2>&1) || rc=$?
	assert_eq "$rc" "1" "(check exit: $out)"
	assert_contains "$out" "$1:$2:"
	assert_contains "$out" ": bad: $3: "
	assert_contains "$out" "$4"
}

refusal() {
	local task=$1 allow=$2 key=$3 line=$4 snippet=$5 dir out rc=0 first=${2%%,*} json
	json=$(jq -cn --arg a "$allow" '$a | split(",")')
	dir=$(mktemp -d "$WORK/pol.XXXX")
	mkdir -p "$dir/data"
	(cd "$dir" && eval "${REFUSAL_PREP:-}")
	{
		printf 'services:\n  bad:\n    image: taskenv-test/busybox:1\n'
		printf '    command: ["sh", "-c", "trap %s TERM; while :; do sleep 1; done"]\n' "'exit 0'"
		printf '%s\n' "$snippet" | sed 's/^/    /'
		printf '    stop_grace_period: 1s\n'
	} >"$dir/compose.yaml"
	check_finding "$dir/compose.yaml" "$line" "$key" "(needs --allow $first)"
	out=$(te up -t "$task" -f "$dir/compose.yaml" 2>&1) || rc=$?
	assert_eq "$rc" "1" "(up exit: $out)"
	assert_contains "$out" "refused"
	assert_contains "$out" "$dir/compose.yaml:$line:"
	assert_contains "$out" ": bad: $key: "
	assert_eq "$(count_task_objects "$task")" "0" "(up created something before refusing)"
	te check -f "$dir/compose.yaml" --allow "$allow" >/dev/null || fail "check still refuses with --allow $allow"
	rc=0
	te up -t "$task" -f "$dir/compose.yaml" --allow "$allow" >"$WORK/up.log" 2>&1 || rc=$?
	if [ $rc -ne 0 ] && [ -n "${REFUSAL_ENGINE_MAY_FAIL:-}" ] &&
		grep -q "operation not permitted" "$WORK/up.log" && ! grep -q refused "$WORK/up.log" &&
		[ "$(api GET "/containers/$task-bad-1/json" | jq -r "$REFUSAL_ENGINE_MAY_FAIL")" = true ]; then
		# The policy let it through and the engine got the request as written;
		# this sandbox's own capability bounding set is what refuses it.
		log "    (engine could not start it here: $(tail -1 "$WORK/up.log"))"
	elif [ $rc -ne 0 ]; then
		cat "$WORK/up.log" >&2
		fail "up with --allow $allow"
	fi
	assert_eq "$(sqlite3 "$TASKENV_STATE" "select allow from tasks where name = '$task'")" "$json"
	te down -t "$task" --volumes --timeout 2 >/dev/null
	assert_eq "$(count_task_objects "$task")" "0"
}

test_refuse_engine_socket() { refusal pol-sock engine-socket volumes 5 "volumes: [\"$SOCK:/var/run/docker.sock\"]"; }
test_refuse_engine_socket_parent() { refusal pol-sockdir engine-socket volumes 5 "volumes: [\"$(dirname "$SOCK"):/engine\"]"; }
test_refuse_privileged() {
	REFUSAL_ENGINE_MAY_FAIL=.HostConfig.Privileged refusal pol-priv privileged privileged 5 "privileged: true"
}
test_refuse_network_host() { refusal pol-net host-network network_mode 5 "network_mode: host"; }
test_refuse_pid_host() { refusal pol-pid host-pid pid 5 "pid: host"; }
test_refuse_ipc_host() { refusal pol-ipc host-ipc ipc 5 "ipc: host"; }
test_refuse_userns_host() { refusal pol-userns host-userns userns_mode 5 "userns_mode: host"; }
test_refuse_uts_host() { refusal pol-uts host-uts uts 5 "uts: host"; }
test_refuse_devices() { refusal pol-dev devices devices 5 "devices: [\"/dev/null:/dev/extra-null\"]"; }
test_refuse_cap_sys_admin() { refusal pol-capsa cap:SYS_ADMIN cap_add 5 "cap_add: [SYS_ADMIN]"; }
test_refuse_cap_sys_ptrace() { refusal pol-cappt cap:SYS_PTRACE cap_add 5 "cap_add: [CAP_SYS_PTRACE]"; }
test_refuse_cap_net_admin() { refusal pol-capna cap:NET_ADMIN cap_add 5 "cap_add: [NET_ADMIN]"; }
test_refuse_cap_sys_module() { refusal pol-capsm cap:SYS_MODULE cap_add 5 "cap_add: [SYS_MODULE]"; }
test_refuse_cap_all() {
	REFUSAL_ENGINE_MAY_FAIL='.HostConfig.CapAdd | index("ALL") != null' refusal pol-capall cap:ALL cap_add 5 "cap_add: [ALL]"
}
# Turning seccomp, AppArmor or SELinux off is refused outright (issue 13):
# no exception opens it (privileged, which opens everything, aside).
refusal_outright() {
	local task=$1 key=$2 line=$3 snippet=$4 dir out rc=0
	dir=$(mktemp -d "$WORK/pol.XXXX")
	printf 'services:\n  bad:\n    image: taskenv-test/busybox:1\n    command: ["sleep", "600"]\n%s\n' \
		"$(printf '%s\n' "$snippet" | sed 's/^/    /')" >"$dir/compose.yaml"
	check_finding "$dir/compose.yaml" "$line" "$key" "(refused)"
	out=$(te check -f "$dir/compose.yaml" --allow devices --allow seccomp-profile 2>&1) || rc=$?
	assert_eq "$rc" "1" "(check with other exceptions granted: $out)"
	rc=0
	out=$(te up -t "$task" -f "$dir/compose.yaml" 2>&1) || rc=$?
	assert_eq "$rc" "1" "(up exit: $out)"
	assert_contains "$out" "$dir/compose.yaml:$line:"
	assert_contains "$out" "(refused)"
	assert_eq "$(count_task_objects "$task")" "0" "(up created something before refusing)"
}
test_refuse_seccomp_unconfined() { refusal_outright pol-seccomp security_opt 5 "security_opt: [\"seccomp=unconfined\"]"; }
test_refuse_apparmor_unconfined() { refusal_outright pol-apparmor security_opt 5 "security_opt: [\"apparmor:unconfined\"]"; }
test_refuse_label_disable() { refusal_outright pol-label security_opt 5 "security_opt: [\"label=disable\"]"; }
# / holds the engine socket too: both exceptions are needed.
test_refuse_bind_root() { refusal pol-root bind-system,engine-socket volumes 6 "volumes:
  - /:/host:ro"; }
test_refuse_bind_etc() { refusal pol-etc bind-system volumes 6 "volumes:
  - /etc:/host-etc:ro"; }
test_refuse_bind_sys_dotdot() { refusal pol-proc bind-system volumes 5 "volumes: [\"/proc/self/../..//sys:/hostsys:ro\"]"; }
test_refuse_bind_home() { HOME=$WORK/home-$$ && mkdir -p "$HOME" && export HOME && refusal pol-home bind-home volumes 5 "volumes: [\"~:/home-dir:ro\"]"; }
test_refuse_bind_credentials() {
	HOME=$WORK/home-$$ && mkdir -p "$HOME/.ssh" && export HOME
	refusal pol-cred bind-credentials volumes 5 "volumes: [\"~/.ssh:/keys:ro\"]"
}
test_refuse_bind_outside_project() {
	REFUSAL_PREP="mkdir -p ../sibling-$$" refusal pol-out bind-outside-project volumes 5 "volumes: [\"../sibling-$$:/up:ro\"]"
}
test_refuse_bind_symlink_escape() {
	# ./data/link points outside the project: judged after realpath
	local target=$WORK/outside-$$
	mkdir -p "$target"
	REFUSAL_PREP="ln -s $target data/link" refusal pol-link bind-outside-project volumes 5 "volumes: [\"./data/link:/x:ro\"]"
}
# An explicit public host address is bound to 127.0.0.1 with a warning
# (issue 13: no refusal of ordinary files); with public-port granted by the
# trusted side it is published as written.
test_refuse_public_port() {
	local dir out rc=0
	dir=$(mktemp -d "$WORK/pol.XXXX")
	printf 'services:\n  bad:\n    image: taskenv-test/busybox:1\n    command: ["sleep", "600"]\n    ports: ["0.0.0.0:8080:80"]\n    stop_grace_period: 1s\n' >"$dir/compose.yaml"
	out=$(te check -f "$dir/compose.yaml" 2>&1) || rc=$?
	assert_eq "$rc" "0" "(check exit: $out)"
	assert_contains "$out" "$dir/compose.yaml:5:13: bad: ports: port 80/tcp is published on 127.0.0.1, not on 0.0.0.0"
	out=$(te up -t pol-port -f "$dir/compose.yaml" 2>&1) || { echo "$out" >&2; fail "up"; }
	assert_contains "$out" "warning: $dir/compose.yaml:5:13"
	assert_eq "$(api GET /containers/pol-port-bad-1/json | jq -r '.HostConfig.PortBindings["80/tcp"][0].HostIp')" "127.0.0.1"
	te down -t pol-port --timeout 2 >/dev/null
	te up -t pol-port --allow public-port -f "$dir/compose.yaml" >/dev/null 2>&1 || fail "up --allow public-port"
	assert_eq "$(api GET /containers/pol-port-bad-1/json | jq -r '.HostConfig.PortBindings["80/tcp"][0].HostIp')" "0.0.0.0"
	assert_eq "$(sqlite3 "$TASKENV_STATE" "select allow from tasks where name = 'pol-port'")" '["public-port"]'
	te down -t pol-port --timeout 2 >/dev/null
	assert_eq "$(count_task_objects pol-port)" "0"
}

# x-taskenv.allow only names what the file needs: never a grant. Without
# the trusted side's grant check and up refuse (nothing created), printing
# the exact --allow and config line; with --allow, or with the config
# file's line, up runs it and the ledger records what the trusted side gave.
test_allow_in_file() {
	local dir out rc=0
	dir=$(mktemp -d "$WORK/pol.XXXX")
	cat >"$dir/compose.yaml" <<'YAML'
x-taskenv:
  allow: [host-pid]
services:
  bad:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"]
    pid: host
    stop_grace_period: 1s
YAML
	out=$(te check -f "$dir/compose.yaml" 2>&1) || rc=$?
	assert_eq "$rc" "1" "(check of a self-grant: $out)"
	assert_contains "$out" "--allow host-pid"
	rc=0
	out=$(te up -t pol-file -f "$dir/compose.yaml" 2>&1) || rc=$?
	assert_eq "$rc" "1" "(up of a self-grant: $out)"
	assert_contains "$out" "the file needs exception 'host-pid'"
	assert_contains "$out" "--allow host-pid"
	assert_contains "$out" "'allow: [host-pid]'"
	assert_contains "$out" "'projects: {$dir: {allow: [host-pid]}}'"
	assert_eq "$(count_task_objects pol-file)" "0" "(a self-grant created something)"
	te up -t pol-file --allow host-pid -f "$dir/compose.yaml" >/dev/null 2>&1 || fail "up --allow host-pid"
	assert_eq "$(sqlite3 "$TASKENV_STATE" "select allow from tasks where name = 'pol-file'")" '["host-pid"]'
	assert_eq "$(api GET /containers/pol-file-bad-1/json | jq -r .HostConfig.PidMode)" "host"
	# The contract shows the exception the trusted side granted (issue 5's identity boundary).
	assert_eq "$(te contract -t pol-file --format json | jq -c .identity.policy_exceptions)" '["host-pid"]'
	te down -t pol-file --timeout 2 >/dev/null
	assert_eq "$(count_task_objects pol-file)" "0"
	# The config file's line for this project grants it too.
	printf 'projects:\n  %s: {allow: [host-pid]}\n' "$dir" >"$WORK/pol-config.yaml"
	TASKENV_CONFIG=$WORK/pol-config.yaml te up -t pol-file -f "$dir/compose.yaml" >/dev/null 2>&1 ||
		fail "up with the config file's grant"
	assert_eq "$(sqlite3 "$TASKENV_STATE" "select allow from tasks where name = 'pol-file'")" '["host-pid"]'
	te down -t pol-file --timeout 2 >/dev/null
	assert_eq "$(count_task_objects pol-file)" "0"
}

# Defaults when the file is silent reach the engine.
test_policy_defaults_applied() {
	local dir hc
	dir=$(mktemp -d "$WORK/pol.XXXX")
	printf 'services:\n  a:\n    image: taskenv-test/busybox:1\n    command: ["sleep", "1"]\n' >"$dir/compose.yaml"
	TASKENV_DEFAULT_MEMORY=300m te up -t pol-dflt -f "$dir/compose.yaml" >/dev/null 2>&1
	hc=$(api GET /containers/pol-dflt-a-1/json | jq -c '.HostConfig | [.Memory, .NanoCpus, .PidsLimit, (.SecurityOpt | index("no-new-privileges:true") != null or index("no-new-privileges") != null)]')
	assert_eq "$hc" "[314572800,2000000000,1024,true]"
	te down -t pol-dflt --timeout 2 >/dev/null
	assert_eq "$(count_task_objects pol-dflt)" "0"
}

# ---- strict input (issue 14): a typo is an error, and nothing is created ----

# Every container, network and volume on the engine, by id, sorted.
engine_snapshot() {
	local k
	for k in "containers/json?all=1" networks volumes; do
		api GET "/$k" | jq -r 'if type == "object" then .Volumes // [] else . end | .[] | .Id // .Name'
	done | sort
}

test_strict_port_typo() {
	local dir out rc=0 before
	dir=$(mktemp -d "$WORK/strict.XXXX")
	cat >"$dir/compose.yaml" <<'YAML'
services:
  web:
    image: taskenv-test/busybox:1
    logging:
      driver: json-file
    port:
      - "8080:80"
  other:
    image: taskenv-test/busybox:1
volumes:
  data: {}
YAML
	before=$(engine_snapshot)
	out=$(te up -t strict-typo -f "$dir/compose.yaml" 2>&1) || rc=$?
	assert_eq "$rc" "2" "(up exit: $out)"
	assert_contains "$out" "$dir/compose.yaml:6:5: unknown key 'port' in services.web; did you mean 'ports'?"
	# the warning of a key before it reaches the user although loading failed
	assert_contains "$out" "warning: $dir/compose.yaml:4:5: services.web.logging is ignored by taskenv"
	assert_eq "$(engine_snapshot)" "$before" "(up created something on the engine)"
	assert_eq "$(count_task_objects strict-typo)" "0"
	assert_eq "$(sqlite3 "$TASKENV_STATE" "select count(*) from tasks where name = 'strict-typo'")" "0" \
		"(the task was recorded)"
	# a key taskenv knows and does not implement is refused the same way
	sed -i 's/^    port:$/    pre_stop: [{command: [\"true\"]}]\n    ports:/' "$dir/compose.yaml"
	rc=0
	out=$(te up -t strict-typo -f "$dir/compose.yaml" 2>&1) || rc=$?
	assert_eq "$rc" "2" "(up exit: $out)"
	assert_contains "$out" "$dir/compose.yaml:6:5: services.web.pre_stop is not supported by taskenv"
	assert_eq "$(engine_snapshot)" "$before" "(up created something on the engine)"
}

# dns_search reaches the container (HostConfig.DnsSearch and its resolv.conf).
test_dns_search() {
	local dir
	dir=$(mktemp -d "$WORK/dns.XXXX")
	cat >"$dir/compose.yaml" <<'YAML'
services:
  app:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"]
    dns_search: [corp.example, lab.example]
    stop_grace_period: 1s
YAML
	te up -t dnssearch -f "$dir/compose.yaml" >"$WORK/up.log" 2>&1 || { cat "$WORK/up.log" >&2; fail "up"; }
	assert_eq "$(api GET /containers/dnssearch-app-1/json | jq -c .HostConfig.DnsSearch)" '["corp.example","lab.example"]'
	assert_contains "$(te exec -t dnssearch -T app cat /etc/resolv.conf </dev/null)" "corp.example lab.example"
	te down -t dnssearch --volumes --timeout 2 >/dev/null
	assert_eq "$(count_task_objects dnssearch)" "0"
}

# ---- issue 19: files as larger projects write them ----

# A project of three files: compose.yaml (the base: extends of a template
# kept out by a profile, which !reset drops for the service extending it;
# include; replicas with a published port; volumes_from; an optional
# dependency),
# store/compose.yaml (included: its own directory, volume and healthcheck)
# and compose.override.yaml (merged without -f, as Compose does).
larger_project() {
	local d=$1
	mkdir -p "$d/store"
	cat >"$d/compose.yaml" <<'YAML'
include:
  - store/compose.yaml
services:
  template:
    image: taskenv-test/busybox:1
    profiles: [never]
    stop_grace_period: 1s
    environment:
      GREETING: from-base
  web:
    extends: template
    profiles: !reset []
    scale: 3
    ports: ["8080:80"]
    command: ["sh", "-c", "mkdir -p /tmp/www && { hostname; cat /shared/msg; echo $$GREETING; } > /tmp/www/index.html && exec httpd -f -p 80 -h /tmp/www"]
    volumes_from: ["store:ro"]
    depends_on:
      store: {condition: service_healthy}
      extra: {condition: service_started, required: false}
  extra:
    image: taskenv-test/busybox:1
    profiles: [extra]
YAML
	cat >"$d/store/compose.yaml" <<'YAML'
services:
  store:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "echo stored-by-$$HOSTNAME > /shared/msg; trap 'exit 0' TERM; while :; do sleep 1; done"]
    volumes: ["shared:/shared"]
    stop_grace_period: 1s
    healthcheck:
      test: ["CMD", "test", "-s", "/shared/msg"]
      interval: 1s
      retries: 30
volumes:
  shared: {}
YAML
	cat >"$d/compose.override.yaml" <<'YAML'
services:
  web:
    environment:
      GREETING: from-override
YAML
}

# The page each replica of web in TASK serves on its own loopback port.
replica_pages() {
	local task=$1 n key port
	for n in 1 2 3; do
		key=TASKENV_PORT_WEB_80
		[ "$n" = 1 ] || key="TASKENV_PORT_WEB_80_R$n"
		port=$(te env -t "$task" | sed -n "s/^$key=//p")
		[ -n "$port" ] || { fail "$task: no $key in taskenv env"; return 1; }
		wait_for 20 curl -fsS "http://127.0.0.1:$port/" || { fail "$task web-$n on $port"; return 1; }
		echo "$port $(curl -fsS "http://127.0.0.1:$port/" | tr '\n' ' ')"
	done
}

test_larger_project_two_tasks() {
	# Task names of their own per engine: the dockerd and Podman files run
	# side by side, and the same names would hash to the same host ports.
	local d pa pb t a="lp${ENGINE_KIND:0:1}-a" b="lp${ENGINE_KIND:0:1}-b"
	d=$(mktemp -d "$WORK/larger.XXXX")
	larger_project "$d"
	# two tasks of one project at once, no -f (the override is found)
	(cd "$d" && te up -t "$a" >"$WORK/$a.log" 2>&1) &
	pa=$!
	(cd "$d" && te up -t "$b" >"$WORK/$b.log" 2>&1) &
	pb=$!
	wait "$pa" || { cat "$WORK/$a.log" >&2; fail "up $a"; }
	wait "$pb" || { cat "$WORK/$b.log" >&2; fail "up $b"; }
	for t in "$a" "$b"; do
		replica_pages "$t" >"$WORK/$t.pages" || return 1
		log "    $t: $(tr '\n' '|' <"$WORK/$t.pages")"
		# three replicas, three hosts, each its own port, the included
		# store's volume through volumes_from, the override's variable
		assert_eq "$(cut -d' ' -f1 "$WORK/$t.pages" | sort -u | wc -l)" "3" "($t: ports)"
		assert_eq "$(cut -d' ' -f2 "$WORK/$t.pages" | sort -u | wc -l)" "3" "($t: hostnames)"
		assert_eq "$(cut -d' ' -f3 "$WORK/$t.pages" | sort -u | wc -l)" "1" "($t: store message)"
		assert_contains "$(cat "$WORK/$t.pages")" "stored-by-"
		assert_contains "$(cat "$WORK/$t.pages")" "from-override"
		assert_eq "$(api GET "/containers/$t-web-2/json" | jq -r '.Config.Labels["com.docker.compose.container-number"]')" "2"
		assert_eq "$(api GET "/containers/$t-web-1/json" | jq -c .HostConfig.VolumesFrom)" "[\"$t-store-1:ro\"]"
		assert_eq "$(api GET "/containers/$t-extra-1/json" | jq -r '.Id // "absent"')" "absent" "(inactive optional dependency)"
	done
	assert_eq "$(cat "$WORK/$a.pages" "$WORK/$b.pages" | cut -d' ' -f1 | sort -u | wc -l)" "6" "(ports shared by the tasks)"
	# scale down: replicas 2 and 3 go, 1 keeps running on its port
	local port1 before
	port1=$(head -1 "$WORK/$a.pages" | cut -d' ' -f1)
	before=$(api GET "/containers/$a-web-1/json" | jq -r .Id)
	(cd "$d" && te up -t "$a" --scale web=1 >"$WORK/$a.log" 2>&1) || { cat "$WORK/$a.log" >&2; fail "up --scale web=1"; }
	assert_eq "$(grep -oE "$a-web-[0-9]+ +removed" "$WORK/$a.log" | awk '{print $1}' | tr '\n' ' ')" \
		"$a-web-3 $a-web-2 " "(removed, highest first)"
	assert_eq "$(api GET "/containers/$a-web-1/json" | jq -r .Id)" "$before" "(web-1 was recreated)"
	for t in "$a-web-2" "$a-web-3"; do
		assert_eq "$(api GET "/containers/$t/json" | jq -r '.Id // "absent"')" "absent" "($t is still there)"
	done
	assert_eq "$(te env -t "$a" | grep -c '^TASKENV_PORT_WEB_80_R')" "0" "(ports of removed replicas kept)"
	assert_eq "$(task_port "$a" web 80)" "$port1"
	curl -fsS "http://127.0.0.1:$port1/" >/dev/null || fail "web-1 does not answer after the scale-down"
	# the other task is untouched
	assert_eq "$(api GET "/containers/$b-web-3/json" | jq -r .State.Running)" "true"
	for t in "$a" "$b"; do
		te down -t "$t" --volumes --timeout 2 >/dev/null
		assert_eq "$(count_task_objects "$t")" "0" "(left by $t)"
	done
}

# Hostile files for the keys of issue 19: each is refused before anything
# is created (exit 2 for the loader, 1 for the policy), naming the key.
hostile() {
	local task=$1 want_rc=$2 want=$3 d=$4 out rc=0 before
	before=$(engine_snapshot)
	out=$(cd "$d" && te up -t "$task" 2>&1) || rc=$?
	assert_eq "$rc" "$want_rc" "(up exit: $out)"
	assert_contains "$out" "$want"
	assert_eq "$(engine_snapshot)" "$before" "(up created something)"
	assert_eq "$(count_task_objects "$task")" "0"
}

# develop.watch is not built: up refuses it naming the key, creates nothing.
test_refuse_develop_watch() {
	local d
	d=$(mktemp -d "$WORK/watch.XXXX")
	printf 'services:\n  app:\n    image: taskenv-test/busybox:1\n    develop:\n      watch:\n        - {action: sync, path: ./src, target: /src}\n' >"$d/compose.yaml"
	hostile watch 2 "$d/compose.yaml:4:5: services.app.develop is not supported by taskenv" "$d"
	assert_eq "$(sqlite3 "$TASKENV_STATE" "select count(*) from tasks where name = 'watch'")" "0"
}

test_hostile_extends_outside() {
	local d
	d=$(mktemp -d "$WORK/host.XXXX")
	printf 'services:\n  app:\n    extends: {file: /etc/passwd, service: root}\n' >"$d/compose.yaml"
	hostile host-ext 2 "services.app.extends.file: '/etc/passwd' is outside the project directory" "$d"
	# through a symlink inside the project, too
	ln -s /etc "$d/etc"
	printf 'services:\n  app:\n    extends: {file: etc/hostname, service: root}\n' >"$d/compose.yaml"
	hostile host-ext 2 "'/etc/hostname' is outside the project directory" "$d"
}

test_hostile_include_cycle_and_outside() {
	local d
	d=$(mktemp -d "$WORK/host.XXXX")
	printf 'include: [b.yaml]\nservices:\n  a: {image: taskenv-test/busybox:1}\n' >"$d/compose.yaml"
	printf 'include: [compose.yaml]\nservices:\n  b: {image: taskenv-test/busybox:1}\n' >"$d/b.yaml"
	hostile host-inc 2 "include cycle: $d/compose.yaml -> $d/b.yaml -> $d/compose.yaml" "$d"
	printf 'include: [../../../../../etc/hostname]\nservices:\n  a: {image: taskenv-test/busybox:1}\n' >"$d/compose.yaml"
	hostile host-inc 2 "'/etc/hostname' is outside the project directory" "$d"
}

test_hostile_compose_file_in_dotenv() {
	local d
	d=$(mktemp -d "$WORK/host.XXXX")
	mkdir -p "$d/sub"
	printf 'services:\n  a: {image: taskenv-test/busybox:1}\n' >"$d/sub/compose.yaml"
	printf 'services:\n  evil: {image: taskenv-test/busybox:1, privileged: true}\n' >"$d/x.yaml"
	printf 'COMPOSE_FILE=../x.yaml\n' >"$d/sub/.env"
	hostile host-cf 2 "COMPOSE_FILE names '$d/x.yaml', outside the project directory '$d/sub'" "$d/sub"
	# .env never names the task or the engine: COMPOSE_PROJECT_NAME and
	# DOCKER_HOST there change nothing
	printf 'COMPOSE_PROJECT_NAME=other\nDOCKER_HOST=unix:///nonexistent.sock\n' >"$d/sub/.env"
	(cd "$d/sub" && te up -t host-cf2 >"$WORK/cf.log" 2>&1) || { cat "$WORK/cf.log" >&2; fail "up"; }
	assert_eq "$(api GET /containers/host-cf2-a-1/json | jq -r '.Config.Labels["com.docker.compose.project"]')" "host-cf2"
	te down -t host-cf2 --timeout 2 >/dev/null
	assert_eq "$(count_task_objects host-cf2)" "0"
}

# volumes_from a container outside the task (another task's) is refused
# outright by the gate: no exception opens it.
test_hostile_volumes_from_other_task() {
	local d out rc=0
	d=$(mktemp -d "$WORK/host.XXXX")
	printf 'services:\n  a:\n    image: taskenv-test/busybox:1\n    command: ["sleep", "600"]\n    volumes: ["data:/data"]\nvolumes:\n  data: {}\n' >"$d/compose.yaml"
	(cd "$d" && te up -t vf-victim >"$WORK/vf.log" 2>&1) || { cat "$WORK/vf.log" >&2; fail "up victim"; }
	mkdir -p "$d/thief"
	printf 'services:\n  t:\n    image: taskenv-test/busybox:1\n    volumes_from: ["container:vf-victim-a-1"]\n' >"$d/thief/compose.yaml"
	hostile vf-thief 1 "volumes_from: 'vf-victim-a-1' is not a container of this task (refused)" "$d/thief"
	# no exception opens it: other-container is no exception name any more
	out=$(cd "$d/thief" && te up -t vf-thief --allow other-container 2>&1) || rc=$?
	assert_contains "$out" "unknown exception 'other-container'"
	assert_eq "$(count_task_objects vf-thief)" "0"
	# and a service of another task by name is no service of this one
	printf 'services:\n  t:\n    image: taskenv-test/busybox:1\n    volumes_from: ["vf-victim-a-1"]\n' >"$d/thief/compose.yaml"
	hostile vf-thief 2 "service 't' depends on undefined service 'vf-victim-a-1'" "$d/thief"
	te down -t vf-victim --volumes --timeout 2 >/dev/null
	assert_eq "$(count_task_objects vf-victim)" "0"
}

# The project can change between any two verbs. A bind directory swapped
# for a symlink to /etc after up: restart (and start) judge the live binds
# again and refuse; run judges the file as it is now (edited to mount /)
# with the exceptions of the latest up; exec --privileged needs privileged.
test_hostile_after_up() {
	local d out rc=0
	d=$(mktemp -d "$WORK/host.XXXX")
	mkdir -p "$d/data"
	printf 'services:\n  a:\n    image: taskenv-test/busybox:1\n    command: ["sh", "-c", "trap %s TERM; while :; do sleep 1; done"]\n    volumes: ["./data:/d"]\n    stop_grace_period: 1s\n' "'exit 0'" >"$d/compose.yaml"
	(cd "$d" && te up -t swap >"$WORK/swap.log" 2>&1) || { cat "$WORK/swap.log" >&2; fail "up"; }
	# the resolved source as sent (Podman adds the options it applied: :rw,rprivate,rbind)
	assert_eq "$(api GET /containers/swap-a-1/json | jq -r '.HostConfig.Binds[0] | split(":")[0:2] | join(":")')" "$(realpath "$d")/data:/d"
	rmdir "$d/data" 2>/dev/null || rm -rf "$d/data"
	ln -s /etc "$d/data"
	out=$(cd "$d" && te restart -t swap 2>&1) || rc=$?
	assert_eq "$rc" "1" "(restart after the swap: $out)"
	assert_contains "$out" "'/etc' is a system path"
	assert_contains "$out" "refused"
	te stop -t swap --timeout 1 >/dev/null 2>&1
	rc=0
	out=$(cd "$d" && te start -t swap 2>&1) || rc=$?
	assert_eq "$rc" "1" "(start after the swap: $out)"
	assert_eq "$(api GET /containers/swap-a-1/json | jq -r .State.Running)" "false"
	rm "$d/data" && mkdir "$d/data"
	(cd "$d" && te start -t swap >/dev/null 2>&1) || fail "start with the directory back"
	# run after the file was edited to add /:/host
	printf 'services:\n  a:\n    image: taskenv-test/busybox:1\n    command: ["sleep", "600"]\n    volumes: ["./data:/d", "/:/host"]\n' >"$d/compose.yaml"
	rc=0
	out=$(cd "$d" && te run -t swap --rm a true 2>&1) || rc=$?
	assert_eq "$rc" "125" "(run after the edit: $out)"
	assert_contains "$out" "refused"
	assert_eq "$(api GET '/containers/json?all=1' | jq '[.[] | select(.Names[0] | startswith("/swap-a-run"))] | length')" "0"
	rc=0
	out=$(cd "$d" && te exec -t swap --privileged a true 2>&1) || rc=$?
	assert_eq "$rc" "125" "(exec --privileged: $out)"
	assert_contains "$out" "needs --allow privileged"
	(cd "$d" && te exec -t swap a true) || fail "exec without --privileged"
	te down -t swap --volumes --timeout 2 >/dev/null
	assert_eq "$(count_task_objects swap)" "0"
}

# links: an alias of the linked service on the task's network;
# network_mode service:NAME: the sidecar shares NAME's network namespace;
# depends_on restart: true: restarting the dependency restarts the dependant.
test_links_network_mode_restart() {
	local d t=lnk${ENGINE_KIND:0:1} started
	d=$(mktemp -d "$WORK/links.XXXX")
	cat >"$d/compose.yaml" <<'YAML'
services:
  db:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "mkdir -p /tmp/www && echo from-db > /tmp/www/index.html && exec httpd -f -p 80 -h /tmp/www"]
    stop_grace_period: 1s
  web:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "mkdir -p /tmp/www && echo from-web > /tmp/www/index.html && exec httpd -f -p 8080 -h /tmp/www"]
    links: ["db:database"]
    depends_on:
      db: {condition: service_started, restart: true}
    stop_grace_period: 1s
  sidecar:
    image: taskenv-test/busybox:1
    command: ["sh", "-c", "trap 'exit 0' TERM; while :; do sleep 1; done"]
    network_mode: "service:web"
    stop_grace_period: 1s
YAML
	te up -t "$t" -f "$d/compose.yaml" >"$WORK/links.log" 2>&1 || { cat "$WORK/links.log" >&2; fail "up"; }
	wait_for 20 te exec -t "$t" -T web wget -qO- http://database/ </dev/null || fail "database does not resolve from web"
	assert_eq "$(te exec -t "$t" -T web wget -qO- http://database/ </dev/null)" "from-db"
	assert_eq "$(te exec -t "$t" -T sidecar wget -qO- http://127.0.0.1:8080/ </dev/null)" "from-web" "(sidecar in web's namespace)"
	assert_contains "$(api GET "/containers/$t-sidecar-1/json" | jq -r .HostConfig.NetworkMode)" "container:"
	started=$(api GET "/containers/$t-web-1/json" | jq -r .State.StartedAt)
	te restart -t "$t" db >"$WORK/links.log" 2>&1 || { cat "$WORK/links.log" >&2; fail "restart db"; }
	assert_contains "$(cat "$WORK/links.log")" "$t-web-1"
	[ "$(api GET "/containers/$t-web-1/json" | jq -r .State.StartedAt)" != "$started" ] ||
		fail "web was not restarted with db (restart: true)"
	te down -t "$t" --timeout 2 >/dev/null
	assert_eq "$(count_task_objects "$t")" "0"
}
