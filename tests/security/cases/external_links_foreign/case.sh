# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a link to another task's container (external_links: not implemented, exit 2)
KEY=external_links RC=2 LINE=6
case_setup() { victim_up; }
