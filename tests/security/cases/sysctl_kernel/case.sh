# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a sysctl of the host kernel (not namespaced)
KEY=sysctls ALLOW='host-sysctl|refused' LINE=6
