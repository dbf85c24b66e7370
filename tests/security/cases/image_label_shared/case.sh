# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# an image whose LABELs carry io.taskenv.*: never a shared server nor another task's
VERB=custom
case_run() {
	local rc=0 labels
	(cd "$SEC_DIR" && te up -t "$SEC_TASK" >"$SEC_BASE/up.log" 2>&1) || rc=$?
	if [ $rc -ne 0 ]; then
		# refusing it is fine too, as long as nothing is left
		grep -q 'io.taskenv' "$SEC_BASE/up.log" || fail "up failed without naming the label: $(cat "$SEC_BASE/up.log")"
		assert_eq "$(count_task_objects "$SEC_TASK")" 0
		return
	fi
	labels=$(sec_inspect "$SEC_TASK" a | jq -c .Config.Labels)
	assert_eq "$(jq -r '.["io.taskenv.shared"] // "absent"' <<<"$labels")" absent "(the image's label made it a shared server)"
	assert_eq "$(jq -r '.["io.taskenv.task"]' <<<"$labels")" "$SEC_TASK"
	assert_eq "$(engine_names containers io.taskenv.shared | grep -c . || true)" 0 "(a shared container)"
}
case_setup() { printf 'FROM taskenv-test/busybox:1\nLABEL io.taskenv.shared=postgres io.taskenv.task=victim io.taskenv.owner=x\n' >Dockerfile; }
