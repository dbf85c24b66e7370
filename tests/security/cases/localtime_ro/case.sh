# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# benign: /etc/localtime and /etc/timezone read-only, as written
VERB=benign
