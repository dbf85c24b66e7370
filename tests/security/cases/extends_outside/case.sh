# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# extends a service of a file outside the project (the loader: exit 2)
KEY='extends|outside' RC=2
