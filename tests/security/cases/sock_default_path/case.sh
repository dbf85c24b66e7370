# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the default docker socket path
KEY=volumes ALLOW=engine-socket LINE=6
