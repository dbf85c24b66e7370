# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the host's /
KEY=volumes ALLOW='bind-system|engine-socket' LINE=6
