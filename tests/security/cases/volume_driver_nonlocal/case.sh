# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a volume driver other than local
KEY='volumes|driver' ALLOW=. LINE='8|9'
