# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a Dockerfile above the repository
KEY='build|dockerfile' ALLOW=. LINE='6|8'
