# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the container recreated by hand in another task's network namespace: verify FAILs
VERB=verify KEY='network|NetworkMode|container:'
case_setup() { victim_up; }
case_mutate() { recreate_with "$SEC_TASK" a ".NetworkMode = \"container:$VICTIM-v-1\" | .PortBindings = {}"; }
