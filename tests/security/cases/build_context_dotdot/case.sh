# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a build context above the repository
KEY='build|context' ALLOW=. LINE='6|7'
