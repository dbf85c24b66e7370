# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the task's container connected by hand to another task's network: verify FAILs
VERB=verify KEY='network|Network'
case_setup() { victim_up; }
case_mutate() { api_body POST "/networks/$VICTIM"_default/connect "{\"Container\": \"$SEC_TASK-a-1\"}" >/dev/null; }
