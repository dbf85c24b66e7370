# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the container recreated by hand with CAP_SYS_ADMIN: verify FAILs
VERB=verify KEY='SYS_ADMIN|CapAdd|capabilit'
case_mutate() { recreate_with "$SEC_TASK" a '.CapAdd = ((.CapAdd // []) + ["SYS_ADMIN"])'; }
