# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a macvlan network (on the host's interface)
KEY='networks|driver' ALLOW=. LINE='7|8|9'
