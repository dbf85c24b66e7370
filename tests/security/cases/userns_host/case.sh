# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the host's user namespace
KEY=userns_mode ALLOW='host-userns|refused' LINE=6
