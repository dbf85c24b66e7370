# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# any io.taskenv. label is reserved
KEY=labels ALLOW=refused LINE=6
