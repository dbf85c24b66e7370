# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# an external volume that is another task's named volume
KEY=volumes ALLOW=refused LINE='2|6|8|9|10' VERB=up CHECK_RC='0|1'
case_setup() { victim_up; }
