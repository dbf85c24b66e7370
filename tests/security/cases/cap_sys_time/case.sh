# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a capability outside Docker's default set (sets the host clock)
KEY=cap_add ALLOW='cap:SYS_TIME' LINE=6
