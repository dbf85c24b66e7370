# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the container recreated by hand with the host's /etc bound: verify FAILs
VERB=verify KEY='/etc|bind|mount|Binds'
case_mutate() { recreate_with "$SEC_TASK" a '.Binds = ((.Binds // []) + ["/etc:/host-etc"])'; }
