# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# io.taskenv.task in the file: the container poses as another task's
KEY=labels ALLOW=refused LINE=6
