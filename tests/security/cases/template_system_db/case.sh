# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# template: the server's system database postgres
KEY=template ALLOW='template:postgres|refused' LINE=7 VERB=up CHECK_RC='0|1'
