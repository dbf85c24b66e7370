# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the host's cgroup namespace (the host's cgroup tree visible)
KEY=cgroup ALLOW='host-cgroup|refused' LINE=6
