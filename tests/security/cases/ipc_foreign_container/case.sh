# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# ipc joins another task's container (its shared memory)
KEY=ipc ALLOW=refused LINE=6
case_setup() { victim_up; }
