# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# benign twin of the swaps: a bind inside the project and a named volume survive
# restart, stop/start and run, which re-judge the live container
VERB=benign
case_setup() { mkdir -p data; }
case_after() {
	sec_ok restart -t "$SEC_TASK" --timeout 1
	sec_ok stop -t "$SEC_TASK" --timeout 1
	sec_ok start -t "$SEC_TASK"
	sec_ok run -t "$SEC_TASK" --rm a true
	[ "$(sec_inspect "$SEC_TASK" a | jq -r .State.Running)" = true ] || fail "a is not running after start"
}
