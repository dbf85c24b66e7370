# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# network_mode default is the engine's bridge
KEY=network_mode ALLOW=refused LINE=6
