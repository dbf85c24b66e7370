# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the file grants itself an exception: x-taskenv.allow only names it
KEY=privileged ALLOW=privileged LINE=8
