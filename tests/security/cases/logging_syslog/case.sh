# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a log driver other than json-file/local (the host's syslog)
VERB=custom
case_run() {
	local rc=0 t
	(cd "$SEC_DIR" && te up -t "$SEC_TASK" >"$SEC_BASE/up.log" 2>&1) || rc=$?
	if [ $rc -ne 0 ]; then
		grep -q 'logging' "$SEC_BASE/up.log" || fail "up failed without naming logging: $(cat "$SEC_BASE/up.log")"
		assert_eq "$(count_task_objects "$SEC_TASK")" 0
		return
	fi
	t=$(sec_inspect "$SEC_TASK" a | jq -r .HostConfig.LogConfig.Type)
	case $t in json-file | local | k8s-file | journald | passthrough) ;; *) fail "log driver $t reached the engine" ;; esac
}
