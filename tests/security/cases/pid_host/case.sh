# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the host's pid namespace
KEY=pid ALLOW='host-pid|refused' LINE=6
