# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the repository's own config runs commands (core.fsmonitor, diff.external, hooks,
# aliases): no git command taskenv runs in the tree (up, contract, verify, evidence) runs them
VERB=custom
case_setup() {
	local m=$SEC_BASE/pwned
	git -c user.name=t -c user.email=t@t add -A && git -c user.name=t -c user.email=t@t commit -qm base
	git config core.fsmonitor "touch $m-fsmonitor; false"
	git config diff.external "sh -c 'touch $m-diff'"
	git config core.hooksPath "$SEC_DIR/hooks"
	git config alias.status "!touch $m-alias"
	mkdir -p hooks && printf '#!/bin/sh\ntouch %s-hook\n' "$m" >hooks/post-index-change && chmod +x hooks/post-index-change
	echo changed >>compose.yaml.note
}
case_run() {
	sec_ok up -t "$SEC_TASK"
	te contract -t "$SEC_TASK" >/dev/null 2>&1 || true
	te verify -t "$SEC_TASK" >/dev/null 2>&1 || true
	te evidence -t "$SEC_TASK" -o "$SEC_BASE/evidence" >/dev/null 2>&1 || true
	[ -f "$SEC_BASE/evidence/git-status.txt" ] || fail "evidence wrote no git-status.txt (git did not run?)"
	local p
	p=$(find "$SEC_BASE" -maxdepth 1 -name 'pwned*' -printf '%f ')
	assert_eq "$p" "" "(the repository's config ran a command)"
}
