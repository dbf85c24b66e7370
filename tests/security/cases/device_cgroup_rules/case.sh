# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# raw access to every char device (not implemented: exit 2)
KEY=device_cgroup_rules RC=2 LINE=6
