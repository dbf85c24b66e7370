# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# evidence -o an existing non-empty directory: refused, what is there untouched
VERB=custom
case_run() {
	local rc=0 d=$SEC_BASE/outside
	sec_ok up -t "$SEC_TASK"
	before=$(ls -la --time-style=full-iso "$d"; md5sum "$d"/*)
	te evidence -t "$SEC_TASK" -o "$d" >"$SEC_BASE/ev.log" 2>&1 || rc=$?
	[ "$rc" != 0 ] || fail "evidence into a non-empty directory succeeded: $(cat "$SEC_BASE/ev.log")"
	assert_eq "$(ls -la --time-style=full-iso "$d"; md5sum "$d"/*)" "$before" "(the directory changed)"
}
