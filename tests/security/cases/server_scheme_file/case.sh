# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a driver server: URL of the file: scheme (curl would read a host file)
KEY=server ALLOW=. RC='1|2' LINE='4|5'
