# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a secret read from a host file outside the project
KEY=secrets ALLOW=. LINE='8|9'
