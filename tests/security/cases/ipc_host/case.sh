# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the host's ipc namespace
KEY=ipc ALLOW='host-ipc|refused' LINE=6
