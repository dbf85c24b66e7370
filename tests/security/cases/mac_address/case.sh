# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a fixed MAC address
KEY=mac_address ALLOW=mac-address LINE=6
