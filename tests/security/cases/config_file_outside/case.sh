# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# a config read from a file above the repository
KEY=configs ALLOW=. LINE='8|9'
