# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# x-taskenv.allow engine-socket next to a bind of the engine socket
KEY=volumes ALLOW=engine-socket LINE=8
