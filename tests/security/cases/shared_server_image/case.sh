# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# the shared server's image named in the Compose file
KEY=image ALLOW=. LINE=4
