# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the host's / through /proc/1/root
KEY=volumes ALLOW='bind-system' LINE=6
