# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the host's network namespace
KEY=network_mode ALLOW='host-network|refused' LINE=6
