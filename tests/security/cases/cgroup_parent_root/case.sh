# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the container in the host's root cgroup (not implemented: exit 2)
KEY=cgroup_parent RC=2 LINE=6
