# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a named volume that is a bind of /etc
KEY='volumes|driver_opts|device' ALLOW=. LINE='8|11'
