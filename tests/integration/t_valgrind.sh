# Issue 2, acceptance 8: no definite leaks in up, ps, down on a real engine
# (and, issue 5, in contract, verify, events, evidence).
# shellcheck shell=bash

test_valgrind_up_ps_down() {
	local dir verb log
	command -v valgrind >/dev/null || fail "valgrind is not installed"
	dir=$(copy_example agent-pair)
	log=$WORK/valgrind.log
	for verb in "up -t vg -f $dir/compose.yaml" "ps" "ps -t vg" "ps --json" "env -t vg" \
		"contract -t vg" "contract -t vg --format json" "verify -t vg" "events -t vg --json" \
		"evidence -t vg -o $WORK/vg-evidence" "down -t vg --volumes"; do
		# shellcheck disable=SC2086
		valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 -q \
			--log-file="$log" "$TASKENV" $verb >/dev/null 2>&1 || {
			cat "$log" >&2
			fail "valgrind reports errors or definite leaks for 'taskenv $verb'"
		}
	done
	assert_eq "$(count_task_objects vg)" "0"
}
