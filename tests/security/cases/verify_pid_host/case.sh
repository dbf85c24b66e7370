# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the container recreated by hand in the host's pid namespace: verify FAILs
VERB=verify KEY='pid|PidMode'
case_mutate() { recreate_with "$SEC_TASK" a '.PidMode = "host" | .Init = false'; }
