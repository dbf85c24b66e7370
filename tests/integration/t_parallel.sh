# Issue 14: one dependency level at once (up and down), each service's own
# stop settings, the label sweep that ends `down`, gc --orphans of other
# ledgers, and a plan that cannot fit refused before anything is created.
# shellcheck shell=bash
# SOCK is exported by tests/integration/run.sh.
# shellcheck disable=SC2153

SLOW_FILE="$TE_ROOT/tests/data/compose/slowstop/compose.yaml"

# die_times SINCE UNTIL TASK: "name exitcode timeNano" of each container of
# TASK that died between SINCE and UNTIL (seconds), from the engine's events.
die_times() {
	# Filtered here, not by the engine: Podman's compat filter on event
	# names does not match its "died".
	api GET "/events?since=$1&until=$2" |
		jq -r --arg p "$3-" 'select((.Action // .status) == "die" and ((.Actor.Attributes.name // "") | startswith($p))) |
			"\(.Actor.Attributes.name) \(.Actor.Attributes.exitCode) \(.timeNano)"'
}

# Acceptance 6: four services that ignore SIGTERM with stop_grace_period: 3s
# are stopped together. Each stop lasts at least its grace period (the
# engine kills after 3 s: exit 137), so stops one after the other would die
# at least 3 s apart; all four dying within less than one grace period of
# each other means their stop intervals overlapped. (The wall time of
# `down` is the benchmark's, bench/compare.sh.)
test_slow_stop_overlaps() {
	local t0 t1 out dies span
	te up -f "$SLOW_FILE" -t pslow >/dev/null 2>&1
	# The plan sends each service's own stop settings.
	out=$(api GET /containers/pslow-s1-1/json)
	assert_eq "$(jq -r '.Config.StopTimeout' <<<"$out")" "3" "(StopTimeout)"
	t0=$(date +%s)
	out=$(te down -t pslow 2>&1)
	t1=$(($(date +%s) + 1))
	grep -Eq 'container +pslow-s1-1 +stopping' <<<"$out" || fail "no stopping line: $out"
	assert_contains "$out" "stopped ("
	dies=$(die_times "$t0" "$t1" pslow)
	assert_eq "$(grep -c . <<<"$dies")" "4" "(die events: $dies)"
	# Killed after the grace period, not asked to stop at once.
	assert_eq "$(awk '{print $2}' <<<"$dies" | sort -u)" "137" "(exit codes: $dies)"
	span=$(awk 'NR == 1 {lo = hi = $3} {if ($3 < lo) lo = $3; if ($3 > hi) hi = $3} END {printf "%d", (hi - lo) / 1e6}' <<<"$dies")
	[ "$span" -lt 3000 ] || fail "stops did not overlap: deaths ${span} ms apart (grace 3000 ms): $dies"
	assert_no_trace pslow
}

# --timeout overrides every service's own grace period.
test_timeout_overrides_grace() {
	local t0 t1 dies late
	te up -f "$SLOW_FILE" -t ptimeout >/dev/null 2>&1
	t0=$(date +%s%N)
	te down -t ptimeout --timeout 0 >/dev/null 2>&1
	t1=$(($(date +%s) + 1))
	dies=$(die_times "$((t0 / 1000000000))" "$t1" ptimeout)
	assert_eq "$(grep -c . <<<"$dies")" "4" "(die events: $dies)"
	# Killed at once: each died well before its own 3 s would have ended.
	late=$(awk -v t0="$t0" '($3 - t0) / 1e6 >= 2500' <<<"$dies")
	assert_eq "$late" "" "(died after 2.5 s despite --timeout 0)"
	assert_no_trace ptimeout
}

# One failed create in a level does not lose the others: a foreign
# container holds the name of s2; s1, s3 and s4 are created, started and
# recorded, and `down` removes them and leaves the foreign one alone.
test_level_errors_per_object() {
	local foreign out rows
	foreign=$(curl -sS --unix-socket "$SOCK" -X POST -H 'Content-Type: application/json' \
		-d '{"Image":"taskenv-test/busybox:1","Cmd":["sleep","60"]}' \
		"http://localhost/containers/create?name=perr-s2-1" | jq -r .Id)
	if [ -z "$foreign" ] || [ "$foreign" = null ]; then fail "could not create the foreign container"; fi
	expect_exit 1 te up -f "$SLOW_FILE" -t perr
	assert_contains "$OUT" "perr-s2-1' already exists and does not belong"
	rows=$(python3 - "$TASKENV_STATE" <<-'PY'
		import sqlite3, sys
		c = sqlite3.connect(sys.argv[1])
		for (n,) in c.execute("select name from resources where task = 'perr' and kind = 'container'"
		                      " and state = 'created' and engine_id is not null order by name"):
		    print(n)
	PY
	)
	assert_eq "$(tr '\n' ' ' <<<"$rows")" "perr-s1-1 perr-s3-1 perr-s4-1 "
	for c in perr-s1-1 perr-s3-1 perr-s4-1; do
		assert_eq "$(api GET "/containers/$c/json" | jq -r .State.Running)" "true" "($c running)"
	done
	out=$(te down -t perr --timeout 0 2>&1) || fail "down: $out"
	assert_no_trace perr
	assert_eq "$(api GET "/containers/$foreign/json" | jq -r .Id)" "$foreign" "(foreign container kept)"
	api DELETE "/containers/$foreign?force=1" >/dev/null
}

# A process killed inside an engine create can leave an object the ledger
# does not hold: here `up` is killed right after the engine made
# psweep-worker-1, and its row is then marked removed as a `down` that
# looked the name up before the engine finished would have. The label sweep
# at the end of `down` still finds it (this task, this ledger's id).
test_down_label_sweep() {
	local rc=0 out
	TASKENV_FAULT=after-create:container:psweep-worker-1 te up -f "$TE_ROOT/tests/data/compose/pair/compose.yaml" \
		-t psweep >/dev/null 2>&1 || rc=$?
	assert_eq "$rc" "137" "(up killed after the create)"
	python3 - "$TASKENV_STATE" <<-'PY'
		import sqlite3, sys
		c = sqlite3.connect(sys.argv[1])
		c.execute("update resources set state = 'removed' where task = 'psweep' and name = 'psweep-worker-1'")
		c.commit()
	PY
	assert_eq "$(engine_names containers io.taskenv.task=psweep | sort | tr '\n' ' ')" "psweep-web-1 psweep-worker-1 "
	out=$(te down -t psweep --timeout 0 2>&1) || fail "down: $out"
	grep -Eq 'container +psweep-worker-1 +removed \(found by its labels' <<<"$out" || fail "no sweep line: $out"
	assert_no_trace psweep
}

# A plan that cannot fit: two containers on a network whose /30 subnet
# holds one; refused before anything is created, naming the setting.
test_plan_cannot_fit() {
	TASKENV_SUBNET_PREFIX=30 expect_exit 2 te up -f "$TE_ROOT/tests/data/compose/pair/compose.yaml" -t pfit
	assert_contains "$OUT" "network 'default': 2 containers do not fit in a /30 subnet"
	assert_contains "$OUT" "set subnet_prefix (TASKENV_SUBNET_PREFIX"
	assert_contains "$OUT" "to 29 or lower"
	assert_no_trace pfit
}

# A zero-length ledger file is refused, not re-initialised over.
test_empty_ledger_refused() {
	: >"$WORK/empty.db"
	TASKENV_STATE=$WORK/empty.db expect_exit 1 te ps
	assert_contains "$OUT" "is empty (0 bytes): refusing to start a new ledger over it"
	assert_eq "$(stat -c %s "$WORK/empty.db")" "0" "(the empty file is left as it was)"
	rm -f "$WORK/empty.db"
}

# Acceptance 8: a deleted ledger's objects are listed by its id and removed
# on request; a live ledger's (this one's, and one whose file is still in
# the state directory) are never touched.
test_gc_orphans_other_ledger() {
	local b=$WORK/gc-other.db id live_before out
	te up -f "$TE_ROOT/tests/data/compose/pair/compose.yaml" -t pgc-live >/dev/null 2>&1
	TASKENV_STATE=$b te up -f "$SLOW_FILE" -t pgc-dead >/dev/null 2>&1
	id=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select value from meta where key=\"ledger_id\"").fetchone()[0])' "$b")
	live_before=$(engine_names containers io.taskenv.task=pgc-live | sort)
	# While its file is there, the other ledger is live: listed, not removable.
	out=$(te gc --orphans 2>&1)
	assert_contains "$out" "ledger $id: 4 container(s), 1 network(s), 0 volume(s)"
	assert_contains "$out" "held by the ledger file $b"
	expect_exit 1 te gc --orphans --ledger-id "$id" --yes
	assert_contains "$OUT" "is held by the ledger file"
	assert_eq "$(count_task_objects pgc-dead)" "5" "(nothing of a live ledger removed)"
	# Deleted: listed as removable, removed only with --yes, one group.
	rm -f "$b" "$b-wal" "$b-shm"
	out=$(te gc --orphans 2>&1)
	assert_contains "$out" "tasks: pgc-dead"
	assert_contains "$out" "no ledger file here holds it: taskenv gc --orphans --ledger-id $id --yes"
	expect_exit 2 te gc --orphans --ledger-id "$id"
	assert_eq "$(count_task_objects pgc-dead)" "5" "(nothing removed without --yes)"
	# Hostile ids: a filter-breaking string, and this ledger's own id.
	expect_exit 0 te gc --orphans --ledger-id 'x"],"label":["io.taskenv.task=pgc-live' --yes
	expect_exit 2 te gc --orphans --ledger-id "$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select value from meta where key=\"ledger_id\"").fetchone()[0])' "$TASKENV_STATE")" --yes
	expect_exit 0 te gc --orphans --ledger-id "$id" --yes
	assert_contains "$OUT" "removed 5, remaining 0"
	assert_eq "$(count_task_objects pgc-dead)" "0" "(the deleted ledger's objects)"
	assert_eq "$(engine_names containers io.taskenv.task=pgc-live | sort)" "$live_before" "(live task untouched)"
	assert_eq "$(api GET /containers/pgc-live-web-1/json | jq -r .State.Running)" "true"
	te down -t pgc-live --timeout 0 >/dev/null 2>&1
	assert_no_trace pgc-live
}

# SIGKILL inside an engine create (TASKENV_FAULT=during-create:..., the
# kill lands TASKENV_FAULT_DELAY_MS after the create is sent), at several
# delays: whatever the engine made of the request, `down` leaves nothing
# labelled with the task and forgets it only then.
test_sigkill_inside_create() {
	local d rc out task killed=0
	for d in 0 1 3 6 12 25; do
		task=pkill-$d rc=0
		TASKENV_FAULT=during-create:container:$task-worker-1 TASKENV_FAULT_DELAY_MS=$d \
			te up -f "$TE_ROOT/tests/data/compose/pair/compose.yaml" -t "$task" >/dev/null 2>&1 || rc=$?
		case $rc in
		137) killed=$((killed + 1)) ;;
		0) ;; # the create, start and the rest finished within the delay
		*) fail "up of $task: exit $rc" ;;
		esac
		out=$(te down -t "$task" --timeout 0 2>&1) || fail "down of $task: $out"
		assert_no_trace "$task"
	done
	[ "$killed" -gt 0 ] || fail "no up was killed inside its create"
}
