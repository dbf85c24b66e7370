# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# COMPOSE_FILE in .env names a file outside the project (the loader: exit 2)
KEY='COMPOSE_FILE|outside' RC=2 CWD=sub
