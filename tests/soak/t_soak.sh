# Soak tests (tests/soak/run.sh), sourced by the integration harness after
# tests/integration/t_cleanup.sh, whose helpers they use.
# shellcheck shell=bash

test_scale_64() {
	local start=$SECONDS
	scale_tasks 64 8
	log "    64 tasks up, checked and down in $((SECONDS - start)) s"
}

# One worker: random operations on the shared tasks until the budget is spent.
churn_worker() {
	local id=$1 ops=$2 deadline=$3 i task op p
	for ((i = 0; i < ops && SECONDS < deadline; i++)); do
		task=ct-$((RANDOM % 6))
		op=$((RANDOM % 5))
		case $op in
		0 | 1) "$TASKENV" up -f "$PAIR_FILE" -t "$task" --lease 1s >/dev/null 2>&1 || true ;;
		2)
			"$TASKENV" up -f "$PAIR_FILE" -t "$task" --lease 1s >/dev/null 2>&1 &
			p=$!
			sleep "0.$((RANDOM % 6))"
			kill -KILL "$p" 2>/dev/null || true
			wait "$p" 2>/dev/null || true
			;;
		3) "$TASKENV" down -t "$task" --timeout 0 >/dev/null 2>&1 || true ;;
		4) "$TASKENV" gc --timeout 0 >/dev/null 2>&1 || true ;;
		esac
		echo "$id $task $op" >>"$WORK/churn.log"
	done
}

test_churn() {
	local ops=${SOAK_OPS:-200} secs=${SOAK_SECS:-300} w pids=() t deadline
	deadline=$((SECONDS + secs))
	for w in 1 2 3 4; do
		churn_worker "$w" $((ops / 4)) "$deadline" &
		pids+=($!)
	done
	for w in "${pids[@]}"; do wait "$w"; done
	log "    $(grep -c . "$WORK/churn.log") operations in $((SECONDS - deadline + secs)) s"
	for t in 0 1 2 3 4 5; do
		te down -t "ct-$t" --volumes --timeout 0 >/dev/null 2>&1 || fail "final down of ct-$t"
	done
	te gc --timeout 0 >/dev/null 2>&1 || fail "final gc"
	for t in 0 1 2 3 4 5; do assert_task_gone "ct-$t"; done
	assert_eq "$(count_task_objects "")" "0" "(objects labelled io.taskenv.task)"
	assert_eq "$(python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(sum(c.execute(q).fetchone()[0] for q in ("select count(*) from ports", "select count(*) from subnets", "select count(*) from resources where state <> '"'removed'"'")))' "$TASKENV_STATE")" "0" "(ledger ports, subnets, live rows)"
}
