# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# an external network named after another task's network
KEY=networks ALLOW=refused LINE='2|7|8|9' VERB=up CHECK_RC='0|1'
case_setup() { victim_up; }
