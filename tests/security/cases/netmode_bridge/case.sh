# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the engine's shared default network: every task's neighbour
KEY=network_mode ALLOW=refused LINE=6
