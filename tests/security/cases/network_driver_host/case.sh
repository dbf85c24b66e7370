# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a network of the host driver
KEY='networks|driver' ALLOW=. LINE='7|8'
