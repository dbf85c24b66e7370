# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a host credential passed in by interpolation
KEY=environment ALLOW=host-credentials LINE='6|7'
export AWS_SECRET_ACCESS_KEY=sectests-not-a-real-key
