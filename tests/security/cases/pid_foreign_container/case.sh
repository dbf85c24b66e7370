# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# pid joins another task's container (its processes visible, ptrace-able)
KEY=pid ALLOW=refused LINE=6
case_setup() { victim_up; }
