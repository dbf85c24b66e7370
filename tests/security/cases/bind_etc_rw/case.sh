# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the host's /etc read-write
KEY=volumes ALLOW='bind-system' LINE=6
