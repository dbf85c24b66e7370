# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the host's uts namespace (sethostname on the host)
KEY=uts ALLOW='host-uts|refused' LINE=6
