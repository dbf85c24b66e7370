# The hostile cases of tests/security/cases/ (issue 13), one test each:
# test_sec_<case>. tests/security/README.md describes a case's files.
# Each case is a hostile (or benign twin) project run through the real
# taskenv on this engine: refused at the verb where it occurs (exit 1, a
# finding naming FILE:LINE, the key and the exception or "refused"), with
# nothing created on the engine and no ledger row; a benign twin comes up.
# shellcheck shell=bash

SEC_CASES=$TE_ROOT/tests/security/cases

# Every case directory becomes a test function (run.sh lists test_*).
for _sec_c in "$SEC_CASES"/*/; do
	_sec_n=$(basename "$_sec_c")
	eval "test_sec_${_sec_n}() { sec_case '${_sec_n}'; }"
done
unset _sec_c _sec_n

# Every container, network, volume and image id on the engine, sorted: a
# refusal leaves this unchanged (also objects taskenv forgot to label).
sec_snapshot() {
	local k
	for k in "containers/json?all=1" networks volumes images/json; do
		api GET "/$k" | jq -r 'if type == "object" then .Volumes // [] else . end | .[] | .Id // .Name'
	done | sort
}

# Containers of TASK: "id startedat running", one per line, sorted.
sec_containers() {
	local f
	f=$(jq -rn --arg t "io.taskenv.task=$1" '{label: [$t]} | @uri')
	for id in $(api GET "/containers/json?all=1&filters=$f" | jq -r '.[].Id'); do
		api GET "/containers/$id/json" | jq -r '"\(.Id) \(.State.StartedAt) \(.State.Running)"'
	done | sort
}

# The json of the first container of SERVICE in TASK.
sec_inspect() { api GET "/containers/$1-$2-1/json"; }

# ---- helpers a case's setup/mutate/after/run_case may call ----

# victim_up [COMPOSE_YAML]: another task ($VICTIM) up from a project of its
# own outside this case's repository: by default a sleeping busybox "v" with
# a named volume "data" on its default network. Taken down at the end.
victim_up() {
	local vdir=$SEC_BASE/victim
	mkdir -p "$vdir"
	if [ $# -gt 0 ]; then
		printf '%s\n' "$1" >"$vdir/compose.yaml"
	else
		printf '%s\n' 'services:' '  v:' '    image: taskenv-test/busybox:1' \
			'    command: ["sleep", "600"]' '    stop_grace_period: 1s' '    volumes: ["data:/data"]' \
			'volumes:' '  data: {}' >"$vdir/compose.yaml"
	fi
	(cd "$vdir" && te up -t "$VICTIM" >"$SEC_BASE/victim.log" 2>&1) || {
		cat "$SEC_BASE/victim.log" >&2
		fail "up of the victim task $VICTIM"
	}
}

# subst NAME VALUE: replace @NAME@ by VALUE in every regular file of the project.
subst() {
	local f
	while IFS= read -r -d '' f; do
		sed -i "s#@$1@#$2#g" "$f"
	done < <(find "$SEC_DIR" -path "$SEC_DIR/.git" -prune -o -type f -print0)
}

# tag_image SRC REPO TAG: an extra tag the case owns (removed at the end).
tag_image() {
	printf '%s:%s\n' "$2" "$3" >>"$SEC_BASE/images"
	api POST "/images/$1/tag?repo=$2&tag=$3" >/dev/null
}

# api_body METHOD PATH JSON: the Engine API with a JSON body.
api_body() {
	curl -sS --unix-socket "$SOCK" -X "$1" -H 'Content-Type: application/json' -d "$3" "http://localhost$2"
}

# recreate_with TASK SERVICE JQ: the attack done by hand, not through
# taskenv: SERVICE's container is replaced by one of the same name, labels
# and networks whose HostConfig went through the jq filter JQ, and started.
recreate_with() {
	local name=$1-$2-1 j hc body resp
	j=$(api GET "/containers/$name/json")
	# Podman reports ulimits as RLIMIT_NOFILE, and takes them back only as nofile
	# and NanoCpus next to the CpuPeriod/CpuQuota it derived from them, which it refuses back
	hc=$(jq -c ".HostConfig | .Ulimits = ((.Ulimits // []) | map(.Name |= (ascii_downcase | ltrimstr(\"rlimit_\"))))
		| if (.NanoCpus // 0) > 0 then del(.CpuPeriod, .CpuQuota) else . end | $3" <<<"$j")
	# a joined network namespace takes no hostname, ports or endpoints of its own
	body=$(jq -c --argjson hc "$hc" 'if ($hc.NetworkMode | startswith("container:")) then
			.Config | del(.Hostname, .Domainname, .ExposedPorts) | . + {HostConfig: $hc}
		else .Config + {HostConfig: $hc,
			NetworkingConfig: {EndpointsConfig: (.NetworkSettings.Networks | with_entries(.value |= {Aliases}))}} end' <<<"$j")
	api DELETE "/containers/$name?force=1" >/dev/null
	resp=$(api_body POST "/containers/create?name=$name" "$body")
	jq -er .Id <<<"$resp" >>"$SEC_BASE/handmade" || fail "could not recreate $name: $resp: $body"
	api POST "/containers/$name/start" >/dev/null
	[ "$(api GET "/containers/$name/json" | jq -r .State.Running)" = true ] || fail "$name does not run after the change"
}

# ---- the runner ----

# The shared server containers and networks on the engine (ids), which
# down leaves running: those a case started are removed at its end.
sec_shared() {
	local f
	f=$(jq -rn '{label: ["io.taskenv.shared"]} | @uri')
	api GET "/containers/json?all=1&filters=$f" | jq -r '.[].Id'
	api GET /networks | jq -r '.[] | select(.Name | startswith("0--taskenv-shared")) | "net \(.Id)"'
}

sec_teardown() {
	local t i
	# the containers a case made by hand (recreate_with) first, by id: the
	# ledger does not know them, and they would keep the task's network
	if [ -f "$SEC_BASE/handmade" ]; then
		while read -r i; do api DELETE "/containers/$i?force=1&v=1" >/dev/null 2>&1 || true; done <"$SEC_BASE/handmade"
	fi
	for t in "${SEC_TASKS[@]}"; do
		te down -t "$t" --volumes --rmi all --timeout 1 >/dev/null 2>&1 || true
	done
	for i in $(sec_shared | grep -v '^net ' | grep -vxFf "$SEC_BASE/shared.before"); do
		api DELETE "/containers/$i?force=1&v=1" >/dev/null 2>&1 || true
	done
	for i in $(sec_shared | sed -n 's/^net //p' | grep -vxFf <(sed -n 's/^net //p' "$SEC_BASE/shared.before")); do
		api DELETE "/networks/$i" >/dev/null 2>&1 || true
	done
	if [ -f "$SEC_BASE/images" ]; then
		while read -r i; do api DELETE "/images/$i?force=1" >/dev/null 2>&1 || true; done <"$SEC_BASE/images"
	fi
}

# sec_out_finding WHAT TEXT: TEXT holds the finding the case expects: a line
# with FILE:LINE: (when LINE is set), matching KEY and ALLOW (EREs).
sec_finding() {
	local what=$1 text=$2 lines
	# the task's name holds the case's words (sec-exec-privileged): not a match
	text=${text//$SEC_TASK/TASK}
	lines=$text
	if [ -n "$LINE" ]; then
		lines=$(grep -E -- "(^|/)${FILE//./\\.}:(${LINE}):[0-9]+:" <<<"$text") ||
			fail "$what: no finding at $FILE:$LINE: in: $text"
	fi
	lines=$(grep -E -- "$KEY" <<<"$lines") || fail "$what: no finding naming /$KEY/ (at $FILE:${LINE:-any}) in: $text"
	grep -Eq -- "$ALLOW" <<<"$lines" || fail "$what: the finding does not name /$ALLOW/: $lines"
}

# sec_refused VERB ARGS...: the verb (run in the case's directory) exits RC,
# names the finding, creates nothing and leaves no ledger row of the task.
sec_refused() {
	local verb=$1 before rc=0 err
	shift
	before=$(sec_snapshot)
	err=$(cd "$SEC_DIR/$CWD" && te "$verb" "$@" 2>&1 >"$SEC_BASE/$verb.out") || rc=$?
	# check prints its findings on stdout, the verbs on stderr
	[ "$verb" != check ] || err="$(cat "$SEC_BASE/$verb.out")"$'\n'"$err"
	grep -Eqx -- "$RC" <<<"$rc" || fail "$verb: expected exit $RC, got $rc: $err"
	sec_finding "$verb" "$err"
	assert_eq "$(sec_snapshot)" "$before" "($verb created or removed engine objects: $err)"
	assert_no_trace "$SEC_TASK"
}

# A verb that must succeed, its output shown when it does not.
sec_ok() {
	local verb=$1
	shift
	(cd "$SEC_DIR/$CWD" && te "$verb" "$@" >"$SEC_BASE/$verb.log" 2>&1) || {
		cat "$SEC_BASE/$verb.log" >&2
		fail "$verb $* (expected to succeed)"
	}
}

# The task is up, then the project changes (mutate), then VERB must refuse
# it: exit 1 with the finding, no container of the task (re)started, none
# added.
sec_after_up() {
	local before rc=0 err
	sec_ok up -t "$SEC_TASK"
	case $VERB in start) sec_ok stop -t "$SEC_TASK" --timeout 1 ;; esac
	before=$(sec_containers "$SEC_TASK")
	[ -n "$before" ] || fail "no container of $SEC_TASK after up"
	(cd "$SEC_DIR" && case_mutate)
	# shellcheck disable=SC2086 # VERB_ARGS is a word list
	err=$(cd "$SEC_DIR/$CWD" && te "$VERB" -t "$SEC_TASK" $VERB_ARGS 2>&1 >"$SEC_BASE/verb.out") || rc=$?
	grep -Eqx -- "$RC" <<<"$rc" || fail "$VERB: expected exit $RC, got $rc: $err"
	sec_finding "$VERB" "$err"
	assert_eq "$(sec_containers "$SEC_TASK" | awk '{print $1, $2}')" "$(awk '{print $1, $2}' <<<"$before")" \
		"($VERB started or added a container: $err)"
}

# The task is up and verify passes; then the test changes a running
# container by hand (case_mutate: Engine calls, not taskenv), and verify
# must FAIL, naming the container (VERIFY_CONTAINER, default TASK-a-1) and
# the field (KEY) on its FAIL lines.
sec_verify() {
	local rc=0 out lines
	sec_ok up -t "$SEC_TASK"
	sec_ok verify -t "$SEC_TASK"
	(cd "$SEC_DIR" && case_mutate)
	out=$(te verify -t "$SEC_TASK" 2>&1) || rc=$?
	assert_eq "$rc" 1 "(verify after the change: $out)"
	lines=$(grep -E 'FAIL' <<<"$out") || fail "no FAIL line: $out"
	log "    verify: $(tr "\n" "|" <<<"$lines")"
	grep -qF -- "${VERIFY_CONTAINER:-$SEC_TASK-a-1}" <<<"$lines" || fail "the FAIL lines do not name ${VERIFY_CONTAINER:-$SEC_TASK-a-1}: $lines"
	# the field, not a word of the task's own name (sec-verify-devices)
	grep -Eq -- "$KEY" <<<"${lines//$SEC_TASK/TASK}" || fail "the FAIL lines do not name /$KEY/: $lines"
}

# The benign twin: check passes, up brings it up (at least one container
# running), the case's own assertions (after) hold, down removes it all.
sec_benign() {
	sec_ok check
	sec_ok up -t "$SEC_TASK"
	grep -q ' true$' <<<"$(sec_containers "$SEC_TASK")" || fail "no container of $SEC_TASK is running"
	if declare -F case_after >/dev/null; then (cd "$SEC_DIR" && case_after); fi
	te down -t "$SEC_TASK" --volumes --timeout 1 >/dev/null
	assert_eq "$(count_task_objects "$SEC_TASK")" "0"
}

sec_case() {
	local name=$1 src=$SEC_CASES/$1
	# the case's expectation (tests/security/README.md), defaults first
	VERB=file RC=1 KEY=. ALLOW=. LINE='' FILE=compose.yaml CWD=. CHECK_RC=0 VERB_ARGS=''
	SEC_TASK=sec-${name//_/-}
	SEC_TASK=${SEC_TASK:0:40}
	VICTIM=$SEC_TASK-v
	# the victim too, whether or not the case started one (down of a task
	# that is not there changes nothing)
	SEC_TASKS=("$SEC_TASK" "$VICTIM")
	SEC_BASE=$(mktemp -d "$WORK/sec.XXXX")
	SEC_DIR=$SEC_BASE/repo
	sec_shared >"$SEC_BASE/shared.before"
	trap sec_teardown EXIT
	# shellcheck source=/dev/null
	. "$src/case.sh"
	cp -a "$src/." "$SEC_DIR/"
	rm -f "$SEC_DIR/case.sh"
	git init -q "$SEC_DIR"
	# outside the repository, next to it: what an escape would reach
	mkdir -p "$SEC_BASE/outside" "$SEC_BASE/home/.ssh"
	printf 'LEAKED=outside\n' >"$SEC_BASE/outside/secret.env"
	printf 'FROM taskenv-test/busybox:1\n' >"$SEC_BASE/outside/Dockerfile"
	printf 'services:\n  evil: {image: taskenv-test/busybox:1, privileged: true}\n' >"$SEC_BASE/outside/x.yaml"
	printf 'not a key\n' >"$SEC_BASE/home/.ssh/id_ed25519"
	HOME=$SEC_BASE/home
	export HOME
	subst BASE "$SEC_BASE"
	subst DIR "$SEC_DIR"
	subst SOCK "$SOCK"
	subst SOCKDIR "$(dirname "$SOCK")"
	subst HOME "$HOME"
	subst TASK "$SEC_TASK"
	subst VICTIM "$VICTIM"
	# not in a subshell: what setup exports (drv_servers) the verbs see
	if declare -F case_setup >/dev/null; then cd "$SEC_DIR" && case_setup; fi
	case $VERB in
	file) # refused by check (from the files alone) and by up
		sec_refused check
		sec_refused up -t "$SEC_TASK"
		# one exception named: granting it from the trusted side opens the file
		if [[ $ALLOW =~ ^[a-z][a-zA-Z0-9:_-]*$ && $ALLOW != refused ]]; then
			(cd "$SEC_DIR/$CWD" && te check --allow "$ALLOW" >"$SEC_BASE/grant.log" 2>&1) ||
				fail "check --allow $ALLOW still refuses: $(cat "$SEC_BASE/grant.log")"
		fi
		;;
	up) # only up can judge it (the engine's objects): check exits CHECK_RC
		local rc=0
		(cd "$SEC_DIR/$CWD" && te check >"$SEC_BASE/check.log" 2>&1) || rc=$?
		grep -Eqx -- "$CHECK_RC" <<<"$rc" || fail "check: expected exit $CHECK_RC, got $rc: $(cat "$SEC_BASE/check.log")"
		sec_refused up -t "$SEC_TASK"
		;;
	restart | start | run | exec) sec_after_up ;;
	benign) sec_benign ;;
	verify) sec_verify ;;
	custom) case_run ;;
	*) fail "case $name: unknown VERB '$VERB'" ;;
	esac
	sec_teardown
	trap - EXIT
	local t
	for t in "${SEC_TASKS[@]}"; do assert_eq "$(count_task_objects "$t")" "0" "(left by $t)"; done
}
