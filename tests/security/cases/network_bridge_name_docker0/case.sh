# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a bridge network whose driver options take the engine's docker0
KEY='networks|driver_opts' ALLOW=. LINE='7|9'
