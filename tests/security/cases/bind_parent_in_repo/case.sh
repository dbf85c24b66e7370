# shellcheck shell=bash disable=SC2034,SC2154 # sourced by t_security.sh, which reads and sets these
# benign: the Compose file in docker/ mounts .. (the repository)
VERB=benign CWD=docker FILE=docker/compose.yaml
