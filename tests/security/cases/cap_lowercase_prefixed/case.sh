# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# sys_admin in lower case with the CAP_ prefix is still SYS_ADMIN
KEY=cap_add ALLOW='cap:SYS_ADMIN' LINE=6
