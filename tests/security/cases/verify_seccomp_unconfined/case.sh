# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the container recreated by hand with seccomp off: verify FAILs
VERB=verify KEY='seccomp|SecurityOpt|security'
case_mutate() { recreate_with "$SEC_TASK" a '.SecurityOpt = ((.SecurityOpt // []) + ["seccomp=unconfined"])'; }
