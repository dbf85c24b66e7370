# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# evidence -o an existing non-empty directory: refused, what is there untouched
VERB=custom
case_run() {
	local rc=0 d=$SEC_BASE/outside before
	sec_ok up -t "$SEC_TASK"
	# the directory itself (its mtime moves when anything is made or removed in it)
	# and what it holds; not "..", where this case writes its own log
	before=$(stat -c '%i %y' "$d"; ls -lA --time-style=full-iso "$d"; md5sum "$d"/*)
	te evidence -t "$SEC_TASK" -o "$d" >"$SEC_BASE/ev.log" 2>&1 || rc=$?
	assert_eq "$rc" 2 "(evidence into a non-empty directory: $(cat "$SEC_BASE/ev.log"))"
	assert_eq "$(stat -c '%i %y' "$d"; ls -lA --time-style=full-iso "$d"; md5sum "$d"/*)" "$before" "(the directory changed)"
}
