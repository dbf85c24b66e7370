# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# an inline seccomp profile that allows everything
KEY=security_opt ALLOW=refused LINE=6
