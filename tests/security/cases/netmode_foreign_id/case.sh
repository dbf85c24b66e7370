# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# network_mode joins another task's container by id
KEY=network_mode ALLOW=refused LINE=6
case_setup() { victim_up; subst VID "$(sec_inspect "$VICTIM" v | jq -r .Id)"; }
