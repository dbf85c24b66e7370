# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# privileged: every device, every capability, no seccomp
KEY=privileged ALLOW=privileged LINE=6
