# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# another task's volumes through volumes_from
KEY=volumes_from ALLOW='other-container|refused' LINE=6
case_setup() { victim_up; }
