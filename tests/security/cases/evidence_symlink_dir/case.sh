# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# evidence -o a path the project made a symlink to a directory outside: nothing is
# written through the link
VERB=custom
case_run() {
	local rc=0
	sec_ok up -t "$SEC_TASK"
	mkdir -p "$SEC_BASE/outside/target"
	ln -s "$SEC_BASE/outside/target" "$SEC_DIR/evidence"
	te evidence -t "$SEC_TASK" -o "$SEC_DIR/evidence" >"$SEC_BASE/ev.log" 2>&1 || rc=$?
	assert_eq "$(find "$SEC_BASE/outside/target" -mindepth 1 | head -3)" "" "(evidence wrote through the symlink, exit $rc: $(cat "$SEC_BASE/ev.log"))"
}
